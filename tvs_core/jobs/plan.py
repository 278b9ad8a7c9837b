"""A job broken into tasks, in the order they should start, in stages that say what waits for what.

Levels first: stage 1 is every TVineSynth level's first numbers (release MAB/WCAB, TSTR, pair structure, CI
overlap, mia_auc: every metric that may be an axis of the scatter, on each level's first ``FIRST_SETS`` published
sets) and the reference anchors, so the scatter has every level's own numbers before any level is refined and before
any baseline or game result is stored. Then the games and baselines fill in: every task that needs nothing but the
holder — the refining chunks of every level (``release_tasks``: the next chunk of every level before the one after),
each baseline's fit, each model of the attribute game's iterations and of the membership game's shadows, the DP
audits, uploaded sets, and the levels' and the reference's other metrics (``*_details``: GDPR criteria, fidelity,
closeness) —, then what reads them: a baseline's sets (scored in chunks), an attribute-game iteration's records
from its models, the membership attackers (which need every shadow, split in ``ATTACKER_PARTS`` equal tasks), then
the membership evaluations' models (which need the attackers) and their iterations' records. Keys name a task
uniquely in a job.

No single task may hold a many-core run up (issue 57, bench/cores.md): a game's iteration is one task per model
(its OUT model and one IN model per target row), a baseline's fit is a task of its own whose sets are scored in
chunks, a baseline's fit may use several of the cores it is given (``fit_threads``), and the tasks start in order
of priority (``by_priority``): every level's first numbers, then the tasks that others wait for and the longest
fits, then the rest, the short ones last. The engine starts the first task whose inputs are ready whenever a worker
is free (``tasks.waits_for``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.context import GeneratorSpec
from ..evaluation.metrics.audit import claimed_privacy
from ..evaluation.protocol import QUICK, Game, Protocol
from ..evaluation.records import HOLDER
from ..evaluation.release import DETAILS, DISTANCE_SETS, SCATTER, set_metric_functions
from ..evaluation.sizes import BASELINE_ROWS
from ..model.competitors import fit_cost
from ..model.registry import generator_class
from .config import SweepConfig, baseline_spec
from .context import JobContext
from .tasks import ATTACKERS, EVALUATIONS, GAMES, LEVELS, OUT_MODEL, StoredTask, Task, TaskKey, TaskKind

ATTACKER_PARTS = 2  # membership attackers trained in this many tasks (by target row): the same forests


def _task(kind: TaskKind, *index, params: tuple = (), stage: int = GAMES, player: str = HOLDER) -> Task:
    return Task(TaskKey(kind, player, tuple(index)), params, stage)


# A level's sets scored before any level is refined: the fewest whose numbers have a spread (one set has none), so
# that every level's first point carries an error bar; at 120 columns two sets cost about a third of the quick
# preset's release task (bench/scale.md), the rest refines them. The sets are seeded by index (``release_sets``), so
# the chunks together are the numbers one task would give.
FIRST_SETS = 2


def release_chunks(protocol) -> list[tuple[int, int]]:
    """A level's published sets, in chunks scored one after the other: the first ``FIRST_SETS`` (every level's
    first numbers), up to the quick preset's count (its numbers, under any larger preset), then the rest."""
    n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
    quick = max(QUICK.utility_sets, QUICK.release_sets, DISTANCE_SETS)
    bounds = sorted({0, n_sets} | {b for b in (FIRST_SETS, quick) if b < n_sets})
    return list(zip(bounds, bounds[1:], strict=False))


def release_tasks(levels: list, protocol, stored: Collection[str] = ()) -> tuple[list[Task], list[Task]]:
    """Every level's release chunks as tasks: (the first chunk of every level, stage 1; the refining chunks, stage 2,
    the next chunk of every level before the one after it). ``stored``: the keys a job already holds — a level whose
    stored chunks another version planned (before the first chunks, the quick preset scored its ten sets in one)
    keeps them, and only the sets they leave are planned, in this version's chunks: no set is scored twice, and the
    numbers are those the earlier plan would have given."""
    by_level = [[_task(TaskKind.RELEASE, level, f"{a}-{b}", params=(level, a, b, SCATTER),
                       stage=LEVELS if a == 0 else GAMES)
                 for a, b in _chunks_left(level, release_chunks(protocol), stored)] for level in levels]
    firsts = [task for tasks in by_level for task in tasks if task.stage == LEVELS]
    later = [[task for task in tasks if task.stage != LEVELS] for tasks in by_level]
    refining = [tasks[i] for i in range(max(map(len, later), default=0)) for tasks in later if i < len(tasks)]
    return firsts, refining


def _chunks_left(level, chunks: list[tuple[int, int]], stored: Collection[str]) -> list[tuple[int, int]]:
    """``chunks`` of ``level``; or, where a stored chunk of it is not one of them, the stored chunks and the sets
    they leave, in ``chunks`` cut where a stored chunk ends."""
    held = [(a, b) for lv, a, b in filter(None, map(release_chunk, stored)) if lv == level]
    if all(chunk in chunks for chunk in held):
        return chunks
    cuts = sorted({x for chunk in chunks + held for x in chunk})
    left = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if not any(c <= a and b <= d for c, d in held)]
    return sorted(held + left)


def release_chunk(name: str) -> tuple[int, int, int] | None:
    """(level, first set, stop) of a stored release task's key; None for any other key."""
    if not name.startswith(f"{TaskKind.RELEASE.value}:"):
        return None
    key = TaskKey.parse(name)
    if len(key.index) != 2 or str(key.index[1]).count("-") != 1 or not isinstance(key.index[0], int):
        return None
    first, stop = str(key.index[1]).split("-")
    return key.index[0], int(first), int(stop)


@dataclass(frozen=True)
class PlanInputs:
    """What the plan reads of a job: from its context once the holder is fitted (``of``), or from its settings alone
    before (``planned_tasks``: the estimate shown before Start)."""

    config: SweepConfig  # the games, the baselines' games and the audit's fits
    levels: list
    protocol: Protocol  # after capping, once known
    baselines: list[GeneratorSpec]
    externals: tuple[str, ...]  # the names of the tables made elsewhere
    target_rows: list[int]  # the attack targets' rows; before they are chosen, as many placeholders as targets
    train_shape: tuple[int, int] | None = None  # (rows, columns) of the training table, once split

    @classmethod
    def of(cls, context: JobContext) -> PlanInputs:
        return cls(context.config, list(context.levels), context.protocol, list(context.baselines),
                   tuple(context.externals), sorted({t.row for t in context.targets}), context.data.train.shape)


def plan(context: JobContext | PlanInputs, stored: Collection[str] = (), workers: int = 1) -> list[Task]:
    """Every task of the job, in the order they should start (``by_priority``). Stage 0 (the holder's fit) is done
    by whoever builds the context. ``stored``: the keys of the tasks a resumed job holds (``release_tasks``).
    ``workers``: the workers the job runs on (a long fit's threads, never a number)."""
    context = context if isinstance(context, PlanInputs) else PlanInputs.of(context)
    protocol, games = context.protocol, context.config.games
    baselines = [b.label for b in context.baselines]
    tasks = [_task(TaskKind.HOLDER, stage=0), _task(TaskKind.REFERENCE, params=(SCATTER,), stage=LEVELS)]
    if Game.RELEASE in games:  # every level's first numbers (stage 1), then the same levels refined (stage 2)
        firsts, refining = release_tasks(context.levels, protocol, stored)
        tasks += firsts + refining
    # what no scatter axis shows (GDPR criteria, fidelity, closeness) fills in beside the games
    tasks += [_task(TaskKind.REFERENCE_DETAILS)]
    if Game.RELEASE in games:
        tasks += [_task(TaskKind.RELEASE_DETAILS, lv, params=(lv,)) for lv in context.levels]
        tasks += baseline_tasks(context, [spec.label for spec in _competitors_longest_first(context)] +
                                [name for name in baselines if name not in _competitor_labels(context)], workers)
    players = [HOLDER] + (baselines if Game.MIA in context.config.baseline_games else [])
    rows = context.target_rows
    if Game.AIA in games:
        tasks += [task for player in [HOLDER] + (baselines if Game.AIA in context.config.baseline_games else [])
                  for task in attribute_game_tasks(player, protocol.aia_iterations, rows)]
    if Game.MIA in games:
        tasks += [task for player in players for task in membership_game_tasks(player, protocol, rows)]
    if Game.RELEASE in games:  # tables made elsewhere: release metrics only (the games need a generator to refit)
        tasks += [_task(TaskKind.EXTERNAL, player=name) for name in context.externals]
    # the empirical audit of every baseline that claims an ε: one fit per task (evaluation/metrics/audit/canaries.py)
    trials = context.config.dp_audit_trials
    tasks += [_task(TaskKind.DP_AUDIT, t, params=(t, trials), player=spec.label)
              for spec in audited(context.baselines) if trials for t in range(trials)]
    return by_priority(tasks)


# -- splitting: a game's iteration into its models, a baseline into its fit and its sets (issue 57) ----------------
def _model_indices(rows: list[int]) -> list:
    """A game's models: its OUT model, then one IN model per target row."""
    return [OUT_MODEL, *rows]


def attribute_game_tasks(player: str, iterations: int, rows: list[int]) -> list[Task]:
    """Each iteration of ``player``'s attribute game: one task per model, then the iteration's records from them."""
    tasks = []
    for i in range(iterations):
        tasks += [_task(TaskKind.AIA_MODEL, i, model, params=(i, model), player=player)
                  for model in _model_indices(rows)]
        tasks.append(_task(TaskKind.AIA_RECORDS, i, params=(i,), stage=ATTACKERS, player=player))
    return tasks


def membership_game_tasks(player: str, protocol, rows: list[int]) -> list[Task]:
    """``player``'s membership game: each shadow's models (its OUT model only when shadows are shared), the
    attackers in ``ATTACKER_PARTS`` parts, each evaluation iteration's models and its records."""
    shadow_models = _model_indices(rows)[0 if protocol.mia_shared_shadows else 1:]
    tasks = [_task(TaskKind.MIA_SHADOW_MODEL, s, model, params=(s, model), player=player)
             for s in range(protocol.mia_shadows) for model in shadow_models]
    tasks += [_task(TaskKind.MIA_ATTACKERS, part, params=(part, ATTACKER_PARTS), stage=ATTACKERS, player=player)
              for part in range(ATTACKER_PARTS)]
    for i in range(protocol.mia_iterations):
        tasks += [_task(TaskKind.MIA_EVAL_MODEL, i, model, params=(i, model), stage=EVALUATIONS, player=player)
                  for model in _model_indices(rows)]
        tasks.append(_task(TaskKind.MIA_EVAL_RECORDS, i, params=(i,), stage=EVALUATIONS + 1, player=player))
    return tasks


def baseline_set_chunks(protocol) -> list[tuple[int, int]]:
    """A baseline's sets in chunks: one set a chunk while the distance and fidelity metrics score them (the costly
    sets), then ``DISTANCE_SETS`` sets a chunk. Each set is seeded by its index: the chunks give one task's numbers."""
    n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
    edges = [*range(min(n_sets, DISTANCE_SETS)), *range(DISTANCE_SETS, n_sets, DISTANCE_SETS), n_sets]
    return list(zip(edges, edges[1:], strict=False))


def baseline_tasks(context: PlanInputs, labels: list[str], workers: int) -> list[Task]:
    """Each baseline (in ``labels``' order): its fit, with ``fit_threads`` threads, then its sets in chunks; a baseline
    that cannot hand its fitted model on (a competitor: ``can_be_saved``) in one task, fit and sets."""
    threads = fit_threads(workers)
    names = {spec.label: spec.name for spec in context.baselines}
    tasks = []
    for label in labels:
        if not generator_class(names[label]).can_be_saved:
            tasks.append(_task(TaskKind.BASELINE, player=label))
            continue
        tasks.append(_task(TaskKind.BASELINE_FIT, params=(threads,), player=label))
        tasks += [_task(TaskKind.BASELINE_SETS, f"{a}-{b}", params=(a, b), stage=ATTACKERS, player=label)
                  for a, b in baseline_set_chunks(context.protocol)]
    return tasks


def fit_threads(workers: int) -> int:
    """The threads a baseline's fit may use on ``workers`` workers: on a many-core server the long fits start first,
    while most workers have nothing to do yet (bench/cores.md); on a few cores, one."""
    return max(1, int(workers) // FIT_THREADS_PER)


FIT_THREADS_PER = 8  # a fit gets one thread per this many workers


# -- priorities: which ready task a free worker starts first (issue 57) ---------------------------------------------
def by_priority(tasks: list[Task]) -> list[Task]:
    """The tasks in the order a free worker should start them (the engine starts the first whose inputs are ready):
    the holder's fit and every level's quick numbers; then what a game or a baseline is waiting on to go on (its
    records from finished models, the attackers, the evaluations' models, a baseline's sets), so that a chain of
    tasks never waits behind the bulk; the baselines' fits, the longest first (a competitor's takes minutes); the
    games' models, the membership game's first (its chain, shadows to attackers to evaluations, is the longest);
    the refining chunks, audits and uploaded sets; the short details tasks last, so that the end is not one long
    task on one worker. Stable: within a class, the order given."""
    rank = {TaskKind.MIA_EVAL_RECORDS: 1, TaskKind.MIA_EVAL_MODEL: 1, TaskKind.MIA_ATTACKERS: 1,
            TaskKind.AIA_RECORDS: 1, TaskKind.BASELINE_SETS: 1, TaskKind.BASELINE: 2, TaskKind.BASELINE_FIT: 2,
            TaskKind.MIA_SHADOW_MODEL: 3, TaskKind.AIA_MODEL: 4, TaskKind.REFERENCE_DETAILS: 6,
            TaskKind.RELEASE_DETAILS: 6}
    return sorted(tasks, key=lambda task: 0 if task.stage <= LEVELS else rank.get(task.kind, 5))


def _competitor_labels(context: PlanInputs) -> set[str]:
    return {spec.label for spec in _competitors_longest_first(context)}


def _competitors_longest_first(context: PlanInputs) -> list:
    """The baselines whose fit is measured in minutes (``fit_cost`` knows them), the longest expected fit first: the
    stage's tasks are handed to the workers in plan order, so a long fit started last would leave one worker idle
    while it runs."""
    shape = context.train_shape
    rows, columns = (min(shape[0], BASELINE_ROWS), shape[1]) if shape is not None else (BASELINE_ROWS, 27)
    costs = {spec.label: fit_cost(spec.name, spec.config.get("epochs"), rows, columns) for spec in context.baselines}
    return sorted((spec for spec in context.baselines if costs[spec.label] is not None),
                  key=lambda spec: -costs[spec.label])


def scored_earlier(results: list[StoredTask]) -> set[str]:
    """Keys of details tasks whose metrics a stored result holds already. Before the details tasks existed, one
    release task, and the reference task, scored every metric; a job planned then and resumed now must not score
    a level's details twice (twice the records would narrow their intervals)."""
    functions = set(set_metric_functions(DETAILS))
    details = {m.name for m in CATALOGUE.values() if m.compute in functions}
    keys = set()
    for result in results:
        if result.kind in (TaskKind.REFERENCE, TaskKind.RELEASE) and any(r.metric in details for r in result.records):
            done = TaskKey.parse(result.task)
            keys.add(str(TaskKey(TaskKind.REFERENCE_DETAILS) if done.kind == TaskKind.REFERENCE
                         else TaskKey(TaskKind.RELEASE_DETAILS, index=done.index[:1])))
    return keys


# a task earlier versions planned whole -> the tasks that score its records now (their models follow: still_needed)
WHOLE = {TaskKind.BASELINE: (TaskKind.BASELINE_FIT, TaskKind.BASELINE_SETS), TaskKind.AIA: (TaskKind.AIA_RECORDS,),
         TaskKind.BASELINE_AIA: (TaskKind.AIA_RECORDS,), TaskKind.MIA_EVAL: (TaskKind.MIA_EVAL_RECORDS,)}


def scored_whole(results: list[StoredTask], tasks: list[Task]) -> set[str]:
    """Keys of ``tasks`` whose records a stored result of a whole task (a baseline's fit and every set, a game
    iteration's every model, as earlier versions planned them) holds already: a job planned then and resumed now
    must not score them twice (twice the records would narrow their intervals)."""
    stored = {(kind, key.player, key.index) for key, kind in
              ((TaskKey.parse(r.task), TaskKind(r.kind)) for r in results) if kind in WHOLE}
    return {t.name for t in tasks for kind, now in WHOLE.items()
            if t.kind in now and (kind, t.player, t.key.index if kind != TaskKind.BASELINE else ()) in stored}


def audited(baselines: list) -> list:
    """The baselines whose settings claim an ε: what ``--audit-dp`` audits."""
    return [spec for spec in baselines if claimed_privacy(spec) is not None]


def claimed_epsilons(config: SweepConfig) -> dict[str, float]:
    """Each baseline of a sweep that claims an ε, by name, with that ε (what the report says was claimed)."""
    claims = {str(name): claimed_privacy(baseline_spec(name, config)) for name in config.baselines}
    return {name: claim[0] for name, claim in claims.items() if claim is not None}


def planned_tasks(config: SweepConfig, levels: list[int]) -> list[Task]:
    """The tasks a sweep will run, known before its holder is fitted (for the estimate shown before Start)."""
    protocol = config.protocol()
    # the targets are not chosen yet: as many placeholders as there will be targets at most (a row chosen twice
    # counts once)
    targets = len(config.sensitive) * (len(protocol.outlier_quantiles) + protocol.random_targets)
    return plan(PlanInputs(config, list(levels), protocol, [baseline_spec(name, config) for name in config.baselines],
                           tuple(config.externals or {}), list(range(targets))))
