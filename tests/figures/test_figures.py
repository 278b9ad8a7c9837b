"""Figure builders on small hand-made tables (and one tiny real evaluation): the traces, shapes and
click data the dashboard relies on, and readable axis titles."""

from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tvs_core import figures as F
from tvs_core.choice.selection import level_table, select
from tvs_core.errors import DataError
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.records import COLUMNS as RECORD_COLUMNS
from tvs_core.evaluation.summary import Summary
from tvs_core.model.ordering import OrderResult, association_matrix

CODES = set(CATALOGUE) | {"mab_worst", "median", "value", "level", "U", "P", "PU", "wins", "r2", "wcab"}


def axis_titles(fig: go.Figure) -> dict[str, str]:
    """Titles of the shown, labelled axes (hidden ticks: the axis shares its neighbour's labels)."""
    layout = fig.to_dict()["layout"]
    return {k: (v.get("title") or {}).get("text", "") for k, v in layout.items()
            if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict) and v.get("showticklabels", True)
            and v.get("visible", True)}


def assert_readable_axes(fig: go.Figure) -> None:
    titles = axis_titles(fig)
    assert titles, "no axes"
    for axis, text in titles.items():
        assert text and text.strip(), f"{axis} has no title"
        assert text not in CODES and not text.startswith("mab:"), f"{axis} shows a raw code: {text}"


def make_order(k: list[str]) -> OrderResult:
    rest = [c for c in ["k1", "k2", "r1", "r2"] if c not in k]
    order = ["s1", "s2", *k, *rest, "y"]
    d = len(order) - 1
    return OrderResult(order=order, sensitive=["s1", "s2"], K=k, rest=rest, response="y", rho_star={},
                       measure="kendall", tau_block=d + 1 - len(k) - 2, t_max=d, t_max_reason="", full_level=d)


def assoc_for(names: list[str], seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(60, len(names)))
    x[:, 1] += x[:, 0]
    return association_matrix(pd.DataFrame(x, columns=names))


def srow(model, level, role, metric, median, attribute=None, target_kind=None, low=None, high=None) -> dict:
    return {"model": model, "level": level, "role": role, "metric": metric, "attribute": attribute,
            "target_kind": target_kind, "median": median, "ci_low": median - 0.01 if low is None else low,
            "ci_high": median + 0.01 if high is None else high, "n": 5}


@pytest.fixture
def summary() -> Summary:
    """Two sensitive columns a, b; levels 1, 3, 5; b is the worse column at levels 1 and 3, a at 5."""
    rows = [srow("real", None, "reference", "auc_trtr", 0.80),
            srow("real", None, "reference", "release_mab", 0.40, "a"),
            srow("raw", None, "game", "mab", 0.45, "a")]
    mab = {1: (0.10, 0.30), 3: (0.20, 0.25), 5: (0.40, 0.35)}
    for level, (a, b) in mab.items():
        rows += [srow("tvinesynth", level, "release", "auc_tstr", 0.60 + 0.03 * level),
                 srow("tvinesynth", level, "game", "mab", a, "a"), srow("tvinesynth", level, "game", "mab", b, "b"),
                 srow("tvinesynth", level, "release", "release_mab", a + 0.5, "a"),
                 srow("tvinesynth", level, "release", "release_mab", b + 0.5, "b"),
                 srow("tvinesynth", level, "release", "mcmia", 0.5 + 0.01 * level),
                 srow("tvinesynth", level, "game", "pg", 1.0 - 0.1 * level, "a", "outlier"),
                 srow("tvinesynth", level, "game", "pg", 1.2 - 0.1 * level, "a", "random"),
                 srow("tvinesynth", level, "game", "pg", 0.8 - 0.1 * level, "b", "outlier")]
    for name, a, b in (("independent", 0.02, 0.03), ("dp_vine:1", 0.05, 0.08)):
        rows += [srow(name, None, "release", "auc_tstr", 0.55), srow(name, None, "release", "release_mab", a, "a"),
                 srow(name, None, "release", "release_mab", b, "b"), srow(name, None, "release", "mcmia", 0.5)]
    frame = pd.DataFrame(rows)
    frame["level"] = frame["level"].astype("Int64")
    return Summary(frame)


@pytest.fixture
def records() -> pd.DataFrame:
    rows = []
    for level in (2, 10, 5):
        for i in range(4):
            rows.append(dict(model="tvinesynth", level=level, metric="auc_tstr", attribute=None, target=None,
                             target_kind=None, iteration=i, value=0.7 + 0.01 * i, role="release"))
            for kind in ("outlier", "random"):
                for column in ("a", "b"):
                    rows.append(dict(model="tvinesynth", level=level, metric="pg", attribute=column, target=i,
                                     target_kind=kind, iteration=0, value=0.5 + 0.1 * i, role="game"))
    rows.append(dict(model="independent", level=None, metric="auc_tstr", attribute=None, target=None,
                     target_kind=None, iteration=0, value=0.5, role="release"))
    frame = pd.DataFrame(rows, columns=RECORD_COLUMNS)
    frame["level"] = frame["level"].astype("Int64")
    return frame


def test_level_colour_is_stable_and_distinct():
    levels = list(range(1, 31))
    colours = [F.level_colour(t, levels) for t in levels]
    assert len(set(colours)) == len(levels)
    assert colours == [F.level_colour(t, levels[::-1]) for t in levels]  # the list's order does not matter
    assert F.level_colour(7, [1, 7, 12]) == F.level_colour(7, [12, 1, 7])
    assert all(c.startswith("rgb(") for c in colours)
    assert F.level_colour(3, [3]).startswith("rgb(")


def test_baseline_styles_cover_the_default_baselines():
    from tvs_core.jobs import DEFAULT_BASELINES

    for name in DEFAULT_BASELINES:
        symbol, colour = F.baseline_style(name)
        assert symbol and colour
    assert F.baseline_style("dp_vine:0.5") == F.BASELINE_STYLE["dp_vine"]
    assert F.baseline_style("something_new") == ("circle-open", "#999999")
    assert F.model_label("dp_vine:10") == "DP vine (ε = 10)"


@pytest.mark.parametrize("k, names", [(["k1", "k2"], ["S", "K", "rest", "Y"]), ([], ["S", "rest", "Y"])])
def test_association_heatmap_outlines_each_nonempty_block(k, names):
    order = make_order(k)
    assoc = assoc_for(["y", "r2", "s2", "k1", "r1", "s1", "k2"])  # deliberately not in C-vine order
    fig = F.association_heatmap(assoc, order, "kendall")
    heat = fig.data[0]
    assert list(heat.x) == order.order and list(heat.y) == order.order
    assert heat.zmin == 0 and heat.zmax == 1
    assert np.allclose(np.asarray(heat.z), assoc.loc[order.order, order.order].abs().to_numpy())
    shapes = fig.layout.shapes
    assert [s.name for s in shapes] == names
    for shape in shapes:
        start, stop = order.blocks[shape.name]
        assert (shape.x0, shape.x1, shape.y0, shape.y1) == (start - 0.5, stop - 0.5, start - 0.5, stop - 0.5)
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.autorange == "reversed"
    assert "×" in heat.hovertemplate and ":.3f" in heat.hovertemplate
    assert list(fig.layout.xaxis.tickvals) == order.order == list(fig.layout.yaxis.tickvals)  # every column named
    blocks = [a for a in fig.layout.annotations if a.hovertext]
    assert [a.text for a in blocks] == [f"<b>{n}</b>" for n in names]
    assert all(a.yref == "paper" and a.y >= 1.0 for a in blocks)  # above the matrix, over no cell
    assert fig.data[0].colorbar.title.text == "|Kendall's τ|" and fig.layout.title.text.startswith("|Kendall's τ|")
    assert_readable_axes(fig)


def test_association_heatmap_without_order_keeps_the_table_order():
    assoc = assoc_for(["b", "a", "c"])
    fig = F.association_heatmap(assoc, None, "kendall")
    assert list(fig.data[0].x) == ["b", "a", "c"] and len(fig.layout.shapes) == 0
    assert fig.data[0].colorbar.title.text == "|Kendall's τ|"  # one wording for both heatmaps
    with pytest.raises(ValueError, match="lacks"):
        F.association_heatmap(assoc, make_order([]), "kendall")


def test_preview_curve_has_a_line_per_attribute_and_the_theorem_level():
    preview = pd.DataFrame([{"level": t, "attribute": a, "mab": 0.1 * t, "wcab": 0.2 * t, "r2": 0.05 * t}
                            for t in range(0, 5) for a in ("cost", "lactate")])
    fig = F.preview_curve(preview, 3)
    assert [t.name for t in fig.data] == ["cost", "lactate"]
    assert list(fig.data[0].x) == [0, 1, 2, 3, 4]
    assert fig.data[0].line.color != fig.data[1].line.color
    (line,) = fig.layout.shapes
    assert line.x0 == line.x1 == 3 and line.line.dash == "dash"
    assert fig.layout.annotations[0].text == "Theorem 2.5: τ = 3"
    assert_readable_axes(fig)
    assert "MAB" in fig.layout.yaxis.title.text
    assert len(F.preview_curve(preview, None).layout.shapes) == 0


def scatter_points(fig: go.Figure) -> dict:
    """level -> (x, y) of the TVineSynth trace."""
    ours = next(t for t in fig.data if t.name == "TVineSynth (by level)")
    return {level: (x, y) for level, x, y in zip(ours.customdata, ours.x, ours.y, strict=True)}


def test_scatter_customdata_are_plain_lists_and_the_highlight_sits_on_its_level(summary):
    levels = [1, 3, 5]
    fig = F.privacy_utility_scatter(summary, "mab_worst", ["a", "b"], 3, levels)
    names = [t.name for t in fig.data]
    assert names == ["TVineSynth (by level)", "DP vine (ε = 1)", "Independent margins",
                     "TRTR (trained on real data): 0.800", "Selected: level 3"]
    for trace in fig.to_dict()["data"]:
        assert isinstance(trace["customdata"], list)
        assert all(v is None or type(v) is int for v in trace["customdata"])
    ours = fig.data[0]
    assert list(ours.customdata) == [1, 3, 5] and list(ours.text) == ["1", "3", "5"]
    assert list(ours.marker.color) == [F.level_colour(t, levels) for t in levels]
    assert [t.customdata for t in fig.data[1:3]] == [(None,), (None,)]
    highlight = fig.data[-1]
    assert (highlight.x[0], highlight.y[0]) == scatter_points(fig)[3]
    assert highlight.customdata == (3,) and highlight.marker.symbol == "circle-open"
    assert not fig.data[0].selectedpoints
    (trtr,) = fig.layout.shapes
    assert trtr.y0 == trtr.y1 == 0.80 and trtr.line.dash == "dash"
    assert any(a.text == "← more private" for a in fig.layout.annotations)
    assert_readable_axes(fig)
    assert fig.layout.yaxis.title.text.startswith("TSTR ROC AUC")


def test_scatter_without_selection_or_with_an_unknown_level_has_no_highlight(summary):
    for selected in (None, 4):
        fig = F.privacy_utility_scatter(summary, "mab_worst", ["a", "b"], selected, [1, 3, 5])
        assert not any(t.name.startswith("Selected") for t in fig.data)


def test_mab_worst_takes_the_worst_column_and_game_before_release(summary):
    worst = scatter_points(F.privacy_utility_scatter(summary, "mab_worst", ["a", "b"], None, [1, 3, 5]))
    assert {t: round(x, 6) for t, (x, _) in worst.items()} == {1: 0.30, 3: 0.25, 5: 0.40}
    only_a = scatter_points(F.privacy_utility_scatter(summary, "mab:a", ["a", "b"], None, [1, 3, 5]))
    assert {t: round(x, 6) for t, (x, _) in only_a.items()} == {1: 0.10, 3: 0.20, 5: 0.40}  # game, not release
    fig = F.privacy_utility_scatter(summary, "mab_worst", ["a", "b"], None, [1, 3, 5])
    dp = next(t for t in fig.data if t.name == "DP vine (ε = 1)")
    assert dp.x[0] == pytest.approx(0.08)  # baselines have no game: their release MAB, worst column
    assert any("release attack" in a.text for a in fig.layout.annotations)


def test_scatter_pg_and_mcmia(summary):
    fig = F.privacy_utility_scatter(summary, "pg", ["a", "b"], 1, [1, 3, 5])
    points = scatter_points(fig)
    assert points[1][0] == pytest.approx(0.9)  # median of 0.9, 1.1, 0.7 over targets
    assert [t.name for t in fig.data] == ["TVineSynth (by level)", "TRTR (trained on real data): 0.800",
                                          "Selected: level 1"]  # no PG for baselines
    assert any(a.text == "more private →" for a in fig.layout.annotations)
    assert any("Not shown" in a.text and "Independent margins" in a.text for a in fig.layout.annotations)
    fig = F.privacy_utility_scatter(summary, "mcmia", ["a", "b"], None, [1, 3, 5])
    assert scatter_points(fig)[5][0] == pytest.approx(0.55)
    assert any(a.text == "← more private" for a in fig.layout.annotations)
    assert_readable_axes(fig)
    assert len(F.privacy_utility_scatter(Summary(), "pg", ["a"], None, [1]).data) == 0
    with pytest.raises(DataError, match="not a privacy measure"):
        F.privacy_utility_scatter(summary, "dcr", ["a"], None, [1])


def test_an_external_set_is_marked_as_not_having_played_the_games(summary):
    """A set made elsewhere has release metrics only: on a game axis its hover or the note says why."""
    mine = [srow("mine", None, "release", "auc_tstr", 0.62), srow("mine", None, "release", "release_mab", 0.06, "a"),
            srow("mine", None, "release", "release_mab", 0.07, "b"), srow("mine", None, "release", "mcmia", 0.52)]
    both = Summary(pd.concat([summary.frame, pd.DataFrame(mine).astype({"level": "Int64"})], ignore_index=True))
    fig = F.privacy_utility_scatter(both, "mab_worst", ["a", "b"], None, [1, 3, 5], externals=["mine"])
    hover = {t.name: t.hovertext[0] for t in fig.data if t.hovertext and len(t.hovertext) == 1}
    assert "from the release attack" in hover["mine"] and "games not played (external file: no generator to " \
        "refit)" in hover["mine"]
    assert next(t for t in fig.data if t.name == "mine").x[0] == pytest.approx(0.07)  # the release MAB, worst
    assert "games not played" not in hover["DP vine (ε = 1)"]  # a baseline could have played: not marked
    fig = F.privacy_utility_scatter(both, "pg", ["a", "b"], None, [1, 3, 5], externals=["mine"])  # no fallback
    notes = [a.text or "" for a in fig.layout.annotations]
    assert not any(t.name == "mine" for t in fig.data)
    assert any("games not played" in n and "mine" in n for n in notes)
    assert any(n.startswith("Not shown (metric missing)") and "mine" not in n and "Independent margins" in n
               for n in notes)
    fig = F.privacy_utility_scatter(both, "mcmia", ["a", "b"], None, [1, 3, 5], externals=["mine"])  # no game metric
    mine_trace = next(t for t in fig.data if t.name == "mine")
    assert "games not played" not in mine_trace.hovertext[0]
    assert not any("games not played" in (a.text or "") for a in fig.layout.annotations)


def test_metric_boxes_order_levels_numerically_and_draw_the_reference(records):
    fig = F.metric_boxes(records, "auc_tstr", None, "Utility", reference=0.8, reference_label="TRTR")
    assert [t.name for t in fig.data] == ["Level 2", "Level 5", "Level 10"]  # independent is not a level
    assert list(fig.layout.xaxis.categoryarray) == ["2", "5", "10"] and fig.layout.xaxis.type == "category"
    assert all(len(t.y) == 4 for t in fig.data)
    (line,) = fig.layout.shapes
    assert line.y0 == 0.8 and line.line.dash == "dash"
    assert fig.layout.annotations[0].text == "TRTR: 0.800"
    assert fig.layout.yaxis.range[1] > 0.8
    assert_readable_axes(fig)
    assert len(F.metric_boxes(records, "auc_tstr", None, "Utility").layout.shapes) == 0


def test_metric_boxes_by_target_kind(records):
    fig = F.metric_boxes(records, "pg", "a", "Privacy gain", by_target_kind=True)
    assert [t.name for t in fig.data] == ["Outlier targets", "Random targets"]
    assert all(len(t.y) == 12 for t in fig.data)  # 3 levels x 4 targets, column a only
    assert fig.layout.boxmode == "group"
    assert_readable_axes(fig)
    empty = F.metric_boxes(records, "mcmia", None, "Nothing")
    assert len(empty.data) == 0 and empty.layout.annotations


def test_kendall_pair_shares_one_colour_scale():
    names = ["a", "b", "c"]
    real = np.array([[1, 0.5, -0.2], [0.5, 1, 0.1], [-0.2, 0.1, 1]])
    fig = F.kendall_pair(real, real * 0.5, names, 4)
    assert len(fig.data) == 2 and all(t.type == "heatmap" for t in fig.data)
    assert [a.text for a in fig.layout.annotations][:2] == ["Real data", "Synthetic, level 4"]
    assert fig.layout.coloraxis.cmin == -1 and fig.layout.coloraxis.cmax == 1
    assert all(t.coloraxis == "coloraxis" and list(t.x) == names for t in fig.data)
    assert np.allclose(np.asarray(fig.data[1].z), real * 0.5)
    assert_readable_axes(fig)
    with pytest.raises(ValueError):
        F.kendall_pair(real, real[:2, :2], names, 4)


@pytest.fixture
def pu_table() -> pd.DataFrame:
    return pd.DataFrame({"level": [1, 3, 5, 7], "U": [0.9, 0.8, 0.6, np.nan], "P": [0.1, 0.5, 0.7, 0.8],
                         "PU": [0.5, 0.65, 0.65, np.nan], "PU_low": [0.45, 0.6, 0.55, np.nan],
                         "PU_high": [0.55, 0.7, 0.72, np.nan], "pareto": [True, True, True, False],
                         "wins": [0.0, 0.6, 0.4, 0.0], "missing": ["", "", "", "utility"]})


def test_pu_curve_marks_best_and_selected_and_shows_wins(pu_table):
    fig = F.pu_curve(pu_table, 3, 5)
    by_name = {t.name: t for t in fig.data}
    assert set(by_name) == {"Share of resamples won", "PU resampling band (95 %)", "Privacy score P",
                            "Utility score U", "Privacy–utility score PU", "Best level", "Selected: level 5"}
    bars = by_name["Share of resamples won"]
    assert bars.type == "bar" and bars.yaxis == "y2" and list(bars.y) == [0.0, 0.6, 0.4, 0.0]
    assert tuple(fig.layout.yaxis2.range) == (0, 1) and fig.layout.yaxis2.overlaying == "y"
    curve = by_name["Privacy–utility score PU"]
    assert list(curve.x) == [1, 3, 5] and list(curve.customdata) == [1, 3, 5]  # level 7 is not ranked
    assert by_name["Best level"].marker.symbol == "star"
    assert (by_name["Best level"].x[0], by_name["Best level"].y[0]) == (3, 0.65)
    assert (by_name["Selected: level 5"].x[0], by_name["Selected: level 5"].y[0]) == (5, 0.65)
    texts = [a.text for a in fig.layout.annotations]
    assert "best: 3 (wins 60 % of resamples)" in texts
    assert any("Not ranked" in t and "7 (utility)" in t for t in texts)
    assert_readable_axes(fig)
    plain = F.pu_curve(pu_table, None, None)
    assert not {"Best level", "Selected: level 5"} & {t.name for t in plain.data}


def test_marginal_histograms_grid_of_numeric_and_categorical_columns():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=200), "z": rng.uniform(size=200), "w": rng.integers(0, 9, 200),
                         "colour": rng.choice(["red", "blue"], 200),
                         "stage": pd.Categorical(rng.choice(["low", "high"], 200), ["low", "mid", "high"],
                                                 ordered=True)})
    synthetic = real.sample(150, random_state=1, replace=True).reset_index(drop=True)
    fig = F.marginal_histograms(real, synthetic, list(real.columns))
    assert len(fig.data) == 10
    assert [t.name for t in fig.data[:2]] == ["Real data", "Synthetic data"]
    assert sum(bool(t.showlegend) for t in fig.data) == 2
    assert [t.type for t in fig.data[6:]] == ["bar"] * 4
    assert fig.data[8].x == ("low", "high")  # the ordered scale, not frequency
    assert fig.data[6].y[0] + fig.data[6].y[1] == pytest.approx(1.0)  # shares
    density, edges = np.asarray(fig.data[0].y[:-1], float), np.asarray(fig.data[0].x, float)
    assert np.sum(density * np.diff(edges)) == pytest.approx(1.0)  # a probability density
    assert fig.layout.xaxis4.title.text == "colour"  # 3 per row: colour opens row 2
    assert fig.layout.yaxis4.title.text == "Share of rows" and fig.layout.yaxis.title.text == "Density"
    assert_readable_axes(fig)
    with pytest.raises(ValueError, match="not in both"):
        F.marginal_histograms(real, synthetic.drop(columns="x"), ["x"])


def test_correlation_pair_uses_numeric_columns():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80), "c": rng.choice(["u", "v"], 80)})
    real["b"] += real["a"]
    fig = F.correlation_pair(real, real.iloc[::-1])
    assert len(fig.data) == 2 and list(fig.data[0].x) == ["a", "b"]
    assert fig.layout.coloraxis.cmin == -1 and fig.layout.coloraxis.cmax == 1
    assert np.asarray(fig.data[0].z)[0, 1] == pytest.approx(real[["a", "b"]].corr("spearman").iloc[0, 1])
    assert_readable_axes(fig)


def test_figures_from_a_tiny_real_evaluation():
    from tvs_core import TVineSynth, evaluate, holdout_split, load_demo
    from tvs_core.evaluation.protocol import QUICK

    y, sensitive = "in_hospital_death", ["total_cost_eur", "lactate_mmol_l"]
    columns = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "sofa_score", y]
    preset = replace(QUICK, utility_sets=2, release_sets=2, aia_iterations=1, aia_size_raw=60, aia_size_syn=60,
                     aia_sets=2, aia_bootstrap_size=60, random_targets=1, outlier_quantiles=(0.99,))
    # enough rows, and predictors of Y (lactate, SOFA), that the real rows predict Y better than chance in any
    # realisation: with TRTR at chance the TSTR scale has no length and no level has a PU_t (as it should)
    train, test = holdout_split(load_demo("clinical")[columns].head(400), y, seed=0)
    model = TVineSynth(response=y, sensitive=sensitive, seed=4).fit(train)
    result = evaluate(model, train, test, levels=[1, 4], preset=preset, seed=1, n_jobs=1, games=("release", "aia"))
    summary = result.summary()
    for privacy in ("mab_worst", "mab:lactate_mmol_l", "mcmia"):
        fig = F.privacy_utility_scatter(summary, privacy, sensitive, 4, result.levels)
        assert list(fig.data[0].customdata) == [1, 4] and fig.data[-1].name == "Selected: level 4"
        assert_readable_axes(fig)
    no_pg = F.privacy_utility_scatter(summary, "pg", sensitive, 4, result.levels)  # PG needs the MIA game
    assert len(no_pg.data) == 0 and "No model" in no_pg.layout.annotations[0].text
    table, anchors = level_table(summary, sensitive)
    chosen = select(table, anchors=anchors, draws=100)
    fig = F.pu_curve(chosen.table, chosen.best_level, 1)
    assert any(t.name == "Selected: level 1" for t in fig.data)
    fig = F.metric_boxes(result.records, "mab", "lactate_mmol_l", "MAB")
    assert [t.name for t in fig.data] == ["Level 1", "Level 4"]
    fig = F.kendall_pair(result.kendall[("real", None)], result.kendall[("tvinesynth", 4)], result.names, 4)
    assert list(fig.data[0].x) == result.names
    heatmap = F.association_heatmap(association_matrix(train[model.order_.order]), model.order_, "kendall")
    assert len(heatmap.layout.shapes) \
        == sum(stop > start for start, stop in model.order_.blocks.values())


def test_axes_fit_the_levels_and_a_far_baseline_is_an_arrow(summary):
    """A baseline at chance must not squeeze the levels into a band: it is drawn off-scale, at an arrow."""
    far = summary.frame.copy()
    far.loc[(far["model"] == "independent") & (far["metric"] == "auc_tstr"), ["median", "ci_low", "ci_high"]] = 0.2
    fig = F.privacy_utility_scatter(Summary(far), "mab_worst", ["a", "b"], None, [1, 3, 5])
    low, high = fig.layout.yaxis.range
    ours = [y for y in fig.data[0].y]
    assert low > 0.2 and low <= min(ours) and high >= 0.8  # the levels and the TRTR line, not the baseline
    assert any("Independent margins" in (a.text or "") and a.showarrow for a in fig.layout.annotations)
    assert any("Outside the axes" in (a.text or "") for a in fig.layout.annotations)
    labels = list(fig.data[0].textposition)
    assert labels[0] != labels[1]  # neighbouring level labels alternate above and below


def test_values_above_the_ideal_are_explained(summary):
    fig = F.privacy_utility_scatter(summary, "pg", ["a", "b"], None, [1, 3, 5])
    assert not any("worse than chance" in (a.text or "") for a in fig.layout.annotations)
    above = summary.frame.copy()
    above.loc[above["metric"] == "pg", ["median", "ci_low", "ci_high"]] += 0.5  # level 1: PG 1.4
    fig = F.privacy_utility_scatter(Summary(above), "pg", ["a", "b"], None, [1, 3, 5])
    assert any("worse than chance" in (a.text or "") for a in fig.layout.annotations)


def test_the_metric_table_is_grouped_ordered_and_says_n(summary):
    from tvs_core.evaluation.summary import readable

    rows = summary.point(1).frame.copy()
    rows.loc[rows["metric"] == "mcmia", "n"] = 3
    table = readable(Summary(rows.iloc[::-1]))  # any input order
    assert list(dict.fromkeys(table["group"])) == ["utility", "attribute risk", "membership risk"]
    assert table["metric"].iloc[0] == "TSTR AUC (synthetic-trained)" and "auc_tstr" not in set(table["metric"])
    mcmia = table[table["metric"] == "MC membership score"].iloc[0]
    assert mcmia["n"] == 3 and "of only 3 values (too few for a 95 % interval)" in mcmia["interval"]
    assert set(table["unit"]) >= {"ROC AUC", "share"} and set(table["better"]) <= {"higher", "lower"}
    assert "None" not in table.to_string()
