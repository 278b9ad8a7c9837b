"""tvs_core/jobs/process.py: a job's worker is told apart from whatever process later holds its pid (by the process's
start time), a dead or zombie worker counts as gone, a cancel sets the job's flag and kills only a worker that is
really still there, and only running jobs whose worker is gone are resumed. No worker is started here: the job rows
are written by hand, and where a worker would be started or killed the call is recorded instead (the real start,
kill and resume are run by tests/jobs/test_sweep.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.helpers import stored_job
from tvs_core.jobs import lifecycle, process
from tvs_core.jobs.lifecycle import Terminated, Worker, process_start_time, stop_on_sigterm, worker_alive
from tvs_core.jobs.process import cancel_job, resume_orphans, start_worker
from tvs_core.storage.store import JobRow, Store


def dead_pid() -> int:
    """A pid no process can hold: one above the kernel's largest."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def this_process() -> Worker:
    return Worker(os.getpid(), process_start_time(os.getpid()))


@pytest.fixture
def no_kill(monkeypatch):
    """Every process-group kill recorded instead of sent."""
    killed = []
    monkeypatch.setattr(process.os, "killpg", lambda pid, sig: killed.append((pid, sig)))
    return killed


# -- process_start_time ---------------------------------------------------------------------------------------------
def test_the_start_time_of_this_process_is_stable_and_not_before_its_parents():
    started = process_start_time(os.getpid())
    assert started is not None and started > 0
    assert process_start_time(os.getpid()) == started
    assert process_start_time(os.getppid()) <= started


def test_the_start_time_of_a_process_that_does_not_exist_is_unknown():
    assert process_start_time(dead_pid()) is None


def test_the_start_time_is_read_after_the_command_name_even_when_the_name_holds_a_parenthesis(tmp_path, monkeypatch):
    """A command name is the program's, and may hold ") " and digits: the fields are counted from the last ")"."""
    stat = tmp_path / "proc" / "4242" / "stat"
    stat.parent.mkdir(parents=True)
    fields = ["S"] + [str(k) for k in range(1, 19)] + ["777"] + ["0"] * 10  # field 22 (starttime) is 777
    stat.write_text("4242 (evil) 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19) " + " ".join(fields))
    monkeypatch.setattr(lifecycle, "Path", lambda name: tmp_path / name.lstrip("/"))
    assert process_start_time(4242) == 777.0


# -- worker_alive --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("row", [JobRow("j"), Worker(None), Worker(0)])
def test_a_job_without_a_recorded_worker_has_no_live_worker(row):
    assert worker_alive(row) is False


def test_a_worker_whose_pid_no_process_holds_is_gone():
    assert worker_alive(Worker(dead_pid(), 1.0)) is False


def test_a_live_process_with_the_recorded_start_time_is_the_worker():
    assert worker_alive(this_process()) is True


def test_a_live_process_with_another_start_time_is_not_the_worker_but_one_that_reused_its_pid():
    row = this_process()
    assert worker_alive(row._replace(pid_started=row.pid_started + 1)) is False
    assert worker_alive(row._replace(pid_started=row.pid_started - 1)) is False


def test_a_live_process_is_taken_as_the_worker_when_no_start_time_was_recorded():
    """An earlier row without a start time: nothing tells a reused pid apart, so the worker is not resumed twice."""
    assert worker_alive(Worker(os.getpid(), None)) is True


def test_a_worker_of_another_account_that_cannot_be_signalled_counts_as_alive(monkeypatch):
    def refused(pid, sig):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(process.os, "kill", refused)
    assert worker_alive(Worker(4242, 1.0)) is True


def test_a_worker_that_exited_but_was_not_reaped_is_gone():
    """A dashboard starts its workers and never waits for them: one that ended stays a zombie until the dashboard
    exits. Its pid and start time still match."""
    child = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.DEVNULL)
    try:
        row = Worker(child.pid, process_start_time(child.pid))
        stat = Path(f"/proc/{child.pid}/stat")
        deadline = time.monotonic() + 300  # a ceiling: a Python starting and ending on a loaded machine
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"  # exited, not reaped: the case under test
        assert worker_alive(row) is False
    finally:
        child.wait(timeout=300)


# -- cancel_job ----------------------------------------------------------------------------------------------------
def test_a_cancel_sets_the_jobs_flag_and_a_job_without_a_worker_is_cancelled_at_once(store, no_kill):
    job_id = stored_job(store, "a", "running", pid=dead_pid(), pid_started=1.0)
    cancel_job(store, job_id, grace_seconds=0)
    row = store.job(job_id)
    assert store.cancel_requested(job_id) and row.status == "cancelled" and row.finished is not None
    assert no_kill == []
    assert [e["kind"] for e in store.events(job_id)] == ["created", "cancel"]


def test_a_cancel_never_kills_the_process_that_reused_a_dead_workers_pid(store, no_kill):
    row = this_process()
    job_id = stored_job(store, "a", "running", pid=row.pid, pid_started=row.pid_started + 1)
    cancel_job(store, job_id, grace_seconds=0)
    assert no_kill == [] and store.job(job_id).status == "cancelled"
    assert "killed" not in {e["kind"] for e in store.events(job_id)}


def test_a_worker_that_does_not_stop_within_the_grace_is_killed_as_a_group(store, no_kill):
    """The worker here is this process, recorded with its true start time: the kill is recorded, not sent."""
    row = this_process()
    job_id = stored_job(store, "a", "queued", **row._asdict())
    cancel_job(store, job_id, grace_seconds=0)
    assert no_kill == [(row.pid, signal.SIGKILL)]
    assert store.job(job_id).status == "cancelled"
    killed = [e["message"] for e in store.events(job_id) if e["kind"] == "killed"]
    assert killed == [f"worker {row.pid} did not stop in 0 s and was killed"]


def short_lived_worker() -> subprocess.Popen:
    """A process that ends by itself in a moment, as a worker that saw the cancel flag does."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])


def test_a_worker_that_stops_within_the_grace_is_not_killed(store, no_kill):
    """The worker ends while the cancel waits (exited, not yet reaped: gone all the same)."""
    worker = short_lived_worker()
    try:
        job_id = stored_job(store, "a", "running", pid=worker.pid, pid_started=process_start_time(worker.pid))
        cancel_job(store, job_id, grace_seconds=600)
    finally:
        worker.wait(timeout=600)
    assert no_kill == [] and store.job(job_id).status == "cancelled"


def test_a_cancel_waits_for_the_worker_it_was_pressed_on_never_for_one_that_resumed_the_job(store, no_kill):
    """Cancel on the Sweep page, then Resume before the cancel's grace ran out: the backstop waited for whatever
    worker the job's row named, so it took the resumed worker for the one that would not stop, killed its process
    group when the grace ended and marked the job killed. It waits for the worker of the cancel only."""
    from tests.helpers import wait_until

    worker = short_lived_worker()
    try:
        job_id = stored_job(store, "a", "running", pid=worker.pid, pid_started=process_start_time(worker.pid))
        cancel_job(store, job_id, grace_seconds=2.0, wait=False)
        resumed = this_process()._asdict()  # resumed since, alive
        Store(store.workspace).update_job(job_id, status="running", cancel=0, **resumed)
        wait_until(lambda: not any(t.name == f"cancel {job_id}" for t in threading.enumerate()),
                   "the cancel's backstop ended", 600)
    finally:
        worker.wait(timeout=600)
    assert no_kill == [] and "killed" not in {e["kind"] for e in store.events(job_id)}
    assert store.job(job_id).status == "running"  # the resumed job runs on


def test_a_cancel_that_does_not_wait_returns_at_once_and_the_job_says_it_is_stopping(store, no_kill):
    """The Sweep page's Cancel: the flag is set and the call returns while the worker is still alive (here: this
    process, which never stops); the progress line says so at once; the wait and the backstop run in a thread."""
    from tests.helpers import wait_until
    from tvs_core.jobs.progress import progress

    row = this_process()
    job_id = stored_job(store, "a", "running", **row._asdict())
    cancel_job(store, job_id, grace_seconds=1.0, wait=False)
    info = progress(store, job_id)
    assert store.cancel_requested(job_id) and info["stopping"] and info["text"].startswith("stopping — ")
    wait_until(lambda: store.job(job_id).status == "cancelled", "the backstop ended the job", 600)
    assert no_kill == [(row.pid, signal.SIGKILL)]


@pytest.mark.parametrize("status", ["done", "failed", "interrupted"])
def test_a_cancel_leaves_an_ended_jobs_status_as_it_was(store, no_kill, status):
    job_id = stored_job(store, "a", status, pid=None)
    cancel_job(store, job_id, grace_seconds=0)
    assert store.job(job_id).status == status and no_kill == []


# -- resume_orphans ------------------------------------------------------------------------------------------------
def test_only_running_jobs_whose_worker_is_gone_are_resumed(store, monkeypatch):
    started = []
    monkeypatch.setattr(process, "start_worker", lambda store, job_id, n_jobs=2: started.append((job_id, n_jobs)))
    alive = this_process()
    stored_job(store, "crashed", "running", pid=dead_pid(), pid_started=1.0)
    stored_job(store, "reused", "running", pid=alive.pid, pid_started=alive.pid_started + 1)
    stored_job(store, "never-recorded", "running", pid=None)
    stored_job(store, "live", "running", **alive._asdict())
    stored_job(store, "interrupted", "interrupted", pid=dead_pid(), pid_started=1.0)
    stored_job(store, "done", "done", pid=dead_pid(), pid_started=1.0)
    stored_job(store, "failed", "failed", pid=None)
    resumed = resume_orphans(store, n_jobs=3)
    assert sorted(resumed) == ["crashed", "never-recorded", "reused"]
    assert sorted(started) == [(name, 3) for name in sorted(resumed)]
    for job_id in ("crashed", "reused", "never-recorded", "live", "interrupted", "done", "failed"):
        orphan = [e for e in store.events(job_id) if e["kind"] == "orphan"]
        assert len(orphan) == (job_id in resumed)


def test_nothing_is_resumed_in_a_workspace_without_jobs(store, monkeypatch):
    monkeypatch.setattr(process, "start_worker", lambda *a, **k: pytest.fail("a worker was started"))
    assert resume_orphans(store) == []


# -- start_worker (its process replaced by a recorder) -------------------------------------------------------------
@pytest.mark.parametrize("address", [None, "tcp://10.0.0.5:8786"])
def test_a_worker_starts_in_a_session_of_its_own_and_the_job_records_it(store, monkeypatch, address):
    seen = {}

    def popen(command, **options):
        seen.update(command=command, **options)
        return SimpleNamespace(pid=os.getpid())

    monkeypatch.setattr(process.subprocess, "Popen", popen)
    job_id = stored_job(store, "a", "interrupted", cancel=1)
    assert start_worker(store, job_id, n_jobs=3, backend="dask", address=address) == os.getpid()
    command = seen["command"]
    assert command[:5] == [sys.executable, "-m", "tvs_core", "worker", job_id]
    assert command[5:11] == ["--workspace", str(store.workspace), "--n-jobs", "3", "--backend", "dask"]
    assert command[11:] == ([] if address is None else ["--address", address])
    assert seen["start_new_session"] is True and seen["stdin"] == subprocess.DEVNULL
    root = str(Path(process.__file__).resolve().parents[2])
    assert seen["env"]["PYTHONPATH"].split(os.pathsep)[0] == root  # "-m tvs_core" resolves from any folder
    row = store.job(job_id)
    assert row.status == "queued" and not row.cancel  # an earlier cancel does not stop the new worker
    assert (row.pid, row.pid_started) == (os.getpid(), process_start_time(os.getpid()))
    assert store.space.log_path(job_id).exists()


# -- SIGTERM -------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_after_stop_on_sigterm_a_sigterm_is_raised_like_ctrl_c_so_finally_blocks_run():
    previous = signal.getsignal(signal.SIGTERM)
    ran = []
    try:
        stop_on_sigterm()
        with pytest.raises(Terminated):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)  # the handler runs at the next bytecode; never reached
            finally:
                ran.append("finally")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert ran == ["finally"] and issubclass(Terminated, KeyboardInterrupt)
