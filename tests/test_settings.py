"""tvs_core/settings.py: a setting declared once beside its field, read and refused by that declaration."""

from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

import pytest

from tvs_core.errors import DataError
from tvs_core.settings import Setting, checked, declarations, default_of, of_type, setting
from tvs_core.text import choice_named, unit_number


@choice_named("colour of the tea")
class Colour(StrEnum):
    GREEN = "green"
    BLACK = "black"


@dataclass
class Kettle:
    """A scratch dataclass of settings, declared as ``SweepConfig`` and ``ChoiceSettings`` declare theirs."""

    SWITCHES: ClassVar[dict[str, Setting]]
    colour: Colour = setting(Colour.GREEN, kind=Colour, flag="--colour", help="which tea")
    heat: float = setting(0.5, check=of_type(float), parse=unit_number, screen_name="heat", flag="--heat",
                          help="how hot, from 0 to 1")
    cups: list = setting(default_factory=lambda: [1, 2], screen_name="cups")
    plain: int = field(default=0)  # not a declared setting


Kettle.SWITCHES = {"whistle": Setting(screen_name="whistle when done", flag="--whistle", help="on: it whistles")}


def test_a_dataclass_declares_its_settings_and_switches_in_order_with_their_defaults():
    declared = declarations(Kettle)
    assert list(declared) == ["colour", "heat", "cups", "whistle"]  # the fields', then the switches
    assert (default_of(Kettle, "colour"), default_of(Kettle, "heat")) == (Colour.GREEN, 0.5)
    assert default_of(Kettle, "cups") == [1, 2] and default_of(Kettle, "whistle") is False
    assert declared["colour"].screen_name == "colour of the tea"  # a choice: its Enum's name on the screens
    assert (declared["heat"].label, declared["heat"].sentence) == ("Heat", "How hot, from 0 to 1.")
    assert declared["cups"].sentence == ""  # no help: nothing to show


def test_a_settings_text_is_read_by_its_declaration_then_checked():
    declared = declarations(Kettle)
    assert declared["colour"].value_of("black") is Colour.BLACK
    assert declared["colour"].value_of(Colour.GREEN) is Colour.GREEN
    assert declared["heat"].value_of("0.25") == 0.25 and declared["heat"].value_of(0.75) == 0.75
    with pytest.raises(DataError, match="The setting 'colour of the tea' cannot be 'red'. Choose one of: green, black"):
        declared["colour"].value_of("red")
    with pytest.raises(DataError, match="3 is out of range: give a number from 0 to 1"):
        declared["heat"].value_of("3")
    with pytest.raises(ValueError, match="not a float"):
        declared["heat"].value_of(True)


def test_a_refused_value_is_named_by_the_settings_screen_name_in_one_sentence():
    heat = declarations(Kettle)["heat"]
    with pytest.raises(DataError) as refused:
        checked("3", heat.value_of, heat.screen_name, "kettle setting")
    assert str(refused.value) == "The kettle setting 'heat' is '3': 3 is out of range: give a number from 0 to 1"
    with pytest.raises(DataError) as refused:
        checked(True, heat.value_of, heat.screen_name, "kettle setting", fix="Give a number.")
    assert str(refused.value) == "The kettle setting 'heat' is True: not a float. Give a number."
    colour = declarations(Kettle)["colour"]
    with pytest.raises(DataError, match="The setting 'tea' cannot be 'red'"):  # a choice: read_choice's wording
        checked("red", colour.value_of, "tea")
