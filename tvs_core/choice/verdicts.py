"""The verdicts of one level, computed once: what the card leads with, what page 1 of the report prints for the officer
to sign, what the manifest's ``verdicts``, the ledger record and the command line's summary say — one set, in one
order (``Topic``: attribute inference, membership, the GDPR criteria and why they may differ from the attack game,
the references' differential privacy, usefulness, warnings), in the same words everywhere.

Each verdict is a plain sentence first, then what a steward usually does about it (``action``: choose a lower level,
drop a column, a DP generator, ask the officer) and whether more replicates could change it; the numbers it rests on
are its ``detail``, one click behind. Nothing here computes a number: every value is read from the sweep's summary,
the selection's levels table and anchors, the GDPR criteria (``gdpr``), the DP audits and the risk preview.

The rules, named here:

* a risk is read where it stands between the two anchors measured in the same run (``standing``): the attack on
  the real rows themselves and on the real rows shuffled column by column (nothing to learn). Within the spread of
  an anchor it reads as that anchor; between them **small** from a scaled score of ``standing.SMALL`` (0.6),
  **moderate** from ``standing.MODERATE`` (0.3), **large** below;
* attribute inference is read on the choice's privacy axis when that axis is an attribute attack, else on the
  default axis (the attacker's skill on real people), for the least protected sensitive column
  (``selection.deciding_columns``);
* membership is read on the strongest of three shadow-free attacks (``mia_auc``) against its noise floor (the same
  attacks on shuffled columns) and the real rows; it is a risk whenever the attack beats that floor;
* the GDPR criteria are ``gdpr.criterion_verdict``'s; when the attack game finds something to learn about a column
  and the GDPR inference criterion finds no risk for it (or the other way round), a sentence says why both hold;
* usefulness is read the same way, between chance (or independent columns) and the real data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from ..evaluation.catalogue import CATALOGUE, TSTR_METRICS, Group, PerColumn
from ..evaluation.dp_audit import AuditResult, audits_from_records
from ..evaluation.intervals import SMALL_N, interval_words
from ..evaluation.summary import Summary, summarise
from ..text import percent
from .axes import DEFAULT_PRIVACY, Axis
from .gdpr import CriterionVerdict, point_verdicts, risk_key
from .selection import MORE_REVEALING, Column, PrivacyPoints, Selection, level_column, level_column_names
from .standing import Reading, Standing

NEAR_INDEPENDENT = 0.25  # pair structure scored below this: the level keeps little more than independent columns
FRAGILE = 0.6  # the best level wins fewer resamples than this: the choice is fragile


class Topic(StrEnum):
    """What a verdict answers, in the order every reader prints the verdicts."""

    ATTRIBUTE = "Attribute inference"
    MEMBERSHIP = "Membership"
    GDPR = "GDPR criteria"
    WHY = "Why the two answers differ"
    DP = "Differential privacy"
    USEFULNESS = "Usefulness"
    WARNING = "Warning"


class Severity(StrEnum):
    OK = "ok"
    INFO = "info"  # a fact, or a small risk to know about
    WARN = "warn"
    BLOCK = "block"  # a refuted DP claim, a high GDPR risk


@dataclass(frozen=True)
class Verdict:
    axis: Topic
    severity: Severity
    sentence: str  # the verdict in plain words
    action: str = ""  # what a steward usually does about it, and whether more replicates could change it
    detail: str = ""  # the numbers it rests on and what they are measured against

    @property
    def text(self) -> str:
        """The sentence and its action: what every reader prints."""
        return f"{self.sentence} {self.action}" if self.action else self.sentence

    def to_dict(self) -> dict:
        return {"axis": str(self.axis), "severity": str(self.severity), "sentence": self.sentence,
                "action": self.action, "detail": self.detail}


class Verdicts(tuple):
    """A level's verdicts in ``Topic`` order."""

    def lines(self) -> list[str]:
        return [v.text for v in self]

    def of(self, *axes: Topic) -> Verdicts:
        return Verdicts(v for v in self if v.axis in axes)

    def to_json(self) -> list[dict]:
        return [v.to_dict() for v in self]


def level_verdicts(selection: Selection, summary: Summary, level: int, sensitive: list[str], *, preview=None,
                   response: str | None = None, claims: dict[str, float] | None = None,
                   audits: list[AuditResult] | None = None) -> Verdicts:
    """Every verdict at ``level``: ``preview`` (a ``LevelPreview``) adds the block-assumption check, ``claims`` (the
    ε each DP reference claims) and ``audits`` the differential-privacy verdict."""
    attribute, column, reading = _attribute(selection, summary, level, sensitive)
    found = [attribute, _membership(summary, level)]
    criteria = point_verdicts(summary, sensitive, level=level)
    found.append(_criteria(criteria, level))
    found.append(_why(column, reading, criteria))
    found.append(_dp(claims or {}, audits or []))
    found += _usefulness(selection, summary, level, response)
    found += _warnings(selection, summary, level, preview)
    return Verdicts(v for v in found if v is not None)


def sweep_verdicts(view, level: int, selection: Selection, records=None, summary: Summary | None = None) -> Verdicts:
    """``level_verdicts`` of a stored sweep (``view``: a ``JobView``, handed in — the choice never imports the jobs),
    scored by ``selection``: its preview, references' claims and DP audits read from the sweep; ``records`` and
    ``summary``: the sweep's, when the caller holds them already."""
    records = view.records() if records is None else records
    summary = summarise(records) if summary is None else summary
    config = view.config
    return level_verdicts(selection, summary, int(level), list(config.sensitive), preview=view.preview(),
                          response=config.response, claims=view.claims(), audits=audits_from_records(records))


# -- reading a value against its anchors ------------------------------------------------------------------------------
def _replicates(standing: Standing) -> str:
    """Whether more replicates could change the reading: too few for an interval, an interval reaching another
    reading, or settled."""
    n = standing.value.n
    if n < SMALL_N:
        return (f"Only {n} replicate{'s' if n != 1 else ''}, too few for a 95 % interval: more (the paper preset) "
                "could change this reading.")
    if not standing.settled:
        return "Its interval reaches another reading: more replicates (the paper preset) could change it."
    return "More replicates would not change this reading."


def _anchored(axis: Axis, summary: Summary, at: Summary, column: str | None, source=None) -> Standing:
    return Standing(axis.interval(at, column, source), axis.anchor_interval(summary, "worst", column, source),
                    axis.anchor_interval(summary, "ideal", column, source))


RISK_WORDS = {Reading.SMALL: "a small risk", Reading.MODERATE: "a moderate risk", Reading.LARGE: "a large risk"}


# -- attribute inference ----------------------------------------------------------------------------------------------
ATTRIBUTE_WORDS = {Reading.IDEAL: "no better than from shuffled columns, where there is nothing to learn",
                   Reading.SMALL: "a little better than from the column's average",
                   Reading.MODERATE: "clearly better than from the column's average, but less well than from the real "
                                     "data",
                   Reading.LARGE: "nearly as well as from the real data",
                   Reading.WORST: "about as well as from the real data itself",
                   Reading.BEYOND: "better than from the real data itself: the release exaggerates its link to the "
                                   "other columns"}


def _attribute_axis(selection: Selection, sensitive: list[str]) -> Axis:
    """The choice's privacy axis when it is an attribute attack, else the default axis (the attacker's skill on real
    people) on the least protected column."""
    if selection.privacy.metric.group is Group.ATTRIBUTE_RISK:
        return selection.privacy
    return DEFAULT_PRIVACY


def _attribute(selection: Selection, summary: Summary, level: int, sensitive: list[str]
               ) -> tuple[Verdict | None, str | None, Reading]:
    """The attribute-inference verdict (None without a sensitive column), the column it is about and how it
    reads."""
    topic = Topic.ATTRIBUTE
    axis = _attribute_axis(selection, sensitive)
    if not sensitive and axis.metric.per_column is PerColumn.SENSITIVE:
        return None, None, Reading.UNKNOWN
    at = summary.point(level)
    source = axis.source_metric(at)
    if axis == selection.privacy and level in set(selection.table["level"]):
        column = selection.table.set_index("level").loc[level].get("P_column") or axis.column
    else:
        column = PrivacyPoints(summary, axis, sensitive).of(summary.holder(), level)[1]
    if axis.metric.per_column is PerColumn.SENSITIVE and column is None:
        return Verdict(topic, Severity.INFO, f"At level {level}, the attribute-inference attack has not reported "
                                             "yet."), None, Reading.UNKNOWN
    standing = _anchored(axis, summary, at, column, source)
    value, reading = standing.value, standing.reading
    target = column or "the sensitive columns"
    least = ", the least protected sensitive column," if column and len(sensitive) > 1 and not axis.column else ""
    if value is None or math.isnan(value.median):
        return Verdict(topic, Severity.INFO, f"At level {level}, the attribute-inference attack has not reported "
                                             "yet."), column, reading
    numbers = f"{source.short} for {target}: {value.median:.3f} ({interval_words(value.low, value.high, value.n, 3)})"
    if reading is Reading.UNKNOWN:
        return Verdict(topic, Severity.INFO, f"At level {level}, the attribute-inference attack was measured, but the "
                                             "sweep has no real-data anchors to read it against.",
                       detail=numbers + "."), column, reading
    detail = (f"{numbers}; {standing.worst.median:.3f} on the real rows, {standing.ideal.median:.3f} on shuffled "
              f"columns, where there is nothing to learn; scaled between them: "
              f"{MORE_REVEALING if reading is Reading.BEYOND else f'{standing.share:.2f}'}.")
    sentence = (f"At level {level}, someone who knows a person's other columns predicts their {target}{least} "
                f"{ATTRIBUTE_WORDS[reading]}")
    if reading in RISK_WORDS:
        sentence += (f": {RISK_WORDS[reading]} against this table's own anchors (the release removes "
                     f"{percent(standing.share)} of what the real rows let an attacker learn).")
    else:
        sentence += "."
    actions = {Reading.IDEAL: "",
               Reading.SMALL: f"Usually acceptable; if {target} must not be predictable at all, choose a lower level.",
               Reading.MODERATE: f"Usually: choose a lower level or drop the column most linked to {target}; ask "
                                 "the officer before keeping this level."}
    action = actions.get(reading, f"Usually: choose a lower level, drop the columns most linked to {target}, or "
                                  "publish from a differentially private generator; do not release without the "
                                  "officer's agreement.")
    severity = Severity.OK if reading is Reading.IDEAL else Severity.INFO if reading is Reading.SMALL else \
        Severity.WARN
    return Verdict(topic, severity, sentence, _join(action, _replicates(standing)), detail), column, reading


# -- membership -------------------------------------------------------------------------------------------------------
MEMBERSHIP_WORDS = {Reading.IDEAL: "no better than the attacks' noise floor (the same attacks when there is nothing "
                                   "to learn)",
                    Reading.SMALL: "a little better than the attacks' noise floor",
                    Reading.MODERATE: "clearly better than the attacks' noise floor, but less well than with the real "
                                      "data",
                    Reading.LARGE: "nearly as well as with the real data",
                    Reading.WORST: "about as well as with the real data itself",
                    Reading.BEYOND: "better than with the real data itself"}


def _membership(summary: Summary, level: int) -> Verdict:
    """The strongest shadow-free membership attack against its noise floor and the real rows; the shadow-model
    game's privacy gain, where it has reported, in the detail."""
    topic = Topic.MEMBERSHIP
    at = summary.point(level)
    standing = _anchored(Axis(CATALOGUE["mia_auc"]), summary, at, None)
    pg = at.metric("pg").interval()
    game = (f"the shadow-model game's privacy gain PG {pg.median:.2f} ({interval_words(pg.low, pg.high, pg.n)}; 1 = "
            "the attacker learns nothing, 0 = as much as from the real rows)") if pg is not None else ""
    value, reading = standing.value, standing.reading
    if value is None or math.isnan(value.median) or reading is Reading.UNKNOWN:
        if not game:
            return Verdict(topic, Severity.INFO, f"At level {level}, no membership attack has reported yet.")
        return Verdict(topic, Severity.INFO, f"At level {level}, only the shadow-model membership game has "
                                             "reported.", detail=game[0].upper() + game[1:] + ".")
    detail = (f"Strongest of three attacks: AUC {value.median:.3f} ({interval_words(value.low, value.high, value.n, 3)}"
              f"); noise floor (the attacks on shuffled columns) {standing.ideal.median:.3f}; the real rows "
              f"themselves {standing.worst.median:.3f}; 0.5 is a coin toss" + (f"; {game}" if game else "") + ".")
    sentence = (f"At level {level}, an attacker holding the release tells whether a person was in the training data "
                f"{MEMBERSHIP_WORDS[reading]}")
    if reading in RISK_WORDS:
        sentence += f": {RISK_WORDS[reading]}, measurable, against this table's own anchors."
    else:
        sentence += "."
    actions = {Reading.IDEAL: "",
               Reading.SMALL: "Usually acceptable; look at the most exposed training rows (Choose page) and choose a "
                              "lower level if one of them must not be recognisable.",
               Reading.MODERATE: "Usually: choose a lower level, or remove unusual records before the fit; ask the "
                                 "officer before keeping this level."}
    action = actions.get(reading, "Usually: choose a lower level or publish from a differentially private generator; "
                                  "do not release without the officer's agreement.")
    severity = Severity.OK if reading is Reading.IDEAL else Severity.INFO if reading is Reading.SMALL else \
        Severity.WARN
    return Verdict(topic, severity, sentence, _join(action, _replicates(standing)), detail)


# -- the GDPR criteria, and why they may differ from the attack game --------------------------------------------------
SHORT = {"none": "no measurable risk", "measurable": "a measurable risk", "high": "a HIGH risk"}
GDPR_SEVERITY = {"none": Severity.OK, "measurable": Severity.WARN, "high": Severity.BLOCK}


def _criteria(criteria: list[CriterionVerdict], level: int) -> Verdict:
    """The three anonymisation criteria (Article 29 Working Party, Opinion 05/2014) in one verdict; each one's full
    sentence is the Choose page's GDPR block and the report's attack section."""
    topic = Topic.GDPR
    asked = ("GDPR criteria (can an attacker single out, link or infer a person of the training data better than one "
             "it never saw?): ")
    if not criteria:
        return Verdict(topic, Severity.INFO, asked + f"not measured at level {level} (its details have not reported "
                                                     "yet, or the sweep was run by an earlier version).")
    risky = [v for v in criteria if v.verdict != "none"]
    if not risky:
        said = "no measurable risk for any."
    else:
        said = "; ".join(f"{SHORT[v.verdict]} for {v.name[0].lower() + v.name[1:]}" for v in risky) + (
            "; no measurable risk for the rest." if len(risky) < len(criteria) else ".")
    detail = "; ".join(f"{v.name}: {SHORT[v.verdict]} ({v.numbers})" for v in criteria) + "."
    worst = max((v.verdict for v in criteria), key=list(GDPR_SEVERITY).index)
    action = ""
    if risky:
        action = ("Usually: choose a lower level, or drop the columns that single people out (identifiers, rare "
                  "values); with a measurable risk the release is not anonymous under Opinion 05/2014 — ask the "
                  "officer.")
        if any(not v.beats_baseline for v in risky):
            action += " Where an attack did no better than guessing blindly, its figure is not to be trusted."
        sets = min(v.sets for v in risky)
        if sets < SMALL_N:
            action += f" Each figure is a median over only {sets} published sets: the paper preset draws more."
    return Verdict(topic, GDPR_SEVERITY[worst], asked + said, action, detail)


def _why(column: str | None, reading: Reading, criteria: list[CriterionVerdict]) -> Verdict | None:
    """Beside the attack game's verdict and the GDPR inference criterion's, at every level where they could look
    contradictory: the game finds something to learn about the column and the criterion no risk, or the other way
    round."""
    said = next((v for v in criteria if column and v.key == risk_key("inference", column)), None)
    if said is None or reading is Reading.UNKNOWN:
        return None
    learns, risk = reading is not Reading.IDEAL, said.verdict != "none"
    if learns and not risk:
        sentence = (f"the attack game measures how well anyone predicts {column} from the other columns; the GDPR "
                    "inference criterion, whether the release does so better for the people it was trained on than "
                    f"for others. The release reproduces the link between {column} and the other columns — it reveals "
                    "something about everyone like them — without singling out the people it was trained on. (The "
                    "criterion's “guessing blindly” is its own baseline attack, not the column's average.)")
    elif risk and not learns:
        sentence = (f"the release does not let anyone predict {column} well in general, but for the people in the "
                    "training data it does better than for others — a sign that it repeats some of their records.")
    else:
        return None
    return Verdict(Topic.WHY, Severity.INFO, f"Why the two answers differ: {sentence}")


# -- differential privacy ---------------------------------------------------------------------------------------------
def _dp(claims: dict[str, float], audits: list[AuditResult]) -> Verdict:
    """The ε the sweep's references claim and what their audit found; TVineSynth itself claims none."""
    topic = Topic.DP
    if not claims:
        return Verdict(topic, Severity.INFO, "None of the sweep's reference generators claims differential privacy; "
                                             "TVineSynth makes no ε claim: its protection is what the attacks above "
                                             "measure.")
    audited = {a.model: a for a in audits}
    flagged = [a for a in audits if a.flagged]
    text = ("The sweep's differentially private references claim "
            + ", ".join(f"{name} ε = {eps:g}" for name, eps in claims.items()) + ". ")
    severity, action = Severity.INFO, ""
    if not audited:
        text += "Their claims were not audited."
        action = "Start the sweep with the DP audit to check them."
    elif flagged:
        text += ("The audit REFUTES " + ", ".join(f"{a.model} (its releases spend at least ε = "
                                                   f"{a.empirical_epsilon:.2f})" for a in flagged) + ".")
        action, severity = "Do not rely on those claims.", Severity.BLOCK
    else:
        text += "The audit found every audited claim consistent (an audit can refute a claim, never prove it)."
        severity = Severity.OK
    missing = [name for name in claims if name not in audited]
    if audited and missing:
        text += " Not audited: " + ", ".join(missing) + "."
    return Verdict(topic, severity, text + " TVineSynth itself makes no ε claim.", action)


# -- usefulness -------------------------------------------------------------------------------------------------------
def _usefulness(selection: Selection, summary: Summary, level: int, response: str | None) -> list[Verdict]:
    """One verdict per part of the utility mix, read between its anchors (chance or independent columns, and the
    real data)."""
    at = summary.point(level)
    table = selection.table.set_index("level")
    y = response or "the response"
    out = []
    for name in level_column_names(table.columns, Column.SCALED):
        metric = CATALOGUE[name]
        standing = _anchored(Axis(metric), summary, at, None)
        if standing.value is None or math.isnan(standing.value.median):
            continue
        reading, share = standing.reading, standing.share
        if name in TSTR_METRICS:
            how = {Reading.IDEAL: "about as well as models trained on the real data",
                   Reading.WORST: "no better than chance", Reading.BEYOND: "worse than chance"}.get(
                reading, f"{percent(share)} as well as models trained on the real data (counting what they do better "
                         "than chance)")
            sentence = f"Models trained on the synthetic data predict {y} {how}."
        elif name == "pair_structure":
            sentence = {Reading.IDEAL: "It keeps about all the associations between pairs of columns that the real "
                                       "data has.",
                        Reading.WORST: "It keeps no more of the associations between pairs of columns than independent "
                                       "columns would.",
                        Reading.BEYOND: "It keeps less of the associations between pairs of columns than independent "
                                        "columns would."}.get(
                reading, f"It keeps {percent(share)} of the associations between pairs of columns that the real data "
                         "has.")
        elif name == "ci_overlap":
            how = {Reading.IDEAL: "about as fully as the real data's own",
                   Reading.WORST: "no more than independent columns would",
                   Reading.BEYOND: "less than independent columns would"}.get(reading, f"by {percent(share)}")
            sentence = (f"A regression of {y} on the synthetic data gives confidence intervals that overlap those of "
                        f"the real data {how}.")
        else:
            sentence = f"{metric.short}: {percent(share)} of the way from 'nothing kept' to 'as the real data'."
        value = standing.value
        detail = (f"{metric.short}: {value.median:.3f} ({interval_words(value.low, value.high, value.n, 3)}); "
                  f"{standing.worst.median:.3f} for nothing kept, {standing.ideal.median:.3f} for the real data."
                  if reading is not Reading.UNKNOWN else "")
        large = reading in (Reading.LARGE, Reading.WORST, Reading.BEYOND)
        action = ("A large cost: a higher level keeps more (see PU per level), or give utility more weight (a lower α)."
                  if large else "A noticeable cost: check that your users' analyses do not rely on it, or choose a "
                                "higher level." if reading is Reading.MODERATE else "")
        if reading is not Reading.UNKNOWN and value.n >= SMALL_N and not standing.settled:  # few: a warning says so
            action = _join(action, _replicates(standing))
        severity = Severity.WARN if large else Severity.INFO if reading is Reading.MODERATE else Severity.OK
        out.append(Verdict(Topic.USEFULNESS, severity, sentence, action, detail))
    return out


# -- warnings ---------------------------------------------------------------------------------------------------------
def _warnings(selection: Selection, summary: Summary, level: int, preview) -> list[Verdict]:
    """What to be careful about at this level: a level keeping little pair structure, the block assumption failing,
    values beyond the anchors, a fragile best level, intervals of too few replicates, the choice's own notes."""
    table = selection.table.set_index("level")
    row = table.loc[level]
    out = []

    def warn(sentence: str, action: str = "") -> None:
        out.append(Verdict(Topic.WARNING, Severity.WARN, sentence, action))

    pair = level_column(Column.SCALED, "pair_structure")
    if pair in row.index and selection.method != "minmax" and float(row[pair]) < NEAR_INDEPENDENT:
        warn(f"Level {level} keeps little more pairwise dependence than independent columns ({percent(row[pair])} of "
             "the real data's): relations between columns other than those with Y will mostly not be reproduced.",
             "If your users study such relations, choose a higher level.")
    if preview is not None and len(preview.leaks):
        warn("The block assumption of Theorem 2.5 does not hold on this table: the sensitive block is linked to other "
             "columns, so truncation protects less than the theory says.",
             "Rely on the measured attacks above, not on the preview's promise.")
    if row["beyond"]:
        warn(f"Beyond the anchors: {row['beyond']}.")
    if level == selection.best_level and float(row["wins"]) < FRAGILE:
        warn(f"Fragile: level {level} is best in only {percent(row['wins'])} of resamples within the intervals.",
             "Look at its neighbours before choosing it.")
    small = sorted({int(n) for n in summary.point(level).frame["n"] if n < SMALL_N})
    if small:
        warn(f"Some intervals rest on only {', '.join(map(str, small))} replicates: they show a spread, not a 95 % "
             "confidence interval.", "The paper preset draws enough for intervals.")
    for note in selection.notes:
        warn(note)
    return out


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)
