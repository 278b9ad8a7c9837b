"""choice/gdpr.py: the verdict on each anonymisation criterion (Article 29 WP) at one point of a sweep."""

import math

import pandas as pd
import pytest

from tvs_core.choice.gdpr import HIGH, criterion_verdict, gdpr_table, gdpr_verdicts, point_verdicts, risk_key
from tvs_core.evaluation.intervals import Interval, IntervalKind
from tvs_core.evaluation.metrics.gdpr import Part, criterion_record
from tvs_core.evaluation.records import HOLDER


def measured(criterion, risk, low, high, main=0.6, baseline=0.1, attacks=200, sets=5, column=None) -> dict:
    """One criterion's parts as a ``summary.json`` entry's ``metrics`` hold them (medians over ``sets`` sets)."""
    values = {Part.RISK: (risk, low, high), Part.RISK_LOW: (low, low, low), Part.RISK_HIGH: (high, high, high),
              Part.MAIN_RATE: (main,) * 3, Part.BASELINE_RATE: (baseline,) * 3, Part.ATTACKS: (attacks,) * 3}
    suffix = "" if column is None else f":{column}"
    return {criterion_record(criterion, part) + suffix: {"median": m, "ci_low": lo, "ci_high": hi, "n": sets}
            for part, (m, lo, hi) in values.items()}


def test_the_risk_key_names_the_criterion_and_its_column():
    assert risk_key("linkability") == "linkability_risk"
    assert risk_key("inference", "cost") == "inference_risk:cost"
    assert risk_key("inference", "") == "inference_risk"  # an empty column is no column


@pytest.mark.parametrize(("low", "risk", "verdict"), [(0.0, 0.3, "none"), (0.0, 0.9, "none"), (0.01, 0.2, "measurable"),
                                                      (0.2, HIGH - 1e-9, "measurable"), (0.3, HIGH, "high"),
                                                      (0.8, 1.0, "high")])
def test_the_verdict_follows_the_interval_then_the_risk(low, risk, verdict):
    """An interval reaching 0 is no measurable risk whatever the median; otherwise HIGH splits measurable from
    high."""
    found = criterion_verdict(measured("linkability", risk, low, max(risk, low) + 0.05), "linkability")
    assert found.verdict == verdict
    assert ("no measurable risk" in found.sentence) == (verdict == "none")
    assert ("HIGH risk" in found.sentence) == (verdict == "high")


def test_a_verdict_carries_the_numbers_it_rests_on():
    found = criterion_verdict(measured("inference", 0.3, 0.1, 0.45, attacks=149.6, sets=7, column="cost"),
                              "inference", "cost")
    assert (found.key, found.name) == ("inference_risk:cost", "Inference of cost")
    assert (found.risk, found.sets) == (Interval(0.3, 0.1, 0.45, 150, IntervalKind.WILSON), 7)
    assert "infer cost of a person" in found.sentence
    # a Wilson interval of one set's attacks (rounded to a whole count), then the number of sets behind the median
    quoted = "residual risk 0.30, 95 % interval 0.10–0.45 (Wilson, 150 trials) of one set, median over 7"
    assert quoted in found.sentence


def test_an_attack_no_better_than_the_blind_baseline_is_said_so():
    """With no risk the release gave nothing to work with; with a risk the figures are not to be trusted."""
    safe = criterion_verdict(measured("linkability", 0.0, 0.0, 0.1, main=0.1, baseline=0.1), "linkability")
    assert not safe.beats_baseline and "did no better than guessing blindly" in safe.sentence
    assert "not to be trusted" not in safe.sentence
    risky = criterion_verdict(measured("linkability", 0.4, 0.2, 0.6, main=0.1, baseline=0.3), "linkability")
    assert not risky.beats_baseline and "these figures are not to be trusted" in risky.sentence
    fine = criterion_verdict(measured("linkability", 0.4, 0.2, 0.6, main=0.5, baseline=0.3), "linkability")
    assert fine.beats_baseline and "guessing blindly" not in fine.sentence


def test_a_criterion_not_measured_has_no_verdict():
    assert criterion_verdict({}, "linkability") is None
    unmeasured = measured("linkability", 0.2, 0.1, 0.3)
    unmeasured["linkability_risk"] = {"median": None, "ci_low": None, "ci_high": None, "n": 0}
    assert criterion_verdict(unmeasured, "linkability") is None


def test_a_criterion_whose_every_set_had_no_attack_has_no_verdict():
    """A set where the criterion could not be attacked records a NaN risk (``AttackOutcome.risk``); when every set
    did, the summary's median is NaN. That is a criterion not measured, not a 'measurable risk' of nan."""
    found = measured("singling_out_univariate", math.nan, math.nan, math.nan, main=math.nan, baseline=math.nan,
                     attacks=0)
    for part in found.values():
        part["n"] = 0
    assert criterion_verdict(found, "singling_out_univariate") is None


def test_every_measured_criterion_is_listed_in_a_fixed_order():
    metrics = (measured("inference", 0.1, 0.0, 0.2, column="b") | measured("linkability", 0.1, 0.0, 0.2)
               | measured("inference", 0.1, 0.0, 0.2, column="a") | measured("singling_out", 0.1, 0.0, 0.2))
    keys = [v.key for v in gdpr_verdicts(metrics, ["a", "b", "c"])]
    # univariate singling out and column c were not measured: left out, not reported empty
    assert keys == ["singling_out_risk", "linkability_risk", "inference_risk:a", "inference_risk:b"]
    assert [v.key for v in gdpr_verdicts(metrics, ["b"])][-1] == "inference_risk:b"
    assert gdpr_verdicts({}, ["a"]) == []


def rows_of(model, level, criterion, risk, low, high, column=None):
    """A criterion's summary rows at one point (main attack better than the baseline, 200 attacks)."""
    values = {Part.RISK: risk, Part.RISK_LOW: low, Part.RISK_HIGH: high, Part.MAIN_RATE: 0.6,
              Part.BASELINE_RATE: 0.1, Part.CONTROL_RATE: 0.1, Part.ATTACKS: 200}
    return [(model, level, criterion_record(criterion, part), column, value) for part, value in values.items()]


@pytest.fixture
def criteria(summary_of):
    """Levels 1 and 2 of the holder, level 3 without the criteria, a baseline, a competitor with levels."""
    return summary_of(rows_of(HOLDER, 1, "linkability", 0.0, 0.0, 0.1)
                      + rows_of(HOLDER, 2, "linkability", 0.6, 0.4, 0.8)
                      + rows_of(HOLDER, 2, "inference", 0.2, 0.1, 0.3, column="a")
                      + rows_of("independent", None, "linkability", 0.05, 0.0, 0.1)
                      + rows_of("ctgan", 1, "linkability", 0.9, 0.8, 1.0)
                      + [(HOLDER, 3, "mab", "a", 0.1)])


def test_the_verdicts_of_a_point_are_its_own(criteria):
    assert [(v.key, v.verdict) for v in point_verdicts(criteria, ["a"], level=1)] == [("linkability_risk", "none")]
    assert [(v.key, v.verdict) for v in point_verdicts(criteria, ["a"], level=2)] == [
        ("linkability_risk", "high"), ("inference_risk:a", "measurable")]
    assert [v.risk.value for v in point_verdicts(criteria, ["a"], "independent")] == [0.05]
    assert point_verdicts(criteria, ["a"], level=3) == []  # a level without the criteria


def test_the_table_has_a_row_per_level_and_per_baseline_that_measured_them(criteria):
    table = gdpr_table(criteria, ["a"], [1, 2, 3], label=str.upper)
    # level 3 measured no criterion; a model with levels of its own (ctgan) is no baseline point
    assert table["point"].tolist() == ["level 1", "level 2", "INDEPENDENT"]
    assert table.loc[1, "Linkability"] == "0.60 [0.40, 0.80]"
    assert table.loc[1, "Inference of a"] == "0.20 [0.10, 0.30]"
    assert pd.isna(table.loc[0, "Inference of a"])  # level 1 did not measure inference
    assert gdpr_table(criteria, ["a"], [3]).columns.tolist() == ["point", "Linkability"]  # the baseline's
