"""Every number carries its spread: percentile bootstraps over the replicates (sets, iterations,
targets); shares such as TP, FP or DCR are replicated too, so they need no separate formula."""

from __future__ import annotations

import numpy as np


def bootstrap_interval(values, statistic=np.median, confidence: float = 0.95, n_boot: int = 2000,
                       seed: int = 0) -> tuple[float, float, float]:
    """(estimate, low, high): percentile bootstrap over the given replicates (sets or iterations)."""
    x = np.asarray(values, dtype=float)
    x = np.sort(x[~np.isnan(x)])  # replicates arrive in any order; the interval must not care
    if len(x) == 0:
        return (float("nan"),) * 3
    estimate = float(statistic(x))
    if len(x) == 1:
        return estimate, estimate, estimate
    rng = np.random.default_rng(seed)
    draws = statistic(x[rng.integers(0, len(x), size=(n_boot, len(x)))], axis=1)
    tail = (1 - confidence) / 2
    return estimate, float(np.quantile(draws, tail)), float(np.quantile(draws, 1 - tail))

