"""Small files that expand into huge tables, as the security review measured them; built in code, light to build.

Shared by tests/data/test_limits.py and bench/bombs.py. Each builder writes one file into a folder and returns
its path; ``BOMBS`` lists them with the limit each must meet (the environment variable its refusal names).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

ROOT = Path(__file__).resolve().parents[2]
MB = 2**20
MEMORY_CAP = 1 << 30  # RLIMIT_AS of the reading process
# a read that has used this many seconds of CPU has not been refused before parsing (CPU time, not the clock's: a busy
# machine slows a read down, it does not make it use more CPU)
HANG_GUARD = 60
STUCK_CEILING = 900  # seconds of the clock: a reading process stuck without using CPU is killed then

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>")
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Target="xl/workbook.xml" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/>'
    "</Relationships>")
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>')
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Target="worksheets/sheet1.xml" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"/>'
    "</Relationships>")
SHEET_START = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')


def minimal_xlsx(path: Path | BinaryIO, sheet_xml: str | Callable[[object], None]) -> Path | BinaryIO:
    """A workbook of one sheet, written by hand (so its sheet can lack or misstate its ``<dimension>``);
    ``sheet_xml`` is the sheet's XML, or a function that streams it into the open part."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        if isinstance(sheet_xml, str):
            archive.writestr("xl/worksheets/sheet1.xml", sheet_xml)
        else:
            with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as part:
                sheet_xml(part)
    return path


def sheet(rows: str, dimension: str | None = None) -> str:
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    return f"{SHEET_START}{declared}<sheetData>{rows}</sheetData></worksheet>"


def honest_xlsx(folder: Path) -> Path:
    """The control: the hand-written workbook with a small table reads (so the bombs' refusals are real)."""
    rows = '<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>' + "".join(
        f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(2, 12))
    return minimal_xlsx(folder / "honest.xlsx", sheet(rows, "A1:A11"))


FAR_CELL = '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'


def far_cell_openpyxl(folder: Path) -> Path:
    """The review's 5 KB workbook: one cell at XFD1048576, saved by openpyxl (which declares the dimension)."""
    from openpyxl import Workbook

    book = Workbook()
    book.active.cell(row=1048576, column=16384, value=1)
    book.save(folder / "far_cell.xlsx")
    return folder / "far_cell.xlsx"


def far_cell_no_dimension(folder: Path) -> Path:
    return minimal_xlsx(folder / "far_cell_no_dimension.xlsx", sheet(FAR_CELL))


def far_cell_false_dimension(folder: Path) -> Path:
    """Declares A1:B2 and holds a cell at XFD1048576: the dimension is not believed."""
    return minimal_xlsx(folder / "far_cell_false_dimension.xlsx", sheet(FAR_CELL, "A1:B2"))


def deep_rows_no_dimension(folder: Path) -> Path:
    """Three columns, but a last row numbered 10^9 (openpyxl yields every row before it), no dimension."""
    rows = '<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>1</v></c><c r="C1"><v>1</v></c></row>' \
           '<row r="1000000000"><c r="A1000000000"><v>1</v></c></row>'
    return minimal_xlsx(folder / "deep_rows.xlsx", sheet(rows))


def xml_flood(folder: Path, megabytes: int = 322) -> Path:
    """The review's 3.3 MB workbook of 322 MB of XML (deflated about 90 to 1): one block of rows, a number in
    every 16th of them, streamed into the zip again and again, never held whole."""
    import numpy as np

    numbers = np.random.default_rng(0).integers(0, 10**6, 200_000)
    block = "".join(f"<row><c><v>{v}</v></c></row>" if i % 16 == 0 else "<row><c><v>0</v></c><c><v>0</v></c></row>"
                    for i, v in enumerate(numbers)).encode()

    def write(part) -> None:
        part.write(SHEET_START.encode() + b"<sheetData>")
        for _ in range(-(-(megabytes << 20) // len(block))):
            part.write(block)
        part.write(b"</sheetData></worksheet>")
    return minimal_xlsx(folder / "xml_flood.xlsx", write)


def ratio_bomb(folder: Path) -> Path:
    """A sheet of 100 MB that deflates 400 to 1: within the unpacked-size limit, refused by its ratio."""
    def write(part) -> None:
        part.write(SHEET_START.encode() + b"<sheetData>")
        block = b"<row><c><v>0</v></c></row>" * 40_000
        for _ in range(100 * (1 << 20) // len(block)):
            part.write(block)
        part.write(b"</sheetData></worksheet>")
    return minimal_xlsx(folder / "ratio_bomb.xlsx", write)


def wide_csv(folder: Path, columns: int = 1_000_000) -> Path:
    """The review's 10 MB CSV of 10^6 columns: a header and one row."""
    path = folder / "wide.csv"
    with path.open("w") as handle:
        handle.write(",".join(f"c{i}" for i in range(columns)) + "\n")
        handle.write(",".join(["1"] * columns) + "\n")
    return path


def long_line(folder: Path, megabytes: int = 50) -> Path:
    """The review's 50 MB single-field line, after a one-column header."""
    path = folder / "long_line.csv"
    with path.open("wb") as handle:
        handle.write(b"note\n")
        for _ in range(megabytes):
            handle.write(b"x" * (1 << 20))
        handle.write(b"\n")
    return path


def tall_parquet(folder: Path, millions: int = 150) -> Path:
    """The review's Parquet file of 150 M rows: one all-null column, a few hundred KB on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "tall.parquet"
    chunk = pa.table({"x": pa.nulls(1_000_000)})
    with pq.ParquetWriter(path, chunk.schema) as writer:
        for _ in range(millions):
            writer.write_table(chunk)
    return path


@dataclass(frozen=True)
class Bomb:
    name: str
    what: str
    build: Callable[[Path], Path]
    refused_by: str  # the environment variable the refusal names
    disk_mb: float  # at most this on disk: small files, as the review's


BOMBS = [
    Bomb("xlsx_far_cell", "5 KB .xlsx, one cell at XFD1048576 (openpyxl: dimension declared)",
         far_cell_openpyxl, "TVS_MAX_COLUMNS", 0.01),
    Bomb("xlsx_far_cell_no_dimension", "the same cell, no <dimension>", far_cell_no_dimension, "TVS_MAX_COLUMNS",
         0.01),
    Bomb("xlsx_far_cell_false_dimension", 'the same cell, <dimension ref="A1:B2">', far_cell_false_dimension,
         "TVS_MAX_COLUMNS", 0.01),
    Bomb("xlsx_deep_rows", "3 columns, a row numbered 10^9, no <dimension>", deep_rows_no_dimension,
         "TVS_MAX_CELLS", 0.01),
    Bomb("xlsx_xml_flood", "322 MB of sheet XML in a 4 MB .xlsx", xml_flood, "TVS_MAX_XLSX_MB", 5),
    Bomb("xlsx_ratio", "100 MB of sheet XML deflated 400 to 1", ratio_bomb, "TVS_MAX_XLSX_RATIO", 0.5),
    Bomb("csv_wide", "10 MB CSV of 10^6 columns", wide_csv, "TVS_MAX_COLUMNS", 10),
    Bomb("csv_long_line", "50 MB single-field line", long_line, "TVS_MAX_LINE_MB", 51),
    Bomb("parquet_tall", "Parquet of 150 M rows, one all-null column", tall_parquet, "TVS_MAX_CELLS", 1),
]

_READER = """
import os, resource, signal, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from tvs_core.data.io import read_table
from tvs_core.errors import DataError


def report(status, text):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(status, f"{{time.perf_counter() - start:.3f}}", f"{{peak:.0f}}", " ".join(str(text).split()), sep="\\t",
          flush=True)
    os._exit(0)


signal.signal(signal.SIGPROF, lambda *_: report("TIMEOUT", ""))
signal.setitimer(signal.ITIMER_PROF, {timeout})  # CPU seconds of the read
start = time.perf_counter()
try:
    table = read_table(sys.argv[1])
except DataError as exc:
    report("REFUSED", exc)
except BaseException as exc:  # no DataError: a bug, or the cap reached outside the reader's own handling
    report("CRASHED", f"{{type(exc).__name__}}: {{exc}}")
report("READ", table.shape)
"""


@dataclass(frozen=True)
class Outcome:
    status: str  # REFUSED, READ, TIMEOUT (the hang guard rang) or CRASHED (another exception, or killed)
    seconds: float  # the read's own time, measured in the reading process
    peak_mb: float  # the reading process's peak resident memory (its own getrusage, imports included)
    message: str


def read_capped(path: Path, root: Path = ROOT, cap: int = MEMORY_CAP, timeout: int = HANG_GUARD) -> Outcome:
    """``read_table(path)`` in a fresh process under an address-space cap, with ``root``'s tvs_core and the
    default limits; the process reports its own time and peak memory, also when the hang guard rings (after
    ``timeout`` CPU seconds of the read; a process stuck without using CPU is killed after ``STUCK_CEILING``)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TVS_MAX_")}
    env["PYTHONPATH"] = str(root)
    try:
        process = subprocess.run([sys.executable, "-c", _READER.format(cap=cap, timeout=timeout),
                                  str(Path(path).resolve())],
                                 cwd=root, env=env, text=True, capture_output=True, timeout=STUCK_CEILING)
    except subprocess.TimeoutExpired:  # stuck where the guard cannot ring (inside C code, or waiting): killed
        return Outcome("TIMEOUT", math.nan, math.nan, "")
    fields = process.stdout.rstrip("\n").split("\t", 3)  # the message may be empty
    if len(fields) != 4:
        return Outcome("CRASHED", math.nan, math.nan, (process.stderr or process.stdout).strip()[-300:])
    return Outcome(fields[0], float(fields[1]), float(fields[2]), fields[3])
