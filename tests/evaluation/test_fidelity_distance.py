"""Fidelity and distance metrics against known answers: a copying generator, a perfect generator
(fresh draws from the same distribution), a shifted one, and hand-computed toys."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tvs_core.evaluation.distance import exact_copies, nearest
from tvs_core.evaluation.metrics.closeness import dcr
from tvs_core.evaluation.metrics.fidelity import (
    alpha_precision_beta_recall,
    authenticity,
    column_distances,
    kendall_matrix,
)
from tvs_core.evaluation.metrics.membership.attacks import mcmia
from tvs_core.evaluation.set_metrics import spearman_difference


def draws(n: int, d: int, seed: int) -> np.ndarray:
    """Correlated normal columns, so the metrics see some structure."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, d))
    return z + 0.5 * z[:, :1]


# --- authenticity -----------------------------------------------------------------------------

def test_authenticity_copy_is_zero_and_fresh_draws_are_mostly_authentic():
    real = draws(400, 20, 1)
    assert authenticity(real, real) == 0.0
    noisy_copy = real + 1e-6
    assert authenticity(real, noisy_copy) == 0.0
    # a perfect generator in 20 dimensions: ~0.7 (lower in few dimensions, see the docstring)
    assert authenticity(real, draws(400, 20, 2)) > 0.6


def test_authenticity_flags_copies_of_duplicated_real_rows():
    real = draws(50, 3, 3)
    real[1] = real[0]  # duplicated real row: its own nearest other row is at distance 0
    assert authenticity(real, real[:1]) == 0.0


def test_nearest_excludes_self_but_keeps_duplicates():
    x = np.array([[0.0], [0.0], [5.0], [7.0]])
    dist, index = nearest(x, x, k=1, exclude_self=True)
    assert dist[:, 0].tolist() == [0.0, 0.0, 2.0, 2.0]
    assert index[:2, 0].tolist() == [1, 0]


# --- DCR --------------------------------------------------------------------------------------







def test_exact_copies_use_raw_values():
    train = np.array([[1.0, 2.0], [3.0, -0.0]])
    synthetic = np.array([[1.0, 2.0], [3.0, 0.0], [1.0, 2.0000001]])
    assert exact_copies(synthetic, train) == 2


def test_distance_metrics_refuse_missing_values():
    x = draws(20, 3, 12)
    y = x.copy()
    y[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dcr(y, x, x)


# --- MCMIA ------------------------------------------------------------------------------------

def test_mcmia_copy_generator_recovers_every_training_record():
    train, control = draws(300, 6, 13), draws(300, 6, 14)
    out = mcmia(train, control, train)
    assert out["privacy_score"] == 1.0
    assert out["mean_score_train"] > out["mean_score_control"]
    assert mcmia(train, control, train, refinement=False)["privacy_score"] == 1.0


def test_mcmia_fresh_draws_are_indistinguishable():
    train, control, synthetic = draws(300, 6, 15), draws(300, 6, 16), draws(600, 6, 17)
    assert abs(mcmia(train, control, synthetic)["privacy_score"] - 0.5) < 0.1
    assert abs(mcmia(train, control, synthetic, refinement=False)["privacy_score"] - 0.5) < 0.1


def test_mcmia_closer_synthetic_points_score_higher():
    # one synthetic point near record 0, one farther from record 1, both inside the radius
    train = np.array([[0.0, 0.0], [10.0, 0.0]])
    control = np.array([[0.0, 10.0], [10.0, 10.0]])
    synthetic = np.array([[0.1, 0.0], [10.5, 0.0]])
    out = mcmia(train, control, synthetic, radius=1.0)
    assert out["privacy_score"] == 1.0
    assert out["mean_score_control"] == 0.0
    # the paper's literal log(d + eta) would be negative here: ours is -log(d / r + eta) >= 0
    assert out["mean_score_train"] > 0


def test_mcmia_needs_equal_sample_sizes():
    with pytest.raises(ValueError, match="same size"):
        mcmia(draws(10, 2, 0), draws(11, 2, 1), draws(10, 2, 2))


# --- alpha-precision / beta-recall ------------------------------------------------------------

@pytest.mark.parametrize("d", [3, 27])
def test_alpha_precision_beta_recall_same_distribution_and_shift(d):
    real = draws(800, d, 18)
    good = alpha_precision_beta_recall(real, draws(800, d, 19))
    assert good["alpha_precision"] > 0.85 and good["beta_recall"] > 0.85
    assert len(good["alphas"]) == len(good["precision_curve"]) == len(good["recall_curve"]) == 20
    assert np.all(np.diff(good["precision_curve"]) >= 0) and np.all(np.diff(good["recall_curve"]) >= 0)
    shifted = alpha_precision_beta_recall(real, draws(800, d, 19) + 3 * real.std(axis=0))
    assert shifted["alpha_precision"] < 0.5 and shifted["beta_recall"] < 0.5


def test_knn_recall_variant_on_few_columns():
    real = draws(800, 3, 20)
    assert alpha_precision_beta_recall(real, draws(800, 3, 21), recall="knn")["beta_recall"] > 0.85
    assert alpha_precision_beta_recall(real, draws(800, 3, 21) + 3, recall="knn")["beta_recall"] < 0.5


def test_integrated_scores_hand_computed():
    real = draws(300, 4, 22)
    same = alpha_precision_beta_recall(real, real)
    assert same["alpha_precision"] > 0.99 and same["beta_recall"] > 0.99
    # every synthetic row at the real centre: P_alpha = 1 for all alpha, int |1 - a| da = 1/2 -> 0;
    # the synthetic support is a point, so no real row is inside it: R_beta = 0 -> 0 as well
    collapsed = alpha_precision_beta_recall(real, np.repeat(real.mean(axis=0, keepdims=True), 50, axis=0))
    assert collapsed["alpha_precision"] == pytest.approx(0.0, abs=1e-12)
    assert collapsed["beta_recall"] == pytest.approx(0.0, abs=1e-12)
    # custom grid {0.25, 0.75}: weights 1/2 each; P = 1 everywhere -> 1 - 2 * (0.75 + 0.25) / 2 = 0
    custom = alpha_precision_beta_recall(real, real[:1] * 0 + real.mean(axis=0), alphas=[0.75, 0.25])
    assert custom["alphas"].tolist() == [0.25, 0.75]
    assert custom["alpha_precision"] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="strictly between"):
        alpha_precision_beta_recall(real, real, alphas=[0.0, 0.5])


# --- marginals and rank correlations ----------------------------------------------------------

def test_column_distances_ks_and_total_variation():
    rng = np.random.default_rng(23)
    a = rng.normal(size=200)
    real = np.c_[a, a, np.array([0, 0, 1, 2] * 50)]
    synthetic = np.c_[a, a + 100, np.array([0, 1, 1, 3] * 50)]
    ks_same, ks_disjoint, tv = column_distances(real, synthetic, [False, False, True])
    assert ks_same == 0.0
    assert ks_disjoint == 1.0
    # p = (.5, .25, .25, 0), q = (.25, .5, 0, .25) over values (0, 1, 2, 3): 0.5 * (.25 * 4) = 0.5
    assert tv == pytest.approx(0.5)


def test_total_variation_counts_missing_as_a_value():
    real = np.array([[0.0], [np.nan], [1.0], [np.nan]])
    synthetic = np.array([[0.0], [0.0], [1.0], [1.0]])
    # p = (0: .25, 1: .25, nan: .5), q = (0: .5, 1: .5): 0.5 * (.25 + .25 + .5) = 0.5
    assert column_distances(real, synthetic, [True]) == [pytest.approx(0.5)]
    assert column_distances(real, synthetic, [False]) == [pytest.approx(0.0)]


def test_spearman_difference_hand_computed():
    real = np.array([[1, 1, 4], [2, 2, 3], [3, 3, 2], [4, 4, 1]], dtype=float)
    assert spearman_difference(real, real) == 0.0
    # real rho: ab = 1, ac = -1, bc = -1; synthetic: ab = 1 - 6 * 4 / (4 * 15) = 0.6, c constant -> 0
    synthetic = np.array([[1, 2, 5], [2, 1, 5], [3, 4, 5], [4, 3, 5]], dtype=float)
    assert spearman_difference(real, synthetic) == pytest.approx((0.4 + 1 + 1) / 3)
    assert stats.spearmanr(synthetic[:, 0], synthetic[:, 1]).statistic == pytest.approx(0.6)


def test_kendall_matrix_matches_scipy():
    rng = np.random.default_rng(24)
    x = np.c_[rng.integers(0, 3, 40), rng.normal(size=40), rng.integers(0, 5, 40)].astype(float)
    x[:, 1] += x[:, 0]
    tau = kendall_matrix(x)
    assert np.allclose(np.diag(tau), 1.0) and np.allclose(tau, tau.T)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        assert tau[a, b] == pytest.approx(stats.kendalltau(x[:, a], x[:, b]).statistic)
    assert kendall_matrix(np.c_[x[:, 0], np.ones(40)])[0, 1] == 0.0
