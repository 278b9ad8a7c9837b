"""Membership-inference game: feature sets, two known answers and determinism (small data, tiny preset).

Shadow-model-free membership attacks on the demo tables: a copy generator is caught, independent margins are
not (AUC 0.5), results are seeded, the ROC helpers give known answers, and the exposure table finds a planted
outlier and a planted copy."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import tvs_core
from tests.evaluation.conftest import a_set
from tvs_core import DEMOS, holdout_split, infer_schema, load_demo
from tvs_core.evaluation import protocol
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.metrics import membership as family
from tvs_core.evaluation.metrics.attribute import Target, choose_targets
from tvs_core.evaluation.metrics.membership.attacks import (
    ATTACKS,
    membership_attacks,
    record_exposure,
    roc_auc,
    row_logsumexp,
    tpr_at_fpr,
)
from tvs_core.evaluation.metrics.membership.game import (
    FEATURE_SETS,
    attacker_reference_rows,
    features_correlations,
    features_histogram,
    features_naive,
    histogram_edges,
    mia_evaluation_task,
    mia_shadow_task,
    set_features,
    train_attackers,
)
from tvs_core.evaluation.records import Record

RESPONSE = "in_hospital_death"
SENSITIVE = ["total_cost_eur", "creatinine_mg_dl"]
COLUMNS = SENSITIVE + ["urea_mg_dl", "lactate_mmol_l", "heart_rate_bpm", "age_years", "sofa_score", RESPONSE]
PRESET = dataclasses.replace(protocol.QUICK, mia_iterations=2, mia_size_attacker=200, mia_shadows=4,
                             mia_shadow_sets=4, mia_size_raw=150, mia_size_syn=200, mia_sets=8,
                             outlier_quantiles=(0.99,), random_targets=1)
SEED = 11




def spec(name: str) -> GeneratorSpec:
    return GeneratorSpec(name, {"response": RESPONSE, "sensitive": SENSITIVE})


def make_data(outliers: bool = False) -> EvaluationData:
    table = tvs_core.load_demo("clinical")[COLUMNS].iloc[:400]
    train, test = holdout_split(table, RESPONSE, seed=0)
    if outliers:  # rows 0 and 1 far outside the cloud (12 SD), so one row moves a set's correlations
        def z(column, k):
            return train[column].mean() + k * train[column].std()
        train.loc[0, "total_cost_eur"] = round(z("total_cost_eur", 12))
        train.loc[0, "creatinine_mg_dl"] = round(z("creatinine_mg_dl", -12), 2)
        train.loc[1, "lactate_mmol_l"] = round(z("lactate_mmol_l", 12), 2)
        train.loc[1, "heart_rate_bpm"] = round(z("heart_rate_bpm", -12))
    schema = tvs_core.infer_schema(train).with_roles(RESPONSE, SENSITIVE)
    return EvaluationData.from_tables(train, test, schema)


def play(generator: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
         feature_set: str = "correlations", seed: int = SEED) -> list[Record]:
    """The whole game, serially: rawA, shadows, attackers, evaluation iterations."""
    raw_a = attacker_reference_rows(data, targets, PRESET, seed)
    shadows = [mia_shadow_task(generator, data, targets, levels, PRESET, seed, s, raw_a, feature_set)
               for s in range(PRESET.mia_shadows)]
    attackers = train_attackers(shadows, seed)
    return [r for it in range(PRESET.mia_iterations)
            for r in mia_evaluation_task(generator, data, targets, levels, PRESET, seed, it, attackers, feature_set)]


def pg_values(records: list[Record]) -> np.ndarray:
    return np.array([r.value for r in records if r.metric == "pg"])


def test_feature_sets():
    rng = np.random.default_rng(0)
    sets = rng.normal(size=(3, 50, 4))
    sets[..., 3] = (sets[..., 3] > 0).astype(float)  # a 0/1 response code
    upper = np.triu_indices(4, k=1)
    corr = features_correlations(sets[0])
    assert corr.shape == (6,)
    np.testing.assert_allclose(corr, np.corrcoef(sets[0], rowvar=False)[upper])

    constant = sets[0].copy()
    constant[:, 1] = 2.5
    with np.errstate(all="ignore"):
        expected = np.nan_to_num(np.corrcoef(constant, rowvar=False)[upper], nan=0.0)
    got = features_correlations(constant)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected)
    assert np.all(got[[0, 3, 4]] == 0)  # every pair with column 1

    naive = features_naive(sets[0]).reshape(4, 5)
    np.testing.assert_allclose(naive[:, 0], sets[0].mean(axis=0))
    np.testing.assert_allclose(naive[:, 1], np.median(sets[0], axis=0))
    np.testing.assert_allclose(naive[:, 2], sets[0].var(axis=0, ddof=1))
    np.testing.assert_allclose(naive[:, 3:], np.c_[sets[0].min(axis=0), sets[0].max(axis=0)])

    edges = histogram_edges(sets[0], bins=5)
    assert edges.shape == (4, 6)
    hist = features_histogram(sets[0], edges).reshape(4, 5)
    for j in range(4):
        np.testing.assert_allclose(hist[j], np.histogram(sets[0][:, j], edges[j])[0] / 50)
    far = features_histogram(sets[1] * 100, edges).reshape(4, 5)  # outside the edges: outer bins
    np.testing.assert_allclose(far.sum(axis=1), 1.0)

    for name in FEATURE_SETS:
        stacked = set_features(sets, name, edges)
        single = [set_features(s[None], name, edges)[0] for s in sets]
        assert stacked.shape[0] == 3 and stacked.ndim == 2
        np.testing.assert_allclose(stacked, np.stack(single))
    with pytest.raises(ValueError):
        set_features(sets, "histogram")


def test_shadow_task_labels_and_shapes():
    data = make_data()
    targets = choose_targets(data, SENSITIVE[:1], PRESET.outlier_quantiles, PRESET.random_targets,
                             np.random.default_rng(0))
    raw_a = attacker_reference_rows(data, targets, PRESET, SEED)
    assert len(raw_a) == PRESET.mia_size_attacker and not {t.row for t in targets} & set(raw_a)
    result = mia_shadow_task(spec("independent"), data, targets, [None], PRESET, SEED, 0, raw_a, "naive")
    assert set(result) == {(t.row, None) for t in targets}
    for x, y in result.values():
        assert x.shape == (2 * PRESET.mia_shadow_sets, 5 * len(data.names))
        assert list(y) == [0] * PRESET.mia_shadow_sets + [1] * PRESET.mia_shadow_sets
    out_features = [x[y == 0] for x, y in result.values()]
    np.testing.assert_array_equal(out_features[0], out_features[1])  # one OUT model per shadow, shared
    # the paper's way: every target gets its own shadow subset and OUT model
    paper_way = dataclasses.replace(PRESET, mia_shared_shadows=False)
    per_target = mia_shadow_task(spec("independent"), data, targets, [None], paper_way, SEED, 0, raw_a, "naive")
    own = [x[y == 0] for x, y in per_target.values()]
    assert not np.array_equal(own[0], own[1])
    for key, (x, y) in per_target.items():
        assert list(y) == list(result[key][1]) and x.shape == result[key][0].shape


def test_copying_generator_loses_membership():
    """IN sets always contain the target and OUT sets never: the attacker wins, PG ~ 0."""
    assert PRESET.mia_size_syn > PRESET.mia_size_raw  # every set holds all the copied rows
    data = make_data(outliers=True)
    targets = [Target(0, "total_cost_eur", "outlier"), Target(1, "creatinine_mg_dl", "outlier")]
    records = play(spec("copy_rows_test"), data, targets, [None])
    pg = pg_values(records)
    assert len(pg) == len(targets) * PRESET.mia_iterations
    assert pg.mean() <= 0.3


def test_independent_margins_keep_membership_private():
    """Independent columns carry no correlation, so the correlation features carry no signal: PG ~ 1."""
    data = make_data()
    targets = choose_targets(data, SENSITIVE[:1], PRESET.outlier_quantiles, PRESET.random_targets,
                             np.random.default_rng(0))
    assert {t.kind for t in targets} == {"outlier", "random"}
    records = play(spec("independent"), data, targets, [None])
    pg = pg_values(records)
    assert 0.7 <= pg.mean() <= 1.3
    assert np.all((pg >= 0) & (pg <= 2))
    for r in records:
        assert r.role == "game" and r.level is None and r.attribute == "total_cost_eur"
    by_metric = {m: [r.value for r in records if r.metric == m] for m in ("pg", "mia_tp", "mia_fp")}
    np.testing.assert_allclose(by_metric["pg"], 1 - (np.array(by_metric["mia_tp"]) - by_metric["mia_fp"]))


def test_same_seed_same_records_with_levels():
    """Task seeds come from the master seed only; a levelled generator gets one attacker per level."""
    data = make_data()
    rows = choose_targets(data, SENSITIVE, PRESET.outlier_quantiles, 0, np.random.default_rng(0))
    targets = rows + [Target(rows[0].row, "creatinine_mg_dl", "random")]  # a row that is a target twice
    generator = spec("gaussian_copula")
    first = play(generator, data, targets, [None])
    assert first == play(generator, data, targets, [None])
    assert first != play(generator, data, targets, [None], seed=SEED + 1)
    doubled = [r for r in first if r.target == rows[0].row and r.iteration == 0 and r.metric == "pg"]
    assert len(doubled) == 2 and doubled[0].value == doubled[1].value

    levelled = spec("tvinesynth")
    records = play(levelled, data, targets[:1], [1, 3])
    assert records == play(levelled, data, targets[:1], [1, 3])
    assert sorted({r.level for r in records}) == [1, 3]


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


# -- on one published set whose answer is known (moved from tests/evaluation/test_set_metrics.py) --------------
def test_monte_carlo_membership_recovers_every_member_of_a_copy_and_none_of_a_hold_out_copy(data):
    """1: every training record recovered; 0: the control records are the ones covered."""
    assert family.monte_carlo_membership(a_set(data.train, data)) == {"mcmia": 1.0}
    assert family.monte_carlo_membership(a_set(data.test, data)) == {"mcmia": 0.0}


def test_the_membership_headlines_are_the_strongest_attacks_numbers(data):
    found = family.membership_attacks(a_set(data.train, data))
    assert found["mia_auc"] == max(found["mia_attack_auc"].values())
    assert len(found["mia_attack_auc"]) == 3
    assert 0.0 <= found["mia_tpr_at_1pct_fpr"] <= found["mia_tpr_at_10pct_fpr"] <= 1.0
    assert found["mia_auc"] > 0.5  # a copy of the members: the strongest attack tells them apart
