"""The released file: the synthetic table for the chosen level, written as a spreadsheet-safe CSV."""

from __future__ import annotations

import io

import pandas as pd

from ..model.generator import SyntheticGenerator

# Cells starting with these run as formulas in spreadsheet programs (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "|", "%")


def neutralise_formulas(table: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that a spreadsheet would run as a formula with a single quote.
    Numbers stay numbers (a negative number is written as a number, not as text)."""
    out = table.copy()
    for column in out.columns:
        col = out[column]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col):
            continue
        text = col.astype("string")
        risky = text.str.startswith(FORMULA_STARTS).fillna(False).to_numpy(dtype=bool)
        if risky.any():
            values = col.astype(object).to_numpy(copy=True)
            values[risky] = ["'" + str(v) for v in values[risky]]
            out[column] = values
    return out


def to_csv_bytes(table: pd.DataFrame) -> bytes:
    return neutralise_formulas(table).to_csv(index=False, lineterminator="\n").encode("utf-8")


def release_table(model: SyntheticGenerator, level: int | None, rows: int, seed: int) -> pd.DataFrame:
    return model.sample(rows, truncation_level=level, seed=seed)


def read_back(csv_bytes: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv_bytes))
