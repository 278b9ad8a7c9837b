"""Figures of the Sensitive-features step: the association heatmap in Algorithm-1 order and the
Theorem-2.4 risk preview."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..model.ordering import OrderResult
from .style import ASSOCIATION_SCALE, LEVEL_AXIS, _attribute_colour, _floats

MEASURE_NAMES = {"kendall": "Kendall's τ", "spearman": "Spearman's ρ", "pearson": "Pearson's r"}
BLOCK_NAMES = {"S": "S: sensitive", "K": "K: linked to S", "rest": "rest", "Y": "Y: response"}


def association_heatmap(assoc: pd.DataFrame, order: OrderResult | None, measure: str,
                        title: str | None = None) -> go.Figure:
    """|association| in C-vine order with the S | K | rest | Y blocks outlined: shows at a glance
    which covariates Algorithm 1 put next to the sensitive block and why. Every column is labelled;
    the block names sit above the matrix, where they cover no cell."""
    names = list(assoc.columns)
    if order is not None:
        missing = [c for c in order.order if c not in assoc.columns]
        if missing:
            raise ValueError(f"the association matrix lacks ordered columns: {', '.join(missing)}")
        names = list(order.order)  # columns outside the order are not modelled: left out
    signed = assoc.loc[names, names].to_numpy(dtype=float)
    label = f"|{MEASURE_NAMES.get(measure, measure)}|"
    title = title or f"{label} {'in Algorithm-1 order' if order is not None else 'in the table order'}"
    fig = go.Figure(go.Heatmap(
        z=np.abs(signed).tolist(), x=names, y=names, customdata=signed.tolist(), zmin=0, zmax=1,
        colorscale=ASSOCIATION_SCALE, colorbar={"title": {"text": label}},
        hovertemplate="%{y} × %{x}: %{z:.3f} (signed %{customdata:.3f})<extra></extra>"))
    if order is not None:
        for block, (start, stop) in order.blocks.items():
            if stop <= start:
                continue  # an empty block (e.g. no K) has no rectangle
            fig.add_shape(type="rect", xref="x", yref="y", x0=start - 0.5, x1=stop - 0.5, y0=start - 0.5,
                          y1=stop - 0.5, line={"color": "#d62728", "width": 2}, fillcolor="rgba(0,0,0,0)",
                          name=block)
            fig.add_annotation(x=(start + stop - 1) / 2, y=1.0, xref="x", yref="paper", yanchor="bottom",
                               text=f"<b>{block}</b>", hovertext=BLOCK_NAMES[block], showarrow=False,
                               font={"color": "#d62728"})
    size = 11 if len(names) <= 20 else (9 if len(names) <= 32 else 7)
    ticks = {"tickmode": "array", "tickvals": names, "ticktext": names, "tickfont": {"size": size}}
    fig.update_layout(title={"text": title}, margin={"t": 110},
                      xaxis={"title": {"text": "Column (C-vine order)" if order else "Column"}, "tickangle": -90,
                             "constrain": "domain", "side": "bottom", **ticks},
                      yaxis={"title": {"text": "Column"}, "autorange": "reversed", "scaleanchor": "x",
                             "scaleratio": 1, "constrain": "domain", **ticks},
                      plot_bgcolor="white", height=max(500, 22 * len(names) + 300))
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
