"""A level's recommendation card: what it protects, what it costs, and what to be careful about.

Every sentence is built from the same numbers as PU_t (the selection table, its anchors and the
summary's intervals), so the card cannot say something the choice did not use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..evaluation.catalogue import CATALOGUE, TSTR_METRICS, Group, PerColumn
from ..evaluation.intervals import SMALL_N, interval_words
from ..evaluation.records import REAL, SHUFFLED
from ..evaluation.summary import Summary
from ..text import percent
from .axes import Axis
from .selection import Column, Selection, level_column, level_column_names

NEAR_INDEPENDENT = 0.25  # scaled pair structure below this: the level keeps little more than independent columns
FRAGILE = 0.6  # the best level wins fewer resamples than this: the choice is fragile


@dataclass
class LevelCard:
    level: int
    headline: str  # the numbers behind the verdicts: PU, P, U, α
    verdicts: list[str] = field(default_factory=list)  # one plain sentence per verdict: what a steward reads first
    protects: list[str] = field(default_factory=list)
    costs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # facts that are not warnings (how this level compares)


def _number(point: tuple[float, float, float], n: int | None) -> str:
    value, low, high = point
    if math.isnan(value):
        return "not measured"
    return f"{value:.3f} ({interval_words(low, high, n, digits=3)})"


def _n(rows: Summary, metric: str, column: str | None = None) -> int | None:
    hit = rows.metric(metric)
    found = (hit if column is None else hit.attribute(column)).interval()
    return None if found is None else found.n


def _anchors(anchor: tuple | None, method: str) -> str:
    """How the score was scaled, in the units of the value it scales."""
    if method == "minmax":
        return " (min-max over the levels: the worst level scores 0, the best 1)"
    if anchor is None or any(v is None or (isinstance(v, float) and math.isnan(v)) for v in anchor):
        return ""
    return f" (scores 0 at {anchor[0]:.3f}, 1 at {anchor[1]:.3f})"


PRIVACY_ENDS = {"anchored": " — 0 is what the attack achieves on the real rows, 1 what it achieves when there is "
                            "nothing to learn (columns shuffled).",
                "paper": " — 0 is what the attack achieves on the real rows, 1 an attack that learns nothing "
                         "(the paper's P = 1 − MAB / MAB_real).",
                "minmax": "."}


# a privacy score (1: the attack learns nothing, 0: as much as from the real rows) read in words
PRIVACY_WORDS = ((0.9, "almost no better than from the column's average"),
                 (0.6, "a little better than from the column's average"),
                 (0.3, "clearly better than from the column's average, but less well than from the real data"),
                 (0.0, "nearly as well as from the real data"))
MEMBERSHIP_WORDS = ((0.9, "no better than by guessing"), (0.6, "a little better than by guessing"),
                    (0.3, "clearly better than by guessing, but less well than with the real data"),
                    (0.0, "nearly as well as with the real data"))


def _words(score: float, scale: tuple, beyond: str) -> str:
    if math.isnan(score):
        return "(not measured yet)"
    for floor, words in scale:
        if score >= floor:
            return words
    return beyond


def verdict_sentences(selection: Selection, summary: Summary, level: int, sensitive: list[str],
                      response: str | None = None) -> list[str]:
    """The card's lead: one plain sentence per verdict (attribute or membership inference on the chosen privacy
    axis, each utility part, the GDPR criteria), and one that says why the attack game and the GDPR inference
    criterion disagree when they do. Built from the selection's own scores, so the words cannot contradict the
    numbers behind them."""
    from .gdpr import point_verdicts, risk_key

    row = selection.table.set_index("level").loc[level]
    privacy = selection.privacy
    score = float(row["P_unclipped"]) if "P_unclipped" in row else float(row["P"])
    column = row.get("P_column") or privacy.column
    out = []
    if privacy.metric.group is Group.MEMBERSHIP_RISK:
        out.append(f"At level {level}, an attacker holding the release tells whether a person was in the training "
                   f"data {_words(score, MEMBERSHIP_WORDS, 'better than with the real data itself')} (privacy "
                   f"score {score:.2f}; 1 = no better than guessing, 0 = as well as with the real data).")
    else:
        target = f"the sensitive column {column}" if column else "the sensitive columns"
        how = _words(score, PRIVACY_WORDS, "better than from the real data itself: the release exaggerates its link "
                                          "to the other columns")
        out.append(f"At level {level}, someone who knows every other column predicts {target} {how} (privacy score "
                   f"{score:.2f}; 1 = no better than from its average, 0 = as well as from the real data).")
    for name in level_column_names(row.index, Column.SCALED):
        part = float(row[level_column(Column.SCALED, name)])
        if math.isnan(part):
            continue
        if name in TSTR_METRICS:
            y = response or "the response"
            out.append(f"Models trained on the synthetic data predict {y} {percent(part)} as well as models trained "
                       "on the real data (counting what they do better than chance).")
        elif name == "pair_structure":
            out.append(f"It keeps {percent(part)} of the associations between pairs of columns that the real data has.")
        elif name == "ci_overlap":
            out.append(f"A regression of {response or 'the response'} on the synthetic data gives confidence "
                       f"intervals that overlap those of the real data by {percent(part)}.")
    verdicts = point_verdicts(summary, sensitive, level=level)
    if verdicts:
        risky = [v.name for v in verdicts if v.verdict != "none"]
        out.append("GDPR criteria (can an attacker single out, link or infer a person of the training data better than "
                   "a person it never saw?): " + ("no measurable risk for any." if not risky else
                                                   f"a risk for {', '.join(risky)}; no measurable risk for the rest."))
        said = next((v for v in verdicts if column and v.key == risk_key("inference", column)), None)
        if said is not None and privacy.metric.group is Group.ATTRIBUTE_RISK:
            if said.verdict == "none" and score < 0.6:
                out.append(f"Why the two answers differ: the attack game measures how well the release lets anyone "
                           f"predict {column} from the other columns, for everybody; the GDPR inference criterion "
                           f"asks whether it does so better for the people in the training data than for others. The "
                           f"release reproduces (or strengthens) the link between {column} and the other columns, "
                           "which reveals something about every person like them, but it does not single out the "
                           "people it was trained on.")
            elif said.verdict != "none" and score >= 0.6:
                out.append(f"Why the two answers differ: the release does not let anyone predict {column} well in "
                           "general, but for the people in the training data it does better than for others — a "
                           "sign that it repeats some of their records.")
    return out


def explain_level(selection: Selection, summary: Summary, level: int, sensitive: list[str],
                  preview=None, response: str | None = None) -> LevelCard:
    """The card of ``level``: plain verdicts first (``verdict_sentences``), then the numbers and method;
    ``preview`` (a ``LevelPreview``) adds the real associations the level cuts."""
    table = selection.table.set_index("level")
    row = table.loc[level]
    at = summary.point(level)
    privacy = selection.privacy
    best = " — the best level at these settings" if level == selection.best_level else ""
    card = LevelCard(level, f"Level {level}: PU = {row['PU']:.2f} (privacy P = {row['P']:.2f}, utility U = "
                            f"{row['U']:.2f}, α = {selection.alpha:g}){best}",
                     verdict_sentences(selection, summary, level, sensitive, response))
    source = privacy.source_metric(at) if len(at) else privacy.metric
    column = row.get("P_column")  # the column whose score is P: its value and its anchors, not another's
    if column is None and privacy.metric.per_column is PerColumn.SENSITIVE:
        column = privacy.column
    point = privacy.point(at, column, source)
    anchor_key = column if privacy.metric.per_column is PerColumn.SENSITIVE else privacy.metric.name
    anchor = selection.anchors.get("privacy", {}).get(anchor_key)
    where = f" for {column}" if column and privacy.metric.per_column else ""
    worst = " (the least protected sensitive column after scaling)" if privacy.worst and len(sensitive) > 1 else ""
    card.protects.append(f"{source.short}{where}{worst}: {_number(point, _n(at, source.name, column))}; privacy "
                         f"score {row['P_unclipped']:.2f}{_anchors(anchor, selection.method)}"
                         f"{PRIVACY_ENDS.get(selection.method, '.')}")
    if privacy.metric.name != "mia_auc" and not at.metric("mia_auc").empty:
        mia = Axis(CATALOGUE["mia_auc"]).point(at, None)
        real = summary.model(REAL).metric("mia_auc").interval()
        floor = summary.model(SHUFFLED).metric("mia_auc").interval()
        card.protects.append(f"Membership attacks (strongest of three): AUC {_number(mia, _n(at, 'mia_auc'))} — "
                             f"0.5 learns nothing" + (f"; the real rows themselves: {real.median:.3f}"
                                                      if real is not None else "")
                             + (f"; noise floor: {floor.median:.3f}" if floor is not None else "") + ".")
    for name in level_column_names(table.columns, Column.SCALED):
        part = row[level_column(Column.SCALED, name)]
        metric = CATALOGUE[name]
        value = Axis(metric).point(at, None)
        anchor = selection.anchors.get("utility", {})
        anchor = anchor.get(name) if isinstance(anchor, dict) else anchor
        if selection.method == "minmax":
            scale = f"{percent(part)} of the way from the worst of these levels to the best (min-max scaling)"
        else:
            scale = (f"{percent(part)} of the way from 'nothing kept' to 'as the real data'"
                     f"{_anchors(anchor, selection.method)}")
        card.costs.append(f"{metric.short}: {_number(value, _n(at, name))} — {scale}.")
        if name == "pair_structure" and part < NEAR_INDEPENDENT and selection.method != "minmax":
            card.warnings.append(f"Level {level} keeps little more pairwise dependence than independent columns "
                                 f"({percent(part)} of the real data's): relations between columns other than "
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
    if level == selection.best_level and float(row["wins"]) < FRAGILE:
        card.warnings.append(f"Fragile: level {level} is best in only {percent(row['wins'])} of resamples within "
                             "the intervals; look at its neighbours.")
    elif level != selection.best_level and selection.best_level is not None:
        card.notes.append(f"Level {level} is not the best at these settings: level {selection.best_level} is "
                          f"(best in {percent(table.loc[selection.best_level, 'wins'])} of resamples; this level in "
                          f"{percent(row['wins'])}).")
    small = sorted({int(n) for n in at.frame["n"] if n < SMALL_N})
    if small:
        card.warnings.append(f"Some intervals rest on only {', '.join(map(str, small))} replicates: they show a "
                             "spread, not a 95 % confidence interval. The paper preset draws enough for intervals.")
    card.warnings += selection.notes
    return card
