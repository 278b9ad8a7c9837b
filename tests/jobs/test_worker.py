"""tvs_core/jobs/worker.py: one worker per job — a job another live worker runs is refused, a finished one is answered
at once; every result is committed as it arrives (``StoreSink``); however the run ends, the job's row says how
(done, failed with one sentence a user can act on, interrupted and ready to resume, or still running after a
shutdown that the dashboard resumes); and a job begun by an earlier version forgets the tasks whose payloads this
version does not read, so they run again. The sweep itself is replaced by a stand-in here (``_run``); real sweeps
run in tests/jobs/test_sweep.py and test_job_endings.py."""

from __future__ import annotations

import os
import pickle

import pytest

from tests.helpers import PlantedPickle, stored_job
from tvs_core.errors import DataError, DataErrors, TVSError
from tvs_core.evaluation.records import RecordRole, record
from tvs_core.jobs import worker
from tvs_core.jobs.engine import TaskResult
from tvs_core.jobs.lifecycle import Terminated, process_start_time
from tvs_core.jobs.payloads import shadows_payload
from tvs_core.jobs.worker import StoreSink, _forget_unreadable_payloads, failure_sentence, run_job
from tvs_core.storage.store import Store

JOB = "abc123"
SECRET = "patient 4711 earns 98765"  # what an exception's message may quote of the data


@pytest.fixture
def sweep(monkeypatch):
    """The sweep run_job runs, replaced: it ends as ``ending`` says (a status, or an exception raised)."""
    ran = []

    def run(ending):
        def fake(store, job_id, sink, n_jobs, backend, address):
            ran.append((job_id, n_jobs, backend, address, store.job(job_id).status))
            if isinstance(ending, BaseException):
                raise ending
            return ending
        monkeypatch.setattr(worker, "_run", fake)
        return ran

    return run


def kinds(store: Store, job_id: str = JOB) -> list[str]:
    return [event["kind"] for event in store.events(job_id)]


# -- failure_sentence ----------------------------------------------------------------------------------------------
def test_a_problem_of_the_data_or_settings_tells_the_user_to_change_them_not_to_resume(tmp_path):
    problem = DataError("Column 'age' has one value.", column="age", fix="Drop it.")
    assert failure_sentence(problem, tmp_path / "job.log") == (
        "Column 'age' has one value. Drop it. Change the data or the settings, then press Start.")
    several = DataErrors([DataError("First problem."), DataError("Second problem.")])
    assert failure_sentence(several, tmp_path / "log").endswith("Change the data or the settings, then press Start.")


def test_a_problem_the_library_words_itself_is_shown_as_it_is(tmp_path):
    shortage = TVSError("Not enough free memory for one task; close other programs and press Resume.")
    assert failure_sentence(shortage, tmp_path / "job.log") == str(shortage)


@pytest.mark.parametrize("bug", [RuntimeError(SECRET), KeyError(SECRET), MemoryError(SECRET)])
def test_a_bug_is_named_by_its_type_and_the_log_never_quoting_its_message(tmp_path, bug):
    log = tmp_path / "logs" / "job.log"
    sentence = failure_sentence(bug, log)
    assert type(bug).__name__ in sentence and str(log) in sentence and "Resume" in sentence
    assert "98765" not in sentence and "4711" not in sentence


# -- StoreSink -----------------------------------------------------------------------------------------------------
def test_every_result_is_committed_as_it_arrives_and_progress_sees_it_stored(store):
    stored_job(store, JOB, "running")
    seen = []
    sink = StoreSink(store, JOB, progress=lambda job: seen.append((job.done, sorted(sink.done()))))
    records = [record("tvinesynth", 1, "mab", 0.5, role=RecordRole.GAME)]
    sink.add(TaskResult("release:1:0-5", "release", records, None, {"total": 2.5}, peak_mb=120.0))
    sink.add(TaskResult("mia_shadow:0", "mia_shadow", [], b"PK\x03\x04 arrays", {"total": 1.0}, peak_mb=300.0))
    sink.add(TaskResult("mia_shadow:1", "mia_shadow", [], None, {"total": 1.0}, peak_mb=200.0))
    assert seen == [(1, ["release:1:0-5"]), (2, ["mia_shadow:0", "release:1:0-5"]),
                    (3, ["mia_shadow:0", "mia_shadow:1", "release:1:0-5"])]
    stored = {r.task: r for r in store.results(JOB)}
    assert stored["release:1:0-5"].records == [r.stored() for r in records]  # as the store keeps them: text
    assert stored["release:1:0-5"].seconds == 2.5
    assert sink.payload("mia_shadow:0") == b"PK\x03\x04 arrays" and sink.payload("release:1:0-5") is None
    assert sink.peaks() == {"release": 120.0, "mia_shadow": 300.0}  # the largest of each kind


def test_a_sink_without_progress_stores_all_the_same(store):
    stored_job(store, JOB, "running")
    StoreSink(store, JOB).add(TaskResult("reference", "reference", [], None, {}))
    assert store.done_tasks(JOB) == {"reference"} and store.results(JOB)[0].seconds == 0.0


def test_the_sink_reads_the_cancel_flag_from_the_store_and_notes_go_to_the_jobs_events(store):
    stored_job(store, JOB, "running")
    sink = StoreSink(store, JOB)
    assert sink.cancelled() is False
    Store(store.workspace).request_cancel(JOB)  # another process: the dashboard's Cancel
    assert sink.cancelled() is True
    sink.note("two workers fit in memory, not four")
    assert store.events(JOB)[-1]["kind"] == "memory"
    assert store.events(JOB)[-1]["message"] == "two workers fit in memory, not four"


# -- run_job: who may run a job ------------------------------------------------------------------------------------
def test_an_unknown_job_is_refused(store, sweep):
    ran = sweep("done")
    with pytest.raises(TVSError, match="No job 'ffff'"):
        run_job(store, "ffff")
    assert ran == []


def test_a_finished_job_is_answered_without_running_or_touching_it(store, sweep):
    ran = sweep("failed")
    stored_job(store, JOB, "done", pid=None, finished=123.0)
    assert run_job(store, JOB) == "done"
    assert ran == [] and store.job(JOB).finished == 123.0 and kinds(store) == ["created"]


@pytest.mark.parametrize("status", ["queued", "running"])
def test_a_job_another_live_worker_runs_is_refused_and_left_to_it(store, sweep, status):
    """The other worker is this test's parent process, recorded with its true start time."""
    ran = sweep("done")
    other = os.getppid()
    stored_job(store, JOB, status, pid=other, pid_started=process_start_time(other), heartbeat=5.0)
    with pytest.raises(TVSError, match=f"already running in process {other}; one worker per job"):
        run_job(store, JOB)
    row = store.job(JOB)
    assert ran == [] and (row.status, row.pid, row.heartbeat) == (status, other, 5.0)
    assert kinds(store) == ["created"]


@pytest.mark.parametrize("worker_row", [
    dict(pid=4_194_305, pid_started=1.0),  # its pid is no process's now (above any pid_max)
    dict(pid=os.getppid(), pid_started=-1.0),  # its pid was given to another process
])
def test_a_job_whose_worker_died_is_taken_over(store, sweep, worker_row):
    ran = sweep("done")
    stored_job(store, JOB, "running", **worker_row)
    assert run_job(store, JOB) == "done" and len(ran) == 1


def test_a_job_left_failed_by_a_live_process_is_run_again(store, sweep):
    """Only a queued or running job has a worker: a failed job's recorded process is no worker of it."""
    ran = sweep("done")
    stored_job(store, JOB, "failed", pid=os.getppid(), pid_started=process_start_time(os.getppid()))
    assert run_job(store, JOB) == "done" and len(ran) == 1


# -- run_job: how a run ends ---------------------------------------------------------------------------------------
def test_a_run_records_its_worker_and_ends_with_the_sweeps_status(store, sweep):
    ran = sweep("cancelled")
    stored_job(store, JOB, "interrupted", error="an earlier failure", cancel=1)
    assert run_job(store, JOB, n_jobs=3, backend="dask", address="tcp://host:1") == "cancelled"
    assert ran == [(JOB, 3, "dask", "tcp://host:1", "running")]  # running while the sweep runs
    row = store.job(JOB)
    assert (row.status, row.error, row.cancel, row.workers) == ("cancelled", None, False, 3)
    assert (row.pid, row.pid_started) == (os.getpid(), process_start_time(os.getpid()))
    assert row.started <= row.finished
    assert kinds(store) == ["created", "start", "cancelled"]


def test_a_bug_fails_the_job_with_one_sentence_and_a_log_that_does_not_quote_the_data(store, sweep):
    sweep(ValueError(SECRET))
    stored_job(store, JOB)
    assert run_job(store, JOB) == "failed"
    row = store.job(JOB)
    assert row.status == "failed" and row.finished is not None
    assert row.error == failure_sentence(ValueError(SECRET), store.space.log_path(JOB))
    failed = [e["message"] for e in store.events(JOB) if e["kind"] == "failed"]
    assert len(failed) == 1 and "ValueError" in failed[0] and "_run" in failed[0]
    assert all("98765" not in (e["message"] or "") for e in store.events(JOB))


def test_a_problem_of_the_data_fails_the_job_asking_for_new_settings(store, sweep):
    sweep(DataError("The response has one class."))
    stored_job(store, JOB)
    assert run_job(store, JOB) == "failed"
    assert store.job(JOB).error == "The response has one class. Change the data or the settings, then press Start."


def test_ctrl_c_leaves_the_job_interrupted_ready_to_resume_and_is_passed_on(store, sweep):
    sweep(KeyboardInterrupt())
    stored_job(store, JOB)
    with pytest.raises(KeyboardInterrupt):
        run_job(store, JOB)
    assert store.job(JOB).status == "interrupted" and kinds(store)[-1] == "interrupted"


@pytest.mark.parametrize(("resume_on_restart", "status", "event"), [
    (True, "running", "terminated"),  # the dashboard's worker: its next start resumes the job
    (False, "interrupted", "interrupted"),  # the command line's: stopped like Ctrl-C
])
def test_sigterm_leaves_the_job_to_the_dashboards_next_start_only_when_asked(store, sweep, resume_on_restart, status,
                                                                             event):
    sweep(Terminated())
    stored_job(store, JOB)
    with pytest.raises(Terminated):
        run_job(store, JOB, resume_on_restart=resume_on_restart)
    assert store.job(JOB).status == status and kinds(store)[-1] == event


def test_ctrl_c_is_not_taken_for_a_shutdown_even_when_resuming_on_restart(store, sweep):
    sweep(KeyboardInterrupt())
    stored_job(store, JOB)
    with pytest.raises(KeyboardInterrupt):
        run_job(store, JOB, resume_on_restart=True)
    assert store.job(JOB).status == "interrupted"


# -- _forget_unreadable_payloads -----------------------------------------------------------------------------------
def test_tasks_whose_payload_an_earlier_version_pickled_are_forgotten_and_the_rest_kept(store, tmp_path):
    stored_job(store, JOB, "interrupted")
    marker = tmp_path / "pickle ran"
    current = shadows_payload({})
    store.add_result(JOB, "reference", "reference", [{"metric": "mab", "value": 0.1}], 1.0)
    store.add_result(JOB, "mia_shadow:0", "mia_shadow", [], 1.0, payload=pickle.dumps(PlantedPickle(marker)))
    store.add_result(JOB, "mia_shadow:1", "mia_shadow", [], 1.0, payload=current)
    store.add_result(JOB, "mia_attackers:0", "mia_attackers", [], 1.0, payload=pickle.dumps({(3, 1): "forest"}))
    _forget_unreadable_payloads(store, JOB)
    assert store.done_tasks(JOB) == {"reference", "mia_shadow:1"} and store.job(JOB).done == 2
    assert store.payload(JOB, "mia_shadow:1") == current and not marker.exists()
    notes = [e["message"] for e in store.events(JOB) if e["kind"] == "payloads"]
    assert len(notes) == 1 and notes[0].startswith("2 membership-game tasks run again")


def test_a_job_whose_payloads_are_all_readable_loses_nothing_and_logs_nothing(store):
    stored_job(store, JOB, "interrupted")
    store.add_result(JOB, "reference", "reference", [{"metric": "mab", "value": 0.1}], 1.0)
    store.add_result(JOB, "mia_shadow:0", "mia_shadow", [], 1.0, payload=shadows_payload({}))
    _forget_unreadable_payloads(store, JOB)
    assert store.done_tasks(JOB) == {"reference", "mia_shadow:0"} and "payloads" not in kinds(store)


def test_only_the_jobs_own_stale_payloads_are_forgotten(store):
    stored_job(store, JOB, "interrupted")
    store.create_job("def456", "fingerprint", {"response": "y"})
    for job_id in (JOB, "def456"):
        store.add_result(job_id, "mia_shadow:0", "mia_shadow", [], 1.0, payload=pickle.dumps([1, 2]))
    _forget_unreadable_payloads(store, JOB)
    assert store.done_tasks(JOB) == set() and store.done_tasks("def456") == {"mia_shadow:0"}
