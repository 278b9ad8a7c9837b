"""Membership-inference game: feature sets, two known answers and determinism (small data, tiny preset)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tvs_core
from tests.helpers import CopyRows  # noqa: F401  (registers copy_rows_test)
from tvs_core import holdout_split
from tvs_core.evaluation import protocol
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.membership import (
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
from tvs_core.evaluation.metrics.attribute import Target, choose_targets
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
