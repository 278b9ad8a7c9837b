"""One engine: the in-memory runner (evaluate) and the SQLite-backed worker run the same plan."""


import pandas as pd
import pytest

from tests.golden import cases
from tests.helpers import TINY
from tvs_core import TVineSynth, evaluate, load_demo
from tvs_core.choice import Axis
from tvs_core.evaluation.catalogue import CATALOGUE, described
from tvs_core.evaluation.records import HOLDER, REFERENCE_MODELS, record, to_frame
from tvs_core.jobs import JobView, SweepConfig, submit
from tvs_core.jobs.context import context_for_job
from tvs_core.jobs.evaluate import run_in_memory
from tvs_core.jobs.plan import plan
from tvs_core.jobs.worker import run_job
from tvs_core.model.families import FamilySet
from tvs_core.model.registry import BUILT_IN, generator_class
from tvs_core.storage import Store

Y = "in_hospital_death"
TINY_PRESET = "quick"


@pytest.fixture(scope="module")
def table():
    return load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]].head(300)


@pytest.fixture(scope="module")
def stored_job(table, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("engine"))
    config = SweepConfig(response=Y, sensitive=["total_cost_eur"], levels=[1, 3], baselines=["independent"],
                         baseline_games=["aia", "mia"], protocol_overrides=TINY)
    job_id = submit(store, table, config)
    assert run_job(store, job_id, n_jobs=2) == "done"
    return store, job_id, config


# the tests that read ``stored_job`` run on one worker, which runs its sweep once (not once on each worker)
STORED_JOB_GROUP = "engine-stored-job"


@pytest.mark.xdist_group(STORED_JOB_GROUP)
@pytest.mark.slow
def test_in_memory_runner_and_worker_give_identical_records(table, stored_job):
    store, job_id, config = stored_job
    view = JobView(store, job_id)
    context = context_for_job(config, table, None, view.holder())
    in_memory, _ = run_in_memory(context, n_jobs=2)
    pd.testing.assert_frame_equal(in_memory, view.records())
    kinds = {t.kind for t in plan(context)}
    assert kinds == {"holder", "reference", "release", "reference_details", "release_details", "baseline_fit",
                     "baseline_sets", "aia_model", "aia_records", "mia_shadow_model", "mia_attackers",
                     "mia_eval_model", "mia_eval_records"}  # every handler took part


@pytest.mark.xdist_group(STORED_JOB_GROUP)
@pytest.mark.slow
def test_evaluate_is_the_same_engine_as_a_sweep(table, stored_job):
    """evaluate() on the sweep's own holder and split reproduces the sweep's records."""
    store, job_id, config = stored_job
    view = JobView(store, job_id)
    train, test = view.tables()
    context = context_for_job(config, *job_tables_of(view))
    result = evaluate(view.holder(), train, test, levels=config.levels, preset=context.protocol, seed=config.seed,
                      baselines=context.baselines, baseline_games=config.baseline_games)
    pd.testing.assert_frame_equal(result.records, view.records())


def job_tables_of(view):
    from tvs_core.jobs.submission import job_tables

    return job_tables(view.store, view.job)


@pytest.mark.xdist_group(STORED_JOB_GROUP)
@pytest.mark.slow
def test_the_job_view_reads_what_was_planned(stored_job):
    """Pages read levels, caps and targets back from the store instead of rebuilding the context."""
    store, job_id, config = stored_job
    view = JobView(store, job_id)
    planned = context_for_job(config, *job_tables_of(view), view.holder())
    assert view.levels == [1, 3]
    assert view.details["baselines"] == ["independent"]
    assert view.caps == planned.caps and view.caps  # 240 training rows cap the attacker's reference sizes
    assert [(t["row"], t["attribute"]) for t in view.details["targets"]] == [(t.row, t.attribute)
                                                                              for t in planned.targets]


@pytest.mark.xdist_group(STORED_JOB_GROUP)
@pytest.mark.slow
def test_every_recorded_metric_is_in_the_catalogue(stored_job):
    store, job_id, _ = stored_job
    metrics = set(JobView(store, job_id).records()["metric"])
    assert metrics <= set(described()), metrics - set(described())
    for name in metrics:
        entry = described()[name]
        assert entry.label and entry.short and entry.explanation and entry.unit
        assert entry.better in ("higher", "lower") and entry.group and entry.source


@pytest.mark.xdist_group(STORED_JOB_GROUP)
@pytest.mark.slow
def test_axes_anchor_on_real_data_measured_in_the_same_run(stored_job):
    """Each privacy or utility axis names anchors the run actually records (or constants)."""
    store, job_id, _ = stored_job
    records = JobView(store, job_id).records()
    present = {(m, r) for m, r in zip(records["metric"], records["model"], strict=True)}
    for entry in CATALOGUE.values():
        if entry.axis is None or entry.name not in set(records["metric"]):
            continue
        for end in (entry.worst, entry.ideal):
            if hasattr(end, "metric"):
                assert end.model in REFERENCE_MODELS and (end.metric, end.model) in present


def test_registry_does_not_depend_on_import_order():
    for name in BUILT_IN:
        assert generator_class(name).name == name
    assert TVineSynth.name == HOLDER


@pytest.mark.slow
def test_generator_settings_are_read_back_from_the_signature():
    model = TVineSynth(response=Y, sensitive="total_cost_eur", rho_star=0.3, families=FamilySet.FAST, t_max=2)
    config = model.get_config()
    assert config["sensitive"] == "total_cost_eur" and config["rho_star"] == 0.3 and config["t_max"] == 2
    assert set(config) == set(TVineSynth.parameter_names())
    fitted = TVineSynth(**config).fit(load_demo("clinical").head(200))
    assert fitted.sensitive == "total_cost_eur"  # settings stay as given ...
    assert fitted.sensitive_ == ["total_cost_eur"] and fitted.response_ == Y  # ... fitted state ends in _


@pytest.mark.slow
@pytest.mark.kernels
@pytest.mark.shipped_demos
@pytest.mark.parametrize("case", [c for c in cases.CASES if c.endswith("_small")])
def test_golden_numbers_are_unchanged(case):
    """Numbers recorded before the engines were unified: which records exist, summary medians, PU_t and the best
    level (values within cases.RELATIVE: BLAS kernels move last digits)."""
    assert cases.differences(cases.load(case), cases.compute(case)) == []


def test_records_frame_is_canonical():
    rows = [record(HOLDER, 2, "mcmia", 0.5), record("real", None, "auc_trtr", 0.8)]
    assert to_frame(rows)["model"].tolist() == to_frame(rows[::-1])["model"].tolist()


def rows_in_set(s) -> dict:
    """A new release metric for the walkthrough in docs/ARCHITECTURE.md: one function ..."""
    return {"rows_in_set": float(len(s.values))}


@pytest.mark.slow
def test_a_new_release_metric_is_one_declaration_and_one_function(table, monkeypatch):
    """... and one declaration; records, summary.json, labels and the axis choices follow."""
    from tvs_core.choice import axis_choices, summary_json
    from tvs_core.evaluation.catalogue import Metric, label

    monkeypatch.setitem(CATALOGUE, "rows_in_set", Metric(
        "rows_in_set", "Rows in a published set", "Rows per set", "rows", "lower", (0.0, None), "membership risk",
        "release", "How many rows each published set has.", axis="privacy", worst=1000.0, ideal=0.0,
        compute=rows_in_set))
    train = table.head(200)
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=1).fit(train)
    result = evaluate(model, train, table.tail(100), levels=[1], preset=TINY_PRESET, n_jobs=1, games=("release",))
    values = result.records.loc[result.records["metric"] == "rows_in_set", "value"]
    assert len(values) and (values == len(train)).all()
    summary = summary_json(result.records, ["total_cost_eur"], privacy=Axis.parse("rows_in_set"))
    level = next(e for e in summary["levels"] if e["model"] == HOLDER and e["level"] == 1)
    assert level["metrics"]["rows_in_set"]["median"] == len(train)
    assert summary["best_level"] == 1 and label("rows_in_set") == "Rows in a published set"
    assert "rows_in_set" in axis_choices("privacy", ["total_cost_eur"])


# -- ReadyTasks: what a free worker runs next (issue 57) -------------------------------------------------------------
def ready_tasks(monkeypatch, free_mb=None, done=(), levels=(1,)):
    """The plan: the reference and each level's first chunk (``levels``), two shadows' models (one each), the
    attackers reading both, an evaluation model reading the attackers; ``done`` tasks stored already (with a payload
    each)."""
    from types import SimpleNamespace

    import numpy as np

    from tvs_core.jobs import engine
    from tvs_core.jobs.engine import MemorySink, ReadyTasks, TaskResult
    from tvs_core.jobs.tasks import ATTACKERS, EVALUATIONS, GAMES, LEVELS, Task, TaskKey, TaskKind

    ready = []

    def available() -> float | None:  # the machine's free memory: what the running tasks hold is not free
        from tvs_core.jobs.memory import prior_need_mb

        running = len(ready[0].running) if ready else 0
        return None if free_mb is None else free_mb - running * prior_need_mb("reference", 100)

    monkeypatch.setattr(engine, "available_mb", available)
    tasks = [Task(TaskKey(TaskKind.REFERENCE), (), LEVELS),
             *(Task(TaskKey(TaskKind.RELEASE, index=(level, "0-5")), (), LEVELS) for level in levels),
             Task(TaskKey(TaskKind.MIA_SHADOW_MODEL, index=(0, "out")), (), GAMES),
             Task(TaskKey(TaskKind.MIA_SHADOW_MODEL, index=(0, 7)), (), GAMES),
             Task(TaskKey(TaskKind.MIA_ATTACKERS, index=(0,)), (0, 1), ATTACKERS),
             Task(TaskKey(TaskKind.MIA_EVAL_MODEL, index=(0, 7)), (0, 7), EVALUATIONS),
             Task(TaskKey(TaskKind.MIA_EVAL_RECORDS, index=(0,)), (0,), EVALUATIONS + 1)]
    sink = MemorySink()
    for name in done:
        sink.add(TaskResult(name, TaskKey.parse(name).kind.value, [], f"payload of {name}".encode(), {}))
    context = SimpleNamespace(data=SimpleNamespace(train=np.zeros((100, 3))))
    ready.append(ReadyTasks(context, tasks, sink, workers=2))
    return ready[0], sink


def started(call) -> str | None:
    """The task a joblib call runs (None: a free worker's short wait)."""
    function, args, _ = call
    return None if function.__name__ == "_idle" else args[0].name


def finish(ready, name: str) -> None:
    from tvs_core.jobs.engine import TaskResult
    from tvs_core.jobs.tasks import TaskKey

    ready.finished(TaskResult(name, TaskKey.parse(name).kind.value, [], f"payload of {name}".encode(), {}))


def test_a_free_worker_starts_the_first_task_whose_inputs_are_stored_and_waits_when_none_is(monkeypatch):
    ready, _ = ready_tasks(monkeypatch)
    assert [started(next(ready)), started(next(ready))] == ["reference", "release:1:0-5"]
    assert started(next(ready)) is None  # the games wait for every level's quick numbers: levels first
    finish(ready, "release:1:0-5")
    assert started(next(ready)) is None
    finish(ready, "reference")
    assert [started(next(ready)), started(next(ready))] == ["mia_shadow_model:0:out", "mia_shadow_model:0:7"]
    finish(ready, "mia_shadow_model:0:7")
    assert started(next(ready)) is None  # the attackers need both shadow models
    finish(ready, "mia_shadow_model:0:out")
    call = next(ready)
    assert started(call) == "mia_attackers:0"
    assert call[1][2] == [b"payload of mia_shadow_model:0:out", b"payload of mia_shadow_model:0:7"]  # plan order
    finish(ready, "mia_attackers:0")
    assert started(next(ready)) == "mia_eval_model:0:7"
    finish(ready, "mia_eval_model:0:7")
    assert started(next(ready)) == "mia_eval_records:0"
    with pytest.raises(StopIteration):
        next(ready)


def test_a_resumed_job_hands_on_the_stored_payloads_and_runs_no_stored_task(monkeypatch):
    stored = ("reference", "release:1:0-5", "mia_shadow_model:0:out", "mia_shadow_model:0:7")
    ready, _ = ready_tasks(monkeypatch, done=stored)
    call = next(ready)
    assert started(call) == "mia_attackers:0"
    assert call[1][2] == [b"payload of mia_shadow_model:0:out", b"payload of mia_shadow_model:0:7"]


def test_no_more_tasks_run_at_once_than_the_free_memory_holds_and_none_that_cannot_fit(monkeypatch):
    from tvs_core.jobs.memory import HEADROOM, prior_need_mb

    one = prior_need_mb("reference", 100)
    ready, _ = ready_tasks(monkeypatch, free_mb=1.5 * one / HEADROOM)  # room for one task of a level, not two
    assert started(next(ready)) == "reference"
    assert started(next(ready)) is None  # the level's release waits for the memory, not for an input
    assert ready.notes and "instead of 2" in ready.notes[0]
    finish(ready, "reference")
    assert started(next(ready)) == "release:1:0-5"
    starved, _ = ready_tasks(monkeypatch, free_mb=0.5 * one)
    with pytest.raises(StopIteration):
        next(starved)
    assert "Not enough memory" in starved.error


def test_a_worker_that_ends_a_task_gets_the_next_ready_task_before_its_result_is_stored(monkeypatch):
    """joblib asks for the next call as soon as a worker ends one, before the engine's thread stores that result:
    with a task ready and memory to spare, the free worker is handed that task, not a wait (a wait cost every task
    0.1 s: a sixth of a 27-column sweep's time)."""
    ready, _ = ready_tasks(monkeypatch, levels=(1, 5, 10))
    assert [started(next(ready)), started(next(ready))] == ["reference", "release:1:0-5"]
    assert started(next(ready)) == "release:5:0-5"  # the reference ended; its result is not stored yet
    finish(ready, "reference")
    assert started(next(ready)) == "release:10:0-5"
    finish(ready, "release:1:0-5")
    assert started(next(ready)) is None  # nothing is ready: the games wait for every level's quick numbers
