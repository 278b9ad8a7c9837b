"""Every number carries its spread: median and interval per (model, level, role, metric, attribute, target kind).

A summary is a ``Summary``, read by what a user asks of it — the holder's rows, a level, a metric — through its
selectors, never by comparing model or metric names in its frame: the meaning of "the rows of level 3" or "a
baseline's rows" is said once, here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
import pandas as pd

from .catalogue import GROUPS, described, label
from .intervals import Interval, bootstrap_interval, interval_words
from .metrics.base import Direction
from .records import HOLDER, RecordRole

KEYS = ["model", "level", "role", "metric", "attribute", "target_kind"]
SUMMARY_COLUMNS = [*KEYS, "median", "ci_low", "ci_high", "n"]


class Summary:
    """A sweep's summary rows (``frame``: ``SUMMARY_COLUMNS``). Selectors return a ``Summary`` of the rows they
    keep, so they chain (``summary.holder().level(3).metric("mab")``); nothing here changes a row."""

    __slots__ = ("frame",)

    def __init__(self, frame: pd.DataFrame | None = None):
        if frame is None or (frame.empty and not set(SUMMARY_COLUMNS) <= set(frame.columns)):
            frame = pd.DataFrame(columns=SUMMARY_COLUMNS)
        missing = [c for c in SUMMARY_COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"a summary needs the columns {', '.join(missing)}")
        self.frame = frame if list(frame.columns) == SUMMARY_COLUMNS else frame[SUMMARY_COLUMNS]

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        return f"Summary({len(self)} rows)\n{self.frame!r}"

    @property
    def empty(self) -> bool:
        return self.frame.empty

    def _where(self, mask) -> Summary:
        return Summary(self.frame[mask])

    # -- selectors ----------------------------------------------------------------------------------------------
    def model(self, name: str) -> Summary:
        return self._where(self.frame["model"] == name)

    def holder(self) -> Summary:
        """The data holder's rows: its levels, without the baselines and the real-data references."""
        return self.model(HOLDER)

    def level(self, level: int | None) -> Summary:
        """The rows of one level; ``None``: the rows without a level (a baseline's, a reference's)."""
        column = self.frame["level"]
        return self._where(column.isna() if level is None else column == level)

    def point(self, level: int | None, model: str = HOLDER) -> Summary:
        """The rows of one point of the scatter: a level of the holder, or a baseline (``level`` None)."""
        return self.model(model).level(level)

    def metric(self, names: str | Iterable[str]) -> Summary:
        """The rows of one metric, or of any of several."""
        column = self.frame["metric"]
        return self._where(column == names if isinstance(names, str) else column.isin(list(names)))

    def role(self, name: RecordRole) -> Summary:
        return self._where(self.frame["role"] == name)

    def attribute(self, column: str | None) -> Summary:
        """The rows of one column of a per-column metric; ``None``: the rows without a column."""
        found = self.frame["attribute"]
        return self._where(found.isna() if column is None else found == column)

    # -- what the rows hold -------------------------------------------------------------------------------------
    def models(self) -> list[str]:
        """The models present, in the order of the rows (``summarise``: sorted)."""
        return list(self.frame["model"].unique())

    def metrics(self) -> list[str]:
        """The metric names present (what ``Axis.utility`` and the utility mix read)."""
        return list(self.frame["metric"].unique())

    def levels(self) -> list[int]:
        """The levels of these rows, sorted; rows without a level are left out."""
        return sorted(int(v) for v in self.frame["level"].dropna().unique())

    def has_levels(self) -> bool:
        """Whether any level of the holder has reported (before that there is nothing to choose from)."""
        return not self.holder().empty

    def interval(self) -> Interval | None:
        """The rows read as one value: several rows (targets, target kinds, columns) pooled by their medians, as
        the axes do; None when there are no rows."""
        if self.frame.empty:
            return None
        n = self.frame["n"].min()
        return Interval(float(self.frame["median"].median()), float(self.frame["ci_low"].median()),
                        float(self.frame["ci_high"].median()), None if pd.isna(n) else int(n))


def summarise(records: pd.DataFrame, confidence: float = 0.95) -> Summary:
    """Median and interval per key. Intervals are percentile bootstraps of the median over the
    replicates (synthetic sets or game iterations/targets); for a metric whose replicates are
    bootstrap draws already (catalogue ``spread='percentile'``, e.g. TRTR) their percentiles are the
    interval. ``n`` is the number of replicates behind each interval."""
    rows, entries = [], described()
    for key, group in records.groupby(KEYS, dropna=False, sort=True):
        values = group["value"].to_numpy(dtype=float)
        entry = entries.get(key[3])
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
    return Summary(frame)




def readable(summary: Summary, raw: bool = False) -> pd.DataFrame:
    """Summary rows as a person reads them: grouped (utility, attribute risk, membership risk, fidelity)
    and ordered as the catalogue declares them, human names, units, direction, and n beside each interval;
    ``raw`` adds the record name and the interval's ends (``name``, ``low``, ``high``) for a table that lays the
    numbers out itself (the report's table of every level)."""
    groups = {g: i for i, g in enumerate(GROUPS)}
    entries = described()
    order = {name: i for i, name in enumerate(entries)}
    rows = []
    for row in summary.frame.itertuples(index=False):
        entry = entries.get(row.metric)
        interval = interval_words(row.ci_low, row.ci_high, int(row.n), digits=3)
        rows.append({
            "group": entry.group if entry else "other", "metric": label(row.metric, short=True),
            "column": (entry.column_name(row.attribute) if entry else row.attribute)
            if isinstance(row.attribute, str) else "",
            "targets": f"{row.target_kind} targets" if isinstance(row.target_kind, str) else "",
            "median": None if pd.isna(row.median) else round(float(row.median), 4), "interval": interval,
            "n": int(row.n), "unit": entry.unit if entry else "", "better": entry.better if entry else "",
            **({"name": row.metric, "low": row.ci_low, "high": row.ci_high} if raw else {}),
            "_order": (groups.get(entry.group, len(GROUPS)) if entry else len(GROUPS), order.get(row.metric, 999),
                       str(row.attribute), str(row.target_kind))})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)


# a per-column metric of more columns than this (the distance of every column's margin, 120 of them on a registry
# extract; an attack on three sensitive columns) is one row in a table of metrics — its columns' median and the worst
# of them —, its columns listed apart (behind an expander, in the report's appendix)
MANY_COLUMNS = 2


class ColumnSpread(NamedTuple):
    """A per-column metric at one point in three numbers: how many columns, their median, the worst and where."""

    count: int
    median: float
    worst: float
    worst_column: str


def column_spread(values: dict[str, float], lower_is_better: bool) -> ColumnSpread | None:
    """The columns' values (their medians) summarised: the worst is the largest where lower is better, else the
    smallest. A column without a value is left out (NaN would win max()); None when no column has one."""
    found = {column: float(v) for column, v in values.items() if v is not None and not pd.isna(v)}
    if not found:
        return None
    worst = (max if lower_is_better else min)(found, key=found.get)
    return ColumnSpread(len(values), float(np.median(list(found.values()))), found[worst], worst)


def summarise_columns(frame: pd.DataFrame, limit: int = MANY_COLUMNS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A ``readable`` table of one point with each per-column metric of more than ``limit`` columns as one row —
    the median of its columns and the worst, named — in place of its columns' rows, which are returned apart (for an
    expander or an appendix), in the same order. The Choose page's table and the report's read it."""
    if frame.empty:
        return frame, frame
    key = [frame["metric"], frame["targets"]]
    size = frame["column"].ne("").groupby(key, sort=False).transform("sum")
    many = frame["column"].ne("") & (size > limit)
    rows, done = [], set()
    for i, row in frame.iterrows():
        if not many[i]:
            rows.append(row.to_dict())
            continue
        if (row["metric"], row["targets"]) in done:
            continue
        done.add((row["metric"], row["targets"]))
        part = frame[many & (frame["metric"] == row["metric"]) & (frame["targets"] == row["targets"])]
        spread = column_spread(dict(zip(part["column"], part["median"], strict=True)), row["better"] == Direction.LOWER)
        rows.append(row.to_dict() | {
            "column": f"all {len(part)} columns: their median", "median": None if spread is None else spread.median,
            "interval": "" if spread is None else f"worst: {spread.worst:.3f} ({spread.worst_column})",
            "n": int(part["n"].max()), **({"low": np.nan, "high": np.nan} if "low" in frame else {})})
    return pd.DataFrame(rows, columns=frame.columns), frame[many].reset_index(drop=True)
