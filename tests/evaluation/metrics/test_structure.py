"""Structure metrics (tvs_core/evaluation/metrics/structure.py) against known answers: a copy, a fresh sample of the
same model, a model that keeps only block 1's dependence, independent margins, and hand-checkable toys."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from tests.evaluation.conftest import a_set
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.metrics.structure import (
    ci_overlap,
    coefficient_intervals,
    pair_changes,
    pair_structure,
    pmse_ratio,
    regression_design,
    spearman_matrix,
    structure,
)

# 19 Gaussian columns: block 1 = 0..7 (equicorrelation 0.7), block 2 = 8..15 (0.6), 16..18 independent; column
# 19 is a binary Y with a logistic link on five of them (two per block and one independent column)
BETA = np.zeros(19)
BETA[[0, 3, 8, 12, 16]] = [1.0, -0.8, 1.0, -0.8, 0.7]
BLOCK2 = range(8, 16)
Y = 19
CAT = np.zeros(20, dtype=bool)
CAT[Y] = True
NAMES = [f"c{j}" for j in range(20)]


def gaussian_table(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)

    def block(rho: float, k: int) -> np.ndarray:
        return np.sqrt(rho) * rng.normal(size=(n, 1)) + np.sqrt(1 - rho) * rng.normal(size=(n, k))

    x = np.hstack([block(0.7, 8), block(0.6, 8), rng.normal(size=(n, 3))])
    y = rng.random(n) < special.expit(0.2 + x @ BETA)
    return np.hstack([x, y[:, None].astype(float)])


def permute(values: np.ndarray, columns, seed: int) -> np.ndarray:
    """Each listed column shuffled on its own: its margin kept, its dependence on everything else gone."""
    rng = np.random.default_rng(seed)
    out = values.copy()
    for j in columns:
        out[:, j] = rng.permutation(out[:, j])
    return out


@pytest.fixture(scope="module")
def cases() -> dict[str, np.ndarray]:
    real = gaussian_table(1000, 1)
    return {"real": real, "fresh": gaussian_table(1000, 2),
            "partial": permute(gaussian_table(1000, 3), BLOCK2, 4),  # block 1 (and Y on it) kept, block 2 zeroed
            "independent": permute(real, range(20), 5)}


def scores(real: np.ndarray, synthetic: np.ndarray) -> tuple[float, float, float]:
    return (pair_structure(real, synthetic), ci_overlap(real, synthetic, Y, CAT, NAMES)["ci_overlap"],
            pmse_ratio(real, synthetic, CAT))


# --- the four generators ----------------------------------------------------------------------------------------

def test_a_copy_keeps_everything_and_is_perfectly_indistinguishable(cases):
    real = cases["real"]
    pair, overlap, ratio = scores(real, real.copy())
    assert pair == pytest.approx(1.0, abs=1e-12)
    assert overlap == pytest.approx(1.0, abs=1e-9)
    # the propensity MLE on two identical halves is p = c for every row: pMSE 0, not the null's 1
    assert ratio < 1e-6


def test_independent_margins_sit_at_the_floor_and_lose_the_regression(cases):
    real, independent = cases["real"], cases["independent"]
    pair, overlap, ratio = scores(real, independent)
    rho = spearman_matrix(real)[np.triu_indices(20, k=1)]
    assert abs(pair - (1 - np.abs(rho).mean())) < 0.03
    assert overlap < 0.5 < 0.6 < ci_overlap(real, cases["fresh"], Y, CAT, NAMES)["ci_overlap"]
    assert ratio > 5  # needs the interaction terms: main effects alone score exactly 0 here
    # Karr's overlap by hand, untruncated: the lost effects (c0, c3, c8, c12, c16) have disjoint intervals
    table = ci_overlap(real, independent, Y, CAT, NAMES)["per_coefficient"].set_index("coefficient")
    inner = table[["real_high", "synthetic_high"]].min(axis=1) - table[["real_low", "synthetic_low"]].max(axis=1)
    by_hand = 0.5 * (inner / (table["real_high"] - table["real_low"])
                     + inner / (table["synthetic_high"] - table["synthetic_low"]))
    assert np.allclose(table["overlap"], by_hand)
    assert (table.loc[["c0", "c3", "c8", "c12", "c16"], "overlap"] < 0).all()
    assert overlap == pytest.approx(table["overlap"].drop("intercept").mean())


def test_a_fresh_sample_keeps_pairs_and_regression(cases):
    pair, overlap, ratio = scores(cases["real"], cases["fresh"])
    assert pair > 0.95
    assert overlap > 0.5
    # synthpop's null is "drawn from a correct model fitted to the real rows"; an independent sample of the
    # population also carries the real rows' own sampling noise, so its ratio is about 1 / (1 - c) = 2
    assert 1.2 < ratio < 3.5


def test_a_correct_model_fitted_to_the_real_rows_has_pmse_ratio_near_one():
    rng = np.random.default_rng(11)
    cov = 0.5 * np.eye(8) + 0.5
    ratios = []
    for _ in range(8):
        real = rng.multivariate_normal(np.zeros(8), cov, 1000)
        synthetic = rng.multivariate_normal(real.mean(axis=0), np.cov(real.T), 1000)
        ratios.append(pmse_ratio(real, synthetic, np.zeros(8, dtype=bool)))
    assert 0.6 < np.mean(ratios) < 1.5


def test_keeping_one_block_scores_between_independent_and_full(cases):
    real = cases["real"]
    full, partial, independent = (scores(real, cases[k]) for k in ("fresh", "partial", "independent"))
    for metric in (0, 1):  # pair_structure, ci_overlap
        assert independent[metric] < partial[metric] < full[metric]
    assert full[2] < partial[2] < independent[2]
    changes = pair_changes(real, cases["partial"], NAMES)
    block2 = {frozenset((NAMES[a], NAMES[b])) for a in BLOCK2 for b in BLOCK2 if a < b}
    top = {frozenset(pair) for pair in changes[["a", "b"]].head(len(block2)).itertuples(index=False)}
    assert top == block2
    assert (changes["change"].head(len(block2)) < -0.4).all()


# --- tables and toys --------------------------------------------------------------------------------------------

def test_pair_changes_lists_every_pair_once_sorted_by_size_of_change():
    rng = np.random.default_rng(0)
    real = rng.normal(size=(200, 4))
    real[:, 1] += real[:, 0]
    synthetic = rng.normal(size=(200, 4))
    table = pair_changes(real, synthetic, ["w", "x", "y", "z"])
    assert list(table.columns) == ["a", "b", "real", "synthetic", "change"]
    assert len(table) == 6 and (table["a"] + table["b"]).nunique() == 6
    assert np.allclose(table["change"], table["synthetic"] - table["real"])
    assert (np.diff(np.abs(table["change"])) <= 0).all()
    assert tuple(table.loc[0, ["a", "b"]]) == ("w", "x")


def test_spearman_matrix_matches_scipy_and_zeroes_a_constant_column():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 4))
    x[:, 2] = np.round(x[:, 0] + x[:, 1])  # ties
    assert np.allclose(spearman_matrix(x), stats.spearmanr(x).statistic)
    x[:, 3] = 5.0
    corr = spearman_matrix(x)
    assert np.all(corr[3, :3] == 0) and np.all(corr[:3, 3] == 0) and np.allclose(np.diag(corr), 1)


def test_ols_intervals_match_scipy_linregress():
    rng = np.random.default_rng(2)
    x = rng.normal(size=150)
    y = 2 + 3 * x + rng.normal(size=150)
    fit = stats.linregress(x, y)
    t = stats.t.ppf(0.975, 148)
    table = coefficient_intervals(np.c_[x, y], 1, [False, False], ["x", "y"])
    assert list(table["coefficient"]) == ["intercept", "x"]
    assert np.allclose(table["estimate"], [fit.intercept, fit.slope])
    assert np.allclose(table["low"], [fit.intercept - t * fit.intercept_stderr, fit.slope - t * fit.stderr])
    assert np.allclose(table["high"], [fit.intercept + t * fit.intercept_stderr, fit.slope + t * fit.stderr])


def test_logistic_intervals_match_the_two_by_two_table():
    # one binary covariate: the MLE is the log odds ratio with Woolf's standard error sqrt(1/a + 1/b + 1/c + 1/d)
    a, b, c, d = 40, 60, 70, 30  # (x=0,y=0), (x=0,y=1), (x=1,y=0), (x=1,y=1)
    rows = [(0, 0)] * a + [(0, 1)] * b + [(1, 0)] * c + [(1, 1)] * d
    table = coefficient_intervals(np.array(rows, dtype=float), 1, [True, True], ["x", "y"])
    z = stats.norm.ppf(0.975)
    assert list(table["coefficient"]) == ["intercept", "x=1"]
    log_or, se = np.log(a * d / (b * c)), np.sqrt(1 / a + 1 / b + 1 / c + 1 / d)
    assert np.allclose(table["estimate"], [np.log(b / a), log_or])
    assert np.allclose(table.loc[1, ["low", "high"]].astype(float), [log_or - z * se, log_or + z * se])
    assert np.isclose(table.loc[0, "high"] - table.loc[0, "estimate"], z * np.sqrt(1 / a + 1 / b))


def mixed_table(n: int, seed: int) -> np.ndarray:
    """Continuous u, v; a 3-level nominal code g; a 3-class response k that depends on u and g."""
    rng = np.random.default_rng(seed)
    u, v = rng.normal(size=n), rng.normal(size=n)
    g = rng.integers(0, 3, n)
    k = np.digitize(u + 0.8 * g + rng.normal(size=n), [0.5, 1.5])
    return np.c_[u + v + rng.normal(size=n), u, v, g, k].astype(float)  # column 0 is a continuous response


MIXED_CAT = np.array([False, False, False, True, True])
MIXED_NAMES = ["w", "u", "v", "g", "k"]


def test_continuous_and_three_class_responses_give_overlap_one_for_a_copy():
    values = mixed_table(600, 3)
    for response in (0, 4):  # OLS path, then logistic on the most frequent class
        result = ci_overlap(values, values.copy(), response, MIXED_CAT, MIXED_NAMES)
        assert result["ci_overlap"] == pytest.approx(1.0, abs=1e-9)
        assert np.isfinite(result["per_coefficient"]["overlap"]).all()
    x, y, names = regression_design(values, 4, MIXED_CAT, names=MIXED_NAMES)
    assert names == ["intercept", "w", "u", "v", "g=1", "g=2"]  # nominal one-hot, first level dropped
    codes, counts = np.unique(values[:, 4], return_counts=True)
    assert np.array_equal(y, values[:, 4] == codes[np.argmax(counts)])
    assert np.array_equal(x[:, 4], values[:, 3] == 1)
    fresh = ci_overlap(values, mixed_table(600, 4), 4, MIXED_CAT, MIXED_NAMES)["ci_overlap"]
    assert 0.3 < fresh < 1


def test_intervals_far_apart_score_minus_their_distance_in_widths_below_minus_one_inside_the_declared_range():
    """Karr et al.'s overlap, untruncated as synthpop's compare.CI: two intervals of width w whose centres are d apart
    score 1 - d / w (0 when they touch), however far below -1 that is; the catalogue's range must admit it. The
    synthetic rows flip the slope and keep the residuals, so both fits have the same interval width exactly."""
    x = np.linspace(-1, 1, 200)
    noise = 0.1 * np.sin(7 * np.arange(200))
    real, synthetic = np.c_[x, 3 * x + noise], np.c_[x, -3 * x + noise]
    result = ci_overlap(real, synthetic, 1, [False, False], ["x", "y"])
    slope = result["per_coefficient"].set_index("coefficient").loc["x"]
    width = slope["real_high"] - slope["real_low"]
    assert slope["synthetic_high"] - slope["synthetic_low"] == pytest.approx(width)
    assert slope["real_estimate"] - slope["synthetic_estimate"] == pytest.approx(6.0)
    assert result["ci_overlap"] == pytest.approx(1 - 6.0 / width) and result["ci_overlap"] < -1
    low, high = CATALOGUE["ci_overlap"].range
    assert low <= result["ci_overlap"] <= high


def test_levels_come_from_the_real_data():
    real = mixed_table(300, 5)
    synthetic = real.copy()
    synthetic[:, 3] = np.where(synthetic[:, 3] == 2, 7, synthetic[:, 3])  # level 2 missing, unseen code 7
    table = ci_overlap(real, synthetic, 0, MIXED_CAT, MIXED_NAMES)["per_coefficient"]
    assert list(table["coefficient"]) == ["intercept", "u", "v", "g=1", "g=2", "k=1", "k=2"]
    assert np.isnan(table.loc[4, "synthetic_estimate"])  # "g=2" is all zeros in the synthetic design
    assert np.isfinite(table.loc[4, "real_estimate"])


def test_constant_duplicated_and_separating_covariates_do_not_raise():
    values = mixed_table(400, 6)
    broken = np.c_[values, np.full(400, 3.0), values[:, 1]]  # a constant and a duplicate of u
    cat = np.r_[MIXED_CAT, False, False]
    names = [*MIXED_NAMES, "const", "u_copy"]
    for response in (0, 4):
        table = coefficient_intervals(broken, response, cat, names)
        assert table.set_index("coefficient").loc[["const", "u_copy"], "estimate"].isna().all()
        assert np.isfinite(table.set_index("coefficient").loc["u", ["low", "high"]].astype(float)).all()
        assert np.isfinite(ci_overlap(broken, broken.copy(), response, cat, names)["ci_overlap"])
    other = mixed_table(400, 7)
    assert np.isfinite(pmse_ratio(broken, np.c_[other, np.full(400, 3.0), other[:, 1]], cat))
    separated = np.c_[values[:, :4], (values[:, 1] > 0).astype(float)]  # y = 1 exactly when u > 0
    result = ci_overlap(separated, mixed_table(400, 8)[:, :5], 4, MIXED_CAT, MIXED_NAMES)
    assert isinstance(result["ci_overlap"], float)
    assert np.isnan(pmse_ratio(np.ones((50, 3)), np.ones((60, 3)), np.zeros(3, dtype=bool)))  # nothing varies


def test_seeded_and_every_function_runs_on_900_by_1000_by_20():
    """Timing lives in bench/ (tests never assert wall-clock time); here: seeded and finite at that size."""
    real, synthetic = gaussian_table(900, 21), gaussian_table(1000, 22)
    assert pmse_ratio(real, synthetic, CAT, seed=3) == pmse_ratio(real, synthetic, CAT, seed=3)
    assert spearman_matrix(synthetic).shape == (real.shape[1], real.shape[1])
    assert len(pair_changes(real, synthetic, NAMES)) == real.shape[1] * (real.shape[1] - 1) // 2
    assert np.isfinite(pair_structure(real, synthetic))
    assert np.isfinite(coefficient_intervals(real, Y, CAT, NAMES)["estimate"]).any()
    assert np.isfinite(ci_overlap(real, synthetic, Y, CAT, NAMES)["ci_overlap"])


def test_estimable_terms_are_the_columns_that_raise_the_rank():
    """The aliasing check keeps a column exactly when it is not in the span of the columns kept before it (what
    R's lm reports as NaN): planted duplicates, sums, rescaled combinations and zero columns are dropped."""
    from tvs_core.evaluation.metrics.structure import _estimable

    rng = np.random.default_rng(11)
    base = rng.normal(size=(300, 6)) + rng.normal(size=(300, 1))  # correlated columns
    nearly = base[:, 0] + base[:, 1] + 1e-3 * rng.normal(size=300)  # almost their sum, but not: kept
    x = np.c_[np.ones(300), base[:, :3], base[:, 0] + base[:, 1], np.zeros(300), nearly, base[:, 3:],
              2.5 * base[:, 4] - base[:, 2], base[:, 3], rng.normal(size=300)]
    expected, kept = [], np.zeros((300, 0))
    for j in range(x.shape[1]):
        grown = np.c_[kept, x[:, j]]
        raises = np.linalg.matrix_rank(grown) > kept.shape[1]
        expected.append(raises)
        if raises:
            kept = grown
    assert _estimable(x).tolist() == expected
    assert expected.count(False) == 4  # the sum, the zero column, the combination and the copy


# -- on one published set whose answer is known (moved from tests/evaluation/test_set_metrics.py) --------------
def test_structure_of_a_copy_of_the_training_rows_is_kept_whole_and_indistinguishable(data):
    found = structure(a_set(data.train, data))
    assert found["pair_structure"] == pytest.approx(1.0) and found["ci_overlap"] == pytest.approx(1.0)
    assert found["pmse_ratio"] == pytest.approx(0.0, abs=1e-9)
