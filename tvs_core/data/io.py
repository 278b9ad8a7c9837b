"""Read a user's table from CSV, Parquet or Excel (.xlsx), guessing delimiter, decimal mark and encoding."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from ..errors import DataError
from .validation import header_problems

_PARQUET_MAGIC = b"PAR1"
_ZIP_MAGIC = b"PK\x03\x04"  # .xlsx is a zip file
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # the old binary .xls


def read_table(source: str | Path | bytes | BinaryIO, name: str | None = None) -> pd.DataFrame:
    """Read CSV or Parquet into a DataFrame; raise DataError with a readable reason on failure.

    Duplicate and empty header names are refused here because pandas would silently rename them.
    """
    raw, name = _read_bytes(source, name)
    if raw[:4] == _PARQUET_MAGIC or (name or "").lower().endswith((".parquet", ".pq")):
        try:
            df = pd.read_parquet(io.BytesIO(raw))
        except Exception as exc:  # pyarrow raises many types
            raise DataError(f"Could not read '{name}' as Parquet: {exc}.",
                            fix="Check that the file is a complete Parquet file.") from exc
        problems = header_problems(list(df.columns))
    elif raw[:4] == _ZIP_MAGIC or (name or "").lower().endswith((".xlsx", ".xlsm")):
        df, problems = _read_excel(raw, name)
    elif raw[:4] == _OLE_MAGIC or (name or "").lower().endswith(".xls"):
        raise DataError(f"'{name}' is an old Excel (.xls) workbook, which is not read here.",
                        fix="Open it in your spreadsheet program and save it as .xlsx or CSV.")
    else:
        df, problems = _read_csv(raw, name)
    if problems:
        raise problems[0] if len(problems) == 1 else DataError("; ".join(str(p) for p in problems))
    if df.shape[1] == 0 or len(df) == 0:
        raise DataError(f"'{name}' contains no data rows.", fix="Check the file and its delimiter.")
    return df


def _read_excel(raw: bytes, name: str) -> tuple[pd.DataFrame, list]:
    """The first sheet of an .xlsx workbook; ``df.attrs['note']`` says which sheet when there are several."""
    try:
        sheets = pd.read_excel(io.BytesIO(raw), sheet_name=None, header=None, engine="openpyxl")
    except Exception as exc:  # openpyxl and zipfile raise many types
        raise DataError(f"Could not read '{name}' as an Excel workbook: {exc}.",
                        fix="Save the sheet as CSV from your spreadsheet program.") from exc
    if not sheets:
        raise DataError(f"'{name}' has no sheets.", fix="Save the sheet as CSV from your spreadsheet program.")
    sheet, grid = next(iter(sheets.items()))
    grid = grid.dropna(how="all").dropna(axis=1, how="all")
    if grid.empty:
        raise DataError(f"The first sheet ('{sheet}') of '{name}' is empty.",
                        fix="Put the table on the first sheet, or save it as CSV.")
    header = ["" if pd.isna(h) else str(h).strip() for h in grid.iloc[0]]
    problems = header_problems(header)
    if problems:
        return pd.DataFrame(), problems
    df = grid.iloc[1:].reset_index(drop=True)
    df.columns = header
    df = df.infer_objects()
    if len(sheets) > 1:
        df.attrs["note"] = f"Read the first of {len(sheets)} sheets ('{sheet}')."
    return df, []


def _read_bytes(source, name):
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"File '{path}' does not exist.", fix="Check the path.")
        return path.read_bytes(), name or path.name
    if isinstance(source, bytes):
        return source, name or "upload"
    data = source.read()
    return data, name or getattr(source, "name", "upload")


def _decode(raw: bytes) -> tuple[str, str]:
    for encoding in ("utf-8-sig", "latin-1"):
        try:
            return raw.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte string")


def sniff_format(text: str) -> tuple[str, str]:
    """Return (delimiter, decimal mark) of CSV text."""
    sample = "\n".join(text.splitlines()[:50])
    try:
        delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        delimiter = max(",;\t|", key=sample.count) if sample else ","
    decimal = "."
    if delimiter != ",":
        body = sample.splitlines()[1:]
        commas = sum(len(re.findall(r"(?:^|\W)-?\d+,\d+(?:$|\W)", line)) for line in body)
        points = sum(len(re.findall(r"(?:^|\W)-?\d+\.\d+(?:$|\W)", line)) for line in body)
        if commas > points:
            decimal = ","
    return delimiter, decimal


def _read_csv(raw: bytes, name: str) -> tuple[pd.DataFrame, list]:
    text, _ = _decode(raw)
    if not text.strip():
        raise DataError(f"'{name}' is empty.", fix="Choose a file with a header row and data rows.")
    delimiter, decimal = sniff_format(text)
    header = [h.strip() for h in next(csv.reader(io.StringIO(text), delimiter=delimiter))]
    problems = header_problems(header)
    if problems:
        return pd.DataFrame(), problems
    try:
        df = pd.read_csv(io.StringIO(text), sep=delimiter, decimal=decimal, header=None, skiprows=1,
                         names=header, skipinitialspace=True)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"Could not parse '{name}' as CSV with delimiter {delimiter!r}: {exc}.",
                        fix="Check that every row has the same number of fields.") from exc
    return df, []
