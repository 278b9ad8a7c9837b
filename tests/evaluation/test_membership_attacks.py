"""Shadow-model-free membership attacks on the demo tables: a copy generator is caught, independent margins are
not (AUC 0.5), results are seeded, the ROC helpers give known answers, and the exposure table finds a planted
outlier and a planted copy."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tvs_core import DEMOS, holdout_split, infer_schema, load_demo
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.membership_attacks import (
    ATTACKS,
    membership_attacks,
    record_exposure,
    roc_auc,
    row_logsumexp,
    tpr_at_fpr,
)

DEMO_NAMES = ("clinical", "breast_cancer")
# one blind run has SD ~0.02 (clinical) / ~0.04 (breast_cancer: 57 hold-out rows per half); the mean of ten
# has SD ~0.013, so the 0.05 band is ~4 SD wide while an attack with AUC 0.56 would fall outside it
MARGIN_SEEDS = range(10)


def encoded(demo: str, seed: int = 0) -> EvaluationData:
    """The demo split 80/20 and encoded as the evaluation sees it (train = members, test = non-members)."""
    table = load_demo(demo)
    response = DEMOS[demo].response
    train, test = holdout_split(table, response, seed=seed)
    return EvaluationData.from_tables(train, test, infer_schema(train, response=response))


def independent_margins(values: np.ndarray, seed: int) -> np.ndarray:
    """Every column resampled on its own from the training rows: margins kept, nothing about a row kept."""
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.choice(column, size=len(values)) for column in values.T])


@pytest.mark.parametrize("demo", DEMO_NAMES)
def test_copy_generator_is_caught(demo):
    data = encoded(demo)
    found = membership_attacks(data.train, data.train, data.test, data.categorical, seed=0)
    print(demo, "copy", found["auc"], found["tpr_at_1pct_fpr"])
    for attack in ATTACKS:
        assert found["auc"][attack] > 0.9, (attack, found["auc"])
    for attack in ("density_ratio", "distance_difference"):
        assert found["tpr_at_1pct_fpr"][attack] > 0.5, (attack, found["tpr_at_1pct_fpr"])
    # Gen-LRA sums over k = 5 synthetic neighbours and only one is the copy: ~0.3 here, still 30x the FPR
    assert found["tpr_at_1pct_fpr"]["local_likelihood_ratio"] > 0.2, found["tpr_at_1pct_fpr"]


@pytest.mark.slow
@pytest.mark.parametrize("demo", DEMO_NAMES)
def test_independent_margins_are_blind(demo):
    runs = []
    for seed in MARGIN_SEEDS:
        data = encoded(demo, seed)
        found = membership_attacks(independent_margins(data.train, seed), data.train, data.test, data.categorical,
                                   seed=seed)
        runs.append([found["auc"][a] for a in ATTACKS] + [found["tpr_at_10pct_fpr"][a] for a in ATTACKS])
    mean = np.mean(runs, axis=0)
    auc, tpr10 = dict(zip(ATTACKS, mean[:3], strict=True)), dict(zip(ATTACKS, mean[3:], strict=True))
    print(demo, "independent margins", auc, tpr10)
    for attack in ATTACKS:
        assert abs(auc[attack] - 0.5) < 0.05, auc
        assert tpr10[attack] < 0.2, tpr10  # a blind attack finds ~10% of members at 10% FPR


def test_same_seed_same_answer_and_balanced_folds():
    data = encoded("breast_cancer")
    synthetic = independent_margins(data.train, 3)
    first = membership_attacks(synthetic, data.train, data.test, data.categorical, seed=5)
    assert membership_attacks(synthetic, data.train, data.test, data.categorical, seed=5) == first
    assert membership_attacks(synthetic, data.train, data.test, data.categorical, seed=6) != first
    # both halves of the hold-out rows are scored once; as many members as non-members
    assert first["n_non_members"] == first["n_members"] == len(data.test)
    assert set(first) == {"auc", "tpr_at_1pct_fpr", "tpr_at_10pct_fpr", "n_members", "n_non_members"}


def test_roc_helpers_on_hand_made_scores():
    high, low, same = np.arange(10.0, 20.0), np.arange(10.0), np.ones(10)
    assert roc_auc(high, low) == 1.0 and roc_auc(low, high) == 0.0
    assert roc_auc(same, same) == 0.5
    assert roc_auc(np.array([1.0, 2.0]), np.array([1.0])) == 0.75  # a tie counts half
    rng = np.random.default_rng(0)
    members, non_members = rng.integers(0, 5, 40).astype(float), rng.integers(0, 4, 30).astype(float)
    expected = roc_auc_score(np.r_[np.ones(40), np.zeros(30)], np.r_[members, non_members])
    assert roc_auc(members, non_members) == pytest.approx(expected)

    assert tpr_at_fpr(high, low, 0.01) == 1.0
    assert tpr_at_fpr(low, high, 0.01) == 0.0
    assert tpr_at_fpr(same, same, 0.10) == 0.0  # members tied with the threshold do not count
    # 200 non-members 0..199: the 99% quantile is the observed 198, so only 199 lies above (FPR 0.5% <= 1%)
    assert tpr_at_fpr(np.array([197.5, 198.5, 199.5]), np.arange(200.0), 0.01) == pytest.approx(2 / 3)
    # fewer than 1/fpr non-members: the threshold is their maximum
    assert tpr_at_fpr(np.array([8.5, 9.5]), np.arange(10.0), 0.01) == 0.5
    with pytest.raises(ValueError):
        tpr_at_fpr(high, low, 0.0)


@pytest.mark.kernels
@pytest.mark.parametrize("demo", DEMO_NAMES)
def test_record_exposure_finds_planted_outlier_and_copy(demo):
    data = encoded(demo)
    outlier_row, copied_row = 3, 7
    members = data.train.copy()
    numeric = np.flatnonzero(~data.categorical)
    mean, sd = members.mean(axis=0), members.std(axis=0)
    # far out in three columns, unmistakably farthest in the first (20 SD against 8): whatever the realisation of
    # the table, that column is the record's most unusual one
    for j, k in zip(numeric[[0, 5, 12]], (20, -8, 8), strict=True):
        members[outlier_row, j] = mean[j] + k * sd[j]
    synthetic = independent_margins(members, 1)
    synthetic[0] = members[copied_row]

    table = record_exposure(synthetic, members, data.test, data.categorical, names=data.names, top=10)
    print(table.to_string())
    assert list(table.columns) == ["rank", "row", "times_past_threshold", "score", "nearest_synthetic",
                                   "typical_distance", "outlier", "near_duplicate", "why"]
    assert len(table) == 10
    copy = table.iloc[0]  # an exact copy is the most exposed record
    assert copy["row"] == copied_row and copy["near_duplicate"] and copy["nearest_synthetic"] == 0
    assert copy["score"] > 0 and "almost identical" in copy["why"]
    odd = table[table["row"] == outlier_row]
    assert len(odd) == 1 and bool(odd["outlier"].iloc[0]) and "Unusual record" in odd["why"].iloc[0]
    assert data.names[numeric[0]] in odd["why"].iloc[0]  # the most unusual column is named
    assert (table["typical_distance"] > 0).all()

    # without the plants neither row is flagged: the flags come from the planted rows, not from the table
    plain = record_exposure(independent_margins(data.train, 1), data.train, data.test, data.categorical,
                            top=len(data.train)).set_index("row")
    assert not plain.loc[copied_row, "near_duplicate"] and not plain.loc[outlier_row, "outlier"]
    assert plain["outlier"].mean() == pytest.approx(0.05, abs=0.01)


def test_the_kernel_sums_fast_logsumexp_is_scipys_to_the_bit():
    from scipy.special import logsumexp

    rng = np.random.default_rng(7)
    for shape, scale in (((1, 1), 1.0), ((4, 6), 1e-3), ((50, 300), 40.0), ((20, 500), 900.0)):
        a = -rng.exponential(scale, size=shape)
        a[:, :2] = a[:, :1]  # the largest term tied in some rows
        a[0, :] = a[0, 0]  # a row of equal terms
        assert np.array_equal(row_logsumexp(a.copy()), logsumexp(a, axis=1))
