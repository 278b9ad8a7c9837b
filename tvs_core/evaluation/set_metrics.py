"""One published synthetic set, as every metric of a set reads it (``SyntheticSet``), and the work several of them
share: each family of ``evaluation/metrics/`` computes its metrics of a set from here (``Metric.compute``: a
``SyntheticSet`` in, {metric name: value, or {column: value} for a per-column metric} out); ``release_records``
calls each such function once per set, on the first ``DISTANCE_SETS`` sets of every level and baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..seeding import task_rng
from .context import EvaluationData
from .fidelity import _rank_correlation, spearman_difference
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
