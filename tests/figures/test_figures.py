"""Figure builders on small hand-made tables (and one tiny real evaluation): the traces, shapes and
click data the dashboard relies on, and readable axis titles."""

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tvs_core import figures as F
from tvs_core.choice import Axis, Normalisation
from tvs_core.choice.selection import level_table, select
from tvs_core.errors import DataError
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.records import COLUMNS as RECORD_COLUMNS
from tvs_core.evaluation.summary import Summary
from tvs_core.model.ordering import OrderResult, association_matrix

MAB = Axis.parse("mab_worst")  # the hand-written summaries hold the paper's MAB, not the default axis

CODES = set(CATALOGUE) | {"mab_worst", "median", "value", "level", "U", "P", "PU", "wins", "r2", "wcab"}


def axis_titles(fig: go.Figure) -> dict[str, str]:
    """Titles of the shown, labelled axes (hidden ticks: the axis shares its neighbour's labels)."""
    layout = fig.to_dict()["layout"]
    return {k: (v.get("title") or {}).get("text", "") for k, v in layout.items()
            if k.startswith(("xaxis", "yaxis")) and isinstance(v, dict) and v.get("showticklabels", True)
            and v.get("visible", True)}


def title_parts(text: str) -> tuple[str, str]:
    """An axis title's plain question (its lines joined) and the technical name under it."""
    plain, _, technical = text.partition("<br><span")
    return plain.replace("<br>", " "), re.sub(r"<[^>]+>", "", technical.partition(">")[2])


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
    # an ε no sweep ran before keeps its family's symbol, in a shade of its own (fixed by ε, whatever else ran)
    symbol, colour = F.baseline_style("dp_vine:0.5")
    assert symbol == F.baseline_style("dp_vine:1")[0]
    assert colour not in {F.baseline_style(f"dp_vine:{eps}")[1] for eps in (0.1, 1, 10)}
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
    assert list(fig.data[0].x) == [1, 2, 3, 4]  # level 0 keeps no tree: no level a sweep offers, not drawn
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
    fig = F.privacy_utility_scatter(summary, MAB, ["a", "b"], 3, levels)
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
    assert title_parts(fig.layout.yaxis.title.text) == (CATALOGUE["auc_tstr"].question, "TSTR ROC AUC (random forest)")


def test_scatter_without_selection_or_with_an_unknown_level_has_no_highlight(summary):
    for selected in (None, 4):
        fig = F.privacy_utility_scatter(summary, MAB, ["a", "b"], selected, [1, 3, 5])
        assert not any(t.name.startswith("Selected") for t in fig.data)


def test_mab_worst_takes_the_worst_column_and_game_before_release(summary):
    worst = scatter_points(F.privacy_utility_scatter(summary, MAB, ["a", "b"], None, [1, 3, 5]))
    assert {t: round(x, 6) for t, (x, _) in worst.items()} == {1: 0.30, 3: 0.25, 5: 0.40}
    only_a = scatter_points(F.privacy_utility_scatter(summary, Axis.parse("mab:a"), ["a", "b"], None, [1, 3, 5]))
    assert {t: round(x, 6) for t, (x, _) in only_a.items()} == {1: 0.10, 3: 0.20, 5: 0.40}  # game, not release
    fig = F.privacy_utility_scatter(summary, MAB, ["a", "b"], None, [1, 3, 5])
    dp = next(t for t in fig.data if t.name == "DP vine (ε = 1)")
    assert dp.x[0] == pytest.approx(0.08)  # baselines have no game: their release MAB, worst column
    assert any("release attack" in a.text for a in fig.layout.annotations)


def test_scatter_pg_and_mcmia(summary):
    fig = F.privacy_utility_scatter(summary, Axis.parse("pg"), ["a", "b"], 1, [1, 3, 5])
    points = scatter_points(fig)
    assert points[1][0] == pytest.approx(0.9)  # median of 0.9, 1.1, 0.7 over targets
    assert [t.name for t in fig.data] == ["TVineSynth (by level)", "TRTR (trained on real data): 0.800",
                                          "Selected: level 1"]  # no PG for baselines
    assert any(a.text == "more private →" for a in fig.layout.annotations)
    assert any("Not shown" in a.text and "Independent margins" in a.text for a in fig.layout.annotations)
    fig = F.privacy_utility_scatter(summary, Axis.parse("mcmia"), ["a", "b"], None, [1, 3, 5])
    assert scatter_points(fig)[5][0] == pytest.approx(0.55)
    assert any(a.text == "← more private" for a in fig.layout.annotations)
    assert_readable_axes(fig)
    assert len(F.privacy_utility_scatter(Summary(), Axis.parse("pg"), ["a"], None, [1]).data) == 0
    with pytest.raises(DataError, match="not a privacy measure"):
        F.privacy_utility_scatter(summary, Axis.parse("dcr"), ["a"], None, [1])


def test_an_external_set_is_marked_as_not_having_played_the_games(summary):
    """A set made elsewhere has release metrics only: on a game axis its hover or the note says why."""
    mine = [srow("mine", None, "release", "auc_tstr", 0.62), srow("mine", None, "release", "release_mab", 0.06, "a"),
            srow("mine", None, "release", "release_mab", 0.07, "b"), srow("mine", None, "release", "mcmia", 0.52)]
    both = Summary(pd.concat([summary.frame, pd.DataFrame(mine).astype({"level": "Int64"})], ignore_index=True))
    fig = F.privacy_utility_scatter(both, MAB, ["a", "b"], None, [1, 3, 5], externals=["mine"])
    hover = {t.name: t.hovertext[0] for t in fig.data if t.hovertext and len(t.hovertext) == 1}
    assert "from the release attack" in hover["mine"] and "games not played (external file: no generator to " \
        "refit)" in hover["mine"]
    assert next(t for t in fig.data if t.name == "mine").x[0] == pytest.approx(0.07)  # the release MAB, worst
    assert "games not played" not in hover["DP vine (ε = 1)"]  # a baseline could have played: not marked
    # no fallback
    fig = F.privacy_utility_scatter(both, Axis.parse("pg"), ["a", "b"], None, [1, 3, 5], externals=["mine"])
    notes = [a.text or "" for a in fig.layout.annotations]
    assert not any(t.name == "mine" for t in fig.data)
    assert any("games not played" in n and "mine" in n for n in notes)
    assert any(n.startswith("Not shown (metric missing)") and "mine" not in n and "Independent margins" in n
               for n in notes)
    # no game metric
    fig = F.privacy_utility_scatter(both, Axis.parse("mcmia"), ["a", "b"], None, [1, 3, 5], externals=["mine"])
    mine_trace = next(t for t in fig.data if t.name == "mine")
    assert "games not played" not in mine_trace.hovertext[0]
    assert not any("games not played" in (a.text or "") for a in fig.layout.annotations)


def test_metric_boxes_order_levels_numerically_and_draw_the_reference(records):
    fig = F.metric_boxes(records, "auc_tstr", None, "Utility", reference=0.8, reference_label="TRTR")
    # independent is not a level; the reference is named in the legend, not by a label over the boxes (issue 56)
    assert [t.name for t in fig.data] == ["Level 2", "Level 5", "Level 10", "TRTR: 0.800"]
    assert list(fig.layout.xaxis.categoryarray) == ["2", "5", "10"] and fig.layout.xaxis.type == "category"
    assert all(len(t.y) == 4 for t in fig.data[:3])
    (line,) = fig.layout.shapes
    assert line.y0 == 0.8 and line.line.dash == "dash" and not fig.layout.annotations
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
    assert set(by_name) == {"Share of resamples won",
                            "PU range (middle 95 % of 2000 redraws within each metric's range)", "Privacy score P",
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
        fig = F.privacy_utility_scatter(summary, Axis.parse(privacy), sensitive, 4, result.levels)
        assert list(fig.data[0].customdata) == [1, 4] and fig.data[-1].name == "Selected: level 4"
        assert_readable_axes(fig)
    no_pg = F.privacy_utility_scatter(summary, Axis.parse("pg"), sensitive, 4, result.levels)  # PG needs the MIA game
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
    """A baseline at chance must not squeeze the levels into a band: it is drawn at the edge, with an arrow."""
    far = summary.frame.copy()
    far.loc[(far["model"] == "independent") & (far["metric"] == "auc_tstr"), ["median", "ci_low", "ci_high"]] = 0.2
    fig = F.privacy_utility_scatter(Summary(far), MAB, ["a", "b"], None, [1, 3, 5])
    low, high = fig.layout.yaxis.range
    ours = [y for y in fig.data[0].y]
    assert low > 0.2 and low <= min(ours) and high >= 0.8  # the levels and the TRTR line, not the baseline
    (independent,) = [t for t in fig.data if t.name == "Independent margins"]
    assert independent.y[0] == low and independent.cliponaxis is False  # on the lower edge, drawn whole
    assert ": 0.200 — " in independent.hovertext[0]  # its own value, not the edge's
    assert "outside the axes (left of and below them): drawn at their edge" in independent.hovertext[0]
    assert any(a.showarrow and a.x == independent.x[0] and a.y == low and a.ay < 0 for a in fig.layout.annotations)
    assert any("Outside the axes" in (a.text or "") for a in fig.layout.annotations)
    labels = list(fig.data[0].textposition)
    assert labels[0] != labels[1]  # neighbouring level labels alternate above and below


def test_values_above_the_ideal_are_explained(summary):
    fig = F.privacy_utility_scatter(summary, Axis.parse("pg"), ["a", "b"], None, [1, 3, 5])
    assert not any("worse than chance" in (a.text or "") for a in fig.layout.annotations)
    above = summary.frame.copy()
    above.loc[above["metric"] == "pg", ["median", "ci_low", "ci_high"]] += 0.5  # level 1: PG 1.4
    fig = F.privacy_utility_scatter(Summary(above), Axis.parse("pg"), ["a", "b"], None, [1, 3, 5])
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


# -- the scatter with the paper's competitors (issue 37) ------------------------------------------------------------

TWO = ["totcst", "crea"]
COMPETITOR_LEVELS = list(range(1, 9))
# release MAB of crea and totcst, TSTR AUC: the default baselines and the paper's competitors, six of them far below
# the levels' utility (off the axes), PrivBayes' three ε close together
BASELINE_POINTS = {
    "rvine": (0.15, 0.07, 0.80), "rvine_star1": (0.13, 0.065, 0.79), "gaussian_copula": (0.12, 0.06, 0.78),
    "independent": (0.03, 0.028, 0.50), "dp_vine:0.1": (0.031, 0.029, 0.52), "dp_vine:1": (0.04, 0.033, 0.58),
    "dp_vine:10": (0.08, 0.05, 0.70), "ctgan": (0.06, 0.04, 0.72), "tvae": (0.07, 0.045, 0.74),
    "privbayes:0.1": (0.036, 0.030, 0.51), "privbayes:1": (0.038, 0.031, 0.53), "privbayes:5": (0.045, 0.035, 0.55),
    "privpgd:2.5": (0.05, 0.036, 0.62)}


def competitor_summary() -> Summary:
    """Two sensitive columns with different anchors — crea's attack on the real rows reaches 0.20, totcst's 0.08 —
    so that crea has the larger raw MAB at every level while totcst is the less protected once each is scaled
    between its own anchors; the game's values rest on 40 targets (a 95 % interval), TSTR on 5 sets (a spread)."""
    def row(model, level, role, metric, median, attribute=None, n=5, width=0.01):
        return {"model": model, "level": level, "role": role, "metric": metric, "attribute": attribute,
                "target_kind": None, "median": median, "ci_low": median - width, "ci_high": median + width, "n": n}
    rows = [row("real", None, "reference", "auc_trtr", 0.82, n=30),
            row("raw", None, "game", "mab", 0.20, "crea", n=40), row("raw", None, "game", "mab", 0.08, "totcst", n=40),
            row("real", None, "reference", "release_mab", 0.19, "crea"),
            row("real", None, "reference", "release_mab", 0.075, "totcst"),
            row("shuffled", None, "reference", "release_mab", 0.01, "crea"),
            row("shuffled", None, "reference", "release_mab", 0.01, "totcst"),
            row("real", None, "reference", "mia_tpr_at_1pct_fpr", 0.30), row("shuffled", None, "reference",
                                                                          "mia_tpr_at_1pct_fpr", 0.01)]
    for t in COMPETITOR_LEVELS:
        crea, totcst = 0.02 + 0.015 * (t - 1), 0.018 + 0.008 * (t - 1)
        rows += [row("tvinesynth", t, "release", "auc_tstr", 0.70 + 0.015 * t, width=0.015),
                 row("tvinesynth", t, "game", "mab", crea, "crea", n=40, width=0.005),
                 row("tvinesynth", t, "game", "mab", totcst, "totcst", n=40, width=0.004),
                 row("tvinesynth", t, "release", "release_mab", crea, "crea"),
                 row("tvinesynth", t, "release", "release_mab", totcst, "totcst"),
                 row("tvinesynth", t, "release", "mia_tpr_at_1pct_fpr", 0.02 + 0.005 * t, width=0.005)]
    for name, (crea, totcst, auc) in BASELINE_POINTS.items():
        rows += [row(name, None, "release", "auc_tstr", auc, width=0.02),
                 row(name, None, "release", "release_mab", crea, "crea", width=0.004),
                 row(name, None, "release", "release_mab", totcst, "totcst", width=0.004),
                 row(name, None, "release", "mia_tpr_at_1pct_fpr", totcst, width=0.005)]
    frame = pd.DataFrame(rows)
    frame["level"] = frame["level"].astype("Int64")
    return Summary(frame)


@pytest.fixture(scope="module")
def competitors() -> Summary:
    return competitor_summary()


# plotly.js draws a legend entry (12 px font) every 19 px and a line of 11 px text in 15 px (measured in Chromium;
# the browser test below checks the drawn figure itself)
LEGEND_LINE, NOTE_LINE = 19, 15


def competitor_scatter(summary: Summary, privacy: str = "mab_worst") -> go.Figure:
    """The scatter as the tester saw it: level 3 selected, no level choice passed."""
    return F.privacy_utility_scatter(summary, Axis.parse(privacy), TWO, 3, COMPETITOR_LEVELS)


def test_every_competitor_is_in_the_legend_and_no_label_of_a_point_off_the_axes_can_collide(competitors):
    """The tester's scatter: every model in the legend, with the room the legend needs beside the plot; a point
    off the axes carries no text on the plot (its name is in the legend, the hover and one note line), so no two
    labels can print on top of each other; each ε of a family is a marker of its own."""
    fig = competitor_scatter(competitors)
    names = [t.name for t in fig.data]
    expected = [F.model_label(m) for m in BASELINE_POINTS]
    assert set(expected) <= set(names) and len(names) == len(set(names)) == len(expected) + 3  # + levels, TRTR, pick
    assert all(t.showlegend is not False for t in fig.data)
    layout = fig.layout
    plot_height = (layout.height or 450) - (layout.margin.t or 100) - (layout.margin.b or 80)  # plotly's defaults
    assert plot_height >= LEGEND_LINE * (len(fig.data) + 1)  # every entry and the legend's title beside the plot
    assert layout.legend.orientation == "v" and layout.legend.x >= 1 and layout.legend.yanchor == "top"
    outside = [t for t in fig.data if t.hovertext and "outside the axes" in t.hovertext[0]]
    assert {t.name for t in outside} == {F.model_label(m) for m in ("independent", "dp_vine:0.1", "privbayes:0.1",
                                                                     "privbayes:1", "privbayes:5")}
    low = layout.yaxis.range[0]
    assert all(t.y[0] == low and t.mode == "markers" and not t.text for t in outside)  # at the edge, no label
    on_data = [a for a in layout.annotations if a.xref == "x"]
    assert len(on_data) == len(outside) and all(a.showarrow and not a.text for a in on_data)  # arrows, no text
    # the text under the plot: one line per annotation, each a line's height below the one before
    lines = sorted((a for a in layout.annotations if a.xref == "paper" and a.x == 0 and a.yshift < -24),
                   key=lambda a: -a.yshift)
    assert all(b.yshift - a.yshift <= -NOTE_LINE for a, b in zip(lines, lines[1:], strict=False))
    note = " ".join(a.text for a in lines)
    assert all(t.name in note for t in outside)
    assert layout.margin.b >= -lines[-1].yshift + NOTE_LINE  # the last line inside the figure
    # ε families: one symbol per family, a colour per ε
    for family, epsilons in (("privbayes", ("0.1", "1", "5")), ("dp_vine", ("0.1", "1", "10"))):
        markers = [next(t.marker for t in fig.data if t.name == F.model_label(f"{family}:{e}")) for e in epsilons]
        assert len({m.symbol for m in markers}) == 1 and len({m.color for m in markers}) == len(epsilons)


# the texts of a drawn figure: annotations, legend entries and title, the axes' and the figure's titles
TEXTS = ".annotation-text-g, .legend .traces text, .legendtitletext, .g-xtitle, .g-ytitle, .g-gtitle"


@pytest.mark.slow
def test_the_scatter_in_a_browser_shows_every_legend_entry_and_no_text_overlaps(competitors, tmp_path):
    """The same figure drawn by plotly.js in headless Chromium: every trace has a legend entry inside the figure
    (no scrolled, cut legend) and no two texts of the figure (annotations, legend entries, titles) overlap."""
    browser = pytest.importorskip("tests.browser")
    import plotly.io as pio
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser.CHROMIUM, args=browser.LAUNCH)
        try:  # the paper's axis, and the longest question (two lines of x title)
            for privacy in ("mab_worst", "mia_tpr_at_1pct_fpr"):
                fig = competitor_scatter(competitors, privacy)
                page_file = tmp_path / f"{privacy}.html"
                page_file.write_text(pio.to_html(fig, include_plotlyjs=True, full_html=True, default_width="900px"))
                page = chromium.new_page(viewport={"width": 1000, "height": 1200})
                page.goto(page_file.as_uri())
                page.wait_for_selector(".legend .traces")
                found = page.evaluate("""() => {
                    const box = e => { const r = e.getBoundingClientRect();
                                       return {text: e.textContent, top: r.top, bottom: r.bottom, left: r.left,
                                               right: r.right}; };
                    const svg = document.querySelector('.main-svg').getBoundingClientRect();
                    const scroll = document.querySelector('.legend .scrollbar');
                    return {svg: {top: svg.top, bottom: svg.bottom, left: svg.left, right: svg.right},
                            legend: [...document.querySelectorAll('.legend .traces')].map(box),
                            scrollbar: scroll ? scroll.getBoundingClientRect().height : 0,
                            texts: [...document.querySelectorAll(TEXTS)].map(box)
                                .filter(b => b.text.trim() && b.right > b.left)};
                }""".replace("TEXTS", repr(TEXTS)))
                page.close()
                svg = found["svg"]
                assert len(found["legend"]) == len(fig.data) and found["scrollbar"] == 0
                assert all(svg["top"] <= b["top"] and b["bottom"] <= svg["bottom"] for b in found["legend"])
                texts = found["texts"]
                assert all(b["bottom"] <= svg["bottom"] for b in texts)
                for i, a in enumerate(texts):
                    for b in texts[i + 1:]:
                        apart = (a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5
                                 or a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5)
                        assert apart, (privacy, a["text"], b["text"])
        finally:
            chromium.close()


def hover_lines(trace, index: int = 0) -> list[str]:
    return trace.hovertext[index].split("<br>")


def test_the_hover_names_the_column_the_choice_names(competitors):
    """Raw-worst and scaled-worst differ at every level here (crea has the larger MAB, totcst the lower score):
    the hover names, and plots, the column the selection's P comes from — without a selection as the default
    choice scales the columns, with one whatever its normalisation — and the card names the same."""
    from tvs_core.choice import choose, explain_level

    rows = competitors.holder()

    def named(fig: go.Figure) -> dict:
        ours = fig.data[0]
        return {level: [c for c in TWO if c in hover_lines(ours, i)[1]] for i, level in enumerate(ours.customdata)}

    def deciding(selection) -> dict:
        return dict(zip(selection.table["level"], selection.table["P_column"], strict=True))

    default = deciding(choose(competitors, TWO, privacy=MAB))
    raw_worst = {t: max(TWO, key=lambda c: rows.level(t).metric("mab").attribute(c).interval().value)
                 for t in COMPETITOR_LEVELS}
    assert all(raw_worst[t] != default[t] for t in COMPETITOR_LEVELS)  # the case the tester met
    assert named(competitor_scatter(competitors)) == {t: [default[t]] for t in COMPETITOR_LEVELS}
    for method in Normalisation:
        selection = choose(competitors, TWO, privacy=MAB, normalisation=method)
        fig = F.privacy_utility_scatter(competitors, MAB, TWO, 3, COMPETITOR_LEVELS, selection=selection)
        columns = deciding(selection)
        assert named(fig) == {t: [columns[t]] for t in COMPETITOR_LEVELS}, method
        for level, x in zip(fig.data[0].customdata, fig.data[0].x, strict=True):
            value = rows.level(level).metric("mab").attribute(columns[level]).interval().value
            assert x == pytest.approx(value)  # the point is that column's value too
            card = explain_level(selection, competitors, level, TWO)
            assert f" for {columns[level]} " in card.protects[0]
    with pytest.raises(ValueError, match="scored"):  # a selection of another axis is not read as this one's
        F.privacy_utility_scatter(competitors, Axis.parse("mab:crea"), TWO, 3, COMPETITOR_LEVELS,
                                  selection=choose(competitors, TWO, privacy=MAB))


def test_the_hover_says_what_each_interval_is(competitors):
    """A median of fewer than SMALL_N values carries a spread, never a "95 % interval"; more values carry the
    bootstrap's 95 % interval and their number (interval_words, on every point of the figure)."""
    from tvs_core.evaluation.intervals import SMALL_N

    fig = competitor_scatter(competitors)
    checked, kinds = 0, set()
    for trace in fig.data:
        for i in range(len(trace.hovertext or ())):
            _, privacy_line, utility_line, *_ = hover_lines(trace, i)
            for line, n in ((privacy_line, 40 if trace.name.startswith("TVineSynth") else 5), (utility_line, 5)):
                kinds.add(n < SMALL_N)
                if n < SMALL_N:
                    assert "— spread " in line and f"of only {n} values (too few for a 95 % interval)" in line
                    assert "— 95 % interval" not in line
                else:
                    assert "— 95 % interval " in line and f"(bootstrap over {n} values)" in line
                checked += 1
    assert checked == 2 * (len(COMPETITOR_LEVELS) + len(BASELINE_POINTS)) and kinds == {True, False}


def test_axis_titles_are_the_catalogues_plain_questions(summary):
    """Every axis a user can pick has a plain question in the catalogue; the scatter's titles are those questions,
    the technical name under them in smaller type."""
    from tvs_core.choice import Axis
    from tvs_core.evaluation.catalogue import axis_metrics

    assert all(m.question for kind in ("privacy", "utility") for m in axis_metrics(kind))
    for text in ("mab_worst", "mab:a", "pg", "mcmia", "mia_auc", "wcab_worst"):
        axis = Axis.parse(text, sensitive=["a", "b"])
        for utility in (None, Axis(CATALOGUE["pair_structure"])):
            fig = F.privacy_utility_scatter(summary, Axis.parse(text), ["a", "b"], None, [1, 3, 5], utility=utility)
            question = CATALOGUE[axis.metric.name].question
            assert title_parts(fig.layout.xaxis.title.text) == (question + (": a only" if axis.column else ""),
                                                                axis.title)
            shown = utility or Axis(CATALOGUE["auc_tstr"])
            assert title_parts(fig.layout.yaxis.title.text) == (shown.metric.question, shown.metric.label)


def test_the_margins_legend_sits_between_the_title_and_the_plots():
    """Title, legend and plots each in a band of their own, in pixels from the top (whatever the theme does with
    a title plotly places itself), for one row of plots and several."""
    rng = np.random.default_rng(0)
    real = pd.DataFrame({c: rng.normal(size=50) for c in "abcdefg"})
    for columns in ("ab", "abcdefg"):
        fig = F.marginal_histograms(real, real.iloc[::-1], list(columns))
        layout = fig.layout
        assert layout.title.yref == "container" and layout.title.yanchor == "top" and layout.title.y == 1
        title_bottom = layout.title.pad.t + 1.5 * layout.title.font.size
        assert layout.legend.yref == "container" and layout.legend.yanchor == "top"
        legend_top = (1 - layout.legend.y) * layout.height
        assert title_bottom <= legend_top and legend_top + 24 <= layout.margin.t  # one legend line, then the plots


def test_a_level_more_revealing_than_the_real_rows_says_so_in_its_hover_and_under_the_plot(summary):
    """Issue 55: a level whose attack does better than on the real rows (MAB 0.9 against the real rows' 0.45) is
    named "more revealing than the real data" where the scatter shows it, not left to a number off the scale."""
    extra = pd.DataFrame([srow("tvinesynth", 7, "release", "auc_tstr", 0.8), srow("tvinesynth", 7, "game", "mab", 0.9,
                                                                                 "a")])
    both = Summary(pd.concat([summary.frame, extra], ignore_index=True).astype({"level": "Int64"}))
    fig = F.privacy_utility_scatter(both, Axis.parse("mab:a"), ["a", "b"], None, [1, 3, 5, 7])
    levels = next(t for t in fig.data if t.name == "TVineSynth (by level)")
    hover = dict(zip(levels.customdata, levels.hovertext, strict=True))
    assert "more revealing than the real data" in hover[7]
    assert not any("more revealing" in hover[level] for level in (1, 3, 5))
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert "More revealing than the real data" in notes and "level 7" in notes
