"""The privacy-utility scatter: every level and baseline as a point with its intervals."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import plotly.graph_objects as go

from ..choice.axes import Axis
from ..choice.selection import MORE_REVEALING, PrivacyPoints, Selection
from ..evaluation.catalogue import CATALOGUE, Metric, Reference, Source
from ..evaluation.intervals import Interval
from ..evaluation.records import FIRST_LOOK_ROWS, HOLDER, REAL, REFERENCE_MODELS, RecordRole
from ..evaluation.summary import Summary
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
    plus = [0.0 if math.isnan(p.high) else max(p.high - p.value, 0.0) for p in points]
    minus = [0.0 if math.isnan(p.low) else max(p.value - p.low, 0.0) for p in points]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1}


def _number(metric: str, where: str, value: Interval) -> str:
    """One hover line: a metric's value and its interval named for what it is (a spread of a few values is not a
    95 % interval)."""
    return f"{metric}{where}: {value.value:.3f} — {value.words(3)}"


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


@dataclass(frozen=True)
class _ReadPoints:
    """What the scatter draws, and what it must say it left out, read once from the summary."""
    ours: list[_Point]  # the TVineSynth levels, by level
    others: list[_Point]  # baselines, competitors and external sets
    sources: dict[str, Metric]  # model -> the metric its privacy value was read from (the axis's or its fallback)
    first_looks: dict[int, int]  # levels whose only results are the first look -> the sets it drew
    first_numbers: dict[int, tuple[int, int]]  # levels drawn from their first numbers -> (sets scored, planned)
    absent: list[str]  # labels of models without both values
    not_played: list[str]  # labels of external sets that could not play the axis's game

    @property
    def all(self) -> list[_Point]:
        return self.ours + self.others


def first_look_words(sets: int) -> str:
    """A first-look point in words: the legend's entry and the hover's note say it alike."""
    return f"first look: {sets} set{'' if sets == 1 else 's'} of a model fitted on {FIRST_LOOK_ROWS} rows"


def first_numbers_words(scored: int, planned: int) -> str:
    """A level's first numbers in words (``first_numbers``): the legend, the hover and the Choose page's card."""
    return f"first numbers: {scored} of {planned} sets"


def _point_notes(axis: Axis, source: Metric, first_look: int | None, sets: tuple[int, int] | None,
                 external: bool) -> list[str]:
    """How one point's privacy value was obtained, for its hover: a steward reading a fallback, a first look (its
    sets) or first numbers (``sets``: scored, planned) must not take it for the full game or every set."""
    notes = []
    if first_look is not None:
        notes.append(f"{first_look_words(first_look)}, provisional; replaced by the level's own numbers")
    elif sets is not None:
        notes.append(f"{first_numbers_words(*sets)}, provisional; refined as the rest report")
    if axis.metric.fallback is not None:
        notes.append(f"from the {SOURCE_WORDS[source.source]}")
        if external and source != axis.metric:
            notes.append(NOT_PLAYED)
    elif axis.metric.source is Source.GAME:
        notes.append("median over targets")
    return notes


def _read_points(summary: Summary, axis: Axis, utility: Axis, sensitive: list[str], externals: Collection[str],
                 selection: Selection | None, sets_scored: Mapping[int, tuple[int, int]]) -> _ReadPoints:
    """Every model's points with the metric each privacy value came from. A model without both values is kept by
    name (for a note), never silently dropped; an external set on a game axis is named as not having played."""
    points: list[_Point] = []
    sources, absent, not_played, first_looks, first_numbers = {}, [], [], {}, {}
    game_axis = axis.metric.source is Source.GAME
    privacy_of = PrivacyPoints(summary, axis, sensitive, selection)
    for model in sorted(summary.models(), key=model_order):
        if model in REFERENCE_MODELS:
            continue
        rows = summary.model(model)
        source = axis.source_metric(rows)
        before = len(points)
        for level in (rows.levels() if model == HOLDER else [None]):
            at = rows.level(level)
            if len(at) == 0:
                continue
            x, column = privacy_of.of(rows, level)
            y = utility.interval(at, None)
            looked = at.role(RecordRole.FIRST_LOOK)
            first_look = int(looked.frame["n"].max()) if len(looked) == len(at) else None
            scored, planned = sets_scored.get(level, (0, 0)) if model == HOLDER else (0, 0)
            sets = (scored, planned) if first_look is None and 0 < scored < planned else None
            if first_look is not None:
                first_looks[level] = first_look
            elif sets is not None:
                first_numbers[level] = sets
            notes = _point_notes(axis, source, first_look, sets, model in externals)
            if x is not None and privacy_of.more_revealing(rows, level, x, column):
                notes.insert(0, f"{MORE_REVEALING}: the attack does better on it than on the real rows")
            if x is not None and y is not None and not (math.isnan(x.value) or math.isnan(y.value)):
                points.append(_Point(model, level, x, y, column, tuple(notes)))
        if len(points) > before:
            sources[model] = source
        elif model in externals and game_axis and rows.metric(source.name).empty:
            not_played.append(model_label(model))
        else:
            absent.append(model_label(model))
    ours = sorted((p for p in points if p.level is not None), key=lambda p: p.level)  # only levels have one
    return _ReadPoints(ours, [p for p in points if p.level is None], sources,
                       {p.level: first_looks[p.level] for p in ours if p.level in first_looks},
                       {p.level: first_numbers[p.level] for p in ours if p.level in first_numbers}, absent, not_played)


def _axis_ranges(read: _ReadPoints, trtr: Interval | None) -> tuple[list[float] | None, list[float] | None]:
    """The x and y ranges: fitted to the levels (and the TRTR line), so one far baseline does not squeeze them."""
    ours, others = read.ours, read.others
    y_core = [v for p in ours for v in (p.y.value, p.y.low, p.y.high)] + ([trtr.value] if trtr else [])
    x_range = _fit_range([v for p in ours for v in (p.x.value, p.x.low, p.x.high)], [p.x.value for p in others])
    return x_range, _fit_range(y_core, [p.y.value for p in others])


@dataclass(frozen=True)
class _Hover:
    """A point's hover: both values with their intervals named for what they are, the privacy value's column and
    source, and how the point was obtained."""
    axis: Axis
    utility: Axis
    sources: dict[str, Metric]

    def __call__(self, name: str, p: _Point, outside: str = "") -> str:
        where = ""
        if p.column and self.axis.worst:
            where = f" of {p.column} (the least protected sensitive column)"
        elif p.column:
            where = f" of {p.column}"
        lines = [f"<b>{name}</b>", _number(self.sources[p.model].short, where, p.x),
                 _number(self.utility.metric.short, "", p.y)]
        if p.notes:
            lines.append(f"<i>{'; '.join(p.notes)}</i>")
        if outside:
            lines.append(f"<i>outside the axes ({outside} them): drawn at their edge</i>")
        return "<br>".join(lines)


FIRST_LOOK_SYMBOL, FIRST_NUMBERS_SYMBOL = "circle-open", "circle-open-dot"  # provisional points; final: "circle"


def _add_levels(fig: go.Figure, ours: list[_Point], levels: list[int], read: _ReadPoints, hover: _Hover) -> None:
    """The TVineSynth levels as one dotted line of numbered points with their intervals; a click on one gives its
    level (``customdata``). A first look is an open circle, first numbers an open circle with a dot: each has its
    legend entry as provisional (``_add_provisional``)."""
    if not ours:
        return

    def symbol(level: int) -> str:
        return (FIRST_LOOK_SYMBOL if level in read.first_looks else
                FIRST_NUMBERS_SYMBOL if level in read.first_numbers else "circle")
    fig.add_trace(go.Scatter(
        x=[p.x.value for p in ours], y=[p.y.value for p in ours], mode="lines+markers+text",
        name="TVineSynth (by level)", text=[str(p.level) for p in ours],
        textposition=["top center" if i % 2 == 0 else "bottom center" for i in range(len(ours))],
        customdata=[int(p.level) for p in ours], line={"color": "#cccccc", "width": 1, "dash": "dot"},
        marker={"size": 12, "color": [level_colour(p.level, levels) for p in ours],
                "symbol": [symbol(p.level) for p in ours],
                "line": {"color": "white", "width": 1}},
        error_x={**_error([p.x for p in ours]), "color": "#999999"},
        error_y={**_error([p.y for p in ours]), "color": "#999999"},
        hovertext=[hover(f"TVineSynth, level {p.level}", p) for p in ours],
        hovertemplate="%{hovertext}<extra></extra>"))


def _add_provisional(fig: go.Figure, read: _ReadPoints) -> None:
    """A legend entry for each kind of provisional point the levels show, saying on how many sets it rests (legend
    only: the points are the levels' own, clicked as any)."""
    def span(values) -> str:
        low, high = min(values), max(values)
        return f"{low}" if low == high else f"{low}–{high}"

    entries = []
    if read.first_looks:
        sets = list(read.first_looks.values())
        entries.append((FIRST_LOOK_SYMBOL, f"Provisional — {first_look_words(max(sets))}"))
    if read.first_numbers:
        scored, planned = zip(*read.first_numbers.values(), strict=True)
        entries.append((FIRST_NUMBERS_SYMBOL, f"Provisional — first numbers: {span(scored)} of {span(planned)} sets"))
    for symbol, name in entries:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name, customdata=[None],
                                 marker={"symbol": symbol, "size": 12, "color": "#777777"}, hoverinfo="skip"))


def _add_baselines(fig: go.Figure, others: list[_Point], x_range: list[float] | None,
                   y_range: list[float] | None, hover: _Hover) -> list[str]:
    """Each baseline as its own legend entry. One outside the axes is drawn at their edge with an arrow pointing
    the way it lies and no error bars (its interval would mislead there); their labels are returned for a note."""
    off_scale = []
    for p in others:
        symbol, colour = baseline_style(p.model)
        side = (_side(p.x.value, x_range), _side(p.y.value, y_range))
        marker = {"symbol": symbol, "color": colour, "size": 12, "line": {"color": colour, "width": 2}}
        outside = " and ".join(BEYOND[(name, s)] for name, s in zip("xy", side, strict=True) if s)
        if not outside:
            fig.add_trace(go.Scatter(
                x=[p.x.value], y=[p.y.value], mode="markers", name=model_label(p.model), customdata=[None],
                marker=marker, error_x={**_error([p.x]), "color": colour},
                error_y={**_error([p.y]), "color": colour},
                hovertext=[hover(model_label(p.model), p)], hovertemplate="%{hovertext}<extra></extra>"))
            continue
        shown_x = p.x.value if not side[0] else x_range[0 if side[0] < 0 else 1]
        shown_y = p.y.value if not side[1] else y_range[0 if side[1] < 0 else 1]
        off_scale.append(model_label(p.model))
        fig.add_trace(go.Scatter(x=[shown_x], y=[shown_y], mode="markers", name=model_label(p.model),
                                 customdata=[None], marker=marker, cliponaxis=False,
                                 hovertext=[hover(model_label(p.model), p, outside)],
                                 hovertemplate="%{hovertext}<extra></extra>"))
        # an arrow (no text, so nothing to collide) from inside the plot to the point, pointing the way it lies
        fig.add_annotation(x=shown_x, y=shown_y, xref="x", yref="y", text="", showarrow=True, arrowhead=2,
                           arrowsize=1, arrowwidth=1.5, arrowcolor=colour, standoff=7,
                           ax=-26 * side[0], ay=26 * side[1])
    return off_scale


def _add_trtr(fig: go.Figure, trtr: Interval | None) -> None:
    """The model trained on real data as a dashed line, named in the legend, not on the plot, where its label
    would sit on the level labels."""
    if trtr is None:
        return
    fig.add_hline(y=trtr.value, line_dash="dash", line_color="#555555")
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"TRTR (trained on real data): {trtr.value:.3f}",
                             line={"color": "#555555", "dash": "dash"}, customdata=[None], hoverinfo="skip"))


def _add_selected_ring(fig: go.Figure, ours: list[_Point], selected_level: int | None) -> None:
    """A ring around the chosen level, drawn last so it sits over the level's point; clicks fall through to it."""
    chosen = [p for p in ours if p.level == selected_level] if selected_level is not None else []
    if not chosen:
        return
    p = chosen[0]
    fig.add_trace(go.Scatter(
        x=[p.x.value], y=[p.y.value], mode="markers", name=f"Selected: level {p.level}",
        customdata=[int(p.level)],
        marker={"symbol": "circle-open", "size": 26, "color": HIGHLIGHT_COLOUR, "line": {"width": 3}},
        hoverinfo="skip"))


def _add_privacy_direction(fig: go.Figure, metric: Metric) -> None:
    """Which way is more private, under the x axis; and for a score with a fixed "learns nothing" value (MC-MIA's
    0.5), a dotted line there."""
    if metric.lower_is_better and all(isinstance(a, float) for a in (metric.worst, metric.ideal)):
        fig.add_vline(x=metric.ideal, line_dash="dot", line_color="#999999")
    lower_is_private = metric.lower_is_better
    fig.add_annotation(text="← more private" if lower_is_private else "more private →", xref="paper",
                       yref="paper", x=0 if lower_is_private else 1, y=0, yanchor="top", yshift=-MORE_PRIVATE,
                       xanchor="left" if lower_is_private else "right", showarrow=False,
                       font={"color": "#2a7f62"})


def _notes(axis: Axis, sensitive: list[str], read: _ReadPoints, off_scale: list[str]) -> list[str]:
    """The notes under the plot: where values came from, and every model not shown or not where it lies."""
    notes = []
    if len({m.name for m in read.sources.values()}) > 1:
        fallback = CATALOGUE[axis.metric.fallback]
        notes.append(f"{axis.metric.short} from the {SOURCE_WORDS[axis.metric.source]} for "
                     + ", ".join(model_label(m) for m, src in read.sources.items() if src == axis.metric)
                     + f"; from the {SOURCE_WORDS[fallback.source]} for the others (no game was run for them)")
    if axis.worst and len(sensitive) > 1:
        notes.append("Each point shows its least protected sensitive column: the one with the lowest privacy score "
                     "once every column is scaled between its own anchors (the column the recommendation names; "
                     "the hover says which)")
    revealing = [f"level {p.level}" if p.level is not None else _unbroken(model_label(p.model)) for p in read.all
                 if p.notes and p.notes[0].startswith(MORE_REVEALING)]
    if revealing:
        notes.append(f"{MORE_REVEALING[0].upper() + MORE_REVEALING[1:]} (the attack does better on them than on the "
                     f"real rows; ranked below every level on the scale): {', '.join(revealing)}")
    if read.first_looks or read.first_numbers:
        kinds = [kind for kind, levels in (("open circles: a first look on a sample", read.first_looks),
                                           ("circles with a dot: a level's first numbers", read.first_numbers))
                 if levels]
        notes.append(f"Provisional points ({'; '.join(kinds)}) may move as the sweep refines them: the legend says "
                     "on how many sets they rest; solid circles are final")
    if read.not_played:
        notes.append(f"Not shown, {NOT_PLAYED}: {', '.join(map(_unbroken, read.not_played))}")
    if read.absent:
        notes.append(f"Not shown (metric missing): {', '.join(map(_unbroken, read.absent))}")
    if off_scale:
        notes.append(f"Outside the axes, drawn at the edge with an arrow (the axes fit the TVineSynth levels; the "
                     f"hover gives their values): {', '.join(map(_unbroken, off_scale))}")
    ideal = axis.metric.ideal
    if not axis.metric.lower_is_better and isinstance(ideal, float) and any(p.x.value > ideal for p in read.all):
        notes.append(f"{axis.metric.short} above {ideal:g}: the attacker did worse than chance; read it as {ideal:g}")
    return notes


def _lay_out(fig: go.Figure, x_title: str, y_title: str, notes: list[str]) -> None:
    """The notes one line per annotation under the x title, and a height that fits the plot, every legend entry
    beside it and every note line, so nothing overlaps whatever the number of models."""
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


def privacy_utility_scatter(summary: Summary, privacy: Axis, sensitive: list[str],
                            selected_level: int | None, levels: list[int], utility: Axis | None = None,
                            externals: Collection[str] = (), selection: Selection | None = None,
                            sets_scored: Mapping[int, tuple[int, int]] | None = None) -> go.Figure:
    """Each TVineSynth level and each baseline as a point (privacy, utility) with intervals: the
    trade-off the user picks a level from. Clicks map back to a level through ``customdata``
    (the level, or None for baselines). A metric a model lacks is read from its catalogue fallback
    (the game MAB from the release attack; the hover says which); ``levels`` fixes the level colours;
    ``utility`` is the y axis (default: TSTR). ``externals`` names the sets made elsewhere (a job's
    ``config.externals``): on a game axis they are marked as not having played, never silently dropped.
    ``selection`` (the level choice at hand, on the same privacy axis): on a worst-column axis each level
    shows the column that decides its P, as the card does; without one the columns are scaled by the same
    anchors (``choice.selection.PrivacyPoints``), so the figure never names another column than the card.
    ``sets_scored`` (``JobView.sets_scored``: level -> sets scored, planned): a level with fewer scored than planned
    is drawn as first numbers, provisional, as a first look is."""
    axis = privacy.among(sensitive)
    utility = utility or Axis.utility(summary.metrics())
    x_title, y_title = _title(axis.question, axis.title, "x"), _title(utility.question, utility.metric.label, "y")
    if summary.empty:
        return _empty("Privacy against utility", "No results yet.", x_title, y_title)
    read = _read_points(summary, axis, utility, sensitive, externals, selection, sets_scored or {})
    if not read.all:
        return _empty("Privacy against utility", f"No model has both the privacy metric and a "
                      f"{utility.metric.label} yet.", x_title, y_title)
    ideal = utility.metric.ideal
    trtr = summary.model(REAL).metric(ideal.metric).interval() if isinstance(ideal, Reference) else None
    x_range, y_range = _axis_ranges(read, trtr)
    hover = _Hover(axis, utility, read.sources)
    fig = go.Figure()
    _add_levels(fig, read.ours, levels, read, hover)
    _add_provisional(fig, read)
    off_scale = _add_baselines(fig, read.others, x_range, y_range, hover)
    _add_trtr(fig, trtr)
    _add_selected_ring(fig, read.ours, selected_level)
    fig.update_xaxes(range=x_range)
    fig.update_yaxes(range=y_range)
    _add_privacy_direction(fig, axis.metric)
    _lay_out(fig, x_title, y_title, _notes(axis, sensitive, read, off_scale))
    return fig
