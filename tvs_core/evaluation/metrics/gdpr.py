"""Anonymisation under the GDPR: the three criteria of the Article 29 Working Party (singling out, linkability,
inference), each measured on one published set by the attacks of Giomi et al. 2023 (``gdpr_criteria``, the
family's adapter, over the attacks below): its residual risk, one entry carrying its 95 % interval and number of attacks
(``intervals.Interval``, as anonymeter's ``PrivacyRisk``), and the three attacks' success rates, one metric each.

The three criteria of anonymisation of the Article 29 Working Party (Opinion 05/2014 on anonymisation
techniques, WP216, kept by the EDPB) measured on one published synthetic set: can an attacker **single out** a
person, **link** two records of the same person, **infer** an attribute?

Method: Giomi, Boenisch, Wehmeyer and Tasnádi, "A Unified Framework for Quantifying Privacy Risk in Synthetic
Data", PoPETS 2023 (arXiv 2211.10459; the tool is anonymeter, reviewed by the CNIL). Implemented from the paper and
the anonymeter documentation (README and the evaluators' docstrings, statice/anonymeter), not from its code; the
known answers of tests/evaluation/metrics/test_gdpr.py and the comparison with anonymeter itself in bench/anonymity.md
check it.

Every criterion runs three attacks with the same number of attempts n:

* the **main** attack uses the synthetic rows to guess something about the training rows;
* the **control** attack makes the same guesses about hold-out rows, which the generator never saw: what the
  synthetic data tell about anyone (their utility), not about the people in the training rows;
* the **baseline** attack guesses at random, without the synthetic rows: a sanity check, the main attack must beat
  it for the figures to be trusted.

Each success rate is the centre of its 95 % Wilson score interval and its half-width is the rate's error
(``intervals.wilson``). The risk is the residual success ``(main - control) / (1 - control)``, its error
propagated to first order from both rates' errors (sqrt((e_m / (1 - c))^2 + (e_c (m - 1) / (1 - c)^2)^2)),
and both the risk and its 95 % interval risk +- error are clipped to [0, 1], as anonymeter reports them.

Attacks (anonymeter's defaults: n = 500 attempts at most, 3 columns per multivariate predicate, 1 neighbour,
5 % tolerance):

* **Singling out**: predicates that isolate exactly one synthetic row, checked on the training rows (success: the
  predicate isolates exactly one training row). *Univariate* predicates are a column's value that occurs once in
  the synthetic rows, or a numeric column below its synthetic minimum or above its maximum. *Multivariate* ones
  are built from a random synthetic row and 3 random columns: equality on a categorical column, on a numeric one
  "at least" the row's value if it lies above the synthetic median, else "at most" (towards the tail, where
  singling out is likelier). Baseline: predicates with random columns, random observed values and random
  operators (= and != for categories; =, !=, <, >, <=, >= for numbers). Duplicate rows are dropped first.
* **Linkability**: the columns split into two disjoint groups (even and odd positions); a training record is linked
  when the nearest synthetic row on the first group's columns is also the nearest on the second's (k nearest
  neighbours: any shared row among the k). Baseline: k random synthetic rows per group.
* **Inference**, per sensitive column: the attacker knows every other column of a target, and guesses the secret
  as the value of the nearest synthetic row on those columns; a categorical secret must be guessed exactly, a
  numeric one within 5 % of the guess (|guess - secret| <= 0.05 |guess|). Baseline: a random synthetic row's value.

Distances are the Gower-type distance of the paper (``distance.gower_space``: range-scaled L1 on numbers, 0/1 per
categorical column) through the shared neighbour search (``distance.nearest``).

Deviations, stated:

* Singling out's control when the hold-out is smaller than the training rows (every 20 % split). Whether a
  predicate isolates one row depends on how many rows it is checked on, so the control must be measured on as many
  rows as the main attack. anonymeter fits Cohen and Nissim's model of singling-out probability against the
  control's size and extrapolates; here the predicates are checked on a population of |train| rows made of every
  hold-out row and a seeded sample of the other training rows, and a success counts only when the one isolated row
  is a hold-out row. Where nothing leaks, training and hold-out rows are exchangeable, so that count is the
  singling-out count at the training set's size times |hold-out| / |train|: the control rate is the Wilson
  estimate of the count scaled back by |train| / |hold-out| (its error likewise). A hold-out larger than the
  training rows is subsampled to their size.
* The attacks see the set as published: every value rounded as the released table rounds it (the caller's job,
  ``metrics.gdpr.gdpr_criteria``), so that "a value that occurs once" means what it means in the released file.
* Query generation stops after ``MAX_ATTEMPTS`` candidate predicates (anonymeter: 10 million); fewer predicates
  mean fewer attacks, and n says how many.
* The 5 % tolerance is taken on |guess|: |guess - secret| <= 0.05 |guess|. anonymeter 1.1.0 divides by the signed
  guess (``evaluate_inference_guesses``: |guess - secret| / (guess + 1e-12) <= tolerance), so for a negative guess
  the ratio is negative and every negative guess counts as a hit, however far off (bench/judges.py codes numeric
  secrets in deciles before running it, for that reason). A date secret must be guessed exactly (anonymeter
  compares dates as categories)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from ...data.schema import CATEGORICAL_TYPES, ColumnType
from ...seeding import task_rng
from ..distance import gower_space, nearest
from ..intervals import Interval, IntervalKind, wilson
from ..set_metrics import SyntheticSet
from .base import Direction, Family, Group, Metric, PerColumn, RiskRecords, Source, register

N_ATTACKS = 500  # anonymeter's default number of attacks per criterion
PREDICATE_COLUMNS = 3  # columns of a multivariate singling-out predicate (anonymeter's default)
NEIGHBOURS = 1  # linkability: a link is a shared nearest synthetic row (anonymeter's default)
TOLERANCE = 0.05  # inference: a numeric secret guessed within 5 % (anonymeter's default)
MAX_ATTEMPTS = 50_000  # candidate multivariate predicates tried at most per set
_BATCH = 1_000  # candidate predicates drawn at a time
_CELLS = 4_000_000  # rows x predicates x columns compared per chunk

# predicate operators, coded
EQ, LE, GE, NE, LT, GT = range(6)
_NUMERIC_OPS = np.array([EQ, NE, GT, LT, GE, LE])
_CATEGORICAL_OPS = np.array([EQ, NE])


class Part(StrEnum):
    """What each criterion records on one set, in this order (the catalogue says how each reads): declared once, so
    that the records, the catalogue, the verdicts and the report cannot name different parts."""

    RISK = "risk"
    RISK_LOW = "risk_low"
    RISK_HIGH = "risk_high"
    MAIN_RATE = "main_rate"
    CONTROL_RATE = "control_rate"
    BASELINE_RATE = "baseline_rate"
    ATTACKS = "attacks"


def criterion_record(criterion: str, part: Part) -> str:
    """The record name of one part of a criterion: ``linkability_risk``, ``inference_main_rate``."""
    return f"{criterion}_{part}"


@dataclass(frozen=True)
class AttackOutcome:
    """One criterion on one set: the number of attacks and the three attacks' success rates, each a Wilson
    (centre, half-width)."""

    attacks: int
    main: tuple[float, float]
    control: tuple[float, float]
    baseline: tuple[float, float]

    def risk(self) -> Interval:
        """The residual success (main - control) / (1 - control) with its propagated 95 % interval, clipped to
        [0, 1], over ``attacks`` attacks; NaN when there was no attack or the control attack always succeeded."""
        (m, e_m), (c, e_c) = self.main, self.control
        if self.attacks == 0 or not c < 1:
            return Interval(*(float("nan"),) * 3, self.attacks, IntervalKind.WILSON)
        value = (m - c) / (1 - c)
        error = float(np.hypot(e_m / (1 - c), e_c * (m - 1) / (1 - c) ** 2))
        clip = lambda x: float(min(max(x, 0.0), 1.0))  # noqa: E731
        return Interval(clip(value), clip(value - error), clip(value + error), self.attacks, IntervalKind.WILSON)

    def values(self) -> dict[Part, float]:
        """The record values of every ``Part``: the risk, its interval, the three success rates and the number of
        attacks (the store keeps an ``Interval`` as these parts, one record each)."""
        risk = self.risk()
        return {Part.RISK: risk.value, Part.RISK_LOW: risk.low, Part.RISK_HIGH: risk.high, Part.MAIN_RATE: self.main[0],
                Part.CONTROL_RATE: self.control[0], Part.BASELINE_RATE: self.baseline[0],
                Part.ATTACKS: float(risk.n)}


def _outcome(attacks: int, main: float, control: float, baseline: float, control_scale: float = 1.0) -> AttackOutcome:
    centre, error = wilson(control, attacks)
    return AttackOutcome(attacks, wilson(main, attacks), (centre * control_scale, error * control_scale),
                         wilson(baseline, attacks))


# -- singling out -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Predicates:
    """Conjunctions of (column, operator, value) conditions, one predicate per row of the three arrays."""

    columns: np.ndarray  # (q, c) int
    operators: np.ndarray  # (q, c) int, EQ ... GT
    values: np.ndarray  # (q, c) float

    def __len__(self) -> int:
        return len(self.columns)

    def take(self, keep) -> Predicates:
        return Predicates(self.columns[keep], self.operators[keep], self.values[keep])

    def counts(self, rows: np.ndarray) -> np.ndarray:
        """How many of ``rows`` each predicate matches. Every condition is a closed range [low, high] (a strict
        inequality moves its end by one ulp), negated for !=: two comparisons a cell whatever the operator."""
        op, v = self.operators, self.values
        low = np.select([op == GE, op == GT, op == LE, op == LT], [v, np.nextafter(v, np.inf), -np.inf, -np.inf], v)
        high = np.select([op == LE, op == LT, op == GE, op == GT], [v, np.nextafter(v, -np.inf), np.inf, np.inf], v)
        negate = op == NE
        out = np.zeros(len(self), dtype=np.int64)
        step = max(1, _CELLS // max(1, len(rows) * max(1, self.columns.shape[1])))
        for start in range(0, len(self), step):
            part = slice(start, start + step)
            x = rows[:, self.columns[part]]  # (n, p, c)
            hit = ((x >= low[part]) & (x <= high[part])) ^ negate[part]
            out[part] = hit.all(axis=2).sum(axis=0)
        return out

    def keys(self) -> list[bytes]:
        """One key per predicate, its conditions in column order (the same predicate written twice is one)."""
        order = np.argsort(self.columns, axis=1, kind="stable")
        parts = [np.take_along_axis(a, order, axis=1).astype(float) for a in (self.columns, self.operators,
                                                                              self.values)]
        return [row.tobytes() for row in np.ascontiguousarray(np.concatenate(parts, axis=1))]


def univariate_predicates(synthetic: np.ndarray, categorical: np.ndarray, rng: np.random.Generator,
                          n: int = N_ATTACKS) -> Predicates:
    """Up to n one-column predicates that isolate exactly one synthetic row: a value occurring once, or a numeric
    column at most its minimum / at least its maximum; shuffled (seeded) before the first n are taken."""
    columns, operators, values, matched = [], [], [], []
    for j in range(synthetic.shape[1]):
        found, count = np.unique(synthetic[:, j], return_counts=True)
        rare = found[count == 1]
        columns += [j] * len(rare)
        operators += [EQ] * len(rare)
        values += list(rare)
        matched += [1] * len(rare)
        if not categorical[j]:
            columns += [j, j]
            operators += [LE, GE]
            values += [found[0], found[-1]]
            matched += [count[0], count[-1]]  # the rows at the minimum, at the maximum
    every = Predicates(np.array(columns, dtype=int)[:, None], np.array(operators, dtype=int)[:, None],
                       np.array(values, dtype=float)[:, None])
    order = rng.permutation(len(every))  # each predicate is written once: no duplicates to drop
    # how many synthetic rows each matches is known from the counts above (a 120-column set has ~500 000 such
    # predicates, which ``counts`` would compare with every row); with a value that is not a number, it is counted
    counts = np.asarray(matched)[order] if np.isfinite(synthetic).all() else every.take(order).counts(synthetic)
    return every.take(order[np.flatnonzero(counts == 1)[:n]])


def multivariate_predicates(synthetic: np.ndarray, categorical: np.ndarray, rng: np.random.Generator,
                            n: int = N_ATTACKS, width: int = PREDICATE_COLUMNS,
                            max_attempts: int = MAX_ATTEMPTS) -> Predicates:
    """Up to n predicates on ``width`` columns that isolate exactly one synthetic row, each built from a random
    synthetic row: equality on a categorical column, towards the column's tail on a numeric one."""
    width = min(width, synthetic.shape[1])
    median = np.median(synthetic, axis=0)
    kept: list[Predicates] = []
    found, tried = 0, set()
    for _ in range(max(1, max_attempts // _BATCH)):
        rows = rng.integers(0, len(synthetic), _BATCH)
        columns = np.argsort(rng.random((_BATCH, synthetic.shape[1])), axis=1)[:, :width]
        values = synthetic[rows[:, None], columns]
        operators = np.where(categorical[columns], EQ, np.where(values > median[columns], GE, LE))
        batch = Predicates(columns, operators, values.astype(float))
        fresh = []  # a predicate drawn again is counted once (small tables offer few distinct predicates)
        for i, key in enumerate(batch.keys()):
            if key not in tried:
                tried.add(key)
                fresh.append(i)
        if not fresh:
            break
        batch = batch.take(fresh)
        single = batch.take(np.flatnonzero(batch.counts(synthetic) == 1)[:n - found])
        kept.append(single)
        found += len(single)
        if found >= n:
            break
    return Predicates(*(np.concatenate([getattr(p, a) for p in kept]) for a in ("columns", "operators", "values")))


def random_predicates(synthetic: np.ndarray, categorical: np.ndarray, rng: np.random.Generator, n: int,
                      width: int) -> Predicates:
    """The baseline attacker's n predicates: random columns, each with a random observed synthetic value and a
    random operator."""
    width = min(width, synthetic.shape[1])
    columns = np.argsort(rng.random((n, synthetic.shape[1])), axis=1)[:, :width]
    rows = rng.integers(0, len(synthetic), (n, width))
    values = synthetic[rows, columns].astype(float)
    numeric_op = _NUMERIC_OPS[rng.integers(0, len(_NUMERIC_OPS), (n, width))]
    categorical_op = _CATEGORICAL_OPS[rng.integers(0, len(_CATEGORICAL_OPS), (n, width))]
    return Predicates(columns, np.where(categorical[columns], categorical_op, numeric_op), values)


def _control_population(train: np.ndarray, control: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """(population of |train| rows, which of them are hold-out rows, scale of the control count): see the module
    docstring; the scale is |train| / |hold-out| (1 when the hold-out is subsampled to |train| rows)."""
    if len(control) >= len(train):
        return control[np.sort(rng.choice(len(control), len(train), replace=False))], \
            np.ones(len(train), dtype=bool), 1.0
    others = train[np.sort(rng.choice(len(train), len(train) - len(control), replace=False))]
    is_control = np.r_[np.ones(len(control), dtype=bool), np.zeros(len(others), dtype=bool)]
    return np.vstack([control, others]), is_control, len(train) / len(control)


def singling_out(synthetic: np.ndarray, train: np.ndarray, control: np.ndarray, categorical: np.ndarray,
                 rng: np.random.Generator, mode: str = "multivariate", n: int = N_ATTACKS) -> AttackOutcome:
    """Singling-out risk (``mode``: "univariate" or "multivariate" predicates): predicates isolating one synthetic
    row, a success when they isolate one training row; the control at the training set's size (module docstring)."""
    synthetic, train, control = (np.unique(a, axis=0) for a in (synthetic, train, control))
    categorical = np.asarray(categorical, dtype=bool)
    if mode == "univariate":
        predicates, width = univariate_predicates(synthetic, categorical, rng, n), 1
    elif mode == "multivariate":
        predicates, width = multivariate_predicates(synthetic, categorical, rng, n), PREDICATE_COLUMNS
    else:
        raise ValueError(f"mode must be 'univariate' or 'multivariate', not {mode!r}")
    attacks = len(predicates)
    if attacks == 0:
        return AttackOutcome(0, (float("nan"),) * 2, (float("nan"),) * 2, (float("nan"),) * 2)
    main = int(np.sum(predicates.counts(train) == 1))
    population, is_control, scale = _control_population(train, control, rng)
    in_control = predicates.counts(population[is_control])
    control_hits = int(np.sum((in_control == 1) & (predicates.counts(population[~is_control]) == 0)))
    baseline = int(np.sum(random_predicates(synthetic, categorical, rng, attacks, width).counts(train) == 1))
    return _outcome(attacks, main, control_hits, baseline, scale)


# -- linkability and inference: attacks on target records ---------------------------------------------------------
def _targets(train: np.ndarray, control: np.ndarray, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """As many training as hold-out targets (at most n), drawn without replacement."""
    n = min(n, len(train), len(control))
    return train[rng.choice(len(train), n, replace=False)], control[rng.choice(len(control), n, replace=False)]


def column_groups(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The linkability attacker's two disjoint column groups: even and odd positions."""
    return np.arange(0, d, 2), np.arange(1, d, 2)


def linkability(synthetic: np.ndarray, train: np.ndarray, control: np.ndarray, categorical: np.ndarray,
                rng: np.random.Generator, n: int = N_ATTACKS, neighbours: int = NEIGHBOURS,
                groups: tuple[np.ndarray, np.ndarray] | None = None) -> AttackOutcome:
    """Linkability risk: a target is linked when its two column groups share a nearest synthetic row."""
    categorical = np.asarray(categorical, dtype=bool)
    first, second = column_groups(synthetic.shape[1]) if groups is None else groups
    on_train, on_control = _targets(train, control, rng, n)
    k = min(neighbours, len(synthetic))
    found = {"train": [], "control": []}
    for group in (first, second):  # one scale per group for every row the attack compares
        syn, rows_train, rows_control = gower_space(categorical[group], synthetic[:, group], on_train[:, group],
                                                    on_control[:, group])
        found["train"].append(nearest(rows_train, syn, k, metric="cityblock")[1])
        found["control"].append(nearest(rows_control, syn, k, metric="cityblock")[1])
    attacks = len(on_train)
    guesses = [np.array([rng.choice(len(synthetic), k, replace=False) for _ in range(attacks)]) for _ in range(2)]
    return _outcome(attacks, _links(*found["train"]), _links(*found["control"]), _links(*guesses))


def _links(first: np.ndarray, second: np.ndarray) -> int:
    """Targets whose two neighbour lists share a synthetic row."""
    return int(sum(bool(set(a) & set(b)) for a, b in zip(first, second, strict=True)))


def correct_guesses(guesses: np.ndarray, secrets: np.ndarray, numeric: bool,
                    tolerance: float = TOLERANCE) -> np.ndarray:
    """A categorical secret guessed exactly; a numeric one within ``tolerance`` of the guess."""
    if numeric:
        return np.abs(guesses - secrets) <= tolerance * np.abs(guesses)
    return guesses == secrets


def inference(synthetic: np.ndarray, train: np.ndarray, control: np.ndarray, categorical: np.ndarray, secret: int,
              numeric: bool, rng: np.random.Generator, n: int = N_ATTACKS) -> AttackOutcome:
    """Inference risk of column ``secret``: the attacker knows every other column and takes the nearest synthetic
    row's value (``numeric``: guessed within the tolerance, else exactly)."""
    categorical = np.asarray(categorical, dtype=bool)
    known = np.delete(np.arange(synthetic.shape[1]), secret)
    on_train, on_control = _targets(train, control, rng, n)
    syn, rows_train, rows_control = gower_space(categorical[known], synthetic[:, known], on_train[:, known],
                                                on_control[:, known])

    def hits(rows: np.ndarray, targets: np.ndarray) -> int:
        guesses = synthetic[nearest(rows, syn, 1, metric="cityblock")[1][:, 0], secret]
        return int(correct_guesses(guesses, targets[:, secret], numeric).sum())

    attacks = len(on_train)
    random_guesses = synthetic[rng.integers(0, len(synthetic), attacks), secret]
    baseline = int(correct_guesses(random_guesses, on_train[:, secret], numeric).sum())
    return _outcome(attacks, hits(rows_train, on_train), hits(rows_control, on_control), baseline)


def gdpr_criteria(s: SyntheticSet) -> dict:
    """The three anonymisation criteria (the attacks above) on the set as it is published: every value rounded as the
    released table rounds it (decoded and encoded again), so a value that occurs once is one in the released file.
    Each criterion records its residual risk, the risk's 95 % interval, the three attacks' success rates and the
    number of attacks (``Part``); inference per sensitive column."""
    published = s.data.encoder.transform(s.data.encoder.inverse_transform(s.values))
    train, control, categorical = s.data.train, s.data.test, s.data.categorical

    def rng(criterion: str, column: str = ""):
        return task_rng(s.master_seed, "gdpr", criterion, column, s.label, s.level, s.index)

    found = {"singling_out": singling_out(published, train, control, categorical, rng("singling_out")),
             "singling_out_univariate": singling_out(published, train, control, categorical,
                                                               rng("singling_out_univariate"), mode="univariate"),
             "linkability": linkability(published, train, control, categorical, rng("linkability"))}
    out: dict = {}
    for criterion, outcome in found.items():
        out |= {criterion_record(criterion, part): value for part, value in outcome.values().items()}
    for column in s.data.schema.sensitive:
        j = s.data.index(column)
        numeric = s.data.schema[column].type not in (*CATEGORICAL_TYPES, ColumnType.DATETIME)
        outcome = inference(published, train, control, categorical, j, numeric, rng("inference", column))
        for part, value in outcome.values().items():
            out.setdefault(criterion_record("inference", part), {})[column] = value
    return out


# the three anonymisation criteria of the Article 29 Working Party (Opinion 05/2014), as the attacks of Giomi et al.
# (PETS 2023) measure them (evaluation/metrics/gdpr.py): record-name prefix, label, what the attacker does
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
