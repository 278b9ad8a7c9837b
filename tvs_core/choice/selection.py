"""Choosing the truncation level (paper Appendix D/E): PU_t = alpha * P_t + (1 - alpha) * U_t.

P_t (privacy) and U_t (utility) are scaled to [0, 1], higher is better, in one of two documented ways:

* ``anchored`` — against the two anchors the metric catalogue declares (``worst`` scores 0, ``ideal``
  scores 1), so a level's score does not depend on which other levels were evaluated:
  U = (AUC - chance) / (AUC_TRTR - chance) (chance 0.5; a continuous response is scored by R², chance 0);
  for MAB, P = 1 - MAB / MAB_real (MAB_real = the same attack on the real rows); for PG, P = PG
  (1: the attacker learns nothing); for MCMIA, P = 2 (1 - score) (0.5 = indistinguishable). All
  clipped to [0, 1].
* ``minmax`` — relative to the candidates: the best level scores 1, the worst 0 (all equal: 1).

Ties in PU are broken towards more privacy, then the lower level. Levels missing a metric are
listed but not ranked. ``wins`` says how often each level is best when every metric is redrawn
within its interval (normal with the interval's width), showing whether the choice is fragile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..evaluation.catalogue import DEFAULT_PRIVACY_AXIS, Metric
from ..evaluation.records import HOLDER
from .axes import Axis

METHODS = ("anchored", "minmax")


@dataclass
class Selection:
    table: pd.DataFrame  # level, u, u_low, u_high, p_raw, p_low, p_high, U, P, PU, pareto, wins, missing
    best_level: int | None
    alpha: float
    method: str
    privacy: str


def _scale(values: np.ndarray, metric: Metric, method: str, anchor: tuple | None,
           candidates: np.ndarray | None = None) -> np.ndarray:
    """Values of ``metric`` on [0, 1], higher = better; NaN where the anchors are unknown."""
    ref = values if candidates is None else candidates
    if method == "minmax":
        low, high = np.nanmin(ref), np.nanmax(ref)
        if not np.isfinite(low) or high - low < 1e-12:
            return np.where(np.isnan(values), np.nan, 1.0)
        scaled = (values - low) / (high - low)
        return np.clip(1 - scaled if metric.lower_is_better else scaled, 0, 1)
    worst, ideal = anchor if anchor is not None else (None, None)
    sign = -1.0 if metric.lower_is_better else 1.0
    if worst is None or ideal is None or not sign * (ideal - worst) > 0:
        return np.full_like(values, np.nan)
    return np.clip((values - worst) / (ideal - worst), 0, 1)


def _best(p: np.ndarray, pu: np.ndarray, levels: np.ndarray) -> int | None:
    ok = ~np.isnan(pu)
    if not ok.any():
        return None
    top = np.nanmax(pu)
    tied = ok & (pu >= top - 1e-12)
    candidates = sorted(zip(-np.nan_to_num(p[tied], nan=-np.inf), levels[tied], strict=True))
    return int(candidates[0][1])


def pareto_front(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """True where no other level is at least as private and as useful and strictly better in one."""
    front = np.zeros(len(p), dtype=bool)
    for i in range(len(p)):
        if np.isnan(p[i]) or np.isnan(u[i]):
            continue
        dominated = (p >= p[i]) & (u >= u[i]) & ((p > p[i]) | (u > u[i]))
        front[i] = not dominated.any()
    return front


def select(levels: pd.DataFrame, alpha: float = 0.5, method: str = "anchored",
           privacy: str | Axis = DEFAULT_PRIVACY_AXIS, anchors: dict | None = None, utility: str | Axis | None = None,
           draws: int = 2000, seed: int = 0) -> Selection:
    """Score candidate levels. ``levels`` has one row per level with columns ``level``, ``u``,
    ``u_low``, ``u_high`` (utility), and per privacy column ``p_<name>``, ``p_<name>_low``,
    ``p_<name>_high`` (one name per sensitive column for a per-column metric, else the metric itself).
    ``anchors`` (anchored method): {"utility": (worst, ideal), "privacy": {name: (worst, ideal)}};
    a missing anchor defaults to the catalogue's constant, if it declares one."""
    if method not in METHODS:
        raise ValueError(f"unknown normalisation {method!r}; use one of {METHODS}")
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must lie in [0, 1]")
    privacy = privacy if isinstance(privacy, Axis) else Axis.parse(privacy)
    utility = utility if isinstance(utility, Axis) else (Axis.utility([]) if utility is None
                                                         else Axis.parse(utility, "utility"))
    anchors = anchors or {}
    names = [c[2:] for c in levels.columns if c.startswith("p_") and not c.endswith(("_low", "_high"))]
    if privacy.column:
        names = [privacy.column]
    u_anchor = anchors.get("utility", _constants(utility.metric))
    p_anchor = {n: anchors.get("privacy", {}).get(n, _constants(privacy.metric)) for n in names}
    lv = levels["level"].to_numpy()
    u_raw = levels["u"].to_numpy(dtype=float)

    def scores(u_values, p_values):
        u_scaled = _scale(u_values, utility.metric, method, u_anchor)
        per_column = [_scale(p_values[n], privacy.metric, method, p_anchor[n]) for n in names]
        p_scaled = np.min(per_column, axis=0) if per_column else np.full(len(lv), np.nan)  # worst column
        return u_scaled, p_scaled, alpha * p_scaled + (1 - alpha) * u_scaled

    p_raw = {n: levels[f"p_{n}"].to_numpy(dtype=float) for n in names}
    u, p, pu = scores(u_raw, p_raw)
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(lv))

    def draw(centre, low, high):
        sd = np.nan_to_num((high - low) / 3.92, nan=0.0)
        return centre + sd * rng.standard_normal((draws, len(centre)))

    u_draws = draw(u_raw, levels["u_low"].to_numpy(float), levels["u_high"].to_numpy(float))
    p_draws = {n: draw(p_raw[n], levels[f"p_{n}_low"].to_numpy(float), levels[f"p_{n}_high"].to_numpy(float))
               for n in names}
    pu_draws = np.full((draws, len(lv)), np.nan)
    for k in range(draws):
        _, p_k, pu_draws[k] = scores(u_draws[k], {n: p_draws[n][k] for n in names})
        best = _best(p_k, pu_draws[k], lv)
        if best is not None:
            wins[lv == best] += 1
    table = levels.copy()
    table["U"], table["P"], table["PU"] = u, p, pu
    with np.errstate(all="ignore"):
        finite = np.isfinite(pu_draws).any(axis=0)
        table["PU_low"] = np.where(finite, np.nanquantile(np.where(finite, pu_draws, 0), 0.025, axis=0), np.nan)
        table["PU_high"] = np.where(finite, np.nanquantile(np.where(finite, pu_draws, 0), 0.975, axis=0), np.nan)
    table["pareto"] = pareto_front(p, u)
    table["wins"] = wins / draws
    table["missing"] = [", ".join(([] if np.isfinite(u_raw[i]) else ["utility"])
                                  + [f"privacy ({n})" for n in names if not np.isfinite(p_raw[n][i])])
                        for i in range(len(lv))]
    return Selection(table, _best(p, pu, lv), alpha, method, privacy.text)


def _constants(metric: Metric) -> tuple | None:
    """The catalogue's anchors of ``metric`` when both are constants (e.g. PG: 0 and 1)."""
    if isinstance(metric.worst, (int, float)) and isinstance(metric.ideal, (int, float)):
        return float(metric.worst), float(metric.ideal)
    return None


def level_table(summary: pd.DataFrame, sensitive: list[str], privacy: str | Axis = DEFAULT_PRIVACY_AXIS,
                model: str = HOLDER) -> tuple[pd.DataFrame, dict]:
    """From a results summary (``evaluation.summarise``): the per-level input of ``select`` and the
    anchors. A metric missing for the model is read from its catalogue fallback (the game MAB from
    the release attack until the game has run)."""
    privacy = privacy if isinstance(privacy, Axis) else Axis.parse(privacy, sensitive=sensitive)
    utility = Axis.utility(summary["metric"])
    s = summary[summary["model"] == model]
    levels = sorted(int(v) for v in s["level"].dropna().unique())
    source = privacy.source_metric(s)
    names = [c if c is not None else privacy.metric.name for c in privacy.columns(sensitive)]
    rows = []
    for level in levels:
        at = s[s["level"] == level]
        u, u_low, u_high = utility.point(at, None)
        row = {"level": level, "u": u, "u_low": u_low, "u_high": u_high}
        for name, column in zip(names, privacy.columns(sensitive), strict=True):
            row[f"p_{name}"], row[f"p_{name}_low"], row[f"p_{name}_high"] = privacy.point(at, column, source)
        rows.append(row)
    anchors = {"utility": (utility.anchor(summary, "worst", None), utility.anchor(summary, "ideal", None)),
               "privacy": {name: (privacy.anchor(summary, "worst", column, source),
                                  privacy.anchor(summary, "ideal", column, source))
                           for name, column in zip(names, privacy.columns(sensitive), strict=True)}}
    return pd.DataFrame(rows), anchors
