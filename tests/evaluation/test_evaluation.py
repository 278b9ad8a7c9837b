"""The whole evaluation with known answers, and fit-once-truncate-many against the naive protocol."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.helpers import TINY as SHARED_TINY
from tests.helpers import CopyRows
from tvs_core import IndependentMargins, TVineSynth, evaluate, holdout_split, load_demo
from tvs_core.evaluation.protocol import QUICK, capped
from tvs_core.model.ordering import default_levels

Y = "in_hospital_death"
SENSITIVE = ["total_cost_eur", "lactate_mmol_l"]
COLUMNS = ["total_cost_eur", "ward_cost_eur", "lab_cost_eur", "lactate_mmol_l", "heart_rate_bpm",
           "sofa_score", "age_years", Y]
# the shared tiny protocol, with more sets and larger games: these tests compare records and intervals
TINY = replace(QUICK, **{**SHARED_TINY, "utility_sets": 3, "release_sets": 4, "aia_size_raw": 200, "aia_size_syn": 200,
                         "aia_sets": 4, "aia_bootstrap_size": 200, "mia_size_attacker": 200, "mia_shadow_sets": 4,
                         "mia_size_raw": 150, "mia_size_syn": 150, "mia_sets": 6, "random_targets": 1,
                         "outlier_quantiles": (0.99,)})


@pytest.fixture(scope="module")
def split():
    table = load_demo("clinical")[COLUMNS].head(500)
    return holdout_split(table, Y, seed=0)


def summary_value(result, metric, model=None, level=None, attribute=None, role=None):
    rows = result.summary().metric(metric)
    if model is not None:
        rows = rows.model(model)
    if level is not None:
        rows = rows.level(level)
    if attribute is not None:
        rows = rows.attribute(attribute)
    if role is not None:
        rows = rows.role(role)
    assert len(rows) >= 1, (metric, model, level)
    return rows.frame


@pytest.mark.kernels
def test_copy_generator_looks_maximally_unsafe(split):
    """Targets are clear outliers (as the paper's are): a copy of the data gives them away. Each target is made
    unmistakable for the attack's correlation features, whatever the realisation of the table: 12 SD above in its
    sensitive column and 12 SD below in a column of the same block, so a set holding it has that pair's
    correlation reversed (about 0.7 and 0.3 without it, below 0.2 and 0 with it)."""
    train, test = split
    train = train.astype({"total_cost_eur": float, "ward_cost_eur": float, "heart_rate_bpm": float})
    for row, column, partner in ((0, "total_cost_eur", "ward_cost_eur"), (1, "lactate_mmol_l", "heart_rate_bpm")):
        train.loc[row, column] = round(train[column].mean() + 12 * train[column].std(), 2)
        train.loc[row, partner] = round(train[partner].mean() - 12 * train[partner].std(), 2)
    model = CopyRows(response=Y, sensitive=SENSITIVE).fit(train)
    # ten shadows: a copy's sets of one shadow model are all the same rows, so two shadows would give the attack's
    # forest two points per class to learn from, and any of the 28 correlations separates two points by chance
    result = evaluate(model, train, test, preset=replace(TINY, mia_shadows=10), seed=1, n_jobs=1,
                      targets={"total_cost_eur": [0], "lactate_mmol_l": [1]})
    pg = result.records.query("metric == 'pg'")["value"]
    assert pg.mean() < 0.35
    assert summary_value(result, "mcmia")["median"].iloc[0] > 0.95
    assert summary_value(result, "authenticity")["median"].iloc[0] < 0.05
    assert summary_value(result, "exact_copies")["median"].iloc[0] == len(train)


@pytest.mark.kernels
def test_independent_margins_look_safe_and_useless(split):
    train, test = split
    model = IndependentMargins(response=Y, sensitive=SENSITIVE).fit(train)
    result = evaluate(model, train, test, preset=TINY, seed=2, n_jobs=1)
    pg = result.records.query("metric == 'pg'")["value"]
    assert 0.7 <= pg.mean() <= 1.3
    assert abs(summary_value(result, "auc_tstr")["median"].iloc[0] - 0.5) < 0.1
    release_mab = summary_value(result, "release_mab", attribute="lactate_mmol_l")["median"].iloc[0]
    real_mab = summary_value(result, "mab", model="raw", attribute="lactate_mmol_l")["median"].iloc[0]
    assert release_mab < 0.5 * real_mab and release_mab < 0.06


@pytest.mark.slow
@pytest.mark.kernels
def test_full_cvine_tstr_is_close_to_trtr():
    train, test = holdout_split(load_demo("clinical"), Y, seed=0)
    model = TVineSynth(response=Y, sensitive=SENSITIVE).fit(train)
    result = evaluate(model, train, test, levels=[model.fitted_level_], preset=TINY, seed=3, n_jobs=2,
                      games=("release",))
    tstr = summary_value(result, "auc_tstr")["median"].iloc[0]
    trtr = summary_value(result, "auc_trtr")
    assert trtr["ci_low"].iloc[0] < trtr["median"].iloc[0] < trtr["ci_high"].iloc[0]
    # the table's copula is Gaussian, so the full vine is the true model: a forest trained on its release keeps
    # most of what the real rows teach above chance (the little lost is estimation and sampling noise)
    assert (tstr - 0.5) >= 0.8 * (trtr["median"].iloc[0] - 0.5)


@pytest.mark.slow
def test_fit_once_truncate_many_equals_refit_per_level(split):
    train, test = split
    model = TVineSynth(response=Y, sensitive=SENSITIVE, seed=4).fit(train)
    kwargs = dict(levels=[1, 3, 7], preset=TINY, seed=5, n_jobs=2)
    fast = evaluate(model, train, test, **kwargs).records
    naive = evaluate(model, train, test, refit_per_level=True, **kwargs).records
    pd.testing.assert_frame_equal(fast, naive)
    assert {"pg", "mab", "release_mab", "auc_tstr", "mcmia"} <= set(fast["metric"])


@pytest.mark.slow
def test_same_seed_same_records_and_every_record_is_tidy(split):
    train, test = split
    model = TVineSynth(response=Y, sensitive=SENSITIVE, seed=4).fit(train)
    a = evaluate(model, train, test, levels=[2, 7], preset=TINY, seed=9, n_jobs=2, games=("release", "aia"))
    b = evaluate(model, train, test, levels=[2, 7], preset=TINY, seed=9, n_jobs=1, games=("release", "aia"))
    pd.testing.assert_frame_equal(a.records, b.records)
    assert list(a.records.columns) == ["model", "level", "metric", "attribute", "target", "target_kind",
                                       "iteration", "value", "role"]
    assert set(a.records["role"]) == {"release", "game", "reference"}


def test_sizes_are_capped_by_the_data_and_the_cap_is_recorded():
    preset, caps = capped(QUICK, 300)
    assert preset.aia_size_raw == 300 and preset.mia_size_raw < 300
    assert {c["parameter"] for c in caps} >= {"aia_size_raw", "mia_size_attacker"}
    assert all(c["used"] < c["requested"] for c in caps)


def test_default_levels_are_every_fifth_plus_one_and_t_max():
    assert default_levels(20) == [1, 5, 10, 15, 20]
    assert default_levels(26) == [1, 5, 10, 15, 20, 25, 26]


@pytest.mark.slow
def test_kendall_matrices_per_level_approach_the_real_one(split):
    train, test = split
    model = TVineSynth(response=Y, sensitive=SENSITIVE, seed=4).fit(train)
    result = evaluate(model, train, test, levels=[1, 7], preset=TINY, n_jobs=1, games=("release",))
    real = result.kendall[("real", None)]
    assert real.shape == (len(COLUMNS), len(COLUMNS)) and result.names[-1] == Y
    gap = {lv: np.abs(result.kendall[("tvinesynth", lv)] - real).mean() for lv in (1, 7)}
    assert gap[7] < gap[1]


class ReversedParallel:
    """joblib.Parallel stand-in that hands results back last-first: a worst case of unordered arrival. The engine
    readies a task when what it reads has been handed back, so every task under way is held until none more can
    start (the engine's free worker then waits: ``None``), and the held ones come back last-first."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, calls):
        held = []
        for fn, args, kwargs in calls:
            result = fn(*args, **kwargs)
            if result is not None:
                held.append(result)
                continue
            if not held:  # nothing under way: a real wait, handed back as the engine's own idle result
                yield None
            while held:
                yield held.pop()
        while held:
            yield held.pop()


@pytest.mark.slow
def test_records_do_not_depend_on_the_order_results_arrive_in(split, monkeypatch):
    """Workers finish in any order under load; the attackers and records must not notice."""
    import tvs_core.jobs.engine as engine

    train, test = split
    model = TVineSynth(response=Y, sensitive=SENSITIVE, seed=4).fit(train)
    kwargs = dict(levels=[1, 7], preset=TINY, seed=5, n_jobs=1)
    in_order = evaluate(model, train, test, **kwargs).records
    monkeypatch.setattr(engine, "Parallel", ReversedParallel)
    reversed_order = evaluate(model, train, test, **kwargs).records
    pd.testing.assert_frame_equal(in_order, reversed_order)
    assert "pg" in set(in_order["metric"])



def test_intervals_do_not_depend_on_the_order_replicates_are_stored_in():
    """The sweep store keeps records in arrival order; the intervals must come out the same."""
    from tvs_core.evaluation.intervals import bootstrap_interval

    values = np.random.default_rng(0).normal(size=40)
    shuffled = values[np.random.default_rng(1).permutation(40)]
    assert bootstrap_interval(shuffled, np.mean) == bootstrap_interval(values, np.mean)


def test_continuous_response_is_scored_and_named_as_r2(split):
    """A statistician reading the records must not find R² values under an AUC name."""
    from tvs_core.choice.mix import UtilityMix
    from tvs_core.choice.summary import choose
    from tvs_core.evaluation.summary import summarise

    train, test = split
    # ward costs: predictable from the other costs of their block (correlation 0.7) in any realisation of the table
    response, sensitive = "ward_cost_eur", ["lactate_mmol_l"]
    model = TVineSynth(response=response, sensitive=sensitive, seed=4).fit(train)
    records = evaluate(model, train, test, levels=[1, 7], preset=TINY, seed=3, n_jobs=1, games=("release",)).records
    utility = {m for m in records["metric"] if m.startswith(("auc_", "r2_"))}
    assert utility == {"r2_tstr", "r2_tstr_linear", "r2_trtr", "r2_trtr_linear"}
    summary = summarise(records)
    selection = choose(summary, sensitive, alpha=0.0, utility=UtilityMix.parse("tstr"))  # the paper's U_t: TSTR alone
    table = selection.table.set_index("level")
    tstr = summary.holder().metric("r2_tstr").frame.set_index("level")["median"]
    trtr = summary.metric("r2_trtr").frame["median"].iloc[0]
    mixed = choose(summary, sensitive, alpha=0.0).table.set_index("level")  # the default mix has the same part
    for level in (1, 7):  # anchored utility = R² relative to chance 0 and to TRTR
        assert table.loc[level, "U"] == pytest.approx(min(max(tstr[level] / trtr, 0), 1))
        assert mixed.loc[level, "U_r2_tstr"] == pytest.approx(tstr[level] / trtr)
