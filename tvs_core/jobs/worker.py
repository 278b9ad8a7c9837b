"""Run a stored sweep: the engine with a sink that commits every result to the store as it arrives.

The worker skips tasks already stored (so a restart resumes), checks the cancel flag after every
result, beats a heartbeat, and records its pid and process start time so that a dead worker can be
told apart from a live one and its job resumed (``process.resume_orphans``).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import replace

from ..errors import DataError, TVSError
from ..evaluation.records import HOLDER
from ..model.generator import SyntheticGenerator
from ..storage.store import ACTIVE, JobStatus, Store
from ..storage.workspace import traceback_without_values
from .backends import Backend
from .config import SweepConfig
from .context import context_for_job, fit_holder, schema_for, split_tables, sweep_levels
from .engine import TaskResult, execute
from .first_look import first_look
from .lifecycle import Terminated, process_start_time, worker_alive
from .payloads import HEAD, current
from .plan import plan, scored_earlier, scored_whole
from .progress import machine_load, machine_slowdown
from .submission import job_externals, job_tables
from .tasks import Task, TaskKey, TaskKind, plan_json, still_needed, task_results

HEARTBEAT_SECONDS = 2.0


class StoreSink:
    """Results committed one by one; ``progress(job)`` is told after each."""

    def __init__(self, store: Store, job_id: str, progress=None):
        self.store, self.job_id, self.progress = store, job_id, progress

    def done(self) -> set[str]:
        return self.store.done_tasks(self.job_id)

    def add(self, result: TaskResult) -> None:
        self.store.add_result(self.job_id, result.key, result.kind, [r.stored() for r in result.records],
                              result.seconds.get("total", 0.0), result.payload, peak_mb=result.peak_mb)
        self.notify()

    def payload(self, key: str) -> bytes | None:
        return self.store.payload(self.job_id, key)

    def cancelled(self) -> bool:
        return self.store.cancel_requested(self.job_id)

    def peaks(self) -> dict[str, float]:
        return self.store.task_peaks(self.job_id)

    def note(self, message: str) -> None:
        self.store.log(self.job_id, "memory", message)

    def notify(self) -> None:
        if self.progress is not None:
            self.progress(self.store.job(self.job_id))


class _Heartbeat(threading.Thread):
    def __init__(self, workspace, job_id):
        super().__init__(daemon=True)
        self.workspace, self.job_id = workspace, job_id
        self.stopped = threading.Event()

    def run(self):
        store = Store(self.workspace)  # its own connection
        stopping = False
        while not self.stopped.wait(HEARTBEAT_SECONDS):
            store.update_job(self.job_id, heartbeat=time.time())
            if not stopping and store.cancel_requested(self.job_id):
                stopping = True  # Cancel: the tasks under way stop now, not when the next one ends (issue 56)
                stop_the_pool()
        store.close()


def stop_the_pool() -> None:
    """End this worker's pool processes (loky's): the results they would send are what a cancel drops anyway, and
    the engine, seeing the cancel, ends the job as cancelled (``engine._consume``) instead of after the running
    tasks, which take minutes on a wide table. They hold no lock on the store: only this process writes to it."""
    own = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except (OSError, IndexError, ValueError):
            continue
        if parent == own and b"popen_loky" in command:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run_job(store: Store, job_id: str, n_jobs: int = 2, backend: Backend = Backend.LOKY, address: str | None = None,
            progress=None, resume_on_restart: bool = False) -> str:
    """Run (or resume) a job to its end in this process; returns the final status.

    ``progress(job)`` is called after every stored result. KeyboardInterrupt leaves the job
    'interrupted' with everything finished so far stored, ready to resume. With ``resume_on_restart`` (the
    dashboard's background worker) a SIGTERM (``Terminated``: a shutdown, say) leaves it 'running' instead, so
    that the dashboard's next start resumes it as it resumes a worker that died."""
    job = store.job(job_id)
    if job is None:
        raise TVSError(f"No job '{job_id}' in {store.workspace}.")
    if job.status == JobStatus.DONE:
        return JobStatus.DONE
    if job.status in ACTIVE and job.pid not in (None, os.getpid()) and worker_alive(job):
        raise TVSError(f"Job {job_id} is already running in process {job.pid}; one worker per job.")
    store.update_job(job_id, status=JobStatus.RUNNING.value, pid=os.getpid(),
                     pid_started=process_start_time(os.getpid()), started=time.time(), heartbeat=time.time(),
                     error=None, cancel=0, workers=n_jobs)
    store.log(job_id, "start", f"worker {os.getpid()} started ({backend}, {n_jobs} workers)")
    heartbeat = _Heartbeat(store.workspace, job_id)
    heartbeat.start()
    try:
        status = _run(store, job_id, StoreSink(store, job_id, progress), n_jobs, backend, address)
    except KeyboardInterrupt as exc:
        if isinstance(exc, Terminated) and resume_on_restart:
            store.log(job_id, "terminated", "stopped by SIGTERM; resumes when the dashboard next starts")
        else:
            store.update_job(job_id, status=JobStatus.INTERRUPTED.value, finished=time.time())
            store.log(job_id, "interrupted", "stopped by the user; run again to resume")
        raise
    except Exception as exc:  # the job fails; its finished tasks stay stored
        error = failure_sentence(exc, store.space.log_path(job_id))
        store.update_job(job_id, status=JobStatus.FAILED.value, error=error, finished=time.time())
        store.log(job_id, "failed", traceback_without_values())
        return JobStatus.FAILED
    finally:
        heartbeat.stopped.set()
    store.update_job(job_id, status=status, finished=time.time())
    store.log(job_id, status, f"job {status}")
    return status


def failure_sentence(exc: Exception, log) -> str:
    """What the user reads about a failed job, with the one thing that can help: new settings for a problem of
    the data or settings (resuming would fail the same way), resuming for a shortage that passes (memory: ours
    says so), the job's log for a bug."""
    if isinstance(exc, DataError):
        return f"{exc} Change the data or the settings, then press Start."
    if isinstance(exc, TVSError):
        return str(exc)
    return (f"An unexpected error ({type(exc).__name__}) stopped the sweep; where it happened is in {log} (without "
            "its message, which may quote the data). Finished results are kept: Resume tries again from there.")


def _run(store: Store, job_id: str, sink: StoreSink, n_jobs: int, backend: Backend, address) -> str:
    job = store.job(job_id)
    config = SweepConfig.from_dict(job.config)
    table, holdout = job_tables(store, job)
    stored = store.model_json(job_id, HOLDER)
    train, test = split_tables(config, table, holdout)
    # the sweep's levels, resolved once (``sweep_levels``: seconds on a wide table); a resumed job keeps those it
    # was planned with, whatever the defaults of this version
    planned = [int(level) for level in job.details.get("levels") or () if level is not None]
    levels: list[int] = planned

    def sweep_levels_once() -> list[int]:
        levels[:] = levels or sweep_levels(config, train)
        return levels

    machine = _machine(n_jobs, running=False)  # how busy: the time left's speed until a task is measured

    if stored is None:
        # the first look: seconds, while the holder takes minutes
        if not any(key.kind == TaskKind.FIRST_LOOK for key in _keys(sink.done())):
            start = time.perf_counter()
            for level, records, count in first_look(config, train, test, threads=n_jobs, levels=sweep_levels_once):
                if count is not None:  # with what the time left of the whole sweep needs before it is planned
                    store.update_job(job_id, details=json.dumps(
                        {"first_look_levels": count, "levels": levels or config.levels, "n_train": len(train),
                         "n_columns": len(schema_for(train, config).modelled)} | machine))
                store.add_result(job_id, str(TaskKey(TaskKind.FIRST_LOOK, index=(level,))), TaskKind.FIRST_LOOK.value,
                                 [r.stored() for r in records], time.perf_counter() - start)
                sink.notify()
                if sink.cancelled():
                    return JobStatus.CANCELLED
                start = time.perf_counter()
        config = replace(config, levels=sweep_levels_once())
        start = time.perf_counter()
        holder = fit_holder(config, train, threads=n_jobs)
        store.save_model(job_id, HOLDER, holder.to_json())
        seconds = time.perf_counter() - start
    else:
        config = replace(config, levels=sweep_levels_once())
        holder, seconds = SyntheticGenerator.from_json(stored), 0.0
    context = context_for_job(config, table, holdout, holder, job_externals(store, config))
    looks = sorted((key for key in _keys(sink.done()) if key.kind == TaskKind.FIRST_LOOK), key=lambda k: k.index)
    # a resumed job keeps the release chunks it stored, whichever version planned them (plan.release_tasks)
    todo = plan(context, sink.done(), workers=n_jobs)
    if stored is not None:  # resumed: see scored_earlier and scored_whole
        results = task_results(store, job_id)
        scored = scored_earlier(results) | scored_whole(results, todo)
        todo = [t for t in todo if t.name not in scored]
    _forget_unreadable_payloads(store, job_id)
    # a task that hands on only a payload which no task still to run reads never runs (``tasks.still_needed``: a
    # resumed job's game models whose records are stored): not counted, so that a job ends with done == total
    done = sink.done()
    needed = {t.name for t in still_needed(todo, done)}
    todo = [t for t in todo if t.stage == 0 or t.name in done or t.name in needed]
    tasks = [Task(key, (), 0) for key in looks] + todo
    machine = _machine(n_jobs, running=True)  # as the plan's tasks start
    store.update_job(job_id, total=len(tasks), plan=plan_json(tasks), details=json.dumps(context.details() | machine))
    holder_key = str(TaskKey(TaskKind.HOLDER))
    if holder_key not in sink.done():
        store.add_result(job_id, holder_key, TaskKind.HOLDER.value, [], seconds)
    sink.notify()
    if sink.cancelled():
        return JobStatus.CANCELLED
    return execute(context, tasks, sink, n_jobs=n_jobs, backend=backend, address=address)


def _machine(n_jobs: int, running: bool) -> dict:
    """How busy the machine is (jobs/progress.py): its load average with this sweep's own work among it (``running``:
    the first look and the holder's fit ran on its cores just now, so the load counts them; before them, the
    workers are added), and how much slower the sweep's workers will run among the other processes that want a core,
    weighed by their niceness and their sessions (this worker's own process group left out)."""
    load, _ = machine_load()
    slowed, _ = machine_slowdown(n_jobs, os.getpgid(0), less=n_jobs if running else 0)
    return {"load_at_plan": None if load is None else load + (0 if running else n_jobs),
            "slowdown_at_plan": slowed}


def _forget_unreadable_payloads(store: Store, job_id: str) -> None:
    """A job begun by an earlier version kept its membership shadows and attackers as pickles, which are never read
    (they could run code): those tasks run again. They hold no record, so no finished number is lost."""
    stale = sorted(task for task, head in store.payload_heads(job_id, len(HEAD)).items() if not current(head))
    if stale:
        store.forget_results(job_id, stale)
        store.log(job_id, "payloads", f"{len(stale)} membership-game tasks run again: an earlier version kept their "
                                      "results as pickles, which this version never reads")


def _keys(names: set[str]) -> list[TaskKey]:
    return [TaskKey.parse(name) for name in names]
