"""A sweep's summary as others script against it (``summary.json``), and the level choice on it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluation.catalogue import CATALOGUE, DEFAULT_PRIVACY_AXIS
from ..evaluation.records import HOLDER, REFERENCE_MODELS
from ..evaluation.summary import summarise
from .axes import Axis
from .selection import Selection, level_table, select


def _finite(value) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _interval(rows: pd.DataFrame) -> dict | None:
    """Several summary rows (targets, target kinds) pooled by their medians, as the axes do."""
    if rows.empty:
        return None
    return {"median": float(rows["median"].median()), "ci_low": float(rows["ci_low"].median()),
            "ci_high": float(rows["ci_high"].median())}


def choose(summary: pd.DataFrame, sensitive: list[str], alpha: float = 0.5, method: str = "anchored",
           privacy: str | Axis = DEFAULT_PRIVACY_AXIS, seed: int = 0) -> Selection | None:
    """PU_t over the holder's levels; None until there is something to score."""
    if summary.empty or not (summary["model"] == HOLDER).any():
        return None
    levels, anchors = level_table(summary, sensitive, privacy)
    if levels.empty:
        return None
    return select(levels, alpha, method, privacy, anchors, utility=Axis.utility(summary["metric"]), seed=seed)


def _metrics_of(at: pd.DataFrame, sensitive: list[str]) -> dict[str, dict]:
    """Every catalogue metric of one model and level: ``name``, or ``name:COLUMN`` per column."""
    metrics = {}
    present = set(at["metric"])
    for entry in CATALOGUE.values():
        if entry.name not in present:
            continue
        rows = at[at["metric"] == entry.name]
        if entry.per_column is None:
            metrics[entry.name] = _interval(rows)
            continue
        columns = sensitive if entry.per_column == "sensitive" else sorted(rows["attribute"].dropna().unique())
        for column in columns:
            value = _interval(rows[rows["attribute"] == column])
            if value:
                metrics[f"{entry.name}:{column}"] = value
    for entry in CATALOGUE.values():  # the scatter's value: a metric's fallback while it is missing
        if entry.fallback is None or entry.name in present:
            continue
        for key in [k for k in metrics if k.split(":")[0] == entry.fallback]:
            metrics[entry.name + key[len(entry.fallback):]] = metrics[key]
    return metrics


def summary_json(records: pd.DataFrame, sensitive: list[str], alpha: float = 0.5, method: str = "anchored",
                 privacy: str = DEFAULT_PRIVACY_AXIS) -> dict:
    """{levels: [{model, level, metrics: {name: {median, ci_low, ci_high}}}], best_level, ...}."""
    summary = summarise(records)
    utility = Axis.utility(summary["metric"])
    trtr = _interval(summary[summary["metric"] == utility.metric.ideal.metric])
    selection = choose(summary, sensitive, alpha, method, privacy)
    pu = {} if selection is None else selection.table.set_index("level")
    entries = []
    models = [m for m in summary["model"].unique() if m not in REFERENCE_MODELS]
    for model in sorted(models, key=lambda m: (m != HOLDER, m)):
        at_model = summary[summary["model"] == model]
        for level in sorted(at_model["level"].unique(), key=lambda v: -1 if pd.isna(v) else v):
            at = at_model[at_model["level"].isna()] if pd.isna(level) else at_model[at_model["level"] == level]
            metrics = ({utility.metric.ideal.metric: trtr} if trtr else {}) | _metrics_of(at, sensitive)
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
            "normalisation": method, "privacy_metric": str(privacy), "levels": entries}
