"""The one engine: run a plan's tasks through joblib and hand each result to a sink as it arrives.

The sink decides where results go: ``MemorySink`` keeps them in this process (``evaluate()``),
the worker's ``StoreSink`` commits each one to SQLite (sweeps). Both run this same loop over the
same plan and handlers, so they compute identical records (tested).

Whenever a worker is free it starts the first task of the plan (in its order of priority, ``plan.by_priority``)
whose inputs are stored (``tasks.waits_for``: what it reads and, after the first stage, every level's quick
numbers) and that the free memory holds (``memory.py``): one joblib call for the whole job, fed by ``ReadyTasks``.
When no task is ready the free worker waits a moment (``IDLE_SECONDS``) and asks again. Ray's joblib backend returns
lists only: there the stages run one after the other, as before.
"""

from __future__ import annotations

import heapq
import threading
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from joblib import Parallel, delayed

from ..errors import TVSError
from ..evaluation.records import Record
from ..evaluation.timing import peak_memory_mb, reset_peak_memory, run_timed
from ..storage.store import JobStatus
from .backends import RESULT_ORDER, Backend, backend_context
from .context import JobContext
from .memory import available_mb, stage_need_mb, workers_that_fit
from .tasks import Task, reads_from, run_task, stage_payloads, still_needed, task_payloads, waits_for


@dataclass
class TaskResult:
    key: str
    kind: str
    records: list[Record]
    payload: bytes | None
    seconds: dict[str, float]  # fitting, sampling, metrics, total
    peak_mb: float | None = None  # peak resident memory of the process that ran the task, during the task


class Sink(Protocol):
    def done(self) -> set[str]: ...
    def add(self, result: TaskResult) -> None: ...
    def payload(self, key: str) -> bytes | None: ...
    def cancelled(self) -> bool: ...
    def peaks(self) -> dict[str, float]: ...  # the largest measured peak memory (MB) per task kind
    def note(self, message: str) -> None: ...  # one line for the user (e.g. fewer workers for memory)


@dataclass
class MemorySink:
    results: dict[str, TaskResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def done(self) -> set[str]:
        return set(self.results)

    def add(self, result: TaskResult) -> None:
        self.results[result.key] = result

    def payload(self, key: str) -> bytes | None:
        return self.results[key].payload

    def cancelled(self) -> bool:
        return False

    def peaks(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for result in self.results.values():
            if result.peak_mb is not None:
                out[result.kind] = max(out.get(result.kind, 0.0), result.peak_mb)
        return out

    def note(self, message: str) -> None:
        self.notes.append(message)

    def records(self) -> list[Record]:
        return [r for result in self.results.values() for r in result.records]


TASK_TIMER = run_timed  # passed to the workers by value, so a benchmark can log every task through it


def execute_task(task: Task, context: JobContext, payloads: list[bytes] | None = None, timer=run_timed
                 ) -> TaskResult:
    reset_peak_memory()
    (records, payload), seconds = timer(run_task, task, context, payloads)
    return TaskResult(task.name, task.kind.value, records, payload, seconds, peak_memory_mb())


def execute(context: JobContext, tasks: list[Task], sink: Sink, n_jobs: int = 2, backend: Backend = Backend.LOKY,
            address: str | None = None) -> str:
    """Run every task not yet in ``sink``; 'done', or 'cancelled' when the sink says so (checked after every
    result). The backend's processes end when this returns or raises."""
    with backend_context(backend, address, n_jobs) as workers:
        if RESULT_ORDER[backend] == "list":
            return _run_stages(context, tasks, sink, workers, backend)
        return _run_ready(context, tasks, sink, workers)


IDLE_SECONDS = 0.1  # a free worker with no task ready waits this long in its process, then asks again


def _idle() -> None:
    time.sleep(IDLE_SECONDS)


class ReadyTasks:
    """What a free worker runs next, asked by joblib whenever a worker is free (from joblib's own thread, hence the
    lock): the first task still to run, in plan order, whose inputs are all stored and that the free memory holds;
    else a short wait (``_idle``). The engine's thread tells it each stored result (``finished``), which readies the
    tasks that were waiting for it; the payloads later tasks read are kept in memory until their last reader has
    been handed them."""

    def __init__(self, context: JobContext, tasks: list[Task], sink: Sink, workers: int):
        done = sink.done()
        self.context, self.workers = context, workers
        pending = [task for task in still_needed(tasks, done) if task.stage > 0]
        names = {task.name for task in pending}
        self.tasks = {task.name: task for task in pending}
        self.order = {task.name: i for i, task in enumerate(pending)}
        self.reads = {task.name: [t.name for t in reads_from(task, tasks)] for task in pending}
        self.missing = {task.name: {t.name for t in waits_for(task, tasks)} - done for task in pending}
        unknown = {name for waits in self.missing.values() for name in waits} - names
        if unknown:
            raise TVSError(f"The sweep's plan is inconsistent: tasks wait for {', '.join(sorted(unknown))}, which is "
                           "neither stored nor planned. Start the sweep again.")
        self.waiting: dict[str, list[str]] = {}  # a task -> the tasks waiting for it
        for name, waits in self.missing.items():
            for wait in waits:
                self.waiting.setdefault(wait, []).append(name)
        self.ready = [(self.order[name], name) for name, waits in self.missing.items() if not waits]
        heapq.heapify(self.ready)
        self.readers = Counter(name for names in self.reads.values() for name in names)  # readers still to start
        self.payloads = {name: sink.payload(name) for name in self.readers if name in done}
        self.left, self.running = len(pending), {}
        self.peaks = dict(sink.peaks())
        self.notes: list[str] = []
        self.error: str | None = None
        self.lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            if self.error is not None or not self.left:
                raise StopIteration
            if not self.ready or not self._fits(self.tasks[self.ready[0][1]]):
                if self.error is not None:
                    raise StopIteration
                return delayed(_idle)()
            _, name = heapq.heappop(self.ready)
            task = self.tasks.pop(name)
            self.left -= 1
            self.running[name] = task.kind
            payloads = [self.payloads[read] for read in self.reads[name]]
            for read in self.reads[name]:
                self.readers[read] -= 1
                if not self.readers[read]:
                    self.payloads.pop(read, None)  # no task still to start reads it
            return delayed(execute_task)(task, self.context, payloads, TASK_TIMER)

    def _fits(self, task: Task) -> bool:
        """Whether the free memory holds one more task of this kind beside those running (jobs/memory.py): the
        memory the running tasks are expected to hold counts as theirs, the rest of it as free."""
        kinds = sorted({*self.running.values(), task.kind})
        n_train = len(self.context.data.train)
        need = stage_need_mb(kinds, n_train, self.peaks)
        free = available_mb()
        if free is not None:
            free += sum(stage_need_mb([kind], n_train, self.peaks) for kind in self.running.values())
        slots, message = workers_that_fit(need, self.workers, free)
        if message and message not in self.notes:
            self.notes.append(message)
        if slots < 1 and not self.running:
            self.error = message
        if slots >= self.workers:
            # joblib runs at most ``workers`` calls at once and asks for the next one when a call ends, before this
            # engine's thread has stored that result (``finished``): its task is still counted as running, and
            # counting it would hand the free worker a wait instead of the task that is ready (0.1 s a task)
            return True
        return len(self.running) < slots

    def finished(self, result: TaskResult) -> None:
        """``result`` is stored: the tasks waiting for it may start."""
        with self.lock:
            self.running.pop(result.key, None)
            if self.readers.get(result.key):
                self.payloads[result.key] = result.payload
            for name in self.waiting.pop(result.key, ()):
                self.missing[name].discard(result.key)
                if not self.missing[name]:
                    heapq.heappush(self.ready, (self.order[name], name))
            if result.peak_mb is not None:
                self.peaks[result.kind] = max(self.peaks.get(result.kind, 0.0), result.peak_mb)


def _run_ready(context: JobContext, tasks: list[Task], sink: Sink, workers: int) -> str:
    """Every task still to run, each started as soon as a worker is free and its inputs are stored (``ReadyTasks``),
    in one joblib call: joblib starts its workers (and registers their temporary folder) once. A cancel leaves with
    tasks under way, which joblib warns of: that is what a cancel means (so is the pool's failure once Cancel is
    pressed: the worker ends its pool's processes at once). A loky worker whose memory grew by 300 MB since its last
    check ends itself and is replaced (its "memory leak" check: a wide table's tasks do grow it), and
    loky warns of that too, in words that alarm a steward reading the command line: it ends between two tasks, its
    result sent, and the next ones go to its replacement, so nothing is lost."""
    ready = ReadyTasks(context, tasks, sink, workers)
    noted: set[str] = set()

    def notes() -> None:
        for message in [m for m in ready.notes if m not in noted]:
            sink.note(message)
            noted.add(message)

    if ready.left:
        with warnings.catch_warnings(), Parallel(n_jobs=workers, return_as="generator_unordered",
                                                 pre_dispatch="n_jobs", batch_size=1) as parallel:
            warnings.filterwarnings("ignore", message=".*tasks which were still being processed", category=UserWarning)
            warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given",
                                    category=UserWarning)
            results = parallel(ready)
            try:
                for result in results:
                    notes()
                    if result is None:  # a free worker waited: nothing was ready
                        continue
                    sink.add(result)
                    ready.finished(result)
                    if sink.cancelled():
                        results.close()  # joblib drops the tasks under way now (and warns of it, here)
                        return JobStatus.CANCELLED
            except Exception:  # the pool fails under a cancel: the worker ends its processes at once (``worker``)
                if sink.cancelled():
                    return JobStatus.CANCELLED
                raise
            finally:  # here, under the filter: an interrupt's dropped tasks are not warned of on the command line
                results.close()
    notes()
    if ready.error is not None:
        raise TVSError(ready.error)
    return JobStatus.DONE


def _run_stages(context: JobContext, tasks: list[Task], sink: Sink, workers: int, backend: Backend) -> str:
    """Stage after stage, for a backend whose results come back as lists (Ray's): each stage's tasks in plan order,
    at most as many at once as the free memory holds."""
    with warnings.catch_warnings(), Parallel(n_jobs=workers, return_as=RESULT_ORDER[backend]) as parallel:
        warnings.filterwarnings("ignore", message=".*tasks which were still being processed", category=UserWarning)
        for stage in sorted({t.stage for t in tasks if t.stage > 0}):
            todo = [t for t in still_needed(tasks, sink.done()) if t.stage == stage]
            if not todo:
                continue
            payloads = stage_payloads(tasks, todo, sink.payload)
            slots = _memory_slots(context, todo, sink, workers)
            calls = [delayed(execute_task)(task, context, task_payloads(task, payloads, tasks), TASK_TIMER)
                     for task in todo]
            results = (r for i in range(0, len(calls), slots) for r in parallel(calls[i:i + slots]))
            if _consume(sink, results):
                return JobStatus.CANCELLED
    return JobStatus.DONE


def _memory_slots(context: JobContext, todo: list[Task], sink: Sink, workers: int) -> int:
    """Workers this stage may use so that its tasks fit in the free memory (jobs/memory.py); stops the job
    with one clear line when not even one fits."""
    need = stage_need_mb(sorted({t.kind for t in todo}), len(context.data.train), sink.peaks())
    slots, message = workers_that_fit(need, workers, available_mb())
    if message:
        sink.note(message)
    if slots < 1:
        raise TVSError(message)
    return slots


def _consume(sink: Sink, results) -> bool:
    """Every result into the sink; True when the job was cancelled — checked after each result, and when the pool
    fails under a cancel (the worker ends its pool's processes at once when Cancel is pressed: ``worker``)."""
    try:
        for result in results:
            sink.add(result)
            if sink.cancelled():
                if hasattr(results, "close"):
                    results.close()  # joblib drops the tasks under way now (and warns of it, here)
                return True
    except Exception:
        if sink.cancelled():
            return True
        raise
    return False
