"""Plotly figures for the dashboard, built in the library so they can be tested without Streamlit.

Builders take the library's own tables (records, summaries, selection tables, orders) and return a
``go.Figure``. Every array handed to plotly is a plain Python list: plotly would otherwise encode
numpy arrays as base64 blobs, and click events must carry plain values (a level, or None).
Colours are fixed per truncation level (``level_colour``) and per baseline (``BASELINE_STYLE``), so
a level or a baseline looks the same on every page.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.colors as pcolors
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .evaluation.utility import utility_scale
from .ordering import OrderResult

TVINESYNTH = "tvinesynth"
REFERENCE_MODELS = ("real", "raw")  # real-data rows of the records, not generators
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

# name -> (marker symbol, colour): one grey-ish family, so baselines recede behind the coloured levels.
BASELINE_STYLE: dict[str, tuple[str, str]] = {
    "rvine": ("diamond", "#4d4d4d"),
    "rvine_star1": ("diamond-open", "#4d4d4d"),
    "gaussian_copula": ("square", "#7f7f7f"),
    "independent": ("x", "#a6a6a6"),
    "dp_vine": ("triangle-up", "#8c7b6b"),  # any epsilon not listed below
    "dp_vine:0.1": ("triangle-up", "#c2b5a5"),
    "dp_vine:1": ("triangle-up", "#8c7b6b"),
    "dp_vine:10": ("triangle-up", "#574a3e"),
}
_FALLBACK_STYLE = ("circle-open", "#999999")

MODEL_LABELS = {
    TVINESYNTH: "TVineSynth",
    "rvine": "R-vine (Dissmann)",
    "rvine_star1": "R-vine, star tree 1",
    "gaussian_copula": "Gaussian copula",
    "independent": "Independent margins",
    "dp_vine": "DP vine",
    "real": "Real data",
    "raw": "Real data (attack game)",
}

METRIC_LABELS = {
    "mab": "Mean absolute attacker coefficient (MAB)",
    "release_mab": "Mean absolute attacker coefficient on the release (MAB)",
    "wcab": "Worst-case absolute attacker coefficient (WCAB)",
    "release_wcab": "Worst-case absolute attacker coefficient on the release (WCAB)",
    "mr2": "Attacker R² (attack game)",
    "release_r2": "Attacker R² on the release",
    "pg": "Privacy gain (PG; 1 = attacker learns nothing)",
    "mse_in": "Attacker squared error, target in training data",
    "mse_out": "Attacker squared error, target left out",
    "mia_tp": "Membership attack true-positive rate",
    "mia_fp": "Membership attack false-positive rate",
    "mcmia": "Membership inference score (MC-MIA; 0.5 = indistinguishable)",
    "auc_tstr": "TSTR ROC AUC (random forest)",
    "auc_tstr_logistic": "TSTR ROC AUC (logistic regression)",
    "auc_trtr": "TRTR ROC AUC (random forest)",
    "auc_trtr_logistic": "TRTR ROC AUC (logistic regression)",
    "r2_tstr": "TSTR R² (random forest)",
    "r2_tstr_linear": "TSTR R² (linear regression)",
    "r2_trtr": "TRTR R² (random forest)",
    "r2_trtr_linear": "TRTR R² (linear regression)",
    "alpha_precision": "α-precision (fidelity)",
    "beta_recall": "β-recall (diversity)",
    "authenticity": "Authenticity (share of non-copied rows)",
    "dcr_closer_to_train": "Share of synthetic rows closer to training than to hold-out rows",
    "exact_copies": "Exact copies of training rows",
    "spearman_difference": "Mean |Spearman difference| real vs synthetic",
    "column_distance": "Distance between real and synthetic column distributions",
}


def metric_label(metric: str) -> str:
    """Readable axis title for a record metric, so no figure shows a bare code like 'mab'."""
    return METRIC_LABELS.get(metric, metric.replace("_", " ").capitalize())


def model_label(name: str) -> str:
    """Readable legend name for a model label in the records (``dp_vine:<eps>`` included)."""
    if name.startswith("dp_vine:"):
        return f"DP vine (ε = {name.split(':', 1)[1]})"
    return MODEL_LABELS.get(name, name)


def baseline_style(name: str) -> tuple[str, str]:
    """(marker symbol, colour) of a baseline; unknown epsilons fall back to the dp_vine family."""
    if name in BASELINE_STYLE:
        return BASELINE_STYLE[name]
    return BASELINE_STYLE.get(name.split(":", 1)[0], _FALLBACK_STYLE)


def level_colour(level: int, levels: list[int]) -> str:
    """Colour of a level, by its rank among ``levels`` (pass every level of the job, so a level
    keeps its colour on every page; ranks rather than values keep neighbouring levels apart)."""
    domain = sorted({int(v) for v in levels} | {int(level)})
    position = 0.5 if len(domain) == 1 else domain.index(int(level)) / (len(domain) - 1)
    return pcolors.sample_colorscale(LEVEL_SCALE, [position * LEVEL_SCALE_END])[0]


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


# --------------------------------------------------------------------------- association and order


def association_heatmap(assoc: pd.DataFrame, order: OrderResult | None, title: str) -> go.Figure:
    """|association| in C-vine order with the S | K | rest | Y blocks outlined: shows at a glance
    which covariates Algorithm 1 put next to the sensitive block and why."""
    names = list(assoc.columns)
    if order is not None:
        missing = [c for c in order.order if c not in assoc.columns]
        if missing:
            raise ValueError(f"the association matrix lacks ordered columns: {', '.join(missing)}")
        names = list(order.order)  # columns outside the order are not modelled: left out
    signed = assoc.loc[names, names].to_numpy(dtype=float)
    measure = {"kendall": "Kendall's τ", "spearman": "Spearman's ρ", "pearson": "Pearson's r"}.get(
        order.measure if order is not None else "", "association")
    fig = go.Figure(go.Heatmap(
        z=np.abs(signed).tolist(), x=names, y=names, customdata=signed.tolist(), zmin=0, zmax=1,
        colorscale=ASSOCIATION_SCALE, colorbar={"title": {"text": f"|{measure}|"}},
        hovertemplate="%{y} × %{x}: %{z:.3f} (signed %{customdata:.3f})<extra></extra>"))
    if order is not None:
        labels = {"S": "S: sensitive", "K": "K: linked to S", "rest": "rest", "Y": "Y: response"}
        for block, (start, stop) in order.blocks.items():
            if stop <= start:
                continue  # an empty block (e.g. no K) has no rectangle
            fig.add_shape(type="rect", xref="x", yref="y", x0=start - 0.5, x1=stop - 0.5, y0=start - 0.5,
                          y1=stop - 0.5, line={"color": "#d62728", "width": 2}, fillcolor="rgba(0,0,0,0)",
                          name=block)
            fig.add_annotation(x=start - 0.5, y=start - 0.5, xref="x", yref="y", text=f"<b>{labels[block]}</b>",
                               showarrow=False, xanchor="left", yanchor="bottom", font={"color": "#d62728"})
    fig.update_layout(title=title, xaxis={"title": {"text": "Column (C-vine order)" if order else "Column"},
                                          "tickangle": -45, "constrain": "domain"},
                      yaxis={"title": {"text": "Column"}, "autorange": "reversed", "scaleanchor": "x",
                             "scaleratio": 1, "constrain": "domain"},
                      plot_bgcolor="white")
    return fig


def preview_curve(preview: pd.DataFrame, tau_block: int | None) -> go.Figure:
    """Expected attacker strength per level (Theorem 2.4) before anything is fitted: the level
    where the curve drops is where truncation starts to protect."""
    fig = go.Figure()
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


# --------------------------------------------------------------------------- privacy against utility


def _summary_point(hit: pd.DataFrame) -> tuple[float, float, float]:
    """(median, ci_low, ci_high) of matching summary rows; several rows (targets) are pooled by
    their medians, as selection.level_table does."""
    if len(hit) == 0:
        return math.nan, math.nan, math.nan
    return float(hit["median"].median()), float(hit["ci_low"].median()), float(hit["ci_high"].median())


def _mab_rows(rows: pd.DataFrame, attribute: str, use_game: bool) -> pd.DataFrame:
    if use_game:
        return rows[(rows["metric"] == "mab") & (rows["role"] == "game") & (rows["attribute"] == attribute)]
    return rows[(rows["metric"] == "release_mab") & (rows["attribute"] == attribute)]


def _privacy_of(rows: pd.DataFrame, privacy: str, sensitive: list[str], use_game: bool) -> tuple[tuple, str]:
    """(median, low, high) of the privacy metric for one model/level and a note for the hover."""
    if privacy.startswith("mab:"):
        return _summary_point(_mab_rows(rows, privacy.split(":", 1)[1], use_game)), ""
    if privacy == "mab_worst":
        points = {s: _summary_point(_mab_rows(rows, s, use_game)) for s in sensitive}
        if not points or any(math.isnan(p[0]) for p in points.values()):
            return (math.nan, math.nan, math.nan), ""  # the worst column is unknown if one is missing
        worst = max(points, key=lambda s: points[s][0])
        return points[worst], f"worst column: {worst}"
    if privacy == "pg":
        return _summary_point(rows[(rows["metric"] == "pg") & (rows["role"] == "game")]), "median over targets"
    if privacy == "mcmia":
        return _summary_point(rows[(rows["metric"] == "mcmia") & (rows["role"] == "release")]), ""
    raise ValueError(f"unknown privacy metric {privacy!r}; use 'mab:<column>', 'mab_worst', 'pg' or 'mcmia'")


def privacy_axis_title(privacy: str) -> str:
    """Readable x-axis title of a privacy choice as used by the scatter and the selection."""
    if privacy.startswith("mab:"):
        return f"Mean absolute attacker coefficient (MAB) for {privacy.split(':', 1)[1]}"
    if privacy == "mab_worst":
        return "Mean absolute attacker coefficient (MAB), worst sensitive column"
    if privacy == "pg":
        return "Privacy gain (PG), median over targets"
    if privacy == "mcmia":
        return metric_label("mcmia")
    raise ValueError(f"unknown privacy metric {privacy!r}; use 'mab:<column>', 'mab_worst', 'pg' or 'mcmia'")


def _error(centre: list, low: list, high: list) -> dict:
    """Asymmetric error bars from an interval; a missing bound draws no bar."""
    centre, low, high = _floats(centre), _floats(low), _floats(high)
    plus = [0.0 if c is None or h is None else max(h - c, 0.0) for c, h in zip(centre, high, strict=True)]
    minus = [0.0 if c is None or lo is None else max(c - lo, 0.0) for c, lo in zip(centre, low, strict=True)]
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "thickness": 1}


def privacy_utility_scatter(summary: pd.DataFrame, privacy: str, sensitive: list[str], selected_level: int | None,
                            levels: list[int]) -> go.Figure:
    """Each TVineSynth level and each baseline as a point (privacy, TSTR AUC) with intervals: the
    trade-off the user picks a level from. Clicks map back to a level through ``customdata``
    (the level, or None for baselines). MAB comes from the attack game when a model has it, else
    from the release attack (the hover says which); ``levels`` fixes the level colours."""
    x_title = privacy_axis_title(privacy)
    scale = utility_scale(summary["metric"]) if not summary.empty else "auc"
    y_title = metric_label(f"{scale}_tstr")
    kind = "mab" if privacy.startswith("mab") else privacy
    if summary.empty:
        return _empty("Privacy against utility", "No results yet.", x_title, y_title)
    points = []  # (model, level, (x, lo, hi), (y, lo, hi), note)
    sources, absent = {}, []
    for model, rows in summary.groupby("model", sort=True):
        if model in REFERENCE_MODELS:
            continue
        use_game = bool(((rows["metric"] == "mab") & (rows["role"] == "game")).any())
        source = "attack game" if use_game else "release attack"
        before = len(points)
        if model == TVINESYNTH:
            groups = [(int(lv), rows[rows["level"] == lv]) for lv in sorted(rows["level"].dropna().unique())]
        else:
            groups = [(None, rows[rows["level"].isna()])]
        for level, at in groups:
            if len(at) == 0:
                continue
            x, note = _privacy_of(at, privacy, sensitive, use_game)
            y = _summary_point(at[(at["metric"] == f"{scale}_tstr") & (at["role"] == "release")])
            if kind == "mab":
                note = ", ".join(p for p in (note, f"from the {source}") if p)
            if not (math.isnan(x[0]) or math.isnan(y[0])):
                points.append((model, level, x, y, note))
        if len(points) > before:
            sources[model] = source
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
    ours = sorted((p for p in points if p[0] == TVINESYNTH), key=lambda p: p[1])
    if ours:
        xs, ys = [p[2] for p in ours], [p[3] for p in ours]
        x_mid, y_mid = [v[0] for v in xs], [v[0] for v in ys]
        fig.add_trace(go.Scatter(
            x=x_mid, y=y_mid, mode="lines+markers+text", name="TVineSynth (by level)",
            text=[str(p[1]) for p in ours], textposition="top right",
            customdata=[int(p[1]) for p in ours], line={"color": "#cccccc", "width": 1, "dash": "dot"},
            marker={"size": 12, "color": [level_colour(p[1], levels) for p in ours],
                    "line": {"color": "white", "width": 1}},
            error_x={**_error(x_mid, [v[1] for v in xs], [v[2] for v in xs]), "color": "#999999"},
            error_y={**_error(y_mid, [v[1] for v in ys], [v[2] for v in ys]), "color": "#999999"},
            hovertext=[hover(f"TVineSynth, level {p[1]}", p[2], p[3], p[4]) for p in ours],
            hovertemplate="%{hovertext}<extra></extra>"))
    for model, _, x, y, note in (p for p in points if p[0] != TVINESYNTH):
        symbol, colour = baseline_style(model)
        fig.add_trace(go.Scatter(
            x=[x[0]], y=[y[0]], mode="markers", name=model_label(model), customdata=[None],
            marker={"symbol": symbol, "color": colour, "size": 12, "line": {"color": colour, "width": 2}},
            error_x={**_error([x[0]], [x[1]], [x[2]]), "color": colour},
            error_y={**_error([y[0]], [y[1]], [y[2]]), "color": colour},
            hovertext=[hover(model_label(model), x, y, note)], hovertemplate="%{hovertext}<extra></extra>"))
    chosen = [p for p in ours if p[1] == selected_level] if selected_level is not None else []
    if chosen:
        _, level, x, y, _ = chosen[0]
        fig.add_trace(go.Scatter(
            x=[x[0]], y=[y[0]], mode="markers", name=f"Selected: level {level}", customdata=[int(level)],
            marker={"symbol": "circle-open", "size": 26, "color": HIGHLIGHT_COLOUR, "line": {"width": 3}},
            hoverinfo="skip"))  # clicks fall through to the level's own point
    trtr = summary[(summary["model"] == "real") & (summary["metric"] == f"{scale}_trtr")]
    if len(trtr):
        value = float(trtr["median"].iloc[0])
        fig.add_hline(y=value, line_dash="dash", line_color="#555555",
                      annotation_text=f"TRTR (trained on real data): {value:.3f}", annotation_position="top left")
        span = [v for p in points for v in p[3] if not math.isnan(v)] + [value]
        fig.update_yaxes(range=_padded(span))  # autorange ignores the line
    if kind == "mcmia":
        fig.add_vline(x=0.5, line_dash="dot", line_color="#999999")
    lower_is_private = kind in ("mab", "mcmia")
    fig.add_annotation(text="← more private" if lower_is_private else "more private →", xref="paper",
                       yref="paper", x=0 if lower_is_private else 1, y=0, yanchor="top", yshift=-24,
                       xanchor="left" if lower_is_private else "right", showarrow=False,
                       font={"color": "#2a7f62"})
    notes = []
    if kind == "mab" and len(set(sources.values())) > 1:
        notes.append("MAB from the attack game for " + ", ".join(model_label(m) for m, src in sources.items()
                                                                 if src == "attack game")
                     + "; from the release attack for the others (no game was run for them)")
    if absent:
        notes.append(f"Not shown (metric missing): {', '.join(absent)}")
    for i, note in enumerate(notes):
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=0, yanchor="top", yshift=-72 - 16 * i,
                           xanchor="left", showarrow=False, font={"size": 11, "color": "#777777"})
    fig.update_layout(title="Privacy against utility per truncation level", yaxis_title=y_title,
                      xaxis={"title": {"text": x_title, "standoff": 28}}, legend_title_text="Model",
                      hovermode="closest", clickmode="event+select", margin={"b": 100 + 16 * len(notes)})
    return fig


# --------------------------------------------------------------------------- metric distributions


def metric_boxes(records: pd.DataFrame, metric: str, attribute: str | None, title: str,
                 reference: float | None = None, by_target_kind: bool = False,
                 reference_label: str = "Reference") -> go.Figure:
    """Replicates of one metric per TVineSynth level: the spread shows whether differences between
    levels are larger than the noise of the evaluation."""
    rows = records[(records["model"] == TVINESYNTH) & (records["metric"] == metric) & records["level"].notna()]
    if attribute is not None:
        rows = rows[rows["attribute"] == attribute]
    y_title = metric_label(metric)
    if rows.empty:
        return _empty(title, f"No records of {y_title.lower()} yet.", LEVEL_AXIS, y_title)
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
    if reference is not None and not pd.isna(reference):
        fig.add_hline(y=float(reference), line_dash="dash", line_color="#555555",
                      annotation_text=f"{reference_label}: {float(reference):.3f}", annotation_position="top left")
        values = [v for v in _floats(rows["value"]) if v is not None]
        fig.update_yaxes(range=_padded(values + [float(reference)]))
    fig.update_layout(title=title, yaxis_title=y_title,
                      xaxis={"title": {"text": LEVEL_AXIS}, "type": "category", "categoryorder": "array",
                             "categoryarray": categories})
    return fig


# --------------------------------------------------------------------------- dependence matrices


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


# --------------------------------------------------------------------------- level choice


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
    band = ranked[ranked["PU_low"].notna() & ranked["PU_high"].notna()]
    if len(band):
        band_x = [int(v) for v in band["level"]]
        fig.add_trace(go.Scatter(x=band_x + band_x[::-1], y=_floats(band["PU_high"]) + _floats(band["PU_low"])[::-1],
                                 mode="lines", fill="toself", fillcolor="rgba(70, 70, 160, 0.15)",
                                 line={"width": 0},
                                 name="PU resampling band (95 %)", hoverinfo="skip"))
    for column, name, dash in (("P", "Privacy score P", "dot"), ("U", "Utility score U", "dash")):
        fig.add_trace(go.Scatter(x=[int(v) for v in ranked["level"]], y=_floats(ranked[column]), name=name,
                                 mode="lines", line={"dash": dash, "color": "#888888"}, visible="legendonly",
                                 hovertemplate=f"level %{{x}}: {name} %{{y:.3f}}<extra></extra>"))
    hover = [f"level {int(r.level)}<br>PU: {r.PU:.3f} [{_fmt(r.PU_low)}, {_fmt(r.PU_high)}]<br>P: {_fmt(r.P)}, "
             f"U: {_fmt(r.U)}<br>wins: {r.wins:.3f}" + ("<br>Pareto-optimal" if bool(r.pareto) else "")
             for r in ranked.itertuples()]
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
                           text=f"best: {int(best_level)} (wins {100 * float(row['wins']):.0f} % of resamples)")
    chosen = ranked[ranked["level"] == selected_level] if selected_level is not None else ranked.iloc[0:0]
    if len(chosen):
        fig.add_trace(go.Scatter(x=[int(selected_level)], y=[float(chosen["PU"].iloc[0])], mode="markers",
                                 name=f"Selected: level {int(selected_level)}", customdata=[int(selected_level)],
                                 marker={"symbol": "circle-open", "size": 24, "color": HIGHLIGHT_COLOUR,
                                         "line": {"width": 3}}, hoverinfo="skip"))
    unranked = table[table["PU"].isna()]
    if len(unranked) and "missing" in table:
        text = "; ".join(f"{int(r.level)} ({r.missing or 'no score'})" for r in unranked.itertuples())
        fig.add_annotation(text=f"Not ranked (missing metrics): {text}", xref="paper", yref="paper", x=0, y=1,
                           yanchor="bottom", xanchor="left", showarrow=False, font={"size": 11, "color": "#777777"})
    fig.update_layout(title="Privacy–utility score per truncation level", hovermode="closest",
                      xaxis={"title": {"text": LEVEL_AXIS}, **({"tickmode": "array", "tickvals": levels}
                                                              if len(levels) <= 30 else {})},
                      yaxis={"title": {"text": "Privacy–utility score PU (0–1, higher is better)"}},
                      yaxis2={"title": {"text": "Share of resamples where the level is best"}, "overlaying": "y",
                              "side": "right", "range": [0, 1], "showgrid": False, "tickmode": "linear",
                              "tick0": 0, "dtick": 0.25, "tickformat": ".0%"},
                      legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"}, margin={"b": 120})
    return fig


# --------------------------------------------------------------------------- margins


MAX_CATEGORIES = 20  # more distinct values (IDs, free text) are lumped into "(other)"
MAX_LABEL = 24  # longer category labels are shortened on the axis (the hover keeps them whole)
NS_PER_DAY = 86_400e9


def _is_numeric(column: pd.Series) -> bool:
    return (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)) \
        or pd.api.types.is_datetime64_any_dtype(column)


def _as_numbers(column: pd.Series) -> np.ndarray:
    """Finite values as floats; dates as days since 1970, so densities read 'per day'."""
    if pd.api.types.is_datetime64_any_dtype(column):
        column = column.dropna()
        return column.astype("datetime64[ns]").astype("int64").to_numpy(dtype=float) / NS_PER_DAY
    return pd.to_numeric(column, errors="coerce").dropna().to_numpy(dtype=float)


def _shares(column: pd.Series) -> pd.Series:
    return column.astype(object).where(column.notna(), "(missing)").astype(str).value_counts(normalize=True)


def marginal_histograms(real: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str]) -> go.Figure:
    """Real against synthetic margins, column by column: the vine keeps margins exactly in
    theory, so visible gaps point at discretisation or fitting problems. Histograms are computed
    here (shared bins, density) so the figure carries bins, not every row."""
    missing = [c for c in columns if c not in real.columns or c not in synthetic.columns]
    if missing:
        raise ValueError(f"columns not in both tables: {', '.join(missing)}")
    if not columns:
        return _empty("Margins", "No columns chosen.", "Value", "Density")
    n_cols = min(3, len(columns))
    n_rows = math.ceil(len(columns) / n_cols)
    height = 300 * n_rows + 80
    fig = make_subplots(rows=n_rows, cols=n_cols, horizontal_spacing=0.1,
                        vertical_spacing=90 / height if n_rows > 1 else 0.0)
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
    for i in range(len(columns), n_rows * n_cols):  # empty cells of the last row
        fig.update_xaxes(visible=False, row=i // n_cols + 1, col=i % n_cols + 1)
        fig.update_yaxes(visible=False, row=i // n_cols + 1, col=i % n_cols + 1)
    fig.update_layout(title="Margins: real against synthetic data", barmode="group", height=height,
                      legend={"orientation": "h", "y": 1.02 + 0.08 / n_rows, "x": 0})
    return fig
