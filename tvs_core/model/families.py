"""Pair-copula family presets: which families the vine may choose, and how they are estimated.

Measured trade-offs (bench/family_presets*.md, 2 cores): on both demos the Gaussian preset fits
~100-200x faster than the paper's MLE set and samples 5-50x faster, with a median TSTR AUC within
0.01 of the paper set's, so it is the default by the rule stated there. TSTR does not see tail
dependence; the paper's set stays one click away for users who want it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import pyvinecopulib as pv

from ..text import choice_named

F = pv.BicopFamily


@choice_named("pair-copula families")
class FamilySet(StrEnum):
    """Which pair-copula families the vine may choose, and how they are estimated, by name."""

    PAPER = "paper"
    PARAMETRIC = "parametric"
    FAST = "fast"
    TLL = "tll"
    GAUSSIAN = "gaussian"


@choice_named("estimation method")
class ParametricMethod(StrEnum):
    """pyvinecopulib's estimators of a parametric pair copula: maximum likelihood, or inversion of Kendall's τ."""

    MLE = "mle"
    ITAU = "itau"


@dataclass(frozen=True)
class FamilyChoice:
    """How the vine chooses each pair copula's family: among ``families``, each estimated by ``parametric_method``,
    the one of lowest AIC."""

    name: FamilySet
    families: tuple
    parametric_method: ParametricMethod
    description: str

    def controls(self, trunc_lvl: int, num_threads: int = 1, **kwargs) -> pv.FitControlsVinecop:
        return pv.FitControlsVinecop(family_set=list(self.families), parametric_method=self.parametric_method,
                                     selection_criterion="aic", trunc_lvl=trunc_lvl, num_threads=num_threads,
                                     **kwargs)


FAMILY_SETS: dict[FamilySet, FamilyChoice] = {p.name: p for p in [
    FamilyChoice(FamilySet.PAPER, (F.indep, F.gaussian, F.student, F.clayton, F.gumbel, F.frank, F.joe,
                                   F.bb1, F.bb6, F.bb7, F.bb8), ParametricMethod.MLE,
                 "the paper's set (pyvinecopulib 0.6 parametric families), MLE, AIC"),
    FamilyChoice(FamilySet.PARAMETRIC, tuple(pv.families.parametric), ParametricMethod.MLE,
                 "pyvinecopulib 1.0.1's full parametric set (paper's + Tawn), MLE, AIC"),
    FamilyChoice(FamilySet.FAST, (F.indep, F.gaussian, F.student, F.clayton, F.gumbel, F.joe), ParametricMethod.ITAU,
                 "families with closed-form h-inverses (plus Student t), inversion of Kendall's tau"),
    FamilyChoice(FamilySet.TLL, (F.indep, F.tll), ParametricMethod.MLE,
                 "nonparametric transformation local-likelihood copulas"),
    FamilyChoice(FamilySet.GAUSSIAN, (F.indep, F.gaussian), ParametricMethod.MLE,
                 "Gaussian pair copulas only (a Gaussian copula; matches the analytic preview exactly)"),
]}

DEFAULT_FAMILY_SET = FamilySet.GAUSSIAN  # chosen by the rule in bench/family_presets.md (both demos agree)
