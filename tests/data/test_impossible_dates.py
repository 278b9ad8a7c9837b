"""An impossible date (1961-02-30) in a column of dates is a data error naming the column and the row, like every
other bad cell, and never the value: it crashed ``order`` through the unexpected-error path, value and all."""

from __future__ import annotations

import traceback

import numpy as np
import pandas as pd
import pytest

from tvs_core.cli import main
from tvs_core.data.io import read_table
from tvs_core.data.prepare import prepare_table
from tvs_core.data.schema import ColumnType, infer_schema, parse_dates
from tvs_core.data.validation import validate
from tvs_core.errors import DataError

BAD = "1961-02-30"
ROW = 19  # data row 18 as a spreadsheet numbers it (the header is row 1), as every other cell problem is named


def dates_table(n: int = 120, bad_at: int = ROW - 2) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    births = pd.date_range("1950-01-01", periods=n, freq="37D").strftime("%Y-%m-%d").tolist()
    births[bad_at] = BAD
    return pd.DataFrame({"birth": births, "age": rng.normal(50, 10, n).round(1),
                         "cost": rng.normal(1000, 100, n).round(2), "y": rng.integers(0, 2, n)})


@pytest.fixture
def dates_csv(tmp_path):
    path = tmp_path / "dates.csv"
    dates_table().to_csv(path, index=False)
    return path


def assert_names_the_cell_not_its_value(text: str) -> None:
    assert "'birth'" in text and f"row {ROW}" in text, text
    assert BAD not in text and "02-30" not in text, text


def test_the_column_is_inferred_as_dates_and_validation_names_the_row(dates_csv):
    table = read_table(dates_csv)
    schema = infer_schema(table).with_roles("y", ["cost"])
    assert schema["birth"].type == ColumnType.DATETIME
    problems = [p for p in validate(table, schema) if p.column == "birth"]
    assert len(problems) == 1
    assert "1 cell that is not a possible date" in str(problems[0])
    assert_names_the_cell_not_its_value(str(problems[0]))


def test_preparing_the_table_names_the_row_as_read_even_after_rows_are_dropped():
    """``order`` and the dashboard's preview prepare the table; the missing-value policy drops rows before the
    encoder parses dates, so the row is named from the table as it was read."""
    table = dates_table()
    table.loc[3, "age"] = np.nan  # dropped by drop_rows, before the bad date
    schema = infer_schema(table).with_roles("y", ["cost"])
    with pytest.raises(DataError) as info:
        prepare_table(table, schema, "drop_rows")
    assert info.value.column == "birth"
    assert_names_the_cell_not_its_value(str(info.value))


def test_parsing_the_dates_names_the_row_and_chains_no_value():
    values = dates_table()["birth"]
    with pytest.raises(DataError) as info:
        parse_dates(values)
    assert_names_the_cell_not_its_value(str(info.value))
    logged = "".join(traceback.format_exception(info.value))  # what a log would hold
    assert BAD not in logged and "02-30" not in logged
    assert parse_dates(values, errors="coerce").isna().sum() == 1  # inference still coerces


def test_order_refuses_it_in_one_line_without_the_value_and_logs_nothing(dates_csv, tmp_path, capsys, monkeypatch):
    workspace = tmp_path / "ws"
    monkeypatch.setenv("TVS_WORKSPACE", str(workspace))  # where an unexpected error's traceback would be logged
    code = main(["order", str(dates_csv), "--response", "y", "--sensitive", "cost"])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Column 'birth'"), err
    assert "unexpected" not in err
    assert_names_the_cell_not_its_value(err)
    assert not (workspace / "logs").exists()


def test_several_impossible_dates_are_counted_and_named_by_rows():
    table = dates_table()
    table.loc[[40, 41], "birth"] = ["2001-13-01", "1999-04-31"]
    schema = infer_schema(table).with_roles("y", ["cost"])
    problems = [str(p) for p in validate(table, schema) if p.column == "birth"]
    assert problems == [problems[0]] and "3 cells that are not possible dates, in rows 19, 42, 43" in problems[0]
    assert "2001-13-01" not in problems[0] and "1999-04-31" not in problems[0]
