"""choice/officer.py: the report's first page, one verdict per question, on hand-written summaries."""

import pytest

from tvs_core.choice.officer import (
    KINDS,
    _columns,
    attribute_line,
    criteria_line,
    dp_line,
    membership_line,
)
from tvs_core.evaluation.anonymity import Part, criterion_record
from tvs_core.evaluation.dp_audit import AuditResult
from tvs_core.evaluation.records import HOLDER, RAW, REAL, SHUFFLED


def anchors(worst: dict, ideal: dict) -> list[tuple]:
    """The attribute game's anchors per column: its attack on the real rows (0 %) and the release attack on
    shuffled columns (100 %)."""
    return ([(RAW, None, "mab", column, value) for column, value in worst.items()]
            + [(SHUFFLED, None, "release_mab", column, value) for column, value in ideal.items()])


def test_sensitive_columns_are_listed_as_a_person_says_them():
    assert _columns(["a"]) == "a"
    assert _columns(["a", "b"]) == "a or b"
    assert _columns(["a", "b", "c"]) == "a, b or c"


def test_the_attribute_line_names_the_least_protected_column_and_its_share(summary_of):
    """a is 50 % of the way to nothing to learn ((0.4 - 0.2) / 0.4), b only 25 % ((0.2 - 0.15) / 0.2): b is the
    least protected although its MAB is the smaller."""
    summary = summary_of([(HOLDER, 1, "mab", "a", 0.2, 0.15, 0.25), (HOLDER, 1, "mab", "b", 0.15, 0.1, 0.2)]
                         + anchors({"a": 0.4, "b": 0.2}, {"a": 0.0, "b": 0.0}))
    line = attribute_line(summary, ["a", "b"], 1)
    assert line.kind == "info" and line.topic == "Attribute inference"
    assert line.sentence.startswith("Attribute inference (guessing a or b of a person from their other columns): ")
    assert "removes 25 % of what the real rows let an attacker learn about b, the least protected" in line.sentence
    assert "Attack game MAB 0.150, 95 % interval 0.100–0.200 (bootstrap over 20 values)" in line.sentence
    assert "0.200 on the real rows, 0.000 on shuffled columns" in line.sentence


@pytest.mark.parametrize(("mab", "kind", "words"), [
    (0.0, "ok", "learns no more about a than from shuffled columns"),
    (-0.01, "ok", "learns no more about a than from shuffled columns"),  # below the floor: noise
    (0.4, "warn", "learns as much about a as from the real rows, or more"),
    (0.5, "warn", "learns as much about a as from the real rows, or more"),
    (0.3, "info", "removes 25 % of what"),
])
def test_the_attribute_verdict_follows_the_share_between_the_anchors(summary_of, mab, kind, words):
    summary = summary_of([(HOLDER, 2, "mab", "a", mab)] + anchors({"a": 0.4}, {"a": 0.0}))
    line = attribute_line(summary, ["a"], 2)
    assert line.kind == kind and words in line.sentence
    assert "least protected" not in line.sentence  # one column: no other to compare with


def test_the_attribute_line_reads_the_release_attack_until_the_game_reports(summary_of):
    summary = summary_of([(HOLDER, 1, "release_mab", "a", 0.2), (REAL, None, "release_mab", "a", 0.4),
                          (SHUFFLED, None, "release_mab", "a", 0.0)])
    line = attribute_line(summary, ["a"], 1)
    assert "Release MAB 0.200" in line.sentence and "removes 50 %" in line.sentence


def test_the_attribute_line_says_what_it_cannot_compare(summary_of):
    summary = summary_of([(HOLDER, 1, "mab", "a", 0.2, 0.1, 0.3, 3)])  # no real-data reference at all
    line = attribute_line(summary, ["a"], 1)
    assert line.kind == "info" and "the sweep has no real-data anchors to compare it with" in line.sentence
    assert "spread 0.100–0.300 of only 3 values" in line.sentence  # three values are no 95 % interval
    missing = attribute_line(summary, ["a"], 2)
    assert missing.kind == "info" and missing.sentence.endswith("not measured at level 2 yet.")


@pytest.mark.parametrize(("low", "kind", "words"), [(0.45, "ok", "no measurable risk"), (0.5, "ok", "no measurable"),
                                                    (0.51, "warn", "a measurable risk")])
def test_membership_is_a_risk_when_the_attack_interval_stays_above_chance(summary_of, low, kind, words):
    summary = summary_of([(HOLDER, 1, "mia_auc", None, 0.6, low, 0.7), (REAL, None, "mia_auc", None, 0.93)])
    line = membership_line(summary, 1)
    assert line.kind == kind and words in line.sentence
    assert f"AUC 0.60, 95 % interval {low:.2f}–0.70" in line.sentence
    assert "the real rows themselves give 0.93" in line.sentence


def test_membership_quotes_the_privacy_gain_and_says_when_nothing_reported(summary_of):
    summary = summary_of([(HOLDER, 1, "pg", None, 0.8, 0.7, 0.9), (HOLDER, 2, "mab", "a", 0.1)])
    line = membership_line(summary, 1)
    assert line.kind == "info"  # PG alone has no verdict rule
    assert "privacy gain PG is 0.80 (95 % interval 0.70–0.90" in line.sentence and "AUC" not in line.sentence
    nothing = membership_line(summary, 2)
    assert nothing.kind == "info" and "no membership attack has reported at level 2" in nothing.sentence


def criterion(level, name, risk, low, high, main=0.6, baseline=0.1):
    values = {Part.RISK: risk, Part.RISK_LOW: low, Part.RISK_HIGH: high, Part.MAIN_RATE: main,
              Part.BASELINE_RATE: baseline, Part.ATTACKS: 200}
    return [(HOLDER, level, criterion_record(name, part), None, value) for part, value in values.items()]


def test_the_criteria_line_is_marked_as_its_worst_criterion(summary_of):
    summary = summary_of(criterion(1, "linkability", 0.0, 0.0, 0.1) + criterion(1, "singling_out", 0.0, 0.0, 0.1)
                         + criterion(2, "linkability", 0.0, 0.0, 0.1) + criterion(2, "singling_out", 0.2, 0.1, 0.3)
                         + criterion(3, "linkability", 0.7, 0.6, 0.8) + criterion(3, "singling_out", 0.2, 0.1, 0.3))
    assert [criteria_line(summary, [], level).kind for level in (1, 2, 3)] == ["ok", "warn", "block"]
    line = criteria_line(summary, [], 3).sentence
    assert line.startswith("Against the anonymisation criteria of the GDPR")
    assert "linkability — a HIGH risk (residual risk 0.70, 95 % interval 0.60–0.80 (Wilson, 200 trials))" in line
    assert "singling out — a measurable risk (residual risk 0.20" in line
    assert list(KINDS.values()) == ["ok", "warn", "block"]  # the order the worst is taken in


def test_the_criteria_line_distrusts_only_a_risk_the_blind_baseline_matches(summary_of):
    summary = summary_of(criterion(1, "linkability", 0.0, 0.0, 0.1, main=0.1, baseline=0.2)
                         + criterion(2, "linkability", 0.3, 0.1, 0.4, main=0.1, baseline=0.2))
    assert "not to be trusted" not in criteria_line(summary, [], 1).sentence  # no risk: nothing to distrust
    assert "Where an attack did no better than guessing blindly" in criteria_line(summary, [], 2).sentence


def test_a_sweep_without_the_criteria_says_so(summary_of):
    line = criteria_line(summary_of([(HOLDER, 1, "mab", "a", 0.1)]), ["a"], 1)
    assert line.kind == "info" and "were not measured in this sweep" in line.sentence


def audit(model, claimed, empirical):
    return AuditResult(model, claimed, 0.0, empirical, "corner/margins", 0.5, 0.2, 80, 1.41)


def test_the_dp_line_follows_the_claims_and_their_audit():
    none = dp_line({}, [])
    assert none.kind == "info"
    assert "None of the sweep's reference generators claims differential privacy" in none.sentence
    claims = {"privbayes:1": 1.0, "dp_vine:2": 2.0}
    assert dp_line(claims, []).kind == "info"
    assert "privbayes:1 ε = 1, dp_vine:2 ε = 2" in dp_line(claims, []).sentence
    partly = dp_line(claims, [audit("dp_vine:2", 2.0, 0.4)])
    assert partly.kind == "ok" and "Not audited: privbayes:1." in partly.sentence
    refuted = dp_line(claims, [audit("dp_vine:2", 2.0, 0.4), audit("privbayes:1", 1.0, 1.5)])
    assert refuted.kind == "block" and "Not audited" not in refuted.sentence
    for line in (none, partly, refuted):  # whatever the references claim, the holder's model claims nothing
        assert "TVineSynth makes no ε claim" in line.sentence or "TVineSynth itself makes no ε claim" in line.sentence

