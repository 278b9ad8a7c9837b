"""Run the whole evaluation of a fitted model: release metrics per level, the attack games, the
baselines; in parallel over joblib with every task seeded from one master seed.

The sweep engine streams the same tasks into its store; this module runs them in one call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from ..generator import SyntheticGenerator
from ..seeding import task_rng, task_seed
from .attribute import Target, choose_targets
from .attribute_game import aia_iteration
from .context import EvaluationData, GeneratorSpec
from .intervals import bootstrap_interval
from .protocol import ProtocolPreset, capped, get_protocol
from .records import to_frame
from .release import kendall_matrices, reference_records, release_records
from .timing import run_timed

GAMES = ("release", "aia", "mia")
# TRTR replicates are bootstrap draws, not estimates
SPREAD_METRICS = {"auc_trtr", "auc_trtr_logistic", "r2_trtr", "r2_trtr_linear"}


def _numbered_shadow(shadow: int, spec, data, targets, levels, protocol, seed, attacker_rows, feature_set):
    """A shadow's features with its number, so results arriving in any order pool the same way."""
    from .membership import mia_shadow_task

    return shadow, mia_shadow_task(spec, data, targets, levels, protocol, seed, shadow, attacker_rows, feature_set)


def default_levels(t_max: int) -> list[int]:
    """Every 5th level plus 1 and t_max (the paper's advice: a few levels are enough)."""
    return sorted({1, t_max, *range(5, t_max, 5)})


def fit_baseline(spec: GeneratorSpec, data: EvaluationData, master_seed: int) -> SyntheticGenerator:
    return spec.build(task_seed(master_seed, "baseline", spec.label)).fit_encoded(data.train, data.encoder,
                                                                                   data.schema)


def baseline_release(spec: GeneratorSpec, data: EvaluationData, preset: ProtocolPreset, sensitive: list[str],
                     master_seed: int) -> list[dict]:
    model = fit_baseline(spec, data, master_seed)
    return release_records(model, data, None, preset, sensitive, master_seed, spec.label)


@dataclass
class EvaluationResult:
    records: pd.DataFrame
    protocol: ProtocolPreset
    caps: list[dict]
    targets: list[Target]
    levels: list[int]
    timings: dict[str, float] = field(default_factory=dict)
    kendall: dict = field(default_factory=dict)  # (model, level) -> Kendall-tau matrix; ("real", None) too
    names: list[str] = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        return summarise(self.records)


def summarise(records: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Median and interval per (model, level, role, metric, attribute, target kind).

    Intervals are percentile bootstraps of the median over the replicates (synthetic sets or game
    iterations/targets); for TRTR the replicates are bootstrap draws already, so their percentiles
    are the interval."""
    rows = []
    keys = ["model", "level", "role", "metric", "attribute", "target_kind"]
    for key, group in records.groupby(keys, dropna=False, sort=True):
        values = group["value"].to_numpy(dtype=float)
        if key[3] in SPREAD_METRICS:
            tail = (1 - confidence) / 2
            estimate, low, high = (float(np.nanmedian(values)), float(np.nanquantile(values, tail)),
                                   float(np.nanquantile(values, 1 - tail)))
        else:
            estimate, low, high = bootstrap_interval(values, confidence=confidence)
        rows.append({**dict(zip(keys, key, strict=True)), "median": estimate, "ci_low": low, "ci_high": high,
                     "n": int(np.sum(~np.isnan(values)))})
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["level"] = frame["level"].astype("Int64")
    return frame


def evaluate(model: SyntheticGenerator, train: pd.DataFrame, test: pd.DataFrame, *, levels: list[int] | None = None,
             preset: str | ProtocolPreset = "quick", seed: int = 0, n_jobs: int = 2, games=GAMES,
             baselines: list[GeneratorSpec] = (), targets: dict[str, list[int]] | None = None,
             feature_set: str = "correlations", refit_per_level: bool = False) -> EvaluationResult:
    """Evaluate a fitted holder model on its training rows ``train`` and the hold-out ``test``."""
    from .membership import attacker_reference_rows, mia_evaluation_task, train_attackers

    started = time.perf_counter()
    data = EvaluationData.from_model(model, train, test)
    sensitive = list(model.sensitive)
    protocol = get_protocol(preset) if isinstance(preset, str) else preset
    if model.has_levels:
        levels = sorted(set(levels or default_levels(model.fitted_level_)))
    else:
        levels = [None]
    spec = GeneratorSpec.from_model(model)
    spec.refit_per_level = refit_per_level
    chosen = choose_targets(data, sensitive, protocol.outlier_quantiles, protocol.random_targets,
                            task_rng(seed, "targets"), targets)
    protocol, caps = capped(protocol, len(data.train) - len({t.row for t in chosen}))

    first = [delayed(run_timed)(reference_records, data, seed, sensitive)]
    if "release" in games:
        first += [delayed(run_timed)(release_records, model, data, level, protocol, sensitive, seed, spec.label)
                  for level in levels]
        first += [delayed(run_timed)(baseline_release, b, data, protocol, sensitive, seed) for b in baselines]
    if "aia" in games:
        first += [delayed(run_timed)(aia_iteration, spec, data, chosen, levels, protocol, seed, i, sensitive)
                  for i in range(protocol.aia_iterations)]
    attacker_rows = attacker_reference_rows(data, chosen, protocol, seed) if "mia" in games else None
    n_shadow_tasks = protocol.mia_shadows if "mia" in games else 0
    first += [delayed(run_timed)(_numbered_shadow, s, spec, data, chosen, levels, protocol, seed, attacker_rows,
                                 feature_set) for s in range(n_shadow_tasks)]

    records, shadows, timings = [], {}, {"fitting": 0.0, "sampling": 0.0, "metrics": 0.0, "total": 0.0}
    with Parallel(n_jobs=n_jobs, return_as="generator_unordered") as parallel:
        for result, spent in parallel(first):
            for phase, seconds in spent.items():
                timings[phase] += seconds
            if isinstance(result, tuple):
                shadows[result[0]] = result[1]
            else:
                records += result
        if n_shadow_tasks:
            # pooled in shadow order, not arrival order: the forests depend on the row order
            attackers = train_attackers([shadows[s] for s in sorted(shadows)], task_seed(seed, "mia", "attackers"))
            second = [delayed(run_timed)(mia_evaluation_task, spec, data, chosen, levels, protocol, seed, i,
                                         attackers, feature_set) for i in range(protocol.mia_iterations)]
            for result, spent in parallel(second):
                for phase, seconds in spent.items():
                    timings[phase] += seconds
                records += result
    frame = to_frame(records)
    kendall = kendall_matrices(model, data, levels, seed, spec.label) if "release" in games else {}
    timings["wall"] = time.perf_counter() - started
    return EvaluationResult(frame, protocol, caps, chosen, levels, timings, kendall, list(data.names))
