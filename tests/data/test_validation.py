"""tvs_core.data.validation: what stops a table from being modelled, each problem naming its column, its rows and
the fix. (The whole-table cases through ``infer_schema`` and ``fit`` are in test_schema_validation.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.data.schema import MOSTLY_MISSING, infer_schema
from tvs_core.data.validation import MIN_ROWS, _cell_problems, _rows, check, header_problems, validate


def schema_for(table, sensitive=("income",)):
    return infer_schema(table, response="y", sensitive=list(sensitive))


def numbers_with(*cells, n=20):
    """A column of ``n`` numbers written as text, followed by ``cells``."""
    return pd.Series([str(i) for i in range(n)] + list(cells), dtype=object)


# -- header_problems ------------------------------------------------------------------------------------------------

def test_every_nameless_column_is_named_by_its_position():
    """Empty, blank, missing and pandas' 'Unnamed: k' placeholders are all headers the user did not write."""
    problems = header_problems(["a", "", "  ", None, "Unnamed: 4", "b"])
    assert [p.message for p in problems] == [f"Column {i} has no name." for i in (2, 3, 4, 5)]
    assert all(p.column is None and "header" in p.fix for p in problems)


def test_each_duplicated_name_is_reported_once_with_its_count():
    problems = header_problems(["a", "b", "a", "a", "b", "c"])
    assert [(p.column, p.message) for p in problems] == [("a", "Column name 'a' appears 3 times."),
                                                         ("b", "Column name 'b' appears 2 times.")]


def test_a_number_and_its_text_are_the_same_header():
    """A file's header is text: column 1 and column '1' cannot both be written."""
    assert [p.column for p in header_problems([1, "1"])] == ["1"]


def test_a_header_problem_is_reported_alone(small_table):
    """With a broken header nothing else can be named reliably: the other checks wait until it is fixed."""
    table = small_table.head(10).assign(y=1)  # too few rows and one class, too
    table.columns = ["age", "age", "sex", "color", "y"]
    assert [p.column for p in validate(table, schema_for(small_table))] == ["age"]


# -- validate: the table and the response ---------------------------------------------------------------------------

def test_the_row_minimum_can_be_lowered():
    table = make_small_table(n=30)
    schema = schema_for(table)
    assert len(validate(table, schema)) == 1 and MIN_ROWS > 30
    assert validate(table, schema, min_rows=30) == []


@pytest.mark.parametrize("kind", ["datetime", "identifier", "text"])
def test_a_response_of_a_type_no_predictor_can_target_is_refused(small_table, kind):
    schema = schema_for(small_table).override("color", type=kind, role="response")
    problems = [p for p in validate(small_table, schema) if "response" in p.message]
    assert [p.column for p in problems] == ["color"]
    assert f"of type {kind}" in problems[0].message and "binary, categorical or numeric" in problems[0].fix


def test_a_schema_column_missing_from_the_table_is_named(small_table):
    problems = validate(small_table.drop(columns="color"), schema_for(small_table))
    assert [(p.column, p.message) for p in problems] == [("color", "Column 'color' of the schema is not in the table.")]


def test_a_response_with_nothing_else_to_model_is_refused(small_table):
    schema = schema_for(small_table, sensitive=())
    for name in ("age", "income", "sex", "color"):
        schema = schema.override(name, role="dropped")
    problems = validate(small_table, schema)
    assert [p.message for p in problems] == ["Only the response is left to model."]
    assert "covariate" in problems[0].fix


# -- validate: mostly missing columns -------------------------------------------------------------------------------

def test_a_modelled_column_missing_in_more_than_90_percent_of_rows_is_refused_with_its_share(small_table):
    assert len(small_table) == 100 and MOSTLY_MISSING == 0.9
    table = small_table.assign(lab=np.r_[np.linspace(1, 2, 9), [np.nan] * 91])
    schema = schema_for(table).override("lab", role="covariate")
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["lab"] and "91 %" in problems[0].message
    assert "role 'dropped'" in problems[0].fix


def test_a_column_missing_in_exactly_90_percent_of_rows_can_be_modelled(small_table):
    assert len(small_table) == 100 and MOSTLY_MISSING == 0.9
    table = small_table.assign(lab=np.r_[np.linspace(1, 2, 10), [np.nan] * 90])
    assert validate(table, schema_for(table).override("lab", role="covariate")) == []


# -- validate: cells ------------------------------------------------------------------------------------------------

def test_infinite_numbers_are_refused_by_their_spreadsheet_rows(small_table):
    """Row numbers as the user's spreadsheet shows them: the header is row 1, the first data row is row 2."""
    table = small_table.copy()
    table.loc[[0, 41], "income"] = [np.inf, -np.inf]
    problems = validate(table, schema_for(small_table))
    assert [p.column for p in problems] == ["income"]
    assert "rows 2, 43" in problems[0].message and "inf" in problems[0].message


def test_a_few_text_cells_among_numbers_are_refused_with_examples_and_rows(small_table):
    table = small_table.assign(dose=numbers_with(n=98).tolist() + ["n/a", "?"])
    schema = schema_for(table)
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["dose"]  # one problem, not a second 'non-numeric' one
    assert "2 text cell(s) ('n/a', '?' in rows 100, 101)" in problems[0].message


def test_text_cells_meant_as_labels_are_accepted_once_the_column_is_nominal(small_table):
    """The refusal's own advice ('mark the column nominal if the text is meant') must clear it."""
    table = small_table.assign(dose=numbers_with(n=98).tolist() + ["unknown", "unknown"])
    schema = schema_for(table)
    assert validate(table, schema)[0].fix.endswith("mark the column nominal if the text is meant.")
    assert validate(table, schema.override("dose", type="nominal")) == []


def test_an_unmodelled_column_may_hold_anything(small_table):
    table = small_table.assign(junk=[np.inf] + [1.0] * (len(small_table) - 1))
    assert validate(table, schema_for(table).override("junk", role="dropped")) == []


@pytest.mark.parametrize("cells, found", [
    ((), False),  # numbers only
    (("x",) * 5, True),  # 5 text cells in 25: 20 %, still typos
    (("x",) * 6, False),  # 6 in 26: more than 20 %, labels
])
def test_stray_text_is_at_most_a_fifth_of_the_cells(cells, found):
    assert bool(_cell_problems("c", numbers_with(*cells))) is found


def test_stray_text_needs_ten_numbers_to_be_called_stray():
    assert _cell_problems("c", numbers_with("x", n=9)) == []
    assert len(_cell_problems("c", numbers_with("x", n=10))) == 1


@pytest.mark.parametrize("col", [pd.Series([True, False] * 10), pd.Series(pd.to_datetime(["2020-01-01"] * 20)),
                                 pd.Series(pd.Categorical(["1"] * 19 + ["x"])), pd.Series([np.nan] * 5)],
                         ids=["bool", "dates", "categorical", "empty"])
def test_columns_whose_dtype_says_what_they_hold_have_no_cell_problems(col):
    assert _cell_problems("c", col) == []


def test_rows_are_listed_up_to_five_then_counted():
    assert _rows(pd.Index([3])) == "5"
    assert _rows(pd.Index(range(7))) == "2, 3, 4, 5, 6 and 2 more"


# -- check ----------------------------------------------------------------------------------------------------------

def test_check_passes_a_valid_table_silently(small_table):
    assert check(small_table, schema_for(small_table)) is None
