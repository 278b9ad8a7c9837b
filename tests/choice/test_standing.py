"""choice/standing.py: a value read against its two anchors, each with its spread (issue 45, finding 5)."""

import math

import pytest

from tvs_core.choice.standing import MODERATE, SMALL, Reading, Standing, overlaps, point
from tvs_core.evaluation.intervals import Interval

REAL, SHUFFLED = Interval(0.4, 0.38, 0.42, 20), Interval(0.0, -0.02, 0.02, 20)  # an attack's anchors, lower = safer


def at(median, low=None, high=None, n=20):
    return Standing(Interval(median, median if low is None else low, median if high is None else high, n), REAL,
                    SHUFFLED)


def test_intervals_overlap_when_they_share_a_value_and_a_missing_interval_is_its_median():
    assert overlaps(Interval(0.1, 0.0, 0.2, 5), Interval(0.2, 0.2, 0.3, 5))
    assert not overlaps(Interval(0.1, 0.0, 0.19, 5), Interval(0.2, 0.2, 0.3, 5))
    assert overlaps(Interval(0.2, math.nan, math.nan, 1), point(0.2))


@pytest.mark.parametrize(("value", "reading"), [
    (0.41, Reading.WORST),  # past the real rows' median, within their spread: as the real data, never "-0.03"
    (0.39, Reading.WORST), (0.01, Reading.IDEAL), (-0.01, Reading.IDEAL),  # within the shuffled floor's spread
    (-0.1, Reading.IDEAL),  # below the floor by more than the spreads: noise, read as the floor
    (0.5, Reading.BEYOND),  # past the real rows by more than the spreads: said
    (0.4 * (1 - SMALL), Reading.SMALL), (0.4 * (1 - MODERATE) + 0.001, Reading.LARGE), (0.2, Reading.MODERATE)])
def test_a_value_within_the_spread_of_an_anchor_reads_as_the_anchor(value, reading):
    assert at(value).reading is reading


def test_the_value_spread_counts_too_and_decides_whether_the_reading_is_settled():
    wide = at(0.35, 0.3, 0.41)  # reaches the real rows' spread: read as them, but one end reads "large"
    assert wide.reading is Reading.WORST and not wide.settled
    narrow = at(0.1, 0.09, 0.11)
    assert narrow.reading is Reading.SMALL and narrow.settled and narrow.share == pytest.approx(0.75)
    assert not at(0.1, 0.05, 0.19).settled  # 0.05 reads small, 0.19 moderate: more replicates could change it


def test_without_anchors_or_a_value_there_is_no_reading():
    assert Standing(None, REAL, SHUFFLED).reading is Reading.UNKNOWN
    assert Standing(Interval(0.1, 0.1, 0.1, 3), None, SHUFFLED).reading is Reading.UNKNOWN
    assert math.isnan(Standing(Interval(0.1, 0.1, 0.1, 3), point(0.2), point(0.2)).share)  # no scale


def test_a_higher_is_better_scale_reads_the_same_way():
    """Utility: 0 at chance (0.5), 1 at the real data's AUC (0.9 ± 0.01)."""
    tstr = Standing(Interval(0.895, 0.89, 0.9, 20), point(0.5), Interval(0.9, 0.89, 0.91, 20))
    assert tstr.reading is Reading.IDEAL
    assert Standing(Interval(0.7, 0.69, 0.71, 20), point(0.5), point(0.9)).share == pytest.approx(0.5)
