"""choice/verdicts.py: a level's verdicts, one set in one order, each with what to do about it — on hand-written
summaries (the conftest's two levels: MAB on a, 0.4 on the real rows and 0 on shuffled columns)."""

import pandas as pd
import pytest

from tvs_core.choice import Axis, UtilityMix
from tvs_core.choice.summary import choose
from tvs_core.choice.verdicts import (
    GDPR_SEVERITY,
    Severity,
    Topic,
    Verdicts,
    _criteria,
    _dp,
    _membership,
    level_verdicts,
)
from tvs_core.evaluation.metrics.audit import AuditResult
from tvs_core.evaluation.metrics.gdpr import Part, criterion_record
from tvs_core.evaluation.preview import LevelPreview
from tvs_core.evaluation.records import HOLDER, RAW, REAL, SHUFFLED
from tvs_core.evaluation.summary import Summary

MAB = Axis.parse("mab_worst")  # the hand-written summaries hold the paper's MAB, not the default axis


def with_rows(summary: Summary, summary_of, rows) -> Summary:
    return Summary(pd.concat([summary.frame, summary_of(rows).frame], ignore_index=True))


def anchors(worst: dict, ideal: dict) -> list[tuple]:
    """The attribute game's anchors per column: its attack on the real rows and the release attack on shuffled
    columns."""
    return ([(RAW, None, "mab", column, value) for column, value in worst.items()]
            + [(SHUFFLED, None, "release_mab", column, value) for column, value in ideal.items()])


def attribute(summary, sensitive, level):
    found = level_verdicts(choose(summary, sensitive, privacy=MAB), summary, level, sensitive).of(Topic.ATTRIBUTE)
    return found[0] if found else None


def test_the_verdicts_come_in_one_order_each_with_a_sentence(two_levels, summary_of):
    summary = with_rows(two_levels, summary_of, criterion(1, "linkability", 0.0, 0.0, 0.1))
    verdicts = level_verdicts(choose(summary, ["a"], privacy=MAB), summary, 1, ["a"], response="death")
    order = list(Topic)
    assert [order.index(v.axis) for v in verdicts] == sorted(order.index(v.axis) for v in verdicts)
    assert {v.axis for v in verdicts} >= {Topic.ATTRIBUTE, Topic.MEMBERSHIP, Topic.GDPR, Topic.DP, Topic.USEFULNESS,
                                          Topic.WARNING}
    assert all(v.sentence and v.text.startswith(v.sentence) for v in verdicts)
    assert isinstance(verdicts, Verdicts) and verdicts.lines() == [v.text for v in verdicts]
    assert verdicts.to_json()[0] == {"axis": "Attribute inference", "severity": str(verdicts[0].severity),
                                     "sentence": verdicts[0].sentence, "action": verdicts[0].action,
                                     "detail": verdicts[0].detail}


def test_the_usefulness_verdicts_say_each_part_against_its_anchors(two_levels):
    selection = choose(two_levels, ["a"], privacy=MAB)
    one = level_verdicts(selection, two_levels, 1, ["a"], response="death").of(Topic.USEFULNESS)
    assert [v.sentence for v in one] == [
        "Models trained on the synthetic data predict death 50 % as well as models trained on the real data "
        "(counting what they do better than chance).",
        "It keeps 10 % of the associations between pairs of columns that the real data has.",
        "A regression of death on the synthetic data gives confidence intervals that overlap those of the real data "
        "by 40 %."]
    assert one[1].severity is Severity.WARN and one[1].action.startswith("A large cost")  # 10 %: large
    two = level_verdicts(selection, two_levels, 2, ["a"]).of(Topic.USEFULNESS)
    assert two[0].sentence == ("Models trained on the synthetic data predict the response about as well as models "
                               "trained on the real data.")  # 0.9 = the real data's 0.9: read as the anchor


def test_the_attribute_verdict_names_the_least_protected_column_and_its_share(summary_of):
    """a is 50 % of the way to nothing to learn ((0.4 - 0.2) / 0.4), b only 25 % ((0.2 - 0.15) / 0.2): b is the
    least protected although its MAB is the smaller."""
    summary = summary_of([(HOLDER, 1, "mab", "a", 0.2, 0.19, 0.21), (HOLDER, 1, "mab", "b", 0.15, 0.145, 0.155)]
                         + anchors({"a": 0.4, "b": 0.2}, {"a": 0.0, "b": 0.0}))
    line = attribute(summary, ["a", "b"], 1)
    assert line.severity is Severity.WARN
    assert line.sentence == ("At level 1, someone who knows a person's other columns predicts their b, the least "
                             "protected sensitive column, nearly as well as from the real data: a large risk against "
                             "this table's own anchors (the release removes 25 % of what the real rows let an attacker "
                             "learn).")
    # level 1 is the only, and the lowest, level: no "choose a lower level" (issue 56)
    assert line.action.startswith("Usually: drop the columns most linked to b or publish from a differentially "
                                  "private generator; do not release without the officer's agreement.")
    assert line.action.endswith("More replicates would not change this reading.")
    assert line.detail.startswith("Attack game MAB for b: 0.150 (95 % interval 0.145–0.155 (bootstrap over 20 values))"
                                  "; 0.200 on the real rows, 0.000 on shuffled columns")


@pytest.mark.parametrize(("mab", "severity", "words"), [
    (0.0, Severity.OK, "no better than from shuffled columns, where there is nothing to learn."),
    (-0.01, Severity.OK, "no better than from shuffled columns"),  # below the floor: noise
    (0.4, Severity.WARN, "about as well as from the real data itself."),
    (0.5, Severity.WARN, "better than from the real data itself: the release exaggerates"),
    (0.1, Severity.INFO, "a little better than from the column's average: a small risk"),
    (0.3, Severity.WARN, "nearly as well as from the real data: a large risk"),
])
def test_the_attribute_verdict_follows_the_share_between_the_anchors(summary_of, mab, severity, words):
    summary = summary_of([(HOLDER, 2, "mab", "a", mab)] + anchors({"a": 0.4}, {"a": 0.0}))
    line = attribute(summary, ["a"], 2)
    assert line.severity is severity and words in line.sentence, line.sentence
    if mab > 0.4:  # beyond the real rows: said in words in the detail too, never as a score below 0 (issue 55)
        assert line.detail.endswith("scaled between them: more revealing than the real data."), line.detail
    assert "least protected" not in line.sentence  # one column: no other to compare with


def test_a_value_within_the_spread_of_the_real_rows_reads_as_the_real_rows_never_minus_zero(summary_of):
    """Finding 5: MAB 0.401 against the real rows' 0.400 [0.39, 0.41] is the real rows' risk, not "-0.00: does
    better than the real data itself"; nothing is listed beyond the anchors."""
    summary = summary_of([(HOLDER, 2, "mab", "a", 0.401, 0.395, 0.405), (RAW, None, "mab", "a", 0.4, 0.39, 0.41),
                          (SHUFFLED, None, "release_mab", "a", 0.0),
                          (HOLDER, 2, "auc_tstr", None, 0.8), (REAL, None, "auc_trtr", None, 0.9)])
    verdicts = level_verdicts(choose(summary, ["a"], privacy=MAB), summary, 2, ["a"])
    assert "about as well as from the real data itself" in verdicts[0].sentence
    text = " ".join(verdicts.lines())
    assert "-0.00" not in text and "better than from the real data itself" not in text
    assert "Beyond the anchors" not in text
    assert choose(summary, ["a"], privacy=MAB).table["beyond"].tolist() == [""]


def test_the_attribute_verdict_reads_the_release_attack_until_the_game_reports(summary_of):
    summary = summary_of([(HOLDER, 1, "release_mab", "a", 0.2), (REAL, None, "release_mab", "a", 0.4),
                          (SHUFFLED, None, "release_mab", "a", 0.0)])
    line = attribute(summary, ["a"], 1)
    assert "Release MAB for a: 0.200" in line.detail and "removes 50 %" in line.sentence


def test_the_attribute_verdict_says_what_it_cannot_compare_and_how_few_replicates_stand_behind_it(summary_of):
    summary = summary_of([(HOLDER, 1, "mab", "a", 0.2, 0.1, 0.3, 3), (HOLDER, 1, "auc_tstr", None, 0.8)])
    line = attribute(summary, ["a"], 1)
    assert line.severity is Severity.INFO and "no real-data anchors to read it against" in line.sentence
    assert "spread 0.100–0.300 of only 3 values" in line.detail  # three values are no 95 % interval
    few = summary_of([(HOLDER, 1, "mab", "a", 0.1, 0.09, 0.11, 3), (HOLDER, 1, "auc_tstr", None, 0.8)]
                     + anchors({"a": 0.4}, {"a": 0.0}))
    assert attribute(few, ["a"], 1).action.endswith("Spread of only 3 values (too few for a 95 % interval): the paper "
                                                    "preset draws more, and could change this reading.")


@pytest.mark.parametrize(("auc", "low", "severity", "words"), [
    (0.505, 0.49, Severity.OK, "no better than the attacks' noise floor"),  # within the floor's spread
    (0.547, 0.53, Severity.INFO, "a little better than the attacks' noise floor: a small risk, measurable"),
    (0.8, 0.78, Severity.WARN, "clearly better than the attacks' noise floor")])
def test_membership_is_a_risk_whenever_the_strongest_attack_beats_its_noise_floor(summary_of, auc, low, severity,
                                                                                  words):
    """Finding 12: AUC 0.547 against a noise floor of 0.507 is a small, measurable risk, said as one."""
    summary = summary_of([(HOLDER, 1, "mia_auc", None, auc, low, auc + 0.01), (REAL, None, "mia_auc", None, 1.0),
                          (SHUFFLED, None, "mia_auc", None, 0.507, 0.495, 0.52)])
    line = _membership(summary, 1)
    assert line.severity is severity and words in line.sentence, line.sentence
    assert f"AUC {auc:.3f}" in line.detail and "noise floor (the attacks on shuffled columns) 0.507" in line.detail
    assert "the real rows themselves 1.000" in line.detail


def test_membership_quotes_the_privacy_gain_and_says_when_nothing_reported(summary_of):
    summary = summary_of([(HOLDER, 1, "pg", None, 0.8, 0.7, 0.9), (HOLDER, 2, "mab", "a", 0.1)])
    line = _membership(summary, 1)
    assert line.severity is Severity.INFO  # PG alone has no verdict rule
    assert "privacy gain PG 0.80 (95 % interval 0.70–0.90" in line.detail and "AUC" not in line.detail
    nothing = _membership(summary, 2)
    assert nothing.severity is Severity.INFO and "no membership attack has reported yet" in nothing.sentence


def criterion(level, name, risk, low, high, main=0.6, baseline=0.1, column=None):
    values = {Part.RISK: risk, Part.RISK_LOW: low, Part.RISK_HIGH: high, Part.MAIN_RATE: main,
              Part.BASELINE_RATE: baseline, Part.ATTACKS: 200}
    return [(HOLDER, level, criterion_record(name, part), column, value) for part, value in values.items()]


def criteria_at(summary, level, sensitive=()):
    from tvs_core.choice.gdpr import point_verdicts

    return _criteria(point_verdicts(summary, list(sensitive), level=level), level)


def test_the_criteria_verdict_is_marked_as_its_worst_criterion(summary_of):
    summary = summary_of(criterion(1, "linkability", 0.0, 0.0, 0.1) + criterion(1, "singling_out", 0.0, 0.0, 0.1)
                         + criterion(2, "linkability", 0.0, 0.0, 0.1) + criterion(2, "singling_out", 0.2, 0.1, 0.3)
                         + criterion(3, "linkability", 0.7, 0.6, 0.8) + criterion(3, "singling_out", 0.2, 0.1, 0.3))
    assert [criteria_at(summary, level).severity for level in (1, 2, 3)] == ["ok", "warn", "block"]
    one = criteria_at(summary, 1)
    assert one.sentence.endswith("no measurable risk for any.") and not one.action
    three = criteria_at(summary, 3)
    assert three.sentence.endswith("a measurable risk for singling out; a HIGH risk for linkability.")
    assert "Linkability: a HIGH risk (residual risk 0.70, 95 % interval 0.60–0.80 (Wilson, 200 trials)" in three.detail
    assert three.action.startswith("Usually: choose a lower level or drop the columns that single people out")
    assert list(GDPR_SEVERITY) == ["none", "measurable", "high"]  # the order the worst is taken in


def test_the_criteria_verdict_distrusts_only_a_risk_the_blind_baseline_matches(summary_of):
    summary = summary_of(criterion(1, "linkability", 0.0, 0.0, 0.1, main=0.1, baseline=0.2)
                         + criterion(2, "linkability", 0.3, 0.1, 0.4, main=0.1, baseline=0.2))
    assert "not to be trusted" not in criteria_at(summary, 1).text  # no risk: nothing to distrust
    assert "Where an attack did no better than guessing blindly" in criteria_at(summary, 2).text


def test_criteria_not_measured_are_said_so(summary_of):
    line = criteria_at(summary_of([(HOLDER, 1, "mab", "a", 0.1)]), 1, ["a"])
    assert line.severity is Severity.INFO and "not measured at level 1" in line.sentence


def test_why_the_two_answers_differ_sits_beside_them_at_every_level_they_could_look_contradictory(summary_of):
    """Finding 6: the attack game finds a little to learn about a (a small risk) while the GDPR inference criterion
    finds none — at level 1 as at level 2 — so the explanation is given at both; at level 3 the game finds nothing
    either, and there is nothing to explain."""
    rows = anchors({"a": 0.4}, {"a": 0.0}) + [(REAL, None, "auc_trtr", None, 0.9)]
    for level, mab in ((1, 0.1), (2, 0.3), (3, 0.0)):
        rows += [(HOLDER, level, "mab", "a", mab), (HOLDER, level, "auc_tstr", None, 0.8)]
        rows += criterion(level, "inference", 0.0, 0.0, 0.1, column="a")
    summary = summary_of(rows)
    selection = choose(summary, ["a"], privacy=MAB)
    for level, explained in ((1, True), (2, True), (3, False)):
        verdicts = level_verdicts(selection, summary, level, ["a"])
        why = verdicts.of(Topic.WHY)
        assert bool(why) == explained, (level, verdicts.lines())
        if explained:
            axes = [v.axis for v in verdicts]
            assert axes.index(Topic.WHY) == axes.index(Topic.GDPR) + 1  # right beside the criteria
            assert why[0].sentence.startswith("Why the two answers differ: the attack game measures how well anyone "
                                              "predicts a from the other columns")


def audit(model, claimed, empirical):
    return AuditResult(model, claimed, 0.0, empirical, "corner/margins", 0.5, 0.2, 80, 1.41)


def test_the_dp_verdict_follows_the_claims_and_their_audit():
    none = _dp({}, [])
    assert none.severity is Severity.INFO
    assert "None of the sweep's reference generators claims differential privacy" in none.sentence
    claims = {"privbayes:1": 1.0, "dp_vine:2": 2.0}
    unaudited = _dp(claims, [])
    # the references by the legend's names, and no instruction to the steward where a verdict belongs (issue 56)
    assert unaudited.severity is Severity.INFO and "PrivBayes (ε = 1), DP vine (ε = 2)" in unaudited.sentence
    assert "not audited in this sweep" in unaudited.sentence and not unaudited.action
    partly = _dp(claims, [audit("dp_vine:2", 2.0, 0.4)])
    assert partly.severity is Severity.OK and "Not audited: PrivBayes (ε = 1)." in partly.sentence
    refuted = _dp(claims, [audit("dp_vine:2", 2.0, 0.4), audit("privbayes:1", 1.0, 1.5)])
    assert refuted.severity is Severity.BLOCK and "Not audited" not in refuted.sentence
    assert refuted.action == "Do not rely on those claims."
    for line in (none, partly, refuted):  # whatever the references claim, the holder's model claims nothing
        assert "TVineSynth makes no ε claim" in line.sentence or "TVineSynth itself makes no ε claim" in line.sentence


# -- issue 56: advice that can be taken, sentences true to the numbers under them --------------------------------------
def three_levels(summary_of):
    """Levels 1, 5 and 9 with the same numbers: a moderate attribute risk on a (MAB 0.2 between 0.4 and 0), a small
    membership risk (AUC 0.6 between the floor 0.5 and the real rows' 1.0), TSTR half-way (a noticeable cost), pair
    structure 10 % (a large cost, and little more than independent columns), a measurable GDPR risk."""
    rows = anchors({"a": 0.4}, {"a": 0.0}) + [
        (REAL, None, "auc_trtr", None, 0.9), (SHUFFLED, None, "pair_structure", None, 0.0),
        (SHUFFLED, None, "ci_overlap", None, 0.0), (REAL, None, "mia_auc", None, 1.0),
        (SHUFFLED, None, "mia_auc", None, 0.5, 0.49, 0.51)]
    for level in (1, 5, 9):
        rows += [(HOLDER, level, "mab", "a", 0.2), (HOLDER, level, "mia_auc", None, 0.6, 0.59, 0.61),
                 (HOLDER, level, "auc_tstr", None, 0.7), (HOLDER, level, "pair_structure", None, 0.1),
                 (HOLDER, level, "ci_overlap", None, 0.9)]
        rows += criterion(level, "singling_out", 0.2, 0.1, 0.3)
    return summary_of(rows)


def test_the_advice_names_a_lower_or_higher_level_only_where_one_exists(summary_of):
    """Finding 1: at level 1, the lowest, the card said "choose a lower level"; at the top level, "or choose a higher
    level". At the lowest level the other remedies stand instead (drop the linked column, a DP generator); at the
    highest, none points up; in between, both directions are offered."""
    summary = three_levels(summary_of)
    selection = choose(summary, ["a"], privacy=MAB)

    def advice(level, preview=None):
        verdicts = level_verdicts(selection, summary, level, ["a"], preview=preview)
        return " ".join(v.action for v in verdicts)

    lowest, middle, highest = advice(1), advice(5), advice(9)
    assert "lower level" not in lowest and "drop the column most linked to a" in lowest
    assert "differentially private generator" in lowest
    assert "drop the columns that single people out" in lowest  # the GDPR criteria's remedy without a lower level
    assert "higher level" not in highest and "no level keeps more" in highest
    assert "choose a lower level" in middle and "a higher level keeps more" in middle
    assert "choose a lower level" in highest and "higher level" in lowest  # each end keeps the other direction
    # a vine with more levels than the sweep evaluated: the top level swept is not the highest possible
    preview = LevelPreview(pd.DataFrame(), pd.DataFrame({"level": [1, 5, 9, 12], "a": "a", "b": "x", "real": 0.5,
                                                         "kept": 0.5, "cut": False}), pd.DataFrame(), {}, 1, ["a"])
    assert "a higher level, which this sweep did not evaluate" in advice(9, preview)


def test_a_membership_attack_read_as_its_noise_floor_shows_the_floor_s_spread_and_says_why(summary_of):
    """Finding 3: "no better than the attacks' noise floor" above "AUC 0.547 (spread 0.541–0.554 of only 5 values);
    noise floor 0.507": the whole spread is above the floor's value. It reads as the floor only because the floor's
    own spread (0.48–0.56) reaches it: the sentence says so, with both numbers, and the detail gives the floor's
    spread."""
    summary = summary_of([(HOLDER, 1, "mia_auc", None, 0.547, 0.541, 0.554, 5), (REAL, None, "mia_auc", None, 1.0),
                          (SHUFFLED, None, "mia_auc", None, 0.507, 0.48, 0.56, 5)])
    line = _membership(summary, 1)
    assert line.severity is Severity.OK  # the reading rule stands: the run cannot tell it from the floor
    assert "no better than the attacks' noise floor" not in line.sentence
    assert "not measurably better than the attacks' noise floor" in line.sentence
    assert ("its strongest attack's AUC, 0.547 (spread 0.541–0.554 of only 5 values (too few for a 95 % interval)), "
            "lies above the noise floor, 0.507, but within its own spread 0.480–0.560 of only 5 values (too few for a "
            "95 % interval), so this run cannot tell the two apart") in line.sentence
    assert "noise floor (the attacks on shuffled columns) 0.507 (spread 0.480–0.560 of only 5 values" in line.detail
    # a spread that reaches the floor's own value: "no better", nothing to explain
    level = summary_of([(HOLDER, 1, "mia_auc", None, 0.51, 0.5, 0.52, 5), (REAL, None, "mia_auc", None, 1.0),
                        (SHUFFLED, None, "mia_auc", None, 0.507, 0.48, 0.56, 5)])
    plain = _membership(level, 1)
    assert "no better than the attacks' noise floor" in plain.sentence and "cannot tell" not in plain.sentence


def test_about_as_well_as_the_real_data_is_said_only_when_the_range_reaches_it(summary_of):
    """Finding 12: "predict Y about as well as the real data" for AUC 0.746 against 0.796. Within the real data's
    own spread the run cannot tell them apart, and the sentence says so with both numbers."""
    rows = [(REAL, None, "auc_trtr", None, 0.796, 0.74, 0.85), (HOLDER, 1, "auc_tstr", None, 0.746, 0.735, 0.757),
            (HOLDER, 2, "auc_tstr", None, 0.79, 0.75, 0.81)]
    summary = summary_of(rows)
    selection = choose(summary, [], privacy=Axis.parse("pg"), utility=UtilityMix.parse("tstr"))
    one = level_verdicts(selection, summary, 1, [], response="Y").of(Topic.USEFULNESS)[0].sentence
    assert "about as well" not in one
    assert ("as well as models trained on the real data, as far as this run can tell: their ROC AUC, 0.746 (95 % "
            "interval 0.735–0.757 (bootstrap over 20 values)), lies below the real data's models, 0.796, but within "
            "its own 95 % interval 0.740–0.850 (bootstrap over 20 values)") in one
    two = level_verdicts(selection, summary, 2, [], response="Y").of(Topic.USEFULNESS)[0].sentence
    assert two == "Models trained on the synthetic data predict Y about as well as models trained on the real data."


def test_replicate_advice_never_sends_a_paper_sweep_to_the_paper_preset(summary_of):
    """Finding 16: under the paper preset the card said "more (the paper preset) could change this reading". A
    measure the paper preset draws more of gets that advice under the quick preset only; membership, scored on five
    published sets under every preset, and any measure of a paper sweep get what would settle them: a second sweep
    with another master seed."""
    rows = [(HOLDER, 1, "mia_auc", None, 0.6, 0.55, 0.65, 5), (REAL, None, "mia_auc", None, 1.0),
            (SHUFFLED, None, "mia_auc", None, 0.5, 0.49, 0.51, 5), (HOLDER, 1, "mab", "a", 0.1, 0.09, 0.11, 3)]
    rows += anchors({"a": 0.4}, {"a": 0.0})
    summary = summary_of(rows)
    selection = choose(summary, ["a"], privacy=MAB)
    for preset in ("quick", "paper"):
        verdicts = level_verdicts(selection, summary, 1, ["a"], preset=preset)
        attribute_advice, membership_advice = verdicts[0].action, verdicts.of(Topic.MEMBERSHIP)[0].action
        warning = next(v.action for v in verdicts.of(Topic.WARNING) if "replicates" in v.sentence)
        assert ("paper preset draws more" in attribute_advice) == (preset == "quick")
        assert "paper preset" not in membership_advice and "another master seed" in membership_advice
        assert "every preset scores this measure on 5 published sets" in membership_advice
        if preset == "paper":
            said = " ".join(verdicts.lines())
            assert "the paper preset draws more" not in said and "draws enough" not in said, said
            assert "even the paper preset draws no more" in attribute_advice and "another master seed" in warning
