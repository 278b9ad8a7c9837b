"""A job broken into tasks, in the order they should start.

Cheap, informative results for every level come first (the holder's fit, then per level: release
MAB/WCAB, utility on a few sets, MCMIA, DCR, fidelity), then the baselines, then the attack games
that refine them. Stage 1 tasks are independent; the membership game's attackers (stage 2) need
every shadow, its evaluations (stage 3) need the attackers. Keys name a task uniquely in a job.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace

from ..evaluation.dp_audit import claimed_privacy
from ..evaluation.protocol import QUICK, get_protocol
from ..evaluation.records import HOLDER
from ..evaluation.release import DISTANCE_SETS
from .config import SweepConfig, baseline_spec
from .context import JobContext


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
    tasks = [Task("holder", "holder", (), 0), Task("reference", "reference")]
    if "release" in games:
        chunks = release_chunks(protocol)
        release = [[Task(f"release:{lv}:{a}-{b}", "release", (lv, a, b)) for lv in context.levels] for a, b in chunks]
        tasks += release[0]
        tasks += [Task(f"baseline:{name}", "baseline", (), player=name) for name in baselines]
        # tables made elsewhere: release metrics only (the games need a generator to refit)
        tasks += [Task(f"external:{name}", "external", (), player=name) for name in context.externals]
        tasks += [task for later in release[1:] for task in later]
    # the empirical audit of every baseline that claims an ε: one fit per task (evaluation/dp_audit.py)
    trials = getattr(context, "dp_audit_trials", 0)
    tasks += [Task(f"dp_audit:{spec.label}:{t}", "dp_audit", (t, trials), player=spec.label)
              for spec in audited(context.baselines) if trials for t in range(trials)]
    if "aia" in games:
        tasks += [Task(f"aia:{i}", "aia", (i,)) for i in range(protocol.aia_iterations)]
        if "aia" in context.baseline_games:
            tasks += [Task(f"baseline_aia:{name}:{i}", "baseline_aia", (i,), player=name)
                      for i in range(protocol.aia_iterations) for name in baselines]
    if "mia" in games:
        players = [HOLDER] + (baselines if "mia" in context.baseline_games else [])
        tag = {p: "" if p == HOLDER else f":{p}" for p in players}
        for p in players:
            tasks += [Task(f"mia_shadow{tag[p]}:{s}", "mia_shadow", (s,), player=p)
                      for s in range(protocol.mia_shadows)]
        tasks += [Task(f"mia_attackers{tag[p]}", "mia_attackers", (), 2, player=p) for p in players]
        tasks += [Task(f"mia_eval{tag[p]}:{i}", "mia_eval", (i,), 3, player=p)
                  for p in players for i in range(protocol.mia_iterations)]
    return tasks


def audited(baselines: list) -> list:
    """The baselines whose settings claim an ε: what ``--audit-dp`` audits."""
    return [spec for spec in baselines if claimed_privacy(spec) is not None]


def claimed_epsilons(config: SweepConfig) -> dict[str, float]:
    """Each baseline of a sweep that claims an ε, by name, with that ε (what the report says was claimed)."""
    claims = {name: claimed_privacy(baseline_spec(name, config)) for name in config.baselines}
    return {name: claim[0] for name, claim in claims.items() if claim is not None}


def planned_tasks(config: SweepConfig, levels: list[int]) -> list[Task]:
    """The tasks a sweep will run, known before its holder is fitted (for the estimate shown before Start)."""
    protocol = get_protocol(config.preset)
    if config.protocol_overrides:
        protocol = replace(protocol, **config.protocol_overrides)
    inputs = SimpleNamespace(levels=list(levels), protocol=protocol, games=tuple(config.games),
                             baselines=[baseline_spec(name, config) for name in config.baselines],
                             baseline_games=tuple(config.baseline_games),
                             externals=dict.fromkeys(config.externals or {}),
                             dp_audit_trials=config.dp_audit_trials)
    return plan(inputs)
