"""tvs_core/data/decoded.py: what a file declares it decodes to is weighed against the memory a read may use,
before the table is built — counted from a Parquet footer and dictionaries, a workbook's shared strings, a CSV's
cells — and the refusal names the limit and how to raise it."""

from __future__ import annotations

import resource
import zipfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench.hostile_files import shared_strings
from tvs_core.data import decoded
from tvs_core.data.decoded import SHARED_STRING, VALUE, check_decoded
from tvs_core.data.io import parse_table
from tvs_core.data.limits import MB, Limits
from tvs_core.errors import DataError


def _parquet(tmp_path, table: pa.Table, **options) -> bytes:
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, **options)
    return path.read_bytes()


def test_fixed_width_columns_are_weighed_from_the_footer_alone(tmp_path, monkeypatch):
    raw = _parquet(tmp_path, pa.table({"a": np.zeros(100_000, np.int64), "b": np.zeros(100_000, np.float32)}))
    need = 100_000 * (8 + 4)
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("pages were read"))
    with pytest.raises(DataError) as info:
        decoded.check_parquet_decoded(raw, "t.parquet", Limits(read_mb=need / MB * 0.99))
    assert "'t.parquet' (100,000 rows × 2 columns) decodes to at least 1.1 MB once read" in str(info.value)
    assert "TVS_MAX_READ_MB=2" in str(info.value) and "--limit read_mb=2" in str(info.value)
    decoded.check_parquet_decoded(raw, "t.parquet", Limits(read_mb=need / MB * 1.01))


def test_a_dictionary_of_one_long_string_is_weighed_as_every_row_holding_it(tmp_path):
    """The second review's 12 KB file of 2 M copies of one 1 MB string, smaller: 1 000 copies of 10 KB (10 MB)
    in a few KB. Counted from the dictionary and its indices, never decoded."""
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(1_000, np.int32)), pa.array(["x" * 10_000]))
    raw = _parquet(tmp_path, pa.table({"note": column}), compression="zstd", store_schema=False)
    assert len(raw) < 20_000
    with pytest.raises(DataError, match=r"decodes to at least 9\.5 MB once read"):
        parse_table(raw, "t.parquet", Limits(read_mb=9.5))
    table = parse_table(raw, "t.parquet", Limits(read_mb=64))
    assert table.shape == (1_000, 1) and set(table["note"]) == {"x" * 10_000}


def test_the_shared_strings_of_a_workbook_are_counted_in_its_part(tmp_path):
    path = shared_strings(tmp_path, megabytes=2)
    strings = (2 << 20) // len("<si><t>s000000000</t></si>")
    with zipfile.ZipFile(path) as archive:
        assert archive.read("xl/sharedStrings.xml").count(b"<si>") == strings
    with pytest.raises(DataError, match=f"The {strings:,} shared strings of 'shared_strings.xlsx' decode to"):
        decoded.check_xlsx_decoded(path.read_bytes(), "shared_strings.xlsx",
                                   Limits(read_mb=strings * SHARED_STRING / MB * 0.99))
    decoded.check_xlsx_decoded(path.read_bytes(), "shared_strings.xlsx",
                               Limits(read_mb=strings * SHARED_STRING / MB * 1.01))


def test_a_workbook_of_far_more_shared_strings_than_cells_is_refused_at_once(tmp_path):
    """The second review's 24 MB workbook: one cell and 10 million shared strings. Within the memory a read may use
    by default, openpyxl spent minutes reading texts no cell uses; the sheets' cells bound the texts they can use."""
    from tvs_core.data.io import parse_table

    path = shared_strings(tmp_path, megabytes=1)
    strings = (1 << 20) // len("<si><t>s000000000</t></si>")
    with pytest.raises(DataError, match=f"holds {strings:,} shared strings .* for sheets of at most 1 cell;"):
        parse_table(path, "shared_strings.xlsx", Limits())
    decoded.check_xlsx_decoded(path.read_bytes(), "shared_strings.xlsx", Limits(),
                               cells=(strings - decoded.UNUSED_STRINGS + 1) // 2)


def test_what_a_shared_string_is_counted_is_no_more_than_openpyxl_really_takes(tmp_path):
    """The count must stay a least, or a workbook that fits would be refused: openpyxl's own reading of the strings
    (the pinned version) holds at least ``SHARED_STRING`` bytes per string at its peak."""
    import tracemalloc

    from openpyxl.reader.strings import read_string_table

    path = shared_strings(tmp_path, megabytes=2)
    with zipfile.ZipFile(path) as archive, archive.open("xl/sharedStrings.xml") as part:
        tracemalloc.start()
        try:
            strings = read_string_table(part)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert len(strings) > 50_000
    assert peak / len(strings) >= SHARED_STRING


def test_a_csvs_cells_are_weighed_twice_as_pandas_joins_its_chunks():
    with pytest.raises(DataError, match=r"'t.csv' \(1,000 cells\) decodes to"):
        decoded.check_csv_decoded(1_000, "t.csv", Limits(read_mb=2 * 1_000 * VALUE / MB * 0.99))
    decoded.check_csv_decoded(1_000, "t.csv", Limits(read_mb=2 * 1_000 * VALUE / MB * 1.01))
    with pytest.raises(DataError, match="decodes to"):
        parse_table(b"a,b\n" + b"1,2\n" * 1000, "t.csv", Limits(read_mb=0.01))


def test_a_cap_set_outside_the_tool_is_named_as_such(monkeypatch):
    """Under ``ulimit -v`` below the read limit, raising the read limit would not help: the message says so."""
    monkeypatch.setattr(decoded.resource, "getrlimit", lambda kind: (64 * MB, resource.RLIM_INFINITY))
    with pytest.raises(DataError) as info:
        check_decoded(100 * MB, "'t.csv' decodes to", Limits())
    assert "address-space limit set outside this tool" in str(info.value)
    assert "TVS_MAX_READ_MB" not in str(info.value)
