"""The one engine: run a plan's tasks through joblib and hand each result to a sink as it arrives.

The sink decides where results go: ``MemorySink`` keeps them in this process (``evaluate()``),
the worker's ``StoreSink`` commits each one to SQLite (sweeps). Both run this same loop over the
same plan and handlers, so they compute identical records (tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from joblib import Parallel, delayed

from ..evaluation.timing import run_timed
from .backends import RESULT_ORDER, backend_context
from .context import JobContext
from .handlers import run_task, stage_inputs
from .plan import Task


@dataclass
class TaskResult:
    key: str
    kind: str
    records: list[dict]
    payload: bytes | None
    seconds: dict[str, float]  # fitting, sampling, metrics, total


class Sink(Protocol):
    def done(self) -> set[str]: ...
    def add(self, result: TaskResult) -> None: ...
    def payload(self, key: str) -> bytes | None: ...
    def cancelled(self) -> bool: ...


@dataclass
class MemorySink:
    results: dict[str, TaskResult] = field(default_factory=dict)

    def done(self) -> set[str]:
        return set(self.results)

    def add(self, result: TaskResult) -> None:
        self.results[result.key] = result

    def payload(self, key: str) -> bytes | None:
        return self.results[key].payload

    def cancelled(self) -> bool:
        return False

    def records(self) -> list[dict]:
        return [r for result in self.results.values() for r in result.records]


TASK_TIMER = run_timed  # passed to the workers by value, so a benchmark can log every task through it


def execute_task(task: Task, context: JobContext, inputs: dict | None = None, timer=run_timed) -> TaskResult:
    (records, payload), seconds = timer(run_task, task, context, inputs)
    return TaskResult(task.key, task.kind, records, payload, seconds)


def execute(context: JobContext, tasks: list[Task], sink: Sink, n_jobs: int = 2, backend: str = "loky",
            address: str | None = None) -> str:
    """Run every task not yet in ``sink``, stage by stage; 'done', or 'cancelled' when the sink says so
    (checked after every result)."""
    with backend_context(backend, address, n_jobs) as workers:
        for stage in sorted({t.stage for t in tasks if t.stage > 0}):
            done = sink.done()
            todo = [t for t in tasks if t.stage == stage and t.key not in done]
            if not todo:
                continue
            inputs = stage_inputs(stage, tasks, sink.payload)
            if stage == 2:  # in this process, one task per player: it only trains small forests
                results = (execute_task(task, context, inputs, TASK_TIMER) for task in todo)
                if _consume(sink, results):
                    return "cancelled"
                continue
            with Parallel(n_jobs=workers, return_as=RESULT_ORDER[backend]) as parallel:
                calls = [delayed(execute_task)(task, context, inputs, TASK_TIMER) for task in todo]
                if RESULT_ORDER[backend] == "list":
                    results = (r for i in range(0, len(calls), workers) for r in parallel(calls[i:i + workers]))
                else:
                    results = parallel(calls)
                if _consume(sink, results):
                    return "cancelled"
    return "done"


def _consume(sink: Sink, results) -> bool:
    for result in results:
        sink.add(result)
        if sink.cancelled():
            return True
    return False
