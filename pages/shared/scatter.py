"""The privacy-utility scatter as the Sweep and Choose pages both draw it, and the level a click on it selects."""

from __future__ import annotations

import streamlit as st

from pages import common
from tvs_core.choice import Axis
from tvs_core.jobs import JobView


def select_level_from(key: str) -> None:
    """on_select callback of a privacy-utility scatter: the clicked level goes into the project, where
    it survives figure updates (a plotly chart's own selection resets when the figure changes)."""
    state = st.session_state.get(key)
    for point in (state.selection.points if state else []):
        level = point.get("customdata")
        level = level[0] if isinstance(level, list) else level
        if level is not None:
            common.update(selected_level=int(level))


def level_scatter(view: JobView, summary, selection, selected: int | None, utility: Axis | None = None):
    """The privacy-utility scatter of the shown sweep as the Sweep and Choose pages both draw it, so that at any
    moment they show the same point for a level: ``summary`` drawn (the Sweep page's keeps a level's first look
    until its own numbers report), ``selection`` made from the sweep's own numbers only (its scaling decides each
    level's column); the project's privacy axis and ``utility`` (default: the Choose page's choice among the utility
    mix's parts); each level's colour from the sweep's levels; the levels on their first numbers marked as such."""
    from tvs_core import figures

    settings, config = common.project().choice, view.config
    parts = {axis.metric.name: axis for axis, _ in settings.utility.axes(summary.metrics())}
    utility = utility or parts.get(common.project().scatter_utility) or next(iter(parts.values()), None)
    return figures.privacy_utility_scatter(summary, settings.privacy, config.sensitive, selected, view.levels,
                                           utility=utility, externals=list(config.externals or {}),
                                           selection=selection, sets_scored=view.sets_scored())
