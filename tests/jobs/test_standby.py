"""tvs_core/jobs/standby.py: a worker ready before Start (issue 57). The first result of a sweep must not wait for
the worker's imports: a job handed to the workspace's standby worker records that its worker spent no time importing
after Start, where a worker started at Start records its imports; the standby takes its job from the owner's store
only, waits one at a time per workspace, and leaves with its dashboard."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY, wait_until
from tvs_core.jobs import SweepConfig, submit
from tvs_core.jobs.lifecycle import Worker
from tvs_core.jobs.process import process_start_time, start_worker, worker_alive
from tvs_core.jobs.standby import (
    KEY,
    Keeper,
    Standby,
    hand_to_standby,
    imports_after_start,
    note_imports,
    start_standby,
    waiting,
)
from tvs_core.storage.store import Store, StoredResult


def small_job(store: Store) -> str:
    config = SweepConfig(response="y", sensitive=["income"], levels=[1], baselines=["independent"],
                         games=["release"], protocol_overrides=TINY)
    return submit(store, make_small_table(120), config)


def ready(store: Store) -> Standby:
    return wait_until(lambda: (found := waiting(store)) is not None and found.state == "ready" and found,
                      "the standby worker has done its imports")


def gone(pid: int, started) -> bool:
    return not worker_alive(Worker(pid, started))


# -- the entry in the store ----------------------------------------------------------------------------------------
def test_an_entry_reads_back_as_written_and_an_unknown_one_as_no_standby():
    entry = Standby(12, 34.0, 56, 78.0, ready_at=1.5, state="handed", job="ab", n_jobs=4, backend="dask")
    assert Standby.read(entry.text()) == entry
    assert Standby.read(None) is None and Standby.read("{\"pid\": 1, \"colour\": 2}") is None
    assert Standby.read("not json") is None


def test_a_swap_of_the_stores_meta_entry_succeeds_only_from_the_value_it_expects(store):
    assert store.swap_meta(KEY, None, "a") and store.meta(KEY) == "a"
    assert not store.swap_meta(KEY, None, "b") and not store.swap_meta(KEY, "b", "c")
    assert store.swap_meta(KEY, "a", None) and store.meta(KEY) is None


def test_without_a_standby_start_gets_no_worker_from_it_and_the_job_is_untouched(store):
    job_id = small_job(store)
    before = store.job(job_id)
    assert hand_to_standby(store, job_id) is None
    assert store.job(job_id) == before


def test_an_entry_whose_process_is_gone_is_no_standby(store):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store.set_meta(KEY, Standby(dead.pid, None, os.getpid(), process_start_time(os.getpid()), state="ready").text())
    assert waiting(store) is None
    assert hand_to_standby(store, small_job(store)) is None


def test_the_time_spent_importing_after_start_is_recorded_from_when_the_worker_was_ready(store):
    job_id = small_job(store)
    note_imports(store, job_id, ready_at=100.0, handed_at=102.5)  # ready before Start: a standby
    assert imports_after_start(store, job_id) == 0.0
    note_imports(store, job_id, ready_at=104.25, handed_at=102.0)  # started at Start
    assert imports_after_start(store, job_id) == 2.25


# -- a real standby process ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_job_handed_to_a_ready_standby_spends_no_time_importing_after_start(tmp_path):
    """The same sweep, started with a standby waiting and without: the standby's job records no import after
    Start, the fresh worker's records its imports; the numbers are the same."""
    warm, cold = Store(tmp_path / "warm"), Store(tmp_path / "cold")
    pid = start_standby(warm)
    standby = ready(warm)
    assert standby.pid == pid and standby.dashboard == os.getpid()
    assert start_standby(warm) is None  # one at most per workspace
    job_id = small_job(warm)
    assert start_worker(warm, job_id) == pid  # Start hands the job to the standby
    assert start_standby(warm) is None  # none while the sweep runs: its imports would slow the sweep's start
    wait_until(lambda: warm.job(job_id).status == "done", "the standby's sweep has ended", timeout=900)
    assert warm.job(job_id).pid == pid
    assert imports_after_start(warm, job_id) == 0.0
    assert waiting(warm) is None  # it is that job's worker now: the next Start gets a new standby

    same = small_job(cold)
    assert same == job_id
    fresh = start_worker(cold, same)
    assert fresh != pid
    wait_until(lambda: cold.job(same).status == "done", "the fresh worker's sweep has ended", timeout=900)
    assert imports_after_start(cold, same) > 0.0
    assert warm.job(job_id).status == cold.job(same).status == "done"
    records = [sorted(map(str, (r.task, r.records))) for r in store_results(warm, job_id)]
    assert records == [sorted(map(str, (r.task, r.records))) for r in store_results(cold, same)]


def store_results(store: Store, job_id: str) -> list[StoredResult]:
    return sorted(store.results(job_id), key=lambda r: r.task)


DASHBOARD = textwrap.dedent("""
    import sys, time
    from tvs_core.jobs.standby import start_standby
    from tvs_core.storage.store import Store, StoredResult
    print(start_standby(Store(sys.argv[1])), flush=True)
    time.sleep(3600)
""")


@pytest.mark.slow
def test_a_standby_leaves_when_its_dashboard_ends_and_starts_no_job_of_another(tmp_path):
    store = Store(tmp_path)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dashboard = subprocess.Popen([sys.executable, "-c", DASHBOARD, str(tmp_path)], stdout=subprocess.PIPE,
                                 text=True, env={**os.environ, "PYTHONPATH": root})
    try:
        pid = int(dashboard.stdout.readline())
        standby = ready(store)
        assert standby.pid == pid and standby.dashboard == dashboard.pid
        assert start_standby(store) is None  # this process is another dashboard: still one standby
    finally:
        dashboard.kill()
        dashboard.wait()
    wait_until(lambda: gone(standby.pid, standby.started), "the standby has left with its dashboard")
    assert waiting(store) is None


@pytest.mark.slow
def test_a_dashboard_that_stops_ends_its_waiting_standby(tmp_path):
    store = Store(tmp_path)
    keeper = Keeper(store).start()
    try:
        standby = ready(store)
    finally:
        keeper.stop()
    wait_until(lambda: gone(standby.pid, standby.started), "the standby has ended with its dashboard")


@pytest.mark.slow
def test_a_standby_that_was_not_started_by_its_dashboard_leaves_without_waiting(tmp_path):
    """Only the dashboard that started a standby hands it a job: a standby process the store does not name (started
    by hand, or a second one) leaves at once."""
    store = Store(tmp_path)
    stray = subprocess.Popen([sys.executable, "-m", "tvs_core", "standby", "--workspace", str(tmp_path),
                              "--dashboard", str(os.getpid())], stdout=subprocess.DEVNULL)
    try:
        assert stray.wait(timeout=600) == 0
    finally:
        if stray.poll() is None:
            os.kill(stray.pid, signal.SIGKILL)
    assert store.meta(KEY) is None
