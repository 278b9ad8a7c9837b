"""Every number carries its spread: median and interval per (model, level, role, metric, attribute, target kind)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .catalogue import CATALOGUE
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
