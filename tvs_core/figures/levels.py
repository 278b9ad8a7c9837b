"""Per-level figures: a metric's distribution over replicates, dependence matrices real vs synthetic,
and the PU_t curve of the level choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..choice.selection import HIGH, LOW, REDRAWS, Column, level_column, shown_privacy
from ..evaluation.intervals import interval_name, interval_words
from ..evaluation.records import holder_rows
from ..text import percent
from .style import (
    BEST_COLOUR,
    CORRELATION_SCALE,
    HIGHLIGHT_COLOUR,
    LEVEL_AXIS,
    TARGET_KIND_COLOURS,
    _empty,
    _floats,
    _fmt,
    _padded,
    level_colour,
    metric_label,
)


def metric_boxes(records: pd.DataFrame, metric: str, attribute: str | None, title: str,
                 reference: float | None = None, by_target_kind: bool = False,
                 reference_label: str = "Reference") -> go.Figure:
    """Replicates of one metric per TVineSynth level: the spread shows whether differences between
    levels are larger than the noise of the evaluation."""
    rows = holder_rows(records)
    rows = rows[(rows["metric"] == metric) & rows["level"].notna()]
    if attribute is not None:
        rows = rows[rows["attribute"] == attribute]
    y_title = metric_label(metric)
    if rows.empty:
        # lower the first letter only, and not an acronym's: "(MAB)" and "TSTR" stay as the axis writes them
        name = y_title[:1].lower() + y_title[1:] if y_title[1:2].islower() else y_title
        return _empty(title, f"No records of {name} yet.", LEVEL_AXIS, y_title)
    levels = sorted(int(v) for v in rows["level"].unique())
    categories = [str(v) for v in levels]
    fig = go.Figure()
    common = {"boxpoints": "all", "jitter": 0.3, "pointpos": 0, "yhoverformat": ".3f", "hoveron": "boxes+points"}
    if by_target_kind:
        for kind, group in rows.groupby("target_kind", sort=True):
            fig.add_trace(go.Box(x=[str(int(v)) for v in group["level"]], y=_floats(group["value"]),
                                 name=f"{str(kind).capitalize()} targets", offsetgroup=str(kind),
                                 marker_color=TARGET_KIND_COLOURS.get(str(kind), "#7f7f7f"), **common))
        fig.update_layout(boxmode="group", legend_title_text="Target")
    else:
        for level in levels:
            group = rows[rows["level"] == level]
            fig.add_trace(go.Box(x=[str(level)] * len(group), y=_floats(group["value"]), name=f"Level {level}",
                                 marker_color=level_colour(level, levels), showlegend=False, **common))
    if reference is not None and not pd.isna(reference):  # named in the legend: a label on the line hid the boxes
        fig.add_hline(y=float(reference), line_dash="dash", line_color="#555555")
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"{reference_label}: {float(reference):.3f}",
                                 line={"dash": "dash", "color": "#555555"}, hoverinfo="skip"))
        values = [v for v in _floats(rows["value"]) if v is not None]
        fig.update_yaxes(range=_padded(values + [float(reference)]))
    fig.update_layout(title=title, yaxis_title=y_title,
                      xaxis={"title": {"text": LEVEL_AXIS}, "type": "category", "categoryorder": "array",
                             "categoryarray": categories})
    return fig


def _matrix_pair(left: np.ndarray, right: np.ndarray, names: list[str], titles: tuple[str, str],
                 measure: str) -> go.Figure:
    """Two matrices on one shared −1..1 colour axis, so equal colours mean equal values."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.04)
    left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    fig.add_trace(go.Heatmap(z=_nested(left), x=names, y=names, coloraxis="coloraxis", name=titles[0],
                             hovertemplate=f"%{{y}} × %{{x}}: {measure} = %{{z:.3f}}<extra></extra>"), 1, 1)
    fig.add_trace(go.Heatmap(z=_nested(right), x=names, y=names, coloraxis="coloraxis", name=titles[1],
                             customdata=_nested(left),
                             hovertemplate=f"%{{y}} × %{{x}}: {measure} = %{{z:.3f}} (real %{{customdata:.3f}})"
                                           "<extra></extra>"), 1, 2)
    fig.update_layout(coloraxis={"colorscale": CORRELATION_SCALE, "cmin": -1, "cmax": 1,
                                 "colorbar": {"title": {"text": measure}}}, plot_bgcolor="white")
    for col, x_axis in enumerate(("x", "x2"), start=1):
        fig.update_xaxes(title_text="Column", tickangle=-45, constrain="domain", row=1, col=col)
        fig.update_yaxes(autorange="reversed", scaleanchor=x_axis, constrain="domain", row=1, col=col)
    fig.update_yaxes(title_text="Column", row=1, col=1)
    fig.update_yaxes(showticklabels=False, row=1, col=2)  # same rows as the left panel, labelled there
    return fig


def _nested(matrix: np.ndarray) -> list[list[float | None]]:
    return [_floats(row) for row in matrix]


def kendall_pair(real: np.ndarray, synthetic: np.ndarray, names: list[str], level: int) -> go.Figure:
    """Real against synthetic Kendall's τ at one level: truncation shows up as the dependence
    that fades among the columns the vine no longer links."""
    real, synthetic = np.asarray(real, dtype=float), np.asarray(synthetic, dtype=float)
    if real.shape != (len(names), len(names)) or synthetic.shape != real.shape:
        raise ValueError(f"matrices of shape {real.shape} and {synthetic.shape} do not match {len(names)} names")
    fig = _matrix_pair(real, synthetic, list(names), ("Real data", f"Synthetic, level {level}"), "Kendall's τ")
    fig.update_layout(title=f"Kendall's τ between columns: real data and level {level}")
    return fig


def correlation_pair(real: pd.DataFrame, synthetic: pd.DataFrame) -> go.Figure:
    """Spearman correlations of the numeric columns in real and synthetic data, side by side."""
    names = [c for c in real.select_dtypes("number").columns if c in synthetic.columns
             and pd.api.types.is_numeric_dtype(synthetic[c])]
    if not names:
        return _empty("Spearman correlation", "No numeric columns to correlate.", "Column", "Column")
    left = real[names].astype(float).corr(method="spearman").to_numpy()
    right = synthetic[names].astype(float).corr(method="spearman").to_numpy()
    fig = _matrix_pair(left, right, names, ("Real data", "Synthetic data"), "Spearman's ρ")
    fig.update_layout(title="Spearman correlation between numeric columns")
    return fig


# the axes' titles run along the plot's height: on the Choose page (450 px, less the margins) and in the report
# (280 px) a longer one was cut and ran into the figure's title. What PU is, and a level below 0 (more revealing
# than the real data), the hover, the legend and the text beside the figure say.
PU_AXIS = "PU (higher is better)"
WINS_AXIS = "Resamples won"


def pu_curve(table: pd.DataFrame, best_level: int | None, selected_level: int | None) -> go.Figure:
    """PU_t per level with its resampling band and how often each level wins: a best level that
    wins few resamples is a fragile choice."""
    table = table.sort_values("level")
    levels = [int(v) for v in table["level"]]
    ranked = table[table["PU"].notna()]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=levels, y=_floats(table["wins"]), name="Share of resamples won", yaxis="y2",
                         marker={"color": "#bbbbbb"}, opacity=0.35, width=0.6,
                         hovertemplate="level %{x}: best in %{y:.3f} of resamples<extra></extra>"))
    low, high = level_column(Column.PU, end=LOW), level_column(Column.PU, end=HIGH)
    band = ranked[ranked[low].notna() & ranked[high].notna()]
    if len(band):
        band_x = [int(v) for v in band["level"]]
        fig.add_trace(go.Scatter(x=band_x + band_x[::-1], y=_floats(band[high]) + _floats(band[low])[::-1],
                                 mode="lines", fill="toself", fillcolor="rgba(70, 70, 160, 0.15)",
                                 line={"width": 0},
                                 name=f"PU {interval_name(REDRAWS, kind='redraws')}", hoverinfo="skip"))
    for column, name, dash in (("P", "Privacy score P", "dot"), ("U", "Utility score U", "dash")):
        fig.add_trace(go.Scatter(x=[int(v) for v in ranked["level"]], y=_floats(ranked[column]), name=name,
                                 mode="lines", line={"dash": dash, "color": "#888888"}, visible="legendonly",
                                 hovertemplate=f"level %{{x}}: {name} %{{y:.3f}}<extra></extra>"))
    hover = [f"level {int(r['level'])}<br>PU: {r['PU']:.3f}, {interval_words(r[low], r[high], REDRAWS, 3, 'redraws')}"
             f"<br>P: {shown_privacy(r)}, "
             f"U: {_fmt(r['U'])}<br>wins: {r['wins']:.3f}" + ("<br>Pareto-optimal" if bool(r["pareto"]) else "")
             for _, r in ranked.iterrows()]
    fig.add_trace(go.Scatter(x=[int(v) for v in ranked["level"]], y=_floats(ranked["PU"]), mode="lines+markers",
                             name="Privacy–utility score PU", line={"color": "#444444"},
                             marker={"size": 10, "color": [level_colour(int(v), levels) for v in ranked["level"]]},
                             customdata=[int(v) for v in ranked["level"]], hovertext=hover,
                             hovertemplate="%{hovertext}<extra></extra>"))
    best = ranked[ranked["level"] == best_level] if best_level is not None else ranked.iloc[0:0]
    if len(best):
        row = best.iloc[0]
        fig.add_trace(go.Scatter(x=[int(best_level)], y=[float(row["PU"])], mode="markers", name="Best level",
                                 marker={"symbol": "star", "size": 20, "color": BEST_COLOUR,
                                         "line": {"color": "#444444", "width": 1}}, hoverinfo="skip"))
        fig.add_annotation(x=int(best_level), y=float(row["PU"]), ax=0, ay=-40, showarrow=True, arrowhead=2,
                           text=f"best: {int(best_level)} (wins {percent(row['wins'])} of resamples)")
    chosen = ranked[ranked["level"] == selected_level] if selected_level is not None else ranked.iloc[0:0]
    if len(chosen):
        fig.add_trace(go.Scatter(x=[int(selected_level)], y=[float(chosen["PU"].iloc[0])], mode="markers",
                                 name=f"Selected: level {int(selected_level)}", customdata=[int(selected_level)],
                                 marker={"symbol": "circle-open", "size": 24, "color": HIGHLIGHT_COLOUR,
                                         "line": {"width": 3}}, hoverinfo="skip"))
    unranked = table[table["PU"].isna()]
    if len(unranked) and "missing" in table:
        text = "; ".join(f"{int(r.level)} ({r.missing if isinstance(r.missing, str) and r.missing else 'no score'})"
                         for r in unranked.itertuples())
        fig.add_annotation(text=f"Not ranked (missing metrics): {text}", xref="paper", yref="paper", x=0, y=1,
                           yanchor="bottom", xanchor="left", showarrow=False, font={"size": 11, "color": "#777777"})
    fig.update_layout(title="Privacy–utility score per truncation level", hovermode="closest",
                      xaxis={"title": {"text": LEVEL_AXIS}, **({"tickmode": "array", "tickvals": levels}
                                                              if len(levels) <= 30 else {})},
                      yaxis={"title": {"text": PU_AXIS}},
                      yaxis2={"title": {"text": WINS_AXIS}, "overlaying": "y",
                              "side": "right", "range": [0, 1], "showgrid": False, "tickmode": "linear",
                              "tick0": 0, "dtick": 0.25, "tickformat": ".0%"},
                      legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"}, margin={"b": 120})
    return fig
