"""Someone else's synthetic set checked against the training table (``tvs_core/data/external.py``): a file read as
text is brought to the training table's types, and anything else is refused naming the set, the column and what to
give instead."""

from __future__ import annotations

import pandas as pd
import pytest

from tvs_core.data.external import conform_external
from tvs_core.data.schema import infer_schema
from tvs_core.errors import DataError


@pytest.fixture
def reference(mixed_table):
    return mixed_table, infer_schema(mixed_table).with_roles("outcome", ["weight"])


@pytest.fixture
def as_read(mixed_table):
    """The training rows as a CSV reader gives them: every cell text."""
    return mixed_table.astype(str)


def refusal(frame, reference) -> DataError:
    table, schema = reference
    with pytest.raises(DataError) as refused:
        conform_external(frame, table, schema, "mine")
    assert str(refused.value).startswith("The external set 'mine'")
    return refused.value


def test_a_file_read_as_text_in_another_column_order_speaks_the_training_tables_types(reference, as_read):
    """A CSV gives text in its own column order: numbers, dates, bools, categories and 1-vs-"1" labels are matched to
    the training table, so the set is scored like a release; unmodelled columns are kept as given."""
    table, schema = reference
    text = as_read[list(reversed(table.columns))]
    before = text.copy()
    out = conform_external(text, table, schema, "mine")
    assert list(out.columns) == list(table.columns)
    pd.testing.assert_frame_equal(out[schema.modelled], table[schema.modelled], check_exact=True)
    assert out["row_number"].tolist() == text["row_number"].tolist()  # an identifier: not modelled, not touched
    pd.testing.assert_frame_equal(text, before)  # the user's frame is not changed


def test_a_set_with_the_training_tables_own_dtypes_is_accepted_as_it_is(reference):
    """An external set passed as a table (``submit(..., externals=...)``) may already have the training dtypes,
    including an ordered category no row uses."""
    table, schema = reference
    pd.testing.assert_frame_equal(conform_external(table, table, schema, "mine"), table)


def test_a_column_the_training_table_lacks_is_refused(reference, as_read):
    error = refusal(as_read.assign(extra="1"), reference)
    assert error.column == "extra" and "which the training table does not have" in str(error)
    assert "Remove it" in error.fix


@pytest.mark.parametrize("column, cell, said, fix", [
    # row 2 of the file is the first data row (the header is row 1), as a spreadsheet shows it
    ("weight", "n/a", "holds text ('n/a', row 6 of the file)", "Give numbers in that column."),
    ("colour", "purple", "has label 'purple'", "Use only the training labels: blue, green, pink, red."),
    ("admitted", "soon", "holds values that are not dates", "Write dates as the training table does."),
])
def test_a_cell_the_training_table_could_not_hold_is_refused_saying_what_to_give(reference, as_read, column, cell,
                                                                                   said, fix):
    """Text among numbers or dates, or an unknown label, is refused (never coerced to missing) naming the column."""
    as_read.loc[4, column] = cell
    error = refusal(as_read, reference)
    assert error.column == column and f"column '{column}' {said}" in str(error) and error.fix == fix


def test_a_missing_label_stays_missing_and_the_others_still_match(reference, as_read):
    """An empty cell is not refused as an unknown label; "1" and "0" still become the training table's 1 and 0."""
    table, schema = reference
    frame = as_read.astype({"outcome": object})
    frame["outcome"] = ["1", None, "0"] * (len(table) // 3) + ["1"] * (len(table) % 3)
    out = conform_external(frame, table, schema, "mine")["outcome"]
    assert out.iloc[0] == 1 and out.iloc[2] == 0 and pd.isna(out.iloc[1])
