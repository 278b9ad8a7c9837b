"""Choosing the truncation level (paper Appendix D/E): PU_t = alpha * P_t + (1 - alpha) * U_t.

P_t (privacy) and U_t (utility) are scaled to [0, 1], higher is better, in one of two documented ways:

* ``anchored`` — against fixed references, so a level's score does not depend on which other
  levels were evaluated: U = (AUC - chance) / (AUC_TRTR - chance) (chance 0.5; a continuous response is
  scored by R², chance 0); for MAB, P = 1 - MAB / MAB_real
  (MAB_real = the same attack on the real rows); for PG, P = min(PG, 1) (PG = 1: the attacker learns
  nothing); for MCMIA, P = 2 (1 - score) (0.5 = indistinguishable). All clipped to [0, 1].
* ``minmax`` — relative to the candidates: the best level scores 1, the worst 0 (all equal: 1).

Ties in PU are broken towards more privacy, then the lower level. Levels missing a metric are
listed but not ranked. ``wins`` says how often each level is best when every metric is redrawn
within its interval (normal with the interval's width), showing whether the choice is fragile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .evaluation.utility import CHANCE, utility_scale

METHODS = ("anchored", "minmax")
LOWER_IS_BETTER = ("mab", "mcmia")


@dataclass
class Selection:
    table: pd.DataFrame  # level, u, u_low, u_high, p_raw, p_low, p_high, U, P, PU, pareto, wins, missing
    best_level: int | None
    alpha: float
    method: str
    privacy: str


def privacy_kind(privacy: str) -> str:
    return "mab" if privacy.startswith("mab") else privacy


def _scale(values: np.ndarray, kind: str, method: str, anchor: float | np.ndarray | None,
           utility: bool, chance: float, candidates: np.ndarray | None = None) -> np.ndarray:
    ref = values if candidates is None else candidates
    if method == "minmax":
        low, high = np.nanmin(ref), np.nanmax(ref)
        if not np.isfinite(low) or high - low < 1e-12:
            return np.where(np.isnan(values), np.nan, 1.0)
        scaled = (values - low) / (high - low)
        return np.clip(1 - scaled if (not utility and kind in LOWER_IS_BETTER) else scaled, 0, 1)
    if utility:
        return np.clip((values - chance) / (anchor - chance), 0, 1) if anchor is not None and anchor > chance \
            else np.full_like(values, np.nan)
    if kind == "mab":
        return np.clip(1 - values / anchor, 0, 1) if anchor is not None and np.all(np.asarray(anchor) > 0) \
            else np.full_like(values, np.nan)
    if kind == "pg":
        return np.clip(values, 0, 1)
    if kind == "mcmia":
        return np.clip(2 * (1 - values), 0, 1)
    raise ValueError(f"unknown privacy metric {kind!r}")


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


def select(levels: pd.DataFrame, alpha: float = 0.5, method: str = "anchored", privacy: str = "mab_worst",
           anchors: dict | None = None, chance: float = 0.5, draws: int = 2000, seed: int = 0) -> Selection:
    """Score candidate levels. ``levels`` has one row per level with columns ``level``, ``u``,
    ``u_low``, ``u_high`` (utility), and per privacy column ``p_<name>``, ``p_<name>_low``,
    ``p_<name>_high`` (one name per sensitive column for MAB, else the metric itself).
    ``anchors``: {"utility": AUC_TRTR (or R²), "privacy": {name: MAB_real}, "chance": …} for the anchored
    method."""
    if method not in METHODS:
        raise ValueError(f"unknown normalisation {method!r}; use one of {METHODS}")
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must lie in [0, 1]")
    kind = privacy_kind(privacy)
    anchors = anchors or {}
    names = [c[2:] for c in levels.columns if c.startswith("p_") and not c.endswith(("_low", "_high"))]
    if privacy.startswith("mab:"):
        names = [privacy.split(":", 1)[1]]
    lv = levels["level"].to_numpy()
    u_raw = levels["u"].to_numpy(dtype=float)

    def scores(u_values, p_values):
        u_scaled = _scale(u_values, "utility", method, anchors.get("utility"), True, chance)
        per_column = [_scale(p_values[n], kind, method, anchors.get("privacy", {}).get(n), False, chance)
                      for n in names]
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
    return Selection(table, _best(p, pu, lv), alpha, method, privacy)


def level_table(summary: pd.DataFrame, sensitive: list[str], privacy: str = "mab_worst",
                model: str = "tvinesynth") -> tuple[pd.DataFrame, dict]:
    """From a results summary (``evaluation.summarise``): the per-level input of ``select`` and the
    anchors. MAB and PG come from the attack game when it has run, else from the release attack."""
    s = summary[summary["model"] == model]
    levels = sorted(int(v) for v in s["level"].dropna().unique())
    kind = privacy_kind(privacy)
    scale = utility_scale(summary["metric"])  # AUC, or R² for a continuous response
    rows = []

    def pick(frame, metric, attribute=None, roles=("game", "release")):
        for role in roles:
            hit = frame[(frame["metric"] == metric) & (frame["role"] == role)]
            if attribute is not None:
                hit = hit[hit["attribute"] == attribute]
            if len(hit):
                return hit
        return frame.iloc[0:0]

    def row_of(hit):
        if len(hit) == 0:
            return np.nan, np.nan, np.nan
        return float(hit["median"].median()), float(hit["ci_low"].median()), float(hit["ci_high"].median())

    names = sensitive if kind == "mab" else [kind]
    if privacy.startswith("mab:"):
        names = [privacy.split(":", 1)[1]]
    game_has_mab = len(s[(s["metric"] == "mab") & (s["role"] == "game")]) > 0
    for level in levels:
        at = s[s["level"] == level]
        u, u_low, u_high = row_of(pick(at, f"{scale}_tstr", roles=("release",)))
        row = {"level": level, "u": u, "u_low": u_low, "u_high": u_high}
        for n in names:
            if kind == "mab":
                hit = pick(at, "mab" if game_has_mab else "release_mab", n, roles=("game", "release"))
            elif kind == "pg":
                hit = at[at["metric"] == "pg"][["median", "ci_low", "ci_high"]]
            else:
                hit = pick(at, kind, roles=("release",))
            row[f"p_{n}"], row[f"p_{n}_low"], row[f"p_{n}_high"] = row_of(hit)
        rows.append(row)
    trtr = summary[(summary["metric"] == f"{scale}_trtr")]
    anchors = {"utility": float(trtr["median"].iloc[0]) if len(trtr) else None, "privacy": {},
               "chance": CHANCE[scale]}
    if kind == "mab":
        for n in names:
            ref = summary[(summary["model"] == "raw") & (summary["metric"] == "mab") & (summary["attribute"] == n)]
            if not game_has_mab or not len(ref):
                ref = summary[(summary["model"] == "real") & (summary["metric"] == "release_mab")
                              & (summary["attribute"] == n)]
            anchors["privacy"][n] = float(ref["median"].iloc[0]) if len(ref) else None
    return pd.DataFrame(rows), anchors
