"""Refuse tables that cannot be modelled, with a message that says which column and what to do."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from ..errors import DataError, DataErrors
from ..text import percent
from .schema import (
    CATEGORICAL_TYPES,
    DATE_FIX,
    MOSTLY_MISSING,
    STRAY_TEXT,
    ColumnType,
    Measure,
    Role,
    Schema,
    not_dates,
)

MIN_ROWS = 50
# Sensitive columns are attacked by regression (numeric) or by a classifier (categorical).
SENSITIVE_TYPES = {ColumnType.CONTINUOUS, ColumnType.INTEGER, ColumnType.ORDINAL,
                   ColumnType.BINARY, ColumnType.NOMINAL}
NUMERIC_TYPES = {ColumnType.CONTINUOUS, ColumnType.INTEGER, ColumnType.ORDINAL, ColumnType.BINARY}


def header_problems(columns: list) -> list[DataError]:
    """Empty and duplicate column names, checked on the raw header before anything else."""
    problems = []
    for i, name in enumerate(columns):
        if name is None or str(name).strip() == "" or str(name).startswith("Unnamed:"):
            problems.append(DataError(f"Column {i + 1} has no name.", column=None,
                                      fix="Give every column a header in the first row of the file."))
    for name, count in Counter(str(c) for c in columns).items():
        if count > 1 and name.strip():
            problems.append(DataError(f"Column name '{name}' appears {count} times.", column=name,
                                      fix="Rename the duplicates so every column name is unique."))
    return problems


def validate(df: pd.DataFrame, schema: Schema, measure: Measure = Measure.KENDALL,
             min_rows: int = MIN_ROWS) -> list[DataError]:
    """All problems that stop modelling ``df`` with ``schema``; an empty list means it can go."""
    problems = header_problems(list(df.columns))
    if problems:
        return problems
    n = len(df)
    if n < min_rows:
        problems.append(DataError(
            f"The table has {n} rows; at least {min_rows} are needed to fit and evaluate a model.",
            fix="Load a larger table, or check that the file was read completely (delimiter, header)."))
    response = schema.response
    if response is None:
        problems.append(DataError("No response column is chosen.",
                                  fix="Pick the column the synthetic data must predict: 'Response Y' on the Data "
                                      "page (or --response COLUMN on the command line)."))
    elif response not in df.columns:
        problems.append(DataError(f"The response column '{response}' is not in the table.", column=response,
                                  fix=f"Choose one of: {', '.join(map(str, df.columns))}."))
    else:
        spec = schema[response]
        classes = df[response].dropna().nunique()
        if classes < 2:
            problems.append(DataError(
                f"The response '{response}' has {classes} distinct value(s) in {n} rows; "
                "a predictor needs at least two classes.", column=response,
                fix="Choose another response column or load data that contains both outcomes."))
        elif spec.type in (ColumnType.TEXT, ColumnType.IDENTIFIER, ColumnType.DATETIME):
            problems.append(DataError(f"The response '{response}' is of type {spec.type.value}.", column=response,
                                      fix="Choose a binary, categorical or numeric response."))
    for spec in schema.columns:
        if spec.name not in df.columns:
            problems.append(DataError(f"Column '{spec.name}' of the schema is not in the table.", column=spec.name))
            continue
        col = df[spec.name]
        if spec.modelled and col.isna().all():
            problems.append(DataError(f"Column '{spec.name}' has no values in any of the {n} rows.",
                                      column=spec.name, fix="Drop the column or fill it in."))
        elif spec.modelled and n and col.isna().mean() > MOSTLY_MISSING:
            problems.append(DataError(
                f"Column '{spec.name}' is missing in {percent(col.isna().mean())} of the rows; a model would invent "
                "nearly all of it.", column=spec.name, fix="Drop the column (role 'dropped')."))
        numbers = spec.type in (ColumnType.CONTINUOUS, ColumnType.INTEGER)  # else text cells are labels, as meant
        cells = _cell_problems(spec.name, col, expect_numbers=numbers) if spec.modelled else []
        if spec.modelled and spec.type == ColumnType.DATETIME:
            cells += _date_problems(spec.name, col)
        problems += cells
        if spec.modelled and spec.type == ColumnType.ORDINAL and spec.levels:
            given = {str(v) for v in spec.levels}
            unplaced = sorted({str(v) for v in col.dropna().unique()} - given)
            if unplaced:
                problems.append(DataError(
                    f"Column '{spec.name}' has {len(unplaced)} label(s) missing from the order you gave "
                    f"(e.g. {unplaced[0]!r}).", column=spec.name,
                    fix="Place every label in the column's order of categories, or clear the order."))
        if spec.role == Role.SENSITIVE:
            if spec.type not in SENSITIVE_TYPES:
                problems.append(DataError(
                    f"Sensitive column '{spec.name}' is of type {spec.type.value}; the attribute-inference "
                    "attack needs a numeric or categorical column.", column=spec.name,
                    fix="Change its type if it was inferred wrongly, or choose another sensitive column."))
            elif measure == Measure.PEARSON and spec.type not in NUMERIC_TYPES:
                problems.append(DataError(
                    f"Sensitive column '{spec.name}' is nominal (unordered categories); Pearson correlation "
                    "needs a numeric column.", column=spec.name,
                    fix="Use Kendall or Spearman, or mark the column ordinal if its categories are ordered."))
            # ordinal and binary labels are coded by their order, so they need not be numbers
            elif spec.type in (ColumnType.CONTINUOUS, ColumnType.INTEGER) and not _numeric(col) and not cells:
                problems.append(DataError(
                    f"Sensitive column '{spec.name}' is marked {spec.type.value} but holds non-numeric values "
                    f"(e.g. {_first_non_numeric(col)!r}).", column=spec.name,
                    fix="Clean the column or mark it nominal."))
        elif spec.modelled and spec.type in (ColumnType.CONTINUOUS, ColumnType.INTEGER) and not _numeric(col) \
                and not cells:
            problems.append(DataError(
                f"Column '{spec.name}' is marked {spec.type.value} but holds non-numeric values "
                f"(e.g. {_first_non_numeric(col)!r}).", column=spec.name,
                fix="Clean the column or mark it nominal."))
    modelled = len(schema.modelled)
    if modelled > n:
        problems.append(DataError(
            f"The table has more modelled columns ({modelled}) than rows ({n}).",
            fix="Drop columns you do not need, or load more rows."))
    if schema.response is not None and modelled < 2:
        problems.append(DataError("Only the response is left to model.",
                                  fix="Keep at least one covariate column."))
    return problems


def check(df: pd.DataFrame, schema: Schema, measure: Measure = Measure.KENDALL, min_rows: int = MIN_ROWS) -> None:
    problems = validate(df, schema, measure=measure, min_rows=min_rows)
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise DataErrors(problems)


def unseen_labels(holdout: pd.DataFrame, table: pd.DataFrame, schema: Schema) -> list[DataError]:
    """A hold-out file's categories that the table lacks: the models and the utility tests know only the table's
    categories, so such a row could not be scored (the sweep would stop with a bare error later)."""
    problems = []
    for spec in schema.columns:
        if not spec.modelled or spec.type not in CATEGORICAL_TYPES or spec.name not in holdout:
            continue
        known = table[spec.name].dropna().unique()
        values = holdout[spec.name]
        unseen = values.index[values.notna().to_numpy() & ~values.isin(known).to_numpy()]
        if len(unseen):
            labels = ", ".join(repr(v) for v in sorted(map(str, known))[:10])
            problems.append(DataError(
                f"Column '{spec.name}' has the category {str(values[unseen[0]])!r}, which the data does not have "
                f"(rows {_rows(unseen)}).", column=spec.name,
                fix=f"Use only the data's categories ({labels}), or drop those rows from the hold-out file."))
    return problems


def _rows(index) -> str:
    """Data rows as a spreadsheet numbers them (the header is row 1), a few of them."""
    shown = [str(int(i) + 2) for i in list(index)[:5]]
    return ", ".join(shown) + (f" and {len(index) - 5} more" if len(index) > 5 else "")


def _cell_problems(name: str, col: pd.Series, expect_numbers: bool = True) -> list[DataError]:
    """Infinite numbers, and numbers mixed with a few text cells: both would be released damaged. With
    ``expect_numbers`` False (a column the user marked categorical) text cells are labels, not typos."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        infinite = col.index[np.isinf(col.to_numpy(dtype=float, na_value=np.nan))]
        if len(infinite):
            return [DataError(f"Column '{name}' has infinite values (inf or -inf) in rows {_rows(infinite)}.",
                              column=name, fix="Replace them by numbers or leave the cells empty (missing).")]
        return []
    values = col.dropna()
    if not expect_numbers or values.empty or pd.api.types.is_datetime64_any_dtype(col) or \
            isinstance(col.dtype, pd.CategoricalDtype):
        return []
    numbers = pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
    text = values.index[numbers.isna().to_numpy()]
    if 0 < len(text) <= STRAY_TEXT * len(values) and numbers.notna().sum() >= 10:
        examples = ", ".join(repr(str(v)) for v in values.loc[text[:3]])
        return [DataError(f"Column '{name}' holds numbers but {len(text)} text cell(s) ({examples} in rows "
                          f"{_rows(text)}).", column=name,
                          fix="Correct those cells or leave them empty (missing); or mark the column nominal if "
                              "the text is meant.")]
    return []


def _date_problems(name: str, col: pd.Series) -> list[DataError]:
    """Dates written as text that no calendar has (1961-02-30): named by their rows, never by their values,
    which would reach the logs."""
    if pd.api.types.is_datetime64_any_dtype(col):
        return []
    bad = not_dates(col)
    if not len(bad):
        return []
    cells = "1 cell that is not a possible date, in row" if len(bad) == 1 else \
        f"{len(bad)} cells that are not possible dates, in rows"
    return [DataError(f"Column '{name}' holds {cells} {_rows(bad)}.", column=name, fix=DATE_FIX)]


def _numeric(col: pd.Series) -> bool:
    values = col.dropna()
    return bool(pd.to_numeric(values, errors="coerce").notna().all())


def _first_non_numeric(col: pd.Series):
    values = col.dropna()
    bad = values[pd.to_numeric(values, errors="coerce").isna()]
    return bad.iloc[0] if len(bad) else None
