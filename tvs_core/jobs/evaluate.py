"""``evaluate()``: the whole evaluation of a fitted model in one call, in memory.

It builds the same context and plan as a stored sweep and runs them through the same engine; only
the sink differs (results stay in this process)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pandas as pd

from ..evaluation.context import GeneratorSpec
from ..evaluation.metrics.attribute import Target
from ..evaluation.protocol import Game, Protocol
from ..evaluation.records import to_frame
from ..evaluation.release import kendall_matrices
from ..evaluation.summary import Summary, summarise
from ..model.generator import SyntheticGenerator
from .backends import Backend
from .config import SweepConfig
from .context import JobContext
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


def run_in_memory(context: JobContext, n_jobs: int = 2, backend: Backend = Backend.LOKY
                  ) -> tuple[pd.DataFrame, dict]:
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


def evaluate(model: SyntheticGenerator, train: pd.DataFrame, test: pd.DataFrame, config: SweepConfig | None = None,
             *, n_jobs: int = 2, baselines: list[GeneratorSpec] | None = None,
             targets: dict[str, list[int]] | None = None, refit_per_level: bool = False,
             externals: dict[str, pd.DataFrame] | None = None, **settings) -> EvaluationResult:
    """Evaluate a fitted holder model on its training rows ``train`` and the hold-out ``test`` with the sweep
    settings ``config`` — or, without one, the settings given by name (``SweepConfig.for_model``: ``levels``,
    ``preset``, ``seed``, ``games``…), no baseline by default. The context is built as a stored sweep's
    (``JobContext.from_config``). ``baselines``: recipes instead of the config's baseline names; ``targets``: the
    attack targets (column -> rows); ``externals``: synthetic tables made elsewhere (name -> table), scored by the
    release metrics; ``refit_per_level``: the games refit the holder at each level (the slow reference)."""
    started = time.perf_counter()
    if config is None:
        config = SweepConfig.for_model(model, **{"baselines": [], **settings})
    elif settings:
        raise TypeError(f"evaluate() takes its settings in config or by name, not both: {', '.join(settings)}")
    context = JobContext.from_config(config, model, train, test, baselines=baselines, externals=externals,
                                     targets=targets, refit_per_level=refit_per_level)
    records, timings = run_in_memory(context, n_jobs)
    kendall = (kendall_matrices(model, context.data, context.levels, config.seed, context.spec.label)
               if Game.RELEASE in config.games else {})
    timings["wall"] = time.perf_counter() - started
    return EvaluationResult(records, context.protocol, context.caps, context.targets, context.levels, timings,
                            kendall, list(context.data.names))
