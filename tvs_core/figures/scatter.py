"""The privacy-utility scatter: every level and baseline as a point with its intervals."""

from __future__ import annotations

import math
from collections.abc import Collection

import plotly.graph_objects as go

from ..choice.axes import Axis
from ..evaluation.catalogue import CATALOGUE, Reference
from ..evaluation.records import FIRST_LOOK, FIRST_LOOK_ROWS, HOLDER, REAL, REFERENCE_MODELS
from ..evaluation.summary import Summary
from .style import HIGHLIGHT_COLOUR, _empty, _floats, _fmt, _padded, baseline_style, level_colour, model_label

SOURCE_WORDS = {"game": "attack game", "release": "release attack", "reference": "real data"}
# an external set (SweepConfig.externals) is one published table: the attack games refit a generator, it has none
NOT_PLAYED = "games not played (external file: no generator to refit)"


def _fit_range(core: list[float], extra: list[float]) -> list[float] | None:
    """An axis range around the TVineSynth levels (``core``), widened for reference points that lie
    close to them; a point further away than the levels' own span is left off-scale (shown by an arrow),
    so one far baseline does not squeeze every level into a band."""
    core = [v for v in core if v is not None and not math.isnan(v)]
    if not core:
        return None
    low, high = min(core), max(core)
    reach = max(high - low, 0.02 * max(abs(high), 1e-9), 1e-6)
    near = [v for v in extra if not math.isnan(v) and low - reach <= v <= high + reach]
    return _padded(core + near)


def _off_scale(fig: go.Figure, others: list, x_range, y_range) -> list[str]:
    """An arrow at the edge of the plot for each reference point outside the axes; their names."""
    names = []
    for model, _, x, y, _ in others:
        inside_x = x_range is None or x_range[0] <= x[0] <= x_range[1]
        inside_y = y_range is None or y_range[0] <= y[0] <= y_range[1]
        if inside_x and inside_y:
            continue
        ex = min(max(x[0], x_range[0]), x_range[1]) if x_range else x[0]
        ey = min(max(y[0], y_range[0]), y_range[1]) if y_range else y[0]
        below, left = y_range is not None and y[0] < y_range[0], x_range is not None and x[0] < x_range[0]
        fig.add_annotation(x=ex, y=ey, xref="x", yref="y", showarrow=True, arrowhead=2, arrowcolor="#777777",
                           ax=0 if inside_x else (30 if left else -30), ay=0 if inside_y else (-30 if below else 30),
                           text=f"{model_label(model)} ({x[0]:.3f}, {y[0]:.3f})", font={"size": 10, "color": "#555555"})
        names.append(model_label(model))
    return names


def _error(centre: list, low: list, high: list) -> dict:
    """Asymmetric error bars from an interval; a missing bound draws no bar."""
    centre, low, high = _floats(centre), _floats(low), _floats(high)
    plus = [0.0 if c is None or h is None else max(h - c, 0.0) for c, h in zip(centre, high, strict=True)]
    minus = [0.0 if c is None or lo is None else max(c - lo, 0.0) for c, lo in zip(centre, low, strict=True)]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1}


def privacy_utility_scatter(summary: Summary, privacy: str | Axis, sensitive: list[str],
                            selected_level: int | None, levels: list[int], utility: Axis | None = None,
                            externals: Collection[str] = ()) -> go.Figure:
    """Each TVineSynth level and each baseline as a point (privacy, utility) with intervals: the
    trade-off the user picks a level from. Clicks map back to a level through ``customdata``
    (the level, or None for baselines). A metric a model lacks is read from its catalogue fallback
    (the game MAB from the release attack; the hover says which); ``levels`` fixes the level colours;
    ``utility`` is the y axis (default: TSTR). ``externals`` names the sets made elsewhere (a job's
    ``config.externals``): on a game axis they are marked as not having played, never silently dropped."""
    axis = privacy if isinstance(privacy, Axis) else Axis.parse(privacy, sensitive=sensitive)
    x_title = axis.title
    utility = utility or Axis.utility(summary.metrics())
    y_title = utility.metric.label
    if summary.empty:
        return _empty("Privacy against utility", "No results yet.", x_title, y_title)
    points = []  # (model, level, (x, lo, hi), (y, lo, hi), note)
    sources, absent, not_played, first_looks = {}, [], [], set()
    game_axis = axis.metric.source == "game"
    for model in sorted(summary.models()):
        if model in REFERENCE_MODELS:
            continue
        rows = summary.model(model)
        source = axis.source_metric(rows)
        before = len(points)
        groups = [(lv, rows.level(lv)) for lv in (rows.levels() if model == HOLDER else [None])]
        for level, at in groups:
            if len(at) == 0:
                continue
            x, column = axis.value(at, sensitive, source)
            y = utility.point(at, None)
            parts = [f"worst column: {column}"] if axis.worst and column else []
            if len(at.role(FIRST_LOOK)) == len(at):
                first_looks.add(level)
                parts.insert(0, f"first look: fitted on {FIRST_LOOK_ROWS} rows, one set; replaced when the level "
                                "reports")
            if axis.metric.fallback is not None:
                parts.append(f"from the {SOURCE_WORDS[source.source]}")
                if model in externals and source != axis.metric:
                    parts.append(NOT_PLAYED)
            elif axis.metric.source == "game":
                parts.append("median over targets")
            if not (math.isnan(x[0]) or math.isnan(y[0])):
                points.append((model, level, x, y, ", ".join(parts)))
        if len(points) > before:
            sources[model] = source
        elif model in externals and game_axis and rows.metric(source.name).empty:
            not_played.append(model_label(model))
        else:
            absent.append(model_label(model))
    if not points:
        return _empty("Privacy against utility", f"No model has both the privacy metric and a {y_title} yet.",
                      x_title, y_title)

    def hover(name, x, y, note):
        extra = f" ({note})" if note else ""
        return (f"{name}<br>{x_title}: {x[0]:.3f} [{_fmt(x[1])}, {_fmt(x[2])}]{extra}"
                f"<br>{y_title}: {y[0]:.3f} [{_fmt(y[1])}, {_fmt(y[2])}]")

    fig = go.Figure()
    ours = sorted((p for p in points if p[0] == HOLDER), key=lambda p: p[1])
    if ours:
        xs, ys = [p[2] for p in ours], [p[3] for p in ours]
        x_mid, y_mid = [v[0] for v in xs], [v[0] for v in ys]
        fig.add_trace(go.Scatter(
            x=x_mid, y=y_mid, mode="lines+markers+text", name="TVineSynth (by level)",
            text=[str(p[1]) for p in ours],
            textposition=["top center" if i % 2 == 0 else "bottom center" for i in range(len(ours))],
            customdata=[int(p[1]) for p in ours], line={"color": "#cccccc", "width": 1, "dash": "dot"},
            marker={"size": 12, "color": [level_colour(p[1], levels) for p in ours],
                    "symbol": ["circle-open" if p[1] in first_looks else "circle" for p in ours],
                    "line": {"color": "white", "width": 1}},
            error_x={**_error(x_mid, [v[1] for v in xs], [v[2] for v in xs]), "color": "#999999"},
            error_y={**_error(y_mid, [v[1] for v in ys], [v[2] for v in ys]), "color": "#999999"},
            hovertext=[hover(f"TVineSynth, level {p[1]}", p[2], p[3], p[4]) for p in ours],
            hovertemplate="%{hovertext}<extra></extra>"))
    for model, _, x, y, note in (p for p in points if p[0] != HOLDER):
        symbol, colour = baseline_style(model)
        fig.add_trace(go.Scatter(
            x=[x[0]], y=[y[0]], mode="markers", name=model_label(model), customdata=[None],
            marker={"symbol": symbol, "color": colour, "size": 12, "line": {"color": colour, "width": 2}},
            error_x={**_error([x[0]], [x[1]], [x[2]]), "color": colour},
            error_y={**_error([y[0]], [y[1]], [y[2]]), "color": colour},
            hovertext=[hover(model_label(model), x, y, note)], hovertemplate="%{hovertext}<extra></extra>"))
    ideal = utility.metric.ideal
    trtr = summary.model(REAL).metric(ideal.metric).interval() if isinstance(ideal, Reference) else None
    y_core = [v for p in ours for v in p[3]]
    if trtr is not None:  # in the legend, not on the plot, where its label would sit on the level labels
        value = trtr.median
        fig.add_hline(y=value, line_dash="dash", line_color="#555555")
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"TRTR (trained on real data): {value:.3f}",
                                 line={"color": "#555555", "dash": "dash"}, customdata=[None], hoverinfo="skip"))
        y_core.append(value)
    chosen = [p for p in ours if p[1] == selected_level] if selected_level is not None else []
    if chosen:
        _, level, x, y, _ = chosen[0]
        fig.add_trace(go.Scatter(
            x=[x[0]], y=[y[0]], mode="markers", name=f"Selected: level {level}", customdata=[int(level)],
            marker={"symbol": "circle-open", "size": 26, "color": HIGHLIGHT_COLOUR, "line": {"width": 3}},
            hoverinfo="skip"))  # clicks fall through to the level's own point
    others = [p for p in points if p[0] != HOLDER]
    x_range = _fit_range([v for p in ours for v in p[2]], [p[2][0] for p in others])
    y_range = _fit_range(y_core, [p[3][0] for p in others])
    fig.update_xaxes(range=x_range)
    fig.update_yaxes(range=y_range)
    off_scale = _off_scale(fig, others, x_range, y_range)
    if axis.metric.lower_is_better and all(isinstance(a, float) for a in (axis.metric.worst, axis.metric.ideal)):
        # a fixed "learns nothing" value inside the range, e.g. MC-MIA's 0.5
        fig.add_vline(x=axis.metric.ideal, line_dash="dot", line_color="#999999")
    lower_is_private = axis.metric.lower_is_better
    fig.add_annotation(text="← more private" if lower_is_private else "more private →", xref="paper",
                       yref="paper", x=0 if lower_is_private else 1, y=0, yanchor="top", yshift=-24,
                       xanchor="left" if lower_is_private else "right", showarrow=False,
                       font={"color": "#2a7f62"})
    notes = []
    if len({m.name for m in sources.values()}) > 1:
        fallback = CATALOGUE[axis.metric.fallback]
        notes.append(f"{axis.metric.short} from the {SOURCE_WORDS[axis.metric.source]} for "
                     + ", ".join(model_label(m) for m, src in sources.items() if src == axis.metric)
                     + f"; from the {SOURCE_WORDS[fallback.source]} for the others (no game was run for them)")
    if not_played:
        notes.append(f"Not shown, {NOT_PLAYED}: {', '.join(not_played)}")
    if absent:
        notes.append(f"Not shown (metric missing): {', '.join(absent)}")
    if off_scale:
        notes.append(f"Outside the axes, at the arrows: {', '.join(off_scale)} (the axes fit the TVineSynth levels)")
    ideal = axis.metric.ideal
    if not axis.metric.lower_is_better and isinstance(ideal, float) and any(p[2][0] > ideal for p in points):
        notes.append(f"{axis.metric.short} above {ideal:g}: the attacker did worse than chance; read it as {ideal:g}")
    for i, note in enumerate(notes):
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=0, yanchor="top", yshift=-72 - 16 * i,
                           xanchor="left", showarrow=False, font={"size": 11, "color": "#777777"})
    fig.update_layout(title="Privacy against utility per truncation level", yaxis_title=y_title,
                      xaxis={"title": {"text": x_title, "standoff": 28}}, legend_title_text="Model",
                      hovermode="closest", clickmode="event+select", margin={"b": 100 + 16 * len(notes)})
    return fig
