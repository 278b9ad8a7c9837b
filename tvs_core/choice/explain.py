"""A level's recommendation card: what it protects, what it costs, and what to be careful about.

Every sentence is built from the same numbers as PU_t (the selection table, its anchors and the
summary's intervals), so the card cannot say something the choice did not use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.records import HOLDER, REAL, SHUFFLED
from ..evaluation.summary import SMALL_N
from .axes import Axis
from .selection import Selection

NEAR_INDEPENDENT = 0.25  # scaled pair structure below this: the level keeps little more than independent columns


@dataclass
class LevelCard:
    level: int
    headline: str
    protects: list[str] = field(default_factory=list)
    costs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _number(point: tuple[float, float, float], n: int | None) -> str:
    value, low, high = point
    if math.isnan(value):
        return "not measured"
    text = f"{value:.3f}"
    if not math.isnan(low):
        kind = "95 % interval" if n is None or n >= SMALL_N else f"spread of {n} values"
        text += f" [{low:.3f}, {high:.3f}; {kind}]"
    return text


def _n(rows: pd.DataFrame, metric: str, column: str | None = None) -> int | None:
    hit = rows[rows["metric"] == metric]
    if column is not None:
        hit = hit[hit["attribute"] == column]
    return int(hit["n"].min()) if len(hit) else None


def _anchors(anchor: tuple | None) -> str:
    if anchor is None or any(v is None or (isinstance(v, float) and math.isnan(v)) for v in anchor):
        return ""
    return f" (scores 0 at {anchor[0]:.3f}, 1 at {anchor[1]:.3f})"


def explain_level(selection: Selection, summary: pd.DataFrame, level: int, sensitive: list[str],
                  preview=None) -> LevelCard:
    """The card of ``level``; ``preview`` (a ``LevelPreview``) adds the real associations the level cuts."""
    table = selection.table.set_index("level")
    row = table.loc[level]
    at = summary[(summary["model"] == HOLDER) & (summary["level"] == level)]
    privacy = Axis.parse(selection.privacy, sensitive=sensitive)
    best = " — the best level at these settings" if level == selection.best_level else ""
    card = LevelCard(level, f"Level {level}: PU = {row['PU']:.2f} (privacy P = {row['P']:.2f}, utility U = "
                            f"{row['U']:.2f}, α = {selection.alpha:g}){best}")
    source = privacy.source_metric(at) if len(at) else privacy.metric
    point, column = privacy.value(at, sensitive, source)
    anchor_key = column if privacy.metric.per_column == "sensitive" else privacy.metric.name
    anchor = selection.anchors.get("privacy", {}).get(anchor_key)
    where = f" for {column}" if column and privacy.metric.per_column else ""
    card.protects.append(f"{source.short}{where}: {_number(point, _n(at, source.name, column))}; privacy score "
                         f"{row['P_unclipped']:.2f}{_anchors(anchor)} — 0 is what the attack achieves on the real "
                         "rows, 1 what it achieves when there is nothing to learn (columns shuffled).")
    if privacy.metric.name != "mia_auc" and (at["metric"] == "mia_auc").any():
        mia = Axis(CATALOGUE["mia_auc"]).point(at, None)
        real = summary[(summary["metric"] == "mia_auc") & (summary["model"] == REAL)]["median"]
        floor = summary[(summary["metric"] == "mia_auc") & (summary["model"] == SHUFFLED)]["median"]
        card.protects.append(f"Membership attacks (strongest of three): AUC {_number(mia, _n(at, 'mia_auc'))} — "
                             f"0.5 learns nothing" + (f"; the real rows themselves: {real.iloc[0]:.3f}" if len(real)
                                                      else "")
                             + (f"; noise floor: {floor.iloc[0]:.3f}" if len(floor) else "") + ".")
    for name, part in [(c[2:], row[c]) for c in table.columns if c.startswith("U_")]:
        metric = CATALOGUE[name]
        value = Axis(metric).point(at, None)
        anchor = selection.anchors.get("utility", {})
        anchor = anchor.get(name) if isinstance(anchor, dict) else anchor
        card.costs.append(f"{metric.short}: {_number(value, _n(at, name))} — {100 * part:.0f} % of the way from "
                          f"'nothing kept' to 'as the real data'{_anchors(anchor)}.")
        if name == "pair_structure" and part < NEAR_INDEPENDENT:
            card.warnings.append(f"Level {level} keeps little more pairwise dependence than independent columns "
                                 f"({100 * part:.0f} % of the real data's): relations between columns other than "
                                 "those with Y will mostly not be reproduced.")
    if preview is not None:
        cut = preview.cut_at(level)
        cost = cut[cut["where"] != "sensitive block (intended)"]
        if len(cut):
            examples = ", ".join(f"{r.a} – {r.b} ({r.real:+.2f} → {r.kept:+.2f})" for r in cost.head(3).itertuples())
            card.costs.append(f"Expected to cut {len(cut)} real associations, {len(cut) - len(cost)} of them inside "
                              f"the sensitive block (intended)" + (f"; the others include {examples}" if examples
                                                                   else "") + ".")
        if len(preview.leaks):
            card.warnings.append("The block assumption of Theorem 2.5 does not hold on this table: the sensitive "
                                 "block is linked to other columns, so truncation protects less than the theory says.")
    if row["beyond"]:
        card.warnings.append(f"Beyond the anchors (clipped for PU): {row['beyond']}.")
    if float(row["wins"]) < 0.6:
        card.warnings.append(f"Fragile: level {level} is best in only {float(row['wins']):.0%} of resamples within "
                             "the intervals; look at its neighbours.")
    small = sorted({int(n) for n in at["n"] if n < SMALL_N})
    if small:
        card.warnings.append(f"Some intervals rest on only {', '.join(map(str, small))} replicates: they show a "
                             "spread, not a 95 % confidence interval. The paper preset draws enough for intervals.")
    card.warnings += selection.notes
    return card
