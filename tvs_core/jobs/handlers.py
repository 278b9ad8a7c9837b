"""One handler per task kind (``tasks.TaskKind`` names which): given the task, the job's context and the payloads
its kind reads from an earlier stage, its tidy records and an optional payload (bytes) that later stages read.
Handlers are pure and seeded from the master seed and their own key, so the in-memory runner, the worker and any
backend compute the same numbers. A game's iteration (or shadow) is one task per model — its OUT model and the IN
model of each target row — whose statistics its iteration's task turns into records; a baseline is its fit and its
sets, scored in chunks."""

from __future__ import annotations

from typing import Protocol

from ..evaluation.context import EvaluationData, GeneratorSpec
from ..evaluation.metrics import attribute as attribute_game
from ..evaluation.metrics.audit import trial_records
from ..evaluation.metrics.membership import game as membership
from ..evaluation.records import HOLDER, Record
from ..evaluation.release import DETAILS, DISTANCE_SETS, published_records, reference_records, release_records
from ..evaluation.sizes import BASELINE_ROWS
from ..evaluation.timing import timed
from ..model.generator import SyntheticGenerator
from ..seeding import subsample, task_rng, task_seed
from .context import JobContext
from .payloads import (
    attackers_from_payload,
    attackers_payload,
    model_from_payload,
    model_payload,
    rates_from_payload,
    rates_payload,
    shadow_model_from_payload,
    shadow_model_payload,
    statistics_from_payload,
    statistics_payload,
)


class Task(Protocol):
    """What a handler reads of its task (``tasks.Task``, which names the handler: it is not imported here)."""

    params: tuple
    player: str

Result = tuple[list[Record], bytes | None]
OUT_MODEL = "out"  # a game model task's index naming its OUT model (the others name their target row)


def fit_baseline(spec: GeneratorSpec, data: EvaluationData, master_seed: int, threads: int = 1
                 ) -> SyntheticGenerator:
    """Fitted on at most ``BASELINE_ROWS`` training rows (seeded; every row below the cap); ``threads``: for a
    generator whose fit is the same model at any number of threads (``SyntheticGenerator.threads_keep_the_fit``),
    the threads its fit may use; it samples with one."""
    rows = subsample(data.train, BASELINE_ROWS, task_rng(master_seed, "baseline rows", spec.label))
    model = spec.build(task_seed(master_seed, "baseline", spec.label))
    if model.threads_keep_the_fit:
        model.threads = max(1, int(threads))
    with timed("fitting"):  # a competitor's cost is its fit: measured apart from its metrics
        model.fit_encoded(rows, data.encoder, data.schema)
    model.threads = 1
    return model


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
    """A baseline that cannot be saved (a competitor): fitted, and every set of it scored, in this one task."""
    spec = context.baseline(task.player)
    model = fit_baseline(spec, context.data, context.seed)
    return release_records(model, context.data, None, context.protocol, context.sensitive, context.seed,
                           spec.label), None


def baseline_fit(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """A baseline's fit, handed on as its saved model (its sets are scored by ``baseline_sets`` tasks)."""
    threads = task.params[0] if task.params else 1
    return [], model_payload(fit_baseline(context.baseline(task.player), context.data, context.seed,
                                          threads).to_json())


def baseline_sets(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """Every release metric of a chunk of a baseline's sets (each set seeded by its index: the chunks together are
    the sets of one task)."""
    (fitted,) = payloads
    first, stop = task.params
    model = SyntheticGenerator.from_json(model_from_payload(fitted))
    return release_records(model, context.data, None, context.protocol, context.sensitive, context.seed,
                           context.baseline(task.player).label, chunk=(first, stop)), None


def external(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """A table made elsewhere is one published set, scored by every release metric."""
    rows = context.externals[task.player]
    return published_records(rows[None], context.data, None, context.protocol, context.sensitive, context.seed,
                             task.player), None


def dp_audit(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """One fit of a DP baseline's empirical audit, with or without each canary."""
    trial, trials = task.params
    return trial_records(context.baseline(task.player), context.data, context.seed, trial, trials), None


def _model(task: Task) -> int | None:
    """The model a game's model task fits: None for the OUT model, else the target row of an IN model."""
    model = task.params[1]
    return None if model == OUT_MODEL else int(model)


def aia_model(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """One model of an attribute-game iteration, fitted, sampled at every level and attacked."""
    spec, levels = _player(task, context)
    game = (spec, context.data, context.targets, levels, context.protocol, context.seed, task.params[0],
            context.sensitive)
    row = _model(task)
    statistics = (attribute_game.aia_out_statistics(*game) if row is None
                  else attribute_game.aia_in_statistics(*game, row))
    return [], statistics_payload(row, statistics, list(context.sensitive))


def aia_records(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """An attribute-game iteration's records, from its models' statistics. A baseline's iteration has the same
    subsets and targets as the holder's: the raw reference comes with the holder's."""
    spec, levels = _player(task, context)
    out, in_by_row = None, {}
    for payload in payloads:
        row, statistics = statistics_from_payload(payload, list(context.sensitive))
        if row is None:
            out = statistics
        else:
            in_by_row[row] = statistics
    return attribute_game.aia_records(spec.label, context.data, context.targets, levels, context.protocol, context.seed,
                       task.params[0], context.sensitive, out, in_by_row, raw=task.player == HOLDER), None


def mia_shadow_model(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """One model of a shadow: its sets' features at every level."""
    spec, levels = _player(task, context)
    shadow, row = task.params[0], _model(task)
    features = membership.shadow_model_features(spec, context.data, levels, context.protocol, context.seed, shadow,
                                                context.attacker_rows, row, context.feature_set)
    return [], shadow_model_payload(shadow, row, features)


def mia_attackers(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """Part ``part`` of ``parts`` of the attackers: those of every ``parts``-th target row, trained on every shadow's
    labelled features (in shadow order). A forest's seed depends on its key only, so the parts together are the
    forests one task would train."""
    _, levels = _player(task, context)
    part, parts = task.params if task.params else (0, 1)
    rows = sorted({t.row for t in context.targets})[part::parts]
    outs, ins = {}, {}
    for payload in payloads:
        shadow, row, features = shadow_model_from_payload(payload)
        if row is None:
            outs[shadow] = features
        else:
            ins.setdefault(shadow, {})[row] = features
    shadows = [membership.labelled_shadow(outs.get(shadow), {row: ins[shadow][row] for row in rows}, levels)
               for shadow in sorted(ins)]
    attackers = membership.train_attackers(shadows, task_seed(context.seed, "mia", "attackers"))
    return [], attackers_payload(attackers)


def mia_eval_model(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """One model of a membership evaluation iteration: the share of its sets each attacker calls members."""
    spec, levels = _player(task, context)
    attackers: dict = {}
    for part in payloads:  # every part merged, in plan order
        attackers.update(attackers_from_payload(part))
    game = (spec, context.data, context.targets, levels, context.protocol, context.seed, task.params[0], attackers)
    row = _model(task)
    rates = (membership.eval_out_rates(*game, context.feature_set) if row is None else
             {(row, level): tp for level, tp in membership.eval_in_rates(*game, row, context.feature_set).items()})
    return [], rates_payload(row, rates)


def mia_eval_records(task: Task, context: JobContext, payloads: list[bytes]) -> Result:
    """A membership evaluation iteration's records, from its models' rates."""
    spec, levels = _player(task, context)
    out, in_rates = {}, {}
    for payload in payloads:
        row, rates = rates_from_payload(payload)
        if row is None:
            out = rates
        else:
            in_rates[row] = {level: rate for (_, level), rate in rates.items()}
    return membership.eval_records(spec.label, context.targets, levels, task.params[0], out, in_rates), None
