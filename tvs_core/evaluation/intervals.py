"""Every number carries its spread: percentile bootstraps over the replicates (sets, iterations,
targets); shares such as TP, FP or DCR are replicated too, so they need no separate formula. Where one run's
success count is the number (the GDPR criteria's attacks, a DP audit's trials) its binomial interval is here too."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy.stats import beta, norm


class IntervalKind(StrEnum):
    """What an interval is: a bootstrap of a median over replicates, a Wilson interval of one run's success count,
    or the range of a score redrawn within its metrics' ranges (PU's, no confidence interval)."""

    BOOTSTRAP = "bootstrap"
    WILSON = "wilson"
    REDRAWS = "redraws"


@dataclass(frozen=True)
class Risk:
    """A risk with its interval, as anonymeter's ``PrivacyRisk(value, ci)`` types it, and the count behind it:
    ``n`` attacks (``kind`` WILSON) or replicates (BOOTSTRAP). Worded by ``interval_words``, the one wording."""

    value: float
    low: float
    high: float
    n: int | None
    kind: IntervalKind = IntervalKind.BOOTSTRAP

    def words(self, digits: int = 2) -> str:
        """The value and what its interval is: "0.12, 95 % interval 0.00–0.30 (Wilson, 500 trials)"."""
        return f"{self.value:.{digits}f}, {interval_words(self.low, self.high, self.n, digits, self.kind)}"

    def cell(self, digits: int = 2) -> str:
        """The value and its interval in a table's cell, "0.12 [0.00, 0.30]" (the table says once what the brackets
        are: ``interval_name``)."""
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


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



# fewer replicates than this: a bootstrap interval of their median is little more than their range, so it is
# named a spread of a few values, never a 95 % interval
SMALL_N = 10


def interval_words(low: float, high: float, n: int | None, digits: int = 2,
                   kind: IntervalKind = IntervalKind.BOOTSTRAP) -> str:
    """What an interval is, in the words every screen, the report, the manifest and the figures' legends use: a
    "95 % interval" only where it is one (a bootstrap over at least ``SMALL_N`` replicates, or a Wilson interval of a
    count), else "a spread of N values", which says how few stand behind it; ``kind='redraws'``: the range of a score
    recomputed ``n`` times with every metric redrawn within its own range (PU's), which is no confidence
    interval."""
    import math

    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "no interval" if n is None or n <= 1 else f"no interval ({n} values)"
    span = f"{low:.{digits}f}–{high:.{digits}f}"
    if kind == IntervalKind.WILSON:
        return f"95 % interval {span} (Wilson, {n} trials)"
    if kind == IntervalKind.REDRAWS:
        return f"range {span} ({interval_name(n, kind)})"
    if n is not None and n <= 1:
        return "a single value, no interval"
    if n is None or n >= SMALL_N:
        return f"95 % interval {span}" + ("" if n is None else f" (bootstrap over {n} values)")
    return f"spread {span} of only {n} values (too few for a 95 % interval)"


def interval_name(n: int | None, kind: IntervalKind = IntervalKind.BOOTSTRAP) -> str:
    """What the range beside a number is, without its numbers, in the words of ``interval_words`` (shorter: a table's
    caption says that a spread is not a 95 % interval): for a table whose cells hold a median and its range and say
    once per row what the range is."""
    if kind == IntervalKind.WILSON:
        return f"95 % interval (Wilson, {n} trials)"
    if kind == IntervalKind.REDRAWS:
        return f"middle 95 % of {n} redraws within each metric's range"
    if n is not None and n <= 1:
        return "a single value, no interval"
    if n is None or n >= SMALL_N:
        return "95 % interval" + ("" if n is None else f" (bootstrap over {n} values)")
    return f"spread of only {n} values"


def wilson(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """(centre, half-width) of the Wilson score interval of a success rate (Wilson 1927): the estimate and error
    Giomi et al. (PETS 2023, anonymeter's ``stats/confidence.py``) give every attack's success rate; robust at
    rates near 0 or 1 and for few trials, where the plain proportion's normal interval collapses."""
    z = float(norm.ppf(0.5 * (1 + confidence)))
    n, k = float(trials), float(successes)
    if n <= 0:
        return float("nan"), float("nan")
    spread = k * (n - k) / n
    return (k + 0.5 * z * z) / (n + z * z), z / (n + z * z) * float(np.sqrt(max(spread, 0.0) + 0.25 * z * z))


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """One-sided (1 - alpha) Clopper-Pearson bounds of a binomial rate: (lower, upper), each exact (beta
    quantiles), the bounds DP auditing turns into an empirical epsilon (Jagielski et al. 2020)."""
    k, n = int(successes), int(trials)
    low = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return low, high
