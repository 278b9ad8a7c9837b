"""The hold-out is set aside before anything is fitted: no generator, attacker or shadow model sees it.

Rows without a response can be neither stratified nor scored, so they are dropped first (and
counted: ``missing_response_rows``), as every model would drop them anyway."""

from __future__ import annotations

import math

import pandas as pd
from sklearn.model_selection import train_test_split

from ..errors import DataError

MIN_HOLDOUT_ROWS = 20
OVERLAP = 0.05  # duplicates happen in real data; more shared rows than this mean the files overlap


def holdout_split(table: pd.DataFrame, response: str, fraction: float = 0.2,
                  seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stratified (train, test) split taken before any fit; test is never seen by a generator. Stratified when
    every class can have a row on both sides; otherwise (many classes in few rows) a plain random split."""
    if response not in table.columns:
        raise DataError(f"The response '{response}' is not a column of the table.", column=response,
                        fix="Choose the response among the table's columns.")
    if not 0 < fraction < 1:
        raise DataError(f"A hold-out fraction of {fraction} leaves no rows on one side.",
                        fix="Give a fraction between 0 and 1, e.g. 0.2.")
    table = table[table[response].notna()]
    y = table[response]
    n_test = math.ceil(fraction * len(table))
    classes = y.nunique()
    stratify = (y if classes <= 20 and y.value_counts().min() >= 2 and min(n_test, len(table) - n_test) >= classes
                else None)
    train, test = train_test_split(table, test_size=fraction, random_state=seed, stratify=stratify)
    return train.reset_index(drop=True), test.reset_index(drop=True)


def explicit_holdout(table: pd.DataFrame, holdout: pd.DataFrame,
                     response: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Use a hold-out file the holder kept aside instead of splitting; it must have the same columns."""
    missing = [c for c in table.columns if c not in holdout.columns]
    if missing:
        raise DataError(f"The hold-out file lacks column '{missing[0]}'.", column=missing[0],
                        fix="Use a hold-out file with the same header as the data.")
    if response is not None:
        table, holdout = table[table[response].notna()], holdout[holdout[response].notna()]
    holdout = holdout[list(table.columns)]
    if len(holdout) < MIN_HOLDOUT_ROWS:
        raise DataError(f"The hold-out file has {len(holdout)} usable rows; the utility and membership tests need "
                        f"at least {MIN_HOLDOUT_ROWS}.", fix="Keep more rows aside, or use a split instead.")
    numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
    seen = set(_row_keys(table, numeric))
    shared = int(_row_keys(holdout, numeric).isin(seen).sum())
    if shared > OVERLAP * len(holdout):
        raise DataError(f"{shared} of the hold-out file's {len(holdout)} rows are also training rows; a hold-out "
                        "must be rows the models never saw.", fix="Give rows kept aside from the data.")
    return table.reset_index(drop=True), holdout.reset_index(drop=True)


def _row_keys(frame: pd.DataFrame, numeric: list[str]) -> pd.Series:
    """One hash per row that does not depend on how a file was read: a training row read back as floats (a blank
    cell elsewhere in its column) or as text is still the same row. Numbers compare as numbers, the rest as text."""
    columns = {c: pd.to_numeric(frame[c], errors="coerce").astype("float64") if c in numeric
               else frame[c].astype("string") for c in frame.columns}
    return pd.util.hash_pandas_object(pd.DataFrame(columns), index=False)


def missing_response_rows(table: pd.DataFrame, response: str | None) -> int:
    """Rows that are dropped before the split because their response is missing."""
    return 0 if response is None or response not in table.columns else int(table[response].isna().sum())
