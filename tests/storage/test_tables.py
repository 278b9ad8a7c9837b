"""Tables kept in the workspace as Parquet (``tvs_core/storage/tables.py``): a column of Python objects comes back
value for value and type for type, and a value that cannot be kept is refused naming its column."""

from __future__ import annotations

import datetime as dt
import decimal

import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.errors import DataError
from tvs_core.storage.tables import table_bytes, table_from_bytes


def round_trip(values: list) -> list:
    table = pd.DataFrame({"cell": pd.Series(values, dtype=object)})
    return list(table_from_bytes(table_bytes(table))["cell"])


def test_every_kind_of_cell_in_a_mixed_column_comes_back_as_itself():
    """An Excel column of numbers, words and dates is fingerprinted and modelled as read: 1.10 must not become 1.1,
    True must not become 1, a nanosecond must not be lost, and text that looks like a stored tag stays text."""
    values = [decimal.Decimal("1.10"), True, 1, 1.0, dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 3, 4, 5, 6),
              pd.Timestamp("2021-03-04 05:06:07.000000008"), pd.Timedelta(7),
              dt.timedelta(days=1, seconds=2, microseconds=3), '["int", "5"]', None, pd.NA]
    back = round_trip(values)
    assert [type(v) for v in back] == [type(v) for v in values]
    assert [str(v) for v in back] == [str(v) for v in values]


def test_a_missing_time_stamp_in_a_mixed_column_comes_back_missing():
    """A workbook column of dates and words with an empty date holds NaT: the kept table must still be readable."""
    back = round_trip([pd.Timestamp("2020-01-01"), "unknown", pd.NaT])
    assert back[:2] == [pd.Timestamp("2020-01-01"), "unknown"] and back[2] is pd.NaT


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, complex(1, 2)])
def test_a_value_that_cannot_be_kept_is_refused_naming_its_column(value):
    """Nothing is written as a pickle or silently turned into text: the user is told which column to convert."""
    table = pd.DataFrame({"age": [1.0, 2.0], "odd": pd.Series(["x", value], dtype=object)})
    with pytest.raises(DataError, match="Column 'odd' holds a value of type") as refused:
        table_bytes(table)
    assert refused.value.column == "odd" and "Convert the column to numbers, text or dates" in str(refused.value)


def test_keeping_a_table_leaves_the_callers_table_as_it_was():
    """The mixed column is tagged in a copy: the table on the page and in the job is not changed."""
    table = make_small_table(20).assign(mixed=pd.Series([1, "a"] * 10, dtype=object))
    before = table.copy()
    table_bytes(table)
    pd.testing.assert_frame_equal(table, before, check_exact=True)
    assert list(map(type, table["mixed"])) == [int, str] * 10


def test_reading_a_table_back_starts_no_thread_that_could_abort_the_process_at_exit():
    """The command line reads every table back from its reading child: an Arrow pool left alive by that read aborted
    it at exit now and then ("terminate called without an active exception"). Counted in a fresh process, where no
    earlier test started a pool."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    script = ("import os, pandas as pd\n"
              "from tvs_core.storage.tables import table_bytes, table_from_bytes\n"
              "data = table_bytes(pd.DataFrame({'a': range(1000), 'b': ['x', 'y'] * 500}))\n"
              "before = len(os.listdir('/proc/self/task'))\n"
              "table_from_bytes(data)\n"
              "print(before, len(os.listdir('/proc/self/task')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    before, after = map(int, done.stdout.split())
    assert after == before, done.stderr
