"""Metrics of one published synthetic set (structure, distance, membership and fidelity): each function takes a
``SyntheticSet`` and returns {metric name: value, or {column: value} for a per-column metric}.

The catalogue names the function that computes a metric (``Metric.compute``); ``release_records``
calls each function once per set, on the first ``DISTANCE_SETS`` sets of every level and baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..data.schema import CATEGORICAL_TYPES, ColumnType
from ..seeding import task_rng, task_seed
from . import anonymity
from .context import EvaluationData
from .distance import dcr, mcmia
from .fidelity import (
    _rank_correlation,
    alpha_precision_beta_recall,
    authenticity,
    column_distances,
    real_spacing,
    spearman_difference,
)
from .membership_attacks import membership_attacks as attack
from .sizes import PMSE_ROWS, SET_ROWS
from .structure import _real_levels as real_levels
from .structure import ci_overlap, coefficient_intervals, pair_structure, pmse_ratio


@dataclass(frozen=True)
class SyntheticSet:
    values: np.ndarray  # (rows, encoded columns)
    data: EvaluationData  # the real training and hold-out rows
    master_seed: int
    label: str  # the generator's record name
    level: int | None
    index: int  # the set's number within its level
    # what several metrics of this set compute alike (the Spearman difference), computed once
    shared: dict = field(default_factory=dict, compare=False, repr=False)


def _once(memo: dict, key, compute):
    """``memo[key]``, computed by ``compute()`` the first time: work several metrics (of one set, or of every set
    on the same real rows) would repeat, done once with the same numbers."""
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _real(s: SyntheticSet, key, compute):
    """Real-side work, the same for every set scored against these real rows (kept on ``s.data``)."""
    return _once(s.data.shared, key, compute)


def _spearman(s: SyntheticSet) -> float:
    real_corr = _real(s, "rank_correlation", lambda: _rank_correlation(s.data.train))
    return _once(s.shared, "spearman_difference", lambda: spearman_difference(s.data.train, s.values, real_corr))


def bounded(s: SyntheticSet, rows: int = SET_ROWS) -> SyntheticSet:
    """The set with at most ``rows`` synthetic, training and hold-out rows each (catalogue ``SET_ROWS``):
    a seeded subsample of its own per set, so the subsampling noise is in the interval over sets."""
    if max(len(s.values), len(s.data.train), len(s.data.test)) <= rows:
        return s
    rng = task_rng(s.master_seed, "set-rows", s.label, s.level, s.index)

    def pick(x: np.ndarray) -> np.ndarray:
        return x if len(x) <= rows else x[np.sort(rng.choice(len(x), rows, replace=False))]

    return replace(s, values=pick(s.values), data=replace(s.data, train=pick(s.data.train), test=pick(s.data.test)),
                   shared={})


def closeness(s: SyntheticSet) -> dict:
    found = dcr(s.values, s.data.train, s.data.test)
    return {"dcr_closer_to_train": found["closer_to_train_share"], "exact_copies": found["exact_copies"]}


def monte_carlo_membership(s: SyntheticSet) -> dict:
    """Training and control samples of equal size m, drawn per set."""
    rng = task_rng(s.master_seed, "mcmia", s.label, s.level, s.index)
    m = min(len(s.data.test), len(s.data.train))
    train_sample = s.data.train[rng.choice(len(s.data.train), size=m, replace=False)]
    control = s.data.test[rng.choice(len(s.data.test), size=m, replace=False)]
    return {"mcmia": mcmia(train_sample, control, s.values)["privacy_score"]}


def fidelity(s: SyntheticSet) -> dict:
    support = alpha_precision_beta_recall(s.data.train, s.values, seed=task_seed(s.master_seed, "fid", s.index))
    distances = column_distances(s.data.train, s.values, s.data.discrete)
    return {"alpha_precision": support["alpha_precision"], "beta_recall": support["beta_recall"],
            "authenticity": authenticity(s.data.train, s.values,
                                         _real(s, "spacing", lambda: real_spacing(s.data.train))),
            "spearman_difference": _spearman(s),
            "column_distance": dict(zip(s.data.names, distances, strict=True))}


def structure(s: SyntheticSet) -> dict:
    """Utility beyond prediction: pairwise dependence, the analysis' intervals, distinguishability."""
    real, response = s.data.train, s.data.response_index
    covariates = [s.data.index(c) for c in s.data.analysis] if s.data.analysis else None
    key = ("intervals", None if covariates is None else tuple(covariates))
    categorical = s.data.categorical
    intervals = _real(s, key, lambda: coefficient_intervals(real, response, categorical, s.data.names, covariates,
                                                            real_levels(real, response, categorical)))
    return {"pair_structure": pair_structure(real, s.values, _spearman(s)),
            "ci_overlap": ci_overlap(real, s.values, response, s.data.categorical, s.data.names,
                                     covariates=covariates, real_intervals=intervals)["ci_overlap"],
            "pmse_ratio": pmse_ratio(real, s.values, s.data.categorical, max_rows=PMSE_ROWS,
                                     seed=task_seed(s.master_seed, "pmse", s.label, s.level, s.index))}


def membership_attacks(s: SyntheticSet) -> dict:
    """The three shadow-free attacks; the headline numbers are the strongest attack's."""
    found = attack(s.values, s.data.train, s.data.test, s.data.categorical,
                   seed=task_seed(s.master_seed, "mia-attacks", s.label, s.level, s.index))
    return {"mia_auc": max(found["auc"].values()),
            "mia_tpr_at_1pct_fpr": max(found["tpr_at_1pct_fpr"].values()),
            "mia_tpr_at_10pct_fpr": max(found["tpr_at_10pct_fpr"].values()),
            "mia_attack_auc": dict(found["auc"])}


def gdpr_criteria(s: SyntheticSet) -> dict:
    """The three anonymisation criteria (``anonymity``) on the set as it is published: every value rounded as the
    released table rounds it (decoded and encoded again), so a value that occurs once is one in the released file.
    Each criterion records its residual risk, the risk's 95 % interval, the three attacks' success rates and the
    number of attacks (``anonymity.Part``); inference per sensitive column."""
    published = s.data.encoder.transform(s.data.encoder.inverse_transform(s.values))
    train, control, categorical = s.data.train, s.data.test, s.data.categorical

    def rng(criterion: str, column: str = ""):
        return task_rng(s.master_seed, "gdpr", criterion, column, s.label, s.level, s.index)

    found = {"singling_out": anonymity.singling_out(published, train, control, categorical, rng("singling_out")),
             "singling_out_univariate": anonymity.singling_out(published, train, control, categorical,
                                                               rng("singling_out_univariate"), mode="univariate"),
             "linkability": anonymity.linkability(published, train, control, categorical, rng("linkability"))}
    out: dict = {}
    for criterion, outcome in found.items():
        out |= {anonymity.criterion_record(criterion, part): value for part, value in outcome.values().items()}
    for column in s.data.schema.sensitive:
        j = s.data.index(column)
        numeric = s.data.schema[column].type not in (*CATEGORICAL_TYPES, ColumnType.DATETIME)
        outcome = anonymity.inference(published, train, control, categorical, j, numeric, rng("inference", column))
        for part, value in outcome.values().items():
            out.setdefault(anonymity.criterion_record("inference", part), {})[column] = value
    return out
