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

ROOT = Path(__file__).resolve().parents[1]
MB = 2**20
MEMORY_CAP = 1 << 30  # RLIMIT_AS of the reading process
HANG_GUARD = 60  # seconds: a read still running then has not been refused before parsing (the bench's guard)
TEST_GUARD = 900  # the tests' guard: a hang, not a speed limit (a loaded machine takes minutes to start Python)

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


def minimal_xlsx(path: Path | BinaryIO, sheet_xml: str | Callable[[object], None],
                 compresslevel: int = 9) -> Path | BinaryIO:
    """A workbook of one sheet, written by hand (so its sheet can lack or misstate its ``<dimension>``);
    ``sheet_xml`` is the sheet's XML, or a function that streams it into the open part. A bomb is deflated at the
    highest level (its ratio is the point); a large workbook that is no bomb can be deflated at level 1, in a
    tenth of the time."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=compresslevel) as archive:
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


def _written(path: Path, head: bytes, block: bytes, times: int, tail: bytes = b"") -> Path:
    """``head``, ``block`` ``times`` over, ``tail``: a large file written a block at a time."""
    with path.open("wb") as handle:
        handle.write(head)
        for _ in range(times):
            handle.write(block)
        handle.write(tail)
    return path


def long_line(folder: Path, megabytes: int = 50) -> Path:
    """The review's 50 MB single-field line, after a one-column header."""
    return _written(folder / "long_line.csv", b"note\n", b"x" * (1 << 20), megabytes, b"\n")


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


_SHARED_STRINGS_TYPE = ('<Override PartName="/xl/sharedStrings.xml" '
                        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
_SHARED_STRINGS_REL = ('<Relationship Id="rId2" Target="sharedStrings.xml" '
                       'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"/>')


def shared_strings(folder: Path, megabytes: int = 255) -> Path:
    """The review's 24 MB workbook: one cell, and 255 MB of shared strings (numbered, so they deflate about 10 to
    1), which openpyxl keeps every one of (as Python strings) before it reads the cell."""
    path = folder / "shared_strings.xlsx"
    entry = len("<si><t>s000000000</t></si>")
    count = (megabytes << 20) // entry
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES.replace("</Types>", _SHARED_STRINGS_TYPE + "</Types>"))
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels",
                         _WORKBOOK_RELS.replace("</Relationships>", _SHARED_STRINGS_REL + "</Relationships>"))
        archive.writestr("xl/worksheets/sheet1.xml", sheet('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', "A1"))
        with archive.open("xl/sharedStrings.xml", "w", force_zip64=True) as part:
            part.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="http://schemas.'
                       f'openxmlformats.org/spreadsheetml/2006/main" count="{count}" uniqueCount="{count}">'.encode())
            for begin in range(0, count, 100_000):
                part.write("".join(f"<si><t>s{i:09d}</t></si>" for i in range(begin, min(begin + 100_000, count)))
                           .encode())
            part.write(b"</sst>")
    return path


def parquet_long_numbers(folder: Path, millions: int = 50) -> Path:
    """The review's 0.45 MB Parquet file of 2 columns × 50 M rows (exactly the cells limit): 800 MB of numbers."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "long_numbers.parquet"
    chunk = pa.table({"a": pa.array([0] * 1_000_000, pa.int64()), "b": pa.array([0.0] * 1_000_000)})
    with pq.ParquetWriter(path, chunk.schema) as writer:
        for _ in range(millions):
            writer.write_table(chunk)
    return path


def parquet_one_long_string(folder: Path, millions: int = 2) -> Path:
    """The review's 12 KB Parquet file: 2 M rows of one 1 MB string, kept once in the column's dictionary (2 TB
    once decoded). No Arrow schema is stored, so a reader decodes the column, as one written elsewhere."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "one_long_string.parquet"
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(millions * 1_000_000, np.int32)), pa.array(["x" * MB]))
    pq.write_table(pa.table({"note": column}), path, compression="zstd", store_schema=False)
    return path


def short_lines(folder: Path, millions: int = 50) -> Path:
    """The review's 100 MB CSV of 50 M short lines (one column: 50 M cells, under the cells limit)."""
    return _written(folder / "short_lines.csv", b"x\n", b"1\n" * 1_000_000, millions)


def quoted_field(folder: Path, megabytes: int = 50) -> Path:
    """The review's 50 MB CSV of one quoted field across lines of 1 KB (each line far under the line limit)."""
    return _written(folder / "quoted_field.csv", b'note\n"', (b"x" * 1023 + b"\n") * 1024, megabytes, b'"\n')


def parquet_zeros(folder: Path, millions: int = 50) -> Path:
    """The third review's 0.44 MB Parquet file: two float64 columns of 50 M zeros (within the cells limit), which
    the reading child could parse under its cap and then hand back whole to the server."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "zeros.parquet"
    chunk = pa.table({"a": pa.array([0.0] * 1_000_000), "b": pa.array([0.0] * 1_000_000)})
    with pq.ParquetWriter(path, chunk.schema) as writer:
        for _ in range(millions):
            writer.write_table(chunk)
    return path


def parquet_row_groups(folder: Path, thousands: int = 300) -> Path:
    """The third review's Parquet file of 300 k one-row row groups: mostly footer, whose metadata alone took the
    reading child to its 4 GB cap."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "row_groups.parquet"
    pq.write_table(pa.table({"x": pa.array(range(thousands * 1000))}), path, row_group_size=1)
    return path


def empty_cells(folder: Path, rows: int = 25_000, columns: int = 1_999) -> Path:
    """The review's CSV of 1,999 columns × 25 k rows of empty cells: within the columns and cells limits, 50 MB on
    disk, 400 MB of missing numbers once read."""
    return _written(folder / "empty_cells.csv", ",".join(f"c{i}" for i in range(columns)).encode() + b"\n",
                    b"," * (columns - 1) + b"\n", rows)


def slow_workbook(folder: Path, megabytes: int = 200) -> Path:
    """Not a bomb: a workbook within every limit whose sheet openpyxl takes minutes to parse (about 1 MB of XML a
    second): 200 MB of rows of two numbers, about 29 MB on disk (deflated at level 1: 3 s to write, not 30; a
    ratio of 7, far within the limits). For what happens while a read is under way."""
    row = '<row r="{0}"><c r="A{0}"><v>{0}</v></c><c r="B{0}"><v>{0}.5</v></c></row>'

    def stream(part) -> None:
        part.write(SHEET_START.encode() + b"<sheetData>")
        written, number = 0, 1
        while written < megabytes << 20:
            block = "".join(row.format(i) for i in range(number, number + 10_000)).encode()
            part.write(block)
            written, number = written + len(block), number + 10_000
        part.write(b"</sheetData></worksheet>")

    return minimal_xlsx(folder / "slow.xlsx", stream, compresslevel=1)


def categorical_parquet(folder: Path) -> Path:
    """The review's small Parquet file with a categorical column (pandas keeps its categories), here of one
    category: not a bomb, but it gave "unexpected TypeError"; it reads."""
    import pandas as pd

    path = folder / "categorical.parquet"
    pd.DataFrame({"ward": pd.Categorical(["A"] * 120), "age": list(range(120))}).to_parquet(path)
    return path


# -- what a parser may meet that no check foresaw, as parsers for tvs_core/data/reader.py's child ----------------

def parse_by_allocating(source, name, limits):
    """Asks for more memory than any cap gives (as pandas does for a column it cannot hold)."""
    import numpy as np

    return np.ones(1 << 40)


def parse_by_sleeping(source, name, limits):
    """Takes as long as a huge file would, and says where it runs (its pid, in a file named by the environment), so
    that a test can see it end."""
    import time

    marker = os.environ.get("TVS_TEST_READER_PID")
    if marker:
        Path(marker).write_text(str(os.getpid()))
    time.sleep(3600)


def parse_by_returning_a_large_table(source, name, limits):
    """A table of 2 columns × 1 M numbers (16 MB once read), whatever the file: for the budget of the process
    that keeps it."""
    import numpy as np
    import pandas as pd

    return pd.DataFrame({"a": np.zeros(1_000_000), "b": np.zeros(1_000_000)})


def parse_by_dying(source, name, limits):
    """Killed by a signal (as by the kernel's out-of-memory killer, or a failed allocation in C that aborts)."""
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def parse_by_reporting_the_cap(source, name, limits):
    """A table of one cell: the address-space cap the parse runs under."""
    import resource

    import pandas as pd

    return pd.DataFrame({"cap": [resource.getrlimit(resource.RLIMIT_AS)[0]]})


def parse_by_type_error(source, name, limits):
    """A reader's own bug (the second review's categorical Parquet gave "unexpected TypeError")."""
    raise TypeError("Cannot setitem on a Categorical with a new category")


@dataclass(frozen=True)
class Bomb:
    name: str
    what: str
    build: Callable[[Path], Path]
    refused_by: str  # the environment variable the refusal names (under the tests' 1 GB cap), or what it says
    disk_mb: float  # at most this on disk: small files, as the review's
    review: int = 1  # which security review found it (the second and third also tried the dashboard's upload)


BOMBS = [
    Bomb("xlsx_far_cell", "5 KB .xlsx, one cell at XFD1048576 (openpyxl: dimension declared)",
         far_cell_openpyxl, "TVS_MAX_COLUMNS", 0.01),
    Bomb("xlsx_far_cell_no_dimension", "the same cell, no <dimension>", far_cell_no_dimension, "TVS_MAX_COLUMNS",
         0.01),
    Bomb("xlsx_far_cell_false_dimension", 'the same cell, <dimension ref="A1:B2">', far_cell_false_dimension,
         "TVS_MAX_COLUMNS", 0.01),
    Bomb("xlsx_deep_rows", "3 columns, a row numbered 10^9, no <dimension>", deep_rows_no_dimension,
         "TVS_MAX_ROWS", 0.01),
    Bomb("xlsx_xml_flood", "322 MB of sheet XML in a 4 MB .xlsx", xml_flood, "TVS_MAX_XLSX_MB", 5),
    Bomb("xlsx_ratio", "100 MB of sheet XML deflated 400 to 1", ratio_bomb, "TVS_MAX_XLSX_RATIO", 0.5),
    Bomb("csv_wide", "10 MB CSV of 10^6 columns", wide_csv, "TVS_MAX_COLUMNS", 10),
    Bomb("csv_long_line", "50 MB single-field line", long_line, "TVS_MAX_LINE_MB", 51),
    Bomb("parquet_tall", "Parquet of 150 M rows, one all-null column", tall_parquet, "TVS_MAX_ROWS", 1),
    # the second review, within the limits of the first: what they decode to
    Bomb("xlsx_shared_strings", "24 MB .xlsx, one cell and 255 MB of shared strings", shared_strings,
         "shared strings", 30, review=2),
    Bomb("parquet_long_numbers", "Parquet of 2 columns × 50 M rows (800 MB of numbers)", parquet_long_numbers,
         "TVS_MAX_ROWS", 1, review=2),
    Bomb("parquet_one_long_string", "Parquet of 2 M rows of one 1 MB dictionary string", parquet_one_long_string,
         "TVS_MAX_TABLE_MB", 0.05, review=2),
    Bomb("csv_short_lines", "100 MB CSV of 50 M short lines", short_lines, "TVS_MAX_ROWS", 101, review=2),
    Bomb("csv_quoted_field", "50 MB CSV of one quoted field across lines of 1 KB", quoted_field, "TVS_MAX_LINE_MB",
         51, review=2),
    # the third review: what the server keeps once the child has read it, and files that take minutes to read
    Bomb("parquet_zeros", "0.44 MB Parquet of 2 float64 columns × 50 M zeros", parquet_zeros, "TVS_MAX_ROWS", 0.5,
         review=3),
    Bomb("parquet_row_groups", "Parquet of 300 k one-row row groups", parquet_row_groups, "TVS_MAX_FOOTER_MB", 70,
         review=3),
    Bomb("csv_empty_cells", "CSV of 1,999 columns × 25 k rows of empty cells (400 MB once read)", empty_cells,
         "TVS_MAX_READ_MB", 50, review=3),
]

_READER = """
import os, resource, signal, sys, time
if {cap}:
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from tvs_core.data.io import read_table
from tvs_core.errors import DataError


def report(status, text):
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(status, f"{{time.perf_counter() - start:.3f}}", f"{{max(own, child):.0f}}", f"{{own - base:.0f}}",
          " ".join(str(text).split()), sep="\\t", flush=True)
    os._exit(0)


signal.signal(signal.SIGALRM, lambda *_: report("TIMEOUT", ""))
signal.alarm({timeout})
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # after the imports: what reading adds is beyond
start = time.perf_counter()
try:
    if sys.argv[2] == "upload":  # as the dashboard reads an upload: its bytes, and its name
        table = read_table(open(sys.argv[1], "rb").read(), name=os.path.basename(sys.argv[1]))
    else:  # as the command line reads a file
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
    peak_mb: float  # peak resident memory of the reading process or its child that parses (getrusage; imports in)
    message: str
    grown_mb: float = math.nan  # how much the reading process itself grew beyond its imports (what keeps the table)


def read_capped(path: Path, root: Path = ROOT, cap: int | None = MEMORY_CAP, timeout: int = HANG_GUARD,
                upload: bool = False, defaults: bool = False) -> Outcome:
    """``read_table(path)`` (or, ``upload``, of the file's bytes, as the dashboard reads an upload) in a fresh
    process under an address-space cap (None: none), with ``root``'s tvs_core and the default limits but the read's
    memory limit at the cap (``TVS_MAX_READ_MB``; ``defaults``: left at its default, as under an administrator's own
    ``ulimit -v``) and its time limit within the hang guard; the process reports its own time and peak memory (its
    child's, where the parse runs), also when the hang guard rings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TVS_MAX_")}
    env.update(PYTHONPATH=str(root), TVS_MAX_READ_SECONDS=str(max(timeout - 10, 1)))
    if cap and not defaults:
        env.update(TVS_MAX_READ_MB=str(cap // MB))
    try:
        process = subprocess.run([sys.executable, "-c", _READER.format(cap=cap or 0, timeout=timeout),
                                  str(Path(path).resolve()), "upload" if upload else "path"],
                                 cwd=root, env=env, text=True, capture_output=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:  # stuck where the alarm cannot ring (inside C code): killed
        return Outcome("TIMEOUT", math.nan, math.nan, "")
    fields = process.stdout.rstrip("\n").split("\t", 4)  # the message may be empty
    if len(fields) != 5:
        return Outcome("CRASHED", math.nan, math.nan, (process.stderr or process.stdout).strip()[-300:])
    return Outcome(fields[0], float(fields[1]), float(fields[2]), fields[4], float(fields[3]))
