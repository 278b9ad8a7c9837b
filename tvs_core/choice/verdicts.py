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

from ..evaluation.catalogue import CATALOGUE, TSTR_METRICS, Group, Metric, PerColumn
from ..evaluation.intervals import SMALL_N, Interval, interval_name, interval_rule
from ..evaluation.metrics.audit import AuditResult, audits_from_records
from ..evaluation.protocol import ProtocolName
from ..evaluation.records import model_label
from ..evaluation.release import DISTANCE_SETS
from ..evaluation.summary import Summary, summarise
from ..text import decimal, first_capital, percent, way_words
from .axes import DEFAULT_PRIVACY, Axis
from .gdpr import CriterionVerdict, point_verdicts, risk_key
from .selection import MORE_REVEALING, Column, Normalisation, PrivacyPoints, Selection, level_column, level_column_names
from .standing import Reading, Standing

NEAR_INDEPENDENT = 0.25  # pair structure scored below this: the level keeps little more than independent columns
FRAGILE = 0.6  # the best level wins fewer resamples than this: the choice is fragile


# the two ends of a utility part's anchored scale, as the card's costs and the verdicts name them
NOTHING_KEPT, AS_REAL = "'nothing kept'", "'as the real data'"


class Topic(StrEnum):
    """What a verdict answers, in the order every reader prints the verdicts."""

    ATTRIBUTE = "Attribute inference"
    MEMBERSHIP = "Membership"
    GDPR = "GDPR criteria"
    WHY = "Why the two answers differ"
    DP = "Differential privacy"
    USEFULNESS = "Usefulness"
    WARNING = "Caveat"  # what to be careful about at a level, not a severity: never "[Note] Warning: …"


class Severity(StrEnum):
    OK = "ok"
    INFO = "info"  # a fact, or a small risk to know about
    WARN = "warn"
    BLOCK = "block"  # a refuted DP claim, a high GDPR risk

    @property
    def word(self) -> str:
        """The severity in a word, printed beside its colour (the screens, page 1, the command line): read without
        colour, and on a machine without an emoji font."""
        return {"ok": "OK", "info": "Note", "warn": "Warning", "block": "Serious"}[self.value]


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


# the verdicts on what the release reveals: one that warns or blocks asks for the privacy officer's agreement
PRIVACY_TOPICS = (Topic.ATTRIBUTE, Topic.MEMBERSHIP, Topic.GDPR)
WARNED = (Severity.WARN, Severity.BLOCK)


class Verdicts(tuple):
    """A level's verdicts in ``Topic`` order."""

    def lines(self) -> list[str]:
        return [v.text for v in self]

    def of(self, *axes: Topic) -> Verdicts:
        return Verdicts(v for v in self if v.axis in axes)

    @property
    def warned(self) -> Verdicts:
        """The verdicts that warn or block: what Export repeats and asks the user to confirm before the release."""
        return Verdicts(v for v in self if v.severity in WARNED)

    @property
    def for_the_officer(self) -> Verdicts:
        """The privacy verdicts that warn or block — each says "ask the officer" or "do not release without the
        officer's agreement": a level with any is never recommended without saying so."""
        return Verdicts(v for v in self.warned if v.axis in PRIVACY_TOPICS)

    def to_json(self) -> list[dict]:
        return [v.to_dict() for v in self]


@dataclass(frozen=True)
class Room:
    """Where a level stands among the levels it could be traded for: the advice "choose a lower (higher) level" is
    given only where there is one — swept (``lower``, ``higher``), or at least possible but not evaluated by this
    sweep (``lower_unswept``, ``higher_unswept``: a level of the vine the sweep did not include)."""

    lower: bool
    higher: bool
    lower_unswept: bool = False
    higher_unswept: bool = False

    @classmethod
    def of(cls, selection: Selection, level: int, preview=None) -> Room:
        levels = [int(v) for v in selection.table["level"]]
        full = None if preview is None or not len(preview.cuts) else int(preview.cuts["level"].max())
        return cls(any(v < level for v in levels), any(v > level for v in levels), level > 1,
                   full is not None and level < full)

    def lower_level(self, verb: str = "choose") -> str:
        """The words for a lower level as a remedy ("" where there is none)."""
        if self.lower:
            return f"{verb} a lower level"
        return "sweep a lower level (this sweep has none below this one)" if self.lower_unswept else ""

    def higher_level(self, verb: str = "choose") -> str:
        if self.higher:
            return f"{verb} a higher level"
        return "sweep a higher level (this sweep has none above this one)" if self.higher_unswept else ""


def level_verdicts(selection: Selection, summary: Summary, level: int, sensitive: list[str], *, preview=None,
                   response: str | None = None, claims: dict[str, float] | None = None,
                   audits: list[AuditResult] | None = None, preset: ProtocolName | None = None) -> Verdicts:
    """Every verdict at ``level``: ``preview`` (a ``LevelPreview``) adds the block-assumption check, ``claims`` (the
    ε each DP reference claims) and ``audits`` the differential-privacy verdict; ``preset`` (the sweep's protocol
    preset) says whether more replicates are one preset away. Advice names only remedies that exist at this level:
    no lower level at the lowest (``Room``), no higher at the highest."""
    room = Room.of(selection, level, preview)
    replicates = Replicates(preset)
    attribute, column, reading = _attribute(selection, summary, level, sensitive, room, replicates)
    found = [attribute, _membership(summary, level, room, replicates)]
    criteria = point_verdicts(summary, sensitive, level=level)
    found.append(_criteria(criteria, level, room))
    found.append(_why(column, reading, criteria))
    found.append(_dp(claims or {}, audits or []))
    found += _usefulness(selection, summary, level, response, room, replicates)
    found += _warnings(selection, summary, level, preview, room, replicates)
    return Verdicts(v for v in found if v is not None)


def sweep_verdicts(view, level: int, selection: Selection, records=None, summary: Summary | None = None) -> Verdicts:
    """``level_verdicts`` of a stored sweep (``view``: a ``JobView``, handed in — the choice never imports the jobs),
    scored by ``selection``: its preview, references' claims and DP audits read from the sweep; ``records`` and
    ``summary``: the sweep's, when the caller holds them already."""
    records = view.records() if records is None else records
    summary = summarise(records) if summary is None else summary
    config = view.config
    return level_verdicts(selection, summary, int(level), list(config.sensitive), preview=view.preview(),
                          response=config.response, claims=view.claims(), audits=audits_from_records(records),
                          preset=config.preset)


# -- reading a value against its anchors ------------------------------------------------------------------------------
ANOTHER_SEED = "a second sweep with another master seed would show whether the reading holds"


@dataclass(frozen=True)
class Replicates:
    """What would settle a reading that rests on few replicates: the paper preset, where it draws more for that
    measure and the sweep did not run it; else — a measure scored on ``DISTANCE_SETS`` published sets under every
    preset (the membership attacks, the GDPR criteria, structure, closeness and fidelity), or a sweep run with the
    paper preset already — a second sweep with another master seed, whose replicates are new draws."""

    preset: ProtocolName | None  # the sweep's protocol preset (None: not known, read as the quick one)

    def paper_draws_more(self, metric: Metric) -> bool:
        return self.preset != ProtocolName.PAPER and metric.compute is None

    def advice(self, standing: Standing, metric: Metric) -> str:
        """Whether more replicates could change the reading: too few for an interval, an interval reaching another
        reading, or settled; and what would settle it."""
        n = standing.value.n
        paper = self.paper_draws_more(metric)
        if n is not None and n < SMALL_N:
            few = first_capital(interval_name(n))
            if paper:
                return few + ": the paper preset draws more, and could change this reading."
            where = (f"every preset scores this measure on {DISTANCE_SETS} published sets" if metric.compute
                     is not None else "even the paper preset draws no more")
            return f"{few} ({where}): {ANOTHER_SEED}."
        if not standing.settled:
            return ("Its interval reaches another reading: more replicates (the paper preset) could change it."
                    if paper else f"Its interval reaches another reading: {ANOTHER_SEED}.")
        return "More replicates would not change this reading."


def _anchored(axis: Axis, summary: Summary, at: Summary, column: str | None, source=None) -> Standing:
    return Standing(axis.interval(at, column, source), axis.anchor_interval(summary, "worst", column, source),
                    axis.anchor_interval(summary, "ideal", column, source))


RISK_WORDS = {Reading.SMALL: "a small risk", Reading.MODERATE: "a moderate risk", Reading.LARGE: "a large risk"}


def anchor_words(found: Interval) -> str:
    """An anchor's value, and its spread where it has one: what a value within that spread is read as."""
    if found.n and found.n > 1 and found.low is not None and not math.isnan(found.low) and found.low < found.high:
        return found.said(3)
    return f"{found.value:.3f}"


def read_as_anchor(standing: Standing, what: str, anchor: str) -> str:
    """Why a value reads as an anchor it does not equal (``Standing.one_sided``): it lies on one side of that
    anchor's value, but within the anchor's own spread, which the run cannot tell it from. "" otherwise."""
    if not standing.one_sided:
        return ""
    value = standing.value
    end = standing.ideal if standing.reading is Reading.IDEAL else standing.worst
    side = "above" if value.value > end.value else "below"
    return (f": {what}, {value.value:.3f} ({value.words(3)}), lies {side} {anchor}, {end.value:.3f}, but "
            f"within its own {end.words(3)}, so this run cannot tell the two apart")


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


def _attribute(selection: Selection, summary: Summary, level: int, sensitive: list[str], room: Room,
               replicates: Replicates) -> tuple[Verdict | None, str | None, Reading]:
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
    if value is None or math.isnan(value.value):
        return Verdict(topic, Severity.INFO, f"At level {level}, the attribute-inference attack has not reported "
                                             "yet."), column, reading
    numbers = f"{source.short} for {target}: {value.said(3)}"
    if reading is Reading.UNKNOWN:
        return Verdict(topic, Severity.INFO, f"At level {level}, the attribute-inference attack was measured, but the "
                                             "sweep has no real-data anchors to read it against.",
                       detail=numbers + "."), column, reading
    detail = (f"{numbers}; {anchor_words(standing.worst)} on the real rows, {anchor_words(standing.ideal)} on "
              f"shuffled columns, where there is nothing to learn; scaled between them: "
              f"{MORE_REVEALING if reading is Reading.BEYOND else decimal(standing.share)}.")
    anchor = "the shuffled columns' value" if reading is Reading.IDEAL else "the real rows' value"
    sentence = (f"At level {level}, someone who knows a person's other columns predicts their {target}{least} "
                f"{ATTRIBUTE_WORDS[reading]}{read_as_anchor(standing, f'its {source.short}', anchor)}")
    if reading in RISK_WORDS:
        sentence += (f": {RISK_WORDS[reading]} against this table's own anchors (the release removes "
                     f"{percent(standing.share)} of what the real rows let an attacker learn).")
    else:
        sentence += "."
    lower = room.lower_level()
    dp = "publish from a differentially private generator"
    actions = {Reading.IDEAL: "",
               Reading.SMALL: f"Usually acceptable; if {target} must not be predictable at all, "
                              + (lower or f"drop the column most linked to it or {dp}") + ".",
               Reading.MODERATE: "Usually: " + _either(lower, f"drop the column most linked to {target}",
                                                       "" if lower else dp)
                                 + "; ask the officer before keeping this level."}
    action = actions.get(reading, "Usually: " + _either(lower, f"drop the columns most linked to {target}", dp)
                         + "; do not release without the officer's agreement.")
    severity = Severity.OK if reading is Reading.IDEAL else Severity.INFO if reading is Reading.SMALL else \
        Severity.WARN
    return (Verdict(topic, severity, sentence, _join(action, replicates.advice(standing, source)), detail), column,
            reading)


# -- membership -------------------------------------------------------------------------------------------------------
MEMBERSHIP_WORDS = {Reading.IDEAL: "no better than the attacks' noise floor (the same attacks when there is nothing "
                                   "to learn)",
                    Reading.SMALL: "a little better than the attacks' noise floor",
                    Reading.MODERATE: "clearly better than the attacks' noise floor, but less well than with the real "
                                      "data",
                    Reading.LARGE: "nearly as well as with the real data",
                    Reading.WORST: "about as well as with the real data itself",
                    Reading.BEYOND: "better than with the real data itself"}


STRONGEST_AUC = "its strongest attack's AUC"


def _membership(summary: Summary, level: int, room: Room | None = None, replicates: Replicates | None = None
                ) -> Verdict:
    """The strongest shadow-free membership attack against its noise floor and the real rows; the shadow-model
    game's privacy gain, where it has reported, in the detail."""
    topic = Topic.MEMBERSHIP
    at = summary.point(level)
    standing = _anchored(Axis(CATALOGUE["mia_auc"]), summary, at, None)
    pg = at.metric("pg").interval()
    game = (f"the shadow-model game's privacy gain PG {pg.value:.2f} ({pg.words()}; 1 = "
            "the attacker learns nothing, 0 = as much as from the real rows)") if pg is not None else ""
    value, reading = standing.value, standing.reading
    if value is None or math.isnan(value.value) or reading is Reading.UNKNOWN:
        if not game:
            return Verdict(topic, Severity.INFO, f"At level {level}, no membership attack has reported yet.")
        return Verdict(topic, Severity.INFO, f"At level {level}, only the shadow-model membership game has "
                                             "reported.", detail=game[0].upper() + game[1:] + ".")
    room = room or Room(True, True)
    replicates = replicates or Replicates(None)
    detail = (f"Strongest of three attacks: AUC {value.value:.3f} ({value.words(3)}"
              f"); noise floor (the attacks on shuffled columns) {anchor_words(standing.ideal)}; the real rows "
              f"themselves {anchor_words(standing.worst)}; 0.5 is a coin toss" + (f"; {game}" if game else "") + ".")
    words = MEMBERSHIP_WORDS[reading]
    if standing.one_sided and reading is Reading.IDEAL:  # not "no better": its spread lies above the floor's value
        words = "not measurably better than the attacks' noise floor (the same attacks when there is nothing to learn)"
    anchor = "the noise floor" if reading is Reading.IDEAL else "the attacks on the real rows"
    sentence = (f"At level {level}, an attacker holding the release tells whether a person was in the training data "
                f"{words}{read_as_anchor(standing, STRONGEST_AUC, anchor)}")
    if reading in RISK_WORDS:
        sentence += f": {RISK_WORDS[reading]}, measurable, against this table's own anchors."
    else:
        sentence += "."
    lower = room.lower_level()
    dp = "publish from a differentially private generator"
    actions = {Reading.IDEAL: "",
               Reading.SMALL: "Usually acceptable; look at the most exposed training rows (Choose page)"
                              + (f" and {lower} if one of them must not be recognisable." if lower else
                                 ", and remove those that must not be recognisable before the fit."),
               Reading.MODERATE: "Usually: " + _either(lower, "remove unusual records before the fit")
                                 + "; ask the officer before keeping this level."}
    action = actions.get(reading, "Usually: " + _either(lower, "remove unusual records before the fit", dp)
                         + "; do not release without the officer's agreement.")
    severity = Severity.OK if reading is Reading.IDEAL else Severity.INFO if reading is Reading.SMALL else \
        Severity.WARN
    return Verdict(topic, severity, sentence, _join(action, replicates.advice(standing, CATALOGUE["mia_auc"])),
                   detail)


# -- the GDPR criteria, and why they may differ from the attack game --------------------------------------------------
SHORT = {"none": "no measurable risk", "measurable": "a measurable risk", "high": "a HIGH risk"}
GDPR_SEVERITY = {"none": Severity.OK, "measurable": Severity.WARN, "high": Severity.BLOCK}


def _criteria(criteria: list[CriterionVerdict], level: int, room: Room | None = None) -> Verdict:
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
        lower = (room or Room(True, True)).lower_level()
        action = ("Usually: " + _either(lower, "drop the columns that single people out (identifiers, rare values)")
                  + "; with a measurable risk the release is not anonymous under Opinion 05/2014 — ask the officer.")
        if any(not v.beats_baseline for v in risky):
            action += " Where an attack did no better than guessing blindly, its figure is not to be trusted."
        sets = min(v.sets for v in risky)
        if sets < SMALL_N:
            action += (f" Each figure is a median over only {sets} published sets (every preset scores the criteria "
                       f"on {DISTANCE_SETS}): {ANOTHER_SEED}.")
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
def claimed_words(name: str, epsilon: float) -> str:
    """A reference and the ε it claims, by the legend's name: "DP vine (ε = 0.1)" (the ε added where the name does
    not carry it)."""
    label = model_label(name)
    return label if label.endswith(f"(ε = {epsilon:g})") else f"{label} (ε = {epsilon:g})"


def _dp(claims: dict[str, float], audits: list[AuditResult]) -> Verdict:
    """The ε the sweep's references claim and what their audit found; TVineSynth itself claims none."""
    topic = Topic.DP
    if not claims:
        return Verdict(topic, Severity.INFO, "None of the sweep's reference generators claims differential privacy; "
                                             "TVineSynth makes no ε claim: its protection is what the attacks above "
                                             "measure.")
    audited = {a.model: a for a in audits}
    flagged = [a for a in audits if a.flagged]
    text = ("The sweep's references that claim differential privacy: "
            + ", ".join(claimed_words(name, eps) for name, eps in claims.items()) + ". ")
    severity, action = Severity.INFO, ""
    if not audited:
        text += "Their claims were not audited in this sweep: a claim is the generator's design, not a measurement."
    elif flagged:
        text += ("The audit REFUTES " + ", ".join(f"{model_label(a.model)} (its releases spend at least ε = "
                                                   f"{a.empirical_epsilon:.2f})" for a in flagged) + ".")
        action, severity = "Do not rely on those claims.", Severity.BLOCK
    else:
        text += "The audit found every audited claim consistent (an audit can refute a claim, never prove it)."
        severity = Severity.OK
    missing = [model_label(name) for name in claims if name not in audited]
    if audited and missing:
        text += " Not audited: " + ", ".join(missing) + "."
    return Verdict(topic, severity, text + " TVineSynth itself makes no ε claim.", action)


# -- usefulness -------------------------------------------------------------------------------------------------------
def _usefulness(selection: Selection, summary: Summary, level: int, response: str | None, room: Room | None = None,
                replicates: Replicates | None = None) -> list[Verdict]:
    """One verdict per part of the utility mix, read between its anchors (chance or independent columns, and the
    real data)."""
    at = summary.point(level)
    table = selection.table.set_index("level")
    y = response or "the response"
    room, replicates = room or Room(True, True), replicates or Replicates(None)
    higher = room.higher_level()
    out = []
    for name in level_column_names(table.columns, Column.SCALED):
        metric = CATALOGUE[name]
        standing = _anchored(Axis(metric), summary, at, None)
        if standing.value is None or math.isnan(standing.value.value):
            continue
        reading, share = standing.reading, standing.share
        if name in TSTR_METRICS:
            how = {Reading.IDEAL: "about as well as models trained on the real data",
                   Reading.WORST: "no better than chance", Reading.BEYOND: "worse than chance"}.get(
                reading, f"{percent(share)} as well as models trained on the real data (counting what they do better "
                         "than chance)")
            if standing.one_sided and reading is Reading.IDEAL:  # not "about as well": its range lies below
                how = "as well as models trained on the real data, as far as this run can tell"
            anchor = "the real data's models" if reading is Reading.IDEAL else "chance"
            sentence = (f"Models trained on the synthetic data predict {y} {how}"
                        f"{read_as_anchor(standing, f'their {metric.unit}', anchor)}.")
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
            sentence = f"{metric.short}: {way_words(share, NOTHING_KEPT, AS_REAL)}."
        value = standing.value
        detail = (f"{metric.short}: {value.said(3)}; "
                  f"{standing.worst.value:.3f} for nothing kept, {standing.ideal.value:.3f} for the real data."
                  if reading is not Reading.UNKNOWN else "")
        large = reading in (Reading.LARGE, Reading.WORST, Reading.BEYOND)
        if large:
            action = ("A large cost: a higher level keeps more (see PU per level), or give utility more weight (a "
                      "lower α)." if room.higher else
                      "A large cost: a higher level, which this sweep did not evaluate, may keep more; check that your "
                      "users' analyses do not rely on it." if room.higher_unswept else
                      "A large cost, and no level keeps more: check that your users' analyses do not rely on it; a "
                      "richer set of pair-copula families (the Sweep page) may keep more.")
        elif reading is Reading.MODERATE:
            action = "A noticeable cost: " + _either("check that your users' analyses do not rely on it", higher) + "."
        else:
            action = ""
        if reading is not Reading.UNKNOWN and (value.n or 0) >= SMALL_N and not standing.settled:  # few: warned
            action = _join(action, replicates.advice(standing, metric))
        severity = Severity.WARN if large else Severity.INFO if reading is Reading.MODERATE else Severity.OK
        out.append(Verdict(Topic.USEFULNESS, severity, sentence, action, detail))
    return out


# -- warnings ---------------------------------------------------------------------------------------------------------
def _warnings(selection: Selection, summary: Summary, level: int, preview, room: Room | None = None,
              replicates: Replicates | None = None) -> list[Verdict]:
    """What to be careful about at this level: a level keeping little pair structure, the block assumption failing,
    values beyond the anchors, a fragile best level, intervals of too few replicates, the choice's own notes."""
    table = selection.table.set_index("level")
    row = table.loc[level]
    room, replicates = room or Room(True, True), replicates or Replicates(None)
    out = []

    def warn(sentence: str, action: str = "", detail: str = "") -> None:
        out.append(Verdict(Topic.WARNING, Severity.WARN, sentence, action, detail))

    pair = level_column(Column.SCALED, "pair_structure")
    if pair in row.index and selection.normalisation != Normalisation.MINMAX and float(row[pair]) < NEAR_INDEPENDENT:
        higher = room.higher_level()
        warn(f"Level {level} keeps little more pairwise dependence than independent columns ({percent(row[pair])} of "
             "the real data's): relations between columns other than those with Y will mostly not be reproduced.",
             f"If your users study such relations, {higher}." if higher else
             "If your users study such relations, this release does not serve them.")
    if preview is not None and len(preview.leaks):
        warn("On this table the sensitive columns are linked to columns outside their block, so truncation protects "
             "less than the theory behind the risk preview promises.",
             "Rely on the measured attacks above, not on the preview's promise.",
             f"The block assumption of the paper's Theorem 2.5 does not hold: {len(preview.leaks)} pair(s) link the "
             "sensitive block to the other columns.")
    if row["beyond"]:
        warn(f"Beyond the anchors: {row['beyond']}.")
    if level == selection.best_level and float(row["wins"]) < FRAGILE:
        warn(f"Fragile: level {level} is best in only {percent(row['wins'])} of resamples within the intervals.",
             "Look at its neighbours before choosing it.")
    frame = summary.point(level).frame
    few = frame[frame["n"] < SMALL_N]
    small = sorted({int(n) for n in few["n"]})
    if small:
        metrics = [CATALOGUE[name] for name in few["metric"].unique() if name in CATALOGUE]
        more = any(replicates.paper_draws_more(m) for m in metrics)
        fixed = any(m.compute is not None for m in metrics)
        action = ("The paper preset draws enough for the attack games and the utility" if more else "")
        if fixed:
            action = _join(action + ("; the" if action else "The"), f"measures scored on each published set "
                           f"(membership attacks, GDPR criteria, structure, closeness, fidelity) rest on "
                           f"{DISTANCE_SETS} sets under every preset: {ANOTHER_SEED}.")
        elif action:
            action += "."
        else:
            action = f"Even the paper preset draws no more: {ANOTHER_SEED}."
        # a note, not a warning: every sweep has measures of five sets, and a warning on every level would make
        # Export ask for a confirmation on every release, which teaches a steward to click through
        out.append(Verdict(Topic.WARNING, Severity.INFO, f"Some intervals rest on only {', '.join(map(str, small))} "
                           f"replicates; each is named for what it is: {interval_rule()}.", action))
    for note in selection.notes:
        warn(note)
    return out


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _either(*remedies: str) -> str:
    """Remedies joined as a list, "a, b or c", the ones that do not exist here ("") left out."""
    found = [r for r in remedies if r]
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " or " + found[-1]
