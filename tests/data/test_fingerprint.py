"""A table's fingerprint (data/fingerprint.py): how a stored sweep, project or release recognises its data."""

import os
import subprocess
import sys

import pytest

from tests.conftest import make_mixed_table, make_small_table
from tests.helpers import ROOT
from tvs_core.data.fingerprint import fingerprint_table


def test_the_same_content_gives_the_same_fingerprint(mixed_table):
    """A copy, or the same rows under other index labels (a filtered and renumbered table), is the same data."""
    assert fingerprint_table(mixed_table.copy()) == fingerprint_table(mixed_table)
    assert fingerprint_table(mixed_table.set_axis(range(500, 700))) == fingerprint_table(mixed_table)
    assert fingerprint_table(make_mixed_table()) == fingerprint_table(mixed_table)


@pytest.mark.parametrize("column", list(make_mixed_table().columns))
def test_one_changed_cell_changes_the_fingerprint(mixed_table, column):
    """Results computed on the data must not be shown for data that differ in a single value, of any type."""
    values = mixed_table[column]
    others = values[values != values.iloc[0]]
    changed = mixed_table.copy()
    changed.loc[0, column] = others.iloc[0] if len(others) else "Paris"
    assert changed.dtypes.equals(mixed_table.dtypes)  # the value changed, not the column's type
    assert fingerprint_table(changed) != fingerprint_table(mixed_table)


def test_names_types_and_row_order_are_part_of_the_identity(small_table):
    """A renamed column, the same numbers stored as another type, or the rows in another order (the hold-out is
    drawn by position, so another split) is other data."""
    print_of = fingerprint_table(small_table)
    assert fingerprint_table(small_table.rename(columns={"age": "years"})) != print_of
    assert fingerprint_table(small_table.astype({"y": "float64"})) != print_of
    assert fingerprint_table(small_table.iloc[::-1].reset_index(drop=True)) != print_of


@pytest.mark.slow
def test_the_fingerprint_is_the_same_in_another_process():
    """Stored work is recognised after a restart: no per-process hashing (PYTHONHASHSEED) enters it."""
    code = ("from tests.conftest import make_mixed_table, make_small_table\n"
            "from tvs_core.data.fingerprint import fingerprint_table\n"
            "print(fingerprint_table(make_mixed_table()), fingerprint_table(make_small_table()))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [fingerprint_table(make_mixed_table()), fingerprint_table(make_small_table())]
