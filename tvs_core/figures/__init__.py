"""Plotly figures for the dashboard (and the report), built in the library so they can be tested
without Streamlit. Builders take the library's own tables (records, summaries, selection tables,
orders) and return a ``go.Figure``."""

from .levels import correlation_pair, kendall_pair, metric_boxes, pu_curve
from .margins import marginal_histograms
from .ordering import association_heatmap, preview_curve
from .scatter import privacy_utility_scatter
from .style import BASELINE_STYLE, baseline_style, level_colour, metric_label, model_label

__all__ = ["BASELINE_STYLE", "association_heatmap", "baseline_style", "correlation_pair", "kendall_pair",
           "level_colour", "marginal_histograms", "metric_boxes", "metric_label", "model_label", "preview_curve",
           "privacy_utility_scatter", "pu_curve"]
