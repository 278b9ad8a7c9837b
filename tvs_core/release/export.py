"""The released file: the synthetic table for the chosen level, written as a spreadsheet-safe CSV."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import pandas as pd

from ..errors import DataError
from ..model.generator import SyntheticGenerator

# Cells starting with these run as formulas in spreadsheet programs (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "|", "%")


def _safe_text(value) -> str:
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def neutralise_formulas(table: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells — and header cells — that a spreadsheet would run as a formula with a single
    quote. Numbers stay numbers (a negative number is written as a number, not as text)."""
    out = table.copy()
    out.columns = [_safe_text(c) for c in out.columns]
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


def write_csv(table: pd.DataFrame, out: str | Path, inputs: tuple = ()) -> Path:
    """Write a table as a spreadsheet-safe CSV (``write_file``'s guarantees)."""
    return write_file(to_csv_bytes(table), out, inputs)


def write_file(data: bytes, out: str | Path, inputs: tuple = ()) -> Path:
    """Never over one of the ``inputs`` (same path or same file through a link), never half-written
    (a temporary file in the same folder, then renamed)."""
    out = Path(out)
    refuse_overwriting_inputs(out, inputs)
    if out.is_dir():
        raise DataError(f"--out {out} is a folder.", fix="Give a file name, e.g. synthetic.csv.")
    if not out.parent.exists():
        raise DataError(f"The folder of --out {out} does not exist.", fix="Create it first, or choose another path.")
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return out


def refuse_overwriting_inputs(out: str | Path, inputs: tuple = ()) -> None:
    """An output must never replace a file the user gave us, by name or by inode (a link)."""
    out = Path(out)
    for given in inputs:
        if given is None or not Path(given).exists():
            continue
        same = out.resolve() == Path(given).resolve() or (out.exists() and os.path.samefile(out, given))
        if same:
            raise DataError(f"--out: writing {out} would replace the input file {given}.",
                            fix="Choose another output path.")


MIN_RELEASE_ROWS = 2  # the checks compare the released rows with each other and with the data


def release_table(model: SyntheticGenerator, level: int | None, rows: int, seed: int) -> pd.DataFrame:
    if rows < MIN_RELEASE_ROWS:
        raise DataError(f"A release of {rows} row(s) cannot be checked.",
                        fix=f"Ask for at least {MIN_RELEASE_ROWS} rows.")
    return model.sample(rows, truncation_level=level, seed=seed)


def read_back(csv_bytes: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv_bytes))
