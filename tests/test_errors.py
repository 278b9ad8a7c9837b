"""Errors a user can act on (tvs_core/errors.py): the text says what is wrong and then what to do, the column is
kept for the page to show the message beside it, and a batch of problems is still a DataError."""

import pytest

from tvs_core.errors import DataError, DataErrors, TVSError


def test_a_data_error_reads_what_is_wrong_then_what_to_do_and_keeps_its_column():
    error = DataError("'age' has text values.", column="age", fix="Mark it categorical.")
    assert str(error) == "'age' has text values. Mark it categorical."
    assert (error.message, error.column, error.fix) == ("'age' has text values.", "age", "Mark it categorical.")
    assert str(DataError("The table is empty.")) == "The table is empty."  # no fix: no trailing space or 'None'


def test_a_batch_of_problems_says_each_with_its_fix_and_is_caught_as_one_error():
    """The CLI and the pages catch TVSError / DataError to show words instead of a traceback."""
    problems = [DataError("'y' has one class.", "y", "Choose another response."),
                DataError("'c' is constant.", "c", "Drop it.")]
    with pytest.raises(DataError) as caught:
        raise DataErrors(problems)
    assert isinstance(caught.value, TVSError) and caught.value.problems == problems
    assert str(caught.value) == "'y' has one class. Choose another response.; 'c' is constant. Drop it."
    assert caught.value.column is None  # several columns: none to show it beside


def test_a_batch_of_one_problem_keeps_its_column():
    assert DataErrors([DataError("'y' has one class.", "y")]).column == "y"
