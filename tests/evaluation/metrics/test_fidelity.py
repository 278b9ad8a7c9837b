"""``tvs_core.evaluation.metrics.fidelity`` function by function, on hand-sized inputs: the integration weights, the
refusals, alpha-precision and beta-recall at their extremes and under a swap of the two sets, authenticity on a
hand-computed line, the marginal distances and rank-correlation comparisons' symmetries and bounds, and the Sweep
page's Kendall matrices. The readings of a copying or a perfect generator are in ``test_fidelity_distance.py``."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_small_table
from tests.evaluation.conftest import a_set
from tests.helpers import CopyRows
from tvs_core import infer_schema
from tvs_core.evaluation.metrics.fidelity import (
    _grid_weights,
    _total_variation,
    alpha_precision_beta_recall,
    authenticity,
    column_distances,
    fidelity,
    kendall_matrix,
    kendall_real_and_synthetic,
    real_spacing,
)
from tvs_core.evaluation.set_metrics import _rank_correlation, spearman_difference


def points(n, d, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, d))
    return z + 0.5 * z[:, :1]


# --- integration weights ------------------------------------------------------------------------------------------

def test_grid_weights_are_the_midpoint_rule_and_sum_to_one():
    assert _grid_weights(np.array([0.25, 0.75])).tolist() == [0.5, 0.5]
    assert _grid_weights(np.array([0.1, 0.2, 0.9])) == pytest.approx([0.15, 0.4, 0.45])
    default = _grid_weights(np.linspace(0.025, 0.975, 20))
    assert default == pytest.approx(np.full(20, 0.05)) and default.sum() == pytest.approx(1.0)


# --- alpha-precision and beta-recall ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(synthetic=np.zeros((5, 2))), "same columns"),
    (dict(recall="nearest"), "recall must be"),
    (dict(recall="knn", k=0), "k >= 1"),
    (dict(alphas=[0.5, 1.0]), "strictly between"),
    (dict(alphas=[]), "strictly between"),
])
def test_alpha_precision_beta_recall_refuses_bad_arguments(kwargs, message):
    real = points(20, 3, 0)
    with pytest.raises(ValueError, match=message):
        alpha_precision_beta_recall(real, kwargs.pop("synthetic", real), **kwargs)


def test_knn_recall_refuses_a_single_real_row():
    with pytest.raises(ValueError, match="two real rows"):
        alpha_precision_beta_recall(points(1, 2, 1), points(10, 2, 2), recall="knn")


def test_a_far_away_synthetic_set_scores_exactly_zero():
    """No synthetic row in any real alpha-ball, no real row in any synthetic beta-ball: both curves are 0, and
    1 - 2 * sum(w * alpha) = 1 - 2 * 0.5 = 0 on the symmetric default grid."""
    real = points(200, 3, 3)
    far = points(200, 3, 4) + 100 * real.std(axis=0)
    for recall in ("support", "knn"):
        out = alpha_precision_beta_recall(real, far, recall=recall)
        assert not out["precision_curve"].any() and not out["recall_curve"].any()
        assert out["alpha_precision"] == pytest.approx(0.0, abs=1e-12)
        assert out["beta_recall"] == pytest.approx(0.0, abs=1e-12)


def test_curves_are_shares_and_scores_lie_between_minus_a_half_and_one():
    """|P - alpha| is at most max(alpha, 1 - alpha), whose integral is 3/4: a score is at least 1 - 2 * 3/4."""
    real = points(150, 4, 5)
    for synthetic in (points(150, 4, 6), points(150, 4, 6) * 3, points(150, 4, 6) + 1, points(150, 4, 6) * 0.01):
        out = alpha_precision_beta_recall(real, synthetic)
        for curve, score in (("precision_curve", "alpha_precision"), ("recall_curve", "beta_recall")):
            assert ((0 <= out[curve]) & (out[curve] <= 1)).all()
            assert -0.5 - 1e-12 <= out[score] <= 1


def test_precision_and_recall_trade_places_when_real_and_synthetic_swap():
    """With the same column spreads (a shifted copy) both sets are z-scored alike, so the share of synthetic rows in
    the real alpha-ball is the share of 'real' rows in the 'synthetic' ball once the roles swap."""
    real = points(300, 3, 7)
    shifted = real + np.array([0.4, -0.2, 0.1])
    forward = alpha_precision_beta_recall(real, shifted)
    backward = alpha_precision_beta_recall(shifted, real)
    assert forward["precision_curve"] == pytest.approx(backward["recall_curve"])
    assert forward["recall_curve"] == pytest.approx(backward["precision_curve"])
    assert forward["alpha_precision"] == pytest.approx(backward["beta_recall"])


def test_alpha_precision_beta_recall_ignore_row_order_and_column_units():
    real, synthetic = points(120, 3, 8), points(100, 3, 9)
    out = alpha_precision_beta_recall(real, synthetic, recall="knn")
    units = np.array([1e3, 1e-3, 7.0])
    shuffled = alpha_precision_beta_recall(real[::-1] * units, synthetic[::-1] * units, recall="knn")
    assert shuffled["alpha_precision"] == pytest.approx(out["alpha_precision"])
    assert shuffled["beta_recall"] == pytest.approx(out["beta_recall"])


def test_large_tables_are_subsampled_to_max_rows_reproducibly():
    real, synthetic = points(90, 2, 10), points(60, 2, 11)
    out = alpha_precision_beta_recall(real, synthetic, max_rows=50, seed=3)
    assert out["n_real"] == out["n_synthetic"] == 50
    again = alpha_precision_beta_recall(real, synthetic, max_rows=50, seed=3)
    assert again["alpha_precision"] == out["alpha_precision"] and again["beta_recall"] == out["beta_recall"]
    whole = alpha_precision_beta_recall(real, synthetic, max_rows=None)
    assert whole["n_real"] == 90 and whole["n_synthetic"] == 60 and whole["recall"] == "support"


# --- authenticity -------------------------------------------------------------------------------------------------

def test_real_spacing_hand_computed():
    """Real rows 0, 1, 3: nearest other row 1, 1 and 2 away, in units of the real sd."""
    real = np.array([[0.0], [1.0], [3.0]])
    assert real_spacing(real) * real.std() == pytest.approx([1.0, 1.0, 2.0])


def test_authenticity_hand_computed_on_a_line():
    """Real rows 0, 1, 3 (spacing 1, 1, 2): 0.5 is 0.5 from a real row spaced 1 (a copy), 4.9 is 1.9 from 3 (spaced
    2: a copy), 5.5 is 2.5 from 3 and 6 is 3 from it (authentic): half the rows."""
    real = np.array([[0.0], [1.0], [3.0]])
    synthetic = np.array([[0.5], [6.0], [4.9], [5.5]])
    assert authenticity(real, synthetic) == 0.5
    assert authenticity(real, synthetic, spacing=real_spacing(real)) == 0.5
    assert authenticity(real, synthetic[[1, 3]]) == 1.0 and authenticity(real, synthetic[[0, 2]]) == 0.0


def test_authenticity_with_the_spacing_given_equals_the_spacing_computed():
    real, synthetic = points(80, 4, 12), points(60, 4, 13)
    assert authenticity(real, synthetic, spacing=real_spacing(real)) == authenticity(real, synthetic)


def test_authenticity_refuses_mismatched_columns_and_a_single_real_row():
    with pytest.raises(ValueError, match="same columns"):
        authenticity(points(5, 2, 0), points(5, 3, 1))
    with pytest.raises(ValueError, match="two real rows"):
        authenticity(points(1, 2, 0), points(5, 2, 1))


# --- marginal distances -------------------------------------------------------------------------------------------

def test_total_variation_is_zero_for_the_same_shares_one_for_disjoint_values_and_symmetric():
    a = np.array([0.0, 0.0, 1.0, 2.0])
    assert _total_variation(a, a[::-1]) == 0.0
    assert _total_variation(a, np.repeat(a, 3)) == 0.0  # same shares, other size
    assert _total_variation(a, np.array([5.0, 6.0])) == 1.0
    b = np.array([0.0, 1.0, 1.0, 1.0, 3.0])
    assert _total_variation(a, b) == pytest.approx(_total_variation(b, a))


def test_column_distances_are_symmetric_and_within_zero_and_one():
    rng = np.random.default_rng(14)
    real = np.c_[rng.normal(size=60), rng.integers(0, 4, 60)]
    synthetic = np.c_[rng.normal(1, 2, size=45), rng.integers(1, 6, 45)]
    forward = column_distances(real, synthetic, [False, True])
    assert forward == pytest.approx(column_distances(synthetic, real, [False, True]))
    assert all(0 < value < 1 for value in forward)


def test_column_distances_of_a_permuted_copy_are_zero_and_of_a_shifted_copy_one():
    rng = np.random.default_rng(15)
    real = np.c_[rng.normal(size=50), rng.integers(0, 3, 50)]
    assert column_distances(real, real[rng.permutation(50)], [False, True]) == [0.0, 0.0]
    shifted = real + np.array([100.0, 10.0])  # beyond every real value: no overlap at all
    assert column_distances(real, shifted, [False, True]) == [1.0, 1.0]


def test_column_distances_take_a_single_column_as_a_vector():
    assert column_distances(np.array([1.0, 2.0]), np.array([1.0, 2.0]), [True]) == [0.0]


def test_ks_of_a_column_with_nothing_observed_on_one_side_is_nan():
    real = np.array([[1.0], [2.0]])
    assert np.isnan(column_distances(real, np.array([[np.nan], [np.nan]]), [False])[0])


@pytest.mark.parametrize("real, synthetic, discrete, message", [
    (np.zeros((3, 2)), np.zeros((3, 3)), [False, False], "same columns"),
    (np.zeros((3, 2)), np.zeros((3, 2)), [False], "same columns"),
    (np.zeros((0, 1)), np.zeros((3, 1)), [False], "need rows"),
])
def test_column_distances_refuse_inputs_that_do_not_describe_the_same_columns(real, synthetic, discrete, message):
    with pytest.raises(ValueError, match=message):
        column_distances(real, synthetic, discrete)


# --- rank correlations --------------------------------------------------------------------------------------------

def test_rank_correlation_gives_zero_not_nan_for_a_constant_column():
    x = np.c_[np.arange(5.0), np.full(5, 2.0), np.arange(5.0) ** 3]
    corr = _rank_correlation(x)
    assert np.isfinite(corr).all()
    assert corr[0, 1] == corr[1, 2] == 0.0 and corr[0, 2] == pytest.approx(1.0)


def test_spearman_difference_ignores_monotone_transforms_and_is_symmetric():
    real, synthetic = points(40, 3, 16), points(40, 3, 17)
    assert spearman_difference(real, np.exp(real)) == pytest.approx(0.0, abs=1e-12)
    assert spearman_difference(real, synthetic) == pytest.approx(spearman_difference(synthetic, real))
    given = spearman_difference(real, synthetic, real_corr=_rank_correlation(real))
    assert given == spearman_difference(real, synthetic)


def test_spearman_difference_of_a_reversed_dependence_is_two():
    x = np.arange(10.0)
    assert spearman_difference(np.c_[x, x], np.c_[x, -x]) == pytest.approx(2.0)


def test_spearman_difference_of_one_column_is_zero_and_mismatched_columns_are_refused():
    assert spearman_difference(np.arange(5.0), np.arange(5.0)[::-1]) == 0.0
    with pytest.raises(ValueError, match="same columns"):
        spearman_difference(points(5, 2, 0), points(5, 3, 1))


def test_kendall_matrix_is_rank_based_and_flips_sign_with_a_reversed_column():
    x = points(30, 3, 18)
    tau = kendall_matrix(x)
    assert kendall_matrix(np.exp(x)) == pytest.approx(tau)
    assert kendall_matrix(x[::-1]) == pytest.approx(tau)
    flipped = kendall_matrix(x * np.array([1.0, -1.0, 1.0]))
    assert flipped[0, 1] == pytest.approx(-tau[0, 1]) and flipped[0, 2] == pytest.approx(tau[0, 2])


def test_kendall_matrices_of_a_copying_generator_equal_the_real_one():
    """A generator that releases its training rows, sampled at the table's size, has the real Kendall matrix; the
    names are the model's encoded columns, in the matrices' order."""
    table = make_small_table(60)
    model = CopyRows().fit(table, infer_schema(table).with_roles("y", ["age"]))
    real, synthetic, names = kendall_real_and_synthetic(model, table, level=1)
    assert names == list(model.encoder_.names) and real.shape == synthetic.shape == (len(names), len(names))
    assert synthetic == pytest.approx(real)
    _, fewer, _ = kendall_real_and_synthetic(model, table, level=1, rows=20, seed=1)
    assert fewer.shape == real.shape and np.allclose(np.diag(fewer), 1.0) and np.allclose(fewer, fewer.T)


# -- on one published set whose answer is known (moved from tests/evaluation/test_set_metrics.py) --------------
def test_fidelity_of_a_copy_of_the_training_rows_is_perfect_and_never_authentic(data):
    found = fidelity(a_set(data.train, data))
    assert found["alpha_precision"] == 1.0 and found["beta_recall"] == 1.0
    assert found["authenticity"] == 0.0  # every row is a training row
    assert found["spearman_difference"] == pytest.approx(0.0, abs=1e-12)
    assert found["column_distance"] == dict.fromkeys(data.names, 0.0)


def test_fidelity_of_other_real_rows_is_below_perfect_and_within_bounds(data):
    found = fidelity(a_set(data.test, data))
    for name in ("alpha_precision", "beta_recall", "authenticity"):
        assert 0.0 <= found[name] <= 1.0
    assert found["spearman_difference"] > 0 and set(found["column_distance"]) == set(data.names)
    assert any(d > 0 for d in found["column_distance"].values())
