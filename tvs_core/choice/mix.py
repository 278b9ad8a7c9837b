"""The utility of a level as the user weighs it: a mix of utility metrics, each scaled by its anchors.

Written as text in the CLI (``--utility``), the project and the manifest: ``NAME[=WEIGHT],...``, where
NAME is a utility metric of the catalogue or ``tstr`` (train-synthetic-test-real with the random
forest: AUC for a class response, R² for a continuous one). Weights are relative; they need not sum
to 1. The default weighs prediction (TSTR), pairwise dependence (pair structure) and an analysis'
results (confidence-interval overlap) equally, so that a level which keeps only the star around Y
no longer looks free; ``tstr`` alone is the paper's U_t (Appendix E).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import DataError
from ..evaluation.catalogue import CATALOGUE, DEFAULT_UTILITY, TSTR_METRICS, AxisKind
from ..text import percent
from .axes import Axis, axis_choices

TSTR = "tstr"
__all__ = ["DEFAULT_MIX", "DEFAULT_UTILITY", "PAPER_UTILITY", "TSTR", "UtilityMix", "utility_names"]
PAPER_UTILITY = TSTR


def utility_names() -> list[str]:
    """Every name a mix accepts."""
    return [TSTR, *axis_choices(AxisKind.UTILITY, [])]


@dataclass(frozen=True)
class UtilityMix:
    parts: tuple[tuple[str, float], ...]  # (name, weight), weights > 0

    @classmethod
    def parse(cls, text: str) -> UtilityMix:
        """``text`` as a mix; refused by name, with the choices, when it is not one. Text arrives at the edge only
        (the command line, a stored project or manifest, the Choose page's field)."""
        weights = []
        for piece in [p.strip() for p in text.split(",")]:
            name, has_weight, weight_text = piece.partition("=")
            if not name.strip():
                raise DataError(f"The utility mix '{text}' has an empty part.",
                                fix="Write NAME[=WEIGHT] parts separated by commas, NAME one of: "
                                    f"{', '.join(utility_names())}.")
            try:
                weights.append((name.strip(), float(weight_text) if has_weight else 1.0))
            except ValueError:
                weights.append((name.strip(), math.nan))
        return cls.of(weights)

    @classmethod
    def of(cls, weights: list[tuple[str, float]]) -> UtilityMix:
        """A mix from (name, weight) pairs, as the Choose page's sliders give it; refused by name when a part is not
        a utility measure, is named twice or has no positive weight, or when there is no part."""
        parts, choices = [], ", ".join(utility_names())
        if not weights:
            raise DataError("The utility mix has no part.", fix="Give at least one part a weight above 0.")
        for name, weight in weights:
            if name not in utility_names():
                raise DataError(f"'{name}' is not a utility measure.", fix=f"Choose from: {choices}.")
            if not math.isfinite(weight) or weight <= 0:
                raise DataError(f"The weight of '{name}' in the utility mix must be a positive number.",
                                fix=f"Write e.g. {name}=1.")
            if name in [p[0] for p in parts]:
                raise DataError(f"'{name}' appears twice in the utility mix.", fix="Name each part once.")
            # tstr is auc_tstr or r2_tstr, whichever the response needs: beside either, the same part twice
            same = [p[0] for p in parts if p[0] in TSTR_METRICS] if name == TSTR else (
                [TSTR] if name in TSTR_METRICS and TSTR in [p[0] for p in parts] else [])
            if same:
                raise DataError(f"'{same[0]}' and '{name}' both name the TSTR part of the utility mix.",
                                fix=f"Name it once: '{TSTR}' (AUC or R², as the response needs) or one of them.")
            parts.append((name, weight))
        return cls(tuple(parts))

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        return ",".join(f"{name}={weight:g}" for name, weight in self.parts)

    def axes(self, metric_names) -> list[tuple[Axis, float]]:
        """The parts as axes for records holding ``metric_names`` (``tstr`` resolved to AUC or R²),
        weights normalised to sum to 1."""
        total = sum(w for _, w in self.parts)
        out = []
        for name, weight in self.parts:
            axis = Axis.utility(metric_names) if name == TSTR else Axis(CATALOGUE[name])
            out.append((axis, weight / total))
        return out

    def describe(self, metric_names=()) -> str:
        """'TSTR AUC 33 %, pair structure 33 %, CI overlap 33 %' — as Choose and the manifest say it."""
        return ", ".join(f"{axis.metric.short} {percent(weight)}" for axis, weight in self.axes(metric_names))



DEFAULT_MIX = UtilityMix.parse(DEFAULT_UTILITY)  # TSTR, pair structure and CI overlap, weighed equally
