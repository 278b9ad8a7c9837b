"""Every number carries its spread: bootstrap intervals for medians and means, Wilson for shares."""

from __future__ import annotations

import numpy as np
from scipy import stats


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


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(share, low, high) for a proportion; sensible at 0 and 1 where the normal interval is not."""
    if n == 0:
        return (float("nan"),) * 3
    z = stats.norm.ppf(1 - (1 - confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(p), float(max(0.0, centre - half)), float(min(1.0, centre + half))
