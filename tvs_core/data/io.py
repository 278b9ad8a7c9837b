"""Read a user's table from CSV, Parquet or Excel (.xlsx), guessing delimiter, decimal mark and encoding.

``read_table`` parses in a child process under a memory and a time limit (``reader``); ``parse_table`` is that
parse, run in the child: the limits checked before parsing (``limits``), what the file decodes to (``decoded``),
then the format's reader."""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from ..errors import DataError
from .decoded import check_csv_decoded, check_parquet_decoded, check_xlsx_decoded
from .limits import MB, Limits, check_csv, check_parquet, check_size, check_xlsx, long_field
from .reader import read_at_most, read_in_child, resolve_source
from .validation import header_problems

_PARQUET_MAGIC = b"PAR1"
_ZIP_MAGIC = b"PK\x03\x04"  # .xlsx is a zip file
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # the old binary .xls


def read_table(source: str | Path | bytes | BinaryIO, name: str | None = None,
               limits: Limits | None = None, waiting: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Read CSV, Parquet or .xlsx into a DataFrame; raise DataError with a readable reason on failure.

    Duplicate and empty header names are refused because pandas would silently rename them. ``limits`` (default:
    ``Limits.from_env()``) are checked before anything is parsed, and the parse runs in a child process within
    ``limits.read_mb`` of memory and ``limits.read_seconds``; the table it gives back must fit ``limits.table_mb``.
    ``waiting(seconds)``, called while the child reads, may end the read by raising (the dashboard's Cancel).
    """
    return read_in_child(source, name, Limits.from_env() if limits is None else limits, waiting)


def parse_table(source: str | Path | bytes | BinaryIO, name: str | None = None,
                limits: Limits | None = None) -> pd.DataFrame:
    """``read_table``'s parse, in this process (the child's work; tests of parsing call it directly)."""
    limits = Limits.from_env() if limits is None else limits
    raw, name = _read_bytes(source, name, limits)
    if raw[:4] == _PARQUET_MAGIC or (name or "").lower().endswith((".parquet", ".pq")):
        try:
            check_parquet(raw, name, limits)
            check_parquet_decoded(raw, name, limits)
            df = pd.read_parquet(io.BytesIO(raw))
        except (DataError, MemoryError):
            raise
        except Exception as exc:  # pyarrow raises many types
            raise DataError(f"Could not read '{name}' as Parquet: {_reason(exc)}.",
                            fix="Check that the file is a complete Parquet file.") from exc
        problems = header_problems(list(df.columns)) or _parquet_columns(df, name)
    elif raw[:4] == _ZIP_MAGIC or (name or "").lower().endswith((".xlsx", ".xlsm")):
        df, problems = _read_excel(raw, name, limits)
    elif raw[:4] == _OLE_MAGIC or (name or "").lower().endswith(".xls"):
        raise DataError(f"'{name}' is an old Excel (.xls) workbook, which is not read here.",
                        fix="Open it in your spreadsheet program and save it as .xlsx or CSV.")
    else:
        df, problems = _read_csv(raw, name, limits)
    if problems:
        raise problems[0] if len(problems) == 1 else DataError("; ".join(str(p) for p in problems))
    if df.shape[1] == 0 or len(df) == 0:
        raise DataError(f"'{name}' contains no data rows.", fix="Check the file and its delimiter.")
    return df


def _parquet_columns(df: pd.DataFrame, name: str) -> list[DataError]:
    """Parquet can hold what a table of people cannot: nested values are refused by column; time-zoned dates are
    converted to UTC (in place, said in the table's note), as a CSV's are."""
    problems, zoned = [], []
    for column in df.columns:
        col = df[column]
        if isinstance(col.dtype, pd.DatetimeTZDtype):
            df[column] = col.dt.tz_convert("UTC").dt.tz_localize(None)
            zoned.append(str(column))
            continue
        # value by value: Series.map keeps a categorical column categorical (one category: one answer), and a
        # categorical has no any() (the second review's "unexpected TypeError")
        values = col.dropna()
        nested = np.fromiter((isinstance(v, (list, tuple, dict, set, np.ndarray)) for v in values), bool, len(values))
        if nested.any():
            kind = type(values.iloc[int(np.argmax(nested))]).__name__
            problems.append(DataError(f"Column '{column}' of '{name}' holds nested values (a {kind} in a cell), "
                                      "which a table of one value per cell cannot model.", column=str(column),
                                      fix="Flatten it into separate columns, or drop it, before loading."))
    if zoned:
        note = f"Time-zoned dates in {', '.join(zoned)} were converted to UTC."
        df.attrs["note"] = f"{df.attrs['note']} {note}" if df.attrs.get("note") else note
    return problems


def _reason(exc: BaseException) -> str:
    """An exception's message on one line, or its type's name when it has none (a MemoryError has none)."""
    return " ".join(str(exc).split()).rstrip(".") or type(exc).__name__


def _read_excel(raw: bytes, name: str, limits: Limits) -> tuple[pd.DataFrame, list]:
    """The first sheet of an .xlsx workbook; ``df.attrs['note']`` says which sheet when there are several."""
    try:
        check_xlsx_decoded(raw, name, limits, cells=check_xlsx(raw, name, limits))
        with pd.ExcelFile(io.BytesIO(raw), engine="openpyxl") as book:
            sheets = book.sheet_names
            grid = pd.read_excel(book, sheet_name=0, header=None) if sheets else None
    except (DataError, MemoryError):
        raise
    except Exception as exc:  # openpyxl and zipfile raise many types
        raise DataError(f"Could not read '{name}' as an Excel workbook: {_reason(exc)}.",
                        fix="Save the sheet as CSV from your spreadsheet program.") from exc
    if not sheets:
        raise DataError(f"'{name}' has no sheets.", fix="Save the sheet as CSV from your spreadsheet program.")
    sheet = sheets[0]
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


def _read_bytes(source, name, limits: Limits) -> tuple[bytes, str]:
    """The file's bytes, its size checked first (a path's before it is read; a stream's at one byte over)."""
    path, data, name = resolve_source(source, name, limits)
    if path is not None:
        with open(path, "rb") as handle:
            data = read_at_most(handle, int(limits.file_mb * MB))
        check_size(len(data), name, limits)
    return data, name


def _encoding(raw: bytes) -> str:
    """UTF-16 (by its byte-order mark), UTF-8 (with or without one), else latin-1; checked in chunks, never holding
    the whole text (a CSV is parsed from its bytes)."""
    candidates = ["utf-16"] if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else []
    for encoding in (*candidates, "utf-8-sig"):
        decoder, view = codecs.getincrementaldecoder(encoding)(), memoryview(raw)
        try:
            for begin in range(0, len(raw), 16 * MB):
                decoder.decode(view[begin:begin + 16 * MB])
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"


def _prefix(raw: bytes, encoding: str, size: int) -> str:
    """The text of the first ``size`` bytes (a character cut there left out)."""
    return codecs.getincrementaldecoder(encoding)(errors="replace").decode(raw[:size], final=len(raw) <= size)


def _blank(raw: bytes, encoding: str) -> bool:
    """Whether the file holds nothing but white space (and a byte-order mark)."""
    view = memoryview(raw)
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    return not any(decoder.decode(view[begin:begin + 16 * MB]).strip() for begin in range(0, len(raw), 16 * MB))


def sniff_format(text: str) -> tuple[str, str]:
    """Return (delimiter, decimal mark) of CSV text."""
    sample = "\n".join(text[:SNIFF_CHARACTERS].splitlines()[:50])
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


SNIFF_BYTES = MB  # sniff_format reads 50 lines; of a huge file, of its first megabyte
SNIFF_CHARACTERS = 64 * 1024  # and of them, no more than this: the csv Sniffer's patterns slow down on long text


def _read_csv(raw: bytes, name: str, limits: Limits) -> tuple[pd.DataFrame, list]:
    if b"\x00" in raw[:4096] and raw[:2] not in (b"\xff\xfe", b"\xfe\xff"):
        raise DataError(f"'{name}' is not a text table (it holds binary data).",
                        fix="Choose a CSV, Parquet or Excel (.xlsx) file.")
    cells = check_csv(raw, name, limits)
    encoding = _encoding(raw)
    if _blank(raw, encoding):
        raise DataError(f"'{name}' is empty.", fix="Choose a file with a header row and data rows.")
    check_csv_decoded(cells, name, limits)
    sample = _prefix(raw, encoding, SNIFF_BYTES)
    delimiter, decimal = sniff_format(sample[:sample.rfind("\n")] if len(raw) > SNIFF_BYTES and "\n" in sample
                                      else sample)
    header, problems = _check_records(raw, encoding, delimiter, name, limits)
    if problems:
        return pd.DataFrame(), problems
    try:
        df = pd.read_csv(io.BytesIO(raw), encoding=encoding, sep=delimiter, decimal=decimal, header=None,
                         skiprows=1, names=header, skipinitialspace=True, skip_blank_lines=True)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"Could not parse '{name}' as CSV with delimiter {delimiter!r}: {_reason(exc)}.",
                        fix="Check that every row has the same number of fields.") from exc
    return _thousands(df, decimal), []


def _check_records(raw: bytes, encoding: str, delimiter: str, name: str, limits: Limits) -> tuple[list, list]:
    """(the header, its problems) after every record is checked to have the header's fields: record by record, from
    the bytes (the rows are never all held as Python lists, nor the text whole). A field may be as long as a line
    (``line_mb``)."""
    field_limit = csv.field_size_limit(max(int(limits.line_mb * MB), 1))
    stream = io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline="")
    reader = csv.reader(stream, delimiter=delimiter)
    header = None
    try:
        for line, row in enumerate((r for r in reader if any(cell.strip() for cell in r)), start=1):
            if header is None:
                header = [h.strip() for h in row]
                problems = header_problems(header)
                if problems:
                    return header, problems
            elif len(row) != len(header):
                raise DataError(f"Line {line} of '{name}' has {len(row)} fields where the header has {len(header)} "
                                f"(delimiter {delimiter!r}).",
                                fix="Use one delimiter throughout the file, and quote values that contain it.")
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise long_field(reader.line_num, name, limits) from None
        raise DataError(f"Could not read '{name}' as CSV: {_reason(exc)}.",
                        fix="Check that the file is a text table with one row per line.") from exc
    finally:
        csv.field_size_limit(field_limit)
        stream.detach()
    if header is None:
        raise DataError(f"'{name}' has no header: every line is empty or only delimiters.",
                        fix="Choose a file whose first line names the columns.")
    return header, []


_THOUSANDS = {".": r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$", ",": r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$"}


def _thousands(df: pd.DataFrame, decimal: str) -> pd.DataFrame:
    """Numbers written with thousands separators ("12,345") are numbers, not text labels."""
    pattern = re.compile(_THOUSANDS[decimal])
    plain = re.compile(r"^[+-]?\d+([.,]\d+)?$")
    separator, notes = ("," if decimal == "." else "."), []
    for column in df.columns:
        values = df[column].dropna()
        if pd.api.types.is_numeric_dtype(df[column]) or values.empty:
            continue
        text = values.astype(str).str.strip()
        grouped = text.str.match(pattern)
        if grouped.any() and (grouped | text.str.match(plain)).all():
            df[column] = pd.to_numeric(df[column].astype(str).str.strip().str.replace(separator, "", regex=False)
                                       .str.replace(decimal, ".", regex=False), errors="coerce")
            notes.append(str(column))
    if notes:
        df.attrs["note"] = f"Read thousands separators as numbers in: {', '.join(notes)}."
    return df
