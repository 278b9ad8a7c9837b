"""evaluation/metrics/base.py: what a metric declaration holds, on declarations made here (the catalogue's own are
checked in tests/evaluation/test_catalogue.py)."""

import dataclasses
import typing
from enum import StrEnum

import pytest

from tvs_core.evaluation.metrics.base import (
    ENUM_FIELDS,
    GROUPS,
    SOURCES,
    AxisKind,
    Direction,
    Group,
    Metric,
    PerColumn,
    Reference,
    Source,
)
from tvs_core.evaluation.sizes import RELEASE_ROWS, SET_ROWS


def declared(**changes) -> Metric:
    fields = dict(name="m", label="M", short="M", unit="share", better="lower", range=(0.0, 1.0), group="fidelity",
                  source="release", explanation="What m is.")
    return Metric(**{**fields, **changes})


def test_every_field_typed_by_an_enum_is_converted_from_text():
    """A new enum-typed field left out of ENUM_FIELDS would keep the text it was given; each is listed."""
    hints = typing.get_type_hints(Metric)
    enums = {name for name, hint in hints.items()
             if any(isinstance(t, type) and issubclass(t, StrEnum) for t in (hint, *typing.get_args(hint)))}
    assert enums == set(ENUM_FIELDS)
    for name, kind in ENUM_FIELDS.items():
        assert kind in (hints[name], *typing.get_args(hints[name]))


def test_text_becomes_the_member_and_compares_equal_to_stored_text():
    metric = declared(per_column="sensitive", axis="privacy")
    assert metric.per_column is PerColumn.SENSITIVE and metric.axis is AxisKind.PRIVACY
    assert metric.group == "fidelity" and metric.better == "lower"  # what summary.json and the store hold
    assert declared().per_column is None and declared().axis is None  # an optional kind stays unset


@pytest.mark.parametrize("field", ["better", "group", "source", "per_column", "axis"])
def test_a_misspelt_kind_fails_where_it_is_declared(field):
    with pytest.raises(ValueError, match="misspelt"):
        declared(**{field: "misspelt"})


def test_a_declaration_cannot_be_changed():
    with pytest.raises(dataclasses.FrozenInstanceError):
        declared().name = "other"


def test_direction_says_which_way_is_better():
    assert declared(better=Direction.LOWER).lower_is_better
    assert not declared(better="higher").lower_is_better


def test_the_rows_a_metric_is_computed_on():
    """A per-set metric: its own cap, else SET_ROWS; a metric of the published sets otherwise: RELEASE_ROWS; a
    game's or a reference's: the protocol's sizes, no cap."""
    def compute(one_set):
        return {}

    assert declared(compute=compute).rows_cap == SET_ROWS
    assert declared(compute=compute, rows=50).rows_cap == 50
    assert declared(source="release").rows_cap == RELEASE_ROWS
    assert declared(source="game").rows_cap is None and declared(source="reference").rows_cap is None


def test_groups_and_sources_are_listed_once_each_in_declaration_order():
    assert GROUPS == tuple(Group) and GROUPS[0] is Group.UTILITY
    assert list(SOURCES) == list(Source) and all(SOURCES.values())


def test_a_reference_anchor_has_no_stand_in_unless_given():
    assert Reference("mab", "raw").otherwise is None
    assert Reference("release_mab", "shuffled", 0.0).otherwise == 0.0
    assert Reference("mab", "raw") == Reference("mab", "raw")  # anchors compare by what they name
