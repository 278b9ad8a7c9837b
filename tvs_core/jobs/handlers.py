"""One handler per task kind (``tasks.TaskKind`` names which): given the task, the job's context and the payloads
its kind reads from an earlier stage, its tidy records and an optional payload (bytes) that later stages read.
Handlers are pure and seeded from the master seed and their own key, so the in-memory runner, the worker and any
backend compute the same numbers."""

from __future__ import annotations

from typing import Protocol

from ..evaluation import membership
from ..evaluation.attribute_game import aia_iteration
from ..evaluation.context import EvaluationData, GeneratorSpec
from ..evaluation.dp_audit import trial_records
from ..evaluation.records import HOLDER, RAW, Record
from ..evaluation.release import DETAILS, DISTANCE_SETS, published_records, reference_records, release_records
from ..evaluation.sizes import BASELINE_ROWS
from ..evaluation.timing import timed
from ..model.generator import SyntheticGenerator
from ..seeding import subsample, task_rng, task_seed
from .context import JobContext
from .payloads import attackers_from_payload, attackers_payload, shadows_from_payload, shadows_payload


class Task(Protocol):
    """What a handler reads of its task (``tasks.Task``, which names the handler: it is not imported here)."""

    params: tuple
    player: str

Result = tuple[list[Record], bytes | None]


def fit_baseline(spec: GeneratorSpec, data: EvaluationData, master_seed: int) -> SyntheticGenerator:
    """Fitted on at most ``BASELINE_ROWS`` training rows (seeded; every row below the cap)."""
    rows = subsample(data.train, BASELINE_ROWS, task_rng(master_seed, "baseline rows", spec.label))
    with timed("fitting"):  # a competitor's cost is its fit: measured apart from its metrics
        return spec.build(task_seed(master_seed, "baseline", spec.label)).fit_encoded(rows, data.encoder,
                                                                                       data.schema)


def _player(task: Task, context: JobContext) -> tuple[GeneratorSpec, list]:
    """The recipe a game task refits and its levels: the holder's, or a baseline's (no levels)."""
    if task.player == HOLDER:
        return context.spec, context.levels
    return context.baseline(task.player), [None]


def reference(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    part = task.params[0] if task.params else None  # None: every metric (plans before the details tasks)
    return reference_records(context.data, context.seed, context.sensitive, part=part), None


def release(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    level, first, stop, *part = task.params
    return release_records(context.holder, context.data, level, context.protocol, context.sensitive, context.seed,
                           context.spec.label, chunk=(first, stop), part=part[0] if part else None), None


def reference_details(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    return reference_records(context.data, context.seed, context.sensitive, part=DETAILS), None


def release_details(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """The metrics of a level no scatter axis shows, on the sets its release task scored (drawn again)."""
    (level,) = task.params
    return release_records(context.holder, context.data, level, context.protocol, context.sensitive, context.seed,
                           context.spec.label, chunk=(0, DISTANCE_SETS), part=DETAILS), None


def baseline(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    spec = context.baseline(task.player)
    model = fit_baseline(spec, context.data, context.seed)
    return release_records(model, context.data, None, context.protocol, context.sensitive, context.seed,
                           spec.label), None


def external(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """A table made elsewhere is one published set, scored by every release metric."""
    rows = context.externals[task.player]
    return published_records(rows[None], context.data, None, context.protocol, context.sensitive, context.seed,
                             task.player), None


def dp_audit(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """One fit of a DP baseline's empirical audit, with or without each canary."""
    trial, trials = task.params
    return trial_records(context.baseline(task.player), context.data, context.seed, trial, trials), None


def aia(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    spec, levels = _player(task, context)
    records = aia_iteration(spec, context.data, context.targets, levels, context.protocol, context.seed,
                            task.params[0], context.sensitive)
    if task.player != HOLDER:  # same subsets and targets as the holder's; the raw reference comes with its task
        records = [r for r in records if r.model != RAW]
    return records, None


def mia_shadow(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    spec, levels = _player(task, context)
    result = membership.mia_shadow_task(spec, context.data, context.targets, levels, context.protocol,
                                        context.seed, task.params[0], context.attacker_rows, context.feature_set)
    return [], shadows_payload(result)


def mia_attackers(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """Part ``part`` of ``parts`` of the attackers: those of every ``parts``-th target row. A forest's seed depends
    on its key only, so the parts together are the forests one task would train."""
    part, parts = task.params if task.params else (0, 1)
    rows = sorted({t.row for t in context.targets})[part::parts]
    shadows = [{key: value for key, value in shadows_from_payload(result).items() if key[0] in rows}
               for result in payloads]
    attackers = membership.train_attackers(shadows, task_seed(context.seed, "mia", "attackers"))
    return [], attackers_payload(attackers)


def mia_eval(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    spec, levels = _player(task, context)
    attackers: dict = {}
    for part in payloads:  # every part merged, in plan order
        attackers.update(attackers_from_payload(part))
    return membership.mia_evaluation_task(spec, context.data, context.targets, levels, context.protocol,
                                          context.seed, task.params[0], attackers, context.feature_set), None
