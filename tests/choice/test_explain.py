"""choice/explain.py: a level's recommendation card, on the hand-written two-level summary of conftest.py (level 1:
P 0.75, pair structure 0.1; level 2: P 0.25, pair structure 0.8; level 1 best at α ½). The verdicts it leads with
are ``choice/verdicts.py``'s (tests/choice/test_verdicts.py)."""

import math

import pandas as pd

from tvs_core.choice import Axis, Normalisation, UtilityMix
from tvs_core.choice.explain import NEAR_INDEPENDENT, _anchors, _number, explain_level
from tvs_core.choice.summary import choose
from tvs_core.choice.verdicts import Topic
from tvs_core.evaluation.metrics.gdpr import Part, criterion_record
from tvs_core.evaluation.preview import LevelPreview
from tvs_core.evaluation.records import HOLDER, REAL, SHUFFLED
from tvs_core.evaluation.summary import Summary

MAB = Axis.parse("mab_worst")  # the hand-written summaries hold the paper's MAB, not the default axis


def with_rows(summary: Summary, summary_of, rows) -> Summary:
    return Summary(pd.concat([summary.frame, summary_of(rows).frame], ignore_index=True))


def test_a_number_is_quoted_with_what_its_interval_is():
    assert _number((math.nan, math.nan, math.nan), 20) == "not measured"
    assert _number((0.12345, 0.1, 0.2), 20) == "0.123 (95 % interval 0.100–0.200 (bootstrap over 20 values))"
    assert _number((0.5, 0.4, 0.6), 3) == "0.500 (spread 0.400–0.600 of only 3 values (too few for a 95 % interval))"


def test_the_scale_is_said_in_the_units_of_the_value_it_scales():
    assert _anchors((0.4, 0.0), "anchored") == " (scores 0 at 0.400, 1 at 0.000)"
    assert _anchors((0.4, 0.0), "minmax").startswith(" (min-max over the levels")
    assert _anchors(None, "anchored") == _anchors((0.4, None), "paper") == _anchors((math.nan, 1.0), "anchored") == ""


def test_the_best_level_is_named_and_another_level_points_to_it(two_levels):
    selection = choose(two_levels, ["a"], privacy=MAB)
    best, other = explain_level(selection, two_levels, 1, ["a"]), explain_level(selection, two_levels, 2, ["a"])
    assert best.level == 1 and best.headline.endswith("— the best level at these settings")
    assert "best level" not in other.headline
    assert other.notes == ["Level 2 is not the best at these settings: level 1 is (best in 100 % of resamples; this "
                           "level in 0 %)."]
    assert best.notes == [] and not any(w.startswith("Fragile") for w in best.warnings)  # it wins every resample


def test_a_level_keeping_little_pair_structure_is_warned_about(two_levels):
    """Level 1 keeps 10 % of the real pair structure (below NEAR_INDEPENDENT), level 2 80 %; min-max scores say
    nothing about independent columns, so they never warn."""
    assert NEAR_INDEPENDENT == 0.25
    selection = choose(two_levels, ["a"], privacy=MAB)
    warned = [w for w in explain_level(selection, two_levels, 1, ["a"]).warnings if "pairwise dependence" in w]
    assert warned == ["Level 1 keeps little more pairwise dependence than independent columns (10 % of the real "
                      "data's): relations between columns other than those with Y will mostly not be reproduced. If "
                      "your users study such relations, choose a higher level."]
    assert not any("pairwise" in w for w in explain_level(selection, two_levels, 2, ["a"]).warnings)
    minmax = choose(two_levels, ["a"], privacy=MAB, normalisation=Normalisation.MINMAX)
    assert not any("pairwise" in w for w in explain_level(minmax, two_levels, 1, ["a"]).warnings)


def test_the_card_prices_each_utility_part_against_its_anchors(two_levels):
    card = explain_level(choose(two_levels, ["a"], privacy=MAB), two_levels, 1, ["a"])
    assert card.costs[0].startswith("TSTR AUC (synthetic-trained): 0.700 (") and card.costs[0].endswith(
        "— 50 % of the way from 'nothing kept' to 'as the real data' (scores 0 at 0.500, 1 at 0.900).")
    assert len(card.costs) == 3  # TSTR, pair structure, CI overlap: the default mix
    assert card.protects[0].startswith("Attack game MAB for a: 0.100 (") and "privacy score 0.75 (scores 0 at 0.400, " \
        "1 at 0.000) — 0 is what the attack achieves on the real rows" in card.protects[0]


def test_a_utility_part_outside_its_anchors_says_on_which_side_never_a_negative_share(summary_of):
    """A steward read "-16 % of the way from 'nothing kept' to 'as the real data'" on the card of a level whose TSTR
    fell below the noise floor. Outside its anchors a part says on which side it lies and how the score counts it."""
    from tvs_core.evaluation.records import RAW

    rows = [(RAW, None, "mab", "a", 0.4), (SHUFFLED, None, "release_mab", "a", 0.0),
            (REAL, None, "auc_trtr", None, 0.9), (SHUFFLED, None, "pair_structure", None, 0.0),
            (SHUFFLED, None, "ci_overlap", None, 0.0)]
    for level, auc in {1: 0.45, 2: 0.95}.items():  # below 'nothing kept' (0.5), beyond the real data's (0.9)
        rows += [(HOLDER, level, "mab", "a", 0.2), (HOLDER, level, "auc_tstr", None, auc),
                 (HOLDER, level, "pair_structure", None, 0.5), (HOLDER, level, "ci_overlap", None, 0.5)]
    summary = summary_of(rows)
    selection = choose(summary, ["a"], privacy=MAB)
    low, high = (explain_level(selection, summary, level, ["a"]).costs[0] for level in (1, 2))
    assert "— below 'nothing kept' (counted as 0) (scores 0 at 0.500, 1 at 0.900)." in low
    assert "— beyond 'as the real data' (counted as 1) (scores 0 at 0.500, 1 at 0.900)." in high
    assert "-" not in low.split("—")[1] and "of the way" not in low + high


def test_membership_attacks_are_quoted_beside_the_attribute_axis(two_levels, summary_of):
    summary = with_rows(two_levels, summary_of, [(HOLDER, 1, "mia_auc", None, 0.6, 0.55, 0.65),
                                                 (REAL, None, "mia_auc", None, 0.9), (SHUFFLED, None, "mia_auc", None,
                                                                                      0.5)])
    card = explain_level(choose(summary, ["a"], privacy=MAB), summary, 1, ["a"])
    assert card.protects[1] == ("Membership attacks (strongest of three): AUC 0.600 (95 % interval 0.550–0.650 "
                                "(bootstrap over 20 values)) — 0.5 learns nothing; the real rows themselves: 0.900; "
                                "noise floor: 0.500.")
    # not measured: unsaid
    assert len(explain_level(choose(two_levels, ["a"], privacy=MAB), two_levels, 1, ["a"]).protects) == 1


def test_the_card_warns_of_few_replicates_and_of_values_beyond_the_anchors(two_levels, summary_of):
    """A MAB above the real rows' own (0.5 > 0.4) scores below 0: said in words (issue 55: "privacy score -0.09" on a
    0-to-1 scale was seen by a user); three replicates give a spread, not a 95 % interval."""
    summary = with_rows(two_levels, summary_of, [(HOLDER, 3, "mab", "a", 0.5, 0.45, 0.55, 3),
                                                 (HOLDER, 3, "auc_tstr", None, 0.8),
                                                 (HOLDER, 3, "pair_structure", None, 0.5),
                                                 (HOLDER, 3, "ci_overlap", None, 0.5)])
    selection = choose(summary, ["a"], privacy=MAB)
    warnings = explain_level(selection, summary, 3, ["a"]).warnings
    assert ("Beyond the anchors: privacy: more revealing than the real data (the attack does better on the release "
            "than on the real rows: 0.500 on the release against 0.400 on the real rows; ranked below every level on "
            "the scale).") in warnings
    card = explain_level(selection, summary, 3, ["a"])  # a score below 0 is said in words, never as a score
    assert "privacy: more revealing than the real data" in card.headline and "-0.25" not in card.headline
    assert "; more revealing than the real data (scores 0 at 0.400" in card.protects[0]
    assert any(w.startswith("Some intervals rest on only 3 replicates") for w in warnings)
    assert not any("replicates" in w or "Beyond" in w for w in explain_level(selection, summary, 1, ["a"]).warnings)


def test_the_choice_notes_are_the_card_warnings(two_levels):
    """A part of the utility mix the sweep did not measure is dropped by the choice; the card says so too."""
    selection = choose(two_levels, ["a"], privacy=MAB, utility=UtilityMix.parse("tstr,pmse_ratio"))
    assert selection.notes and all(n in explain_level(selection, two_levels, 1, ["a"]).warnings
                                   for n in selection.notes)


def test_the_preview_adds_the_associations_a_level_cuts():
    """Of the three pairs level 1 cuts, one is inside the sensitive block (intended); the two others are costs and
    are quoted with their real and kept correlation, the most important first (``CUT_ORDER``): the weaker link to
    the sensitive block before the stronger one between two other columns."""
    from tvs_core.choice.selection import select

    cuts = pd.DataFrame({"level": [1, 1, 1, 2], "a": ["a", "x", "a", "x"], "b": ["k", "y", "x", "y"],
                         "real": [0.6, 0.5, -0.3, 0.5], "kept": [0.0, 0.1, 0.0, 0.5], "cut": [True, True, True, False]})
    leaks = pd.DataFrame({"a": ["a"], "b": ["x"], "correlation": [0.3]})
    preview = LevelPreview(pd.DataFrame(), cuts, leaks, {}, 1, ["a", "k"])
    table = pd.DataFrame({"level": [1], "u": [0.9], "u_low": [0.9], "u_high": [0.9], "p_pg": [0.5],
                          "p_pg_low": [0.5], "p_pg_high": [0.5]})
    selection = select(table, privacy=Axis.parse("pg"), utility=UtilityMix.parse("auc_tstr"), draws=10)
    card = explain_level(selection, Summary(), 1, [], preview=preview)
    assert card.costs[-1] == ("Expected to cut 3 real associations, 1 of them inside the sensitive block (intended); "
                              "the others include a – x (-0.30 → 0.00), x – y (+0.50 → +0.10).")  # a zero has no sign
    block = next(v for v in card.verdicts.of(Topic.WARNING) if "outside their block" in v.sentence)
    assert "Theorem" not in block.text and "Theorem 2.5 does not hold" in block.detail  # the notation: one click behind


def test_the_card_leads_with_the_levels_verdicts_warnings_last(two_levels):
    """The card's verdicts are ``level_verdicts`` of the same arguments, the warnings among them last; a set handed
    in (the release's) is the one shown."""
    from tvs_core.choice.verdicts import Topic, level_verdicts

    selection = choose(two_levels, ["a"], privacy=MAB)
    card = explain_level(selection, two_levels, 1, ["a"])
    assert card.verdicts == level_verdicts(selection, two_levels, 1, ["a"])
    assert card.warnings == [v.text for v in card.verdicts if v.axis is Topic.WARNING]
    assert list(card.verdicts[len(card.lead):]) == list(card.verdicts.of(Topic.WARNING))
    given = level_verdicts(selection, two_levels, 2, ["a"])
    assert explain_level(selection, two_levels, 1, ["a"], verdicts=given).verdicts is given


def gdpr(level, criterion, low, column=None):
    values = {Part.RISK: low + 0.1, Part.RISK_LOW: low, Part.RISK_HIGH: low + 0.2, Part.MAIN_RATE: 0.6,
              Part.BASELINE_RATE: 0.1, Part.ATTACKS: 200}
    return [(HOLDER, level, criterion_record(criterion, part), column, value) for part, value in values.items()]


def test_why_the_two_answers_differ_is_beside_them_at_level_1_too(two_levels, summary_of):
    """Finding 6 (issue 45): level 1's card said "predicts a a little better than from the column's average" next
    to a GDPR inference verdict of no measurable risk, without the sentence level 10's card had: why both hold."""
    summary = with_rows(two_levels, summary_of, gdpr(1, "inference", 0.0, "a") + gdpr(2, "inference", 0.0, "a"))
    selection = choose(summary, ["a"], privacy=MAB)
    for level in (1, 2):  # a small risk (P 0.75) and a large one (P 0.25), neither measurable by the GDPR criterion
        said = [getattr(v, "text", v) for v in explain_level(selection, summary, level, ["a"]).verdicts]
        assert any(t.startswith("Why the two answers differ") for t in said), (level, said)


def test_a_recommendation_says_best_at_your_weights_and_names_the_verdicts_that_ask_for_the_officer(two_levels):
    """Findings 2 and 12 (issue 56): "Recommended level: 1 — best in 100 %" beside the card's "do not release
    without the officer's agreement". At α = 0 level 2 is best and its attribute verdict warns (a large risk): the
    recommendation says so; at α ½ level 1 is best and asks nothing of the officer; provisional levels are named
    and never recommended."""
    from tvs_core.choice.explain import recommendation
    from tvs_core.choice.verdicts import level_verdicts

    utility_first = choose(two_levels, ["a"], alpha=0.0, privacy=MAB)
    assert utility_first.best_level == 2
    said = recommendation(utility_first, level_verdicts(utility_first, two_levels, 2, ["a"]))
    assert said.startswith("Recommended level: 2 — the best balance of privacy and utility at your weights")
    assert ("Best at your weights is not the same as fit to release: its verdict on attribute inference asks for "
            "the privacy officer's agreement before release.") in said
    balanced = choose(two_levels, ["a"], privacy=MAB)
    assert "officer" not in recommendation(balanced, level_verdicts(balanced, two_levels, 1, ["a"]))
    only_one = choose(two_levels, ["a"], alpha=0.0, complete={1}, privacy=MAB)  # level 2's numbers are provisional
    assert only_one.best_level == 1 and only_one.provisional == [2]
    assert "The numbers of level 2 are provisional" in recommendation(only_one)
    none = choose(two_levels, ["a"], complete=set(), privacy=MAB)
    assert none.best_level is None and recommendation(none).startswith("No level is recommended: no level has all")
    assert float(none.table["wins"].sum()) == 0  # a provisional level wins no resample either
