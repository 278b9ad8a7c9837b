"""What every metric declares, whatever its family: the ``Metric`` record, its anchors (``Reference``) and the enums
its kinds are members of. The families (the other modules of this package) declare their metrics with these;
``evaluation/catalogue.py`` gathers them.

Anchored normalisation (selection) maps a metric onto [0, 1], higher = better, by two anchors:
``worst`` scores 0 and ``ideal`` scores 1. An anchor is a constant or a ``Reference``: the value of
a metric measured on real data in the same run (e.g. the attack on the real rows, or TRTR).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from ..intervals import Interval, IntervalKind
from ..set_metrics import SyntheticSet
from ..sizes import RELEASE_ROWS, SET_ROWS


# StrEnums: stored records, summary.json and settings written before them hold the same text, and still compare equal
class Direction(StrEnum):
    """Which way is better, from the data holder's side: more private, or more useful."""

    HIGHER = "higher"
    LOWER = "lower"


class Group(StrEnum):
    """The family a metric is listed under, in the order tables and the reference list them."""

    UTILITY = "utility"
    ATTRIBUTE_RISK = "attribute risk"
    MEMBERSHIP_RISK = "membership risk"
    GDPR = "anonymisation (GDPR)"
    FIDELITY = "fidelity"


class Source(StrEnum):
    """What a metric's values are measured on."""

    RELEASE = "release"
    GAME = "game"
    REFERENCE = "reference"


class PerColumn(StrEnum):
    """A metric with one value per column: per sensitive column, or per column of any kind (every column, each
    attack, each canary)."""

    SENSITIVE = "sensitive"
    ANY = "any"


class AxisKind(StrEnum):
    """The axis of the scatter and of PU_t a metric may be."""

    PRIVACY = "privacy"
    UTILITY = "utility"


GROUPS = tuple(Group)
SOURCES = {Source.RELEASE: "the synthetic sets of the holder's model (the data actually published)",
           Source.GAME: "an attack game's generators fitted on subsets of the training rows",
           Source.REFERENCE: "the real data (the anchors)"}


@dataclass(frozen=True)
class Reference:
    """An anchor measured in the same run: ``metric`` as recorded for the real-data ``model``;
    ``otherwise`` where it was not measured (sweeps stored before the anchor existed)."""

    metric: str
    model: str
    otherwise: float | None = None


@dataclass(frozen=True)
class Metric:
    """One metric, declared once: what its records are called, how a steward reads it, how it is normalised, and
    the function that computes it (``compute`` or ``produced_by``), so that a reader goes from here to that code."""

    name: str  # the record name
    label: str  # axis titles, long form
    short: str  # tables and menus
    unit: str
    better: Direction
    range: tuple[float, float | None]  # None: unbounded above
    group: Group
    source: Source
    explanation: str  # one line for the UI
    per_column: PerColumn | None = None  # None: one value per set
    axis: AxisKind | None = None  # may be this axis of the scatter and of PU_t
    # an axis's title in plain words: what it measures, and which way is safer (or more useful); set for every axis
    question: str | None = None
    worst: float | Reference | None = None  # anchored normalisation: scores 0 ...
    ideal: float | Reference | None = None  # ... and 1
    fallback: str | None = None  # a cheaper estimate of the same quantity, used while this one is missing
    spread: str = "bootstrap"  # "bootstrap": interval of the median over replicates; "percentile":
    # the replicates are bootstrap draws already, their percentiles are the interval
    # the function computing it on one published set (``set_metrics``: a ``SyntheticSet`` in, {name: value} out)
    compute: Callable[[SyntheticSet], dict] | None = None
    # otherwise the function that writes its records (a game's iteration, the release attack, TSTR, TRTR): where a
    # reader goes from the declaration to the code that computes it
    produced_by: Callable[..., list[dict]] | None = None
    rows: int | None = None  # a tighter cap than SET_ROWS for an expensive per-set metric
    # a risk (``intervals.Interval``): each value comes with its interval and the count behind it, kept as records of
    # their own beside the value's (``RiskRecords``); None: a plain value
    risk: RiskRecords | None = None
    # a per-column metric whose "columns" are not the table's (each attack): each by the name a person reads
    column_names: dict[str, str] | None = None

    def column_name(self, column: str) -> str:
        """A column of this metric as a table or figure shows it."""
        return (self.column_names or {}).get(column, column)

    def __post_init__(self) -> None:
        """Text given for a typed field becomes its member, so that a misspelt value fails where it is declared."""
        for name, kind in ENUM_FIELDS.items():
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                object.__setattr__(self, name, kind(value))

    @property
    def lower_is_better(self) -> bool:
        return self.better is Direction.LOWER

    def records(self) -> tuple[Metric, ...]:
        """Every record this metric writes, described: its value's, and a risk's interval ends and count."""
        return (self,) if self.risk is None else (self, self.risk.low, self.risk.high, self.risk.count)

    def read_risk(self, value: Callable[[str], float | None]) -> Interval | None:
        """This risk read back from its records, ``value(record name)`` (e.g. a point's medians over its sets);
        None where it was not measured."""
        found = [value(m.name) for m in self.records()]
        if self.risk is None or any(v is None for v in found):
            return None
        risk, low, high, count = found
        return Interval(risk, low, high, None if math.isnan(count) else round(count), self.risk.kind)

    @property
    def rows_cap(self) -> int | None:
        """The most rows of each kind this metric is computed on (None: all of them)."""
        if self.compute:
            return self.rows or SET_ROWS
        return RELEASE_ROWS if self.source is Source.RELEASE else None


@dataclass(frozen=True)
class RiskRecords:
    """How a risk's interval and count are kept: records of their own beside the value's (the store's rows as they
    always were), each described as a ``Metric`` for whoever reads one (a table's row, the glossary) but not an entry
    of the catalogue: the risk is one entry."""

    low: Metric
    high: Metric
    count: Metric
    kind: IntervalKind


@dataclass(frozen=True)
class Family:
    """A metric family, declared and computed in one module of this package: its metrics, in the order tables list
    them, and where they come among the families (``position``). ``compute``: the one computation of a published set
    that writes every metric of the family naming no function of its own (the GDPR criteria's 16 entries and their
    records), owned here rather than repeated on each declaration."""

    name: str
    position: int
    metrics: tuple[Metric, ...]
    compute: Callable[[SyntheticSet], dict] | None = None

    def __post_init__(self) -> None:
        if self.compute is not None:
            object.__setattr__(self, "metrics", tuple(_computed_by(m, self.compute) for m in self.metrics))

    def __iter__(self):
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)


def _computed_by(metric: Metric, compute: Callable) -> Metric:
    """``metric`` (and a risk's interval and count records) computed by the family's computation, unless it names
    a function of its own."""
    if metric.compute or metric.produced_by:
        return metric
    risk = metric.risk and RiskRecords(*(_computed_by(m, compute) for m in metric.records()[1:]), metric.risk.kind)
    return replace(metric, compute=compute, risk=risk)


_REGISTERED: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Make a family known to the catalogue, which is built from every registered family in ``position`` order;
    each module of this package registers its own when imported (``catalogue`` imports them all)."""
    _REGISTERED[family.name] = family
    return family


def registered() -> tuple[Family, ...]:
    """Every registered family, in ``position`` order."""
    return tuple(sorted(_REGISTERED.values(), key=lambda family: family.position))


ENUM_FIELDS = {"better": Direction, "group": Group, "source": Source, "per_column": PerColumn, "axis": AxisKind}
