"""Where a level's value stands between the two anchors measured in the same run, each with its spread.

Every privacy and utility scale runs between two anchors (``catalogue``): the worst end (the attack on the real rows
themselves; chance, or independent columns, for a utility) and the ideal one (nothing to learn: the real rows
shuffled column by column; the real data, for a utility). A value whose interval reaches an anchor's is read *as*
that anchor — "about as much as from the real data", "no more than from shuffled columns" — never as a scaled score
a hair beyond it ("-0.00", "does better than the real data itself"): within the spread the run cannot tell them
apart. The verdicts (``verdicts``) and the levels table's "beyond the anchors" (``selection``) read values this way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from ..evaluation.intervals import Interval

WORST, IDEAL = "worst", "ideal"


class Reading(StrEnum):
    """A value's place on its scale, from the ideal end to the worst."""

    IDEAL = "at the ideal anchor"  # within the spread of the ideal end (nothing learnt / as the real data)
    SMALL = "small"
    MODERATE = "moderate"
    LARGE = "large"
    WORST = "at the worst anchor"  # within the spread of the worst end
    BEYOND = "beyond the worst anchor"  # past the worst end, by more than the spreads
    UNKNOWN = "unknown"  # not measured, or no anchors to read it against


# the scaled score (1: the ideal end) from which a value reads small, then moderate; below MODERATE it is large
SMALL, MODERATE = 0.6, 0.3


def point(value: float) -> Interval:
    """A constant anchor (the catalogue's, where the run measured none): an interval of no width."""
    return Interval.point(value)


def _ends(found: Interval) -> tuple[float, float]:
    low, high = found.low, found.high
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return found.value, found.value
    return min(low, found.value), max(high, found.value)


def overlaps(a: Interval, b: Interval) -> bool:
    """The two intervals share a value (an interval that could not be computed is its median alone)."""
    (a_low, a_high), (b_low, b_high) = _ends(a), _ends(b)
    return a_low <= b_high and b_low <= a_high


@dataclass(frozen=True)
class Standing:
    value: Interval | None  # the level's median, interval and replicates (None: not measured)
    worst: Interval | None  # the end that scores 0
    ideal: Interval | None  # the end that scores 1

    def scaled(self, x: float) -> float:
        """``x`` on the scale: 0 at the worst anchor's median, 1 at the ideal one's (NaN without both)."""
        if self.worst is None or self.ideal is None or self.worst.value == self.ideal.value or math.isnan(x):
            return math.nan
        return (self.worst.value - x) / (self.worst.value - self.ideal.value)

    @property
    def share(self) -> float:
        """The value's scaled score, unclipped."""
        return math.nan if self.value is None else self.scaled(self.value.value)

    @property
    def scaled_ends(self) -> tuple[float, float]:
        """The value's interval on the scale, (lower score, higher score)."""
        if self.value is None:
            return math.nan, math.nan
        a, b = (self.scaled(x) for x in _ends(self.value))
        return (min(a, b), max(a, b)) if not (math.isnan(a) or math.isnan(b)) else (math.nan, math.nan)

    def _reading_of(self, share: float, at_ideal: bool, at_worst: bool) -> Reading:
        if math.isnan(share):
            return Reading.UNKNOWN
        if at_ideal and not at_worst:
            return Reading.IDEAL
        if at_worst and not at_ideal:
            return Reading.WORST
        if share >= 1:
            return Reading.IDEAL  # below the nothing-learnt floor by more than the spreads: noise, read as the floor
        if share < 0:
            return Reading.BEYOND
        return Reading.SMALL if share >= SMALL else Reading.MODERATE if share >= MODERATE else Reading.LARGE

    @property
    def reading(self) -> Reading:
        if self.value is None or self.worst is None or self.ideal is None:
            return Reading.UNKNOWN
        return self._reading_of(self.share, overlaps(self.value, self.ideal), overlaps(self.value, self.worst))

    @property
    def one_sided(self) -> bool:
        """Read as an anchor only because its interval reaches that anchor's spread, its whole interval lying on one
        side of the anchor's value: worse than the ideal end's median (a membership AUC of 0.541–0.554 against a
        noise floor of 0.507 whose own spread reaches 0.56), or better than the worst end's. A sentence that reads
        it as the anchor must say why (``verdicts.read_as_anchor``)."""
        reading = self.reading
        if reading not in (Reading.IDEAL, Reading.WORST):
            return False
        low, high = self.scaled_ends
        return high < 1 if reading is Reading.IDEAL else low > 0

    @property
    def settled(self) -> bool:
        """Both ends of the value's interval read the same: more replicates would narrow it, not change the
        reading. (A spread of too few values for a 95 % interval is never settled: ``verdicts`` says so.)"""
        if self.value is None or self.reading is Reading.UNKNOWN:
            return False
        low, high = _ends(self.value)
        ends = [self._reading_of(self.scaled(x), overlaps(point(x), self.ideal), overlaps(point(x), self.worst))
                for x in (low, high)]
        return ends[0] == ends[1] == self.reading
