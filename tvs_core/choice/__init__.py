"""Choosing a level: the axes (what "privacy" and "utility" of a level mean), the utility mix, PU_t,
the card that explains a level, the summary."""

from .axes import DEFAULT_PRIVACY, Axis, axis_choices
from .explain import LevelCard, explain_level
from .mix import DEFAULT_MIX, DEFAULT_UTILITY, PAPER_UTILITY, UtilityMix, utility_names
from .selection import METHODS, Normalisation, Selection, level_table, select
from .summary import ChoiceSettings, choice_json, choose, summary_json

__all__ = ["DEFAULT_MIX", "DEFAULT_PRIVACY", "DEFAULT_UTILITY", "METHODS", "PAPER_UTILITY", "Axis", "ChoiceSettings",
           "LevelCard", "Normalisation", "Selection", "UtilityMix", "axis_choices", "choice_json", "choose",
           "explain_level", "level_table", "select", "summary_json", "utility_names"]
