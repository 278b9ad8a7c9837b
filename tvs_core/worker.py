"""Run a stored sweep: one worker process per job, results committed as they arrive.

The worker skips tasks already stored (so a restart resumes), checks the cancel flag after every
result, beats a heartbeat, and records its pid and process start time so that a dead worker can be
told apart from a live one and its job resumed (``resume_orphans``). Tasks run through joblib with
unordered, streaming results; the backend (loky, dask, ray) does not change any number.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

from joblib import Parallel, delayed, parallel_config

from .errors import TVSError
from .generator import SyntheticGenerator
from .store import Store
from .sweep import (
    HOLDER,
    SweepConfig,
    Task,
    build_context,
    fit_holder,
    load_job_tables,
    mia_player,
    plan,
    run_task,
    split_tables,
)

HEARTBEAT_SECONDS = 2.0
BACKENDS = ("loky", "dask", "ray")
# Ray's joblib backend returns lists only: its tasks go in batches of one per worker, and each
# batch is stored as soon as it has finished (loky and Dask stream every result on arrival).
RESULT_ORDER = {"loky": "generator_unordered", "dask": "generator_unordered", "ray": "list"}


def process_start_time(pid: int) -> float | None:
    """Start time of a process in clock ticks since boot (Linux); tells a reused pid apart."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return float(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def worker_alive(job: dict) -> bool:
    pid = job.get("pid")
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    started = process_start_time(pid)
    if started is not None and job.get("pid_started") is not None and started != job["pid_started"]:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":  # zombie: dead, not reaped
        return False
    return True


@contextmanager
def backend_context(backend: str = "loky", address: str | None = None, n_jobs: int = 2):
    """joblib's backend for the tasks. Dask and Ray are optional and imported only when chosen."""
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=n_jobs):
            yield n_jobs
    elif backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            raise TVSError("The Dask backend needs the optional packages in requirements-extras.txt "
                           "(pip install -r requirements-extras.txt).") from exc
        cluster = None if address else LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True,
                                                      dashboard_address=None)
        client = Client(address or cluster)
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield n_jobs
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError as exc:
            raise TVSError("The Ray backend needs the optional packages in requirements-extras.txt "
                           "(pip install -r requirements-extras.txt).") from exc
        register_ray()
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=address, num_cpus=None if address else n_jobs, include_dashboard=False,
                     log_to_driver=False)
        try:
            with parallel_config(backend="ray", n_jobs=n_jobs):
                yield n_jobs
        finally:
            if started_here:
                ray.shutdown()
    else:
        raise TVSError(f"Unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}.")


def _execute(task: Task, context, inputs=None):
    start = time.perf_counter()
    records, payload = run_task(task, context, inputs)
    return task.key, task.kind, records, payload, time.perf_counter() - start


class _Heartbeat(threading.Thread):
    def __init__(self, workspace, job_id):
        super().__init__(daemon=True)
        self.workspace, self.job_id = workspace, job_id
        self.stopped = threading.Event()

    def run(self):
        store = Store(self.workspace)  # its own connection
        while not self.stopped.wait(HEARTBEAT_SECONDS):
            store.update_job(self.job_id, heartbeat=time.time())
        store.close()


def run_job(store: Store, job_id: str, n_jobs: int = 2, backend: str = "loky", address: str | None = None,
            progress=None) -> str:
    """Run (or resume) a job to its end in this process; returns the final status.

    ``progress(job)`` is called after every stored result. KeyboardInterrupt leaves the job
    'interrupted' with everything finished so far stored, ready to resume."""
    job = store.job(job_id)
    if job is None:
        raise TVSError(f"No job '{job_id}' in {store.workspace}.")
    if job["status"] == "done":
        return "done"
    store.update_job(job_id, status="running", pid=os.getpid(), pid_started=process_start_time(os.getpid()),
                     started=time.time(), heartbeat=time.time(), error=None, cancel=0, workers=n_jobs)
    store.log(job_id, "start", f"worker {os.getpid()} started ({backend}, {n_jobs} workers)")
    heartbeat = _Heartbeat(store.workspace, job_id)
    heartbeat.start()
    try:
        status = _run(store, job_id, SweepConfig.from_dict(job["config"]), n_jobs, backend, address, progress)
    except KeyboardInterrupt:
        store.update_job(job_id, status="interrupted", finished=time.time())
        store.log(job_id, "interrupted", "stopped by the user; run again to resume")
        raise
    except Exception as exc:  # the job fails; its finished tasks stay stored
        store.update_job(job_id, status="failed", error=f"{type(exc).__name__}: {exc}", finished=time.time())
        store.log(job_id, "failed", traceback.format_exc())
        return "failed"
    finally:
        heartbeat.stopped.set()
    store.update_job(job_id, status=status, finished=time.time())
    store.log(job_id, status, f"job {status}")
    return status


def _run(store: Store, job_id: str, config: SweepConfig, n_jobs: int, backend: str, address, progress) -> str:
    job = store.job(job_id)
    table, holdout = load_job_tables(store, job)
    stored = store.model_json(job_id, HOLDER)
    if stored is None:
        train, _ = split_tables(config, table, holdout)
        start = time.perf_counter()
        holder = fit_holder(config, train)
        store.save_model(job_id, HOLDER, holder.to_json())
        seconds = time.perf_counter() - start
    else:
        holder, seconds = SyntheticGenerator.from_json(stored), 0.0
    context = build_context(config, table, holdout, holder)
    tasks = plan(context)
    store.update_job(job_id, total=len(tasks), plan=_plan_json(tasks))
    if "holder" not in store.done_tasks(job_id):
        store.add_result(job_id, "holder", "holder", [], seconds)
    _notify(store, job_id, progress)
    if store.cancel_requested(job_id):
        return "cancelled"

    def pending(stage):
        done = store.done_tasks(job_id)
        return [t for t in tasks if t.stage == stage and t.key not in done]

    with backend_context(backend, address, n_jobs) as workers:
        for stage in (1, 2, 3):
            todo = pending(stage)
            if not todo:
                continue
            inputs = _stage_inputs(store, job_id, stage, tasks)
            if stage == 2:  # in this process, one task per player: it only trains small forests
                results = (_execute(task, context, inputs) for task in todo)
                if _consume(store, job_id, results, progress):
                    return "cancelled"
                continue
            with Parallel(n_jobs=workers, return_as=RESULT_ORDER[backend]) as parallel:
                calls = [delayed(_execute)(task, context, inputs) for task in todo]
                if RESULT_ORDER[backend] == "list":
                    results = (r for i in range(0, len(calls), workers) for r in parallel(calls[i:i + workers]))
                else:
                    results = parallel(calls)
                if _consume(store, job_id, results, progress):
                    return "cancelled"
    return "done"


def _consume(store, job_id, results, progress) -> bool:
    """Store results as they arrive; True when the user cancelled (checked after every result)."""
    for key, kind, records, payload, seconds in results:
        store.add_result(job_id, key, kind, records, seconds, payload)
        _notify(store, job_id, progress)
        if store.cancel_requested(job_id):
            return True
    return False


def _stage_inputs(store, job_id, stage, tasks):
    if stage == 2:  # per player, in shadow order (the plan's order)
        shadows: dict[str, list] = {}
        for t in tasks:
            if t.kind == "mia_shadow":
                shadows.setdefault(mia_player(t), []).append(pickle.loads(store.payload(job_id, t.key)))
        return {"shadows": shadows}
    if stage == 3:
        return {"attackers": {mia_player(t): pickle.loads(store.payload(job_id, t.key))
                              for t in tasks if t.kind == "mia_attackers"}}
    return None


def _plan_json(tasks) -> str:
    import json

    return json.dumps([[t.key, t.kind] for t in tasks])


def _notify(store, job_id, progress):
    if progress is not None:
        progress(store.job(job_id))


def progress(store: Store, job_id: str) -> dict:
    """done / total tasks and an ETA from the measured time of each kind of task."""
    job = store.job(job_id)
    done = store.done_tasks(job_id)
    seconds = store.task_seconds(job_id)
    overall = [s for values in seconds.values() for s in values]
    eta = None
    if job["plan"] and overall:
        mean = {kind: sum(v) / len(v) for kind, v in seconds.items()}
        fallback = sum(overall) / len(overall)
        remaining = sum(mean.get(kind, fallback) for key, kind in job["plan"] if key not in done)
        eta = remaining / max(1, job["workers"] or 1)
    return {"status": job["status"], "done": len(done), "total": job["total"] or 0, "eta_seconds": eta,
            "error": job["error"]}


# -- worker processes -------------------------------------------------------------------------------
def start_worker(store: Store, job_id: str, n_jobs: int = 2, backend: str = "loky",
                 address: str | None = None) -> int:
    """Start a worker in its own session (it survives a dashboard restart; killable as a group)."""
    logs = store.workspace / "logs"
    logs.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "tvs_core", "worker", job_id, "--workspace", str(store.workspace),
               "--n-jobs", str(n_jobs), "--backend", backend] + (["--address", address] if address else [])
    store.update_job(job_id, status="queued", cancel=0)
    with open(logs / f"{job_id}.log", "ab") as log:
        root = str(Path(__file__).resolve().parent.parent)  # so "-m tvs_core" resolves from any folder
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   start_new_session=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path})
    store.update_job(job_id, pid=process.pid, pid_started=process_start_time(process.pid))
    return process.pid


def cancel_job(store: Store, job_id: str, grace_seconds: float = 15.0) -> None:
    """Cooperative cancel; if the worker has not stopped after ``grace_seconds``, kill its process group."""
    store.request_cancel(job_id)
    deadline = time.time() + grace_seconds
    while time.time() < deadline:
        if not worker_alive(store.job(job_id)):  # the worker saw the flag and exited
            break
        time.sleep(0.2)
    job = store.job(job_id)
    if worker_alive(job):
        try:
            os.killpg(job["pid"], signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        store.log(job_id, "killed", f"worker {job['pid']} did not stop in {grace_seconds:.0f} s and was killed")
    if store.job(job_id)["status"] in ("running", "queued"):
        store.update_job(job_id, status="cancelled", finished=time.time())


def resume_orphans(store: Store, n_jobs: int = 2) -> list[str]:
    """Jobs marked running whose worker is gone (crash, kill, reboot) are started again."""
    resumed = []
    for job in store.jobs():
        if job["status"] == "running" and not worker_alive(job):
            store.log(job["id"], "orphan", f"worker {job['pid']} is gone; resuming")
            start_worker(store, job["id"], n_jobs)
            resumed.append(job["id"])
    return resumed
