"""tvs_core.figures.ordering: the association heatmap in Algorithm-1 order and the Theorem-2.4 risk preview, on
hand-made matrices (tests/figures/test_figures.py covers the block outlines, the ticks and the refusal of a matrix
that lacks an ordered column)."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.figures import ordering as O
from tvs_core.figures.style import ATTRIBUTE_COLOURS
from tvs_core.model.ordering import OrderResult

NAMES = ["s", "k", "r", "y"]


def association(names=NAMES, extra=()) -> pd.DataFrame:
    """A symmetric matrix with a known signed value in each cell: -0.1 * (i + j) off the diagonal."""
    every = list(names) + list(extra)
    n = len(every)
    values = np.array([[1.0 if i == j else -0.1 * (i + j) for j in range(n)] for i in range(n)])
    return pd.DataFrame(values, index=every, columns=every)


def order_of(sensitive=("s",), k=("k",), rest=("r",), response="y") -> OrderResult:
    order = [*sensitive, *k, *rest, response]
    d = len(order) - 1
    return OrderResult(order=order, sensitive=list(sensitive), K=list(k), rest=list(rest), response=response,
                       rho_star={}, measure="kendall", tau_block=d + 1 - len(k) - len(sensitive), t_max=d,
                       t_max_reason="", full_level=d)


# -- association_heatmap -------------------------------------------------------------------------------------------

def test_the_heatmap_shows_absolute_values_and_hovers_with_the_sign():
    assoc = association()
    heat = O.association_heatmap(assoc, None, "spearman").data[0]
    assert np.allclose(np.asarray(heat.z, float), assoc.abs().to_numpy())
    assert np.allclose(np.asarray(heat.customdata, float), assoc.to_numpy())
    assert min(v for row in heat.customdata for v in row) < 0  # the sign is kept for the hover
    assert "signed %{customdata:.3f}" in heat.hovertemplate


def test_columns_outside_the_order_are_left_out_of_the_ordered_heatmap():
    """The order holds the modelled columns only: another column of the matrix is not drawn."""
    fig = O.association_heatmap(association(extra=["id"]), order_of(), "kendall")
    assert list(fig.data[0].x) == NAMES and len(fig.data[0].z) == len(NAMES)
    assert list(O.association_heatmap(association(extra=["id"]), None, "kendall").data[0].x) == NAMES + ["id"]


def test_the_heatmap_cells_follow_the_order_not_the_tables():
    assoc = association()
    order = order_of(sensitive=("r",), k=("s",), rest=("k",))  # r, s, k, y
    heat = O.association_heatmap(assoc, order, "kendall").data[0]
    assert heat.customdata[0][1] == pytest.approx(assoc.loc["r", "s"])
    assert heat.customdata[2][3] == pytest.approx(assoc.loc["k", "y"])


@pytest.mark.parametrize("measure, shown", [("kendall", "|Kendall's τ|"), ("spearman", "|Spearman's ρ|"),
                                            ("pearson", "|Pearson's r|"), ("distance", "|distance|")])
def test_the_colour_bar_names_the_measure_and_an_unknown_one_as_it_is(measure, shown):
    fig = O.association_heatmap(association(), None, measure)
    assert fig.data[0].colorbar.title.text == shown
    assert fig.layout.title.text == f"{shown} in the table order"
    assert fig.layout.xaxis.title.text == "Column"


def test_a_title_given_is_used_and_the_ordered_axis_says_c_vine_order():
    fig = O.association_heatmap(association(), order_of(), "kendall", title="My matrix")
    assert fig.layout.title.text == "My matrix" and fig.layout.xaxis.title.text == "Column (C-vine order)"


def test_block_names_say_what_each_block_is_when_hovered():
    fig = O.association_heatmap(association(), order_of(), "kendall")
    hovers = {a.text: a.hovertext for a in fig.layout.annotations if a.hovertext}
    assert hovers == {"<b>S</b>": "S: sensitive", "<b>K</b>": "K: linked to S", "<b>rest</b>": "rest",
                      "<b>Y</b>": "Y: response"}
    centres = {a.text: a.x for a in fig.layout.annotations if a.hovertext}
    assert centres == {"<b>S</b>": 0, "<b>K</b>": 1, "<b>rest</b>": 2, "<b>Y</b>": 3}  # over each block's middle


def test_an_empty_rest_block_has_neither_outline_nor_name():
    fig = O.association_heatmap(association(["s", "k", "y"]), order_of(rest=()), "kendall")
    assert [s.name for s in fig.layout.shapes] == ["S", "K", "Y"]
    assert "<b>rest</b>" not in [a.text for a in fig.layout.annotations]


def test_a_larger_matrix_has_smaller_labels_and_a_taller_figure():
    def drawn(n):
        names = [f"c{i}" for i in range(n)]
        return O.association_heatmap(association(names), None, "kendall").layout

    small, medium, large = drawn(4), drawn(25), drawn(40)
    assert small.xaxis.tickfont.size > medium.xaxis.tickfont.size > large.xaxis.tickfont.size
    assert small.height == 500 < medium.height < large.height  # at least 500 px, then a row's height per column


# -- preview_curve -------------------------------------------------------------------------------------------------

@pytest.fixture
def preview() -> pd.DataFrame:
    """Two attributes, rows in no order; the expected MAB falls with the level."""
    rows = [{"level": t, "attribute": a, "mab": m / (t + 1), "wcab": 2 * m / (t + 1), "r2": 0.1 * m}
            for t in (2, 0, 1) for a, m in (("cost", 0.6), ("lactate", 0.3))]
    return pd.DataFrame(rows)


def test_each_line_runs_over_the_levels_in_order_without_level_0(preview):
    """Finding 11 (issue 45): level 0 keeps no tree — no level a sweep offers — and was plotted unexplained."""
    fig = O.preview_curve(preview, None)
    cost = fig.data[0]
    assert list(cost.x) == [1, 2] and list(cost.y) == pytest.approx([0.3, 0.2])
    assert all(a >= b for a, b in zip(cost.y, cost.y[1:], strict=False))
    assert all(0 not in list(trace.x) for trace in fig.data)


def test_attributes_keep_their_order_and_take_the_shared_attribute_colours(preview):
    fig = O.preview_curve(preview.iloc[::-1], None)
    assert [t.name for t in fig.data] == ["lactate", "cost"]  # first seen first, not alphabetical
    assert [t.line.color for t in fig.data] == list(ATTRIBUTE_COLOURS[:2])


def test_the_preview_hover_gives_mab_wcab_and_the_attackers_r2(preview):
    hover = O.preview_curve(preview, None).data[0].hovertext[0]
    assert hover == "cost, level 1<br>expected MAB: 0.300<br>expected WCAB: 0.600<br>attacker R²: 0.060"


def test_a_missing_expected_value_is_a_gap(preview):
    preview.loc[(preview["level"] == 1) & (preview["attribute"] == "cost"), "mab"] = np.nan
    assert list(O.preview_curve(preview, None).data[0].y) == [None, pytest.approx(0.2)]


def test_an_empty_preview_draws_no_line_but_still_the_theorem_level():
    fig = O.preview_curve(pd.DataFrame(columns=["level", "attribute", "mab", "wcab", "r2"]), 2)
    assert len(fig.data) == 0 and [s.x0 for s in fig.layout.shapes] == [2]
