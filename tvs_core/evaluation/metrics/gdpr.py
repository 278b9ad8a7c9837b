"""Anonymisation under the GDPR: the three criteria of the Article 29 Working Party (singling out, linkability,
inference), each measured on one published set by the attacks of Giomi et al. 2023 (``gdpr_criteria`` below
over ``evaluation/anonymity.py``): its residual risk, one entry carrying its 95 % interval and number of attacks
(``intervals.Interval``, as anonymeter's ``PrivacyRisk``), and the three attacks' success rates, one metric each."""

from __future__ import annotations

from dataclasses import replace

from ...data.schema import CATEGORICAL_TYPES, ColumnType
from ...seeding import task_rng
from .. import anonymity
from ..anonymity import Part, criterion_record
from ..intervals import IntervalKind
from ..set_metrics import SyntheticSet
from .base import Direction, Family, Group, Metric, PerColumn, RiskRecords, Source, register


def gdpr_criteria(s: SyntheticSet) -> dict:
    """The three anonymisation criteria (``anonymity``) on the set as it is published: every value rounded as the
    released table rounds it (decoded and encoded again), so a value that occurs once is one in the released file.
    Each criterion records its residual risk, the risk's 95 % interval, the three attacks' success rates and the
    number of attacks (``anonymity.Part``); inference per sensitive column."""
    published = s.data.encoder.transform(s.data.encoder.inverse_transform(s.values))
    train, control, categorical = s.data.train, s.data.test, s.data.categorical

    def rng(criterion: str, column: str = ""):
        return task_rng(s.master_seed, "gdpr", criterion, column, s.label, s.level, s.index)

    found = {"singling_out": anonymity.singling_out(published, train, control, categorical, rng("singling_out")),
             "singling_out_univariate": anonymity.singling_out(published, train, control, categorical,
                                                               rng("singling_out_univariate"), mode="univariate"),
             "linkability": anonymity.linkability(published, train, control, categorical, rng("linkability"))}
    out: dict = {}
    for criterion, outcome in found.items():
        out |= {anonymity.criterion_record(criterion, part): value for part, value in outcome.values().items()}
    for column in s.data.schema.sensitive:
        j = s.data.index(column)
        numeric = s.data.schema[column].type not in (*CATEGORICAL_TYPES, ColumnType.DATETIME)
        outcome = anonymity.inference(published, train, control, categorical, j, numeric, rng("inference", column))
        for part, value in outcome.values().items():
            out.setdefault(anonymity.criterion_record("inference", part), {})[column] = value
    return out


# the three anonymisation criteria of the Article 29 Working Party (Opinion 05/2014), as the attacks of Giomi et al.
# (PETS 2023) measure them (evaluation/anonymity.py): record-name prefix, label, what the attacker does
GDPR_CRITERIA = (
    ("singling_out", "Singling-out risk (multivariate predicates)",
     "conditions on 3 columns that pick out a single synthetic row, checked against the training rows"),
    ("singling_out_univariate", "Singling-out risk (univariate predicates)",
     "one-column conditions (a value occurring once, below the minimum, above the maximum) that pick out a single "
     "synthetic row, checked against the training rows"),
    ("linkability", "Linkability risk",
     "two disjoint column groups of a training record linked through their shared nearest synthetic row"),
    ("inference", "Inference risk",
     "the sensitive column guessed from the nearest synthetic row on every other column (a number within 5 %)"),
)
SHARE = ("share", Direction.LOWER, (0.0, 1.0))  # how a risk and a success rate read: unit, better, range
# the parts recorded for each criterion: label suffix, unit, better, range, explanation
GDPR_PARTS: dict[Part, tuple] = {
    Part.RISK: ("", *SHARE,
     "How much more often the attack succeeds on the people in the training rows than on hold-out people the "
     "generator never saw, from 0 (nothing beyond what the data tell about anyone) to 1 (the attack succeeds on "
     "the training people only, as on a verbatim copy). The residual risk (main − control) / (1 − control), "
     "clipped to [0, 1]."),
    Part.RISK_LOW: (": 95 % interval, lower end", *SHARE,
     "The lower end of one set's 95 % interval of the residual risk, from the uncertainty of both success rates "
     "(Wilson intervals, propagated), clipped to [0, 1]."),
    Part.RISK_HIGH: (": 95 % interval, upper end", *SHARE,
     "The upper end of one set's 95 % interval of the residual risk, clipped to [0, 1]."),
    Part.MAIN_RATE: (": main attack's success rate", *SHARE,
     "The share of attacks on the people in the training rows that succeed (a Wilson estimate, steady even for "
     "few attacks)."),
    Part.CONTROL_RATE: (": control attack's success rate", *SHARE,
     "The share of the same attacks that succeed on hold-out people, whom the generator never saw: what the data "
     "reveal about anyone (Wilson estimate)."),
    Part.BASELINE_RATE: (": naive baseline's success rate", *SHARE,
     "The share of attacks that succeed by guessing blindly, without the synthetic rows (Wilson estimate): the "
     "main attack must beat it for the figures to mean anything."),
    Part.ATTACKS: (": number of attacks", "attacks", Direction.HIGHER, (0.0, None),
     "How many attacks of this kind were run on one published set (at most 500; for linkability and inference "
     "at most the number of hold-out rows)."),
}


def _part(prefix: str, label: str, attack: str, part: Part) -> Metric:
    """One record of a criterion, described (summary.json: {median, ci_low, ci_high, n} over the published sets)."""
    suffix, unit, better, bounds, explanation = GDPR_PARTS[part]
    short = label.replace(" risk", "")
    return Metric(criterion_record(prefix, part), f"{label}{suffix}", f"{short}{suffix or ' risk'}", unit, better,
                  bounds, Group.GDPR, Source.RELEASE, f"{explanation} Attack: {attack} (Giomi et al. 2023).",
                  per_column=PerColumn.SENSITIVE if prefix == "inference" else None)


def _criterion(prefix: str, label: str, attack: str) -> tuple[Metric, ...]:
    """A criterion's risk, one entry carrying its interval and number of attacks (an ``Interval``), and the three
    attacks' success rates."""
    part = lambda p: _part(prefix, label, attack, p)  # noqa: E731
    risk = replace(part(Part.RISK), risk=RiskRecords(part(Part.RISK_LOW), part(Part.RISK_HIGH), part(Part.ATTACKS),
                                                     IntervalKind.WILSON))
    return (risk, *(part(p) for p in (Part.MAIN_RATE, Part.CONTROL_RATE, Part.BASELINE_RATE)))


# one computation, ``gdpr_criteria``, writes every record of the family: the family owns it
GDPR = register(Family("gdpr", 60, tuple(metric for criterion in GDPR_CRITERIA for metric in _criterion(*criterion)),
                       compute=gdpr_criteria))
# a GDPR criterion's record name -> (the criterion, its part)
GDPR_RECORDS: dict[str, tuple[str, Part]] = {criterion_record(criterion, part): (criterion, part)
                                             for criterion, *_ in GDPR_CRITERIA for part in Part}
