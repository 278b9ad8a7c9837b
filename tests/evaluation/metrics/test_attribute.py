"""Attribute inference with known answers: Gaussian blocks where Theorem 2.4 predicts the attacker.

tvs_core/evaluation/metrics/attribute.py: one iteration of the attribute-inference game on the small table (a numeric
and a categorical sensitive column, hand-picked targets) — which records it writes, their bounds, the raw baseline
that attacks the same sets as IN and OUT (so it shows no gap), and its seeding. That its metrics are the ones the
catalogue declares is in tests/evaluation/test_catalogue.py."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY
from tvs_core import TVineSynth, infer_schema
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.metrics.attribute import Target, aia_iteration, regress_sets, release_attribute_records
from tvs_core.evaluation.preview import (
    attribute_risk_preview,
    expected_beta,
    implied_correlation,
    implied_correlations,
    normal_scores_correlation,
)
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import RAW, Record
from tvs_core.model.families import FamilySet

# Order: s, a1, a2 (block A, independent of the rest) | b1, b2, b3 (block B, tied to y) | y
ORDER = ["s", "a1", "a2", "b1", "b2", "b3", "y"]


def block_gaussian(n, seed):
    rng = np.random.default_rng(seed)
    corr = np.eye(7)
    for block, rho in (([0, 1, 2], 0.6), ([3, 4, 5, 6], 0.5)):
        for i in block:
            for j in block:
                if i != j:
                    corr[i, j] = rho
    return pd.DataFrame(rng.multivariate_normal(np.zeros(7), corr, size=n), columns=ORDER), corr


@pytest.fixture(scope="module")
def fitted():
    table, corr = block_gaussian(3000, 0)
    schema = infer_schema(table).with_roles("y", ["s"])
    model = TVineSynth(response="y", sensitive=["s"], order=ORDER[:-1], families=FamilySet.GAUSSIAN, seed=0)
    model.fit(table, schema)
    data = EvaluationData.from_tables(table, table.head(100), schema)
    return model, data, table


def test_release_mab_is_zero_where_truncation_cuts_the_block_and_positive_above(fitted):
    model, data, _ = fitted
    tau_block = 6 + 1 - 3  # d + 1 - |K| - |S| with K = {a1, a2}
    j = data.index("s")
    mab = {}
    for level in (1, tau_block, 5, 6):
        sets = model.sample_values(40 * 3000, level, seed=level).reshape(40, 3000, -1)
        coef, _, _ = regress_sets(sets, j, data.categorical)
        mab[level] = np.abs(coef).mean()
        if level <= tau_block:  # every coefficient's mean is zero within its sampling interval
            se = coef.std(axis=0, ddof=1) / np.sqrt(len(coef))
            assert np.all(np.abs(coef.mean(axis=0)) < 4 * se + 1e-3), (level, coef.mean(axis=0), se)
    noise = mab[tau_block]
    assert mab[6] > 5 * noise and mab[5] > 2 * noise


def test_mean_beta_matches_theorem_2_4(fitted):
    model, data, table = fitted
    corr = normal_scores_correlation(table[ORDER]).to_numpy()
    j = data.index("s")
    for level in (2, 5, 6):
        sets = model.sample_values(40 * 3000, level, seed=100 + level).reshape(40, 3000, -1)
        coef, _, _ = regress_sets(sets, j, data.categorical)
        predicted = expected_beta(implied_correlation(corr, level), 0)
        measured = coef.mean(axis=0)
        se = coef.std(axis=0, ddof=1) / np.sqrt(len(coef))
        # sampling error of the 40 sets plus the model's estimation error (n = 3000)
        assert np.all(np.abs(measured - predicted) < 4 * se + 0.03), (level, measured, predicted)


def test_preview_reproduces_theorem_2_5_and_is_monotone_in_blocks():
    _, corr = block_gaussian(10, 0)
    preview = attribute_risk_preview(pd.DataFrame(corr, index=ORDER, columns=ORDER), ORDER, ["s"])
    mab = preview.set_index("level")["mab"]
    assert np.allclose(mab.loc[:4], 0, atol=1e-12)  # tau <= d + 1 - |K| - |S| = 4: beta = 0 exactly
    assert mab.loc[5] > 0.05 and mab.loc[6] >= mab.loc[5]
    full = expected_beta(corr, 0)
    assert np.allclose(implied_correlation(corr, 6), corr)
    assert mab.loc[6] == pytest.approx(np.abs(full).mean())


def test_release_records_name_every_set_and_metric(fitted):
    model, data, _ = fitted
    sets = model.sample_values(5 * 500, 6, seed=1).reshape(5, 500, -1)
    records = pd.DataFrame(release_attribute_records(sets, data, ["s"], "tvinesynth", 6))
    assert set(records["metric"]) == {"release_mab", "release_wcab", "release_r2", "release_skill"}
    assert sorted(records.loc[records.metric == "release_mab", "iteration"]) == list(range(5))
    assert (records.loc[records.metric == "release_wcab", "value"].to_numpy()
            >= records.loc[records.metric == "release_mab", "value"].to_numpy()).all()


def test_the_attackers_skill_on_the_real_rows_is_their_r2_and_no_release_beats_it(fitted):
    """The anchors of the default privacy axis: fitted on the real rows, the attacker's skill on them is its in-sample
    R² (the largest any linear guess reaches on those rows); fitted on a release, never more; fitted on shuffled rows,
    about 0."""
    model, data, table = fitted
    real = pd.DataFrame(release_attribute_records(data.train[None], data, ["s"], "real", None))
    value = real.set_index("metric")["value"]
    assert value["release_skill"] == pytest.approx(value["release_r2"], abs=1e-9)
    sets = model.sample_values(5 * 500, 6, seed=2).reshape(5, 500, -1)
    released = pd.DataFrame(release_attribute_records(sets, data, ["s"], "tvinesynth", 6))
    assert (released.loc[released.metric == "release_skill", "value"] <= value["release_skill"] + 1e-12).all()
    rng = np.random.default_rng(0)
    shuffled = np.stack([np.column_stack([rng.permutation(c) for c in data.train.T]) for _ in range(5)])
    noise = pd.DataFrame(release_attribute_records(shuffled, data, ["s"], "shuffled", None))
    assert abs(noise.loc[noise.metric == "release_skill", "value"].median()) < 0.02  # 3000 rows: noise of ~1e-3


def test_a_categorical_secrets_skill_is_the_share_of_the_majority_guess_errors_avoided():
    from tvs_core.evaluation.metrics.attribute import categorical_skill

    assert categorical_skill(0.7, 0.7) == 0 and categorical_skill(1.0, 0.7) == 1
    assert categorical_skill(0.85, 0.7) == pytest.approx(0.5)
    assert categorical_skill(0.6, 0.7) < 0 and categorical_skill(1.0, 1.0) == 0


# -- the default privacy axis against a known answer (issue 55) ----------------------------------------------------
# Two Gaussian tables whose C-vine order puts s first and y last, so that each level adds one root to what the vine
# keeps of s's dependence (Theorem 2.4), and the full vine is the only level holding s's tie to x1:
# * ONE: s is x1 plus a little noise (r = 0.97); x1 is itself 0.7 x (the mean of x2..x11), each of which is a root
#   from level 4 up. Below the full vine the attacker reaches s only through x2..x11 — ten coefficients of ~0.2, R²
#   ~0.46 at level 13 —, at the full vine through x1 alone — one coefficient of ~0.97, R² ~0.94. The mean
#   |coefficient| (MAB) of the full vine is about half that of level 13: MAB calls the most revealing level safer.
# * SPREAD: s is 0.9 x (the mean of x1..x10); every level that adds an x_k adds to what the attacker learns.
ONE = ["s", "x1", *(f"x{k}" for k in range(2, 12)), "z1", "z2", "y"]
SPREAD = ["s", *(f"x{k}" for k in range(1, 11)), "z1", "z2", "y"]


def one_column_gives_it_away(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 10))
    x1 = 0.7 * x.sum(axis=1) / np.sqrt(10) + np.sqrt(1 - 0.49) * rng.standard_normal(n)
    s = 0.97 * x1 + np.sqrt(1 - 0.97 ** 2) * rng.standard_normal(n)
    z = rng.standard_normal((n, 2))
    y = (z.sum(axis=1) + rng.standard_normal(n) > 0).astype(int)
    return pd.DataFrame(np.column_stack([s, x1, x, z, y]), columns=ONE).astype({"y": int})


def spread_over_many(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 10))
    s = 0.9 * x.sum(axis=1) / np.sqrt(10) + np.sqrt(1 - 0.81) * rng.standard_normal(n)
    z = rng.standard_normal((n, 2))
    y = (z.sum(axis=1) + rng.standard_normal(n) > 0).astype(int)
    return pd.DataFrame(np.column_stack([s, x, z, y]), columns=SPREAD).astype({"y": int})


def population_correlation(order: list[str]) -> pd.DataFrame:
    """The tables' correlation in the limit of many rows (y's latent normal stands in for y)."""
    table = (one_column_gives_it_away if order == ONE else spread_over_many)(200_000, 0)
    return pd.DataFrame(np.corrcoef(table.to_numpy(dtype=float), rowvar=False), index=order, columns=order)


def expected_readings(order: list[str], levels: list[int]) -> pd.DataFrame:
    """Theorem 2.4's expected attacker per level: its MAB, and its predictive R² on the real rows (the default
    axis's value), 2 b'r - b'R b for the real correlation R, r and the implied coefficients b."""
    corr = population_correlation(order).to_numpy()
    j, rest = 0, list(range(1, len(order)))
    rows = []
    for level, implied in implied_correlations(corr, levels):
        b = expected_beta(implied, j)
        skill = 2 * b @ corr[rest, j] - b @ corr[np.ix_(rest, rest)] @ b
        rows.append({"level": level, "mab": np.abs(b).mean(), "skill": skill})
    return pd.DataFrame(rows).set_index("level")


@pytest.mark.parametrize("order", [ONE, SPREAD], ids=["one column", "spread"])
def test_the_expected_attackers_skill_ranks_the_full_vine_least_private_and_level_1_most(order):
    """The fast companion of the sampled test below: the expected attacker on the population correlation."""
    full = len(order) - 1
    levels = [1, 4, 7, 10, full - 1, full]
    expected = expected_readings(order, levels)
    skill = expected["skill"]
    gap = 0.3 if order == ONE else 0.05  # what x1 alone adds at the full vine; what the last x_k adds
    assert skill[full] > skill.drop(full).max() + gap and skill[1] < skill.drop(1).min() - 0.03
    assert skill.is_monotonic_increasing
    mab = expected["mab"]
    if order == ONE:  # MAB alone reads the full vine as more private than the level below it
        assert mab[full] < 0.6 * mab[full - 1]
    else:
        assert mab.is_monotonic_increasing


def default_axis_reading(table: pd.DataFrame, levels: list[int], seed: int, n_sets: int = 10) -> dict[str, pd.Series]:
    """P per level as the Choose page reads it, on the default axis and on the paper's MAB (the release MAB: no game
    played), from the release attack on ``n_sets`` published sets a level and its anchors (the real rows, shuffled
    rows), measured as a sweep measures them."""
    from dataclasses import replace

    from tvs_core.choice import DEFAULT_PRIVACY, Axis, select
    from tvs_core.choice.selection import level_table
    from tvs_core.evaluation.records import HOLDER, REAL, SHUFFLED, RecordRole, to_frame
    from tvs_core.evaluation.release import release_sets, set_size, shuffled_sets
    from tvs_core.evaluation.summary import summarise

    train, test = table.iloc[: int(0.8 * len(table))], table.iloc[int(0.8 * len(table)):]
    schema = infer_schema(table).with_roles("y", ["s"])
    model = TVineSynth(response="y", sensitive=["s"], seed=seed).fit(train, schema)
    assert model.order_.order == list(table.columns) and model.fitted_level_ == len(table.columns) - 1
    data = EvaluationData.from_model(model, train, test)
    records = []
    for label, sets in ((REAL, data.train[None]), (SHUFFLED, shuffled_sets(data.train, seed, 5))):
        records += [replace(r, role=RecordRole.REFERENCE)
                    for r in release_attribute_records(sets, data, ["s"], label, None)]
    for level in levels:
        sets = release_sets(model, level, range(n_sets), set_size(data), seed, HOLDER)
        records += release_attribute_records(sets, data, ["s"], HOLDER, level)
    summary = summarise(to_frame(records))
    out = {}
    for name, axis in (("default", DEFAULT_PRIVACY), ("mab", Axis.parse("mab_worst"))):
        rows, anchors = level_table(summary, ["s"], axis)  # no utility measured: P alone
        out[name] = select(rows, privacy=axis, anchors=anchors).table.set_index("level")["P"]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("make", [one_column_gives_it_away, spread_over_many], ids=["one column", "spread"])
def test_the_default_axis_reads_the_full_vine_least_private_and_level_1_most(make, seed):
    """The known answer, sampled: fitted, drawn and read as a sweep does. Expected P (1 - skill / real skill):
    one column ~1.0, 0.9, 0.5, 0 at levels 1, 7, 13, 14; spread ~1.0, 0.7, 0.3, 0 at 1, 6, 10, 13 — gaps of 0.2 or
    more against a spread of the median of ten sets of ~0.03. MAB reads the one-column table's full vine (MAB ~0.09)
    as more private than level 13 (~0.15): the reason the default is not MAB (issue 55)."""
    table = make(1000, seed)
    full = table.shape[1] - 1
    levels = [1, 7, full - 1, full] if make is one_column_gives_it_away else [1, 6, 10, full]
    read = default_axis_reading(table, levels, seed)
    p = read["default"]
    assert p[full] == p.min() and p[full] < p.drop(full).min() - 0.1, p
    assert p[1] == p.max() and p[1] > p.drop(1).max() + 0.05, p
    if make is one_column_gives_it_away:
        mab = read["mab"]
        assert mab[full] > mab[full - 1] + 0.1, mab  # MAB alone: the full vine "more private" than level 13


def test_a_sets_coefficients_do_not_depend_on_the_sets_it_is_regressed_with():
    """A level's sets are scored in chunks (jobs/plan.py): a set with a constant column (its regression singular)
    must not change how the others in its chunk are solved, or the chunks' numbers would differ from one task's."""
    rng = np.random.default_rng(3)
    sets = rng.normal(size=(3, 60, 4))
    sets[2, :, 1] = 1.0  # a constant column in the last set only
    categorical = np.zeros(4, dtype=bool)
    together = regress_sets(sets, 0, categorical)
    for s in range(3):
        alone = regress_sets(sets[s:s + 1], 0, categorical)
        for whole, part in zip(together, alone, strict=True):
            assert whole[s].tobytes() == part[0].tobytes(), s


SENSITIVE = ["income", "color"]  # continuous: a regression attack; nominal: a classifier
TARGETS = [Target(3, "income", "outlier"), Target(10, "income", "random"), Target(10, "color", "random")]
PRESET = replace(QUICK, **{**TINY, "aia_bootstrap_size": 60, "aia_size_raw": 60, "aia_size_syn": 60})


@pytest.fixture(scope="module")
def data() -> EvaluationData:
    table = make_small_table(120)
    schema = infer_schema(table).with_roles("y", SENSITIVE)
    return EvaluationData.from_tables(table.iloc[:80], table.iloc[80:], schema)


@pytest.fixture(scope="module")
def spec() -> GeneratorSpec:
    return GeneratorSpec("independent", {"response": "y", "sensitive": SENSITIVE}, label="indep")


@pytest.fixture(scope="module")
def records(data, spec) -> list[dict]:
    return aia_iteration(spec, data, TARGETS, [None], PRESET, master_seed=5, iteration=2, sensitive=SENSITIVE)


def by(records, **fields) -> list[Record]:
    return [r for r in records if all(getattr(r, k) == v for k, v in fields.items())]


def test_each_model_writes_per_target_errors_and_per_column_summaries_for_a_numeric_column(records):
    for model in (RAW, "indep"):
        found = Counter(r.metric for r in by(records, model=model, attribute="income"))
        assert found == {"mse_in": 2, "mse_out": 2, "mab": 1, "wcab": 1, "mr2": 1}, model
        assert {(r.target, r.target_kind) for r in by(records, model=model, metric="mse_in")} == {
            (3, "outlier"), (10, "random")}


def test_a_categorical_column_gets_one_advantage_per_own_target(records):
    for model in (RAW, "indep"):
        found = by(records, model=model, attribute="color")
        assert [(r.metric, r.target, r.target_kind) for r in found] == [("advantage", 10, "random")]


def test_every_record_is_a_game_record_of_this_iteration(records):
    assert {r.role for r in records} == {"game"} and {r.iteration for r in records} == {2}
    assert {r.level for r in records} == {None} and {r.model for r in records} == {RAW, "indep"}


def test_the_values_are_within_their_bounds(records):
    for model in (RAW, "indep"):
        value = {r.metric: r.value for r in by(records, model=model, target=None)}
        assert 0.0 <= value["mab"] <= value["wcab"]  # a mean of absolute coefficients never exceeds their maximum
        assert 0.0 <= value["mr2"] <= 1.0
    assert all(r.value >= 0 for r in records if r.metric.startswith("mse"))
    assert all(-1.0 <= r.value <= 1.0 for r in records if r.metric == "advantage")


def test_the_raw_baseline_attacks_the_same_sets_in_and_out_so_it_shows_no_gap(records):
    """The raw reference has no IN model: both sides are the same bootstrap sets, so the errors match exactly and
    the categorical attacker's advantage is exactly 0."""
    raw = by(records, model=RAW)
    inside = {r.target: r.value for r in raw if r.metric == "mse_in"}
    outside = {r.target: r.value for r in raw if r.metric == "mse_out"}
    assert inside == outside
    assert [r.value for r in raw if r.metric == "advantage"] == [0.0]


def test_one_record_set_per_level_for_a_generator_with_levels(data):
    spec = GeneratorSpec("tvinesynth", {"response": "y", "sensitive": SENSITIVE}, label="tvs")
    found = aia_iteration(spec, data, TARGETS[:2], [1, 2], PRESET, 5, 0, ["income"])
    assert Counter((r.model, r.level) for r in found) == {(RAW, None): 7, ("tvs", 1): 7, ("tvs", 2): 7}


def test_the_same_iteration_gives_the_same_records_and_another_iteration_others(data, spec):
    def play(iteration):
        return aia_iteration(spec, data, TARGETS[:2], [None], PRESET, 5, iteration, ["income"])

    first = play(2)
    assert play(2) == first
    assert [r.value for r in play(3)] != [r.value for r in first]


def test_a_column_without_targets_writes_no_per_target_records(data, spec):
    found = aia_iteration(spec, data, TARGETS[:2], [None], PRESET, 5, 0, SENSITIVE)
    assert by(found, attribute="color") == []  # no target of its own: nothing to attack
