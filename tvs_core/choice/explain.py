"""A level's recommendation card: what it protects, what it costs, and what to be careful about.

The card leads with the level's verdicts (``verdicts.level_verdicts``: the set page 1 of the report, the manifest,
the ledger and the command line print too, warnings last); its numbers and method follow, built from the same
numbers as PU_t (the selection table, its anchors and the summary's intervals), so the card cannot say something the
choice did not use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..evaluation.catalogue import CATALOGUE, PerColumn
from ..evaluation.intervals import Interval
from ..evaluation.metrics.audit import AuditResult
from ..evaluation.protocol import ProtocolName
from ..evaluation.records import REAL, SHUFFLED
from ..evaluation.summary import Summary
from ..text import percent, signed, way_words
from .axes import Axis
from .selection import MORE_REVEALING, Column, Normalisation, Selection, level_column, level_column_names, shown_privacy
from .verdicts import (
    AS_REAL,
    FRAGILE,
    NEAR_INDEPENDENT,
    NOTHING_KEPT,
    Topic,
    Verdicts,
    anchor_words,
    level_verdicts,
)

__all__ = ["FRAGILE", "NEAR_INDEPENDENT", "LevelCard", "explain_level", "officer_words", "recommendation"]


@dataclass
class LevelCard:
    level: int
    headline: str  # the numbers behind the verdicts: PU, P, U, α
    verdicts: Verdicts = field(default_factory=Verdicts)  # what a steward reads first, warnings last
    protects: list[str] = field(default_factory=list)
    costs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # facts that are not warnings (how this level compares)

    @property
    def lead(self) -> Verdicts:
        """The verdicts before the warnings."""
        return Verdicts(v for v in self.verdicts if v.axis is not Topic.WARNING)

    @property
    def warnings(self) -> list[str]:
        return [v.text for v in self.verdicts.of(Topic.WARNING)]


def _number(point: tuple[float, float, float], n: int | None) -> str:
    value, low, high = point
    if math.isnan(value):
        return "not measured"
    return Interval(value, low, high, n).said(3)


def _n(rows: Summary, metric: str, column: str | None = None) -> int | None:
    hit = rows.metric(metric)
    found = (hit if column is None else hit.attribute(column)).interval()
    return None if found is None else found.n


def _anchors(anchor: tuple | None, normalisation: Normalisation) -> str:
    """How the score was scaled, in the units of the value it scales."""
    if normalisation == Normalisation.MINMAX:
        return " (min-max over the levels: the worst level scores 0, the best 1)"
    if anchor is None or any(v is None or (isinstance(v, float) and math.isnan(v)) for v in anchor):
        return ""
    return f" (scores 0 at {anchor[0]:.3f}, 1 at {anchor[1]:.3f})"


PRIVACY_ENDS = {"anchored": " — 0 is what the attack achieves on the real rows, 1 what it achieves when there is "
                            "nothing to learn (columns shuffled).",
                "paper": " — 0 is what the attack achieves on the real rows, 1 an attack that learns nothing "
                         "(P = 1 − MAB / MAB_real: our reading of the paper's Appendix D, which gives no formula).",
                "minmax": "."}


def explain_level(selection: Selection, summary: Summary, level: int, sensitive: list[str],
                  preview=None, response: str | None = None, claims: dict[str, float] | None = None,
                  audits: list[AuditResult] | None = None, verdicts: Verdicts | None = None,
                  preset: ProtocolName | None = None) -> LevelCard:
    """The card of ``level``: its verdicts first (``verdicts``, or ``level_verdicts`` of the same arguments), then
    the numbers and method; ``preview`` (a ``LevelPreview``) adds the real associations the level cuts."""
    table = selection.table.set_index("level")
    row = table.loc[level]
    at = summary.point(level)
    privacy = selection.privacy
    best = " — the best level at these settings" if level == selection.best_level else ""
    shown = shown_privacy(row)  # a level more revealing than the real rows is said so, not scored below 0
    p_words = f"privacy: {shown}" if shown == MORE_REVEALING else f"privacy P = {shown}"
    card = LevelCard(level, f"Level {level}: PU = {row['PU']:.2f} ({p_words}, utility U = "
                            f"{row['U']:.2f}, α = {selection.alpha:g}){best}",
                     verdicts if verdicts is not None else level_verdicts(
                         selection, summary, level, sensitive, preview=preview, response=response, claims=claims,
                         audits=audits, preset=preset))
    source = privacy.source_metric(at) if len(at) else privacy.metric
    column = row.get("P_column")  # the column whose score is P: its value and its anchors, not another's
    if column is None and privacy.metric.per_column is PerColumn.SENSITIVE:
        column = privacy.column
    point = privacy.point(at, column, source)
    anchor_key = column if privacy.metric.per_column is PerColumn.SENSITIVE else privacy.metric.name
    anchor = selection.anchors.get("privacy", {}).get(anchor_key)
    where = f" for {column}" if column and privacy.metric.per_column else ""
    worst = " (the least protected sensitive column after scaling)" if privacy.worst and len(sensitive) > 1 else ""
    score = shown if shown == MORE_REVEALING else f"privacy score {shown}"
    card.protects.append(f"{source.short}{where}{worst}: {_number(point, _n(at, source.name, column))}; {score}"
                         f"{_anchors(anchor, selection.normalisation)}{PRIVACY_ENDS.get(selection.normalisation, '.')}")
    if privacy.metric.name != "mia_auc" and not at.metric("mia_auc").empty:
        mia = Axis(CATALOGUE["mia_auc"]).point(at, None)
        real = summary.model(REAL).metric("mia_auc").interval()
        floor = summary.model(SHUFFLED).metric("mia_auc").interval()
        card.protects.append(f"Membership attacks (strongest of three): AUC {_number(mia, _n(at, 'mia_auc'))} — "
                             f"0.5 learns nothing" + (f"; the real rows themselves: {anchor_words(real)}"
                                                      if real is not None else "")
                             + (f"; noise floor: {anchor_words(floor)}" if floor is not None else "") + ".")
    for name in level_column_names(table.columns, Column.SCALED):
        part = row[level_column(Column.SCALED, name)]
        metric = CATALOGUE[name]
        value = Axis(metric).point(at, None)
        anchor = selection.anchors.get("utility", {})
        anchor = anchor.get(name) if isinstance(anchor, dict) else anchor
        if selection.normalisation == Normalisation.MINMAX:
            scale = f"{way_words(part, 'the worst of these levels', 'the best')} (min-max scaling)"
        else:
            scale = (f"{way_words(part, NOTHING_KEPT, AS_REAL)}"
                     f"{_anchors(anchor, selection.normalisation)}")
        card.costs.append(f"{metric.short}: {_number(value, _n(at, name))} — {scale}.")
    if preview is not None:
        cut = preview.cut_at(level)
        cost = cut[cut["where"] != "sensitive block (intended)"]
        if len(cut):
            examples = ", ".join(f"{r.a} – {r.b} ({signed(r.real)} → {signed(r.kept)})"
                                 for r in cost.head(3).itertuples())
            card.costs.append(f"Expected to cut {len(cut)} real associations, {len(cut) - len(cost)} of them inside "
                              f"the sensitive block (intended)" + (f"; the others include {examples}" if examples
                                                                   else "") + ".")
    if level in selection.provisional:
        card.notes.append(f"Level {level}'s numbers are provisional: the sweep has not stored every task that writes "
                          "them, so it is not ranked.")
    elif level != selection.best_level and selection.best_level is not None:
        card.notes.append(f"Level {level} is not the best at these settings: level {selection.best_level} is "
                          f"(best in {percent(table.loc[selection.best_level, 'wins'])} of resamples; this level in "
                          f"{percent(row['wins'])}).")
    return card


TOPIC_WORDS = {Topic.ATTRIBUTE: "attribute inference", Topic.MEMBERSHIP: "membership", Topic.GDPR: "the GDPR criteria"}


def _levels(levels: list[int]) -> str:
    found = [str(v) for v in sorted(levels)]
    return f"level {found[0]}" if len(found) == 1 else "levels " + ", ".join(found[:-1]) + " and " + found[-1]


def officer_words(verdicts: Verdicts) -> str:
    """What a level's privacy verdicts ask of the officer, in a sentence ("" when none warns): the card, Export and
    page 1 say it beside a recommendation or a release."""
    found = verdicts.for_the_officer
    if not found:
        return ""
    topics = list(dict.fromkeys(TOPIC_WORDS[v.axis] for v in found))
    named = topics[0] if len(topics) == 1 else ", ".join(topics[:-1]) + " and " + topics[-1]
    return (f"Its verdict{'s' if len(found) > 1 else ''} on {named} "
            f"ask{'' if len(found) > 1 else 's'} for the privacy officer's agreement before release.")


def recommendation(selection: Selection, verdicts: Verdicts | None = None) -> str:
    """The recommendation as the pages word it, from the selection that made it: which level and how often it is
    best — at the user's weights, which is not the same as fit to release (``verdicts``: the recommended level's,
    whose warnings for the officer are then named) —, the levels left out because their numbers are provisional,
    or why there is none yet."""
    provisional = ""
    if selection.provisional:
        complete = [int(v) for v in selection.table["level"] if int(v) not in selection.provisional]
        provisional = (f" The numbers of {_levels(selection.provisional)} are provisional (the sweep has not stored "
                       "every task that writes them): "
                       + (f"the recommendation is made among the complete ones, {_levels(complete)}." if complete
                          else "no level is complete yet."))
    best = selection.best_level
    if best is None:
        why = ("no level has all its results yet" if selection.provisional else
               "no level has both a privacy and a utility score at these settings")
        return f"No level is recommended: {why}.{provisional}"
    wins = float(selection.table.set_index("level").loc[best, "wins"])
    text = (f"Recommended level: {best} — the best balance of privacy and utility at your weights (best in "
            f"{percent(wins)} of resamples within the intervals" + ("; a fragile choice: look at its neighbours)."
                                                                  if wins < FRAGILE else ")."))
    said = officer_words(verdicts) if verdicts is not None else ""
    text += (" Best at your weights is not the same as fit to release: " + (said[0].lower() + said[1:] if said else
             "read its verdicts before releasing it."))
    return text + provisional
