"""A job broken into tasks, in the order they should start, in stages that run one after the other.

Levels first: stage 1 is every TVineSynth level's quick numbers (release MAB/WCAB, TSTR, pair
structure, CI overlap, mia_auc: every metric that may be an axis of the scatter, on the first chunk of sets) and
the reference anchors, so the scatter is complete for the levels before any baseline or game result is stored.
Then the games and baselines fill in: stage 2 every task that needs nothing but the holder — the refining chunks,
the attribute game, the membership game's shadows, the baselines (and uploaded sets, DP audits), then the
levels' and the reference's other metrics (``*_details``: GDPR criteria, fidelity, closeness), the longest kinds
first so that the stage ends on short tasks and neither worker waits long for the other; stage 3 the membership
attackers (which need every shadow, split in ``ATTACKER_PARTS`` equal tasks); stage 4 the membership evaluations
(which need the attackers). Keys name a task uniquely in a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.dp_audit import claimed_privacy
from ..evaluation.protocol import QUICK
from ..evaluation.records import HOLDER
from ..evaluation.release import DETAILS, DISTANCE_SETS, SCATTER, set_metric_paths
from .config import SweepConfig, baseline_spec
from .context import JobContext

LEVELS, GAMES, ATTACKERS, EVALUATIONS = 1, 2, 3, 4  # stage 0: the holder's fit (and the first look)
ATTACKER_PARTS = 2  # membership attackers trained in this many tasks (by target row): the same forests


@dataclass(frozen=True)
class Task:
    key: str
    kind: str
    params: tuple = ()
    stage: int = 1
    player: str = HOLDER  # whose generator the task fits: the holder's, or a baseline's label


def release_chunks(protocol) -> list[tuple[int, int]]:
    """First chunk = the quick preset's sizes (fast first numbers); the rest refines them."""
    n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
    first = min(n_sets, max(QUICK.utility_sets, QUICK.release_sets, DISTANCE_SETS))
    return [(0, first)] + ([(first, n_sets)] if n_sets > first else [])


def plan(context: JobContext) -> list[Task]:
    """Every task of the job. Stage 0 (the holder's fit) is done by whoever builds the context."""
    protocol, games = context.protocol, context.games
    baselines = [b.label for b in context.baselines]
    tasks = [Task("holder", "holder", (), 0), Task("reference", "reference", (SCATTER,))]
    if "release" in games:
        chunks = release_chunks(protocol)
        release = [[Task(f"release:{lv}:{a}-{b}", "release", (lv, a, b, SCATTER), stage) for lv in context.levels]
                   for (a, b), stage in zip(chunks, [LEVELS] + [GAMES] * len(chunks), strict=False)]
        tasks += [task for chunk in release for task in chunk]
    # what no scatter axis shows (GDPR criteria, fidelity, closeness) fills in beside the games
    details = [Task("reference_details", "reference_details", (), GAMES)]
    if "release" in games:
        details += [Task(f"release_details:{lv}", "release_details", (lv,), GAMES) for lv in context.levels]
    if "aia" in games:  # the longest tasks of the stage first (bench/sweep.md)
        tasks += [Task(f"aia:{i}", "aia", (i,), GAMES) for i in range(protocol.aia_iterations)]
    players = [HOLDER] + (baselines if "mia" in context.baseline_games else [])
    tag = {p: "" if p == HOLDER else f":{p}" for p in players}
    if "mia" in games:
        tasks += [Task(f"mia_shadow{tag[p]}:{s}", "mia_shadow", (s,), GAMES, player=p)
                  for p in players for s in range(protocol.mia_shadows)]
    if "aia" in games and "aia" in context.baseline_games:
        tasks += [Task(f"baseline_aia:{name}:{i}", "baseline_aia", (i,), GAMES, player=name)
                  for i in range(protocol.aia_iterations) for name in baselines]
    if "release" in games:
        tasks += [Task(f"baseline:{name}", "baseline", (), GAMES, player=name) for name in baselines]
        # tables made elsewhere: release metrics only (the games need a generator to refit)
        tasks += [Task(f"external:{name}", "external", (), GAMES, player=name) for name in context.externals]
    # the empirical audit of every baseline that claims an ε: one fit per task (evaluation/dp_audit.py)
    trials = getattr(context, "dp_audit_trials", 0)
    tasks += [Task(f"dp_audit:{spec.label}:{t}", "dp_audit", (t, trials), GAMES, player=spec.label)
              for spec in audited(context.baselines) if trials for t in range(trials)]
    tasks += details  # short tasks: the stage ends on them
    if "mia" in games:
        tasks += [Task(f"mia_attackers{tag[p]}:{part}", "mia_attackers", (part, ATTACKER_PARTS), ATTACKERS, player=p)
                  for p in players for part in range(ATTACKER_PARTS)]
        tasks += [Task(f"mia_eval{tag[p]}:{i}", "mia_eval", (i,), EVALUATIONS, player=p)
                  for p in players for i in range(protocol.mia_iterations)]
    return tasks


def scored_earlier(results: list[dict]) -> set[str]:
    """Keys of details tasks whose metrics a stored result holds already. Before the details tasks existed, one
    release task, and the reference task, scored every metric; a job planned then and resumed now must not score
    a level's details twice (twice the records would narrow their intervals)."""
    paths = set(set_metric_paths(DETAILS))
    details = {m.name for m in CATALOGUE.values() if m.per_set in paths}
    keys = set()
    for result in results:
        if result["kind"] in ("reference", "release") and any(r["metric"] in details for r in result["records"]):
            keys.add("reference_details" if result["kind"] == "reference"
                     else f"release_details:{result['task'].split(':')[1]}")
    return keys


def audited(baselines: list) -> list:
    """The baselines whose settings claim an ε: what ``--audit-dp`` audits."""
    return [spec for spec in baselines if claimed_privacy(spec) is not None]


def claimed_epsilons(config: SweepConfig) -> dict[str, float]:
    """Each baseline of a sweep that claims an ε, by name, with that ε (what the report says was claimed)."""
    claims = {name: claimed_privacy(baseline_spec(name, config)) for name in config.baselines}
    return {name: claim[0] for name, claim in claims.items() if claim is not None}


def planned_tasks(config: SweepConfig, levels: list[int]) -> list[Task]:
    """The tasks a sweep will run, known before its holder is fitted (for the estimate shown before Start)."""
    inputs = SimpleNamespace(levels=list(levels), protocol=config.protocol(), games=tuple(config.games),
                             baselines=[baseline_spec(name, config) for name in config.baselines],
                             baseline_games=tuple(config.baseline_games),
                             externals=dict.fromkeys(config.externals or {}),
                             dp_audit_trials=config.dp_audit_trials)
    return plan(inputs)
