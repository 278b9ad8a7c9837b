"""Worker processes: one per job, in its own session (it survives a dashboard restart and can be killed
as a group), told apart from a reused pid by its start time, resumed when it died."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..storage.store import ACTIVE, JobRow, JobStatus, Store
from .backends import Backend
from .lifecycle import process_start_time, worker_alive


# -- worker processes -------------------------------------------------------------------------------
def start_worker(store: Store, job_id: str, n_jobs: int = 2, backend: Backend = Backend.LOKY,
                 address: str | None = None) -> int:
    """Start a worker in its own session (it survives a dashboard restart; killable as a group): the workspace's
    standby worker when one is ready (its imports done: ``standby.py``), else a new process."""
    from .standby import hand_to_standby

    taken = hand_to_standby(store, job_id, n_jobs, backend, address) if backend != Backend.RAY else None
    if taken is not None:
        return taken
    command = [sys.executable, "-m", "tvs_core", "worker", job_id, "--workspace", str(store.workspace),
               "--n-jobs", str(n_jobs), "--backend", backend] + (["--address", address] if address else [])
    store.update_job(job_id, status=JobStatus.QUEUED.value, cancel=0)
    with os.fdopen(store.space.open_log(job_id), "ab") as log:
        root = str(Path(__file__).resolve().parents[2])  # so "-m tvs_core" resolves from any folder
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   start_new_session=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path})
    store.update_job(job_id, pid=process.pid, pid_started=process_start_time(process.pid))
    return process.pid


def cancel_job(store: Store, job_id: str, grace_seconds: float = 15.0, wait: bool = True) -> None:
    """Cooperative cancel (the worker stops its tasks under way at its next heartbeat); if the worker has not stopped
    after ``grace_seconds``, kill its process group. ``wait=False`` (the Sweep page): return at once, the job showing
    that it is stopping (``progress``), and wait in a thread of this process. Only the worker running when Cancel
    was pressed is waited for and killed: a job resumed meanwhile runs in another worker, which is left alone."""
    store.request_cancel(job_id)
    worker = store.job(job_id)  # as it is at the cancel: the worker to wait for
    if not wait and worker_alive(worker):
        thread = threading.Thread(target=_cancel_in_thread, args=(store.workspace, job_id, worker, grace_seconds),
                                  name=f"cancel {job_id}", daemon=True)
        thread.start()
        return
    _stop_within(store, job_id, worker, grace_seconds)


def _cancel_in_thread(workspace, job_id: str, worker: JobRow, grace_seconds: float) -> None:
    store = Store(workspace)  # this thread's own connection
    try:
        _stop_within(store, job_id, worker, grace_seconds)
    finally:
        store.close()


def _stop_within(store: Store, job_id: str, worker: JobRow, grace_seconds: float) -> None:
    """Wait for ``worker`` (its pid and start time, as the job had them at the cancel) to end, else kill it."""
    deadline = time.time() + grace_seconds
    while time.time() < deadline:
        if not worker_alive(worker):  # the worker saw the flag and exited
            break
        time.sleep(0.2)
    if worker_alive(worker):
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        store.log(job_id, "killed", f"worker {worker.pid} did not stop in {grace_seconds:.0f} s and was killed")
    job = store.job(job_id)
    if job.status in ACTIVE and job.pid == worker.pid:  # not a job resumed since by another worker
        store.update_job(job_id, status=JobStatus.CANCELLED.value, finished=time.time())


def resume_orphans(store: Store, n_jobs: int = 2) -> list[str]:
    """Jobs marked running whose worker is gone (crash, kill, reboot) are started again."""
    resumed = []
    for job in store.jobs():
        if job.status == JobStatus.RUNNING and not worker_alive(job):
            store.log(job.id, "orphan", f"worker {job.pid} is gone; resuming")
            start_worker(store, job.id, n_jobs)
            resumed.append(job.id)
    return resumed
