"""tvs_core.figures.style: the names, colours and plain values every figure shares (a level or a baseline looks the
same on every page; no figure shows a bare code)."""

import json
import math

import numpy as np
import pandas as pd
import plotly.colors as pcolors
import pytest

from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.records import HOLDER, RAW, REAL
from tvs_core.figures import style as S
from tvs_core.model.registry import EPSILON_GENERATORS


def luminance(colour: str) -> float:
    r, g, b = pcolors.unlabel_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# -- names ---------------------------------------------------------------------------------------------------------

def test_every_known_model_has_a_readable_name_not_its_code():
    for name in [HOLDER, REAL, RAW, *S.BASELINE_STYLE, *S.EPSILON_FAMILIES]:
        shown = S.model_label(name)
        assert shown and shown != name and "_" not in shown, name


def test_a_generator_with_an_epsilon_shows_it_in_its_name():
    assert S.model_label("privbayes:0.5") == "PrivBayes (ε = 0.5)"
    assert S.model_label("mst:2") == "MST (ε = 2)"
    assert all(S.model_label(f"{g}:3").endswith("(ε = 3)") for g in EPSILON_GENERATORS)
    assert S.model_label("dp_vine") == "DP vine"  # no ε given: no empty "(ε = )"


@pytest.mark.parametrize("name, shown", [("ctgan", "CTGAN (paper settings)"), ("ctgan:paper", "CTGAN (paper settings)"),
                                         ("tvae:quick", "TVAE (quick epochs)"), ("tvae:300", "TVAE (300 epochs)")])
def test_a_neural_competitor_names_its_epoch_budget(name, shown):
    """The same generator with another epoch budget is another point: its name says which."""
    assert S.model_label(name) == shown


def test_an_unknown_model_is_shown_as_it_is():
    assert S.model_label("my_own_generator") == "my_own_generator"
    assert S.model_label("rvine:7") == "rvine:7"  # a parameter on a generator without ε is not dropped silently


def test_metric_label_is_the_catalogues_and_an_unknown_code_is_made_readable():
    assert S.metric_label("mab") == CATALOGUE["mab"].label != "mab"
    assert S.metric_label("brand_new_metric") == "Brand new metric"


# -- colours and symbols -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(S.EPSILON_FAMILIES))
def test_an_epsilon_family_darkens_as_epsilon_grows_and_is_clamped_beyond_its_ends(family):
    """Darker = larger ε = weaker privacy, one symbol for the family; beyond 0.1 and 10 the ends of the shades."""
    low, high = S.EPSILON_SHADES
    styles = [S.baseline_style(f"{family}:{e}") for e in (low, 0.3, 1, 3, high)]
    assert len({symbol for symbol, _ in styles}) == 1
    shades = [luminance(colour) for _, colour in styles]
    assert all(a > b for a, b in zip(shades, shades[1:], strict=False))
    assert S.baseline_style(f"{family}:{low / 10}") == S.baseline_style(f"{family}:{low}")
    assert S.baseline_style(f"{family}:{high * 10}") == S.baseline_style(f"{family}:{high}")
    assert S.baseline_style(f"{family}:0") == S.baseline_style(family)  # ε = 0 is no budget: as none given


def test_an_epsilon_family_without_epsilon_takes_the_middle_shade():
    """The middle of 0.1..10 on a log scale is ε = 1; an unreadable ε is treated as none."""
    assert S.baseline_style("privbayes") == S.baseline_style("privbayes:1") == S.baseline_style("privbayes:abc")


def test_the_shade_of_an_epsilon_does_not_depend_on_the_other_epsilons_run():
    assert S.baseline_style("dp_vine:2") == S.baseline_style("dp_vine:2.0")
    assert S.baseline_style("dp_vine:2") != S.baseline_style("privbayes:2")  # families keep apart


def test_baselines_and_epsilon_families_have_symbols_of_their_own():
    """A plain circle is the TVineSynth levels'; every baseline or family is told apart by its symbol or colour."""
    styles = [*S.BASELINE_STYLE.values(), *(S.baseline_style(f) for f in S.EPSILON_FAMILIES)]
    assert len(set(styles)) == len(styles)
    assert "circle" not in {symbol for symbol, _ in styles}
    assert len({symbol for symbol, _ in S.EPSILON_FAMILIES.values()}) == len(S.EPSILON_FAMILIES)
    assert S.baseline_style("never_heard_of") == S._FALLBACK_STYLE


def test_level_colour_runs_from_viridis_start_and_stops_before_its_pale_end():
    levels = [1, 4, 9]
    first, last = S.level_colour(1, levels), S.level_colour(9, levels)
    assert first == pcolors.sample_colorscale(S.LEVEL_SCALE, [0.0])[0]
    assert last != pcolors.sample_colorscale(S.LEVEL_SCALE, [1.0])[0]  # pale yellow is unreadable on white
    assert luminance(first) < luminance(S.level_colour(4, levels)) < luminance(last)


def test_level_colour_goes_by_rank_not_by_value():
    """Neighbouring levels stay apart whatever the gaps between them; a level not in the list is ranked in it."""
    assert S.level_colour(100, [1, 2, 100]) == S.level_colour(3, [1, 2, 3])
    assert S.level_colour(5, [1, 9]) == S.level_colour(2, [1, 2, 3])  # ranked between 1 and 9


def test_model_order_sorts_epsilon_as_a_number():
    names = ["dp_vine:10", "tvinesynth", "dp_vine:2", "ctgan:quick", "dp_vine:0.5", "ctgan"]
    assert sorted(names, key=S.model_order) == ["ctgan", "ctgan:quick", "dp_vine:0.5", "dp_vine:2", "dp_vine:10",
                                                "tvinesynth"]


# -- plain values --------------------------------------------------------------------------------------------------

def test_floats_are_plain_and_missing_values_are_gaps():
    out = S._floats([1, np.int64(2), np.float32(1.5), np.nan, None, pd.NA])
    assert out == [1.0, 2.0, 1.5, None, None, None]
    assert all(v is None or type(v) is float for v in out)
    json.dumps(out)  # no numpy scalar, no NaN token


def test_fmt_writes_three_decimals_and_a_dash_for_no_value():
    assert S._fmt(0.12345) == "0.123"
    assert S._fmt(None) == S._fmt(math.nan) == S._fmt(pd.NA) == "–"


@pytest.mark.parametrize("values, expected", [([0.0, 10.0], [-0.8, 10.8]), ([1.0, 1.0], [0.92, 1.08]),
                                              ([0.0, 0.0], [-0.05, 0.05]), ([-2.0, -2.0], [-2.16, -1.84])])
def test_padded_holds_every_value_with_air_even_a_single_one(values, expected):
    low, high = S._padded(values)
    assert (low, high) == pytest.approx(expected)
    assert low < min(values) and high > max(values)


def test_an_empty_figure_says_why_and_keeps_its_axis_titles():
    fig = S._empty("Title", "Nothing yet.", "X", "Y")
    assert len(fig.data) == 0
    assert [a.text for a in fig.layout.annotations] == ["Nothing yet."]
    assert (fig.layout.title.text, fig.layout.xaxis.title.text, fig.layout.yaxis.title.text) == ("Title", "X", "Y")
    assert S._empty("T", "m").layout.xaxis.title.text == S.LEVEL_AXIS
