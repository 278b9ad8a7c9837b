"""User text shown back (tvs_core/text.py): no control character from a column or file name reaches the screen, and
a whole number is read as typed or refused in words, never rounded, read in part or clipped."""

import numpy as np
import pytest

from tvs_core.errors import DataError
from tvs_core.text import first_capital, one_line, percent, printable, signed, whole_number

ESCAPES = "\x1b[31mred\x1b[0m \x9b2J \rback\x07\x00"  # colour, a one-byte CSI, a carriage return, a bell, a NUL


def test_printable_drops_escape_codes_and_carriage_returns_but_keeps_the_layout():
    assert printable(f"a\tb\n{ESCAPES}") == "a\tb\n[31mred[0m 2J back"
    assert printable(12.5) == "12.5"


def test_one_line_also_drops_tabs_and_newlines_and_keeps_other_characters():
    assert one_line(f"Zürich ✓\t\n{ESCAPES}") == "Zürich ✓[31mred[0m 2J back"


@pytest.mark.parametrize("typed, value", [("42", 42), (" 7\n", 7), ("+5", 5), ("-3", -3), ("50", 50)])
def test_a_whole_number_in_range_is_read_as_typed(typed, value):
    assert whole_number(typed, -3, 50) == value  # both ends of the range are allowed


@pytest.mark.parametrize("typed", ["1e9", "12.7", "", "abc", "1,000", "0x10", "1 000"])
def test_anything_but_digits_is_refused_never_read_in_part(typed):
    with pytest.raises(DataError) as refused:
        whole_number(typed, 0, 9, "the seed")
    assert refused.value.message == f"'{typed}' is not a whole number."
    assert refused.value.fix == "Give the seed as a whole number from 0 to 9, digits only."


def test_a_number_out_of_range_is_refused_never_clipped():
    with pytest.raises(DataError) as refused:
        whole_number("11", 1, 10, "the number of rows")
    assert "11 is out of range for the number of rows" in str(refused.value) and "from 1 to 10" in str(refused.value)
    with pytest.raises(DataError) as refused:
        whole_number("0", 1, what="the number of rows")
    assert refused.value.fix == "Give a whole number from 1."  # no upper bound: none is named


def test_a_refused_text_is_quoted_on_one_line_without_its_control_characters():
    with pytest.raises(DataError) as refused:
        whole_number("1\x1b[2J\n2", 0)
    assert refused.value.message == "'1[2J2' is not a whole number."


def test_a_number_of_thousands_of_digits_is_refused_in_words():
    """int() refuses past 4 300 digits with a bare ValueError, which neither the CLI nor the pages would catch."""
    with pytest.raises(DataError, match="out of range"):
        whole_number("9" * 5000, 0, 2**32 - 1, "the seed")


def test_a_share_is_written_one_way_with_a_space_before_the_percent_sign():
    """The card's verdicts and its costs once wrote "50%" and "50 %" side by side."""
    assert [percent(x) for x in (0.5, 0.0, 1.0, 0.126, np.float32(0.25))] == ["50 %", "0 %", "100 %", "13 %", "25 %"]


def test_a_signed_value_that_rounds_to_zero_is_written_without_a_sign():
    """Issue 56: "charges – aps (+0.46 → -0.00)" in the card's cut list."""
    assert [signed(v) for v in (0.456, -0.004, 0.0, -0.12, 0.004)] == ["+0.46", "0.00", "0.00", "-0.12", "0.00"]


def test_a_first_capital_leaves_an_acronym_as_it_is():
    assert first_capital("anonymisation (GDPR)") == "Anonymisation (GDPR)" and first_capital("") == ""
