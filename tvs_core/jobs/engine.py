"""The one engine: run a plan's tasks through joblib and hand each result to a sink as it arrives.

The sink decides where results go: ``MemorySink`` keeps them in this process (``evaluate()``),
the worker's ``StoreSink`` commits each one to SQLite (sweeps). Both run this same loop over the
same plan and handlers, so they compute identical records (tested).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Protocol

from joblib import Parallel, delayed

from ..errors import TVSError
from ..evaluation.records import Record
from ..evaluation.timing import peak_memory_mb, reset_peak_memory, run_timed
from ..storage.store import JobStatus
from .backends import RESULT_ORDER, backend_context
from .context import JobContext
from .memory import available_mb, stage_need_mb, workers_that_fit
from .tasks import Task, run_task, stage_payloads, task_payloads


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


def execute(context: JobContext, tasks: list[Task], sink: Sink, n_jobs: int = 2, backend: str = "loky",
            address: str | None = None) -> str:
    """Run every task not yet in ``sink``, stage by stage; 'done', or 'cancelled' when the sink says so
    (checked after every result). The backend's processes end when this returns or raises."""
    with backend_context(backend, address, n_jobs) as workers:
        return _run_stages(context, tasks, sink, workers, backend)


def _run_stages(context: JobContext, tasks: list[Task], sink: Sink, workers: int, backend: str) -> str:
    # one Parallel for every stage: joblib starts its workers (and registers their temporary folder) once; a
    # cancel leaves with tasks under way, which joblib warns of: that is what a cancel means. A loky worker whose
    # memory grew by 300 MB since its last check ends itself and is replaced (its "memory leak" check: a wide table's
    # tasks do grow it), and loky warns of that too, in words that alarm a steward reading the command line: it ends
    # between two tasks, its result sent, and the next ones go to its replacement, so nothing is lost
    with warnings.catch_warnings(), Parallel(n_jobs=workers, return_as=RESULT_ORDER[backend]) as parallel:
        warnings.filterwarnings("ignore", message=".*tasks which were still being processed", category=UserWarning)
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given", category=UserWarning)
        for stage in sorted({t.stage for t in tasks if t.stage > 0}):
            done = sink.done()
            todo = [t for t in tasks if t.stage == stage and t.name not in done]
            if not todo:
                continue
            payloads = stage_payloads(tasks, todo, sink.payload)
            slots = _memory_slots(context, todo, sink, workers)
            calls = [delayed(execute_task)(task, context, task_payloads(task, payloads), TASK_TIMER) for task in todo]
            if RESULT_ORDER[backend] == "list" or slots < workers:  # at most ``slots`` tasks at once
                results = (r for i in range(0, len(calls), slots) for r in parallel(calls[i:i + slots]))
            else:
                results = parallel(calls)
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
