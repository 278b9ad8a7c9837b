"""Choosing a level: the axes (what "privacy" and "utility" of a level mean), PU_t, the summary."""

from .axes import Axis, axis_choices
from .selection import METHODS, Selection, level_table, select
from .summary import choose, summary_json

__all__ = ["METHODS", "Axis", "Selection", "axis_choices", "choose", "level_table", "select", "summary_json"]
