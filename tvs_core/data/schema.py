"""Column types and roles: what each column is, what the model does with it, and why."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum

import numpy as np
import pandas as pd

from ..errors import DataError
from ..text import choice_named, percent


@choice_named("association measure")
class Measure(StrEnum):
    """The association measure of Algorithm 1's order and of ρ* (here, beside the column types it can measure)."""

    KENDALL = "kendall"
    SPEARMAN = "spearman"
    PEARSON = "pearson"


class ColumnType(StrEnum):
    CONTINUOUS = "continuous"
    INTEGER = "integer"  # counts and other integer-valued measurements
    ORDINAL = "ordinal"
    NOMINAL = "nominal"
    BINARY = "binary"
    DATETIME = "datetime"
    IDENTIFIER = "identifier"
    TEXT = "text"
    CONSTANT = "constant"


class Role(StrEnum):
    COVARIATE = "covariate"
    RESPONSE = "response"
    SENSITIVE = "sensitive"
    DROPPED = "dropped"


# Types the copula cannot model: such columns are dropped and regenerated on output.
UNMODELLED_TYPES = {ColumnType.IDENTIFIER, ColumnType.TEXT, ColumnType.CONSTANT}
# Types entering the vine as discrete variables (var_type "d").
DISCRETE_TYPES = {ColumnType.INTEGER, ColumnType.ORDINAL, ColumnType.NOMINAL, ColumnType.BINARY}
CATEGORICAL_TYPES = {ColumnType.ORDINAL, ColumnType.NOMINAL, ColumnType.BINARY}

MAX_COUNT_LEVELS = 30  # integer columns with more distinct values are modelled as continuous
STRAY_TEXT = 0.2  # at most this share of text cells among numbers: a numeric column with typos, not labels
MOSTLY_MISSING = 0.9  # columns missing in more rows than this are dropped by default
_ID_NAME = re.compile(r"(^|[_\s\-.])(id|ids|identifier|mrn|uuid|guid|key|record|patient_?no|nr)$", re.I)


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    type: ColumnType
    role: Role
    reason: str  # why this type was inferred (or "set by user")
    drop_reason: str | None = None  # why the column is not modelled
    n_missing: int = 0
    n_unique: int = 0
    # an ordinal column's labels from lowest to highest, as the user gave them (None: natural sort)
    levels: tuple | None = None

    @property
    def modelled(self) -> bool:
        return self.role != Role.DROPPED

    def to_dict(self) -> dict:
        d = asdict(self)
        d["type"] = self.type.value
        d["role"] = self.role.value
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ColumnSpec:
        levels = d.get("levels")
        return cls(**{**d, "type": ColumnType(d["type"]), "role": Role(d["role"]),
                      "levels": None if levels is None else tuple(levels)})


@dataclass(frozen=True)
class Schema:
    columns: tuple[ColumnSpec, ...] = field(default_factory=tuple)

    def __getitem__(self, name: str) -> ColumnSpec:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def response(self) -> str | None:
        found = [c.name for c in self.columns if c.role == Role.RESPONSE]
        return found[0] if found else None

    @property
    def sensitive(self) -> list[str]:
        return [c.name for c in self.columns if c.role == Role.SENSITIVE]

    @property
    def modelled(self) -> list[str]:
        return [c.name for c in self.columns if c.modelled]

    @property
    def covariates(self) -> list[str]:
        """Modelled columns other than the response, in table order (sensitive included)."""
        return [c.name for c in self.columns if c.modelled and c.role != Role.RESPONSE]

    def override(self, name: str, type: ColumnType | str | None = None,
                 role: Role | str | None = None, levels: list | tuple | None = None) -> Schema:
        """Return a schema with the user's choice for one column; the choice always wins.

        ``levels`` orders an ordinal column's labels from lowest to highest (and makes it ordinal):
        text labels such as low/medium/high would otherwise be ordered alphabetically."""
        if name not in self.names:
            raise KeyError(name)
        out = []
        for c in self.columns:
            if c.name == name:
                changes: dict = {}
                if type is not None:
                    new_type = ColumnType(type)
                    changes["type"] = new_type
                    changes["reason"] = "set by user"
                    if new_type in UNMODELLED_TYPES and role is None:
                        changes["role"] = Role.DROPPED
                        changes["drop_reason"] = f"{new_type.value} columns are not modelled (set by user)"
                    elif c.role == Role.DROPPED and c.drop_reason != "dropped by user" and role is None:
                        changes["role"] = Role.COVARIATE  # the inference that dropped it was overruled
                        changes["drop_reason"] = None
                if role is not None:
                    changes["role"] = Role(role)
                    changes["drop_reason"] = "dropped by user" if Role(role) == Role.DROPPED else None
                if levels is not None:
                    changes["levels"] = tuple(v.item() if hasattr(v, "item") else v for v in levels)
                    if changes.get("type", c.type) != ColumnType.ORDINAL:
                        changes.update(type=ColumnType.ORDINAL, reason="set by user")
                elif "type" in changes and changes["type"] != ColumnType.ORDINAL:
                    changes["levels"] = None
                c = replace(c, **changes)
            out.append(c)
        return Schema(tuple(out))

    def with_roles(self, response: str | None = None, sensitive: list[str] | tuple[str, ...] = ()) -> Schema:
        """Set the response and the sensitive columns; previous choices are reset to covariate."""
        for name in [response, *sensitive]:
            if name is not None and name not in self.names:
                raise DataError(f"Column '{name}' is not in the table.", column=name,
                                fix=f"Choose one of: {', '.join(self.names)}.")
        out = []
        for c in self.columns:
            role = c.role
            if role in (Role.RESPONSE, Role.SENSITIVE):
                role = Role.COVARIATE
            if c.name == response:
                role = Role.RESPONSE
            elif c.name in sensitive:
                role = Role.SENSITIVE
            drop_reason = c.drop_reason if role == Role.DROPPED else None
            out.append(replace(c, role=role, drop_reason=drop_reason))
        return Schema(tuple(out))

    def to_dict(self) -> dict:
        return {"columns": [c.to_dict() for c in self.columns]}

    @classmethod
    def from_dict(cls, d: dict) -> Schema:
        return cls(tuple(ColumnSpec.from_dict(c) for c in d["columns"]))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([c.to_dict() for c in self.columns])


def _is_integer_valued(values: pd.Series) -> bool:
    arr = values.to_numpy(dtype=float)
    return bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))


def parse_dates(values: pd.Series, errors: str = "raise") -> pd.Series:
    """Dates written as text, in any of the usual formats; with time zones (even mixed ones) they are
    converted to UTC and the zone dropped, so one column holds one kind of time stamp.

    A cell that is no possible date (30 February) is a ``DataError`` naming the column and the row (as a
    spreadsheet numbers it, by the series' index), never the cell's value: messages reach logs."""
    try:
        parsed = pd.to_datetime(values, errors=errors, format="mixed", utc=True)
    except (ValueError, TypeError, OverflowError):
        if errors != "raise" or not isinstance(values, pd.Series):
            raise
        parsed = None  # refused below, outside this block: pandas' message (with the value) is not chained
    if parsed is None:
        check_dates(values)
        raise DataError(f"Column '{values.name}' holds cells that cannot be read as dates.",
                        column=None if values.name is None else str(values.name), fix=DATE_FIX)
    return parsed.dt.tz_convert(None) if isinstance(parsed, pd.Series) else parsed.tz_convert(None)


def check_dates(values: pd.Series) -> None:
    """Refuse a column of dates written as text that holds an impossible one, naming its first such row."""
    bad = not_dates(values)
    if len(bad):
        raise DataError(f"Column '{values.name}' holds a cell that is not a possible date, in row {_row(bad[0])}.",
                        column=None if values.name is None else str(values.name), fix=DATE_FIX)


DATE_FIX = ("Correct it or leave it empty (missing); or set the column's type to nominal or text if it does not "
            "hold dates.")


def not_dates(values: pd.Series) -> pd.Index:
    """The index of the cells that hold something but no possible date (a day the month lacks, a month 13)."""
    present = values.dropna()
    text = present.astype(str)
    unique = pd.Series(text.unique())  # a column of dates repeats them: parse each once
    failed = set(unique[pd.to_datetime(unique, errors="coerce", format="mixed", utc=True).isna().to_numpy()])
    return present.index[text.isin(failed).to_numpy()] if failed else present.index[:0]


def _row(label) -> str:
    """A row as a spreadsheet numbers it (the header is row 1), from a table's default index."""
    return str(int(label) + 2) if isinstance(label, (int, np.integer)) else repr(label)


def _looks_like_dates(values: pd.Series) -> bool:
    sample = values.astype(str).head(200)
    if sample.str.fullmatch(r"[-+]?\d+([.,]\d+)?").mean() > 0.5:
        return False  # plain numbers are not dates
    if not sample.str.contains(r"\d").all():
        return False
    parsed = parse_dates(sample, errors="coerce")
    return bool(parsed.notna().mean() >= 0.95)


def infer_column(name: str, col: pd.Series) -> tuple[ColumnType, str]:
    """Infer one column's type; returns the type and the reason shown to the user."""
    values = col.dropna()
    n = len(col)
    if len(values) == 0:
        return ColumnType.CONSTANT, f"all {n} values are missing"
    n_unique = values.nunique()
    if n_unique == 1:
        return ColumnType.CONSTANT, f"the same value ({values.iloc[0]!r}) in every row"
    if pd.api.types.is_datetime64_any_dtype(col):
        return ColumnType.DATETIME, "stored as dates"
    if pd.api.types.is_bool_dtype(col) or n_unique == 2:
        return ColumnType.BINARY, "exactly two distinct values"
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.dtype.ordered:
            return ColumnType.ORDINAL, "ordered categories"
        return ColumnType.NOMINAL, "unordered categories"
    all_unique = n_unique == len(values)
    if pd.api.types.is_numeric_dtype(col):
        if _is_integer_valued(values):
            if all_unique and len(values) > 20:
                ordered = np.sort(values.to_numpy())
                if _ID_NAME.search(name) or bool(np.all(np.diff(ordered) == 1)):
                    return ColumnType.IDENTIFIER, "a different integer in every row (a running number or ID)"
            if n_unique <= MAX_COUNT_LEVELS:
                return ColumnType.INTEGER, f"whole numbers ({n_unique} distinct values)"
            return ColumnType.CONTINUOUS, (f"whole numbers with {n_unique} distinct values: modelled as "
                                           "continuous, released rounded to whole numbers")
        return ColumnType.CONTINUOUS, "numbers with decimals"
    # strings / objects
    text = values.astype(str)
    numbers = pd.to_numeric(text.str.strip(), errors="coerce")
    stray = int(numbers.isna().sum())
    if 0 < stray <= STRAY_TEXT * len(values) and numbers.notna().sum() >= 10:
        kind = ColumnType.INTEGER if _is_integer_valued(numbers.dropna()) and numbers.nunique() <= MAX_COUNT_LEVELS \
            else ColumnType.CONTINUOUS
        return kind, f"numbers, but {stray} cell(s) hold text (see the problem shown for this column)"
    if _looks_like_dates(text):
        return ColumnType.DATETIME, "text that parses as dates"
    mean_words = text.str.split().str.len().mean()
    if n_unique > max(30, 0.5 * len(values)):
        if mean_words >= 3:
            return ColumnType.TEXT, f"free text (on average {mean_words:.0f} words, {n_unique} distinct)"
        if all_unique or _ID_NAME.search(name):
            return ColumnType.IDENTIFIER, "a different code in (almost) every row"
        return ColumnType.TEXT, f"{n_unique} distinct labels in {len(values)} rows — too many to model as categories"
    if _ID_NAME.search(name) and all_unique:
        return ColumnType.IDENTIFIER, "named like an identifier and unique in every row"
    return ColumnType.NOMINAL, f"text labels ({n_unique} categories)"


def mostly_missing(col: pd.Series) -> bool:
    """Missing in more than ``MOSTLY_MISSING`` of the rows: dropped by default, released empty."""
    return bool(len(col)) and float(col.isna().mean()) > MOSTLY_MISSING


def infer_schema(df: pd.DataFrame, response: str | None = None,
                 sensitive: list[str] | tuple[str, ...] = ()) -> Schema:
    """Infer type and role of every column. Identifiers, free text and constants are dropped."""
    specs = []
    for i, name in enumerate(df.columns):
        col = df.iloc[:, i]
        ctype, reason = infer_column(str(name), col)
        role, drop_reason = Role.COVARIATE, None
        if mostly_missing(col) and col.notna().any():  # whatever its few present cells look like (one value, two)
            role = Role.DROPPED
            drop_reason = (f"missing in {percent(col.isna().mean())} of the rows: a model would invent nearly all of "
                           "it; the release leaves it empty")
        elif ctype in UNMODELLED_TYPES:
            role = Role.DROPPED
            drop_reason = {
                ColumnType.IDENTIFIER: "identifier: carries no pattern to learn and would only re-identify people; "
                                       "fresh surrogate IDs are written in the release",
                ColumnType.TEXT: "free text cannot be modelled by a copula; the release leaves it empty",
                ColumnType.CONSTANT: "constant or empty: nothing to model; the release repeats the constant",
            }[ctype]
        specs.append(ColumnSpec(name=str(name), type=ctype, role=role, reason=reason,
                                drop_reason=drop_reason, n_missing=int(col.isna().sum()),
                                n_unique=int(col.nunique())))
    schema = Schema(tuple(specs))
    if response is not None or sensitive:
        schema = schema.with_roles(response, list(sensitive))
    return schema


_OUTCOME_NAME = re.compile(r"(^|[_\s\-.])(y|target|label|class|outcome|response|death|died|dead|mortality|"
                           r"survival|survived|readmit\w*|diagnosis|status|event|churn|default|fraud)$", re.I)


def suggest_response(schema: Schema) -> str | None:
    """The column a user most likely means as Y: a modelled binary (else low-cardinality categorical)
    column named like an outcome; None when nothing is named so (the user chooses)."""
    named = [c for c in schema.columns if c.modelled and _OUTCOME_NAME.search(c.name)]
    for types in ({ColumnType.BINARY}, CATEGORICAL_TYPES):
        found = [c.name for c in named if c.type in types]
        if found:
            return found[-1]  # outcomes tend to be the last columns
    return None
