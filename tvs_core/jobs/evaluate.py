"""``evaluate()``: the whole evaluation of a fitted model in one call, in memory.

It builds the same context and plan as a stored sweep and runs them through the same engine; only
the sink differs (results stay in this process)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pandas as pd

from ..evaluation.attribute import Target
from ..evaluation.context import GeneratorSpec
from ..evaluation.protocol import Protocol, ProtocolName
from ..evaluation.records import to_frame
from ..evaluation.release import kendall_matrices
from ..evaluation.summary import Summary, summarise
from ..model.generator import SyntheticGenerator
from .context import GAMES, JobContext, context_for_model
from .engine import MemorySink, TaskResult, execute
from .plan import plan
from .tasks import TaskKey, TaskKind


@dataclass
class EvaluationResult:
    records: pd.DataFrame
    protocol: Protocol
    caps: list[dict]
    targets: list[Target]
    levels: list[int]
    timings: dict[str, float] = field(default_factory=dict)
    kendall: dict = field(default_factory=dict)  # (model, level) -> Kendall-tau matrix; ("real", None) too
    names: list[str] = field(default_factory=list)

    def summary(self) -> Summary:
        return summarise(self.records)


def run_in_memory(context: JobContext, n_jobs: int = 2, backend: str = "loky") -> tuple[pd.DataFrame, dict]:
    """Every task of the context's plan; the records in canonical order and seconds per phase."""
    tasks = plan(context, workers=n_jobs)
    sink = MemorySink()
    # the holder was fitted by the caller
    sink.add(TaskResult(str(TaskKey(TaskKind.HOLDER)), TaskKind.HOLDER.value, [], None, {}))
    execute(context, tasks, sink, n_jobs=n_jobs, backend=backend)
    timings = {"fitting": 0.0, "sampling": 0.0, "metrics": 0.0, "total": 0.0}
    for result in sink.results.values():
        for phase, seconds in result.seconds.items():
            timings[phase] += seconds
    return to_frame(sink.records()), timings


def evaluate(model: SyntheticGenerator, train: pd.DataFrame, test: pd.DataFrame, *, levels: list[int] | None = None,
             preset: ProtocolName | Protocol = ProtocolName.QUICK, seed: int = 0, n_jobs: int = 2, games=GAMES,
             baselines: list[GeneratorSpec] = (), baseline_games=(), targets: dict[str, list[int]] | None = None,
             feature_set: str = "correlations", refit_per_level: bool = False,
             analysis: list[str] | None = None, externals: dict[str, pd.DataFrame] | None = None,
             reuse_families: bool = False, dp_audit_trials: int = 0) -> EvaluationResult:
    """Evaluate a fitted holder model on its training rows ``train`` and the hold-out ``test``;
    ``analysis``: the covariates of the regression of Y that ci_overlap compares (None: all);
    ``externals``: synthetic tables made elsewhere (name -> table), scored by the release metrics;
    ``reuse_families``: the games refit the holder's pair-copula families' parameters only (a deviation);
    ``dp_audit_trials``: fits of the empirical DP audit of each baseline that claims an ε (0: none)."""
    started = time.perf_counter()
    context = context_for_model(model, train, test, levels=levels, preset=preset, seed=seed, games=games,
                                baselines=baselines, baseline_games=baseline_games, targets=targets,
                                feature_set=feature_set, refit_per_level=refit_per_level, analysis=analysis,
                                externals=externals, reuse_families=reuse_families,
                                dp_audit_trials=dp_audit_trials)
    records, timings = run_in_memory(context, n_jobs)
    kendall = (kendall_matrices(model, context.data, context.levels, seed, context.spec.label)
               if "release" in games else {})
    timings["wall"] = time.perf_counter() - started
    return EvaluationResult(records, context.protocol, context.caps, context.targets, context.levels, timings,
                            kendall, list(context.data.names))
