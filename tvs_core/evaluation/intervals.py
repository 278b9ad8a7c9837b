"""Every number carries its spread: percentile bootstraps over the replicates (sets, iterations,
targets); shares such as TP, FP or DCR are replicated too, so they need no separate formula. Where one run's
success count is the number (the GDPR criteria's attacks, a DP audit's trials) its binomial interval is here too."""

from __future__ import annotations

import math
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
class Interval:
    """A value with its interval and what stands behind it, the one type every summary, standing, risk, figure and
    sentence passes (anonymeter's ``PrivacyRisk(value, ci)``, with its count): ``n`` replicates (``kind``
    BOOTSTRAP), trials (WILSON) or redraws (REDRAWS); ``None`` where no count is known (a constant anchor, a level
    table's bounds). Worded only by ``interval_words``: ``words``, ``said``, ``cell`` and ``name`` call it."""

    value: float
    low: float
    high: float
    n: int | None = None
    kind: IntervalKind = IntervalKind.BOOTSTRAP

    @classmethod
    def point(cls, value: float) -> Interval:
        """A constant (an anchor the catalogue fixes, where the run measured none): an interval of no width and no
        count."""
        return cls(float(value), float(value), float(value))

    @property
    def missing(self) -> bool:
        """No value: nothing was measured, or no replicate could be scored."""
        return self.value is None or math.isnan(self.value)

    def words(self, digits: int = 2) -> str:
        """What the interval is, with its ends: "95 % interval 0.00–0.30 (Wilson, 500 trials)"."""
        return interval_words(self.low, self.high, self.n, digits, self.kind)

    def said(self, digits: int = 3) -> str:
        """The value and its interval in a sentence: "0.120 (95 % interval 0.000–0.300 (bootstrap over 20
        values))"."""
        return f"{self.value:.{digits}f} ({self.words(digits)})"

    def cell(self, digits: int = 2) -> str:
        """The value and its interval in a table's cell, "0.12 [0.00, 0.30]" (the table says once what the brackets
        are: ``name``)."""
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def name(self) -> str:
        """What the interval is, without its numbers (a table's caption): ``interval_name``."""
        return interval_name(self.n, self.kind)


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
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "no interval" if n is None or n <= 1 else f"no interval ({n} values)"
    return _wording(f"{low:.{digits}f}–{high:.{digits}f}", n, kind)


def interval_name(n: int | None, kind: IntervalKind = IntervalKind.BOOTSTRAP) -> str:
    """What the range beside a number is, without its numbers, in the words of ``interval_words``: for a table whose
    cells hold a median and its range and say once per row what the range is."""
    return _wording(None, n, kind)


def _wording(span: str | None, n: int | None, kind: IntervalKind) -> str:
    """The one ladder of what an interval is called; ``span`` its ends in words (None: the name alone)."""
    ends = "" if span is None else f" {span}"
    if kind == IntervalKind.WILSON:
        return f"95 % interval{ends} (Wilson" + ("" if n is None else f", {n} trials") + ")"
    if kind == IntervalKind.REDRAWS:
        return f"range{ends} (middle 95 % of {n} redraws within each metric's range)"
    if n is not None and n <= 1:
        return "a single value, no interval"
    if n is None or n >= SMALL_N:
        return f"95 % interval{ends}" + ("" if n is None else f" (bootstrap over {n} values)")
    return f"spread{ends} of only {n} values (too few for a 95 % interval)"


def interval_rule() -> str:
    """The rule ``interval_words`` follows, said once above a table of intervals or in a report's method: "a 95 %
    interval (bootstrap over at least 10 values) where there are that many replicates, else ..."."""
    return (f"a 95 % interval (bootstrap over at least {SMALL_N} values) where there are that many replicates, else "
            f"only the spread of those few values, which is not a 95 % interval")


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
