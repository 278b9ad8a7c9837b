"""tvs_core.data.margins: each column to the unit interval (F(x) and, for discrete columns, F(x-)) and back."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tvs_core.data.dp_margins import DPHistogramMargins
from tvs_core.data.margins import (
    EmpiricalMargins,
    KdeMargins,
    _closest,
    make_margins,
    margins_from_dict,
    sorted_quantile,
)

# one continuous and one discrete column, with a tie in each: 1, 2, 2, 3
TIED = np.array([[1.0, 1.0], [2.0, 2.0], [2.0, 2.0], [3.0, 3.0]])


def mixed_values(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.normal(size=n), rng.integers(0, 4, n).astype(float)])


# -- sorted_quantile ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 50])
def test_sorted_quantile_is_numpys_median_unbiased_quantile_bit_for_bit(n):
    rng = np.random.default_rng(n)
    ref = np.sort(rng.normal(size=n))
    q = np.r_[0.0, 1.0, 1e-12, 1 - 1e-12, rng.random(200)]
    assert np.array_equal(sorted_quantile(ref, q), np.quantile(ref, q, method="median_unbiased"))


# -- EmpiricalMargins -----------------------------------------------------------------------------------------------

def test_empirical_pseudo_observations_by_hand():
    """Of 1, 2, 2, 3 (n + 1 = 5): a continuous 2 takes its average rank 2.5 → 0.5; a discrete 2 has F(2) = 3/5 and
    F(2-) = 1/5; beyond the data a continuous value sits half a rank outside, a discrete one at 0 or 4/5."""
    m = EmpiricalMargins().fit(TIED, [False, True])
    upper, lower = m.to_unit(np.array([[2.0, 2.0], [0.0, 0.0], [5.0, 5.0]]))
    np.testing.assert_allclose(upper, [[0.5, 0.6], [0.1, 1e-10], [0.9, 0.8]])
    np.testing.assert_allclose(lower, [[0.5, 0.2], [0.1, 1e-10], [0.9, 0.8]])


def test_unit_values_stay_strictly_inside_zero_and_one():
    """A copula density is not defined at 0 or 1: every value, even far outside the training range, is clipped."""
    for margins in (EmpiricalMargins(), KdeMargins()):
        margins.fit(mixed_values(), [False, True])
        upper, lower = margins.to_unit(np.array([[-1e9, -100.0], [1e9, 100.0]]))
        assert ((upper > 0) & (upper < 1) & (lower > 0) & (lower < 1)).all()


def test_empirical_quantiles_reach_the_training_range_and_no_further():
    m = EmpiricalMargins().fit(TIED, [False, True])
    out = m.from_unit(np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]]))
    assert out.tolist() == [[1.0, 1.0], [3.0, 3.0], [2.0, 2.0]]


def test_empirical_quantiles_rise_with_u_and_discrete_ones_are_training_values():
    values = mixed_values()
    m = EmpiricalMargins().fit(values, [False, True])
    u = np.linspace(0, 1, 101)
    out = m.from_unit(np.column_stack([u, u]))
    assert (np.diff(out, axis=0) >= 0).all()
    assert values[:, 0].min() <= out[:, 0].min() and out[:, 0].max() <= values[:, 0].max()
    assert set(out[:, 1]) <= set(values[:, 1])


def test_closest_value_of_a_support_ties_go_to_the_lower_one():
    support = np.array([1.0, 3.0, 10.0])
    assert _closest(support, np.array([2.0, 2.1, -5.0, 6.4, 6.5, 99.0])).tolist() == [1, 3, 1, 3, 3, 10]
    assert _closest(np.array([4.0]), np.array([0.0, 9.0])).tolist() == [4.0, 4.0]


# -- KdeMargins -----------------------------------------------------------------------------------------------------

def test_kde_gives_discrete_columns_a_left_limit_below_their_cdf_and_continuous_ones_none():
    values = mixed_values()
    upper, lower = KdeMargins().fit(values, [False, True]).to_unit(values)
    assert np.array_equal(upper[:, 0], lower[:, 0])
    assert (upper[:, 1] > lower[:, 1]).all()


def test_kde_discrete_values_come_back_on_the_observed_support():
    """Kde1d is fitted on ranks 0..K-1 of the observed values: the released values are those values, not ranks."""
    values = np.column_stack([np.random.default_rng(3).normal(size=40), np.tile([10.0, 20.0, 50.0, 70.0], 10)])
    out = KdeMargins().fit(values, [False, True]).from_unit(np.random.default_rng(4).random((200, 2)))
    assert set(out[:, 1]) == {10.0, 20.0, 50.0, 70.0}


def test_kde_cdf_and_quantile_rise_together():
    values = mixed_values()
    m = KdeMargins().fit(values, [False, True])
    grid = np.column_stack([np.linspace(-2, 2, 21), np.zeros(21)])
    assert (np.diff(m.to_unit(grid)[0][:, 0]) > 0).all()
    u = np.column_stack([np.linspace(0.01, 0.99, 21)] * 2)
    assert (np.diff(m.from_unit(u), axis=0) >= 0).all()


# -- saving, choosing -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["empirical", "kde"])
def test_saved_margins_map_as_the_fitted_ones_do(kind):
    values = mixed_values()
    m = make_margins(kind).fit(values, [False, True])
    again = margins_from_dict(json.loads(json.dumps(m.to_dict())))
    assert type(again) is type(m) and again.discrete == [False, True]
    u = np.random.default_rng(1).random((30, 2))
    assert np.array_equal(again.from_unit(u), m.from_unit(u))
    for a, b in zip(again.to_unit(values), m.to_unit(values), strict=True):
        assert np.array_equal(a, b)


def test_saved_dp_histogram_margins_are_read_back_as_such():
    m = DPHistogramMargins(epsilon=1.0, bins=5).fit(mixed_values(), [False, True], np.random.default_rng(0))
    again = margins_from_dict(json.loads(json.dumps(m.to_dict())))
    assert isinstance(again, DPHistogramMargins) and again.epsilon == 1.0 and again.bins == 5


def test_an_unknown_kind_of_margins_is_refused_with_the_choices():
    from tvs_core.errors import ChoiceRefused

    with pytest.raises(ChoiceRefused, match="The setting 'margins' cannot be 'gauss'. Choose one of: empirical, kde."):
        make_margins("gauss")
    assert isinstance(make_margins("empirical"), EmpiricalMargins) and isinstance(make_margins("kde"), KdeMargins)
