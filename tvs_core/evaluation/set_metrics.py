"""One published synthetic set, as every metric of a set reads it (``SyntheticSet``), and the work several of them
share: each family of ``evaluation/metrics/`` computes its metrics of a set from here (``Metric.compute``: a
``SyntheticSet`` in, {metric name: value, or {column: value} for a per-column metric} out); ``release_records``
calls each such function once per set, on the first ``DISTANCE_SETS`` sets of every level and baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from ..seeding import task_rng
from .context import EvaluationData
from .distance import as_matrix
from .sizes import SET_ROWS


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


def once(memo: dict, key, compute):
    """``memo[key]``, computed by ``compute()`` the first time: work several metrics (of one set, or of every set
    on the same real rows) would repeat, done once with the same numbers."""
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def on_real(s: SyntheticSet, key, compute):
    """Real-side work, the same for every set scored against these real rows (kept on ``s.data``)."""
    return once(s.data.shared, key, compute)


def spearman(s: SyntheticSet) -> float:
    """The set's mean |Spearman difference| from the real rows: fidelity reports it, pair structure is built on it."""
    real_corr = on_real(s, "rank_correlation", lambda: _rank_correlation(s.data.train))
    return once(s.shared, "spearman_difference", lambda: spearman_difference(s.data.train, s.values, real_corr))


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


# -- the rank correlations fidelity (``spearman_difference``) and structure (``pair_structure``) share ----------
def _rank_correlation(x: np.ndarray) -> np.ndarray:
    """Spearman matrix = Pearson on mid-ranks; pairs with a constant column get 0, not NaN."""
    ranks = stats.rankdata(x, axis=0)
    centred = ranks - ranks.mean(axis=0)
    norm = np.sqrt((centred**2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = (centred.T @ centred) / np.outer(norm, norm)
    return np.nan_to_num(corr, nan=0.0, posinf=0.0, neginf=0.0)


def spearman_difference(real: np.ndarray, synthetic: np.ndarray, real_corr: np.ndarray | None = None) -> float:
    """Mean |rho_real - rho_synthetic| over the off-diagonal upper triangle of the Spearman matrices
    (constant columns count as rho = 0); 0 for a single column. ``real_corr``: the real rows' matrix
    (``_rank_correlation``), when known."""
    real_x = as_matrix(real, "real")
    syn_x = as_matrix(synthetic, "synthetic")
    if real_x.shape[1] != syn_x.shape[1]:
        raise ValueError("real and synthetic need the same columns")
    upper = np.triu_indices(real_x.shape[1], k=1)
    if len(upper[0]) == 0:
        return 0.0
    diff = np.abs((_rank_correlation(real_x) if real_corr is None else real_corr) - _rank_correlation(syn_x))
    return float(diff[upper].mean())
