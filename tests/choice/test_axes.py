"""An axis (choice/axes.py) as the CLI, the manifest and the pages write it: every choice offered is accepted and
reads back as written, a wrong one is refused by name with the choices, and a level's value is read from the
summary rows by column, pooled, or from the fallback estimate while the game has not reported."""

import math

import pandas as pd
import pytest

from tvs_core.choice.axes import Axis, attribute_game_metrics, axis_choices, membership_metrics
from tvs_core.errors import DataError
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.records import HOLDER, RAW, REAL
from tvs_core.evaluation.summary import Summary

SENSITIVE = ["cost", "stay"]


def summary(*rows) -> Summary:
    """Summary rows (model, metric, column, median, n) of level 1, each with the interval median ± 0.05."""
    return Summary(pd.DataFrame([
        {"model": model, "level": 1, "role": "release", "metric": metric, "attribute": column, "target_kind": None,
         "median": median, "ci_low": median - 0.05, "ci_high": median + 0.05, "n": n}
        for model, metric, column, median, n in rows]))


def test_the_choices_offer_each_column_and_the_worst_only_for_per_column_metrics():
    choices = axis_choices("privacy", SENSITIVE)
    assert {"mab_worst", "mab:cost", "mab:stay", "pg", "mia_auc"} <= set(choices)
    assert not {"pg_worst", "pg:cost", "mab"} & set(choices)
    assert "mab_worst" in axis_choices("privacy", []) and not any(":" in c for c in axis_choices("privacy", []))
    assert not any(":" in c or c.endswith("_worst") for c in axis_choices("utility", SENSITIVE))


@pytest.mark.parametrize("kind", ["privacy", "utility"])
def test_every_choice_parses_and_reads_back_as_written(kind):
    """The text stored in a project or manifest is the text offered, and a parsed axis passes the same check."""
    for text in axis_choices(kind, SENSITIVE):
        axis = Axis.parse(text, kind, SENSITIVE)
        assert axis.text == str(axis) == text and axis.metric.axis == kind
        assert axis.among(SENSITIVE) is axis


@pytest.mark.parametrize("text, kind, words, fix", [
    ("mab_wrost", "privacy", "'mab_wrost' is not a privacy measure", "mab:cost"),
    ("auc_tstr", "privacy", "'auc_tstr' is not a privacy measure", "mab_worst"),
    ("mab_worst", "utility", "'mab_worst' is not a utility measure", "pair_structure"),
    ("mab", "privacy", "'mab' needs a column", "Write mab_worst or mab:COLUMN."),
    ("pg_worst", "privacy", "'pg' has one value per level, not per column", "Write pg."),
    ("pg:cost", "privacy", "'pg' has one value per level, not per column", "Write pg."),
    ("mab:age", "privacy", "'age' in 'mab:age' is not a sensitive column", "Choose one of: cost, stay."),
])
def test_a_wrong_axis_is_refused_naming_it_and_what_to_write(text, kind, words, fix):
    with pytest.raises(DataError) as refused:
        Axis.parse(text, kind, SENSITIVE)
    assert words in refused.value.message and fix in refused.value.fix


def test_an_axis_of_one_column_is_checked_against_the_sweeps_sensitive_columns():
    """A project's axis ``mab:age`` meets a sweep whose sensitive columns are others: refused by name."""
    with pytest.raises(DataError, match="not a sensitive column"):
        Axis(CATALOGUE["mab"], column="age").among(SENSITIVE)
    assert Axis(CATALOGUE["mab"], column="age").among(None).column == "age"  # no columns given: not checked


def test_titles_and_questions_say_which_column_and_how_values_are_pooled():
    mab, pg, mia = CATALOGUE["mab"], CATALOGUE["pg"], CATALOGUE["mia_auc"]
    assert Axis.parse("mab_worst").title == f"{mab.label}, least protected sensitive column"
    assert Axis.parse("mab:cost").title == f"{mab.label} for cost"
    assert Axis.parse("pg").title == f"{pg.label}, median over targets"  # a game's value: the targets pooled
    assert Axis.parse("mia_auc").title == mia.label
    assert Axis.parse("mab:cost").question == f"{mab.question}: cost only"
    assert Axis.parse("mab_worst").question == Axis.parse("mab_worst").metric.question == mab.question


def test_an_axis_combines_its_column_every_sensitive_column_or_none():
    assert Axis.parse("mab_worst").columns(SENSITIVE) == SENSITIVE
    assert Axis.parse("mab:stay").columns(SENSITIVE) == ["stay"]
    assert Axis.parse("pg").columns(SENSITIVE) == [None]


def test_a_point_is_read_by_column_pooled_over_columns_or_missing():
    rows = summary((HOLDER, "mab", "cost", 0.1, 5), (HOLDER, "mab", "stay", 0.3, 3))
    axis = Axis.parse("mab_worst")
    assert axis.point(rows, "cost") == pytest.approx((0.1, 0.05, 0.15))
    pooled = axis.interval(rows, None)  # every column: medians pooled, the fewest replicates
    assert (pooled.value, pooled.n) == (pytest.approx(0.2), 3)
    assert all(math.isnan(v) for v in axis.point(rows, "age")) and axis.interval(rows, "age") is None


def test_before_the_game_reports_its_release_estimate_is_read_and_anchored():
    """MAB falls back to the release MAB, for the value and for the real-data anchor (scores 0)."""
    release = summary((HOLDER, "release_mab", "cost", 0.12, 4), (REAL, "release_mab", "cost", 0.4, 4))
    axis = Axis.parse("mab_worst")
    source = axis.source_metric(release)
    assert source is CATALOGUE["release_mab"]
    assert axis.point(release.holder(), "cost", source)[0] == pytest.approx(0.12)  # the holder's, not the real data's
    assert axis.anchor(release, "worst", "cost") == pytest.approx(0.4)
    assert axis.anchor(release, "ideal", "cost") == 0.0  # no shuffled reference measured: the catalogue's default
    game = summary((HOLDER, "mab", "cost", 0.1, 5), (RAW, "mab", "cost", 0.35, 5))
    assert axis.source_metric(game) is CATALOGUE["mab"] and axis.anchor(game, "worst", "cost") == pytest.approx(0.35)
    assert [m.name for m in attribute_game_metrics(release)] == ["release_mab", "release_wcab"]
    assert [m.name for m in attribute_game_metrics(game)] == ["mab", "release_wcab"]


def test_the_membership_metrics_are_those_measured_or_the_games_alone():
    measured = ["mab", "mia_auc", "pg", "auc_tstr"]
    assert {m.name for m in membership_metrics(measured)} == {"pg", "mia_auc"}
    assert [m.name for m in membership_metrics(measured, games_only=True)] == ["pg"]
