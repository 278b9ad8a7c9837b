"""Every number carries its spread: median and interval per (model, level, role, metric, attribute, target kind)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .catalogue import CATALOGUE, GROUPS, label
from .intervals import bootstrap_interval

KEYS = ["model", "level", "role", "metric", "attribute", "target_kind"]
SUMMARY_COLUMNS = [*KEYS, "median", "ci_low", "ci_high", "n"]


def summarise(records: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Median and interval per key. Intervals are percentile bootstraps of the median over the
    replicates (synthetic sets or game iterations/targets); for a metric whose replicates are
    bootstrap draws already (catalogue ``spread='percentile'``, e.g. TRTR) their percentiles are the
    interval. ``n`` is the number of replicates behind each interval."""
    rows = []
    for key, group in records.groupby(KEYS, dropna=False, sort=True):
        values = group["value"].to_numpy(dtype=float)
        entry = CATALOGUE.get(key[3])
        if entry is not None and entry.spread == "percentile":
            tail = (1 - confidence) / 2
            estimate, low, high = (float(np.nanmedian(values)), float(np.nanquantile(values, tail)),
                                   float(np.nanquantile(values, 1 - tail)))
        else:
            estimate, low, high = bootstrap_interval(values, confidence=confidence)
        rows.append({**dict(zip(KEYS, key, strict=True)), "median": estimate, "ci_low": low, "ci_high": high,
                     "n": int(np.sum(~np.isnan(values)))})
    frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    if not frame.empty:
        frame["level"] = frame["level"].astype("Int64")
    return frame


# fewer replicates than this: a bootstrap interval of their median is little more than their range,
# so it is shown as a spread of a few values, not as a 95 % confidence interval
SMALL_N = 10


def readable(summary: pd.DataFrame) -> pd.DataFrame:
    """Summary rows as a person reads them: grouped (utility, attribute risk, membership risk, fidelity)
    and ordered as the catalogue declares them, human names, units, direction, and n beside each interval."""
    groups = {g: i for i, g in enumerate(GROUPS)}
    order = {name: i for i, name in enumerate(CATALOGUE)}
    rows = []
    for row in summary.itertuples(index=False):
        entry = CATALOGUE.get(row.metric)
        interval = "—" if pd.isna(row.ci_low) else f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
        if row.n < SMALL_N and not pd.isna(row.ci_low):
            interval += f" (spread of {row.n} values)"
        rows.append({
            "group": entry.group if entry else "other", "metric": label(row.metric, short=True),
            "column": row.attribute if isinstance(row.attribute, str) else "",
            "targets": f"{row.target_kind} targets" if isinstance(row.target_kind, str) else "",
            "median": None if pd.isna(row.median) else round(float(row.median), 4), "95 % interval": interval,
            "n": int(row.n), "unit": entry.unit if entry else "", "better": entry.better if entry else "",
            "_order": (groups.get(entry.group, len(GROUPS)) if entry else len(GROUPS), order.get(row.metric, 999),
                       str(row.attribute), str(row.target_kind))})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
