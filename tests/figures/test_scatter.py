"""tvs_core.figures.scatter: the privacy-utility scatter a steward picks a level from — its axis ranges, error bars,
marks for points off the axes, first looks and notes — on summaries built by hand (tests/figures/test_figures.py
covers the worst column, the fallback to the release attack, externals and the competitors' legend)."""

import math

import pandas as pd
import pytest

from tvs_core.choice import Axis
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.intervals import Interval
from tvs_core.evaluation.records import FIRST_LOOK_ROWS, RecordRole
from tvs_core.evaluation.summary import Summary
from tvs_core.figures import scatter as SC
from tvs_core.figures.style import baseline_style, model_label

NAN = math.nan


def row(model, level, metric, median, attribute=None, role="release", low=None, high=None, n=5) -> dict:
    return {"model": model, "level": level, "role": role, "metric": metric, "attribute": attribute,
            "target_kind": None, "median": median, "ci_low": median - 0.01 if low is None else low,
            "ci_high": median + 0.01 if high is None else high, "n": n}


def summary_of(rows: list[dict]) -> Summary:
    frame = pd.DataFrame(rows)
    frame["level"] = frame["level"].astype("Int64")
    return Summary(frame)


def mcmia_summary(baselines: dict[str, tuple[float, float]] | None = None, more_levels: dict | None = None
                  ) -> Summary:
    """Levels 1 and 2 (MC-MIA 0.51 and 0.53, TSTR 0.70 with interval 0.68–0.75, 0.72), TRTR 0.80; ``baselines``
    and ``more_levels``: name or level -> (MC-MIA, TSTR)."""
    rows = [row("real", None, "auc_trtr", 0.80, role="reference")]
    for level, (privacy, utility) in {1: (0.51, 0.70), 2: (0.53, 0.72), **(more_levels or {})}.items():
        rows += [row("tvinesynth", level, "auc_tstr", utility, low=utility - 0.02, high=utility + 0.05),
                 row("tvinesynth", level, "mcmia", privacy)]
    for name, (privacy, utility) in (baselines or {}).items():
        rows += [row(name, None, "auc_tstr", utility), row(name, None, "mcmia", privacy)]
    return summary_of(rows)


def scatter(summary: Summary, privacy: str = "mcmia", sensitive=("a",), selected=None, levels=(1, 2), **kwargs):
    """``privacy`` written as the command line writes it: the figure takes the parsed axis."""
    return SC.privacy_utility_scatter(summary, Axis.parse(privacy), list(sensitive), selected, list(levels), **kwargs)


def trace(fig, name: str):
    return next(t for t in fig.data if t.name == name)


def notes(fig) -> str:
    return " ".join(a.text or "" for a in fig.layout.annotations)


# -- the helpers ---------------------------------------------------------------------------------------------------

def test_fit_range_holds_the_levels_and_a_near_point_but_not_a_far_one():
    core = [0.50, 0.60]  # span 0.1: a point within 0.1 of the levels is near
    assert SC._fit_range(core, []) == pytest.approx([0.492, 0.608])
    near = SC._fit_range(core, [0.68])
    assert near[0] < 0.50 and near[1] > 0.68
    assert SC._fit_range(core, [0.95, 0.05, NAN]) == SC._fit_range(core, [])  # far ones are drawn at the edge


def test_fit_range_of_one_value_has_some_width_and_of_no_value_is_none():
    low, high = SC._fit_range([0.5], [0.505])
    assert low < 0.5 < 0.505 < high  # a single level's 2 % reach takes in a point that close
    assert SC._fit_range([], [0.3]) is None and SC._fit_range([NAN, None], [0.3]) is None


@pytest.mark.parametrize("value, side", [(0.0, -1), (0.2, 0), (0.5, 0), (0.8, 0), (0.9, 1)])
def test_side_says_where_a_value_lies_against_a_range(value, side):
    assert SC._side(value, [0.2, 0.8]) == side
    assert SC._side(value, None) == 0


def test_error_bars_are_asymmetric_and_a_missing_or_inverted_bound_draws_none():
    bars = SC._error([Interval(0.5, 0.4, 0.7, 5), Interval(0.5, NAN, 0.6, 5), Interval(0.5, 0.55, 0.45, 5)])
    assert bars["symmetric"] is False
    assert bars["array"] == pytest.approx([0.2, 0.1, 0.0])
    assert bars["arrayminus"] == pytest.approx([0.1, 0.0, 0.0])


def test_wrapped_notes_fit_the_width_and_never_split_a_models_name():
    name = SC._unbroken("Gaussian copula")
    lines = SC._wrapped(["word " * 40 + name, "short"])
    assert all(len(line) <= SC.NOTE_CHARS for line in lines)
    assert sum("Gaussian copula" in line for line in lines) == 1 and SC.NO_BREAK not in "".join(lines)
    assert lines[1].startswith("   ") and lines[-1] == "short"  # a continued note is indented, the next is not


def test_an_axis_title_is_the_question_wrapped_with_the_technical_name_under_it():
    question = "How often " * 12
    text = SC._title(question.strip(), "Technical", "x")
    plain, _, technical = text.partition("<br><span")
    assert all(len(line) <= SC.TITLE_CHARS["x"] for line in plain.split("<br>")) and "<br>" in plain
    assert technical.endswith(">Technical</span>") and "font-size:11px" in technical


# -- the figure ----------------------------------------------------------------------------------------------------

def test_a_levels_error_bars_are_its_interval():
    """TSTR 0.70 with interval 0.68–0.75: 0.05 above and 0.02 below the point, not a symmetric guess."""
    ours = trace(scatter(mcmia_summary()), "TVineSynth (by level)")
    assert ours.error_y.symmetric is False
    assert list(ours.error_y.array) == pytest.approx([0.05, 0.05])
    assert list(ours.error_y.arrayminus) == pytest.approx([0.02, 0.02])
    assert list(ours.error_x.array) == pytest.approx([0.01, 0.01])


def test_the_chance_line_of_a_membership_score_is_drawn_and_none_on_an_axis_without_one():
    """MC-MIA 0.5 is an attacker who learns nothing: a dotted line there; the MAB's ideal is a reference, not a
    fixed value, so its scatter has no such line."""
    lines = [s for s in scatter(mcmia_summary()).layout.shapes if s.xref == "x"]
    assert [(s.x0, s.x1, s.line.dash) for s in lines] == [(0.5, 0.5, "dot")]
    rows = [row("real", None, "auc_trtr", 0.8, role="reference")]
    rows += [r for lv in (1, 2) for r in (row("tvinesynth", lv, "auc_tstr", 0.7),
                                          row("tvinesynth", lv, "mab", 0.1 * lv, "a", role="game"))]
    fig = scatter(summary_of(rows), "mab:a")
    assert not [s for s in fig.layout.shapes if s.xref == "x"]


def test_a_point_right_of_and_above_the_axes_is_drawn_at_that_corner_with_an_arrow_pointing_there():
    fig = scatter(mcmia_summary({"rvine": (0.95, 0.99)}))
    far = trace(fig, model_label("rvine"))
    x_high, y_high = fig.layout.xaxis.range[1], fig.layout.yaxis.range[1]
    assert (far.x[0], far.y[0]) == (x_high, y_high) and far.cliponaxis is False
    assert "outside the axes (right of and above them)" in far.hovertext[0]
    assert "MC membership score: 0.950" in far.hovertext[0]  # its own value in the hover
    assert far.error_x is None or far.error_x.array is None  # an interval at the edge would mislead
    (arrow,) = [a for a in fig.layout.annotations if a.xref == "x"]
    assert (arrow.x, arrow.y) == (x_high, y_high) and arrow.ax < 0 and arrow.ay > 0  # from inside, lower left
    assert "Outside the axes" in notes(fig) and "R-vine (Dissmann)" in notes(fig)


def test_a_near_baseline_keeps_its_place_and_its_style():
    fig = scatter(mcmia_summary({"gaussian_copula": (0.52, 0.71)}))
    near = trace(fig, model_label("gaussian_copula"))
    assert (near.x[0], near.y[0]) == (0.52, 0.71) and near.customdata == (None,)
    assert (near.marker.symbol, near.marker.color) == baseline_style("gaussian_copula")
    assert "Outside the axes" not in notes(fig)


def test_baselines_are_listed_by_generator_then_by_epsilon_as_a_number():
    fig = scatter(mcmia_summary({"dp_vine:10": (0.52, 0.71), "dp_vine:2": (0.52, 0.71), "dp_vine:0.5": (0.52, 0.71)}))
    assert [t.name for t in fig.data[1:4]] == [model_label(f"dp_vine:{e}") for e in ("0.5", "2", "10")]


def test_a_first_look_level_is_an_open_circle_that_says_so_in_its_hover_the_legend_and_a_note():
    summary = mcmia_summary()
    frame = summary.frame.copy()
    frame.loc[frame["level"] == 2, ["role", "n"]] = [RecordRole.FIRST_LOOK, 1]
    fig = scatter(Summary(frame))
    ours = trace(fig, "TVineSynth (by level)")
    assert list(ours.marker.symbol) == ["circle", "circle-open"]
    assert f"first look: 1 set of a model fitted on {FIRST_LOOK_ROWS} rows, provisional" in ours.hovertext[1]
    assert "first look" not in ours.hovertext[0]
    legend = trace(fig, f"Provisional — first look: 1 set of a model fitted on {FIRST_LOOK_ROWS} rows")
    assert legend.marker.symbol == "circle-open" and legend.x == (None,)  # a legend entry, no point of its own
    assert "Provisional points (open circles: a first look on a sample)" in notes(fig)


def test_a_level_on_its_first_numbers_is_provisional_and_says_on_how_many_sets_it_rests():
    """Issue 57: a level whose refining chunks have not reported is drawn from its first sets, marked as such in
    its hover and the legend; a level with every set scored, or no plan known, is final."""
    fig = scatter(mcmia_summary(more_levels={3: (0.55, 0.74)}), levels=(1, 2, 3), sets_scored={1: (2, 10), 2: (10, 10)})
    ours = trace(fig, "TVineSynth (by level)")
    assert list(ours.marker.symbol) == ["circle-open-dot", "circle", "circle"]
    assert "first numbers: 2 of 10 sets, provisional" in ours.hovertext[0]
    assert not any("first numbers" in text for text in ours.hovertext[1:])
    assert trace(fig, "Provisional — first numbers: 2 of 10 sets").marker.symbol == "circle-open-dot"
    assert "circles with a dot: a level's first numbers" in notes(fig)
    final = scatter(mcmia_summary(), sets_scored={1: (10, 10), 2: (10, 10)})
    assert not any((t.name or "").startswith("Provisional") for t in final.data)
    assert "Provisional points" not in notes(final)


def test_a_level_without_a_value_is_left_out_not_drawn_at_zero():
    summary = mcmia_summary(more_levels={3: (NAN, 0.74)})
    ours = trace(scatter(summary, levels=(1, 2, 3)), "TVineSynth (by level)")
    assert list(ours.customdata) == [1, 2] and None not in ours.x


def test_the_selected_level_is_ringed_where_its_point_is():
    fig = scatter(mcmia_summary(), selected=2)
    ring = trace(fig, "Selected: level 2")
    assert (ring.x[0], ring.y[0]) == (0.53, 0.72) and ring.customdata == (2,)
    assert fig.data[-1] is ring  # drawn last, over the level's own point


def test_a_utility_without_a_real_data_reference_draws_no_trtr_line():
    from tvs_core.choice import Axis

    rows = [r for lv in (1, 2) for r in (row("tvinesynth", lv, "pair_structure", 0.6 + 0.1 * lv),
                                         row("tvinesynth", lv, "mcmia", 0.5 + 0.01 * lv))]
    fig = scatter(summary_of(rows), utility=Axis(CATALOGUE["pair_structure"]))
    assert not any(t.name.startswith("TRTR") for t in fig.data)
    assert [s for s in fig.layout.shapes if s.yref == "y"] == []
    assert list(trace(fig, "TVineSynth (by level)").y) == pytest.approx([0.7, 0.8])


def test_the_worst_column_note_appears_only_when_there_is_more_than_one_column():
    rows = [row("real", None, "auc_trtr", 0.8, role="reference")]
    rows += [r for lv in (1, 2) for c in ("a", "b") for r in (row("tvinesynth", lv, "mab", 0.1 * lv, c, "game"),)]
    rows += [row("tvinesynth", lv, "auc_tstr", 0.7) for lv in (1, 2)]
    summary = summary_of(rows)
    assert "least protected sensitive column" in notes(scatter(summary, "mab_worst", ("a", "b")))
    assert "least protected sensitive column" not in notes(scatter(summary, "mab_worst", ("a",)))


def test_the_figure_grows_so_that_every_legend_entry_fits_beside_the_plot():
    few = scatter(mcmia_summary())
    many = scatter(mcmia_summary({f"model_{i:02d}": (0.52, 0.71) for i in range(30)}))
    entries = sum(t.showlegend is not False for t in many.data)
    plot = many.layout.height - many.layout.margin.t - many.layout.margin.b
    assert plot >= SC.LEGEND_ENTRY * entries + SC.LEGEND_PAD and many.layout.height > few.layout.height
    assert few.layout.height - few.layout.margin.t - few.layout.margin.b == SC.PLOT_HEIGHT


def test_an_empty_summary_or_one_without_utility_says_so_under_the_usual_axis_titles():
    empty = scatter(Summary())
    assert len(empty.data) == 0 and "No results yet." in notes(empty)
    assert empty.layout.xaxis.title.text.startswith(CATALOGUE["mcmia"].question[:20])
    rows = [row("tvinesynth", lv, "mcmia", 0.5) for lv in (1, 2)]
    none = scatter(summary_of(rows))
    assert len(none.data) == 0 and "No model has both the privacy metric and a" in notes(none)
