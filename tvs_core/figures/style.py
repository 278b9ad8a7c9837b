"""What every figure shares: colours fixed per level and per baseline, readable names, plain values.

Every array handed to plotly is a plain Python list: plotly would otherwise encode numpy arrays as
base64 blobs, and click events must carry plain values (a level, or None). Colours are fixed per
truncation level (``level_colour``) and per baseline (``baseline_style``: ``BASELINE_STYLE``, and for a generator
that carries its ε a shade of its family's colour by ε), so a level or a baseline looks the same on every page. Metric
names come from the catalogue, model names from ``evaluation.records.model_label`` (the card and the report use the
same names).
"""

from __future__ import annotations

import math
from dataclasses import astuple

import pandas as pd
import plotly.colors as pcolors
import plotly.graph_objects as go

from ..evaluation.catalogue import label
from ..evaluation.records import MODEL_LABELS, model_label  # noqa: F401 (the legend's names, kept here too)
from ..model.registry import BaselineName

LEVEL_SCALE = "Viridis"
LEVEL_SCALE_END = 0.9  # Viridis' last tenth is pale yellow, unreadable on a white background
ASSOCIATION_SCALE = "Blues"
CORRELATION_SCALE = "RdBu_r"  # red = positive, blue = negative, white = 0
HIGHLIGHT_COLOUR = "#ff4b4b"  # the selected level (Streamlit's accent red)
BEST_COLOUR = "#f2b705"
REAL_COLOUR = "#1f77b4"
SYNTHETIC_COLOUR = "#ff7f0e"
ATTRIBUTE_COLOURS = pcolors.qualitative.Dark2
TARGET_KIND_COLOURS = {"outlier": "#d95f02", "random": "#7570b3"}
LEVEL_AXIS = "Truncation level t"

# name -> (marker symbol, colour) of the baselines without an ε: greys and a muted blue, which recede behind the
# coloured levels (Viridis)
BASELINE_STYLE: dict[str, tuple[str, str]] = {
    "rvine": ("diamond", "#4d4d4d"),
    "rvine_star1": ("diamond-open", "#4d4d4d"),
    "gaussian_copula": ("square", "#7f7f7f"),
    "independent": ("x", "#a6a6a6"),
    "ctgan": ("star", "#6b6b8c"),
    "tvae": ("star-open", "#6b6b8c"),
}
# a generator that carries its ε (``EPSILON_GENERATORS``): its symbol, and a colour scale outside Viridis' hues on which
# each ε gets its own shade (darker = larger ε = weaker privacy), so PrivBayes at ε 0.1, 1 and 5 are three points
EPSILON_FAMILIES: dict[str, tuple[str, str]] = {
    "dp_vine": ("triangle-up", "Oranges"),
    "privbayes": ("hexagon", "Reds"),
    "privpgd": ("pentagon", "PuRd"),
    "mst": ("pentagon-open", "YlOrBr"),
}
EPSILON_SHADES = (0.1, 10.0)  # ε from the lightest to the darkest shade, on a log scale (beyond: the ends)
SHADE_RANGE = (0.4, 0.95)  # the part of each scale used: its first 40 % is too pale on the plot's background
_FALLBACK_STYLE = ("circle-open", "#999999")


def metric_label(metric: str) -> str:
    """Readable axis title for a record metric, so no figure shows a bare code like 'mab'."""
    return label(metric)


def baseline_style(name: str) -> tuple[str, str]:
    """(marker symbol, colour) of a baseline. A generator with an ε takes its family's symbol and the shade of
    its ε (fixed by ε alone, so it is the same on every page whichever other ε a sweep ran; no ε: the
    family's middle shade); an unknown name a grey open circle."""
    parsed = BaselineName.parse(name)
    if parsed.generator in EPSILON_FAMILIES:
        symbol, scale = EPSILON_FAMILIES[parsed.generator]
        position = 0.5
        if (epsilon := parsed.epsilon) is not None:
            low, high = (math.log10(v) for v in EPSILON_SHADES)
            position = min(max((math.log10(epsilon) - low) / (high - low), 0.0), 1.0)
        start, stop = SHADE_RANGE
        return symbol, pcolors.sample_colorscale(scale, [start + (stop - start) * position])[0]
    return BASELINE_STYLE.get(parsed.generator, _FALLBACK_STYLE)


def model_order(name: str) -> tuple:
    """Sort key of a model label: by generator, then by ε as a number (ε 2 before ε 10), then the rest."""
    generator, parameter = astuple(BaselineName.parse(name))
    try:
        return generator, 0, float(parameter), ""
    except ValueError:
        return generator, 1, 0.0, parameter


def level_colour(level: int, levels: list[int]) -> str:
    """Colour of a level, by its rank among ``levels`` (pass every level of the job, so a level
    keeps its colour on every page; ranks rather than values keep neighbouring levels apart)."""
    domain = sorted({int(v) for v in levels} | {int(level)})
    position = 0.5 if len(domain) == 1 else domain.index(int(level)) / (len(domain) - 1)
    return pcolors.sample_colorscale(LEVEL_SCALE, [position * LEVEL_SCALE_END])[0]


# advance widths in em of Verdana, the widest font in plotly's default list ("Open Sans", verdana, arial, sans-serif):
# a margin sized by them holds a label whichever of those fonts the browser has (other characters: 0.8 em)
_NARROW = {**dict.fromkeys("ijl.,:;!|' ", 0.36), **dict.fromkeys("frt()[]-", 0.45)}
_WIDE = {**dict.fromkeys("mw", 1.0), "M": 1.05, "W": 1.05, **dict.fromkeys("%&@", 1.1)}
_EM = {**dict.fromkeys("abcdeghknopqsuvxyz0123456789_", 0.64), **_NARROW, **_WIDE}


def label_width(text: str, size: float) -> int:
    """The width in pixels that ``text`` needs at font ``size`` (an upper bound: see ``_EM``)."""
    return math.ceil(size * sum(_EM.get(ch, 0.8) for ch in str(text)))


def _attribute_colour(index: int) -> str:
    return ATTRIBUTE_COLOURS[index % len(ATTRIBUTE_COLOURS)]


def _floats(values) -> list[float | None]:
    """Plain floats for plotly; NaN becomes None (a gap) instead of a base64 blob or a NaN token."""
    out = []
    for v in values:
        v = float(v) if v is not None and not pd.isna(v) else math.nan
        out.append(None if math.isnan(v) else v)
    return out


def _fmt(value: float | None) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.3f}"


def _padded(values: list[float], share: float = 0.08) -> list[float]:
    """An axis range holding every value with some air, for lines that autorange ignores."""
    low, high = min(values), max(values)
    pad = (high - low) * share or abs(high) * share or 0.05
    return [low - pad, high + pad]


def _empty(title: str, message: str, x_title: str = LEVEL_AXIS, y_title: str = "Value") -> go.Figure:
    """A figure that says why it is empty rather than failing on the page."""
    fig = go.Figure()
    fig.add_annotation(text=message, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False)
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title)
    return fig
