"""Marginal distributions, real against synthetic, for every kind of column."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import REAL_COLOUR, SYNTHETIC_COLOUR, _empty

MAX_CATEGORIES = 20  # more distinct values (IDs, free text) are lumped into "(other)"
MAX_LABEL = 24  # longer category labels are shortened on the axis (the hover keeps them whole)
NS_PER_DAY = 86_400e9
# the top band in pixels, title then legend then the plots, so that neither covers the other (Streamlit's theme
# moves a title that plotly places itself)
TITLE_PAD, TITLE_SIZE = 14, 17  # the title's distance from the top and its font size
LEGEND_TOP = 50  # the legend's first line, below the title's
TOP = 90  # the plots start here: the legend's line (about 20 px) and some air above them
BOTTOM = 70  # the last row's axis title


def _is_numeric(column: pd.Series) -> bool:
    return (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)) \
        or pd.api.types.is_datetime64_any_dtype(column)


def _as_numbers(column: pd.Series) -> np.ndarray:
    """Finite values as floats; dates as days since 1970 (time-zoned ones in UTC), so densities read 'per day'."""
    if pd.api.types.is_datetime64_any_dtype(column):
        column = column.dropna()
        if column.dt.tz is not None:  # the encoder keeps a UTC dtype through fit and sample
            column = column.dt.tz_convert(None)  # the same instants, in UTC, without a zone
        return column.astype("datetime64[ns]").astype("int64").to_numpy(dtype=float) / NS_PER_DAY
    return pd.to_numeric(column, errors="coerce").dropna().to_numpy(dtype=float)


def _shares(column: pd.Series) -> pd.Series:
    return column.astype(object).where(column.notna(), "(missing)").astype(str).value_counts(normalize=True)


def marginal_histograms(real: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str], per_row: int = 3,
                        panel_height: int = 300) -> go.Figure:
    """Real against synthetic margins, column by column: the vine keeps margins exactly in
    theory, so visible gaps point at discretisation or fitting problems. Histograms are computed
    here (shared bins, density) so the figure carries bins, not every row. ``per_row`` panels of
    ``panel_height`` pixels to a row (the report's print: six small ones, the axis titles left out
    but each column's name)."""
    missing = [c for c in columns if c not in real.columns or c not in synthetic.columns]
    if missing:
        raise ValueError(f"columns not in both tables: {', '.join(missing)}")
    if not columns:
        return _empty("Margins", "No columns chosen.", "Value", "Density")
    small = per_row > 3
    n_cols = per_row if small else min(per_row, len(columns))  # small panels keep their size in a short last row
    n_rows = math.ceil(len(columns) / n_cols)
    height = panel_height * n_rows + TOP + BOTTOM
    fig = make_subplots(rows=n_rows, cols=n_cols, horizontal_spacing=0.04 if small else 0.1,
                        vertical_spacing=(40 if small else 90) / height if n_rows > 1 else 0.0)
    for i, name in enumerate(columns):
        row, col = i // n_cols + 1, i % n_cols + 1
        first = i == 0
        if _is_numeric(real[name]) and _is_numeric(synthetic[name]):
            a, b = _as_numbers(real[name]), _as_numbers(synthetic[name])
            both = np.concatenate([a, b])
            both = both[np.isfinite(both)]
            edges = np.histogram_bin_edges(both, bins=min(40, max(5, int(np.sqrt(len(both)))))) if len(both) \
                else np.array([0.0, 1.0])
            as_dates = pd.api.types.is_datetime64_any_dtype(real[name])
            x = pd.to_datetime(edges * NS_PER_DAY).astype(str).tolist() if as_dates else edges.tolist()
            for values, label, colour in ((a, "Real data", REAL_COLOUR), (b, "Synthetic data", SYNTHETIC_COLOUR)):
                density = np.histogram(values, bins=edges, density=True)[0] if len(values) else np.zeros(len(edges) - 1)
                y = density.tolist() + [float(density[-1]) if len(density) else 0.0]  # close the last step
                fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line={"shape": "hv", "color": colour, "width": 1.5},
                                         fill="tozeroy", opacity=0.55, name=label, legendgroup=label,
                                         showlegend=first, hovertemplate=f"{name} from %{{x}}: density %{{y:.3f}}"
                                                                         f"<extra>{label}</extra>"), row, col)
            fig.update_yaxes(title_text="Density per day" if as_dates else "Density", exponentformat="power",
                             row=row, col=col)
        else:
            a, b = _shares(real[name]), _shares(synthetic[name])
            categories = (a.add(b, fill_value=0).sort_values(ascending=False)).index.tolist()
            dtype = real[name].dtype
            if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:  # keep the scale's order
                declared = [str(c) for c in dtype.categories]
                categories = [c for c in declared if c in categories] + [c for c in categories if c not in declared]
            keep, lumped = categories[:MAX_CATEGORIES], categories[MAX_CATEGORIES:]
            for shares, label, colour in ((a, "Real data", REAL_COLOUR), (b, "Synthetic data", SYNTHETIC_COLOUR)):
                y = [float(shares.get(c, 0.0)) for c in keep]
                x = list(keep)
                if lumped:
                    x.append("(other)")
                    y.append(float(shares.reindex(lumped).fillna(0).sum()))
                fig.add_trace(go.Bar(x=x, y=y, name=label, legendgroup=label, showlegend=first,
                                     marker_color=colour, offsetgroup=label,
                                     hovertemplate=f"{name} = %{{x}}: share %{{y:.3f}}<extra>{label}</extra>"),
                              row, col)
            ticks = keep + (["(other)"] if lumped else [])
            fig.update_xaxes(type="category", categoryorder="array", categoryarray=ticks, tickmode="array",
                             tickvals=ticks, ticktext=[t if len(t) <= MAX_LABEL else t[:MAX_LABEL - 1] + "…"
                                                       for t in ticks], row=row, col=col)
            fig.update_yaxes(title_text="Share of rows", row=row, col=col)
        fig.update_xaxes(title_text=str(name), row=row, col=col)
        if small:  # the column's name under each panel, the numbers on the axes small, no repeated "Density"
            fig.update_yaxes(title_text=None, showticklabels=False, row=row, col=col)
            fig.update_xaxes(title_standoff=2, title_font={"size": 10}, tickfont={"size": 8}, nticks=4, row=row,
                             col=col)
    for i in range(len(columns), n_rows * n_cols):  # empty cells of the last row
        fig.update_xaxes(visible=False, row=i // n_cols + 1, col=i % n_cols + 1)
        fig.update_yaxes(visible=False, row=i // n_cols + 1, col=i % n_cols + 1)
    fig.update_layout(title={"text": "Margins: real against synthetic data", "yref": "container", "y": 1,
                             "yanchor": "top", "pad": {"t": TITLE_PAD}, "font": {"size": TITLE_SIZE}},
                      barmode="group", height=height, margin={"t": TOP, "b": BOTTOM},
                      legend={"orientation": "h", "yref": "container", "y": 1 - LEGEND_TOP / height,
                              "yanchor": "top", "x": 0, "xanchor": "left"})
    return fig
