"""The privacy-utility scatter: every level and baseline as a point with its intervals."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Collection
from dataclasses import dataclass

import plotly.graph_objects as go

from ..choice.axes import Axis
from ..choice.selection import PrivacyPoints, Selection
from ..evaluation.catalogue import CATALOGUE, Reference, Source
from ..evaluation.intervals import interval_words
from ..evaluation.records import FIRST_LOOK, FIRST_LOOK_ROWS, HOLDER, REAL, REFERENCE_MODELS
from ..evaluation.summary import Interval, Summary
from .style import HIGHLIGHT_COLOUR, _empty, _padded, baseline_style, level_colour, model_label, model_order

SOURCE_WORDS = {Source.GAME: "attack game", Source.RELEASE: "release attack", Source.REFERENCE: "real data"}
# an external set (SweepConfig.externals) is one published table: the attack games refit a generator, it has none
NOT_PLAYED = "games not played (external file: no generator to refit)"

# the layout in pixels, so that nothing overlaps whatever the number of models
TOP = 70  # the title
PLOT_HEIGHT = 400  # the plot area, at least
LEGEND_ENTRY = 21  # one legend line (plotly's legend font, 12 px, with its gap)
LEGEND_PAD = 40  # the legend's title and border
NOTE_LINE = 16  # one line of the notes under the plot
NOTE_CHARS = 130  # notes are wrapped at this many characters
# from the plot's bottom edge down: tick labels, "more private", the x axis title (its question's lines, then the
# technical name), then the notes
MORE_PRIVATE = 24  # "more private", under the tick labels
X_TITLE = 36  # the x title's distance from the tick labels (below "more private")
X_TITLE_TOP, TITLE_LINE, SUBTITLE_LINE = 47, 18, 16  # where the x title starts; its lines' heights
TITLE_CHARS = {"x": 90, "y": 50}  # an axis title's plain question is wrapped at this many characters (the y axis's
# runs along the plot's height, at least PLOT_HEIGHT)
NO_BREAK = "\u00a0"  # a space the notes are not wrapped at (inside a model's name)
BEYOND = {("x", -1): "left of", ("x", 1): "right of", ("y", -1): "below", ("y", 1): "above"}  # where, off the axes


@dataclass(frozen=True)
class _Point:
    model: str
    level: int | None
    x: Interval
    y: Interval
    column: str | None  # the sensitive column the privacy value is of (a per-column axis)
    notes: tuple[str, ...]  # how the value was obtained (fallback, first look, …)


def _fit_range(core: list[float], extra: list[float]) -> list[float] | None:
    """An axis range around the TVineSynth levels (``core``), widened for reference points that lie
    close to them; a point further away than the levels' own span is left off-scale (drawn at the edge),
    so one far baseline does not squeeze every level into a band."""
    core = [v for v in core if v is not None and not math.isnan(v)]
    if not core:
        return None
    low, high = min(core), max(core)
    reach = max(high - low, 0.02 * max(abs(high), 1e-9), 1e-6)
    near = [v for v in extra if not math.isnan(v) and low - reach <= v <= high + reach]
    return _padded(core + near)


def _side(value: float, span: list[float] | None) -> int:
    """-1 below the range, 1 above it, 0 inside (or no range)."""
    if span is None or span[0] <= value <= span[1]:
        return 0
    return -1 if value < span[0] else 1


def _error(points: list[Interval]) -> dict:
    """Asymmetric error bars from each point's interval; a missing bound draws no bar."""
    plus = [0.0 if math.isnan(p.high) else max(p.high - p.median, 0.0) for p in points]
    minus = [0.0 if math.isnan(p.low) else max(p.median - p.low, 0.0) for p in points]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1}


def _number(metric: str, where: str, value: Interval) -> str:
    """One hover line: a metric's value and its interval named for what it is (a spread of a few values is not a
    95 % interval)."""
    return (f"{metric}{where}: {value.median:.3f} — "
            f"{interval_words(value.low, value.high, value.n if value.n else None, digits=3)}")


def _wrapped(notes: list[str]) -> list[str]:
    """The notes as lines short enough for the plot's width (one annotation per line, so each line's place is
    known and none covers another)."""
    return [line.replace(NO_BREAK, " ") for note in notes
            for line in textwrap.wrap(note, NOTE_CHARS, subsequent_indent="   ")]


def _unbroken(name: str) -> str:
    """A model's name that ``_wrapped`` does not split."""
    return name.replace(" ", NO_BREAK)


def _title(plain: str, technical: str, axis: str) -> str:
    """An axis title: the plain question, and under it, smaller, the technical name statisticians check."""
    return ("<br>".join(textwrap.wrap(plain, TITLE_CHARS[axis]))
            + f"<br><span style='font-size:11px;color:#666666'>{technical}</span>")


def privacy_utility_scatter(summary: Summary, privacy: Axis, sensitive: list[str],
                            selected_level: int | None, levels: list[int], utility: Axis | None = None,
                            externals: Collection[str] = (), selection: Selection | None = None) -> go.Figure:
    """Each TVineSynth level and each baseline as a point (privacy, utility) with intervals: the
    trade-off the user picks a level from. Clicks map back to a level through ``customdata``
    (the level, or None for baselines). A metric a model lacks is read from its catalogue fallback
    (the game MAB from the release attack; the hover says which); ``levels`` fixes the level colours;
    ``utility`` is the y axis (default: TSTR). ``externals`` names the sets made elsewhere (a job's
    ``config.externals``): on a game axis they are marked as not having played, never silently dropped.
    ``selection`` (the level choice at hand, on the same privacy axis): on a worst-column axis each level
    shows the column that decides its P, as the card does; without one the columns are scaled by the same
    anchors (``choice.selection.PrivacyPoints``), so the figure never names another column than the card."""
    axis = privacy.among(sensitive)
    utility = utility or Axis.utility(summary.metrics())
    x_title, y_title = _title(axis.question, axis.title, "x"), _title(utility.question, utility.metric.label, "y")
    if summary.empty:
        return _empty("Privacy against utility", "No results yet.", x_title, y_title)
    points: list[_Point] = []
    sources, absent, not_played, first_looks = {}, [], [], set()
    game_axis = axis.metric.source is Source.GAME
    privacy_of = PrivacyPoints(summary, axis, sensitive, selection)
    for model in sorted(summary.models(), key=model_order):
        if model in REFERENCE_MODELS:
            continue
        rows = summary.model(model)
        source = axis.source_metric(rows)
        before = len(points)
        groups = [(lv, rows.level(lv)) for lv in (rows.levels() if model == HOLDER else [None])]
        for level, at in groups:
            if len(at) == 0:
                continue
            x, column = privacy_of.of(rows, level)
            y = utility.interval(at, None)
            notes = []
            if len(at.role(FIRST_LOOK)) == len(at):
                first_looks.add(level)
                notes.append(f"first look: fitted on {FIRST_LOOK_ROWS} rows, one set; replaced when the level "
                             "reports")
            if axis.metric.fallback is not None:
                notes.append(f"from the {SOURCE_WORDS[source.source]}")
                if model in externals and source != axis.metric:
                    notes.append(NOT_PLAYED)
            elif axis.metric.source is Source.GAME:
                notes.append("median over targets")
            if x is not None and y is not None and not (math.isnan(x.median) or math.isnan(y.median)):
                points.append(_Point(model, level, x, y, column, tuple(notes)))
        if len(points) > before:
            sources[model] = source
        elif model in externals and game_axis and rows.metric(source.name).empty:
            not_played.append(model_label(model))
        else:
            absent.append(model_label(model))
    if not points:
        return _empty("Privacy against utility", f"No model has both the privacy metric and a "
                      f"{utility.metric.label} yet.", x_title, y_title)

    ours = sorted((p for p in points if p.level is not None), key=lambda p: p.level)  # only levels have one
    others = [p for p in points if p.level is None]
    ideal = utility.metric.ideal
    trtr = summary.model(REAL).metric(ideal.metric).interval() if isinstance(ideal, Reference) else None
    y_core = [v for p in ours for v in (p.y.median, p.y.low, p.y.high)] + ([trtr.median] if trtr else [])
    x_range = _fit_range([v for p in ours for v in (p.x.median, p.x.low, p.x.high)], [p.x.median for p in others])
    y_range = _fit_range(y_core, [p.y.median for p in others])

    def hover(name: str, p: _Point, outside: str = "") -> str:
        where = ""
        if p.column and axis.worst:
            where = f" of {p.column} (the least protected sensitive column)"
        elif p.column:
            where = f" of {p.column}"
        lines = [f"<b>{name}</b>", _number(sources[p.model].short, where, p.x),
                 _number(utility.metric.short, "", p.y)]
        if p.notes:
            lines.append(f"<i>{'; '.join(p.notes)}</i>")
        if outside:
            lines.append(f"<i>outside the axes ({outside} them): drawn at their edge</i>")
        return "<br>".join(lines)

    fig = go.Figure()
    if ours:
        x_mid, y_mid = [p.x.median for p in ours], [p.y.median for p in ours]
        fig.add_trace(go.Scatter(
            x=x_mid, y=y_mid, mode="lines+markers+text", name="TVineSynth (by level)",
            text=[str(p.level) for p in ours],
            textposition=["top center" if i % 2 == 0 else "bottom center" for i in range(len(ours))],
            customdata=[int(p.level) for p in ours], line={"color": "#cccccc", "width": 1, "dash": "dot"},
            marker={"size": 12, "color": [level_colour(p.level, levels) for p in ours],
                    "symbol": ["circle-open" if p.level in first_looks else "circle" for p in ours],
                    "line": {"color": "white", "width": 1}},
            error_x={**_error([p.x for p in ours]), "color": "#999999"},
            error_y={**_error([p.y for p in ours]), "color": "#999999"},
            hovertext=[hover(f"TVineSynth, level {p.level}", p) for p in ours],
            hovertemplate="%{hovertext}<extra></extra>"))
    off_scale = []
    for p in others:
        symbol, colour = baseline_style(p.model)
        side = (_side(p.x.median, x_range), _side(p.y.median, y_range))
        shown_x = p.x.median if not side[0] else x_range[0 if side[0] < 0 else 1]
        shown_y = p.y.median if not side[1] else y_range[0 if side[1] < 0 else 1]
        outside = " and ".join(BEYOND[(name, s)] for name, s in zip("xy", side, strict=True) if s)
        marker = {"symbol": symbol, "color": colour, "size": 12, "line": {"color": colour, "width": 2}}
        if outside:  # at the edge, where its interval would mislead: no error bars, and it may overlap the frame
            off_scale.append(model_label(p.model))
            fig.add_trace(go.Scatter(x=[shown_x], y=[shown_y], mode="markers", name=model_label(p.model),
                                     customdata=[None], marker=marker, cliponaxis=False,
                                     hovertext=[hover(model_label(p.model), p, outside)],
                                     hovertemplate="%{hovertext}<extra></extra>"))
            # an arrow (no text, so nothing to collide) from inside the plot to the point, pointing the way it lies
            fig.add_annotation(x=shown_x, y=shown_y, xref="x", yref="y", text="", showarrow=True, arrowhead=2,
                               arrowsize=1, arrowwidth=1.5, arrowcolor=colour, standoff=7,
                               ax=-26 * side[0], ay=26 * side[1])
            continue
        fig.add_trace(go.Scatter(
            x=[p.x.median], y=[p.y.median], mode="markers", name=model_label(p.model), customdata=[None],
            marker=marker, error_x={**_error([p.x]), "color": colour},
            error_y={**_error([p.y]), "color": colour},
            hovertext=[hover(model_label(p.model), p)], hovertemplate="%{hovertext}<extra></extra>"))
    if trtr is not None:  # in the legend, not on the plot, where its label would sit on the level labels
        value = trtr.median
        fig.add_hline(y=value, line_dash="dash", line_color="#555555")
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"TRTR (trained on real data): {value:.3f}",
                                 line={"color": "#555555", "dash": "dash"}, customdata=[None], hoverinfo="skip"))
    chosen = [p for p in ours if p.level == selected_level] if selected_level is not None else []
    if chosen:
        p = chosen[0]
        fig.add_trace(go.Scatter(
            x=[p.x.median], y=[p.y.median], mode="markers", name=f"Selected: level {p.level}",
            customdata=[int(p.level)],
            marker={"symbol": "circle-open", "size": 26, "color": HIGHLIGHT_COLOUR, "line": {"width": 3}},
            hoverinfo="skip"))  # clicks fall through to the level's own point
    fig.update_xaxes(range=x_range)
    fig.update_yaxes(range=y_range)
    if axis.metric.lower_is_better and all(isinstance(a, float) for a in (axis.metric.worst, axis.metric.ideal)):
        # a fixed "learns nothing" value inside the range, e.g. MC-MIA's 0.5
        fig.add_vline(x=axis.metric.ideal, line_dash="dot", line_color="#999999")
    lower_is_private = axis.metric.lower_is_better
    fig.add_annotation(text="← more private" if lower_is_private else "more private →", xref="paper",
                       yref="paper", x=0 if lower_is_private else 1, y=0, yanchor="top", yshift=-MORE_PRIVATE,
                       xanchor="left" if lower_is_private else "right", showarrow=False,
                       font={"color": "#2a7f62"})
    notes = []
    if len({m.name for m in sources.values()}) > 1:
        fallback = CATALOGUE[axis.metric.fallback]
        notes.append(f"{axis.metric.short} from the {SOURCE_WORDS[axis.metric.source]} for "
                     + ", ".join(model_label(m) for m, src in sources.items() if src == axis.metric)
                     + f"; from the {SOURCE_WORDS[fallback.source]} for the others (no game was run for them)")
    if axis.worst and len(sensitive) > 1:
        notes.append("Each point shows its least protected sensitive column: the one with the lowest privacy score "
                     "once every column is scaled between its own anchors (the column the recommendation names; "
                     "the hover says which)")
    if not_played:
        notes.append(f"Not shown, {NOT_PLAYED}: {', '.join(map(_unbroken, not_played))}")
    if absent:
        notes.append(f"Not shown (metric missing): {', '.join(map(_unbroken, absent))}")
    if off_scale:
        notes.append(f"Outside the axes, drawn at the edge with an arrow (the axes fit the TVineSynth levels; the "
                     f"hover gives their values): {', '.join(map(_unbroken, off_scale))}")
    ideal = axis.metric.ideal
    if not axis.metric.lower_is_better and isinstance(ideal, float) and any(p.x.median > ideal for p in points):
        notes.append(f"{axis.metric.short} above {ideal:g}: the attacker did worse than chance; read it as {ideal:g}")
    lines = _wrapped(notes)
    notes_top = X_TITLE_TOP + TITLE_LINE * x_title.count("<br>") + SUBTITLE_LINE + 12
    for i, line in enumerate(lines):
        fig.add_annotation(text=line, xref="paper", yref="paper", x=0, y=0, yanchor="top",
                           yshift=-notes_top - NOTE_LINE * i, xanchor="left", showarrow=False,
                           font={"size": 11, "color": "#777777"})
    entries = sum(trace.showlegend is not False for trace in fig.data)
    bottom = notes_top + NOTE_LINE * len(lines) + 12
    plot = max(PLOT_HEIGHT, LEGEND_ENTRY * entries + LEGEND_PAD)  # the legend's every entry fits beside the plot
    fig.update_layout(title="Privacy against utility per truncation level", height=TOP + plot + bottom,
                      xaxis={"title": {"text": x_title, "standoff": X_TITLE}}, yaxis_title=y_title,
                      legend={"title": {"text": "Model"}, "orientation": "v", "x": 1.02, "xanchor": "left",
                              "y": 1, "yanchor": "top", "itemsizing": "constant"},
                      hoverlabel={"align": "left"}, hovermode="closest", clickmode="event+select",
                      margin={"t": TOP, "b": bottom})
    return fig
