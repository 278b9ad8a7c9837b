"""Choosing the truncation level (paper, Appendix D): PU_t = alpha * P_t + (1 - alpha) * U_t,
U_t being the user's utility mix (``choice/mix.py``: the weighted mean of the scaled parts).

P_t (privacy) and U_t (utility) are scaled to [0, 1], higher is better, in one of two documented ways:

* ``anchored`` — against the two anchors the metric catalogue declares (``worst`` scores 0, ``ideal``
  scores 1), so a level's score does not depend on which other levels were evaluated:
  U_TSTR = (AUC - chance) / (AUC_TRTR - chance) (chance 0.5; a continuous response is scored by R², chance 0);
  pair structure and CI overlap run from independent columns (0) to identical (1). Privacy runs from the
  attack on the real rows (0) to the same attack on the real rows shuffled column by column (1, "nothing
  learnt", measured in the same run): for MAB, P = (MAB_real - MAB) / (MAB_real - MAB_shuffled); ``paper``'s
  P = 1 - MAB / MAB_real is the same with the floor at 0 (sweeps stored before the floor was measured).
  PG runs from 0 to 1 (1: the attacker learns nothing); MC-MIA from 1 to 0.5. Values beyond the anchors
  are kept in ``P_unclipped`` / ``U_<part>`` and named in ``beyond``. A privacy score below 0 — a level more
  revealing than the real rows themselves — is NOT clipped: P keeps it, so PU_t, the recommendation and the Pareto
  front rank such a level below every level on the scale, the further out the lower (clipped to 0 it would tie with
  the real data and hide how far out it is); screens say "more revealing than the real data" instead of a score
  (``shown_privacy``). P above 1 (below the nothing-learnt floor: noise) is read as 1, and the utility parts are
  clipped to [0, 1].
* ``paper`` — anchored, with privacy's ideal end at the catalogue's constant instead of the measured
  floor: P = 1 - MAB / MAB_real, kept reachable (Appendix D asks only that P_t and U_t be normalised to [0, 1],
  higher better, without a formula: this scale is our reading of it for the MAB).
* ``minmax`` — relative to the candidates: the best level scores 1, the worst 0 (all equal: 1).

Ties in PU are broken towards more privacy, then the lower level. Levels missing a metric are
listed but not ranked. ``wins`` says how often each level is best when every metric is redrawn
within its interval (normal with the interval's width), showing whether the choice is fragile.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd

from ..evaluation.catalogue import Metric, PerColumn, Reference
from ..evaluation.intervals import Interval
from ..evaluation.records import HOLDER
from ..evaluation.summary import Summary
from ..text import choice_named, decimal
from .axes import DEFAULT_PRIVACY, Axis
from .mix import DEFAULT_MIX, UtilityMix
from .standing import Reading, Standing, overlaps, point


@choice_named("normalisation")
class Normalisation(StrEnum):
    """How a level's utility and privacy are put on one scale before PU_t weighs them."""

    ANCHORED = "anchored"  # from the attack on the real rows (0) to the same attack on shuffled columns (1)
    # anchored, but privacy's "nothing learnt" end is the catalogue's constant (MAB 0, AUC 0.5) instead of the floor
    # measured on shuffled columns, i.e. P = 1 - MAB / MAB_real: our reading of the paper's Appendix D, which gives no
    # formula
    PAPER = "paper"
    MINMAX = "minmax"  # over the levels

    @property
    def label(self) -> str:
        """Its name on the Choose page."""
        return {"anchored": "Anchored (real data ↔ nothing learnt)",
                "paper": "Our reading of the paper (real data ↔ 0)", "minmax": "Min-max over levels"}[self.value]

    @property
    def phrase(self) -> str:
        """Its name within a sentence: the why-text of the manifest and ledger, the report's signed page."""
        return {"anchored": "anchored normalisation",
                "paper": "normalisation by our reading of the paper (real data ↔ 0)",
                "minmax": "min-max normalisation over the levels"}[self.value]


METHODS = tuple(Normalisation)


class Column(StrEnum):
    """The kinds of column of the levels table, each the prefix of its columns' names (``level_column`` writes
    them, ``level_column_names`` reads them)."""

    UTILITY = "u"  # a utility metric's median (``u`` alone: the one utility of a single-axis choice)
    PRIVACY = "p"  # the privacy median of a sensitive column, or of the metric
    SCALED = "U"  # a utility part scaled by its anchors (``U`` alone: the weighted mean)
    PU = "PU"


LOW, HIGH = "low", "high"  # the ends of a value's interval
REDRAWS = 2000  # every metric redrawn within its interval this many times: PU's range and each level's wins


def level_column(kind: Column, name: str | None = None, end: str | None = None) -> str:
    """A column of the levels table: ``level_column(Column.PRIVACY, "cost", HIGH)`` is ``p_cost_high``."""
    return "_".join(part for part in (kind, name, end) if part)


def level_column_names(labels, kind: Column) -> list[str]:
    """The ``name`` of every column among ``labels`` (a table's columns, a row's index) written
    ``level_column(kind, name)``, in order; an interval's end and the other kinds are left out."""
    prefix, ends = f"{kind}_", (f"_{LOW}", f"_{HIGH}")
    return [label[len(prefix):] for label in map(str, labels) if label.startswith(prefix) and not label.endswith(ends)]


@dataclass
class Selection:
    # level, u_*, p_*, U (and U_<part>), P, PU (+ intervals; ``level_column``), pareto, wins, missing, beyond
    table: pd.DataFrame
    best_level: int | None
    alpha: float
    normalisation: Normalisation
    privacy: Axis  # what P measures
    utility: UtilityMix | Axis  # what U measures: a mix of parts, or one utility metric (a ``level_table``'s u)
    notes: list[str] = field(default_factory=list)  # what the user should know about this choice
    anchors: dict = field(default_factory=dict)  # the anchors the scales used (as ``select`` received them)
    # levels scored but not ranked: their numbers are provisional (a running or cancelled sweep has not stored all
    # the tasks that write them), so none of them is recommended and none wins a resample
    provisional: list[int] = field(default_factory=list)


def _scale(values: np.ndarray, metric: Metric, normalisation: Normalisation, anchor: tuple | None,
           candidates: np.ndarray | None = None) -> np.ndarray:
    """Values of ``metric`` on the [0, 1] scale, higher = better, NOT clipped (anchored values beyond
    the anchors stay visible: below 0 is worse than the real data, above 1 beyond the floor); NaN where
    the anchors are unknown. Min-max runs along the last axis, so a stack of draws (draws x levels) is
    scaled row by row in one call."""
    ref = values if candidates is None else candidates
    if normalisation == Normalisation.MINMAX:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # a row without any value: nothing to scale
            low, high = np.nanmin(ref, axis=-1, keepdims=True), np.nanmax(ref, axis=-1, keepdims=True)
            flat = ~np.isfinite(low) | (high - low < 1e-12)
            scaled = (values - low) / (high - low)
        scaled = 1 - scaled if metric.lower_is_better else scaled
        return np.where(flat, np.where(np.isnan(values), np.nan, 1.0), scaled)
    worst, ideal = anchor if anchor is not None else (None, None)
    sign = -1.0 if metric.lower_is_better else 1.0
    if worst is None or ideal is None or not sign * (ideal - worst) > 0:
        return np.full_like(values, np.nan)
    return (values - worst) / (ideal - worst)


def _best(p: np.ndarray, pu: np.ndarray, levels: np.ndarray) -> int | None:
    """The level with the highest PU; among ties the more private, then the lower level."""
    best = _best_of_each(p[None, :], pu[None, :], levels)[0]
    return None if best < 0 else int(levels[best])


def _best_of_each(p: np.ndarray, pu: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``_best`` for every row of (draws x levels) arrays at once: the winning column per row, -1 where a row
    has no PU. The bootstrap of the wins took 2 000 Python calls per choice before."""
    ok = ~np.isnan(pu)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        top = np.nanmax(pu, axis=1, keepdims=True)
    tied = ok & (pu >= top - 1e-12)
    privacy = np.where(np.isnan(p), -np.inf, p)
    most_private = np.max(np.where(tied, privacy, -np.inf), axis=1, keepdims=True)
    final = tied & (privacy == most_private)
    order = np.argsort(levels, kind="stable")  # the lowest level first among what is left
    first = np.argmax(final[:, order], axis=1)
    return np.where(final.any(axis=1), order[first], -1)


def pareto_front(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """True where no other level is at least as private and as useful and strictly better in one."""
    front = np.zeros(len(p), dtype=bool)
    for i in range(len(p)):
        if np.isnan(p[i]) or np.isnan(u[i]):
            continue
        dominated = (p >= p[i]) & (u >= u[i]) & ((p > p[i]) | (u > u[i]))
        front[i] = not dominated.any()
    return front


@dataclass(frozen=True)
class _Part:
    name: str | None  # its columns in the levels table: u_<name> (a part of a mix), or u (None: the one utility)
    metric: Metric
    weight: float
    anchor: tuple | None

    @property
    def column(self) -> str:
        return level_column(Column.UTILITY, self.name)


def _utility_parts(levels: pd.DataFrame, utility: Axis | UtilityMix | None, anchors: dict
                   ) -> tuple[list[_Part], UtilityMix | Axis, list[str]]:
    """The utility parts present in ``levels`` (a mix's parts without any value are dropped, and said so);
    no utility given: the default mix for a ``level_table`` (``u_<metric>`` columns), else the one ``u`` column."""
    if utility is None and level_column(Column.UTILITY) not in levels:
        utility = DEFAULT_MIX
    if isinstance(utility, UtilityMix):
        parts, notes = [], []
        for axis, weight in utility.axes(level_column_names(levels.columns, Column.UTILITY)):
            name = level_column(Column.UTILITY, axis.metric.name)
            if name not in levels or levels[name].isna().all():
                notes.append(f"{axis.metric.short} is not in this sweep's results (it predates the metric or has "
                             "not reported yet); the utility mix uses the other parts.")
                continue
            anchor = anchors.get("utility", {}).get(axis.metric.name, _constants(axis.metric))
            parts.append(_Part(axis.metric.name, axis.metric, weight, anchor))
        total = sum(p.weight for p in parts)
        return [_Part(p.name, p.metric, p.weight / total, p.anchor) for p in parts], utility, notes
    axis = utility or Axis.utility([])
    part = _Part(None, axis.metric, 1.0, anchors.get("utility", _constants(axis.metric)))
    return [part], axis, []


def select(levels: pd.DataFrame, alpha: float = 0.5, normalisation: Normalisation = Normalisation.ANCHORED,
           privacy: Axis = DEFAULT_PRIVACY, anchors: dict | None = None,
           utility: Axis | UtilityMix | None = None, draws: int = REDRAWS, seed: int = 0,
           candidates: set[int] | None = None) -> Selection:
    """Score candidate levels. ``levels`` has one row per level with the utility columns ``u``, ``u_low``,
    ``u_high`` (one utility metric) or ``u_<metric>``, ``..._low``, ``..._high`` per part of a
    ``UtilityMix``; and per privacy column ``p_<name>``, ``p_<name>_low``, ``p_<name>_high`` (one name per
    sensitive column for a per-column metric, else the metric itself). ``anchors`` (anchored normalisation):
    {"utility": (worst, ideal) or {metric: (worst, ideal)}, "privacy": {name: (worst, ideal)}}; a missing
    anchor defaults to the catalogue's constants, if it declares them. U is the weighted mean of the
    scaled parts clipped to [0, 1]; P is the privacy score clipped at 1 only (below 0, a level more revealing than
    the real rows, it stays below 0); ``beyond`` says where a value left its scale. ``candidates``: the levels that
    may be recommended (None: all); the others are scored but ``provisional``, never best nor winning a resample."""
    if normalisation not in METHODS:
        raise ValueError(f"unknown normalisation {normalisation!r}; use one of {METHODS}")
    scaling = Normalisation.ANCHORED if normalisation == Normalisation.PAPER else normalisation
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must lie in [0, 1]")
    anchors = anchors or {}
    parts, utility, notes = _utility_parts(levels, utility, anchors)
    names = level_column_names(levels.columns, Column.PRIVACY)
    if privacy.column:
        names = [privacy.column]
    p_anchor = {n: anchors.get("privacy", {}).get(n, _constants(privacy.metric)) for n in names}
    lv = levels["level"].to_numpy()
    u_raw = {q.column: levels[q.column].to_numpy(dtype=float) for q in parts}
    p_raw = {n: levels[level_column(Column.PRIVACY, n)].to_numpy(dtype=float) for n in names}

    def scaled(u_values, p_values):
        u_parts = {q.column: _scale(u_values[q.column], q.metric, scaling, q.anchor) for q in parts}
        per_column = [_scale(p_values[n], privacy.metric, scaling, p_anchor[n]) for n in names]
        p_scaled = np.min(per_column, axis=0) if per_column else np.full(len(lv), np.nan)  # worst column
        return u_parts, p_scaled

    def scores(u_values, p_values):
        u_parts, p_scaled = scaled(u_values, p_values)
        u = sum(q.weight * np.clip(u_parts[q.column], 0, 1) for q in parts) if parts else np.full(len(lv), np.nan)
        p = np.minimum(p_scaled, 1)  # below 0 kept: more revealing than the real rows ranks below the scale
        return u, p, alpha * p + (1 - alpha) * u

    u, p, pu = scores(u_raw, p_raw)
    ranked = np.ones(len(lv), dtype=bool) if candidates is None else np.isin(lv, sorted(candidates))
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(lv))

    def draw(centre, low, high):
        sd = np.nan_to_num((high - low) / 3.92, nan=0.0)
        return centre + sd * rng.standard_normal((draws, len(centre)))

    u_draws = {q.column: draw(u_raw[q.column], levels[level_column(Column.UTILITY, q.name, LOW)].to_numpy(float),
                              levels[level_column(Column.UTILITY, q.name, HIGH)].to_numpy(float)) for q in parts}
    p_draws = {n: draw(p_raw[n], levels[level_column(Column.PRIVACY, n, LOW)].to_numpy(float),
                       levels[level_column(Column.PRIVACY, n, HIGH)].to_numpy(float)) for n in names}
    _, p_draws_scored, pu_draws = scores(u_draws, p_draws)  # every draw at once: arrays of draws x levels
    pu_draws = np.broadcast_to(pu_draws, (draws, len(lv)))
    p_draws_scored = np.broadcast_to(p_draws_scored, (draws, len(lv)))
    winners = _best_of_each(p_draws_scored, np.where(ranked, pu_draws, np.nan), lv)
    np.add.at(wins, winners[winners >= 0], 1)
    table = levels.copy()
    table["U"], table["P"], table["PU"] = u, p, pu
    u_parts, p_unclipped = scaled(u_raw, p_raw)
    for q in parts:
        table[level_column(Column.SCALED, q.metric.name)] = u_parts[q.column]
    table["P_unclipped"] = p_unclipped
    table["P_column"] = deciding_columns(p_raw, privacy, normalisation, p_anchor)
    with np.errstate(all="ignore"):
        finite = np.isfinite(pu_draws).any(axis=0)
        for end, q in ((LOW, 0.025), (HIGH, 0.975)):
            table[level_column(Column.PU, end=end)] = np.where(
                finite, np.nanquantile(np.where(finite, pu_draws, 0), q, axis=0), np.nan)
    table["pareto"] = pareto_front(p, u)
    table["wins"] = wins / draws
    table["missing"] = [", ".join(([] if all(np.isfinite(u_raw[q.column][i]) for q in parts) else ["utility"])
                                  + [f"privacy ({n})" for n in names if not np.isfinite(p_raw[n][i])])
                        for i in range(len(lv))]
    spreads = anchors.get("spreads", {})
    p_bounds = {n: (levels[level_column(Column.PRIVACY, n, LOW)].to_numpy(float),
                    levels[level_column(Column.PRIVACY, n, HIGH)].to_numpy(float)) for n in names}
    u_bounds = {q.column: (levels[level_column(Column.UTILITY, q.name, LOW)].to_numpy(float),
                           levels[level_column(Column.UTILITY, q.name, HIGH)].to_numpy(float)) for q in parts}

    def standing(raw: float, low: float, high: float, anchor: tuple | None, spread: tuple | None) -> Standing | None:
        if anchor is None or None in anchor:
            return None
        ends = spread or (point(anchor[0]), point(anchor[1]))
        return Standing(Interval(raw, low, high), *ends)

    beyond, revealing = [], []
    for i in range(len(lv)):
        column = table["P_column"].iloc[i] if len(names) > 1 else (names[0] if names else None)
        p_standing = None if column is None else standing(
            p_raw[column][i], p_bounds[column][0][i], p_bounds[column][1][i], p_anchor.get(column),
            spreads.get("privacy", {}).get(column))
        u_standings = {q.metric.short: (u_parts[q.column][i], standing(
            u_raw[q.column][i], u_bounds[q.column][0][i], u_bounds[q.column][1][i], q.anchor,
            spreads.get("utility", {}).get(q.metric.name))) for q in parts}
        beyond.append(_beyond((p_unclipped[i], p_standing), u_standings, scaling))
        revealing.append(scaling == Normalisation.ANCHORED and p_unclipped[i] < 0 and _past(p_unclipped[i], p_standing))
    table["beyond"] = beyond
    table["more_revealing"] = revealing  # P below 0 by more than the spreads: ``shown_privacy`` says so in words
    return Selection(table, _best(p, np.where(ranked, pu, np.nan), lv), alpha, normalisation, privacy, utility, notes,
                     anchors, [int(v) for v in lv[~ranked]])


def deciding_columns(values: dict[str, np.ndarray], privacy: Axis, normalisation: Normalisation, anchors: dict,
                     candidates: dict[str, np.ndarray] | None = None) -> list[str | None]:
    """Per point, the sensitive column whose scaled privacy is P: the least protected one after scaling each
    column against its own anchors, which is not always the one with the worst raw value. The one rule that names
    "the worst column" — PU_t, the card, the scatter's hover and the report read it. ``values``: column -> raw
    values (one per point); ``anchors``: column -> (worst, ideal); ``candidates`` (min-max): column -> the values
    the scale runs over (default: ``values``). Where the scale is unknown (anchors not measured yet) the raw values
    decide, by the metric's direction; None where a column has no value, or for a metric without columns."""
    names = list(values)
    size = len(next(iter(values.values()))) if values else 0
    if privacy.metric.per_column is not PerColumn.SENSITIVE or not names:
        return [None] * size
    scaling = Normalisation.ANCHORED if normalisation == Normalisation.PAPER else normalisation
    raw = np.vstack([np.asarray(values[n], dtype=float) for n in names])
    scaled = np.vstack([_scale(raw[i], privacy.metric, scaling, anchors.get(n),
                               None if candidates is None else candidates.get(n)) for i, n in enumerate(names)])
    worst_raw = -raw if privacy.metric.lower_is_better else raw  # lowest = least protected, as for scaled values
    out = []
    for i in range(size):
        if np.isnan(raw[:, i]).any():
            out.append(None)
        else:
            by = scaled[:, i] if np.isfinite(scaled[:, i]).all() else worst_raw[:, i]
            out.append(names[int(np.argmin(by))])
    return out


def privacy_anchors(summary: Summary, privacy: Axis, sensitive: list[str], source: Metric | None = None,
                    normalisation: Normalisation = Normalisation.ANCHORED) -> dict[str, tuple]:
    """Per privacy column (the metric's name for a metric without columns): (worst, ideal), the values scoring 0
    and 1, measured in this run for ``source`` (default: the holder's); ``normalisation='paper'``: the paper's ideal."""
    source = source or privacy.source_metric(summary.holder())
    columns = privacy.columns(sensitive)
    names = [c if c is not None else privacy.metric.name for c in columns]
    return {name: (privacy.anchor(summary, "worst", column, source),
                   _paper_ideal(source) if normalisation == Normalisation.PAPER
                   else privacy.anchor(summary, "ideal", column, source))
            for name, column in zip(names, columns, strict=True)}


class PrivacyPoints:
    """Each point's privacy as the choice reads it — the value (with interval and n) of the column that decides P,
    and that column — so that no figure names another "worst column" than the card and the report. A level of
    ``selection`` takes its table's ``P_column``; any other point (a baseline; every point without a selection) is
    scaled as the selection scales (its normalisation, min-max over its levels), without one by the anchors."""

    def __init__(self, summary: Summary, privacy: Axis, sensitive: list[str], selection: Selection | None = None):
        if selection is not None and selection.privacy != privacy:
            raise ValueError(f"the selection scored {selection.privacy}, not {privacy.text}")
        self.summary, self.privacy, self.sensitive = summary, privacy, sensitive
        self.normalisation = Normalisation.ANCHORED if selection is None else selection.normalisation
        self.table = None if selection is None else selection.table.set_index("level")
        self._anchors: dict[str, dict] = {}  # by source metric: measured once per figure, not once per point

    def of(self, model_rows: Summary, level: int | None = None) -> tuple[Interval | None, str | None]:
        """The point of one model (``model_rows``: all its rows, which say whether its game has run) at ``level``
        (None: the rows without a level, a baseline's). (None, None) where the value is missing."""
        privacy = self.privacy
        source = privacy.source_metric(model_rows)
        rows = model_rows.level(level).metric(source.name)
        columns = privacy.columns(self.sensitive)
        if len(columns) == 1:
            column = columns[0]
        elif self.table is not None and level is not None and level in self.table.index:
            found = self.table.loc[level, "P_column"]
            column = None if pd.isna(found) else str(found)
        else:
            if source.name not in self._anchors:
                self._anchors[source.name] = privacy_anchors(self.summary, privacy, self.sensitive, source,
                                                             self.normalisation)
            candidates = ({c: self.table[level_column(Column.PRIVACY, c)].to_numpy(dtype=float) for c in columns}
                          if self.table is not None and self.normalisation == Normalisation.MINMAX else None)
            each = {c: privacy.interval(rows, c, source) for c in columns}
            values = {c: np.array([np.nan if v is None else v.value]) for c, v in each.items()}
            column = deciding_columns(values, privacy, self.normalisation, self._anchors[source.name], candidates)[0]
            return (None, None) if column is None else (each[column], column)
        found = privacy.interval(rows, column, source) if column is not None or len(columns) == 1 else None
        return (None, None) if found is None else (found, column)

    def more_revealing(self, model_rows: Summary, level: int | None, value: Interval, column: str | None) -> bool:
        """The point ``of`` gave lies beyond the real data's anchor by more than the spreads: the attack does better
        on it than on the real rows (a level of the selection: its table's ``more_revealing``, as the card says)."""
        if self.normalisation == Normalisation.MINMAX:
            return False
        if self.table is not None and level is not None and level in self.table.index:
            return bool(self.table.loc[level].get("more_revealing", False))
        source = self.privacy.source_metric(model_rows)
        standing = Standing(value, self.privacy.anchor_interval(self.summary, "worst", column, source),
                            self.privacy.anchor_interval(self.summary, "ideal", column, source))
        return standing.reading is Reading.BEYOND


MORE_REVEALING = "more revealing than the real data"  # a privacy score below 0, beyond the spreads: said, not scored


def shown_privacy(row) -> str:
    """A level's privacy score P as a screen shows it (``row``: the levels table's): a score from 0 to 1, or, for a
    level more revealing than the real rows by more than the spreads, those words — never a negative score on a 0-to-1
    scale, and never 0, which would rank it with the real data; within the spread of the real data's anchor, 0."""
    if bool(row.get("more_revealing", False)):
        return MORE_REVEALING
    value = float(row["P"])
    return "not measured" if np.isnan(value) else decimal(min(max(value, 0.0), 1.0))


def _beyond(privacy: tuple[float, Standing | None], u_parts: dict[str, tuple[float, Standing | None]],
            normalisation: Normalisation) -> str:
    """Where a scaled value left [0, 1]: said, never silent — unless its interval reaches the anchor's
    (``standing``): within the spread it is read as the anchor, not as a score a hair beyond it. A utility part is
    counted at the end of its scale in PU; a privacy score below 0 keeps its value (``select``)."""
    if normalisation != Normalisation.ANCHORED:
        return ""
    out = []
    value, standing = privacy
    if _past(value, standing):
        if value < 0:
            numbers = ("" if standing is None else f": {standing.value.value:.3f} on the release against "
                                                   f"{standing.worst.value:.3f} on the real rows")
            out.append(f"privacy: {MORE_REVEALING} (the attack does better on the release than on the real "
                       f"rows{numbers}; ranked below every level on the scale)")
        else:
            out.append("privacy: below the nothing-learnt floor (noise; read as 1)")
    for name, (value, standing) in u_parts.items():
        if _past(value, standing):
            out.append(f"{name} {decimal(value)}: worse than independent columns / chance (counted as 0)" if value < 0
                       else f"{name} {decimal(value)}: above the real-data reference (counted as 1)")
    return "; ".join(out)


def _past(share: float, standing: Standing | None) -> bool:
    """``share`` lies outside [0, 1] by more than the spreads of the value and of the anchor it passed."""
    if np.isnan(share) or 0 <= round(share, 2) <= 1:  # as printed: "-0.00" is no value beyond an anchor
        return False
    if standing is None:
        return True
    return not overlaps(standing.value, standing.worst if share < 0 else standing.ideal)


def _constants(metric: Metric) -> tuple | None:
    """The catalogue's anchors of ``metric`` when both are constants (e.g. PG: 0 and 1)."""
    if isinstance(metric.worst, (int, float)) and isinstance(metric.ideal, (int, float)):
        return float(metric.worst), float(metric.ideal)
    return None


def level_table(summary: Summary, sensitive: list[str], privacy: Axis = DEFAULT_PRIVACY,
                model: str = HOLDER, utility: UtilityMix = DEFAULT_MIX,
                normalisation: Normalisation = Normalisation.ANCHORED) -> tuple[pd.DataFrame, dict]:
    """From a results summary (``evaluation.summarise``): the per-level input of ``select`` (one
    ``u_<metric>`` column triple per part of the utility mix) and the anchors. A metric missing for the
    model is read from its catalogue fallback (the game MAB from the release attack until the game has run)."""
    privacy = privacy.among(sensitive)
    parts = [axis for axis, _ in utility.axes(summary.metrics())]
    s = summary.model(model)
    source = privacy.source_metric(s)
    names = [c if c is not None else privacy.metric.name for c in privacy.columns(sensitive)]
    rows = []
    for level in s.levels():
        at = s.level(level)
        row = {"level": level}
        for axis in parts:
            row |= zip([level_column(Column.UTILITY, axis.metric.name, end) for end in (None, LOW, HIGH)],
                       axis.point(at, None), strict=True)
        for name, column in zip(names, privacy.columns(sensitive), strict=True):
            row |= zip([level_column(Column.PRIVACY, name, end) for end in (None, LOW, HIGH)],
                       privacy.point(at, column, source), strict=True)
        rows.append(row)
    anchors = {"utility": {axis.metric.name: (axis.anchor(summary, "worst", None), axis.anchor(summary, "ideal", None))
                           for axis in parts},
               "privacy": privacy_anchors(summary, privacy, sensitive, source, normalisation),
               "spreads": {"utility": {axis.metric.name: _spreads(summary, axis, None) for axis in parts},
                           "privacy": {name: _spreads(summary, privacy, column, source, normalisation)
                                       for name, column in zip(names, privacy.columns(sensitive), strict=True)}}}
    return pd.DataFrame(rows), anchors


def _spreads(summary: Summary, axis: Axis, column: str | None, source: Metric | None = None,
             normalisation: Normalisation = Normalisation.ANCHORED) -> tuple[Interval, Interval] | None:
    """(worst, ideal) of a scale with their intervals, as ``standing`` reads a value against them; the paper's ideal
    is its constant. None where either is unknown."""
    worst = axis.anchor_interval(summary, "worst", column, source)
    paper_ideal = _paper_ideal(source or axis.metric) if normalisation == Normalisation.PAPER else None
    ideal = point(paper_ideal) if paper_ideal is not None else axis.anchor_interval(summary, "ideal", column, source)
    return None if worst is None or ideal is None else (worst, ideal)


def _paper_ideal(metric: Metric) -> float | None:
    """The paper's "nothing learnt" end: a constant (MAB 0), not the floor measured on shuffled columns."""
    ideal = metric.ideal
    return ideal.otherwise if isinstance(ideal, Reference) else ideal
