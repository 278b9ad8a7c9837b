"""Limits checked before a table is parsed, so that a small hostile file cannot exhaust a shared server.

Parsing is where memory goes (a 5 KB workbook can declare 17 billion cells), so every check here reads only
what it needs — a zip's directory, a sheet's first bytes, a Parquet footer, a CSV's first line — or streams
in bounded chunks; ``decoded`` then weighs what the file decodes to, and the parse itself runs in a process within
``read_mb`` of memory and ``read_seconds`` (``reader``). Each limit is raised by its environment variable (``ENV``),
or on the command line by ``--limit NAME=VALUE``; the defaults fit every real table this tool can model.
"""

from __future__ import annotations

import codecs
import csv
import html
import io
import math
import os
import posixpath
import re
import struct
import zipfile
from dataclasses import dataclass, fields, replace
from typing import NamedTuple

import numpy as np

from ..errors import DataError

MB = 2**20  # as Streamlit's maxUploadSize counts


@dataclass(frozen=True)
class Limits:
    """What a table file may hold. A registry extract of 2 million rows × 50 columns (or 300 000 × 300) is
    within every default; a sweep on a table near ``cells`` already runs for days. The defaults keep one table
    within ``table_mb`` wherever it lands (the dashboard's server holds about twice that while it opens it), so that
    a 24 GB server shared by several stewards is not exhausted by one of them."""

    file_mb: float = 1024.0  # the file itself (and the dashboard's upload cap: Streamlit's maxUploadSize)
    columns: int = 2_000  # a vine on more columns cannot be fitted anyway
    rows: int = 5_000_000  # a sweep's sets are capped far below; more rows than this is not a table of people
    cells: int = 100_000_000  # rows × columns: about 0.8 GB as numbers, before pandas' copies
    table_mb: float = 1024.0  # the table once read, in the process that keeps it (the dashboard's server, the CLI)
    line_mb: float = 1.0  # one line of a CSV, and one field (a quoted field may span lines)
    xlsx_mb: float = 256.0  # an .xlsx's parts, uncompressed: openpyxl parses about 1 MB of XML per second
    xlsx_ratio: float = 100.0  # uncompressed / compressed size of one part above 1 MB (Apache POI's bound)
    xlsx_parts: int = 10_000  # files in the .xlsx zip (a workbook has a few dozen)
    read_mb: float = 4096.0  # the address space of the process that parses the file (reader): what it decodes to
    read_seconds: float = 900.0  # how long that process may take: openpyxl parses about 1 MB of XML per second
    footer_mb: float = 16.0  # a Parquet file's footer (its schema and the list of its row groups), read first
    row_groups: int = 10_000  # a Parquet file's row groups: each is read on its own, a cost per group and column

    @classmethod
    def from_env(cls, environ: dict | None = None) -> Limits:
        """The defaults, with each one its environment variable sets."""
        environ = os.environ if environ is None else environ
        given = {name: environ[variable] for name, variable in ENV.items() if environ.get(variable, "").strip()}
        return cls().with_values(given, source="env")

    def with_values(self, values: dict[str, str | float], source: str = "option") -> Limits:
        """These limits with some replaced (``{"cells": "2e8"}``); a name or value that is not one is refused."""
        changes = {}
        for name, text in values.items():
            if name not in ENV:
                raise DataError(f"--limit {name}: there is no such limit.", fix=f"Use one of: {', '.join(ENV)}.")
            where = ENV[name] if source == "env" else f"--limit {name}"
            try:
                value = float(str(text).replace("_", ""))
            except ValueError:
                value = math.nan
            if not math.isfinite(value) or value <= 0:
                raise DataError(f"{where}={text} is not a positive number.", fix=f"Give a number, e.g. "
                                f"{where}={_plain(getattr(Limits(), name))} (the default).")
            changes[name] = int(value) if isinstance(getattr(self, name), int) else value
        return replace(self, **changes)


ENV = {f.name: f"TVS_MAX_{f.name.upper()}" for f in fields(Limits)}


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _amount(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:,.0f} MB" if float(value).is_integer() else f"{value:,.1f} MB"
    if unit == "to 1":
        return f"{value:,.0f} to 1"
    return f"{int(value):,} {unit[:-1] if int(value) == 1 else unit}"


def refusal(what: str, found: float, name: str, unit: str, limits: Limits, *, at_least: bool = False,
            cure: str = "", say_at_least: bool = True) -> DataError:
    """One refusal: what is too large, the value found, the limit, and how to raise it (its environment
    variable, and the command line's option)."""
    limit = getattr(limits, name)
    if at_least:
        how = f"{ENV[name]} (on the command line, --limit {name}) above what the file holds"
    else:
        value = _plain(math.ceil(found))
        how = f"{ENV[name]}={value} in the environment (on the command line, --limit {name}={value})"
    found_text = f"{'at least ' if at_least and say_at_least else ''}{_amount(found, unit)}"
    return DataError(f"{what} {found_text}, above the limit of {_amount(limit, unit)}.",
                     fix=f"{cure}If the file is what you meant to load, raise the limit: {how}.")


def check_size(size: int, name: str, limits: Limits) -> None:
    """A path's size is checked before it is read: the whole file is held in memory."""
    if size > limits.file_mb * MB:
        raise refusal(f"'{name}' is", size / MB, "file_mb", "MB", limits)


# -- CSV: the first line's fields, every line's length, lines × columns ------------------------------------------

CHUNK = 1 << 20
_DELIMITERS = ",;\t|"  # those sniff_format chooses from


class _Lines(NamedTuple):
    count: int
    longest: int  # in bytes (UTF-16: code units)
    number: int  # the longest line's number, 1-based
    fields: int  # the most fields any delimiter makes: its count plus the lines


def check_csv(raw: bytes, name: str, limits: Limits) -> int:
    """The header's fields from a prefix as long as one line may be, then one pass over the bytes in chunks: the
    longest line, and lines × columns (returned: the cells the table will have). Only the prefix is decoded."""
    line_limit = int(limits.line_mb * MB)
    wide = raw[:2] in (b"\xff\xfe", b"\xfe\xff")
    prefix = raw[:line_limit + 2]
    text = codecs.decode(prefix, "utf-16" if wide else "utf-8", errors="ignore").lstrip("\ufeff")
    lines = re.split(r"\r\n|\r|\n", text)
    complete = len(lines) > 1 or len(prefix) == len(raw)
    columns = max(_first_record(text, delimiter) for delimiter in _DELIMITERS)
    if columns > limits.columns:
        raise refusal(f"The header of '{name}' has", columns, "columns", "columns", limits, at_least=not complete)
    width = 2 if wide else 1
    units = np.frombuffer(raw, dtype="<u2" if raw[:2] == b"\xff\xfe" else ">u2", offset=2,
                          count=(len(raw) - 2) // 2) if wide else np.frombuffer(raw, dtype=np.uint8)
    scan = _scan(units, line_limit // width)
    if scan.longest * width > line_limit:
        raise refusal(f"Line {scan.number:,} of '{name}' is", scan.longest * width / MB, "line_mb", "MB", limits,
                      cure="A table has one row per line; check that the file is one. ")
    rows = max(scan.count - 1, 0)
    if rows > limits.rows:
        raise refusal(f"'{name}' has", rows, "rows", "rows", limits,
                      cure="A table has one row per line and a header; check that the file is one. ")
    if rows * columns > limits.cells:
        raise refusal(f"'{name}' has {_amount(rows, 'lines')} of {_amount(columns, 'fields')} =", rows * columns,
                      "cells", "cells", limits)
    cells = scan.fields - columns  # one row may be longer than the header, or span lines by quoted line breaks
    if cells > limits.cells:
        raise refusal(f"'{name}' holds, by its delimiters,", cells, "cells", "cells", limits)
    return rows * columns


def long_field(line: int, name: str, limits: Limits) -> DataError:
    """A quoted field may span lines: it is bounded as one line is (the csv module stops it at that size)."""
    size = _amount(limits.line_mb, "MB")
    return DataError(f"A field of '{name}' that runs to line {line:,} is longer than {size}, the limit of one line.",
                     fix="A table has one value per field; check that the file is one. If it is what you meant to "
                         f"load, raise the limit: {ENV['line_mb']} (on the command line, --limit line_mb) above the "
                         "field's size.")


def _first_record(text: str, delimiter: str) -> int:
    """Fields of the first record with a value (the header, as the reader finds it), read from ``text``."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        return len(next((record for record in reader if any(cell.strip() for cell in record)), []))
    except csv.Error:  # a field above the csv module's limit: the parse refuses it, naming the line
        return 0


def _scan(units: np.ndarray, limit: int) -> _Lines:
    """Lines, the longest one, and fields, one chunk at a time; stops at the first line above ``limit`` (measured
    to its end). A line ends at LF or CR; lines are counted by their LFs (by CRs in a file whose first chunk has
    no LF)."""
    first = units[:CHUNK]
    newline, other = (13, 10) if not (first == 10).any() and (first == 13).any() else (10, 13)
    counted = longest = number = run = 0  # run: the length of the line still open at the chunk's end
    delimiters = np.zeros(len(_DELIMITERS), dtype=np.int64)
    for begin in range(0, len(units), CHUNK):
        chunk = units[begin:begin + CHUNK]
        is_newline = chunk == newline
        ends = np.flatnonzero(is_newline | (chunk == other))
        if len(ends):
            lengths = np.diff(ends, prepend=-1) - 1
            lengths[0] += run
            top = int(np.argmax(lengths))
            if lengths[top] > longest:
                longest, number = int(lengths[top]), counted + int(np.count_nonzero(is_newline[:ends[top]])) + 1
            run = len(chunk) - int(ends[-1]) - 1
        else:
            run += len(chunk)
        counted += int(np.count_nonzero(is_newline))
        delimiters += [np.count_nonzero(chunk == ord(d)) for d in _DELIMITERS]
        if run > longest:
            longest, number = run, counted + 1
        if longest > limit:
            rest = _rest_of_line(units, begin + len(chunk)) if run == longest else 0
            return _Lines(counted, longest + rest, number, 0)
    count = counted + (1 if run else 0)
    return _Lines(count, longest, max(number, 1), int(delimiters.max()) + count)


def _rest_of_line(units: np.ndarray, start: int) -> int:
    for begin in range(start, len(units), CHUNK):
        ends = np.flatnonzero((units[begin:begin + CHUNK] == 10) | (units[begin:begin + CHUNK] == 13))
        if len(ends):
            return begin - start + int(ends[0])
    return len(units) - start


# -- xlsx: the zip's directory, each part's declared dimension, and the cells each sheet really holds -----------

GRACE = MB  # parts smaller than this are not judged by their compression ratio
HEAD = 64 * 1024  # <dimension> comes before <sheetData>, in the first few hundred bytes of a sheet
LONGEST_TAG = MB
_PREFIX = rb"<(?:[A-Za-z_][\w.-]*:)?"
_TAG = re.compile(_PREFIX + rb"(row|c)(?=[\s/>])([^<>]*)>")  # [^<>]: linear, whatever the chunk holds
_DIMENSION = re.compile(_PREFIX + rb"dimension(?=[\s/>])([^<>]*)>")
# the quick count: rows and cells as spreadsheet programs write them, r first and plain, no namespace prefix
_PREFIXED = re.compile(rb"<[A-Za-z_][\w.-]*:(?:row|c)[\s/>]")
_ROW_ANY, _ROW_R = re.compile(rb"<row[\s/>]"), re.compile(rb'<row r="(\d+)"')
_C_ANY, _C_R = re.compile(rb"<c[\s/>]"), re.compile(rb'<c r="\$?[A-Za-z]{1,3}\$?\d+"')
_C_LETTERS = {n: re.compile(rb'<c r="\$?([A-Za-z]{%d})\$?\d' % n) for n in (3, 2, 1)}
_R = re.compile(rb"""(?:^|\s)r\s*=\s*(["'])(.*?)\1""", re.S)
_REF = re.compile(rb"""(?:^|\s)ref\s*=\s*(["'])(.*?)\1""", re.S)
_SHEET = re.compile(r"<(?:[\w.-]+:)?sheet\s[^>]*>")
_ATTR = re.compile(r"""([\w.:-]+)\s*=\s*(["'])(.*?)\2""", re.S)


def check_xlsx(raw: bytes, name: str, limits: Limits) -> int:
    """Before openpyxl reads anything: the number of parts (from the zip's end record), their uncompressed
    sizes and ratios (from the directory), then each XML part streamed in chunks — its declared ``<dimension>``
    from the first bytes, and the rows × columns its row and cell tags really reach (a missing or false
    dimension changes nothing). Returns the cells every part reaches (rows × columns, summed): a bound on the
    texts a workbook's cells can use."""
    parts, room = _zip_entries(raw)
    if parts > limits.xlsx_parts:
        raise refusal(f"'{name}' is a zip of", parts, "xlsx_parts", "parts", limits)
    if room > limits.xlsx_parts:
        raise refusal(f"'{name}' has a zip directory with room for", room, "xlsx_parts", "parts", limits)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        infos = archive.infolist()
        total = sum(info.file_size for info in infos)
        if total > limits.xlsx_mb * MB:
            raise refusal(f"'{name}' unpacks to", total / MB, "xlsx_mb", "MB", limits)
        for info in infos:
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > GRACE and ratio > limits.xlsx_ratio:
                raise refusal(f"Part {info.filename} of '{name}' is compressed {info.file_size / MB:,.1f} MB into "
                              f"{info.compress_size / MB:,.2f} MB, a ratio of", ratio, "xlsx_ratio", "to 1", limits)
        titles = _sheet_titles(archive)
        cells = 0
        for info in infos:  # every part, whatever its name: the workbook's relations may point to any of them
            sheet = f"The sheet '{titles[info.filename]}'" if info.filename in titles else f"Part {info.filename}"
            cells += _check_part(archive, info, f"{sheet} of '{name}'", limits)
        return cells


def _zip_entries(raw: bytes) -> tuple[int, int]:
    """(the entry count, the entries the central directory has room for) from the zip's end record (zip64 too):
    zipfile makes an object for every entry its directory holds, whatever the count says."""
    at = raw.rfind(b"PK\x05\x06", max(0, len(raw) - (22 + 65535)))
    if at < 0 or at + 22 > len(raw):
        return 0, 0  # not a zip: zipfile says so
    entries, directory = struct.unpack_from("<HI", raw, at + 10)
    if raw[at - 20:at - 16] == b"PK\x06\x07":  # zip64: the counts are in the record the locator points to
        record = struct.unpack_from("<Q", raw, at - 12)[0]
        if raw[record:record + 4] == b"PK\x06\x06":
            entries, directory = struct.unpack_from("<QQ", raw, record + 32)
    return entries, directory // 46  # 46 bytes: a directory entry with an empty name


def _check_part(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, limits: Limits) -> int:
    """One part in chunks, counted as openpyxl counts: a ``<row r>`` sets the row (else the next one), a ``<c r>``
    the column (else the next one); pandas then builds last row × widest row cells (returned). Where every row and
    cell states its ``r`` plainly (as spreadsheet programs write them) regular expressions count a chunk at once;
    otherwise the part is read again, tag by tag."""
    for quick in (True, False):
        with archive.open(info) as stream:
            cells = _scan_part(stream, where, limits, quick)
            if cells is not None:
                return cells
    return 0


def _scan_part(stream, where: str, limits: Limits, quick: bool) -> int | None:
    """The cells the part reaches; None when ``quick`` and a chunk holds a row or cell whose ``r`` the quick count
    cannot read."""
    head = stream.read(HEAD)
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:2] in (b"<\x00", b"\x00<"):  # expat reads UTF-16
        raise DataError(f"{where} is not UTF-8 XML, as every spreadsheet program writes it.",
                        fix="Save the sheet as CSV from your spreadsheet program.")
    row = column = last_row = widest = 0
    data, first = head, True
    while data:
        cut, carry = data.rfind(b"<"), b""
        if cut >= 0 and data.find(b">", cut) < 0:  # a tag cut by the chunk: finish it with the next one
            data, carry = data[:cut], data[cut:]
        if first:  # a <dimension> counts where spreadsheet programs write it, before <sheetData>
            for match in _DIMENSION.finditer(data):
                declared = _attribute(_REF, match.group(1))
                if declared:
                    last = _coordinate(declared.rpartition(":")[2])
                    _check_extent(*last, where, limits, "declares, in its <dimension>,")
        if quick:
            counted = _quick_extent(data)
            if counted is None:
                return None
            last_row, widest = max(last_row, counted[0]), max(widest, counted[1])
        else:
            for match in _TAG.finditer(data):
                ref = _attribute(_R, match.group(2))
                if match.group(1) == b"row":
                    row, column = (_row_number(ref) if ref is not None else row + 1), 0
                else:
                    column = _coordinate(ref)[1] if ref else column + 1
                    widest = max(widest, column)
                last_row = max(last_row, row)
        more = stream.read(CHUNK)
        _check_extent(last_row, widest, where, limits, "reaches", at_least=bool(more))
        if len(carry) > LONGEST_TAG:
            raise DataError(f"{where} holds an XML tag longer than 1 MB, which no spreadsheet program writes.",
                            fix="Save the sheet as CSV from your spreadsheet program.")
        first = False
        data = carry + more if more else b""
    return last_row * widest


def _quick_extent(data: bytes) -> tuple[int, int] | None:
    """(highest row, widest column) of a chunk whose every row and cell begins with a plain ``r``; else None.
    The widest column is looked for among three-letter references first, so most chunks list only a few."""
    if _PREFIXED.search(data):
        return None
    rows = _ROW_R.findall(data)
    if len(rows) != len(_ROW_ANY.findall(data)) or len(_C_R.findall(data)) != len(_C_ANY.findall(data)):
        return None
    highest = max(map(int, rows), default=0)
    for pattern in _C_LETTERS.values():
        letters = set(pattern.findall(data))
        if letters:
            return highest, max(map(_column, letters))
    return highest, 0


def _column(letters: bytes) -> int:
    index = 0
    for letter in letters.upper():
        index = index * 26 + letter - 64
    return index


def _check_extent(rows: int, columns: int, where: str, limits: Limits, verb: str, at_least: bool = False) -> None:
    """Rows without cells still cost (openpyxl yields each one), so a sheet counts at least one column.
    ``at_least``: the part is refused before its end, so what it holds may be more."""
    columns = max(columns, 1)
    if columns > limits.columns:
        raise refusal(f"{where} {verb}", columns, "columns", "columns", limits, at_least=at_least)
    if rows > limits.rows + 1:  # the header is a row of the sheet
        raise refusal(f"{where} {verb}", rows, "rows", "rows", limits, at_least=at_least)
    if rows * columns > limits.cells:
        size = f"{'at least ' if at_least else ''}{_amount(rows, 'rows')} × {_amount(columns, 'columns')} ="
        raise refusal(f"{where} {verb} {size}", rows * columns, "cells", "cells", limits, at_least=at_least,
                      say_at_least=False)


def _attribute(pattern: re.Pattern, attributes: bytes) -> str | None:
    found = pattern.search(attributes)
    if not found:
        return None
    value = found.group(2).decode("utf-8", errors="replace")
    return html.unescape(value) if "&" in value else value


def _coordinate(ref: str) -> tuple[int, int]:
    """(row, column) of a cell reference, by openpyxl's own rules; what openpyxl refuses counts as (0, 0)."""
    from openpyxl.utils.cell import coordinate_to_tuple

    try:
        return coordinate_to_tuple(ref)
    except (ValueError, TypeError):
        return 0, 0


def _row_number(ref: str) -> int:
    """A row's number as openpyxl reads it (``int``, else a whole ``float`` such as 1e6)."""
    try:
        return int(ref)
    except ValueError:
        try:
            value = float(ref)
        except ValueError:
            return 0
        return int(value) if value.is_integer() else 0


def _sheet_titles(archive: zipfile.ZipFile) -> dict[str, str]:
    """Part name -> the sheet's name, for messages; read from the first bytes of workbook.xml and its rels."""
    try:
        workbook = _head_text(archive, "xl/workbook.xml")
        relations = _head_text(archive, "xl/_rels/workbook.xml.rels")
    except KeyError:
        return {}
    targets = {}
    for tag in re.findall(r"<(?:[\w.-]+:)?Relationship\s[^>]*>", relations):
        attributes = {key.rpartition(":")[2]: value for key, _, value in _ATTR.findall(tag)}
        target = attributes.get("Target", "")
        targets[attributes.get("Id")] = posixpath.normpath(target.lstrip("/") if target.startswith("/") else
                                                           f"xl/{target}")
    titles = {}
    for tag in _SHEET.findall(workbook):
        attributes = {key.rpartition(":")[2]: value for key, _, value in _ATTR.findall(tag)}
        if attributes.get("id") in targets:
            titles[targets[attributes["id"]]] = html.unescape(attributes.get("name", ""))
    return titles


def _head_text(archive: zipfile.ZipFile, part: str) -> str:
    with archive.open(part) as stream:
        return stream.read(HEAD * 16).decode("utf-8", errors="replace")


# -- Parquet: rows and columns from the footer ---------------------------------------------------------------


FOOTER_TAIL = 8  # a Parquet file ends with its footer's length (4 bytes, little-endian) and "PAR1"


def check_parquet(raw: bytes, name: str, limits: Limits) -> None:
    """The footer's size from the file's last bytes, before the footer is parsed (a file of 300 000 one-row row
    groups is mostly footer); then, from the footer's metadata and before any data page is read, the row groups,
    rows, columns and cells; a nested (repeated) column counts its values, which its rows do not bound."""
    import pyarrow.parquet as pq

    if len(raw) >= 2 * len(_PARQUET_MAGIC) + FOOTER_TAIL and raw[-4:] == _PARQUET_MAGIC:
        footer = struct.unpack_from("<I", raw, len(raw) - FOOTER_TAIL)[0]
        if footer > limits.footer_mb * MB:
            raise refusal(f"The footer of '{name}' (its list of columns and row groups) is", footer / MB,
                          "footer_mb", "MB", limits,
                          cure="A file written in many small pieces can be written again as one: "
                               "pandas.read_parquet(file).to_parquet(new_file). ")
    meta = pq.ParquetFile(io.BytesIO(raw)).metadata
    if meta.num_row_groups > limits.row_groups:
        raise refusal(f"'{name}' is written in", meta.num_row_groups, "row_groups", "row groups", limits,
                      cure="A file written in many small pieces can be written again as one: "
                           "pandas.read_parquet(file).to_parquet(new_file). ")
    columns = meta.num_columns
    if columns > limits.columns:
        raise refusal(f"'{name}' has", columns, "columns", "columns", limits)
    if meta.num_rows > limits.rows:
        raise refusal(f"'{name}' has", meta.num_rows, "rows", "rows", limits)
    cells = 0
    for i in range(columns):
        if meta.schema.column(i).max_repetition_level > 0:
            cells += sum(meta.row_group(g).column(i).num_values for g in range(meta.num_row_groups))
        else:
            cells += meta.num_rows
    if cells > limits.cells:
        raise refusal(f"'{name}' has {_amount(meta.num_rows, 'rows')} × {_amount(columns, 'columns')}, holding", cells,
                      "cells", "cells", limits)


_PARQUET_MAGIC = b"PAR1"
