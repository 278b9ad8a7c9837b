"""Someone else's synthetic table, checked against the training table's schema before it is evaluated.

An external set is scored by the same per-set metrics as every generator's output, so it must speak
the training table's language: the same columns, numbers where the training table has numbers,
dates where it has dates, and only labels the training table knows. Anything else is refused
naming the column (and the label or cell), never silently coerced.
"""

from __future__ import annotations

import pandas as pd

from ..errors import DataError
from .schema import CATEGORICAL_TYPES, ColumnType, Schema, parse_dates

NUMERIC_TYPES = {ColumnType.CONTINUOUS, ColumnType.INTEGER}


def conform_external(frame: pd.DataFrame, reference: pd.DataFrame, schema: Schema, name: str) -> pd.DataFrame:
    """``frame`` with the reference's column order and the modelled columns in the reference's dtypes."""
    where = f"The external set '{name}'"
    missing = [c for c in reference.columns if c not in frame.columns]
    if missing:
        raise DataError(f"{where} lacks column '{missing[0]}' of the training table.", column=missing[0],
                        fix="Give a file with the training table's header.")
    extra = [c for c in frame.columns if c not in reference.columns]
    if extra:
        raise DataError(f"{where} has column '{extra[0]}', which the training table does not have.",
                        column=str(extra[0]), fix="Remove it, or give a file with the training table's header.")
    out = frame[list(reference.columns)].copy()
    for spec in schema.columns:
        if not spec.modelled:
            continue
        column, known = out[spec.name], reference[spec.name]
        if spec.type in NUMERIC_TYPES:
            out[spec.name] = _numbers(column, spec.name, where)
        elif spec.type == ColumnType.DATETIME:
            try:
                out[spec.name] = parse_dates(column)
            except (DataError, ValueError, TypeError):
                raise DataError(f"{where}: column '{spec.name}' holds values that are not dates.", column=spec.name,
                                fix="Write dates as the training table does.") from None
        elif spec.type in CATEGORICAL_TYPES:
            out[spec.name] = _labels(column, known, spec.name, where)
    return out


def _numbers(column: pd.Series, name: str, where: str) -> pd.Series:
    numbers = pd.to_numeric(column, errors="coerce")
    bad = column[numbers.isna() & column.notna()]
    if len(bad):
        raise DataError(f"{where}: column '{name}' holds text ('{bad.iloc[0]}', row {bad.index[0] + 2} of the file) "
                        "where the training table has numbers.", column=name, fix="Give numbers in that column.")
    return numbers


def _labels(column: pd.Series, known: pd.Series, name: str, where: str) -> pd.Series:
    """Each label mapped onto the training label with the same text (so 1 and "1" agree), dtype kept."""
    declared = known.cat.categories if isinstance(known.dtype, pd.CategoricalDtype) else known.dropna().unique()
    labels = {str(v): v for v in declared}  # a category no training row uses is still one of its labels
    column = column.astype(object)  # a categorical column would be mapped category by category, unused ones too
    unknown = [v for v in column.dropna().unique() if str(v) not in labels]
    if unknown:
        raise DataError(f"{where}: column '{name}' has label '{unknown[0]}', which the training table does not have.",
                        column=name, fix=f"Use only the training labels: {', '.join(sorted(labels))}.")
    mapped = column.map(lambda v: v if pd.isna(v) else labels[str(v)])
    if isinstance(known.dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical(mapped, dtype=known.dtype), index=column.index)
    try:
        return mapped.astype(known.dtype) if mapped.notna().all() else mapped
    except (TypeError, ValueError):
        return mapped
