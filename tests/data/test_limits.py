"""Limits checked before parsing (the review's bombs: test_bombs.py): every limit names the value found and how to
raise it, the xlsx count is openpyxl's whatever the sheet's XML looks like, and the demos are far below every
default."""

from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import pandas as pd
import pytest

from bench.hostile_files import SHEET_START, honest_xlsx, minimal_xlsx, sheet
from tvs_core.cli import main
from tvs_core.data.demo import DEMOS, load_demo
from tvs_core.data.io import parse_table
from tvs_core.data.limits import ENV, MB, Limits
from tvs_core.errors import DataError

# -- each limit: the value found, the limit, and how to raise it -----------------------------------------------

def _csv(rows: int = 10, columns: int = 3) -> bytes:
    header = ",".join(f"c{j}" for j in range(columns))
    return (header + "\n" + "".join(",".join(str(i + j) for j in range(columns)) + "\n" for i in range(rows))).encode()


def test_the_column_limit_names_the_columns_found_and_its_variable(monkeypatch):
    with pytest.raises(DataError) as info:
        parse_table(_csv(), "t.csv", limits=Limits(columns=2))
    assert "3 columns, above the limit of 2 columns" in str(info.value)
    assert "TVS_MAX_COLUMNS=3" in str(info.value) and "--limit columns=3" in str(info.value)
    monkeypatch.setenv("TVS_MAX_COLUMNS", "2")
    with pytest.raises(DataError, match="TVS_MAX_COLUMNS"):
        parse_table(_csv(), "t.csv")
    monkeypatch.setenv("TVS_MAX_COLUMNS", "3")
    assert parse_table(_csv(), "t.csv").shape == (10, 3)


def test_a_csv_is_refused_by_lines_times_columns_and_read_at_the_limit():
    with pytest.raises(DataError, match="10 lines of 3 fields = 30 cells, above the limit of 29 cells"):
        parse_table(_csv(), "t.csv", limits=Limits(cells=29))
    assert parse_table(_csv(), "t.csv", limits=Limits(cells=30)).shape == (10, 3)


def test_a_row_longer_than_the_header_counts_its_fields():
    """A header of 2 fields, then one line of 3 000: lines × header fields is 2, the delimiters tell 3 000."""
    with pytest.raises(DataError, match="holds, by its delimiters, 3,000 cells, above the limit of 1,000 cells"):
        parse_table(("x,y\n" + ",".join(["1"] * 3000) + "\n").encode(), "t.csv", limits=Limits(cells=1000))


def test_the_longest_line_is_named_by_its_number_and_length():
    data = _csv() + b"x" * 3000 + b"\n" + _csv()
    with pytest.raises(DataError) as info:
        parse_table(data, "t.csv", limits=Limits(line_mb=2000 / MB))
    assert "Line 12 of 't.csv'" in str(info.value) and "TVS_MAX_LINE_MB" in str(info.value)
    with pytest.raises(DataError, match="Line 2 of 't.csv'"):  # UTF-16: measured in its own units
        parse_table(("a\n" + "y" * 3000 + "\n").encode("utf-16"), "t.csv", limits=Limits(line_mb=4000 / MB))
    with pytest.raises(DataError, match="Line 3 of 't.csv'"):  # old Mac line ends
        parse_table(b"a\r1\r" + b"z" * 3000 + b"\r", "t.csv", limits=Limits(line_mb=2000 / MB))


@pytest.mark.parametrize("how", ["path", "bytes", "stream"])
def test_the_file_size_is_checked_before_the_file_is_read(tmp_path, how):
    data = _csv(rows=400)
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    source = {"path": path, "bytes": data, "stream": io.BytesIO(data)}[how]
    with pytest.raises(DataError, match="TVS_MAX_FILE_MB") as info:
        parse_table(source, "t.csv", limits=Limits(file_mb=1000 / MB))
    assert "above the limit of 0.0 MB" in str(info.value)
    assert parse_table(path, limits=Limits(file_mb=len(data) / MB)).shape == (400, 3)


def test_a_parquet_file_is_judged_by_its_footer(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": np.arange(100), "b": np.arange(100.0)}).to_parquet(path)
    with pytest.raises(DataError, match="100 rows × 2 columns, holding 200 cells, above the limit of 199 cells"):
        parse_table(path, limits=Limits(cells=199))
    with pytest.raises(DataError, match="2 columns, above the limit of 1 column"):
        parse_table(path, limits=Limits(columns=1))
    assert parse_table(path, limits=Limits(cells=200)).shape == (100, 2)


def test_rows_are_a_limit_of_their_own_in_every_format(tmp_path):
    """The third review's files of 50 M rows (one CSV field a line, two Parquet columns of zeros) were within the
    cells limit and took minutes; rows are counted before parsing, from the lines or the footer."""
    with pytest.raises(DataError, match="'t.csv' has 10 rows, above the limit of 9 rows.*TVS_MAX_ROWS=10"):
        parse_table(_csv(rows=10), "t.csv", limits=Limits(rows=9))
    assert parse_table(_csv(rows=10), "t.csv", limits=Limits(rows=10)).shape == (10, 3)
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": np.zeros(100), "b": np.zeros(100)}).to_parquet(path)
    with pytest.raises(DataError, match="'t.parquet' has 100 rows, above the limit of 99 rows.*--limit rows=100"):
        parse_table(path, limits=Limits(rows=99))
    book = minimal_xlsx(tmp_path / "t.xlsx", sheet("".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>'
                                                           for r in range(1, 12))))
    with pytest.raises(DataError, match="11 rows, above the limit of 9 rows.*TVS_MAX_ROWS"):
        parse_table(book, limits=Limits(rows=9))
    assert parse_table(book, limits=Limits(rows=10)).shape == (10, 1)  # a header and 10 rows


def test_a_parquet_file_of_many_row_groups_is_refused_by_its_footer_before_it_is_parsed(tmp_path):
    """The third review's 300 k one-row row groups: the footer's size is read from the file's last bytes, the row
    groups from the footer, both before a data page is read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "pieces.parquet"
    pq.write_table(pa.table({"x": pa.array(range(2000))}), path, row_group_size=1)
    footer = struct.unpack("<I", path.read_bytes()[-8:-4])[0]
    with pytest.raises(DataError, match=r"The footer of 'pieces.parquet' \(its list of columns and row groups\) is "
                                        r".* MB, above the limit of .*TVS_MAX_FOOTER_MB"):
        parse_table(path, limits=Limits(footer_mb=footer / MB * 0.99))
    with pytest.raises(DataError, match="written in 2,000 row groups, above the limit of 1,999 row groups.*"
                                        "--limit row_groups=2000"):
        parse_table(path, limits=Limits(row_groups=1999))
    assert parse_table(path, limits=Limits(row_groups=2000, footer_mb=footer / MB)).shape == (2000, 1)


def test_a_table_beyond_the_budget_of_the_process_that_keeps_it_is_refused_before_it_is_parsed(tmp_path):
    """``table_mb``: what the dashboard's server (or the command line) may hold of one table; judged from what the
    file declares before the parse, whatever the reading child's own room."""
    with pytest.raises(DataError, match=r"'t.csv' \(30 cells\) takes at least .* once read, more than the .* a table "
                                        "may take.*TVS_MAX_TABLE_MB"):
        parse_table(_csv(rows=10), "t.csv", limits=Limits(table_mb=29 * 8 / MB))
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": np.zeros(100), "b": np.zeros(100)}).to_parquet(path)
    with pytest.raises(DataError, match="TVS_MAX_TABLE_MB"):
        parse_table(path, limits=Limits(table_mb=1599 / MB))


def test_a_nested_parquet_column_counts_its_values_not_its_rows(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"tags": [list(range(100))] * 3}).to_parquet(path)
    with pytest.raises(DataError, match="3 rows × 1 column, holding 300 cells"):
        parse_table(path, limits=Limits(cells=299))


def test_an_unpacked_workbook_too_large_or_too_compressed_or_of_too_many_parts(tmp_path):
    book = honest_xlsx(tmp_path)
    with pytest.raises(DataError, match="unpacks to .* MB, above the limit of .* TVS_MAX_XLSX_MB"):
        parse_table(book, limits=Limits(xlsx_mb=1000 / MB))
    with zipfile.ZipFile(book, "a") as archive:
        for i in range(30):
            archive.writestr(f"docProps/custom{i}.xml", "<x/>")
    with pytest.raises(DataError, match="is a zip of 35 parts, above the limit of 20 parts"):
        parse_table(book, limits=Limits(xlsx_parts=20))
    data = bytearray(book.read_bytes())  # the end record says 1 entry; zipfile would still read all 35
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = struct.pack("<HH", 1, 1)
    with pytest.raises(DataError, match="has a zip directory with room for [0-9]+ parts, above the limit of 20"):
        parse_table(bytes(data), "lying.xlsx", limits=Limits(xlsx_parts=20))
    flat = minimal_xlsx(tmp_path / "flat.xlsx", sheet('<row r="1"><c r="A1"><v>1</v></c></row>' * 100_000))
    with pytest.raises(DataError, match="Part xl/worksheets/sheet1.xml .* a ratio of .* TVS_MAX_XLSX_RATIO"):
        parse_table(flat, limits=Limits(xlsx_ratio=10))


def test_an_invalid_limit_in_the_environment_is_named(monkeypatch):
    monkeypatch.setenv("TVS_MAX_CELLS", "lots")
    with pytest.raises(DataError, match="TVS_MAX_CELLS=lots is not a positive number"):
        parse_table(_csv(), "t.csv")
    assert set(ENV.values()) == {"TVS_MAX_FILE_MB", "TVS_MAX_COLUMNS", "TVS_MAX_CELLS", "TVS_MAX_LINE_MB",
                                 "TVS_MAX_XLSX_MB", "TVS_MAX_XLSX_RATIO", "TVS_MAX_XLSX_PARTS", "TVS_MAX_READ_MB",
                                 "TVS_MAX_READ_SECONDS", "TVS_MAX_ROWS", "TVS_MAX_TABLE_MB", "TVS_MAX_FOOTER_MB",
                                 "TVS_MAX_ROW_GROUPS"}


def test_the_command_line_option_sets_a_limit_over_the_environment(tmp_path, monkeypatch, capsys):
    path = tmp_path / "t.csv"
    path.write_bytes(_csv())
    assert main(["inspect", str(path), "--limit", "columns=2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "--limit columns=3" in err and len(err.splitlines()) == 1
    monkeypatch.setenv("TVS_MAX_COLUMNS", "2")
    assert main(["inspect", str(path), "--limit", "columns=3"]) == 0
    assert main(["inspect", str(path), "--limit", "lines=3"]) == 2
    assert "NAME one of file_mb" in capsys.readouterr().err


def test_a_workbooks_reader_running_out_of_memory_is_left_to_the_reading_process(tmp_path, monkeypatch):
    """The first review's "Could not read …: ." came from a MemoryError, which has no message; the second's
    "unexpected" too. The parse lets it through, and the process that reads the file (tvs_core/data/reader.py)
    says which limit it reached (tests/data/test_reader.py)."""
    def out_of_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(pd, "ExcelFile", out_of_memory)
    with pytest.raises(MemoryError):
        parse_table(honest_xlsx(tmp_path))


# -- the xlsx count is openpyxl's, however the sheet is written ------------------------------------------------

def _openpyxl_extent(sheet_xml: str) -> tuple[int, int]:
    """(last row, widest column) as openpyxl parses the sheet: what pandas would build."""
    from openpyxl.worksheet._reader import WorkSheetParser

    last = widest = 0
    for row, cells in WorkSheetParser(io.BytesIO(sheet_xml.encode()), []).parse():
        last = row
        widest = max([widest] + [cell["column"] for cell in cells])
    return last, widest


MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
FAR = {  # one cell at column XFD (16 384), written as no spreadsheet program would, but as openpyxl reads it
    "r_after_other_attributes": sheet('<row r="1"><c s="0" t="n" r="XFD1"><v>1</v></c></row>'),
    "single_quotes": sheet("<row r='1'><c r='XFD1'><v>1</v></c></row>"),
    "character_reference": sheet('<row r="1"><c r="&#88;FD1"><v>1</v></c></row>'),
    "lower_case": sheet('<row r="1"><c r="xFd1"><v>1</v></c></row>'),
    "no_r_at_all": sheet("<row>" + "<c><v>1</v></c>" * 16_384 + "</row>"),
    "namespace_prefix": (f'<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="{MAIN}"><x:sheetData>'
                         '<x:row r="1"><x:c r="XFD1"><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>'),
    "tag_cut_by_a_chunk": sheet('<row r="1">' + " " * (1 << 20) + '<c  ' + " " * (1 << 20)
                                + 'r="XFD1"><v>1</v></c></row>'),
}


@pytest.mark.parametrize("case", FAR, ids=list(FAR))
def test_a_far_cell_is_found_however_it_is_written(case, tmp_path):
    assert _openpyxl_extent(FAR[case]) == (1, 16_384)  # the case is real
    with pytest.raises(DataError, match="reaches (at least )?[0-9,]+ columns, above the limit of 2,000 columns"):
        parse_table(minimal_xlsx(tmp_path / "far.xlsx", FAR[case]), limits=Limits(xlsx_ratio=1e6))


DEEP = {  # 3 columns and a last row 10 000: 30 000 cells by openpyxl's count
    "float_row_number": sheet('<row r="1"><c r="C1"><v>1</v></c></row><row r="1e4"><c><v>1</v></c></row>'),
    "rows_without_r": sheet('<row><c r="C1"><v>1</v></c></row>' + "<row/>" * 9_999),
    "empty_last_row": sheet('<row r="1"><c r="A1"/><c r="B1"/><c r="C1"><v>1</v></c></row><row r="10000"/>'),
}


@pytest.mark.parametrize("case", DEEP, ids=list(DEEP))
def test_rows_are_counted_as_openpyxl_counts_them(case, tmp_path):
    assert _openpyxl_extent(DEEP[case])[0] == 10_000
    book = minimal_xlsx(tmp_path / "deep.xlsx", DEEP[case])
    with pytest.raises(DataError, match="reaches 10,000 rows × 3 columns = 30,000 cells"):
        parse_table(book, limits=Limits(cells=29_999))


def test_the_declared_dimension_refuses_before_any_cell_is_read(tmp_path):
    book = minimal_xlsx(tmp_path / "declared.xlsx", sheet('<row r="1"><c r="A1"><v>1</v></c></row>',
                                                          "A1:C1048576"))
    with pytest.raises(DataError, match="declares, in its <dimension>, 1,048,576 rows × 3 columns = 3,145,728"):
        parse_table(book, limits=Limits(cells=3_000_000))


def test_a_sheet_is_read_at_exactly_its_cells(tmp_path):
    book = honest_xlsx(tmp_path)  # 11 rows (a header and ten numbers) × 1 column, declared A1:A11
    assert parse_table(book, limits=Limits(cells=11, columns=1)).shape == (10, 1)
    with pytest.raises(DataError, match="11 rows × 1 column = 11 cells"):
        parse_table(book, limits=Limits(cells=10))


def test_a_utf16_sheet_is_refused_since_the_count_reads_utf8(tmp_path):
    xml = sheet('<row r="1"><c r="A1"><v>1</v></c></row>').replace("UTF-8", "UTF-16").encode("utf-16")
    with zipfile.ZipFile(honest_xlsx(tmp_path), "r") as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    parts["xl/worksheets/sheet1.xml"] = xml
    book = tmp_path / "utf16.xlsx"
    with zipfile.ZipFile(book, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    with pytest.raises(DataError, match="is not UTF-8 XML"):
        parse_table(book)


def test_a_sheet_streamed_in_chunks_counts_rows_across_them(tmp_path):
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><v>1</v></c></row>' for i in range(1, 60_001))
    book = minimal_xlsx(tmp_path / "long.xlsx", SHEET_START + "<sheetData>" + rows + "</sheetData></worksheet>")
    with pytest.raises(DataError, match="reaches 60,000 rows × 2 columns = 120,000 cells"):
        parse_table(book, limits=Limits(cells=119_999))


# -- every real table: the demos are far below every default limit ----------------------------------------------

TENTH = Limits(**{name: value / 10 if isinstance(value, float) else value // 10
                  for name, value in vars(Limits()).items()})


@pytest.mark.parametrize("demo", sorted(DEMOS))
@pytest.mark.parametrize("kind", ["csv", "parquet", "xlsx"])
def test_the_demos_read_within_a_tenth_of_every_default_limit(demo, kind, tmp_path):
    table = load_demo(demo)
    path = tmp_path / f"{demo}.{kind}"
    {"csv": lambda: table.to_csv(path, index=False), "parquet": lambda: table.to_parquet(path, index=False),
     "xlsx": lambda: table.to_excel(path, index=False)}[kind]()
    assert parse_table(path, limits=TENTH).shape == table.shape
