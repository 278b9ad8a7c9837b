"""tvs_core.figures.ordering: the association heatmap in Algorithm-1 order and the Theorem-2.4 risk preview, on
hand-made matrices (tests/figures/test_figures.py covers the block outlines, the ticks and the refusal of a matrix
that lacks an ordered column)."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.figures import ordering as O
from tvs_core.figures.style import ATTRIBUTE_COLOURS, label_width
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
                                            ("pearson", "|Pearson's r|"), (None, "|association|")])
def test_the_colour_bar_names_the_measure_and_an_explicit_orders_none(measure, shown):
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

    small, medium, large = drawn(4), drawn(25), drawn(120)
    assert small.xaxis.tickfont.size > medium.xaxis.tickfont.size > large.xaxis.tickfont.size
    assert small.height == 500 < medium.height < large.height  # at least 500 px, then a row's height per column


# -- whole labels at 27 and 120 columns (issues 45 and 47) --------------------------------------------------------

def bench_names() -> list[str]:
    """The 27 columns of bench/tables.py's SUPPORT2-shaped table (whose labels were cut: "otmcst", "harges")."""
    from bench import tables

    return list(tables.COLUMNS)


def wide_names() -> list[str]:
    """The 120 columns of the wide demo (the registry extract)."""
    from tvs_core.data.wide_demo import BLOCKS, RESPONSE

    return [name for block in BLOCKS.values() for name, *_ in block] + [RESPONSE]


def random_association(names: list[str], seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, size=(len(names), len(names)))
    values = (values + values.T) / 2
    np.fill_diagonal(values, 1.0)
    return pd.DataFrame(values, index=names, columns=names)


def order_over(names: list[str], sensitive: int = 2, k: int = 5) -> OrderResult:
    *covariates, response = names
    return order_of(sensitive=covariates[:sensitive], k=covariates[sensitive:sensitive + k],
                    rest=covariates[sensitive + k:], response=response)


@pytest.mark.parametrize("names", [bench_names(), wide_names()], ids=["27 columns", "120 columns"])
def test_every_label_is_whole_and_the_margins_hold_the_longest(names):
    """Every column is named in full (on the rows always; on the columns at 27, and at 120 as plotly's category
    axis draws them: whole names, thinned where they would overlap), and the margins beside and below the matrix
    hold the longest name at the labels' font — by the Verdana bound the figure uses, and by a plain average
    character width of 0.6 em that any of plotly's fonts exceeds only for runs of m's and w's."""
    assert len(names) in (27, 120)
    fig = O.association_heatmap(random_association(names), order_over(names), "kendall")
    layout, heat = fig.layout, fig.data[0]
    assert list(heat.x) == names == list(heat.y)
    assert list(layout.yaxis.ticktext) == names == list(layout.yaxis.tickvals)
    if len(names) <= O.SQUARE_UP_TO:
        assert list(layout.xaxis.ticktext) == names
    else:
        assert layout.xaxis.tickmode == "auto" and layout.xaxis.ticktext is None  # plotly's whole, thinned labels
    size = layout.yaxis.tickfont.size
    assert size == layout.xaxis.tickfont.size >= 9
    longest = max(names, key=len)
    for side in ("l", "b"):
        room = getattr(layout.margin, side)
        assert room >= label_width(longest, size) + O.AXIS_TITLE_PX, (side, room)
        assert room >= 0.6 * size * len(longest) + O.AXIS_TITLE_PX, (side, room)
    assert [s.name for s in layout.shapes] == ["S", "K", "rest", "Y"]  # the sensitive block outlined


def test_a_wide_matrix_grows_downwards_a_readable_row_per_column():
    names = wide_names()
    layout = O.association_heatmap(random_association(names), order_over(names), "kendall").layout
    assert layout.height == layout.margin.t + O.ROW_PX * len(names) + layout.margin.b
    assert O.ROW_PX >= layout.yaxis.tickfont.size + 3  # a row holds its label
    assert layout.yaxis.scaleanchor is None  # not squeezed into a square the width of the page


def test_a_label_needs_more_room_for_wide_letters_than_for_narrow_ones():
    assert label_width("mmmm", 10) > label_width("abcd", 10) > label_width("ilj.", 10) > 0
    assert label_width("", 10) == 0 and label_width("abcd", 20) == 2 * label_width("abcd", 10)


def test_the_focus_view_shows_s_k_the_closest_other_columns_and_y_in_order():
    names = wide_names()
    assoc = random_association(names, seed=4)
    order = order_over(names, sensitive=3, k=6)
    block = [*order.sensitive, *order.K]
    fig = O.association_heatmap(assoc, order, "kendall", focus=5)
    strongest = assoc.loc[order.rest, block].abs().max(axis=1).nlargest(5).index
    shown = list(fig.data[0].x)
    assert shown == [c for c in order.order if c in block or c in strongest or c == order.response]
    assert len(shown) == 3 + 6 + 5 + 1 and shown[-1] == order.response
    assert [s.name for s in fig.layout.shapes] == ["S", "K", "rest", "Y"]
    spans = {s.name: (s.x0, s.x1) for s in fig.layout.shapes}
    assert spans == {"S": (-0.5, 2.5), "K": (2.5, 8.5), "rest": (8.5, 13.5), "Y": (13.5, 14.5)}
    hover = {a.text: a.hovertext for a in fig.layout.annotations}
    assert hover["<b>rest</b>"] == f"rest: the 5 other covariates most associated with S and K, of {len(order.rest)}"
    assert "(of 120 columns)" in fig.layout.title.text
    with pytest.raises(ValueError, match="needs the order"):
        O.association_heatmap(assoc, None, "kendall", focus=5)


@pytest.mark.parametrize("names", [bench_names(), wide_names()], ids=["27 columns", "120 columns"])
def test_every_drawn_label_is_whole_and_inside_the_figure_in_chromium(names, tmp_path):
    """Drawn by plotly.js in headless Chromium at the width of the Sensitive page's column: every tick label is
    a whole column name, lies inside the figure (the cut "otmcst" of issue 45 started outside it) and overlaps no
    other; at 27 columns every column is labelled on both axes, at 120 every row."""
    from tests.browser import CHROMIUM, LAUNCH, playwright

    fig = O.association_heatmap(random_association(names), order_over(names), "kendall")
    path = tmp_path / "heatmap.html"
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True, default_width="1100px"))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", *LAUNCH])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_function("document.querySelectorAll('.ytick text').length > 0", timeout=60_000)
            found = page.evaluate("""() => {
                const svg = document.querySelector('.main-svg').getBoundingClientRect();
                const box = e => { const r = e.getBoundingClientRect();
                                   return [r.left - svg.left, r.top - svg.top,
                                           r.right - svg.left, r.bottom - svg.top]; };
                const labels = sel => [...document.querySelectorAll(sel)].map(e => [e.textContent, box(e)]);
                return {width: svg.width, height: svg.height, x: labels('.xtick text'), y: labels('.ytick text')};
            }""")
        finally:
            browser.close()
    for axis in ("x", "y"):
        for text, (left, top, right, bottom) in found[axis]:
            assert text in names, (axis, text)  # whole, never cut
            assert left >= 0 and top >= 0 and right <= found["width"] and bottom <= found["height"], (axis, text)
        spans = sorted((box[0], box[2]) if axis == "x" else (box[1], box[3]) for _, box in found[axis])
        overlaps = [(a, b) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1] - 0.5]
        assert not overlaps, (axis, overlaps[:3])  # side by side, not on top of each other: each can be read
    assert [text for text, _ in found["y"]] == names
    if len(names) <= O.SQUARE_UP_TO:
        assert [text for text, _ in found["x"]] == names
    else:
        assert len(found["x"]) >= len(names) // 3  # thinned, not dropped: zoom in to read them all


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
