"""Scale (issue 12, first part): per-set metrics on bounded subsamples, no dense n × n matrices."""

import numpy as np
import pandas as pd
import pytest
import pyvinecopulib as pv

from tests.helpers import TINY_ONE_ITERATION as TINY
from tvs_core import TVineSynth, load_demo
from tvs_core.errors import TVSError
from tvs_core.evaluation import release as release_module
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.metrics.membership.attacks import mcmia
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import RecordRole
from tvs_core.evaluation.set_metrics import SyntheticSet, bounded
from tvs_core.evaluation.sizes import PMSE_ROWS, RELEASE_ROWS, SET_ROWS
from tvs_core.jobs import JobView, SweepConfig, memory, submit
from tvs_core.jobs import first_look as first_look_module
from tvs_core.jobs.context import JobContext, fit_holder, split_tables
from tvs_core.jobs.tasks import TaskKind, plan_from_json
from tvs_core.jobs.worker import run_job
from tvs_core.model import vine as vine_module
from tvs_core.model.families import FamilySet
from tvs_core.storage.store import Store


def synthetic_set(rows: int, seed: int = 0) -> SyntheticSet:
    rng = np.random.default_rng(seed)
    data = EvaluationData(encoder=None, schema=None, train=rng.normal(size=(rows, 4)),
                          test=rng.normal(size=(rows // 4, 4)), names=list("abcd"))
    return SyntheticSet(rng.normal(size=(rows, 4)), data, master_seed=7, label="tvinesynth", level=3, index=1)


def test_a_small_set_is_left_whole_and_a_large_one_is_capped_reproducibly():
    small = synthetic_set(400)
    assert bounded(small, rows=500) is small  # every demo is below the cap: numbers unchanged
    large = synthetic_set(2_000)
    one, again = bounded(large, rows=500), bounded(large, rows=500)
    assert len(one.values) == len(one.data.train) == len(one.data.test) == 500
    np.testing.assert_array_equal(one.values, again.values)  # seeded by the set's own key
    other = bounded(SyntheticSet(large.values, large.data, 7, "tvinesynth", 3, 2), rows=500)
    assert not np.array_equal(one.values, other.values)  # a subsample per set: its noise enters the interval
    rows = {tuple(r) for r in large.data.train}
    assert all(tuple(r) in rows for r in one.data.train)  # rows are drawn, not altered


def test_the_catalogue_says_which_metrics_are_subsampled():
    assert CATALOGUE["mia_auc"].rows_cap == SET_ROWS and CATALOGUE["pair_structure"].rows_cap == SET_ROWS
    assert CATALOGUE["auc_tstr"].rows_cap == RELEASE_ROWS and CATALOGUE["release_mab"].rows_cap == RELEASE_ROWS
    assert CATALOGUE["mab"].rows_cap is None  # the games' sizes are the protocol's, not the table's
    assert CATALOGUE["pmse_ratio"].rows_cap == PMSE_ROWS < SET_ROWS  # hundreds of terms: a tighter cap


def test_mcmia_streams_its_distances_and_gives_the_same_score(monkeypatch):
    """Two passes over bounded chunks instead of keeping the 2m × n matrix: the same numbers."""
    import tvs_core.evaluation.distance as distance

    rng = np.random.default_rng(3)
    train, control, synthetic = rng.normal(size=(300, 5)), rng.normal(size=(300, 5)), rng.normal(size=(800, 5))
    whole = mcmia(train, control, synthetic)
    monkeypatch.setattr(distance, "_CHUNK_CELLS", 800 * 7)  # 7 records per chunk
    chunked = mcmia(train, control, synthetic)
    assert chunked == pytest.approx(whole)


# -- the rest of issue 12: sets capped, a first look within seconds, memory as a budget -----------------------

Y = "in_hospital_death"
COLUMNS = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]


@pytest.fixture(scope="module")
def clinical():
    return load_demo("clinical")[COLUMNS]


def sweep_config(**changes) -> SweepConfig:
    return SweepConfig(**{**dict(response=Y, sensitive=["total_cost_eur"], levels=[1, 2, 3], baselines=[],
                                 protocol_overrides=TINY, games=["release"]), **changes})


@pytest.mark.slow
def test_release_sets_are_drawn_at_most_release_rows_long(clinical, monkeypatch):
    """A release of a large table is scored on sets of RELEASE_ROWS rows (i.i.d. rows: a part of a full set)."""
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"]).fit(clinical.iloc[:600])
    from tvs_core.evaluation.context import EvaluationData

    data = EvaluationData.from_model(model, clinical.iloc[:600], clinical.iloc[600:800])
    sizes = []
    original = model.sample_values
    monkeypatch.setattr(model, "sample_values", lambda n, *a, **k: sizes.append(n) or original(n, *a, **k))
    release_module.release_records(model, data, 2, QUICK, ["total_cost_eur"], 0, "tvinesynth", chunk=(0, 2))
    assert sizes == [600, 600]  # below the cap: the published size, as before
    monkeypatch.setattr(release_module, "RELEASE_ROWS", 250)
    sizes.clear()
    release_module.release_records(model, data, 2, QUICK, ["total_cost_eur"], 0, "tvinesynth", chunk=(0, 2))
    assert sizes == [250, 250]


def test_the_holders_fit_with_threads_is_the_same_model(clinical):
    train, _ = split_tables(sweep_config(), clinical, None)
    one, two = fit_holder(sweep_config(), train, threads=1), fit_holder(sweep_config(), train, threads=2)
    assert one.to_json() == two.to_json()  # and it samples with one thread (its tasks run in parallel)


@pytest.mark.slow
def test_a_first_look_comes_before_the_holders_fit_and_never_reaches_a_summary(clinical, tmp_path, monkeypatch):
    monkeypatch.setattr(first_look_module, "FIRST_LOOK_ROWS", 200)
    store = Store(tmp_path)
    job_id = submit(store, clinical, sweep_config())
    assert run_job(store, job_id, n_jobs=1) == "done"
    results = store.results(job_id)
    looks = [r for r in results if r.kind == TaskKind.FIRST_LOOK]
    assert [r.task for r in looks] == ["first_look:1", "first_look:2", "first_look:3"]
    assert results.index(looks[0]) == 0  # stored first, before the holder's fit
    metrics = {rec["metric"] for rec in looks[0].records}
    assert {"auc_tstr", "release_mab"} <= metrics
    assert {rec["role"] for rec in looks[0].records} == {RecordRole.FIRST_LOOK}
    view = JobView(store, job_id)
    assert view.progress()["done"] == view.progress()["total"]  # counted in the plan
    assert not (view.records()["role"] == RecordRole.FIRST_LOOK).any()  # summaries, choice and export never see it
    assert not (view.records(first_look=True)["role"] == RecordRole.FIRST_LOOK).any()  # every level has reported
    live = first_look_module.without_first_look(
        pd.concat([view.records(), pd.DataFrame([{**r, "level": r["level"]} for r in looks[2].records])]),
        keep_missing_levels=True)
    assert not (live["role"] == RecordRole.FIRST_LOOK).any()  # level 3 reported: its first look is gone
    early = pd.DataFrame([rec for r in looks for rec in r.records])
    early["level"] = early["level"].astype("Int64")
    kept = first_look_module.without_first_look(early, keep_missing_levels=True)
    assert set(kept["level"]) == {1, 2, 3}  # before any level reports, the first look stands in on the scatter


@pytest.mark.slow
def test_the_first_looks_lowest_level_is_the_full_recipes_at_that_level(clinical, monkeypatch):
    """The first point comes from a vine fitted up to the lowest level only (seconds on wide tables); it must
    show what the whole recipe would show there, and the other levels must still follow."""
    monkeypatch.setattr(first_look_module, "FIRST_LOOK_ROWS", 200)
    config = sweep_config(levels=None)
    train, test = split_tables(config, clinical, None)
    fitted = []
    original = first_look_module.fit_holder
    monkeypatch.setattr(first_look_module, "fit_holder",
                        lambda c, *a, **k: fitted.append(original(c, *a, **k)) or fitted[-1])
    looks = list(first_look_module.first_look(config, train, test))
    assert fitted[0].fitted_level_ == 1 < fitted[1].fitted_level_  # the lowest level alone, then the recipe
    shown = sorted({1, *range(5, fitted[1].fitted_level_, 5), fitted[1].fitted_level_})
    assert [level for level, _, _ in looks] == shown
    # the progress line's "level k of n" knows n from the second level on: the levels the user did not choose are
    # suggested from the whole table, which a wide one gives only after the first point is shown
    assert [count for _, _, count in looks] == [None] + [len(shown)] * (len(shown) - 1)
    chosen = list(first_look_module.first_look(sweep_config(levels=shown), train, test))
    assert {count for _, _, count in chosen} == {len(shown)}  # levels chosen: n at once
    rng = first_look_module.task_rng(config.seed, RecordRole.FIRST_LOOK, "rows")
    small_train = first_look_module._sample(train, 200, rng)
    small_test = first_look_module._sample(test, 400, rng)
    assert looks[0][:2] == next(first_look_module._looks(config, fitted[1], [1], small_train, small_test))


def test_a_table_whose_holder_fits_as_fast_shows_only_its_lowest_level_first(clinical, monkeypatch):
    """Up to twice the first look's sample, the holder's own fit comes about when the first look's other levels
    would: only the lowest level is looked at (every level's own numbers come sooner), and the progress line and
    the estimate before Start say so; none at all up to the sample, every level above twice it."""
    from tvs_core.jobs import progress

    monkeypatch.setattr(first_look_module, "FIRST_LOOK_ROWS", 200)
    assert [first_look_module.looked_levels(rows, 6) for rows in (150, 200, 201, 400, 401, 5000)] == [0, 0, 1, 1, 6, 6]
    config = sweep_config(levels=None)
    train, test = split_tables(config, clinical.head(450), None)  # 360 training rows
    looks = list(first_look_module.first_look(config, train, test))
    assert [(level, count) for level, _, count in looks] == [(1, 1)]
    # the estimate counts one first-look level's prior (the other tasks cost nothing here)
    monkeypatch.setattr(progress, "kind_costs", lambda store, job: ({"first_look": 1.0, "release": 0.0}, "test"))
    plan = plan_from_json([[f"release:{level}:0-10", "release", 1] for level in (1, 5, 10)])  # a stored plan
    for rows, looked in ((360, 1), (1000, 3)):
        assert progress.estimate(None, plan, rows, 5, 2)[0] == pytest.approx(progress.STARTUP_SECONDS + looked)


@pytest.mark.slow
def test_every_task_stores_its_peak_memory(clinical, tmp_path):
    store = Store(tmp_path)
    job_id = submit(store, clinical.head(300), sweep_config())
    assert run_job(store, job_id, n_jobs=1) == "done"
    peaks = [r.peak_mb for r in store.results(job_id) if r.kind in ("release", "reference")]
    assert peaks and all(p is not None and p > 50 for p in peaks)  # a Python worker with numpy holds > 50 MB


def test_fewer_workers_when_memory_is_short_and_one_clear_line_when_none_fits():
    assert memory.workers_that_fit(1000, 2, 5000) == (2, None)
    slots, line = memory.workers_that_fit(1000, 2, 1500)
    assert slots == 1 and "1 worker(s) instead of 2" in line and "same results" in line
    slots, line = memory.workers_that_fit(1000, 2, 500)
    assert slots == 0 and line.startswith("Not enough memory") and "1.0 GB" in line and "Resume" in line
    assert memory.workers_that_fit(1000, 2, None) == (2, None)  # unknown: as asked
    # the prior stops growing at the row cap; a measured peak replaces it
    assert memory.prior_need_mb("release", 10**6) == memory.prior_need_mb("release", memory.RELEASE_ROWS)
    assert memory.stage_need_mb(["release", "baseline"], 1000, {"release": 9000.0}) == 9000.0


@pytest.mark.slow
def test_a_sweep_that_cannot_fit_in_memory_stops_with_that_line_and_keeps_its_results(clinical, tmp_path,
                                                                                    monkeypatch):
    from tvs_core.jobs import engine

    store = Store(tmp_path)
    job_id = submit(store, clinical.head(300), sweep_config())
    monkeypatch.setattr(engine, "available_mb", lambda: 100.0)
    assert run_job(store, job_id, n_jobs=2) == "failed"
    job = store.job(job_id)
    assert job.error.startswith("Not enough memory") and "Traceback" not in job.error
    assert store.results(job_id)  # the holder's fit is kept
    monkeypatch.setattr(engine, "available_mb", lambda: 1500.0 + 2 * memory.prior_need_mb("release", 240))
    assert run_job(store, job_id, n_jobs=2) == "done"  # resumed once memory is free


def test_a_workspace_from_before_peak_memory_opens_and_gains_the_column(tmp_path):
    import sqlite3

    db = sqlite3.connect(tmp_path / "studio.sqlite")
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '3');
        CREATE TABLE results (job_id TEXT NOT NULL, task TEXT NOT NULL, kind TEXT NOT NULL, records TEXT NOT NULL,
            payload BLOB, seconds REAL NOT NULL, created REAL NOT NULL, PRIMARY KEY (job_id, task));
        INSERT INTO results VALUES ('j', 'reference', 'reference', '[]', NULL, 1.0, 0.0);""")
    db.commit()
    db.close()
    store = Store(tmp_path)
    assert store.results("j")[0].peak_mb is None
    store.add_result("j", "release:1:0-5", "release", [], 2.0, peak_mb=321.0)
    assert store.results("j")[1].peak_mb == 321.0


def test_not_enough_memory_in_memory_evaluation_is_the_same_clear_error(clinical, monkeypatch):
    from tvs_core import evaluate
    from tvs_core.jobs import engine

    model = TVineSynth(response=Y, sensitive=["total_cost_eur"]).fit(clinical.iloc[:240])
    monkeypatch.setattr(engine, "available_mb", lambda: 100.0)
    with pytest.raises(TVSError, match="Not enough memory"):
        evaluate(model, clinical.iloc[:240], clinical.iloc[240:300], levels=[1], games=("release",), n_jobs=1)


def test_pmse_sees_at_most_its_row_cap_and_is_unchanged_below_it():
    from tvs_core.evaluation.metrics.structure import pmse_ratio

    rng = np.random.default_rng(5)
    real, synthetic = rng.normal(size=(600, 4)), rng.normal(size=(600, 4))
    categorical = [False] * 4
    assert pmse_ratio(real, synthetic, categorical, seed=1, max_rows=1000) == pmse_ratio(real, synthetic, categorical,
                                                                                          seed=1)
    capped = pmse_ratio(real, synthetic, categorical, seed=1, max_rows=200)
    assert capped != pmse_ratio(real, synthetic, categorical, seed=1) and 0 < capped < 5


def test_a_gaussian_vine_samples_through_its_normal_score_map_with_pyvinecopulibs_numbers(clinical):
    """The fast path must be the same transform: same uniforms in, the same u out (to rounding), at the fitted
    level and a truncated one, with discrete columns in the table."""
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0).fit(clinical)
    assert any(model.var_types_[k] == "d" for k in range(len(model.var_types_)))
    for level in (None, 2):
        vine = model.vine_at(level)
        linear = vine_module.normal_score_map(vine)
        assert linear is not None
        w = np.random.default_rng(5).random((2000, vine.dim))
        expected = vine.inverse_rosenblatt(np.asfortranarray(w), num_threads=1)
        fast = model._sample_unit(2000, level, np.random.default_rng(5))
        assert np.abs(fast[:, model.column_order_] - expected).max() < 1e-10


def test_other_families_sample_pair_by_pair():
    """A vine with a non-Gaussian pair copula is not a linear map in normal scores: no fast path."""
    first_tree = [pv.Bicop(family=pv.BicopFamily.clayton, parameters=np.array([[2.0]])),
                  pv.Bicop(family=pv.BicopFamily.gaussian, parameters=np.array([[0.5]]))]
    clayton = pv.Vinecop.from_structure(pv.DVineStructure(order=[1, 2, 3]), pair_copulas=[first_tree, [pv.Bicop()]])
    assert vine_module.normal_score_map(clayton) is None


@pytest.mark.slow
def test_reusing_the_holders_families_refits_only_their_parameters(clinical):
    holder = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0, families=FamilySet.FAST).fit(clinical)
    order = list(holder.order_.order[:-1])
    same = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0, families=FamilySet.FAST, order=order,
                      fixed_vine=holder.vine_.to_json()).fit(clinical)
    assert same.vine_.families == holder.vine_.families
    assert np.allclose(np.concatenate([np.ravel(p) for tree in same.vine_.parameters for p in tree]),
                       np.concatenate([np.ravel(p) for tree in holder.vine_.parameters for p in tree]))
    half = clinical.iloc[: len(clinical) // 2]
    refit = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0, families=FamilySet.FAST, order=order, t_max=3,
                       fixed_vine=holder.vine_.to_json()).fit(half)
    assert refit.fitted_level_ == 3
    top = holder.vine_at(3)
    assert refit.vine_.families == top.families  # kept, even where the half would select others
    assert not np.allclose(np.concatenate([np.ravel(p) for tree in refit.vine_.parameters for p in tree]),
                           np.concatenate([np.ravel(p) for tree in top.parameters for p in tree]))


def test_the_games_reuse_the_holders_families_only_when_asked(clinical):
    train, test = clinical.iloc[:250], clinical.iloc[250:]
    holder = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0, families=FamilySet.FAST).fit(train)
    def context(**settings):
        return JobContext.from_config(SweepConfig.for_model(holder, baselines=[], **settings), holder, train, test)

    assert "fixed_vine" not in {k for k, v in context().spec.config.items() if v is not None}
    spec = context(reuse_families=True).spec
    rows = EvaluationData.from_model(holder, train, test).train[:150]
    game_model = spec.build(seed=7, t_max=2).fit_encoded(rows, holder.encoder_, holder.schema_)
    assert game_model.vine_.families == holder.vine_at(2).families
    base = SweepConfig(response=Y, sensitive=["total_cost_eur"])
    assert "reuse_families" not in base.to_dict()  # earlier sweeps keep their identity
    assert SweepConfig(**{**base.to_dict(), "reuse_families": True}).to_dict()["reuse_families"] is True


def test_a_baseline_is_fitted_on_at_most_baseline_rows_the_same_rows_every_time(clinical, monkeypatch):
    from tvs_core.jobs import handlers
    from tvs_core.jobs.config import baseline_spec
    from tvs_core.model.registry import BaselineName

    train, test = clinical.iloc[:300], clinical.iloc[300:400]
    holder = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0).fit(train)
    data = EvaluationData.from_model(holder, train, test)
    spec = baseline_spec(BaselineName.parse("gaussian_copula"), sweep_config())
    assert handlers.fit_baseline(spec, data, 0).n_train_ == 300  # below the cap: every row
    monkeypatch.setattr(handlers, "BASELINE_ROWS", 120)
    one, two = handlers.fit_baseline(spec, data, 0), handlers.fit_baseline(spec, data, 0)
    assert one.n_train_ == 120
    assert np.array_equal(one.sample_values(50, None, seed=1), two.sample_values(50, None, seed=1))


def test_the_reuse_choice_is_kept_by_the_project_and_restored_from_a_sweep(clinical, tmp_path):
    """Saved with the project (a restart reloads it), put into the sweep it defines, and shown again when that
    sweep is opened from a project that had it off."""
    from tvs_core.projects import Projects

    projects = Projects(Store(tmp_path / "ws"))
    project = projects.create(clinical, "clinical", "demo:clinical", response=Y, sensitive=["total_cost_eur"])
    project.sweep.reuse_families = True
    projects.save(project)
    reloaded = Projects(Store(tmp_path / "ws")).load(project.id)
    assert reloaded.sweep.reuse_families is True
    config = reloaded.sweep_config()
    assert config.reuse_families is True
    other = projects.create(clinical, "again", "demo:clinical", response=Y, sensitive=["total_cost_eur"])
    assert other.sweep.reuse_families is False
    other.adopt(config)
    assert other.sweep.reuse_families is True
