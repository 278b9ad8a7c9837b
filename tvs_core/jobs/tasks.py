"""What a sweep's tasks are: every kind of task with all that is known of it, and the key that names one task.

A kind carries its handler (``handlers.py``), the kind whose payloads it reads, what its cost grows with, its cost
measured in ``bench/sweep.md`` and the stage a plan stored without stages gave it. A key is the kind, the player
whose generator the task fits (a baseline's label, which may itself hold ':') and the kind's own indices; it is stored
as the text ``kind[:player]:index…``, written by ``str()`` and read by ``TaskKey.parse`` only. A plan is stored as JSON
of its tasks (``plan_json``) and read back by ``plan_from_json``.

A task waits for the tasks whose payloads it reads (``reads_from``: of the kind it reads, its own player's, and for
a game's iteration its own models only) and, after the plan's first stage, for every level's quick numbers
(``waits_for``): the engine starts any other task as soon as a worker is free, in plan order. A task's stage is
one more than the stage of what it reads, so a backend that runs stage after stage (Ray's) keeps the same order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum

from ..evaluation.records import HOLDER, Record
from ..storage.store import Store, StoredResult
from . import handlers

LEVELS, GAMES, ATTACKERS, EVALUATIONS = 1, 2, 3, 4  # stage 0: the holder's fit (and the first look)


class Growth(Enum):
    """What a kind's cost grows with, to rescale a cost measured on one table to another."""

    DATA = "training rows x columns"  # tasks on the training rows
    GAMES = "(1 + targets) x columns²"  # a game task fits one model without the targets and one with each
    COLUMNS = "columns²"  # fits on fixed-size samples


class TaskKind(StrEnum):
    """Each kind of task. Its value is the name stored in the results table and in task keys."""

    handler: Callable | None
    indices: int
    growth: Growth
    prior_seconds: float | None
    legacy_stage: int

    def __new__(cls, value: str, handler: Callable | None, indices: int, growth: Growth,
                prior_seconds: float | None, legacy_stage: int = GAMES, reads: str | None = None):
        kind = str.__new__(cls, value)
        kind._value_ = value
        kind.handler, kind.indices, kind.growth = handler, indices, growth
        kind.prior_seconds, kind.legacy_stage, kind._reads_name = prior_seconds, legacy_stage, reads
        return kind

    @property
    def gives_records(self) -> bool:
        """Whether its result holds records (a game's model, a shadow, the attackers and a baseline's fit hand a
        payload on, and nothing else: one that no task still needs is not run)."""
        return self not in PAYLOAD_ONLY

    @property
    def reads(self) -> TaskKind | None:
        """The kind whose payloads a task of this kind reads (of its own player, from an earlier stage)."""
        return TaskKind(self._reads_name) if self._reads_name else None

    # seconds per task, quick preset, 884 x 27 SUPPORT2-like table (bench/tables.py), 2 workers on a quiet 2-core
    # machine: the median of 3 runs (bench/sweep.md); the release and reference tasks without their details
    # (``*_details``: GDPR criteria, fidelity, closeness); ``baseline_aia`` (not in the default plan) from its
    # first measurement; ``first_look`` per level shown; ``dp_audit`` one fit of dp_vine on the audit's rows
    # (1000 x 21 clinical: 0.36 s, scaled to 27 columns; a competitor's audit fits add their measured fit cost); the
    # games' models and records, the baselines' fits and sets (issue 57): their CPU seconds one at a time, one thread
    # (tests/jobs/recorded_cpu.json, ``python -m bench.cores cpu``) times 1.1, the median ratio of a kind's seconds
    # on 2 workers to its CPU seconds in the recordings above
    HOLDER = ("holder", None, 0, Growth.DATA, 0.7, 0)  # fitted by the worker itself, before the plan
    FIRST_LOOK = ("first_look", None, 1, Growth.COLUMNS, 0.4, 0)  # likewise, before the holder (first_look.py)
    REFERENCE = ("reference", handlers.reference, 0, Growth.DATA, 2.7, LEVELS)
    RELEASE = ("release", handlers.release, 2, Growth.DATA, 2.0, LEVELS)  # level, chunk of sets
    REFERENCE_DETAILS = ("reference_details", handlers.reference_details, 0, Growth.DATA, 1.0)
    RELEASE_DETAILS = ("release_details", handlers.release_details, 1, Growth.DATA, 0.9)  # level
    BASELINE = ("baseline", handlers.baseline, 0, Growth.DATA, 3.6, ATTACKERS)  # fit and every set: a competitor
    BASELINE_FIT = ("baseline_fit", handlers.baseline_fit, 0, Growth.DATA, 0.3)
    BASELINE_SETS = ("baseline_sets", handlers.baseline_sets, 1, Growth.DATA, 0.5, ATTACKERS,
                     "baseline_fit")  # chunk of sets
    EXTERNAL = ("external", handlers.external, 0, Growth.DATA, None, ATTACKERS)
    DP_AUDIT = ("dp_audit", handlers.dp_audit, 1, Growth.COLUMNS, 0.6, ATTACKERS)  # trial
    AIA_MODEL = ("aia_model", handlers.aia_model, 2, Growth.COLUMNS, 0.7)  # iteration, model ("out" or target row)
    AIA_RECORDS = ("aia_records", handlers.aia_records, 1, Growth.GAMES, 0.04, ATTACKERS, "aia_model")  # iteration
    MIA_SHADOW_MODEL = ("mia_shadow_model", handlers.mia_shadow_model, 2, Growth.COLUMNS, 0.5)  # shadow, model
    MIA_ATTACKERS = ("mia_attackers", handlers.mia_attackers, 1, Growth.GAMES, 1.9, ATTACKERS,
                     "mia_shadow_model")  # part
    MIA_EVAL_MODEL = ("mia_eval_model", handlers.mia_eval_model, 2, Growth.COLUMNS, 0.65, EVALUATIONS,
                      "mia_attackers")  # iteration, model
    MIA_EVAL_RECORDS = ("mia_eval_records", handlers.mia_eval_records, 1, Growth.GAMES, 0.02, EVALUATIONS,
                        "mia_eval_model")  # iteration
    # planned by earlier versions, whole (a saved baseline's fit and its sets; a game iteration's or a shadow's every
    # model): their stored keys and results still read, their costs still count for a job planned with them (the
    # time left of a sweep begun before); this version plans their parts (``plan.scored_whole``)
    AIA = ("aia", None, 1, Growth.GAMES, 6.2)  # iteration
    BASELINE_AIA = ("baseline_aia", None, 1, Growth.GAMES, 4.6)  # iteration
    MIA_SHADOW = ("mia_shadow", None, 1, Growth.GAMES, 4.9)  # shadow
    MIA_EVAL = ("mia_eval", None, 1, Growth.GAMES, 7.6, EVALUATIONS, "mia_attackers")  # iteration


PAYLOAD_ONLY = frozenset({TaskKind.BASELINE_FIT, TaskKind.AIA_MODEL, TaskKind.MIA_SHADOW_MODEL, TaskKind.MIA_SHADOW,
                          TaskKind.MIA_ATTACKERS, TaskKind.MIA_EVAL_MODEL})
OUT_MODEL = handlers.OUT_MODEL


@dataclass(frozen=True)
class TaskKey:
    """Names one task in a job."""

    kind: TaskKind
    player: str = HOLDER
    index: tuple[int | str, ...] = ()

    def __str__(self) -> str:
        player = [] if self.player == HOLDER else [self.player]
        return ":".join([self.kind.value, *player, *(str(i) for i in self.index)])

    @classmethod
    def parse(cls, text: str) -> TaskKey:
        """The key ``str()`` wrote: the kind first, its ``indices`` last, the player (if not the holder) between."""
        name, _, rest = text.partition(":")
        kind = TaskKind(name)
        parts = rest.split(":") if rest else []
        cut = len(parts) - kind.indices
        if cut < 0:
            raise ValueError(f"the task key {text!r} lacks the {kind.indices} indices of a {name} task")
        index = tuple(int(part) if part.isdigit() else part for part in parts[cut:])
        return cls(kind, ":".join(parts[:cut]) or HOLDER, index)


@dataclass(frozen=True)
class Task:
    key: TaskKey
    params: tuple = ()  # what the handler is given beside the context (e.g. a release task's level and sets)
    stage: int = LEVELS

    @property
    def kind(self) -> TaskKind:
        return self.key.kind

    @property
    def player(self) -> str:
        """Whose generator the task fits: the holder's, or a baseline's label."""
        return self.key.player

    @property
    def name(self) -> str:
        """The key as stored (results, plans, the sinks' sets of done tasks)."""
        return str(self.key)


def plan_json(tasks: Iterable[Task]) -> str:
    return json.dumps([{"key": task.name, "stage": task.stage} for task in tasks])


def plan_from_json(entries: list) -> list[Task]:
    """A stored plan's tasks (without their params, which only the worker needs). Plans stored by earlier versions
    are ``[key, kind]`` or ``[key, kind, stage]`` lists; one without stages gets each kind's ``legacy_stage``."""
    tasks = []
    for entry in entries:
        if isinstance(entry, dict):
            key, stage = TaskKey.parse(entry["key"]), entry["stage"]
        else:
            key = TaskKey.parse(entry[0])
            stage = int(entry[2]) if len(entry) > 2 else key.kind.legacy_stage
        tasks.append(Task(key, (), int(stage)))
    return tasks


@dataclass(frozen=True)
class StoredTask:
    """A finished task of a sweep read back from the store (``engine.TaskResult`` is what it was when it ran): its
    records as ``Record``s (a role this version does not know refused in one sentence), its seconds of work, when it
    was stored and its peak memory."""

    task: str  # its ``TaskKey``, as text (``TaskKey.parse``)
    kind: str  # its ``TaskKind``'s value: a kind earlier versions planned whole reads too (``plan.WHOLE``)
    records: tuple[Record, ...]
    seconds: float
    created: float
    peak_mb: float | None

    @classmethod
    def from_stored(cls, row: StoredResult) -> StoredTask:
        return cls(row.task, row.kind, tuple(Record.from_stored(r) for r in row.records), row.seconds, row.created,
                   row.peak_mb)


def task_results(store: Store, job_id: str) -> list[StoredTask]:
    """Every finished task of a job, oldest first, its records read."""
    return [StoredTask.from_stored(row) for row in store.results(job_id)]


def run_task(task: Task, context, payloads: list[bytes] | None = None) -> tuple[list[Record], bytes | None]:
    """The task's tidy records and optional payload, by its kind's handler."""
    if task.kind.handler is None:
        raise ValueError(f"a {task.kind.value} task is not run by a handler: the worker runs it itself (the holder's "
                         "fit, the first look), or only an earlier version planned it")
    return task.kind.handler(task, context, payloads or [])


def reads_from(task: Task, plan: list[Task]) -> list[Task]:
    """The tasks of ``plan`` whose payloads ``task`` reads, in plan order (never arrival order: the attackers' forests
    depend on the order of their training rows): of the kind it reads and its own player; a game iteration's records
    only its own models; a part of the attackers only the shadows' OUT models and the IN models of its target rows
    (``attacker_rows``)."""
    kind = task.kind.reads
    if kind is None:
        return []
    found = [t for t in plan if t.kind == kind and t.player == task.player]
    if task.kind in (TaskKind.AIA_RECORDS, TaskKind.MIA_EVAL_RECORDS):
        return [t for t in found if t.key.index[0] == task.key.index[0]]
    if task.kind == TaskKind.MIA_ATTACKERS and kind == TaskKind.MIA_SHADOW_MODEL:
        parts = sum(t.kind == task.kind and t.player == task.player for t in plan)
        rows = set(attacker_rows(found, task.key.index[0], parts))
        return [t for t in found if t.key.index[1] == OUT_MODEL or t.key.index[1] in rows]
    return found


def attacker_rows(shadow_models: list[Task], part: int, parts: int) -> list[int]:
    """The target rows whose attackers part ``part`` of ``parts`` trains: every ``parts``-th of the rows the shadows'
    IN models were fitted for, in order (the rows ``handlers.mia_attackers`` trains)."""
    rows = sorted({t.key.index[1] for t in shadow_models if t.key.index[1] != OUT_MODEL})
    return rows[part::parts]


def waits_for(task: Task, plan: list[Task]) -> list[Task]:
    """What ``task`` waits for before it starts: what it reads and, after the first stage, every task of that stage
    (every level's quick numbers and the reference's come before any game or baseline result: levels first)."""
    first = [t for t in plan if t.stage == LEVELS] if task.stage > LEVELS else []
    return first + [t for t in reads_from(task, plan) if t.stage != LEVELS]


def still_needed(tasks: list[Task], done: set[str]) -> list[Task]:
    """The tasks of the plan still to run: those not done, without a task that hands on nothing but a payload
    which no task still to run reads (a resumed job whose game iteration's records are stored runs none of its
    models again)."""
    needed = [task for task in tasks if task.name not in done]
    while True:
        read = {t.name for task in needed for t in reads_from(task, tasks)}
        kept = [task for task in needed if task.kind.gives_records or task.name in read]
        if len(kept) == len(needed):
            return kept
        needed = kept


def stage_payloads(tasks: list[Task], todo: list[Task], payload: Callable[[str], bytes | None]) -> dict:
    """What the tasks ``todo`` read, by key. They stay the stored bytes: each task reads them in its worker
    (``payloads.py``), so the forests are not rebuilt here and sent again with every task."""
    return {t.name: payload(t.name) for task in todo for t in reads_from(task, tasks)}


def task_payloads(task: Task, payloads: dict, plan: list[Task]) -> list[bytes]:
    """Only what this task reads, in plan order (so a baseline task does not carry the holder's shadows)."""
    return [payloads[t.name] for t in reads_from(task, plan)]
