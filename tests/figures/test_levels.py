"""tvs_core.figures.levels: a metric's replicates per level, the real-vs-synthetic dependence matrices and the PU_t
curve, on small hand-made records and level tables (tests/figures/test_figures.py covers the level order, the
target kinds, the shared colour scale and the best/selected marks)."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.records import COLUMNS as RECORD_COLUMNS
from tvs_core.figures import levels as L
from tvs_core.figures.style import BEST_COLOUR, level_colour


def records_of(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame([{"target": None, "target_kind": None, "iteration": 0, **r} for r in rows],
                         columns=RECORD_COLUMNS)
    frame["level"] = frame["level"].astype("Int64")
    return frame


def mab(model, level, attribute, value, iteration=0) -> dict:
    return {"model": model, "level": level, "metric": "mab", "attribute": attribute, "value": value,
            "iteration": iteration, "role": "game"}


@pytest.fixture
def records() -> pd.DataFrame:
    """MAB of columns a and b at levels 3 and 1, two replicates each (one NaN at level 3), and rows that are no
    level of TVineSynth: a baseline's and the holder's without a level."""
    rows = [mab("tvinesynth", level, column, v, i) for level in (3, 1) for column in ("a", "b")
            for i, v in enumerate([0.1 * level + (column == "b"), np.nan if level == 3 else 0.2 * level])]
    rows += [mab("rvine", None, "a", 9.0), mab("tvinesynth", None, "a", 9.0)]
    return records_of(rows)


# -- metric_boxes --------------------------------------------------------------------------------------------------

def test_boxes_hold_one_columns_replicates_per_level_and_no_baseline(records):
    fig = L.metric_boxes(records, "mab", "a", "MAB of a")
    assert [t.name for t in fig.data] == ["Level 1", "Level 3"]
    assert [list(t.x) for t in fig.data] == [["1", "1"], ["3", "3"]]
    assert list(fig.data[0].y) == pytest.approx([0.1, 0.2])
    assert fig.data[1].y[0] == pytest.approx(0.3) and fig.data[1].y[1] is None  # a missing replicate is a gap
    assert 9.0 not in [v for t in fig.data for v in t.y]


def test_boxes_without_a_column_pool_every_column(records):
    fig = L.metric_boxes(records, "mab", None, "MAB")
    assert [len(t.y) for t in fig.data] == [4, 4]


def test_each_box_has_its_levels_colour_and_every_replicate_shown(records):
    fig = L.metric_boxes(records, "mab", "a", "MAB of a")
    assert [t.marker.color for t in fig.data] == [level_colour(1, [1, 3]), level_colour(3, [1, 3])]
    assert all(t.boxpoints == "all" and t.showlegend is False for t in fig.data)
    assert fig.layout.title.text == "MAB of a" and fig.layout.yaxis.title.text == CATALOGUE["mab"].label


def test_a_missing_reference_draws_no_line(records):
    fig = L.metric_boxes(records, "mab", "a", "MAB", reference=float("nan"))
    assert len(fig.layout.shapes) == 0 and fig.layout.yaxis.range is None


def test_a_reference_outside_the_replicates_is_inside_the_axis(records):
    fig = L.metric_boxes(records, "mab", "a", "MAB", reference=-0.5)
    low, high = fig.layout.yaxis.range
    assert low < -0.5 and high > 0.3


def test_the_empty_message_names_the_metric_as_the_axis_does():
    """The message keeps the label's acronyms: "(MAB)", never the bare code "(mab)"."""
    fig = L.metric_boxes(records_of([]), "mab", "a", "MAB")
    (message,) = [a.text for a in fig.layout.annotations]
    assert message.startswith("No records of ") and "(MAB)" in message and "(mab)" not in message
    assert fig.layout.yaxis.title.text == CATALOGUE["mab"].label
    tstr = L.metric_boxes(records_of([]), "auc_tstr", None, "TSTR").layout.annotations[0].text
    assert "TSTR" in tstr


# -- kendall_pair and correlation_pair -----------------------------------------------------------------------------

def test_the_synthetic_panel_hovers_with_the_real_value_beside_its_own():
    real = np.array([[1.0, 0.6], [0.6, 1.0]])
    fig = L.kendall_pair(real, real * 0.5, ["p", "q"], 2)
    left, right = fig.data
    assert np.allclose(np.asarray(left.z, float), real) and np.allclose(np.asarray(right.customdata, float), real)
    assert "(real %{customdata:.3f})" in right.hovertemplate and "real" not in left.hovertemplate
    assert fig.layout.title.text == "Kendall's τ between columns: real data and level 2"
    assert fig.layout.yaxis2.showticklabels is False and fig.layout.yaxis.autorange == "reversed"


def test_a_missing_dependence_is_a_gap_not_a_zero():
    real = np.array([[1.0, np.nan], [np.nan, 1.0]])
    fig = L.kendall_pair(real, np.eye(2), ["p", "q"], 2)
    assert list(fig.data[0].z[0]) == [1.0, None] and list(fig.data[0].z[1]) == [None, 1.0]


def test_kendall_pair_refuses_matrices_that_do_not_match_the_names():
    with pytest.raises(ValueError, match="do not match 3 names"):
        L.kendall_pair(np.eye(2), np.eye(2), ["p", "q", "r"], 1)


def test_correlation_pair_keeps_columns_numeric_in_both_tables_and_correlates_by_rank():
    """b is text in the synthetic table and c is boolean: neither is correlated; a and d are monotone, ρ = ±1."""
    real = pd.DataFrame({"a": [1, 2, 3, 4], "b": [4, 3, 2, 1], "c": [True, False, True, False],
                         "d": [10.0, 100.0, 1000.0, 10_000.0]})
    synthetic = real.assign(b=real["b"].astype(str), d=real["d"][::-1].to_numpy())
    fig = L.correlation_pair(real, synthetic)
    assert list(fig.data[0].x) == ["a", "d"]
    assert np.allclose(np.asarray(fig.data[0].z, float), [[1, 1], [1, 1]])
    assert np.allclose(np.asarray(fig.data[1].z, float), [[1, -1], [-1, 1]])
    assert [a.text for a in fig.layout.annotations][:2] == ["Real data", "Synthetic data"]


def test_correlation_pair_without_numeric_columns_says_so():
    table = pd.DataFrame({"c": ["u", "v"], "d": [True, False]})
    fig = L.correlation_pair(table, table)
    assert len(fig.data) == 0 and fig.layout.annotations[0].text == "No numeric columns to correlate."


# -- pu_curve ------------------------------------------------------------------------------------------------------

@pytest.fixture
def table() -> pd.DataFrame:
    """Levels in no order; level 3 has no PU (nothing named missing), level 7 misses its utility."""
    return pd.DataFrame({"level": [5, 1, 3, 7], "U": [0.6, 0.9, 0.8, np.nan], "P": [0.7, 0.1, 0.5, 0.8],
                         "PU": [0.65, 0.5, np.nan, np.nan], "PU_low": [0.55, 0.45, np.nan, np.nan],
                         "PU_high": [0.72, 0.55, np.nan, np.nan], "pareto": [True, False, False, False],
                         "wins": [0.4, 0.6, 0.0, 0.0], "missing": ["", "", "", "utility"]})


def test_the_pu_band_runs_along_the_upper_ends_and_back_along_the_lower(table):
    band = next(t for t in L.pu_curve(table, None, None).data if getattr(t, "fill", None) == "toself")
    assert list(band.x) == [1, 5, 5, 1] and list(band.y) == pytest.approx([0.55, 0.72, 0.55, 0.45])


def test_the_pu_band_and_hover_name_their_range_through_the_one_wording_function(table):
    """Finding 10 (issue 45): the legend said "PU resampling band (95 %)", outside ``interval_words``; PU's range is
    the middle 95 % of its redraws, no confidence interval, and every screen says so in the same words."""
    fig = L.pu_curve(table, None, None)
    band = next(t for t in fig.data if getattr(t, "fill", None) == "toself")
    assert band.name == "PU range (middle 95 % of 2000 redraws within each metric's range)"
    from tvs_core.choice.selection import REDRAWS
    from tvs_core.evaluation.intervals import interval_name, interval_words

    assert band.name == f"PU {interval_name(REDRAWS, kind='redraws')}"
    curve = next(t for t in fig.data if t.name == "Privacy–utility score PU")
    assert f"PU: 0.500, {interval_words(0.45, 0.55, REDRAWS, 3, 'redraws')}" in curve.hovertext[0]
    assert not any("95 %" in (t.name or "") and t is not band for t in fig.data)


def test_the_curve_runs_over_ranked_levels_in_order_and_its_hover_says_pareto(table):
    fig = L.pu_curve(table, None, None)
    curve = next(t for t in fig.data if t.name == "Privacy–utility score PU")
    assert list(curve.x) == [1, 5] and list(curve.customdata) == [1, 5]
    assert list(curve.marker.color) == [level_colour(t, [1, 3, 5, 7]) for t in (1, 5)]  # the job's every level
    assert curve.hovertext[0] == ("level 1<br>PU: 0.500, range 0.450–0.550 (middle 95 % of 2000 redraws within each "
                                  "metric's range)<br>P: 0.10, U: 0.900<br>wins: 0.600")
    assert curve.hovertext[1].endswith("<br>Pareto-optimal")
    wins = next(t for t in fig.data if t.type == "bar")
    assert list(wins.x) == [1, 3, 5, 7] and list(wins.y) == [0.6, 0.0, 0.4, 0.0]  # every level, ranked or not
    assert list(fig.layout.xaxis.tickvals) == [1, 3, 5, 7]


def test_p_and_u_are_offered_in_the_legend_but_hidden_at_first(table):
    lines = [t for t in L.pu_curve(table, None, None).data if t.name in ("Privacy score P", "Utility score U")]
    assert [t.visible for t in lines] == ["legendonly", "legendonly"]
    assert [list(t.y) for t in lines] == [[0.1, 0.7], [0.9, 0.6]]


def test_an_unranked_best_or_selected_level_gets_no_mark(table):
    fig = L.pu_curve(table, 3, 7)
    assert not any(t.name in ("Best level", "Selected: level 7") for t in fig.data)
    assert not any(t.marker.color == BEST_COLOUR for t in fig.data if t.type == "scatter")


def test_unranked_levels_are_named_with_what_they_miss(table):
    text = [a.text for a in L.pu_curve(table, None, None).layout.annotations]
    assert text == ["Not ranked (missing metrics): 3 (no score); 7 (utility)"]
    assert not L.pu_curve(table.drop(columns="missing"), None, None).layout.annotations


def test_an_unranked_level_whose_missing_is_empty_reads_no_score_not_nan(table):
    """A table read back from a file holds NaN where nothing was written: shown as "no score", never "nan"."""
    table.loc[table["level"] == 3, "missing"] = np.nan
    (note,) = [a.text for a in L.pu_curve(table, None, None).layout.annotations]
    assert "3 (no score)" in note and "nan" not in note


def test_more_than_thirty_levels_leave_the_ticks_to_plotly():
    many = pd.DataFrame({"level": range(1, 32), "U": 0.5, "P": 0.5, "PU": 0.5, "PU_low": 0.4, "PU_high": 0.6,
                         "pareto": False, "wins": 1 / 31, "missing": ""})
    assert L.pu_curve(many, None, None).layout.xaxis.tickvals is None
    assert list(L.pu_curve(many.head(30), None, None).layout.xaxis.tickvals) == list(range(1, 31))


@pytest.mark.parametrize("where, height, font, margin", [
    ("Choose page", None, None, None),  # plotly's and Streamlit's 450 px, the figure's own margins
    ("report", 280, 10, {"t": 36, "b": 90}),  # report/evidence.py draws it so
])
def test_the_pu_curves_axis_titles_fit_the_height_they_run_along(table, where, height, font, margin):
    """The Choose page's screenshot showed the left axis' title cut, running into the figure's title: it was 100
    characters long along a plot some 230 px high. Each title fits the plot's height at plotly's title size (1.2 x
    the font, rounded)."""
    from tvs_core.figures.style import label_width

    fig = L.pu_curve(table, 5, 1)
    fig.update_layout(height=height, font={"size": font}, margin=margin)
    layout = fig.layout
    plot_height = (layout.height or 450) - (100 if layout.margin.t is None else layout.margin.t) - (
        80 if layout.margin.b is None else layout.margin.b)
    title_size = round((layout.font.size or 12) * 1.2)
    for axis in (layout.yaxis, layout.yaxis2):
        assert label_width(axis.title.text, title_size) <= plot_height, (where, axis.title.text, plot_height)
