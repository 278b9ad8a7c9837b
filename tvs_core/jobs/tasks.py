"""What a sweep's tasks are: every kind of task with all that is known of it, and the key that names one task.

A kind carries its handler (``handlers.py``), the kind whose payloads it reads from an earlier stage, what its cost
grows with, its cost measured in ``bench/sweep.md`` and the stage a plan stored without stages gave it. A key is the
kind, the player whose generator the task fits (a baseline's label, which may itself hold ':') and the kind's own
indices; it is stored as the text ``kind[:player]:index…``, written by ``str()`` and read by ``TaskKey.parse`` only.
A plan is stored as JSON of its tasks (``plan_json``) and read back by ``plan_from_json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum

from ..evaluation.records import HOLDER, Record
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
    def reads(self) -> TaskKind | None:
        """The kind whose payloads a task of this kind reads (of its own player, from an earlier stage)."""
        return TaskKind(self._reads_name) if self._reads_name else None

    # seconds per task, quick preset, 884 x 27 SUPPORT2-like table (bench/tables.py), 2 workers on a quiet 2-core
    # machine: the median of 3 runs (bench/sweep.md); the release and reference tasks without their details
    # (``*_details``: GDPR criteria, fidelity, closeness); ``baseline_aia`` (not in the default plan) from its
    # first measurement; ``first_look`` per level shown; ``dp_audit`` one fit of dp_vine on the audit's rows
    # (1000 x 21 clinical: 0.36 s, scaled to 27 columns; a competitor's audit fits add their measured fit cost)
    HOLDER = ("holder", None, 0, Growth.DATA, 0.7, 0)  # fitted by the worker itself, before the plan
    FIRST_LOOK = ("first_look", None, 1, Growth.COLUMNS, 0.4, 0)  # likewise, before the holder (first_look.py)
    REFERENCE = ("reference", handlers.reference, 0, Growth.DATA, 2.7, LEVELS)
    RELEASE = ("release", handlers.release, 2, Growth.DATA, 2.0, LEVELS)  # level, chunk of sets
    REFERENCE_DETAILS = ("reference_details", handlers.reference_details, 0, Growth.DATA, 1.0)
    RELEASE_DETAILS = ("release_details", handlers.release_details, 1, Growth.DATA, 0.9)  # level
    BASELINE = ("baseline", handlers.baseline, 0, Growth.DATA, 3.6, ATTACKERS)
    EXTERNAL = ("external", handlers.external, 0, Growth.DATA, None, ATTACKERS)
    DP_AUDIT = ("dp_audit", handlers.dp_audit, 1, Growth.COLUMNS, 0.6, ATTACKERS)  # trial
    AIA = ("aia", handlers.aia, 1, Growth.GAMES, 6.2)  # iteration
    BASELINE_AIA = ("baseline_aia", handlers.aia, 1, Growth.GAMES, 4.6)  # iteration
    MIA_SHADOW = ("mia_shadow", handlers.mia_shadow, 1, Growth.GAMES, 4.9)  # shadow
    MIA_ATTACKERS = ("mia_attackers", handlers.mia_attackers, 1, Growth.GAMES, 1.9, ATTACKERS, "mia_shadow")  # part
    MIA_EVAL = ("mia_eval", handlers.mia_eval, 1, Growth.GAMES, 7.6, EVALUATIONS, "mia_attackers")  # iteration


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


def run_task(task: Task, context, payloads: list[bytes] | None = None) -> tuple[list[Record], bytes | None]:
    """The task's tidy records and optional payload, by its kind's handler."""
    if task.kind.handler is None:
        raise ValueError(f"a {task.kind.value} task is run by the worker itself, not by a handler")
    return task.kind.handler(task, context, payloads or [])


def stage_payloads(tasks: list[Task], todo: list[Task], payload: Callable[[str], bytes | None]) -> dict:
    """What the tasks ``todo`` read from earlier stages, by (kind read, player), in plan order (never arrival order:
    the attackers' forests depend on the order of their training rows). They stay the stored bytes: each task
    reads them in its worker (``payloads.py``), so the forests are not rebuilt here and sent again with every task."""
    wanted = {(task.kind.reads, task.player) for task in todo if task.kind.reads}
    found: dict[tuple[TaskKind, str], list[bytes]] = {}
    for task in tasks:
        if (task.kind, task.player) in wanted:
            found.setdefault((task.kind, task.player), []).append(payload(task.name))
    return found


def task_payloads(task: Task, payloads: dict) -> list[bytes]:
    """Only what this task reads, and only its player's (so a baseline task does not carry the shadows)."""
    return payloads.get((task.kind.reads, task.player), []) if task.kind.reads else []
