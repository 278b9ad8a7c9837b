"""What a privacy officer signs, one plain sentence per question: can a person's sensitive value be inferred from
the release (attribute inference), can their presence in the training data be detected (membership), the three
anonymisation criteria of the GDPR (``gdpr``), and the differential-privacy claims of the sweep's references.

The report's first page reads these lines. Each verdict comes first, then the number it rests on with its interval
named for what it is (``interval_words``: a spread of a few values is never called a 95 % interval), then what the
number is measured against. The rules behind the verdicts are named here:

* attribute inference has no threshold: the sentence says where the attack stands between the same attack on the
  real rows and on the real rows shuffled column by column (nothing to learn), the anchors of the privacy scale
  (``catalogue``: MAB, the paper's measure, on the least protected sensitive column);
* membership reads **no measurable risk** when the strongest attack's interval reaches ``CHANCE_AUC`` (an attack
  that cannot tell training rows from hold-out rows), as a GDPR criterion does when its interval reaches 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..evaluation.catalogue import DEFAULT_PRIVACY_AXIS
from ..evaluation.dp_audit import AuditResult
from ..evaluation.intervals import interval_words
from ..evaluation.records import REAL
from ..evaluation.summary import Summary
from ..text import percent
from .axes import Axis
from .gdpr import point_verdicts

CHANCE_AUC = 0.5  # a membership attack that cannot tell training rows from hold-out rows
KINDS = {"none": "ok", "measurable": "warn", "high": "block"}  # a GDPR verdict as the report marks it


@dataclass(frozen=True)
class OfficerLine:
    topic: str  # what the sentence answers, e.g. "Attribute inference"
    sentence: str
    kind: str  # "ok", "warn", "block" or "info" (a fact without a verdict rule)


def _columns(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"


def attribute_line(summary: Summary, sensitive: list[str], level: int) -> OfficerLine:
    """Where the attribute-inference attack at ``level`` stands between the real rows (0 %) and nothing to learn
    (100 %), for the least protected sensitive column; the game's MAB, or the release attack's until it reports."""
    topic = "Attribute inference"
    axis = Axis.parse(DEFAULT_PRIVACY_AXIS, sensitive=sensitive)
    at = summary.point(level)
    source = axis.source_metric(at)
    what = f"guessing {_columns(sensitive)} of a person from their other columns"
    found = []
    for column in sensitive:
        median, low, high = axis.point(at, column, source)
        if math.isnan(median):
            continue
        worst, ideal = (axis.anchor(summary, end, column, source) for end in ("worst", "ideal"))
        share = (worst - median) / (worst - ideal) if None not in (worst, ideal) and worst != ideal else None
        n = at.metric(source.name).attribute(column).interval().n
        found.append((math.inf if share is None else share, column, median, low, high, n, worst, ideal))
    if not found:
        return OfficerLine(topic, f"{topic} ({what}): not measured at level {level} yet.", "info")
    share, column, median, low, high, n, worst, ideal = min(found)
    least = ", the least protected" if len(found) > 1 else ""
    numbers = f"{source.short} {median:.3f}, {interval_words(low, high, n, digits=3)}"
    if math.isinf(share):
        return OfficerLine(topic, f"{topic} ({what}): for {column}{least}, {numbers}; the sweep has no real-data "
                                  "anchors to compare it with.", "info")
    anchors = f"{worst:.3f} on the real rows, {ideal:.3f} on shuffled columns, where there is nothing to learn"
    if share >= 1:
        verdict, kind = f"an attacker learns no more about {column}{least} than from shuffled columns", "ok"
    elif share <= 0:
        verdict, kind = f"an attacker learns as much about {column}{least} as from the real rows, or more", "warn"
    else:
        verdict, kind = (f"the release removes {percent(share)} of what the real rows let an attacker learn about "
                         f"{column}{least}"), "info"
    return OfficerLine(topic, f"{topic} ({what}): {verdict} ({numbers}; {anchors}).", kind)


def membership_line(summary: Summary, level: int) -> OfficerLine:
    """The strongest shadow-free membership attack's AUC at ``level`` against chance, and the shadow-model game's
    privacy gain where it has reported."""
    topic = "Membership"
    what = "telling whether a person's record was in the training data"
    at = summary.point(level)
    auc, pg = at.metric("mia_auc").interval(), at.metric("pg").interval()
    parts, kind = [], "info"
    if auc is not None and not math.isnan(auc.median):
        real = summary.model(REAL).metric("mia_auc").interval()
        covered = auc.low <= CHANCE_AUC
        kind = "ok" if covered else "warn"
        verdict = ("no measurable risk: the strongest of three attacks does no better than chance" if covered else
                   "a measurable risk: the strongest of three attacks does better than chance")
        parts.append(f"{verdict} (AUC {auc.median:.2f}, {interval_words(auc.low, auc.high, auc.n)}; "
                     f"{CHANCE_AUC} is chance" + (f", the real rows themselves give {real.median:.2f}"
                                                   if real is not None else "") + ")")
    if pg is not None and not math.isnan(pg.median):
        parts.append(f"the shadow-model game's privacy gain PG is {pg.median:.2f} "
                     f"({interval_words(pg.low, pg.high, pg.n)}; 1 = the attacker learns nothing, 0 = as much as "
                     "from the real rows)")
    if not parts:
        return OfficerLine(topic, f"{topic} ({what}): no membership attack has reported at level {level}.", "info")
    return OfficerLine(topic, f"{topic} ({what}): " + "; ".join(parts) + ".", kind)


SHORT = {"none": "no measurable risk", "measurable": "a measurable risk", "high": "a HIGH risk"}


def criteria_line(summary: Summary, sensitive: list[str], level: int) -> OfficerLine:
    """The GDPR criteria at ``level`` in one sentence, each criterion's verdict (``gdpr.criterion_verdict``) with its
    residual risk and interval; marked as the worst of them. Each criterion's full sentence is the report's attack
    section's and the Choose page's."""
    topic = "GDPR criteria"
    verdicts = point_verdicts(summary, sensitive, level=level)
    if not verdicts:
        return OfficerLine(topic, "The anonymisation criteria (singling out, linkability, inference) were not measured "
                                  "in this sweep (it was run by an earlier version).", "info")
    text = ("Against the anonymisation criteria of the GDPR (Article 29 Working Party, Opinion 05/2014): "
            + "; ".join(f"{v.name[0].lower() + v.name[1:]} — {SHORT[v.verdict]} (residual risk {v.risk:.2f}, "
                        f"{interval_words(v.low, v.high, round(v.attacks), kind='wilson')})" for v in verdicts) + ".")
    if any(not v.beats_baseline and v.verdict != "none" for v in verdicts):
        text += " Where an attack did no better than guessing blindly its figure is not to be trusted."
    worst = max((v.verdict for v in verdicts), key=list(KINDS).index)
    return OfficerLine(topic, text, KINDS[worst])


def dp_line(claims: dict[str, float], audits: list[AuditResult]) -> OfficerLine:
    """The ε the sweep's references claim and what their audit found; TVineSynth itself claims none."""
    topic = "Differential privacy"
    if not claims:
        return OfficerLine(topic, "None of the sweep's reference generators claims differential privacy; TVineSynth "
                                  "makes no ε claim: its protection is what the attacks above measure.", "info")
    audited = {a.model: a for a in audits}
    flagged = [a for a in audits if a.flagged]
    text = ("The sweep's differentially private references claim "
            + ", ".join(f"{name} ε = {eps:g}" for name, eps in claims.items()) + ". ")
    kind = "info"
    if not audited:
        text += "Their claims were not audited (start the sweep with the DP audit to check them)."
    elif flagged:
        text += ("The audit REFUTES " + ", ".join(f"{a.model} (its releases spend at least ε = "
                                                   f"{a.empirical_epsilon:.2f})" for a in flagged)
                 + "; do not rely on those claims.")
        kind = "block"
    else:
        text += "The audit found every audited claim consistent (an audit can refute a claim, never prove it)."
        kind = "ok"
    missing = [name for name in claims if name not in audited]
    if audited and missing:
        text += " Not audited: " + ", ".join(missing) + "."
    return OfficerLine(topic, text + " TVineSynth itself makes no ε claim.", kind)


def officer_lines(summary: Summary, sensitive: list[str], level: int, claims: dict[str, float],
                  audits: list[AuditResult]) -> list[OfficerLine]:
    """Every verdict the officer signs for at ``level``: attribute inference, membership, the GDPR criteria, the
    references' DP claims."""
    return [attribute_line(summary, sensitive, level), membership_line(summary, level),
            criteria_line(summary, sensitive, level), dp_line(claims, audits)]
