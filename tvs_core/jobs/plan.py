"""A job broken into tasks, in the order they should start, in stages that run one after the other.

Levels first: stage 1 is every TVineSynth level's first numbers (release MAB/WCAB, TSTR, pair structure, CI
overlap, mia_auc: every metric that may be an axis of the scatter, on each level's first ``FIRST_SETS`` published
sets) and the reference anchors, so the scatter has every level's own numbers before any level is refined and before
any baseline or game result is stored. Then the games and baselines fill in: stage 2 every task that needs nothing
but the holder — the refining chunks of every level (``release_tasks``), the competitors' fits (minutes each, the
longest first), the attribute game, the membership game's shadows, the other baselines (and uploaded sets, DP
audits), then the levels' and the reference's other metrics (``*_details``: GDPR criteria, fidelity, closeness), the
longest kinds first so that the stage ends on short tasks and neither worker waits long for the other; stage 3 the
membership attackers (which need every shadow, split in ``ATTACKER_PARTS`` equal tasks); stage 4 the membership
evaluations (which need the attackers). Keys name a task uniquely in a job.
"""

from __future__ import annotations

from collections.abc import Collection
from types import SimpleNamespace

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.dp_audit import claimed_privacy
from ..evaluation.protocol import QUICK
from ..evaluation.records import HOLDER
from ..evaluation.release import DETAILS, DISTANCE_SETS, SCATTER, set_metric_functions
from ..evaluation.sizes import BASELINE_ROWS
from ..model.competitors import fit_cost
from .config import SweepConfig, baseline_spec
from .context import JobContext
from .tasks import ATTACKERS, EVALUATIONS, GAMES, LEVELS, Task, TaskKey, TaskKind

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


def plan(context: JobContext, stored: Collection[str] = ()) -> list[Task]:
    """Every task of the job. Stage 0 (the holder's fit) is done by whoever builds the context. ``stored``: the keys
    of the tasks a resumed job holds (``release_tasks``)."""
    protocol, games = context.protocol, context.games
    baselines = [b.label for b in context.baselines]
    tasks = [_task(TaskKind.HOLDER, stage=0), _task(TaskKind.REFERENCE, params=(SCATTER,), stage=LEVELS)]
    if "release" in games:  # every level's first numbers (stage 1), then the same levels refined (stage 2)
        firsts, refining = release_tasks(context.levels, protocol, stored)
        tasks += firsts + refining
    # what no scatter axis shows (GDPR criteria, fidelity, closeness) fills in beside the games
    details = [_task(TaskKind.REFERENCE_DETAILS)]
    if "release" in games:
        details += [_task(TaskKind.RELEASE_DETAILS, lv, params=(lv,)) for lv in context.levels]
    if "release" in games:  # a competitor's fit takes minutes: the longest first, so both workers stay busy
        tasks += [_task(TaskKind.BASELINE, player=spec.label) for spec in _competitors_longest_first(context)]
    if "aia" in games:  # then the longest tasks of the stage (bench/sweep.md)
        tasks += [_task(TaskKind.AIA, i, params=(i,)) for i in range(protocol.aia_iterations)]
    players = [HOLDER] + (baselines if "mia" in context.baseline_games else [])
    if "mia" in games:
        tasks += [_task(TaskKind.MIA_SHADOW, s, params=(s,), player=p)
                  for p in players for s in range(protocol.mia_shadows)]
    if "aia" in games and "aia" in context.baseline_games:
        tasks += [_task(TaskKind.BASELINE_AIA, i, params=(i,), player=name)
                  for i in range(protocol.aia_iterations) for name in baselines]
    if "release" in games:
        competitors = {spec.label for spec in _competitors_longest_first(context)}
        tasks += [_task(TaskKind.BASELINE, player=name) for name in baselines if name not in competitors]
        # tables made elsewhere: release metrics only (the games need a generator to refit)
        tasks += [_task(TaskKind.EXTERNAL, player=name) for name in context.externals]
    # the empirical audit of every baseline that claims an ε: one fit per task (evaluation/dp_audit.py)
    trials = getattr(context, "dp_audit_trials", 0)
    tasks += [_task(TaskKind.DP_AUDIT, t, params=(t, trials), player=spec.label)
              for spec in audited(context.baselines) if trials for t in range(trials)]
    tasks += details  # short tasks: the stage ends on them
    if "mia" in games:
        tasks += [_task(TaskKind.MIA_ATTACKERS, part, params=(part, ATTACKER_PARTS), stage=ATTACKERS, player=p)
                  for p in players for part in range(ATTACKER_PARTS)]
        tasks += [_task(TaskKind.MIA_EVAL, i, params=(i,), stage=EVALUATIONS, player=p)
                  for p in players for i in range(protocol.mia_iterations)]
    return tasks


def _competitors_longest_first(context) -> list:
    """The baselines whose fit is measured in minutes (``fit_cost`` knows them), the longest expected fit first: the
    stage's tasks are handed to the workers in plan order, so a long fit started last would leave one worker idle
    while it runs."""
    train = getattr(getattr(context, "data", None), "train", None)
    rows, columns = (min(len(train), BASELINE_ROWS), train.shape[1]) if train is not None else (BASELINE_ROWS, 27)
    costs = {spec.label: fit_cost(spec.name, spec.config.get("epochs"), rows, columns) for spec in context.baselines}
    return sorted((spec for spec in context.baselines if costs[spec.label] is not None),
                  key=lambda spec: -costs[spec.label])


def scored_earlier(results: list[dict]) -> set[str]:
    """Keys of details tasks whose metrics a stored result holds already. Before the details tasks existed, one
    release task, and the reference task, scored every metric; a job planned then and resumed now must not score
    a level's details twice (twice the records would narrow their intervals)."""
    functions = set(set_metric_functions(DETAILS))
    details = {m.name for m in CATALOGUE.values() if m.compute in functions}
    keys = set()
    for result in results:
        if result["kind"] in (TaskKind.REFERENCE, TaskKind.RELEASE) and any(r["metric"] in details
                                                                             for r in result["records"]):
            done = TaskKey.parse(result["task"])
            keys.add(str(TaskKey(TaskKind.REFERENCE_DETAILS) if done.kind == TaskKind.REFERENCE
                         else TaskKey(TaskKind.RELEASE_DETAILS, index=done.index[:1])))
    return keys


def audited(baselines: list) -> list:
    """The baselines whose settings claim an ε: what ``--audit-dp`` audits."""
    return [spec for spec in baselines if claimed_privacy(spec) is not None]


def claimed_epsilons(config: SweepConfig) -> dict[str, float]:
    """Each baseline of a sweep that claims an ε, by name, with that ε (what the report says was claimed)."""
    claims = {str(name): claimed_privacy(baseline_spec(name, config)) for name in config.baselines}
    return {name: claim[0] for name, claim in claims.items() if claim is not None}


def planned_tasks(config: SweepConfig, levels: list[int]) -> list[Task]:
    """The tasks a sweep will run, known before its holder is fitted (for the estimate shown before Start)."""
    inputs = SimpleNamespace(levels=list(levels), protocol=config.protocol(), games=tuple(config.games),
                             baselines=[baseline_spec(name, config) for name in config.baselines],
                             baseline_games=tuple(config.baseline_games),
                             externals=dict.fromkeys(config.externals or {}),
                             dp_audit_trials=config.dp_audit_trials)
    return plan(inputs)
