"""The sweep engine: resume after a kill, cancel, concurrency, the store, backends."""

import os
import pickle
import shutil
import signal
import threading
import time

import pandas as pd
import pytest

from tests import processes
from tests.helpers import TINY, PlantedPickle, ctrl_c_as_in_a_terminal
from tvs_core import load_demo
from tvs_core.choice import UtilityMix
from tvs_core.choice.summary import summary_json
from tvs_core.jobs import JobView, SweepConfig, submit
from tvs_core.jobs.process import cancel_job, resume_orphans, start_worker, worker_alive
from tvs_core.jobs.progress import progress
from tvs_core.jobs.submission import Started
from tvs_core.jobs.tasks import plan_from_json
from tvs_core.jobs.worker import run_job
from tvs_core.storage.store import JobRow, Store

Y = "in_hospital_death"
KEYS = ["model", "level", "metric", "attribute", "target", "iteration"]


@pytest.fixture(scope="module")
def table():
    return load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]].head(300)


def config(**changes):
    base = dict(response=Y, sensitive=["total_cost_eur"], levels=[1, 2, 3], baselines=["independent"],
                protocol_overrides=TINY)
    return SweepConfig(**{**base, **changes})


def sorted_records(store, job_id):
    return JobView(store, job_id).records().sort_values(KEYS).reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(table, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("reference"))
    job_id = submit(store, table, config())
    assert run_job(store, job_id, n_jobs=2) == "done"
    return sorted_records(store, job_id), store, job_id


# the tests that read ``reference`` run on one worker, which runs its sweep once (not once on each worker)
REFERENCE_GROUP = "sweep-reference"


def wait_for(predicate, timeout=900.0, every=0.1):
    """Whether ``predicate()`` came true within ``timeout`` seconds: a ceiling for a loaded machine, never a budget."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return False


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_identical_request_is_answered_from_the_store(table, reference):
    records, store, job_id = reference
    assert submit(store, table, config()) == job_id
    results_before = len(store.results(job_id))
    assert run_job(store, job_id) == "done"
    assert len(store.results(job_id)) == results_before
    assert submit(store, table, config(seed=1)) != job_id  # a different configuration is a different job


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_start_answers_a_finished_sweep_follows_a_running_one_and_runs_or_resumes_the_rest(table, reference,
                                                                                           tmp_path):
    """The one decision behind the CLI's sweep and the Sweep page's Start: never a second worker for a job."""
    from tvs_core.jobs.process import process_start_time
    from tvs_core.jobs.submission import Next, start_or_follow

    _, done_store, done_id = reference
    assert start_or_follow(done_store, table, config()) == Started(done_id, Next.NOTHING)
    store = Store(tmp_path)
    started = start_or_follow(store, table, config())
    assert started == Started(started.job_id, Next.RUN, resuming=False)  # new: nothing runs it yet
    store.update_job(started.job_id, status="running", pid=os.getpid(), pid_started=process_start_time(os.getpid()),
                     heartbeat=time.time())  # a live worker (this process) runs it
    assert start_or_follow(store, table, config()).next == Next.FOLLOW
    store.add_result(started.job_id, "reference", "reference", [], 1.0)
    store.update_job(started.job_id, status="interrupted", pid=None)  # stopped with a task stored
    assert start_or_follow(store, table, config()) == Started(started.job_id, Next.RUN, resuming=True)


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_every_task_is_stored_once_with_progress_and_plan(reference):
    records, store, job_id = reference
    job = store.job(job_id)
    tasks = [task.name for task in plan_from_json(job.plan)]
    assert sorted(r.task for r in store.results(job_id)) == sorted(tasks)
    assert job.done == job.total == len(tasks)
    assert progress(store, job_id)["eta_seconds"] == pytest.approx(0.0)
    assert {"release_mab", "mab", "pg", "auc_tstr", "auc_trtr"} <= set(records["metric"])
    assert store.add_result(job_id, tasks[1], "x", [], 0.0) is False  # a second copy is refused


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_worker_killed_mid_job_resumes_to_the_same_numbers(table, reference, tmp_path):
    expected = reference[0]
    store = Store(tmp_path)
    job_id = submit(store, table, config())
    pid = start_worker(store, job_id, n_jobs=1)
    assert wait_for(lambda: store.job(job_id).done >= 3)
    os.killpg(pid, signal.SIGKILL)
    assert wait_for(lambda: not worker_alive(store.job(job_id)), timeout=120)
    partial = store.job(job_id).done
    assert store.job(job_id).status == "running" and partial < store.job(job_id).total
    assert resume_orphans(store, n_jobs=2) == [job_id]
    assert wait_for(lambda: store.job(job_id).status in ("done", "failed"))
    assert store.job(job_id).status == "done", store.job(job_id).error
    tasks = [r.task for r in store.results(job_id)]
    assert len(tasks) == len(set(tasks)) == store.job(job_id).total
    pd.testing.assert_frame_equal(sorted_records(store, job_id), expected)


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_a_job_begun_by_an_earlier_version_resumes_without_reading_its_pickles(reference, tmp_path):
    """An earlier version kept the membership shadows and attackers as pickles. Resuming such a job runs those tasks
    again instead of reading them (no pickle is read from disk), and ends with the numbers an unbroken sweep
    gives."""
    expected, done_store, job_id = reference
    shutil.copytree(done_store.workspace, tmp_path / "ws")
    store = Store(tmp_path / "ws")
    marker = tmp_path / "pickle ran"
    kept = store.payload_heads(job_id, 4)
    assert kept and {head for head in kept.values()} == {b"PK\x03\x04"}  # this version's shadows and attackers
    with store.transaction() as db:
        db.execute("UPDATE results SET payload = ? WHERE job_id = ? AND payload IS NOT NULL",
                   (pickle.dumps(PlantedPickle(marker)), job_id))
    evaluations = [r.task for r in store.results(job_id) if r.kind in ("mia_eval_model", "mia_eval_records")]
    assert evaluations
    store.forget_results(job_id, evaluations)  # stopped before the membership evaluations
    store.update_job(job_id, status="interrupted")
    assert store.job(job_id).done == store.job(job_id).total - len(evaluations)
    assert run_job(store, job_id, n_jobs=2) == "done", store.job(job_id).error
    assert not marker.exists()
    # what the evaluations read ran again and was stored in this version's format; a payload nothing still to run
    # reads (the attribute game's models: its records are stored) is not made again
    again = store.payload_heads(job_id, 4)
    assert set(again.values()) == {b"PK\x03\x04"} and set(again) <= set(kept)
    assert {task for task in kept if task.startswith(("mia_shadow_model:", "mia_attackers:", "mia_eval_model:"))
            } <= set(again)
    assert store.job(job_id).done == store.job(job_id).total
    assert any("never reads" in event["message"] for event in store.events(job_id))
    pd.testing.assert_frame_equal(sorted_records(store, job_id), expected)


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_a_job_stored_with_one_chunk_per_level_resumes_to_the_same_summary_bytes(table, reference, tmp_path,
                                                                               monkeypatch):
    """Before the first chunks (issue 57), a level's sets were scored in one release task (release:L:0-5 at the
    test suite's sizes). A job stored then and resumed now keeps the chunks it holds, scores a level it had not
    scored in this version's chunks, and ends with the records and summary.json of a sweep run now, byte for byte."""
    import json

    from tvs_core.evaluation.release import DISTANCE_SETS
    from tvs_core.jobs import plan as planning

    def one_chunk(protocol):  # the plan before issue 57, as main had it
        n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
        first = min(n_sets, 10)
        return [(0, first)] + ([(first, n_sets)] if n_sets > first else [])

    expected, done_store, _ = reference
    store = Store(tmp_path)
    job_id = submit(store, table, config())
    with monkeypatch.context() as earlier:
        earlier.setattr(planning, "release_chunks", one_chunk)
        assert run_job(store, job_id, n_jobs=2) == "done"
    assert {r.task for r in store.results(job_id) if r.kind == "release"} == {
        "release:1:0-5", "release:2:0-5", "release:3:0-5"}
    store.forget_results(job_id, ["release:3:0-5", "aia:0", "release_details:2"])  # stopped before these
    store.update_job(job_id, status="interrupted")
    assert run_job(store, job_id, n_jobs=2) == "done", store.job(job_id).error
    tasks = [r.task for r in store.results(job_id)]
    assert len(tasks) == len(set(tasks)) == store.job(job_id).total
    assert sorted(t for t in tasks if t.startswith("release:")) == [
        "release:1:0-5", "release:2:0-5", "release:3:0-2", "release:3:2-5"]  # no set scored twice
    pd.testing.assert_frame_equal(sorted_records(store, job_id), expected)
    ran_now = done_store.job(reference[2]).id
    assert json.dumps(summary_json(JobView(store, job_id).records(), ["total_cost_eur"])) == json.dumps(
        summary_json(JobView(done_store, ran_now).records(), ["total_cost_eur"]))


@pytest.mark.slow
def test_cancel_stops_within_one_task(table, tmp_path):
    store = Store(tmp_path)
    job_id = submit(store, table, config(levels=[1, 2, 3, 4]))
    start_worker(store, job_id, n_jobs=1)
    assert wait_for(lambda: store.job(job_id).done >= 2)
    asked_at = store.job(job_id).done
    cancel_job(store, job_id, grace_seconds=60)
    job = store.job(job_id)
    assert job.status == "cancelled" and not worker_alive(job)
    assert job.done <= asked_at + 2  # the task running when asked may still be stored (and its sibling)
    assert job.done < job.total
    assert run_job(store, job_id, n_jobs=2) == "done"  # and it resumes from there


@pytest.mark.slow
def test_a_cancel_says_at_once_that_it_is_stopping_and_the_worker_stops_its_tasks_itself(table, tmp_path):
    """Issue 56, point 15: Cancel left the page saying "running … about 28 min left" for 20 s. A cancel that does
    not wait (the Sweep page's) returns at once and the progress line says the sweep is stopping; the worker ends its
    pool's tasks at its next heartbeat and ends the job as cancelled itself, never killed by the backstop."""
    store = Store(tmp_path)
    job_id = submit(store, table, config(levels=[1, 2, 3, 4]))
    start_worker(store, job_id, n_jobs=2)
    assert wait_for(lambda: store.job(job_id).done >= 3)
    cancel_job(store, job_id, grace_seconds=900, wait=False)
    info = progress(store, job_id)
    if info["status"] == "running":  # not ended between the two lines
        assert info["stopping"] and info["text"].startswith("stopping — Cancel was pressed")
        assert "left" not in info["text"]
    assert wait_for(lambda: store.job(job_id).status == "cancelled" and not worker_alive(store.job(job_id)))
    assert "killed" not in {event["kind"] for event in store.events(job_id)}
    assert store.job(job_id).done < store.job(job_id).total
    assert run_job(store, job_id, n_jobs=2) == "done"  # and it resumes from there
    # the cancel's backstop waits for the worker that was running when Cancel was pressed, never for the one that
    # resumed the job: it ends once that worker has, and kills nobody (it killed the resumed worker's group, or
    # marked the job killed, once its grace had run out)
    assert wait_for(lambda: not any(t.name == f"cancel {job_id}" for t in threading.enumerate()), timeout=60)
    assert "killed" not in {event["kind"] for event in store.events(job_id)}
    assert store.job(job_id).status == "done"


@pytest.mark.slow
def test_two_jobs_at_once_share_the_store(table, tmp_path):
    store = Store(tmp_path)
    first = submit(store, table, config(seed=11))
    second = submit(store, table, config(seed=12))
    start_worker(store, first, n_jobs=1)
    start_worker(store, second, n_jobs=1)
    assert wait_for(lambda: all(store.job(j).status in ("done", "failed") for j in (first, second)))
    for job_id in (first, second):
        job = store.job(job_id)
        assert job.status == "done", job.error
        log = (store.workspace / "logs" / f"{job_id}.log").read_text()
        assert "locked" not in log


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_dask_backend_gives_the_same_numbers_as_loky(table, reference, tmp_path):
    pytest.importorskip("dask.distributed")
    store = Store(tmp_path)
    job_id = submit(store, table, config())
    assert run_job(store, job_id, n_jobs=2, backend="dask") == "done"
    pd.testing.assert_frame_equal(sorted_records(store, job_id), reference[0])


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_ray_backend_gives_the_same_numbers_as_loky(table, reference, tmp_path):
    pytest.importorskip("ray")
    store = Store(tmp_path)
    job_id = submit(store, table, config())
    assert run_job(store, job_id, n_jobs=2, backend="ray") == "done", store.job(job_id).error
    # the job's end is its pool's end: the raylet's workers (``ray::PoolActor``) and agents are gone when it returns,
    # not some seconds later (on a loaded machine they outlived the test)
    left = {pid: command for pid, command in processes.owned(os.environ[processes.OWNER]).items()
            if command.startswith("ray::")}
    assert not left, processes.describe(left)
    pd.testing.assert_frame_equal(sorted_records(store, job_id), reference[0])


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_summary_json_has_the_documented_shape(reference):
    records, _, _ = reference
    summary = summary_json(records, config().sensitive, alpha=0.5)
    holder = [e for e in summary["levels"] if e["model"] == "tvinesynth"]
    assert [e["level"] for e in holder] == [1, 2, 3]
    assert summary["best_level"] in (1, 2, 3)
    names = set(holder[0]["metrics"])
    new = {"pair_structure", "ci_overlap", "mia_auc", "mia_tpr_at_1pct_fpr"}  # issue 11
    assert {"auc_tstr", "auc_trtr", "mab:total_cost_eur", "wcab:total_cost_eur", "pg", "mcmia",
            "dcr_closer_to_train", "alpha_precision", "beta_recall", "authenticity", "pu", *new} <= names
    for name, value in holder[0]["metrics"].items():
        assert set(value) == ({"median", "ci_low", "ci_high"} if name == "pu" else {"median", "ci_low", "ci_high", "n"})
    baseline = [e for e in summary["levels"] if e["model"] == "independent"]
    assert baseline and baseline[0]["level"] is None and new <= set(baseline[0]["metrics"])
    # the choice says what it weighed and against what
    assert summary["utility_mix"] == "tstr=1,pair_structure=1,ci_overlap=1"
    # the default privacy axis's anchors (issue 55: the attacker's skill on real people)
    assert {"auc_tstr", "pair_structure", "ci_overlap", "release_skill:total_cost_eur"} <= set(summary["anchors"])
    assert summary["anchors"]["release_skill:total_cost_eur"]["ideal"] != 0  # the measured floor, not the constant
    assert {"U", "P", "U_pair_structure", "U_ci_overlap"} <= set(holder[0]["scores"])
    paper = summary_json(records, config().sensitive, alpha=0.5, utility_mix=UtilityMix.parse("tstr"))
    assert paper["utility_mix"] == "tstr=1" and set(paper["levels"][0]["scores"]) == {"U", "P", "P_unclipped",
                                                                                      "U_auc_tstr"}


@pytest.mark.slow
def test_ctrl_c_leaves_a_resumable_job_and_the_same_command_resumes(table, tmp_path):
    import subprocess
    import sys

    data = tmp_path / "cohort.csv"
    table.to_csv(data, index=False)
    workspace, out = tmp_path / "ws", tmp_path / "out"
    command = [sys.executable, "-m", "tvs_core", "sweep", str(data), "--response", Y, "--sensitive",
               "total_cost_eur", "--levels", "1,2,3,4", "--baselines", "independent", "--n-jobs", "1",
               "--workspace", str(workspace), "--out", str(out)]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root}
    # as from a terminal: a test run started in the background (`cmd &`) would hand down an ignored SIGINT
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=ctrl_c_as_in_a_terminal)
    store = Store(workspace)
    assert wait_for(lambda: any(j.done >= 2 for j in store.jobs()))
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=600)
    assert process.returncode == 130, stderr
    assert "run the same command again to resume" in stderr
    job = store.jobs()[0]
    assert job.status == "interrupted" and 0 < job.done < job.total
    assert "interrupted" in [event["kind"] for event in store.events(job.id)]
    finished = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    assert finished.returncode == 0, finished.stderr
    assert "resuming" in finished.stderr
    assert (out / "summary.json").exists() and (out / "results.csv").exists()
    assert store.job(job.id).status == "done"


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_baselines_can_play_the_attribute_game_for_one_mab_estimator(table, reference, tmp_path):
    """With baseline_games, a baseline's scatter MAB is the game's (independent margins: ≈ 0), the
    holder's numbers are unchanged, and the real-data reference is stored once per iteration."""
    store = Store(tmp_path)
    job_id = submit(store, table, config(games=["release", "aia"], baseline_games=["aia"]))
    assert run_job(store, job_id, n_jobs=2) == "done"
    records = sorted_records(store, job_id)
    game = records[(records.model == "independent") & (records.metric == "mab")]
    assert sorted(game["iteration"]) == [0, 1] and set(game["role"]) == {"game"}
    raw = records[(records.model == "raw") & (records.metric == "mab")]
    assert sorted(raw["iteration"]) == [0, 1]
    holder = records[(records.model == "tvinesynth") & (records.metric == "mab")].reset_index(drop=True)
    before, *_ = reference
    pd.testing.assert_frame_equal(holder, before[(before.model == "tvinesynth") & (before.metric == "mab")]
                                  .reset_index(drop=True))
    summary = summary_json(records, config(games=["release", "aia"], baseline_games=["aia"]).sensitive)
    entry = next(e for e in summary["levels"] if e["model"] == "independent")
    assert entry["metrics"]["mab:total_cost_eur"]["median"] == pytest.approx(game["value"].median())
    assert entry["metrics"]["mab:total_cost_eur"]["median"] < 0.1


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_baselines_can_play_the_membership_game(table, reference, tmp_path):
    """A baseline's PG comes from its own shadows and attackers; the holder's game is unchanged."""
    store = Store(tmp_path)
    changes = dict(games=["release", "mia"], baseline_games=["mia"])
    job_id = submit(store, table, config(**changes))
    assert run_job(store, job_id, n_jobs=2) == "done", store.job(job_id).error
    keys = {task.name for task in plan_from_json(store.job(job_id).plan)}
    assert {"mia_attackers:0", "mia_attackers:independent:1", "mia_shadow_model:independent:0:out",
            "mia_eval_model:independent:0:out", "mia_eval_records:independent:0"} <= keys
    records = sorted_records(store, job_id)
    pg = records[(records.model == "independent") & (records.metric == "pg")]
    assert len(pg) > 0 and pg["level"].isna().all() and set(pg["role"]) == {"game"}
    holder = records[(records.model == "tvinesynth") & records.metric.isin(["pg", "mia_tp", "mia_fp"])]
    before, *_ = reference
    expected = before[(before.model == "tvinesynth") & before.metric.isin(["pg", "mia_tp", "mia_fp"])]
    pd.testing.assert_frame_equal(holder.reset_index(drop=True), expected.reset_index(drop=True))
    entry = next(e for e in summary_json(records, config(**changes).sensitive)["levels"] if e["model"] == "independent")
    by_kind = pg.groupby("target_kind")["value"].median()  # summary: median over outlier and random targets
    assert entry["metrics"]["pg"]["median"] == pytest.approx(by_kind.median())


def test_time_left_follows_the_stages_the_worker_runs():
    from tvs_core.jobs.progress import seconds_left

    plan = plan_from_json([{"key": key, "stage": stage} for key, stage in (
        ("holder", 0), ("release:1:0-10", 1), ("release:5:0-10", 1), ("aia:0", 1), ("mia_attackers:0", 2),
        ("mia_eval:0", 3), ("mia_eval:1", 3))])
    r1, r2 = "release:1:0-10", "release:5:0-10"  # a whole release task: one share of its kind
    costs = {"holder": 1.0, "release": 2.0, "aia": 6.0, "mia_attackers": 4.0, "mia_eval": 3.0}
    # stage 1 in plan order on 2 workers: the releases side by side, then aia on the first free: 2 + 6 = 8; stage 2,
    # one task: 4; stage 3: 3
    assert seconds_left(plan, {"holder"}, costs, workers=2) == pytest.approx(15.0)
    assert seconds_left(plan, {"holder", r1, r2}, costs, workers=2, spent={"aia:0": 2.5}) == pytest.approx(10.5)
    assert seconds_left(plan, {task.name for task in plan}, costs, workers=2) == 0.0


@pytest.mark.xdist_group(REFERENCE_GROUP)
@pytest.mark.slow
def test_time_left_learns_from_this_sweep_and_earlier_ones(table, reference, tmp_path):
    from tvs_core.jobs.progress import chunk_share, kind_costs, protocol_sizes, share_at_plan

    _, store, job_id = reference  # a finished sweep: its own measured costs are used for it
    job = store.job(job_id)
    costs, source = kind_costs(store, job)
    measured = store.task_seconds(job_id)
    releases = [task.seconds / chunk_share(task.key, protocol_sizes(job)) for task in store.task_times(job_id)
                if task.kind == "release"]  # each chunk in shares of the quick preset's ten sets (by its position)
    assert len(releases) == 6 and costs["release"] == pytest.approx(sum(releases) / len(releases))
    assert source.startswith("this sweep's measured tasks")
    # the same table and sensitive columns (the games' costs grow with their attack targets)
    fresh = JobRow("not-started", details={k: job.details[k] for k in ("n_train", "n_columns", "targets")})
    costs, source = kind_costs(store, fresh)  # before Start: the earlier sweep's costs
    assert source == "earlier sweeps in this workspace"
    then = share_at_plan(job.details) or 1.0  # its times taken back to a quiet machine (issue 56)
    assert costs["aia_model"] == pytest.approx(sorted(measured["aia_model"])[len(measured["aia_model"]) // 2] / then,
                                               rel=0.5)
