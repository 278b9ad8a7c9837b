"""Every metric the product reports, gathered from the registered families: the one place summaries, the level
choice, figures, pages, the CLI and the manifest read metrics from.

A family is declared and computed in its module of ``evaluation/metrics/`` (``base.py``: what a declaration holds,
``Family``): its metrics and the code that computes them — ``compute`` (a function of one published set, in the
same module; a family whose one computation writes all its metrics owns it, ``Family.compute``) or ``produced_by``
(the function writing its records: a game's iteration, the release attack, TSTR, TRTR). Every module of that package
is imported here and registers its family (``base.register``); the catalogue is what they registered, in their
``position`` order. To add a metric: declare it in its family and write that function (docs/ARCHITECTURE.md walks
through it); to add a family: a module there that registers one.
"""

from __future__ import annotations

from importlib import import_module
from pkgutil import iter_modules

from . import metrics
from .metrics.base import (
    ENUM_FIELDS,
    GROUPS,
    SOURCES,
    AxisKind,
    Direction,
    Family,
    Group,
    Metric,
    PerColumn,
    Reference,
    RiskRecords,
    Source,
    registered,
)
from .metrics.gdpr import GDPR_CRITERIA, GDPR_PARTS, GDPR_RECORDS
from .metrics.utility import TSTR_METRICS, tstr_metric

__all__ = ["CATALOGUE", "DEFAULT_PRIVACY_AXIS", "DEFAULT_UTILITY", "ENUM_FIELDS", "FAMILIES", "GDPR_CRITERIA",
           "GDPR_PARTS", "GDPR_RECORDS", "GROUPS", "METRICS", "SOURCES", "TSTR_METRICS", "AxisKind",
           "Direction", "Family", "Group", "Metric", "PerColumn", "Reference", "RiskRecords", "Source",
           "axis_metrics", "described", "label", "tstr_metric"]

for _module in iter_modules(metrics.__path__):  # each family module registers its family when imported
    import_module(f"{metrics.__name__}.{_module.name}")
# the order every table, the reference page and the figures list metrics in (the reference page groups them by
# ``Group`` within it): a family's metrics sit together, the families by their ``position``
FAMILIES: tuple[Family, ...] = registered()
METRICS: tuple[Metric, ...] = tuple(metric for family in FAMILIES for metric in family)
CATALOGUE: dict[str, Metric] = {m.name: m for m in METRICS}

# how well the release attacker guesses the real people's sensitive values, on the least protected sensitive column
# (issue 55: the paper's MAB, "mab_worst", ranked a full vine as more private than lower levels where one column gives
# the sensitive one away; docs/reference/protocols.md, 'The default privacy axis')
DEFAULT_PRIVACY_AXIS = "release_skill_worst"
# U_t: prediction, pairwise dependence and an analysis' results weighed equally (choice/mix.py); "tstr" is the paper's
DEFAULT_UTILITY = "tstr=1,pair_structure=1,ci_overlap=1"


def label(name: str, short: bool = False) -> str:
    """Readable name of a record metric (unknown names are shown as they are, never hidden)."""
    found = described().get(name)
    if found is None:
        return name.replace("_", " ").capitalize()
    return found.short if short else found.label


def described() -> dict[str, Metric]:
    """Every record name the catalogue's metrics write, described, in the catalogue's order: each metric's own, and
    a risk's interval ends and count (read from ``CATALOGUE`` when called, so that whatever it holds is described)."""
    return {m.name: m for metric in CATALOGUE.values() for m in metric.records()}


def axis_metrics(axis: AxisKind | str) -> list[Metric]:
    """The metrics that may be this axis, in the catalogue's order."""
    return [m for m in CATALOGUE.values() if m.axis == axis]
