"""A sweep's stored records as tables, the summary others script against, and the level choice."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .evaluation.records import to_frame
from .evaluation.runner import summarise
from .evaluation.utility import utility_scale
from .selection import Selection, level_table, select
from .store import Store
from .sweep import HOLDER, SweepConfig

SUMMARY_METRICS = ("auc_tstr", "auc_tstr_logistic", "r2_tstr", "r2_tstr_linear", "pg", "mcmia",
                   "dcr_closer_to_train", "exact_copies", "alpha_precision", "beta_recall", "authenticity",
                   "spearman_difference")
PER_COLUMN = ("mab", "wcab", "release_mab", "release_wcab", "mse_in", "mse_out", "advantage")


def _finite(value) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def job_records(store: Store, job_id: str) -> pd.DataFrame:
    return to_frame([r for result in store.results(job_id) for r in result["records"]])


def _interval(rows: pd.DataFrame) -> dict | None:
    if rows.empty:
        return None
    return {"median": float(rows["median"].median()), "ci_low": float(rows["ci_low"].median()),
            "ci_high": float(rows["ci_high"].median())}


def choose(summary: pd.DataFrame, config: SweepConfig, alpha: float = 0.5, method: str = "anchored",
           privacy: str = "mab_worst", seed: int = 0) -> Selection | None:
    if summary.empty or not (summary["model"] == HOLDER).any():
        return None
    levels, anchors = level_table(summary, config.sensitive, privacy)
    if levels.empty:
        return None
    return select(levels, alpha, method, privacy, anchors, chance=anchors["chance"], seed=seed)


def summary_json(records: pd.DataFrame, config: SweepConfig, alpha: float = 0.5, method: str = "anchored",
                 privacy: str = "mab_worst") -> dict:
    """{levels: [{model, level, metrics: {name: {median, ci_low, ci_high}}}], best_level, ...}."""
    summary = summarise(records) if len(records) else pd.DataFrame(
        columns=["model", "level", "role", "metric", "attribute", "target_kind", "median", "ci_low", "ci_high"])
    trtr_name = f"{utility_scale(summary['metric'])}_trtr"
    trtr = _interval(summary[summary["metric"] == trtr_name])
    selection = choose(summary, config, alpha, method, privacy)
    pu = {} if selection is None else selection.table.set_index("level")
    entries = []
    models = [m for m in summary["model"].unique() if m not in ("real", "raw")]
    for model in sorted(models, key=lambda m: (m != HOLDER, m)):
        at_model = summary[summary["model"] == model]
        for level in sorted(at_model["level"].unique(), key=lambda v: -1 if pd.isna(v) else v):
            at = at_model[at_model["level"].isna()] if pd.isna(level) else at_model[at_model["level"] == level]
            metrics = {}
            if trtr:
                metrics[trtr_name] = trtr
            for name in SUMMARY_METRICS:
                value = _interval(at[at["metric"] == name])
                if value:
                    metrics[name] = value
            for name in PER_COLUMN:
                for column in config.sensitive:
                    rows = at[(at["metric"] == name) & (at["attribute"] == column)]
                    value = _interval(rows)
                    if value:
                        metrics[f"{name}:{column}"] = value
            for column in config.sensitive:  # the scatter's MAB: the game's when it has run
                if f"mab:{column}" not in metrics and f"release_mab:{column}" in metrics:
                    metrics[f"mab:{column}"] = metrics[f"release_mab:{column}"]
                if f"wcab:{column}" not in metrics and f"release_wcab:{column}" in metrics:
                    metrics[f"wcab:{column}"] = metrics[f"release_wcab:{column}"]
            entry = {"model": model, "level": None if pd.isna(level) else int(level), "metrics": metrics}
            if model == HOLDER and len(pu) and not pd.isna(level) and int(level) in pu.index:
                row = pu.loc[int(level)]
                entry["pu"] = None if np.isnan(row["PU"]) else float(row["PU"])
                entry["metrics"]["pu"] = {"median": entry["pu"], "ci_low": _finite(row["PU_low"]),
                                          "ci_high": _finite(row["PU_high"])}
                entry["wins"] = float(row["wins"])
                entry["pareto"] = bool(row["pareto"])
            entries.append(entry)
    return {"best_level": None if selection is None else selection.best_level, "alpha": alpha,
            "normalisation": method, "privacy_metric": privacy, "levels": entries}
