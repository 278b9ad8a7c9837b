"""What "the privacy (or utility) of a level" means, said in one place.

An axis is written as text in the CLI, the manifest and the session: ``NAME`` for a metric with one
value per level (``pg``, ``mcmia``, ``auc_tstr``), ``NAME:COLUMN`` for one sensitive column
(``mab:total_cost``), ``NAME_worst`` for the least protected sensitive column (``mab_worst``; which one is
the choice's to say, after scaling each column: ``selection.deciding_columns``). The metric's
catalogue entry says how it is read: its direction, its anchors, and the cheaper estimate used
while it is missing (the game MAB falls back to the release MAB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import DataError
from ..evaluation.catalogue import (
    CATALOGUE,
    DEFAULT_PRIVACY_AXIS,
    AxisKind,
    Group,
    Metric,
    PerColumn,
    Reference,
    Source,
    axis_metrics,
    tstr_metric,
)
from ..evaluation.intervals import Interval
from ..evaluation.summary import Summary
from .standing import point

WORST = "_worst"


def axis_choices(kind: AxisKind, sensitive: list[str]) -> list[str]:
    """Every text an axis of ``kind`` ('privacy' or 'utility') accepts for these sensitive columns."""
    out = []
    for m in axis_metrics(kind):
        if m.per_column is PerColumn.SENSITIVE:
            out += [m.name + WORST] + [f"{m.name}:{column}" for column in sensitive]
        else:
            out.append(m.name)
    return out


@dataclass(frozen=True)
class Axis:
    metric: Metric
    column: str | None = None  # one sensitive column of a per-column metric
    worst: bool = False  # the least protected sensitive column of a per-column metric

    @classmethod
    def parse(cls, text: str, kind: AxisKind = AxisKind.PRIVACY, sensitive: list[str] | None = None) -> Axis:
        """``text`` as an axis of ``kind``; refused by name, with the choices, when it is not one. Text arrives at
        the edge only (the command line, a stored project or manifest); inside, an axis travels as an ``Axis``."""
        name, _, column = text.partition(":")
        worst = not column and name.endswith(WORST)
        name = name[: -len(WORST)] if worst else name
        found = CATALOGUE.get(name)
        choices = ", ".join(axis_choices(kind, sensitive or ["COLUMN"]))
        if found is None or found.axis != kind:
            raise DataError(f"'{text}' is not a {kind} measure.", fix=f"Choose one of: {choices}.")
        if found.per_column is PerColumn.SENSITIVE and not (worst or column):
            raise DataError(f"'{text}' needs a column.", fix=f"Write {name}{WORST} or {name}:COLUMN.")
        if found.per_column is not PerColumn.SENSITIVE and (worst or column):
            raise DataError(f"'{name}' has one value per level, not per column.", fix=f"Write {name}.")
        return cls(found, column or None, worst).among(sensitive)

    def among(self, sensitive: list[str] | None) -> Axis:
        """This axis, refused by name when its one column is not among ``sensitive`` (a project's axis meets a
        sweep with other sensitive columns); None: not checked."""
        if self.column and sensitive is not None and self.column not in sensitive:
            raise DataError(f"'{self.column}' in '{self.text}' is not a sensitive column.",
                            fix=f"Choose one of: {', '.join(sensitive)}.")
        return self

    @classmethod
    def utility(cls, metric_names) -> Axis:
        """TSTR with the random forest, scored by AUC or, for a continuous response, by R²."""
        return cls(tstr_metric(metric_names))

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        if self.worst:
            return self.metric.name + WORST
        return f"{self.metric.name}:{self.column}" if self.column else self.metric.name

    @property
    def title(self) -> str:
        if self.worst:
            return f"{self.metric.label}, least protected sensitive column"
        if self.column:
            return f"{self.metric.label} for {self.column}"
        return self.metric.label + (", median over targets" if self.metric.source is Source.GAME else "")

    @property
    def question(self) -> str:
        """The axis in plain words: the catalogue's question (what it measures, which way is safer or more useful),
        narrowed to the column when the axis is one column's."""
        asked = self.metric.question or self.metric.label
        return f"{asked}: {self.column} only" if self.column else asked

    def columns(self, sensitive: list[str]) -> list[str | None]:
        """The per-column values the axis combines (one None for a metric without columns)."""
        if self.metric.per_column is not PerColumn.SENSITIVE:
            return [None]
        return [self.column] if self.column else list(sensitive)

    def source_metric(self, model_rows: Summary) -> Metric:
        """The metric read for one model: this axis's own, or its fallback where that one is missing."""
        if not model_rows.metric(self.metric.name).empty or self.metric.fallback is None:
            return self.metric
        return CATALOGUE[self.metric.fallback]

    def interval(self, rows: Summary, column: str | None, source: Metric | None = None) -> Interval | None:
        """The value of one model and level, one column (None: every column), with its interval and n; several
        summary rows (targets, target kinds) are pooled by their medians. None where it was not measured."""
        hit = rows.metric((source or self.metric).name)
        return (hit if column is None else hit.attribute(column)).interval()

    def point(self, rows: Summary, column: str | None, source: Metric | None = None) -> tuple[float, float, float]:
        """(median, ci_low, ci_high) of ``interval``; NaN where it was not measured. Which column of a worst-column
        axis decides is the choice's to say (``selection.PrivacyPoints``): it compares scaled values."""
        found = self.interval(rows, column, source)
        if found is None:
            return math.nan, math.nan, math.nan
        return found.value, found.low, found.high

    def anchor(self, summary: Summary, end: str, column: str | None, source: Metric | None = None
               ) -> float | None:
        """The value that scores 0 (``end='worst'``) or 1 (``'ideal'``) in anchored normalisation."""
        found = self.anchor_interval(summary, end, column, source)
        return None if found is None else found.value

    def anchor_interval(self, summary: Summary, end: str, column: str | None, source: Metric | None = None
                        ) -> Interval | None:
        """``anchor`` with its spread: a measured anchor's interval (several rows pooled as the axes pool them), a
        constant — the catalogue's, or its stand-in where the run did not measure it — as an interval of no width."""
        source = source or self.metric
        value = getattr(source, end)
        if value is None:
            return None
        if not isinstance(value, Reference):
            return point(value)
        hit = summary.model(value.model).metric(value.metric)
        found = (hit if column is None else hit.attribute(column)).interval()
        if found is not None:
            return found
        if value.otherwise is not None:
            return point(value.otherwise)
        if source.fallback is not None:  # the game's real-data reference is missing
            return self.anchor_interval(summary, end, column, CATALOGUE[source.fallback])
        return None


DEFAULT_PRIVACY = Axis.parse(DEFAULT_PRIVACY_AXIS)  # the release attacker's skill on the least protected column


def attribute_game_metrics(holder_summary: Summary) -> list[Metric]:
    """The attribute-inference game's axes (MAB, WCAB), each as the estimator measured so far (the release attack
    until the game reports): what the Sweep page's panel and the report's attack section draw."""
    return [Axis(m, worst=True).source_metric(holder_summary) for m in axis_metrics(AxisKind.PRIVACY)
            if m.group is Group.ATTRIBUTE_RISK and m.source is Source.GAME]


def membership_metrics(measured, games_only: bool = False) -> list[Metric]:
    """The membership-risk metrics among ``measured`` (record names): the game's alone (PG) or every attack's."""
    present = set(measured)
    return [m for m in axis_metrics(AxisKind.PRIVACY) if m.group is Group.MEMBERSHIP_RISK and m.name in present
            and (m.source is Source.GAME or not games_only)]
