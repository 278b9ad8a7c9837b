"""Missing values: an explicit policy, and a report of exactly what it touched."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd

from ..text import choice_named, read_choice
from .encoding import plain_value
from .schema import CATEGORICAL_TYPES, ColumnSpec, ColumnType, Role, Schema, parse_dates


@choice_named("missing values")
class MissingPolicy(StrEnum):
    DROP_ROWS = "drop_rows"
    IMPUTE = "impute"


MISSING_POLICIES: tuple[str, ...] = tuple(MissingPolicy)  # the choice the CLI and the Data page offer
INDICATOR_SUFFIX = "__missing"


@dataclass
class MissingReport:
    policy: str
    rows_before: int
    rows_after: int
    rows_dropped: int
    rows_dropped_for_response: int
    cells_imputed: dict[str, int] = field(default_factory=dict)
    fill_values: dict[str, object] = field(default_factory=dict)
    indicator_columns: dict[str, str] = field(default_factory=dict)  # column -> indicator column

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        if self.policy == MissingPolicy.DROP_ROWS:
            return f"dropped {self.rows_dropped} of {self.rows_before} rows with a missing value"
        cells = sum(self.cells_imputed.values())
        text = f"imputed {cells} cells in {len(self.cells_imputed)} columns"
        if self.rows_dropped_for_response:
            text += f"; dropped {self.rows_dropped_for_response} rows with a missing response"
        return text


def apply_missing_policy(df: pd.DataFrame, schema: Schema,
                         policy: MissingPolicy = MissingPolicy.DROP_ROWS) -> tuple[pd.DataFrame, Schema, MissingReport]:
    """Return the modelled table without missing values, its schema and what was changed.

    ``impute`` fills each cell with the column's median (numbers, dates) or mode (categories) and adds
    a binary ``<col>__missing`` column that the vine models like any covariate, so the pattern of
    missingness is reproduced when the synthetic data are decoded (see ``reapply_missingness``).
    Rows with a missing response are always dropped: a response cannot be imputed honestly. The rows kept keep
    their labels in ``df``, so that a row can be named as the user's table names it.
    """
    policy = read_choice(MissingPolicy, policy)
    modelled = schema.modelled
    table = df[modelled]
    n_before = len(table)
    response = schema.response
    if policy == MissingPolicy.DROP_ROWS:
        keep = table.notna().all(axis=1)
        out = table.loc[keep]
        report = MissingReport(policy, n_before, len(out), int((~keep).sum()),
                               int(table[response].isna().sum()) if response else 0)
        return out, Schema(tuple(schema[c] for c in modelled)), report

    keep = table[response].notna() if response else pd.Series(True, index=table.index)
    out = table.loc[keep].copy()
    specs = [schema[c] for c in modelled]
    cells, fills, indicators = {}, {}, {}
    for spec in list(specs):
        missing = out[spec.name].isna()
        if not missing.any():
            continue
        fill = _fill_value(out[spec.name], spec)
        indicator = spec.name + INDICATOR_SUFFIX
        out[indicator] = missing.astype(np.int64)
        out[spec.name] = out[spec.name].fillna(fill)
        cells[spec.name] = int(missing.sum())
        fills[spec.name] = plain_value(fill)
        indicators[spec.name] = indicator
        specs.append(ColumnSpec(indicator, ColumnType.BINARY, Role.COVARIATE,
                                reason=f"missingness indicator of '{spec.name}'", n_unique=2))
    report = MissingReport(policy, n_before, len(out), int((~keep).sum()), int((~keep).sum()),
                           cells, fills, indicators)
    return out, Schema(tuple(specs)), report


def reapply_missingness(synthetic: pd.DataFrame, report: MissingReport) -> pd.DataFrame:
    """Blank the cells whose synthetic indicator says 'missing', then drop the indicators."""
    out = synthetic.copy()
    for column, indicator in report.indicator_columns.items():
        mask = out[indicator].astype(int) == 1
        if mask.any():
            if not (pd.api.types.is_float_dtype(out[column]) or pd.api.types.is_string_dtype(out[column])
                    or isinstance(out[column].dtype, pd.CategoricalDtype)
                    or pd.api.types.is_datetime64_any_dtype(out[column])):
                out[column] = _nullable(out[column])
            out.loc[mask, column] = None
        out = out.drop(columns=indicator)
    return out


def _nullable(col: pd.Series) -> pd.Series:
    if pd.api.types.is_bool_dtype(col):
        return col.astype("boolean")
    if pd.api.types.is_integer_dtype(col):
        return col.astype("Int64")
    return col.astype(object)


def _fill_value(col: pd.Series, spec: ColumnSpec):
    values = col.dropna()
    if spec.type in CATEGORICAL_TYPES or not pd.api.types.is_numeric_dtype(values) and \
            spec.type != ColumnType.DATETIME:
        return values.mode().iloc[0]
    if spec.type == ColumnType.DATETIME:
        as_text = not pd.api.types.is_datetime64_any_dtype(values)
        stamps = parse_dates(values) if as_text else values
        date_only = bool((stamps == stamps.dt.normalize()).all())
        # the median of an even number of dates can fall at noon; a column of dates must stay dates
        median = stamps.median().floor("D") if date_only else stamps.median()
        if as_text:  # fill dates stored as text with text
            return median.strftime("%Y-%m-%d") if date_only else median.isoformat(sep=" ")
        return median
    median = values.median()
    return round(median) if spec.type == ColumnType.INTEGER else median

