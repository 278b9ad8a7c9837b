"""tvs_core.figures.margins: real against synthetic margins for every kind of column — shared bins, shares that sum
to one, dates per day, lumped and shortened categories, the report's small panels (tests/figures/test_figures.py
covers the grid of numeric and categorical columns, an ordered scale and the title/legend bands)."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.figures import margins as M
from tvs_core.figures.style import REAL_COLOUR, SYNTHETIC_COLOUR


def histogram(real: pd.DataFrame, synthetic: pd.DataFrame | None = None, column: str | None = None, **kwargs):
    column = column or real.columns[0]
    return M.marginal_histograms(real, real if synthetic is None else synthetic, [column], **kwargs)


def area(trace) -> float:
    """The area under a step line drawn by ``marginal_histograms`` (x: bin edges, y: densities and a repeat)."""
    edges, density = np.asarray(trace.x, float), np.asarray(trace.y[:-1], float)
    return float(np.sum(density * np.diff(edges)))


# -- numeric columns -----------------------------------------------------------------------------------------------

def test_real_and_synthetic_share_their_bins_and_each_is_a_density():
    real = pd.DataFrame({"x": np.linspace(0, 1, 50)})
    synthetic = pd.DataFrame({"x": np.linspace(0.5, 3, 80)})
    fig = histogram(real, synthetic)
    a, b = fig.data
    assert a.x == b.x and float(a.x[0]) == 0.0 and float(a.x[-1]) == 3.0  # one set of edges over both tables
    assert area(a) == pytest.approx(1.0) and area(b) == pytest.approx(1.0)
    assert (a.name, a.line.color, b.name, b.line.color) == ("Real data", REAL_COLOUR, "Synthetic data",
                                                            SYNTHETIC_COLOUR)
    assert a.line.shape == "hv" and a.y[-1] == a.y[-2]  # a step line, its last step closed


def test_the_number_of_bins_grows_with_the_rows_between_5_and_40():
    def bins(n):
        return len(histogram(pd.DataFrame({"x": np.linspace(0, 1, n)})).data[0].x) - 1

    assert bins(4) == 5 and bins(200) == 20 and bins(5000) == 40  # √(rows of both tables), bounded


def test_missing_and_infinite_values_are_left_out_of_the_bins():
    real = pd.DataFrame({"x": [1.0, 2.0, np.nan, np.inf, 3.0, 4.0]})
    trace = histogram(real).data[0]
    assert np.isfinite(np.asarray(trace.x, float)).all()
    assert (float(trace.x[0]), float(trace.x[-1])) == (1.0, 4.0)


def test_an_empty_numeric_column_draws_a_flat_line_rather_than_failing():
    real = pd.DataFrame({"x": [np.nan] * 4})
    synthetic = pd.DataFrame({"x": [1.0, 2.0]})
    assert list(histogram(real).data[0].y) == [0.0, 0.0]
    fig = histogram(real, synthetic)
    assert set(fig.data[0].y) == {0.0} and area(fig.data[1]) == pytest.approx(1.0)


def test_dates_are_binned_per_day_and_labelled_as_dates():
    days = pd.Series(pd.date_range("2020-01-01", periods=40, freq="D"))
    fig = histogram(pd.DataFrame({"d": days}))
    trace = fig.data[0]
    assert trace.x[0].startswith("2020-01-01") and trace.x[-1].startswith("2020-02-09")
    edges = pd.to_datetime(list(trace.x)).to_numpy().astype("datetime64[ns]").astype("int64") / M.NS_PER_DAY
    assert float(np.sum(np.asarray(trace.y[:-1]) * np.diff(edges))) == pytest.approx(1.0)  # density per day
    assert fig.layout.yaxis.title.text == "Density per day"


def test_time_zoned_dates_are_drawn_like_the_same_instants_in_utc():
    """A table with time-zoned stamps (the library keeps a UTC dtype through fit and sample) is drawn, not refused
    with a pandas TypeError."""
    naive = pd.Series(pd.date_range("2020-01-01", periods=40, freq="D"))
    zoned = naive.dt.tz_localize("UTC")
    expected = histogram(pd.DataFrame({"d": naive})).data[0]
    for stamps in (zoned, zoned.dt.tz_convert("Europe/Berlin")):
        drawn = histogram(pd.DataFrame({"d": stamps})).data[0]
        assert drawn.x == expected.x and drawn.y == pytest.approx(expected.y)


# -- categorical columns -------------------------------------------------------------------------------------------

def test_categories_are_shares_sorted_by_frequency_with_missing_values_named():
    real = pd.DataFrame({"c": ["u"] * 5 + ["v"] * 2 + [None] * 3})
    synthetic = pd.DataFrame({"c": ["v"] * 6 + ["w"] * 4})
    fig = histogram(real, synthetic)
    a, b = fig.data
    assert list(a.x) == list(b.x) == ["v", "u", "w", "(missing)"]  # by the two tables' shares together
    assert list(a.y) == pytest.approx([0.2, 0.5, 0.0, 0.3]) and list(b.y) == pytest.approx([0.6, 0.0, 0.4, 0.0])
    assert fig.layout.xaxis.type == "category" and fig.layout.yaxis.title.text == "Share of rows"


def test_booleans_are_categories_not_numbers():
    fig = histogram(pd.DataFrame({"b": [True, False, True, True]}))
    assert fig.data[0].type == "bar" and dict(zip(fig.data[0].x, fig.data[0].y, strict=True)) == {"True": 0.75,
                                                                                                  "False": 0.25}


def test_beyond_twenty_categories_the_rarest_are_lumped_into_other():
    values = [f"id{i:02d}" for i in range(30)] + ["id00"] * 10
    bars = histogram(pd.DataFrame({"c": values})).data[0]
    assert len(bars.x) == M.MAX_CATEGORIES + 1 and bars.x[0] == "id00" and bars.x[-1] == "(other)"
    assert bars.y[-1] == pytest.approx(10 / 40)  # the ten rarest, one row each
    assert sum(bars.y) == pytest.approx(1.0)


def test_a_long_category_is_shortened_on_the_axis_but_kept_whole_in_the_data():
    long = "a" * 30
    fig = histogram(pd.DataFrame({"c": [long, "b"]}))
    assert long in fig.data[0].x
    shown = dict(zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext, strict=True))
    assert shown[long] == "a" * (M.MAX_LABEL - 1) + "…" and len(shown[long]) == M.MAX_LABEL and shown["b"] == "b"


def test_a_column_numeric_in_one_table_only_is_compared_as_categories():
    fig = histogram(pd.DataFrame({"x": ["a", "b"]}), pd.DataFrame({"x": [1.0, 2.0]}))
    assert [t.type for t in fig.data] == ["bar", "bar"]


# -- the grid ------------------------------------------------------------------------------------------------------

def test_no_column_chosen_says_so():
    fig = M.marginal_histograms(pd.DataFrame({"x": [1.0]}), pd.DataFrame({"x": [1.0]}), [])
    assert len(fig.data) == 0 and fig.layout.annotations[0].text == "No columns chosen."


def test_only_the_first_panel_puts_real_and_synthetic_in_the_legend():
    table = pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["u", "v", "v"]})
    fig = M.marginal_histograms(table, table, ["x", "c"])
    assert [t.showlegend for t in fig.data] == [True, True, False, False]
    assert {t.legendgroup for t in fig.data} == {"Real data", "Synthetic data"}  # one click hides a table everywhere


def test_small_panels_keep_their_width_hide_empty_cells_and_show_only_the_columns_name():
    """The report's print: six panels to a row even for two columns; each names its column, nothing else."""
    table = pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["u", "v", "v"]})
    fig = M.marginal_histograms(table, table, ["x", "c"], per_row=6, panel_height=120)
    layout = fig.layout
    assert [layout[f"xaxis{i if i > 1 else ''}"].visible for i in range(1, 7)] == [None, None] + [False] * 4
    assert (layout.xaxis.title.text, layout.xaxis2.title.text) == ("x", "c")
    assert layout.yaxis.title.text is None and layout.yaxis.showticklabels is False
    assert layout.height == 120 + M.TOP + M.BOTTOM


def test_large_panels_shrink_the_row_to_the_columns_and_grow_by_rows():
    table = pd.DataFrame({c: [1.0, 2.0, 3.0] for c in "abcd"})
    two = M.marginal_histograms(table, table, ["a", "b"])
    assert "xaxis3" not in two.to_dict()["layout"]  # two columns: two panels in the row
    four = M.marginal_histograms(table, table, list("abcd"), panel_height=200)
    assert four.layout.height == 2 * 200 + M.TOP + M.BOTTOM and four.layout.xaxis4.title.text == "d"
