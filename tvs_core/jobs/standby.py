"""A worker ready before Start: the first result at once, whatever the width (issue 57).

A worker process pays its imports (pyvinecopulib alone takes about 2 s, most of it matplotlib, which its plotting
module imports) before it can look at a table. So while the dashboard runs, one worker process waits for a job with
its imports done: the standby. It is a worker like any other — a process in a session of its own (it outlives a
server restart once it runs a job, and is killed as a group), one per job, running ``run_job`` exactly as a fresh
worker would — that was simply started earlier.

It takes its job from the workspace's own store (the ``standby`` entry of its ``meta`` table, in the owner's 0700
folder), never from a socket another account could reach, and only the dashboard that started it hands it one. At
most one waits per workspace: it claims the entry when it starts, and leaves at once if a live standby holds it. It
leaves within ``POLL_SECONDS`` of its dashboard's end (the server process that started it; a dashboard that ends
cleanly ends it at once), and never waits longer than ``IDLE_SECONDS``. Once it runs a job it is that job's worker,
and the dashboard starts another standby for the next Start.

The worker records whether its imports came after Start (``imports_after_start``): a fresh worker pays them after,
a standby before.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ..errors import DataError
from ..storage.store import ACTIVE, JobStatus, Store
from ..text import read_choice
from .backends import Backend
from .lifecycle import Worker, process_start_time, worker_alive

KEY = "standby"  # the store's meta entry of the workspace's standby worker
POLL_SECONDS = 0.1  # how often a standby looks for its job and for its dashboard (one read of the store)
HANDOFF_SECONDS = 15.0  # how long Start waits for the standby to take the job before starting a fresh worker
IDLE_SECONDS = 6 * 3600.0  # a standby never waits longer than this for a job
KEEP_SECONDS = 2.0  # how often the dashboard makes sure a standby is waiting
# what a sweep's worker imports before its first result: done by the standby before it is handed a job
WARM = ("tvs_core.jobs.worker", "tvs_core.jobs.first_look", "tvs_core.model.tvinesynth",
        "tvs_core.evaluation.catalogue", "tvs_core.evaluation.metrics.utility", "tvs_core.evaluation.metrics.attribute",
        "pyvinecopulib", "sklearn.ensemble", "sklearn.linear_model", "joblib.externals.loky")
IMPORTS_EVENT = "imports"  # the event that says when a job's worker had done its imports


@dataclass(frozen=True)
class Standby:
    """The standby's entry in the store: who it is, whose dashboard it serves, and the job handed to it."""

    pid: int
    started: float | None  # the process's start time (clock ticks since boot): tells a reused pid apart
    dashboard: int  # the dashboard's process
    dashboard_started: float | None
    ready_at: float | None = None  # when its imports were done (seconds since the epoch)
    state: str = "starting"  # starting, ready, handed (a job is waiting for it), taken (it runs that job)
    job: str | None = None
    n_jobs: int = 2
    backend: Backend = Backend.LOKY
    address: str | None = None
    handed_at: float | None = None

    def text(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def read(cls, text: str | None) -> Standby | None:
        try:
            if not text:
                return None
            entry = cls(**json.loads(text))
            return replace(entry, backend=read_choice(Backend, entry.backend))
        except (TypeError, ValueError, DataError):
            return None  # an entry this version does not know: as if none waited

    def alive(self) -> bool:
        return _alive(self.pid, self.started)


def _alive(pid: int, started: float | None) -> bool:
    """Whether process ``pid`` runs and is the one that started at ``started`` (not a reused pid, not a zombie)."""
    return worker_alive(Worker(pid, started))


def waiting(store: Store) -> Standby | None:
    """The workspace's standby, if one is alive and has no job of its own yet."""
    text = store.meta(KEY)
    found = Standby.read(text)
    return found if found is not None and found.state in ("starting", "ready", "handed") and found.alive() else None


# -- the dashboard's side -----------------------------------------------------------------------------------------
def start_standby(store: Store) -> int | None:
    """A standby for this workspace, started by (and ended with) this process, unless one waits already or a sweep
    of the workspace is running (a standby's imports would slow its first seconds down; the next one waits once it
    has ended); its pid."""
    if store.read_only or waiting(store) is not None or any(
            job.status in ACTIVE and worker_alive(job) for job in store.jobs()):
        return None
    root = str(Path(__file__).resolve().parents[2])  # so "-m tvs_core" resolves from any folder
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "tvs_core", "standby", "--workspace", str(store.workspace),
               "--dashboard", str(os.getpid())]
    before = store.meta(KEY)
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path})
    _children.append(process)
    # it waits in the store from now on, importing: no second one is started meanwhile
    starting = Standby(process.pid, process_start_time(process.pid), os.getpid(), process_start_time(os.getpid()))
    if not store.swap_meta(KEY, before, starting.text()):  # another dashboard was quicker: one at most
        process.kill()
        process.wait()
        return None
    return process.pid


_children: list[subprocess.Popen] = []  # the standbys this process started (reaped when they end)


def hand_to_standby(store: Store, job_id: str, n_jobs: int = 2, backend: Backend = Backend.LOKY,
                    address: str | None = None) -> int | None:
    """Give the job to the workspace's ready standby; its pid once it has taken it, None when no standby is ready
    (or it did not take the job within ``HANDOFF_SECONDS``: the caller starts a fresh worker)."""
    found = waiting(store)
    if found is None or found.state != "ready":
        return None
    handed = replace(found, state="handed", job=job_id, n_jobs=int(n_jobs), backend=backend, address=address,
                     handed_at=time.time())
    store.update_job(job_id, status=JobStatus.QUEUED.value, cancel=0, pid=found.pid, pid_started=found.started)
    if not store.swap_meta(KEY, found.text(), handed.text()):
        return None  # it went, or another Start was quicker
    deadline = time.monotonic() + HANDOFF_SECONDS
    while time.monotonic() < deadline:
        now = Standby.read(store.meta(KEY))
        if now is None or now.job != job_id or now.state != "handed" or not now.alive():
            break
        time.sleep(0.05)
    now = Standby.read(store.meta(KEY))
    if now is not None and now.job == job_id and now.state == "taken":
        return found.pid
    # not taken: withdrawn, unless it is taking it this instant (then it is its job after all)
    if store.swap_meta(KEY, handed.text(), None):
        return None
    now = Standby.read(store.meta(KEY))
    return found.pid if now is not None and now.job == job_id and now.state == "taken" else None


class Keeper:
    """The dashboard's server keeps a standby waiting while it runs (``tvs_core.launch`` starts it with the server;
    a page running without a server, as under AppTest, has none), and ends it with the server."""

    def __init__(self, store: Store):
        self.store = store
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._keep, daemon=True, name="standby keeper")

    def start(self) -> Keeper:
        self.thread.start()
        return self

    def _keep(self) -> None:
        while not self.stopped.is_set():
            try:
                start_standby(self.store)
            except Exception:  # a workspace that cannot be written now: Start starts a fresh worker
                pass
            self.stopped.wait(KEEP_SECONDS)

    def stop(self) -> None:
        """No new standby; the one waiting ends now (one that has taken a job is that job's worker and goes on)."""
        self.stopped.set()
        self.thread.join(timeout=10)
        end_standby(self.store)


def end_standby(store: Store) -> None:
    """End the workspace's standby if it is still waiting for a job."""
    found = waiting(store)
    if found is not None and found.state in ("starting", "ready") and found.dashboard == os.getpid():
        try:
            os.killpg(found.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    for process in list(_children):
        if process.poll() is not None:
            _children.remove(process)


# -- the standby's side -------------------------------------------------------------------------------------------
def warm() -> float:
    """Import what a sweep's worker imports before its first result; when that was done."""
    import importlib

    for module in WARM:
        importlib.import_module(module)
    return time.time()


def serve(workspace: str, dashboard: int, run_job: Callable[..., str]) -> str | None:
    """The standby process: import, claim the workspace's standby entry, wait for a job from this dashboard, run it
    with ``run_job`` (``worker.run_job``, given by the command line: this module, which ``process`` hands jobs
    through, does not import the worker). Returns the job's final status, or None when it left without a job (another
    standby waits, the dashboard ended, or ``IDLE_SECONDS`` passed)."""
    parent = os.getppid()
    ready_at = warm()
    store = Store(workspace)
    current = store.meta(KEY)
    me = Standby.read(current)
    if me is None or me.pid != os.getpid() or me.state != "starting" or me.dashboard != dashboard:
        return None  # not the standby its dashboard started (one at most per workspace)
    me = replace(me, ready_at=ready_at, state="ready")
    if not store.swap_meta(KEY, current, me.text()):
        return None
    deadline = time.monotonic() + IDLE_SECONDS
    while time.monotonic() < deadline:
        now = Standby.read(store.meta(KEY))
        if now is None or now.pid != me.pid:
            return None  # withdrawn or replaced
        if now.state == "handed" and now.job:
            taken = replace(now, state="taken")
            if store.swap_meta(KEY, now.text(), taken.text()):
                return _run(store, taken, run_job)
            continue
        if os.getppid() != parent or not _alive(dashboard, me.dashboard_started):
            break  # the dashboard ended
        time.sleep(POLL_SECONDS)
    store.swap_meta(KEY, me.text(), None)
    return None


def _run(store: Store, taken: Standby, run_job: Callable[..., str]) -> str:
    """Run the handed job as a fresh worker would (``cli worker``), its output in the job's log."""
    from .lifecycle import Terminated

    log = store.space.open_log(taken.job)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    note_imports(store, taken.job, taken.ready_at, taken.handed_at)
    try:
        return run_job(store, taken.job, n_jobs=taken.n_jobs, backend=taken.backend, address=taken.address,
                       resume_on_restart=True)
    except KeyboardInterrupt as exc:  # stored as the job's state already; its processes have ended
        raise SystemExit(143 if isinstance(exc, Terminated) else 130) from None


def note_imports(store: Store, job_id: str, ready_at: float | None, handed_at: float | None) -> None:
    """Record how long the job's worker spent importing after Start (0 for a standby, whose imports were done
    before the job was handed to it)."""
    after = 0.0 if ready_at is None or handed_at is None else max(0.0, ready_at - handed_at)
    store.log(job_id, IMPORTS_EVENT, f"{after:.3f} s of imports after Start" + (
        " (a standby worker, ready before Start)" if after == 0.0 else " (a worker started at Start)"))


def imports_after_start(store: Store, job_id: str) -> float | None:
    """Seconds the job's worker spent importing after Start, as it recorded it (None: not recorded)."""
    for event in reversed(store.events(job_id)):
        if event["kind"] == IMPORTS_EVENT:
            return float(event["message"].split(" s ", 1)[0])
    return None


def process_started_at(pid: int) -> float | None:
    """When process ``pid`` started, in seconds since the epoch (Linux)."""
    ticks = process_start_time(pid)
    try:
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime"))
    except (OSError, StopIteration, ValueError):
        return None
    return None if ticks is None else boot + ticks / os.sysconf("SC_CLK_TCK")
