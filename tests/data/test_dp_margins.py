"""tvs_core.data.dp_margins: ε-DP histogram margins (Laplace noise of scale 2/ε on every bin count), their CDF,
its left limit for discrete columns, and its inverse."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tvs_core.data.dp_margins import DPHistogramMargins
from tvs_core.errors import DataError

# a continuous column spread one value per bin of [0, 4] (4 bins) and a discrete one on 1, 3, 5
VALUES = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 3.0], [4.0, 5.0]])


class RecordingRng:
    """Stands in for a numpy Generator: records the Laplace scales asked for and adds no noise."""

    def __init__(self):
        self.scales = []

    def laplace(self, loc, scale, size):
        self.scales.append((loc, scale, size))
        return np.zeros(size)


def exact(values=VALUES, bins=4):
    """No noise (an ε = ∞ is refused as any claim's is): the histograms are the exact counts and every CDF can be
    computed by hand."""
    return DPHistogramMargins(1.0, bins=bins).fit(values, [False, True], RecordingRng())


@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan"), float("inf"), "one", None])
def test_an_epsilon_that_is_not_positive_is_refused_in_the_words_of_every_generators_claim(epsilon):
    """The margins' ε is checked by the one declaration of a privacy claim (``settings.PrivacyClaim``), as a
    generator's is: the same sentence, the same way forward."""
    from tvs_core.model.baselines import DPVine

    with pytest.raises(DataError) as margins:
        DPHistogramMargins(epsilon)
    assert str(margins.value) == f"DPHistogramMargins needs ε > 0 (got ε={epsilon}). Give e.g. epsilon=1."
    with pytest.raises(DataError) as generator:
        DPVine(response="y", epsilon=epsilon)._check_settings()
    assert str(generator.value) == f"DPVine needs ε > 0 (got ε={epsilon}). Write e.g. dp_vine:1."
    assert DPHistogramMargins(0.5).epsilon == 0.5


def test_every_count_gets_laplace_noise_of_scale_two_over_epsilon():
    """Bounded DP: replacing one record moves two counts by one each, so the sensitivity is 2."""
    rng = RecordingRng()
    DPHistogramMargins(0.5, bins=4).fit(VALUES, [False, True], rng)
    assert rng.scales == [(0.0, 4.0, 4), (0.0, 4.0, 3)]  # 4 bins; 3 observed discrete values


def test_exact_histograms_give_the_empirical_cdf():
    m = exact()
    assert m.edges[0].tolist() == [0, 1, 2, 3, 4] and m.cdfs[0].tolist() == [0.25, 0.5, 0.75, 1.0]
    assert m.edges[1].tolist() == [1, 3, 5] and m.cdfs[1].tolist() == [0.5, 0.75, 1.0]


def test_continuous_cdf_is_linear_inside_a_bin_and_its_left_limit_is_itself():
    upper, lower = exact().to_unit(np.array([[1.0, 1.0], [2.5, 1.0]]))
    assert upper[:, 0].tolist() == [0.25, 0.625] and np.array_equal(upper[:, 0], lower[:, 0])


def test_discrete_cdf_and_left_limit_by_hand():
    """F(1) = 1/2, F(1-) = 0; F(3) = 3/4, F(3-) = 1/2; an unobserved 4 has no mass: F(4) = F(4-) = 3/4."""
    upper, lower = exact().to_unit(np.array([[0.0, 1.0], [0.0, 3.0], [0.0, 4.0]]))
    assert upper[:, 1].tolist() == [0.5, 0.75, 0.75]
    assert lower[:, 1].tolist() == [1e-10, 0.5, 0.75]  # 0 clipped into the open interval


def test_values_outside_the_range_are_clipped_inside_zero_and_one():
    upper, lower = exact().to_unit(np.array([[-10.0, -10.0], [10.0, 10.0]]))
    assert upper.tolist() == lower.tolist() == [[1e-10, 1e-10], [1 - 1e-10, 1 - 1e-10]]


def test_discrete_quantile_of_u_is_the_value_whose_step_holds_u():
    """u in (F(x-), F(x)] gives x: 0.5 → 1, 0.5001 → 3, 0.75 → 3, 1 → 5."""
    out = exact().from_unit(np.array([[0.5, 0.5], [0.5, 0.5001], [0.5, 0.75], [0.5, 1.0]]))
    assert out[:, 1].tolist() == [1, 3, 3, 5]


@pytest.mark.parametrize("seed", range(5))
def test_noisy_cdfs_rise_strictly_to_one_so_they_can_be_inverted(seed):
    """However the noise falls, clipped counts keep every bin's mass positive: the CDF is invertible, and a
    continuous value comes back from its unit value."""
    rng = np.random.default_rng(seed)
    values = np.column_stack([rng.normal(size=40), rng.integers(0, 3, 40)])
    m = DPHistogramMargins(0.1, bins=10).fit(values, [False, True], rng)
    for cdf in m.cdfs:
        assert (np.diff(cdf) > 0).all() and cdf[-1] == pytest.approx(1.0) and cdf[0] > 0
    inner = values[(values[:, 0] > values[:, 0].min()) & (values[:, 0] < values[:, 0].max())]
    upper, _ = m.to_unit(inner)
    np.testing.assert_allclose(m.from_unit(upper)[:, 0], inner[:, 0], atol=1e-9)
    assert np.array_equal(m.from_unit(upper)[:, 1], inner[:, 1])


def test_a_constant_continuous_column_gets_a_range_of_one():
    m = DPHistogramMargins(1.0, bins=2).fit(np.array([[5.0], [5.0]]), [False], np.random.default_rng(0))
    assert m.edges[0].tolist() == [5.0, 5.5, 6.0]


def test_the_same_generator_state_gives_the_same_margins():
    def fit(seed):
        return DPHistogramMargins(1.0, bins=4).fit(VALUES, [False, True], np.random.default_rng(seed)).to_dict()
    assert fit(3) == fit(3) and fit(3) != fit(4)


def test_saved_margins_map_as_the_fitted_ones_do():
    m = DPHistogramMargins(2.0, bins=4).fit(VALUES, [False, True], np.random.default_rng(0))
    again = DPHistogramMargins.from_dict(json.loads(json.dumps(m.to_dict())))
    assert (again.epsilon, again.bins, again.discrete) == (2.0, 4, [False, True])
    u = np.random.default_rng(1).random((20, 2))
    assert np.array_equal(again.from_unit(u), m.from_unit(u))
