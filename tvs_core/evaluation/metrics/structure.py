"""Structure: whether the published data keeps what relates the columns to each other — every pair's rank
correlation, an analyst's regression of Y, and how hard synthetic rows are to tell from real ones. Computed on
one published set by ``structure`` below (the methods in ``evaluation/structure.py``); listed with
utility."""

from __future__ import annotations

from ...seeding import task_seed
from ..records import SHUFFLED
from ..set_metrics import SyntheticSet, on_real, spearman
from ..sizes import PMSE_ROWS
from ..structure import _real_levels as real_levels
from ..structure import ci_overlap, coefficient_intervals, pair_structure, pmse_ratio
from .base import AxisKind, Direction, Family, Group, Metric, Reference, Source, register


def structure(s: SyntheticSet) -> dict:
    """Utility beyond prediction: pairwise dependence, the analysis' intervals, distinguishability."""
    real, response = s.data.train, s.data.response_index
    covariates = [s.data.index(c) for c in s.data.analysis] if s.data.analysis else None
    key = ("intervals", None if covariates is None else tuple(covariates))
    categorical = s.data.categorical
    intervals = on_real(s, key, lambda: coefficient_intervals(real, response, categorical, s.data.names, covariates,
                                                            real_levels(real, response, categorical)))
    return {"pair_structure": pair_structure(real, s.values, spearman(s)),
            "ci_overlap": ci_overlap(real, s.values, response, s.data.categorical, s.data.names,
                                     covariates=covariates, real_intervals=intervals)["ci_overlap"],
            "pmse_ratio": pmse_ratio(real, s.values, s.data.categorical, max_rows=PMSE_ROWS,
                                     seed=task_seed(s.master_seed, "pmse", s.label, s.level, s.index))}


def _scaled_to_shuffled(name: str, label: str, short: str, unit: str, better: Direction, value_range: tuple,
                        explanation: str, question: str, **more) -> Metric:
    """A structure metric is a utility axis computed on one published set by ``structure``, scored from
    the real rows shuffled column by column (0: the relations between columns gone) to 1."""
    return Metric(name, label, short, unit, better, value_range, Group.UTILITY, Source.RELEASE, explanation,
                  axis=AxisKind.UTILITY, worst=Reference(name, SHUFFLED), ideal=1.0, question=question,
                  **more)


STRUCTURE = register(Family("structure", 20, (
    _scaled_to_shuffled(
        "pair_structure", "Pairwise dependence kept (1 − mean |Spearman difference|)", "Pair structure",
        "1 − mean |Δρ|", Direction.HIGHER, (-1.0, 1.0),
        "How much of the relations between every pair of columns the synthetic set keeps, whether or not they "
        "involve Y: 1 minus the average gap between each pair's real and synthetic rank correlation (Spearman). "
        "Scaled from independent columns (the real rows shuffled column by column: 0) to the real relations (1).",
        "How much of the relations between columns the synthetic data keep (higher is more useful)"),
    _scaled_to_shuffled(
        "ci_overlap", "Confidence-interval overlap of the analysis (Karr et al. 2006)", "CI overlap", "share",
        Direction.HIGHER, (float("-inf"), 1.0),
        "Whether an analyst would reach the same conclusions: the regression of Y on the covariates (logistic for a "
        "class response, linear otherwise) is fitted on the real training rows and on the synthetic set, and each "
        "coefficient's 95 % confidence intervals are compared; 1 means they coincide, 0 that they only touch, and "
        "below 0 how many interval widths apart they lie (without a lower bound, as in synthpop). Scaled from "
        "independent columns (0) to identical intervals (1).",
        "How far an analysis of Y on the synthetic data reaches the real data's conclusions (higher is more useful)"),
    _scaled_to_shuffled(
        "pmse_ratio", "Propensity-score MSE ratio (pMSE ratio, synthpop)", "pMSE ratio", "ratio", Direction.LOWER,
        (0.0, None),
        "How easily a model tells synthetic rows from real ones, relative to what chance alone gives: about 1 means "
        "they cannot be told apart, larger means they can (propensity-score mean squared error, Snoke et al. "
        "2018).",
        "How easily synthetic rows are told apart from real ones (lower is more useful)", rows=PMSE_ROWS),
), compute=structure))
