"""Figures of the Sensitive-features step: the association heatmap in Algorithm-1 order and the
Theorem-2.4 risk preview."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..model.ordering import Measure, OrderResult
from .style import ASSOCIATION_SCALE, LEVEL_AXIS, _attribute_colour, _floats, label_width

MEASURE_NAMES = {Measure.KENDALL: "Kendall's τ", Measure.SPEARMAN: "Spearman's ρ", Measure.PEARSON: "Pearson's r"}
BLOCK_NAMES = {"S": "S: sensitive", "K": "K: linked to S", "rest": "rest", "Y": "Y: response"}


SQUARE_UP_TO = 40  # up to this many columns the matrix is square and fits the page's width
ROW_PX = 13  # beyond, each row keeps this height (its label readable at TALL_FONT) and the figure grows
TALL_FONT = 9
FOCUS_NEIGHBOURS = 12  # the focus view: S, K, this many other covariates (the most associated with S and K) and Y
TITLE_PX, BLOCKS_PX = 60, 50  # above the matrix: the title, then the block names
AXIS_TITLE_PX = 34  # an axis title beside its tick labels


def heatmap_font(columns: int) -> int:
    """The tick labels' font size: smaller as the matrix grows, never below what a row of ``ROW_PX`` holds."""
    return 11 if columns <= 20 else 10 if columns <= SQUARE_UP_TO else TALL_FONT


def focus_columns(assoc: pd.DataFrame, order: OrderResult, neighbours: int = FOCUS_NEIGHBOURS) -> list[str]:
    """S, K, the ``neighbours`` other covariates most associated with the sensitive block (their largest
    |association| with a column of S or K) and Y, in C-vine order: what Algorithm 1 put in the block, and what
    just missed it."""
    block = [*order.sensitive, *order.K]
    strength = assoc.loc[order.rest, block].abs().max(axis=1) if block and order.rest else pd.Series(dtype=float)
    kept = set(strength.sort_values(ascending=False, kind="stable").index[:neighbours])
    return [c for c in order.order if c in block or c in kept or c == order.response]


def _blocks(names: list[str], order: OrderResult) -> dict[str, tuple[int, int]]:
    """Half-open position ranges of the S | K | rest | Y blocks among ``names`` (every column, or a focus)."""
    members = {"S": set(order.sensitive), "K": set(order.K), "rest": set(order.rest), "Y": {order.response}}
    out = {}
    for block, columns in members.items():
        where = [i for i, name in enumerate(names) if name in columns]
        out[block] = (where[0], where[-1] + 1) if where else (0, 0)
    return out


def association_heatmap(assoc: pd.DataFrame, order: OrderResult | None, measure: Measure | None,
                        title: str | None = None, focus: int | None = None) -> go.Figure:
    """|association| in C-vine order with the S | K | rest | Y blocks outlined: shows at a glance
    which covariates Algorithm 1 put next to the sensitive block and why. The block names sit above the matrix,
    where they cover no cell; ``focus``: only S, K, that many other covariates (``focus_columns``) and Y.

    Every label is whole: the margins are sized for the longest at its font (``label_width``). Up to
    ``SQUARE_UP_TO`` columns every column is labelled on a square matrix; a wider one grows downwards, a row of
    ``ROW_PX`` per column, every row labelled and the columns' labels thinned by plotly where they would
    overlap (zoom in to read them all; the hover names both columns)."""
    names = list(assoc.columns)
    if order is not None:
        missing = [c for c in order.order if c not in assoc.columns]
        if missing:
            raise ValueError(f"the association matrix lacks ordered columns: {', '.join(missing)}")
        names = list(order.order)  # columns outside the order are not modelled: left out
        if focus is not None:
            names = focus_columns(assoc, order, focus)
    elif focus is not None:
        raise ValueError("a focus view needs the order: it shows the sensitive block")
    signed = assoc.loc[names, names].to_numpy(dtype=float)
    label = f"|{MEASURE_NAMES.get(measure, 'association')}|"  # None: an explicit order's (read from no measure)
    if title is None:
        where = "in Algorithm-1 order" if order is not None else "in the table order"
        title = (f"{label} of the sensitive block and the {len(names) - len(order.sensitive) - len(order.K) - 1} "
                 f"covariates most associated with it (of {len(order.order)} columns)" if focus is not None else
                 f"{label} {where}")
    fig = go.Figure(go.Heatmap(
        z=np.abs(signed).tolist(), x=names, y=names, customdata=signed.tolist(), zmin=0, zmax=1,
        colorscale=ASSOCIATION_SCALE, colorbar={"title": {"text": label}},
        hovertemplate="%{y} × %{x}: %{z:.3f} (signed %{customdata:.3f})<extra></extra>"))
    if order is not None:
        blocks = _blocks(names, order)
        for block, (start, stop) in blocks.items():
            if stop <= start:
                continue  # an empty block (e.g. no K) has no rectangle
            fig.add_shape(type="rect", xref="x", yref="y", x0=start - 0.5, x1=stop - 0.5, y0=start - 0.5,
                          y1=stop - 0.5, line={"color": "#d62728", "width": 2}, fillcolor="rgba(0,0,0,0)",
                          name=block)
            shown = stop - start
            hover = (f"rest: the {shown} other covariates most associated with S and K, of {len(order.rest)}"
                     if block == "rest" and shown < len(order.rest) else BLOCK_NAMES[block])
            fig.add_annotation(x=(start + stop - 1) / 2, y=1.0, xref="x", yref="paper", yanchor="bottom",
                               text=f"<b>{block}</b>", hovertext=hover, showarrow=False, font={"color": "#d62728"})
    size = heatmap_font(len(names))
    longest = max(label_width(name, size) for name in names)
    square = len(names) <= SQUARE_UP_TO
    every = {"tickmode": "array", "tickvals": names, "ticktext": names}
    margin = {"t": TITLE_PX + BLOCKS_PX, "l": longest + AXIS_TITLE_PX, "b": longest + AXIS_TITLE_PX}
    plot = max(500 - margin["t"] - margin["b"], 22 * len(names)) if square else ROW_PX * len(names)
    fig.update_layout(title={"text": title}, margin=margin, plot_bgcolor="white",
                      height=margin["t"] + plot + margin["b"],
                      xaxis={"title": {"text": "Column (C-vine order)" if order else "Column"}, "tickangle": -90,
                             "side": "bottom", "tickfont": {"size": size}, "automargin": True,
                             **(every if square else {"tickmode": "auto"}),
                             **({"constrain": "domain"} if square else {})},
                      yaxis={"title": {"text": "Column"}, "autorange": "reversed", "tickfont": {"size": size},
                             "automargin": True, **every,
                             **({"scaleanchor": "x", "scaleratio": 1, "constrain": "domain"} if square else {})})
    return fig


def preview_curve(preview: pd.DataFrame, tau_block: int | None) -> go.Figure:
    """Expected attacker strength per level (Theorem 2.4) before anything is fitted: the level
    where the curve drops is where truncation starts to protect."""
    fig = go.Figure()
    preview = preview[preview["level"] > 0]  # level 0 keeps no tree: no level a sweep offers, so it is not drawn
    for i, (attribute, rows) in enumerate(preview.groupby("attribute", sort=False)):
        rows = rows.sort_values("level")
        hover = [f"{attribute}, level {int(r.level)}<br>expected MAB: {r.mab:.3f}<br>expected WCAB: {r.wcab:.3f}"
                 f"<br>attacker R²: {r.r2:.3f}" for r in rows.itertuples()]
        fig.add_trace(go.Scatter(x=[int(v) for v in rows["level"]], y=_floats(rows["mab"]), mode="lines+markers",
                                 name=str(attribute), line={"color": _attribute_colour(i)}, hovertext=hover,
                                 hovertemplate="%{hovertext}<extra></extra>"))
    if tau_block is not None:
        fig.add_vline(x=tau_block, line_dash="dash", line_color="#555555",
                      annotation_text=f"Theorem 2.5: τ = {tau_block}", annotation_position="top right")
    fig.update_layout(title="Expected attribute-inference risk per truncation level",
                      xaxis_title=LEVEL_AXIS, yaxis_title="Expected mean absolute attacker coefficient (MAB)",
                      legend_title_text="Sensitive attribute", hovermode="closest")
    return fig
