"""choice/summary.py: the level choice on a summary, ``summary.json``'s pieces and the manifest's ``choice``."""

import math

import numpy as np
import pytest

from tvs_core.choice import DEFAULT_MIX, DEFAULT_PRIVACY, Normalisation
from tvs_core.choice.axes import Axis
from tvs_core.choice.mix import UtilityMix
from tvs_core.choice.summary import (
    ChoiceSettings,
    _finite,
    anchors_json,
    choice_json,
    choose,
    metric_key,
    metrics_of,
    summary_json,
    why_text,
)
from tvs_core.errors import DataError
from tvs_core.evaluation.records import HOLDER, RAW, REAL, SHUFFLED, record, to_frame
from tvs_core.settings import declarations, default_of

MAB = Axis.parse("mab_worst")  # the hand-written summaries hold the paper's MAB, not the default axis


def test_a_metric_key_is_the_name_or_name_and_column():
    assert metric_key("pg") == "pg"
    assert metric_key("mab", "cost") == "mab:cost"


def test_only_finite_numbers_are_written():
    """summary.json is JSON: NaN and infinities are written as null, numpy numbers as plain floats."""
    assert _finite(None) is None and _finite(math.nan) is None and _finite(np.inf) is None
    assert _finite(np.float32(0.25)) == 0.25 and type(_finite(np.int64(2))) is float


def test_the_choice_scores_the_levels_by_hand(two_levels):
    selection = choose(two_levels, ["a"], privacy=MAB)
    table = selection.table.set_index("level")
    np.testing.assert_allclose(table["P"], [0.75, 0.25])
    np.testing.assert_allclose(table["U"], [1 / 3, 0.8])
    np.testing.assert_allclose(table["PU"], [0.5 * 0.75 + 0.5 / 3, 0.525])
    assert selection.best_level == 1
    assert choose(two_levels, ["a"], privacy=MAB, alpha=0.0).best_level == 2  # utility alone
    # the paper's U_t: TSTR alone
    paper = choose(two_levels, ["a"], privacy=MAB, alpha=0.0, utility=UtilityMix.parse("tstr"))
    np.testing.assert_allclose(paper.table["U"], [0.5, 1.0])


def test_there_is_nothing_to_choose_before_a_level_reports(summary_of):
    assert choose(summary_of([(REAL, None, "auc_trtr", None, 0.9)]), ["a"]) is None
    assert choose(summary_of([]), ["a"]) is None


def test_a_first_look_beside_the_levels_never_moves_their_choice(summary_of):
    """Issue 56, point 8: the Sweep page drew level 1 at another value than the Choose page at the same moment. Under
    min-max scaling, a first look of level 5 (a live scatter's stand-in) in the summary moved level 1's scale and so
    the sensitive column that decides it (b, 0.16, instead of a, 0.14); it never enters the choice."""
    from tvs_core.evaluation.records import RecordRole

    rows = [(REAL, None, "auc_trtr", None, 0.8), (REAL, None, "release_mab", "a", 0.5),
            (REAL, None, "release_mab", "b", 0.5), (SHUFFLED, None, "release_mab", "a", 0.01),
            (SHUFFLED, None, "release_mab", "b", 0.01)]
    for level, (a, b, auc) in {1: (0.14, 0.16, 0.70), 3: (0.05, 0.25, 0.72)}.items():
        rows += [(HOLDER, level, "auc_tstr", None, auc), (HOLDER, level, "release_mab", "a", a),
                 (HOLDER, level, "release_mab", "b", b)]
    own = summary_of(rows)
    looks = summary_of(rows + [(HOLDER, 5, "auc_tstr", None, 0.75), (HOLDER, 5, "release_mab", "a", 0.9),
                               (HOLDER, 5, "release_mab", "b", 0.02)])
    frame = looks.frame.copy()
    frame.loc[frame["level"] == 5, "role"] = RecordRole.FIRST_LOOK
    live = type(looks)(frame)
    for method in Normalisation:
        settings = ChoiceSettings(normalisation=method, privacy=Axis.parse("release_mab_worst"),
                                  utility=UtilityMix.parse("tstr"))
        chosen, drawn = settings.select(own, ["a", "b"]), settings.select(live, ["a", "b"])
        assert drawn.table.equals(chosen.table), method
    mab = Axis.parse("release_mab_worst")  # the hand-written summary holds MAB: chosen by name (issue 55)
    assert choose(live, ["a", "b"], normalisation=Normalisation.MINMAX, privacy=mab).table.set_index("level").loc[
        1, "P_column"] == "a"


def test_metrics_of_a_point_are_keyed_by_name_and_column(summary_of):
    at = summary_of([(HOLDER, 1, "mab", "a", 0.1), (HOLDER, 1, "mab", "z", 0.2),  # z is not sensitive
                     (HOLDER, 1, "column_distance", "y", 0.3), (HOLDER, 1, "column_distance", "x", 0.4),
                     (HOLDER, 1, "pg", None, 0.7, 0.6, 0.8, 12), (HOLDER, 1, "not_a_metric", None, 1.0)])
    found = metrics_of(at, ["a"])
    assert list(found) == ["mab:a", "pg", "column_distance:x", "column_distance:y"]  # the catalogue's order
    assert found["pg"] == {"median": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n": 12}
    assert metrics_of(at, ["a", "b"]).keys() == found.keys()  # a sensitive column without a value is left out


def test_several_rows_of_one_metric_are_pooled_by_their_medians(summary_of):
    """Target kinds (or targets) of one metric: the median of their medians and ends, the fewest replicates."""
    frame = summary_of([(HOLDER, 1, "mia_auc", None, 0.5, 0.4, 0.6, 20), (HOLDER, 1, "mia_auc", None, 0.6, 0.5, 0.7, 8),
                        (HOLDER, 1, "mia_auc", None, 0.9, 0.8, 1.0, 30)]).frame
    frame["target_kind"] = ["random", "outlier", "nearest"]
    from tvs_core.evaluation.summary import Summary

    assert metrics_of(Summary(frame), [])["mia_auc"] == {"median": 0.6, "ci_low": 0.5, "ci_high": 0.7, "n": 8}


def test_a_missing_metric_is_read_from_its_fallback_and_never_overrides_it(summary_of):
    """Before the attribute game reports, its MAB is the release attack's (the scatter shows that value); once the
    game reports, its own."""
    early = summary_of([(HOLDER, 1, "release_mab", "a", 0.2, 0.1, 0.3)])
    found = metrics_of(early, ["a"])
    assert found["mab:a"] == found["release_mab:a"] == {"median": 0.2, "ci_low": 0.1, "ci_high": 0.3, "n": 20}
    late = summary_of([(HOLDER, 1, "release_mab", "a", 0.2), (HOLDER, 1, "mab", "a", 0.05)])
    assert metrics_of(late, ["a"])["mab:a"]["median"] == 0.05


def test_the_anchors_are_written_by_metric_key(two_levels):
    anchors = anchors_json(choose(two_levels, ["a"], privacy=MAB), ["a"])
    assert anchors == {"auc_tstr": {"worst": 0.5, "ideal": 0.9}, "pair_structure": {"worst": 0.0, "ideal": 1.0},
                       "ci_overlap": {"worst": 0.0, "ideal": 1.0}, "mab:a": {"worst": 0.4, "ideal": 0.0}}
    assert anchors_json(None, ["a"]) == {}


def test_an_axis_without_columns_and_an_unmeasured_anchor(summary_of):
    """PG's anchors are the catalogue's constants, keyed by its name; a TSTR without TRTR has no ideal (null)."""
    summary = summary_of([(HOLDER, 1, "pg", None, 0.5), (HOLDER, 1, "auc_tstr", None, 0.7)])
    anchors = anchors_json(choose(summary, [], privacy=Axis.parse("pg"), utility=UtilityMix.parse("tstr")), [])
    assert anchors == {"auc_tstr": {"worst": 0.5, "ideal": None}, "pg": {"worst": 0.0, "ideal": 1.0}}


MIX = UtilityMix.parse("tstr")


def test_why_says_who_chose_the_level(two_levels):
    selection = choose(two_levels, ["a"], privacy=MAB)
    assert why_text(selection, 1, 0.5, "anchored", MAB, MIX, True) == (
        "chosen by the user; the recommended level at these settings is 1 (the same)")
    assert why_text(selection, 2, 0.5, "anchored", MAB, MIX, True).endswith("is 1")
    recommended = why_text(selection, 1, 0.5, "anchored", MAB, MIX, False, ["auc_tstr"])
    assert recommended.startswith("recommended at α = 0.5, utility TSTR AUC (synthetic-trained) 100 %, privacy "
                                  "measured by Mean absolute attacker coefficient (MAB), least protected sensitive "
                                  "column, anchored normalisation: the best balance of privacy and utility there (best "
                                  "in 100 % of resamples")
    assert recommended.endswith("not chosen by the user")
    assert why_text(selection, 2, 0.5, "anchored", MAB, MIX, False).startswith(
        "level 2 was released without being chosen; no level was recommended")
    assert "no level was recommended" in why_text(None, 2, 0.5, "anchored", MAB, MIX, False)


def test_why_calls_the_paper_normalisation_our_reading_of_the_paper_not_the_papers():
    """Appendix D asks for scores from 0 to 1 and gives no formula: the manifest and ledger must not say that
    P = 1 - MAB/MAB_real is the paper's normalisation."""
    paper = why_text(None, 2, 0.5, "paper", MAB, MIX, False)
    assert "normalisation by our reading of the paper (real data ↔ 0)" in paper and "paper normalisation" not in paper
    assert "min-max normalisation over the levels" in why_text(None, 2, 0.5, "minmax", MAB, MIX, False)


def test_why_names_the_settings_in_plain_words_never_their_codes(two_levels):
    """Finding 4: page 1 said "utility mix tstr=1,pair_structure=1,ci_overlap=1, privacy measured by mab_worst"."""
    selection = choose(two_levels, ["a"], privacy=MAB)
    why = choice_json(selection, 1, 0.5, "anchored", MAB, DEFAULT_MIX,
                      ["auc_tstr", "pair_structure", "ci_overlap"], chosen_by_user=False)["why"]
    for code in ("tstr=", "pair_structure", "ci_overlap", "mab_worst"):
        assert code not in why
    assert "utility TSTR AUC (synthetic-trained) 33 %, Pair structure 33 %, CI overlap 33 %" in why



def test_why_never_quotes_a_missing_recommendation_as_none(two_levels):
    """The manifest and the signed page quote this sentence: with no level recommended (nothing scored yet, or no
    level with every metric) it says so in words, not 'is None'."""
    unranked = choose(two_levels, ["a"], privacy=MAB)
    unranked.best_level = None
    for selection in (None, unranked):
        why = why_text(selection, 2, 0.5, "anchored", MAB, MIX, True)
        assert "None" not in why and why == "chosen by the user; no level was recommended at these settings"


def test_the_manifest_choice_holds_the_settings_and_the_chosen_level_scores(two_levels):
    selection = choose(two_levels, ["a"], privacy=MAB)
    mix = UtilityMix.parse("tstr=2,pair_structure=2")
    out = choice_json(selection, np.int64(2), 0.5, "anchored", MAB, mix, ["auc_tstr"], chosen_by_user=False)
    assert (out["selected_level"], out["best_level"], out["chosen_by"]) == (2, 1, "recommendation")
    assert type(out["selected_level"]) is int
    assert out["utility_mix"] == "tstr=2,pair_structure=2" and out["utility_mix_described"] == (
        "TSTR AUC (synthetic-trained) 50 %, Pair structure 50 %")
    row = selection.table.set_index("level").loc[2]
    assert set(out["scores"]) == {"PU", "U", "P", "P_unclipped", "U_auc_tstr", "U_pair_structure", "U_ci_overlap"}
    assert out["scores"]["P"] == pytest.approx(0.25) and out["scores"]["PU"] == pytest.approx(row["PU"])
    assert "scores" not in choice_json(selection, 7, 0.5, "anchored", MAB, PAPER)  # not a level scored
    assert "scores" not in choice_json(None, 1, 0.5, "anchored", MAB, PAPER)


PAPER = UtilityMix.parse("tstr")


def test_settings_parse_their_text_once_and_refuse_a_misspelt_axis(two_levels):
    settings = ChoiceSettings(0.0, "anchored", "mab:a", "tstr")
    assert settings.privacy == Axis.parse("mab:a") and settings.utility == UtilityMix.parse("tstr")
    assert ChoiceSettings().privacy == DEFAULT_PRIVACY
    with pytest.raises(DataError, match="'mab_wrost' is not a privacy measure"):
        ChoiceSettings(0.5, "anchored", "mab_wrost", "tstr")
    with pytest.raises(DataError, match="not a utility measure"):
        ChoiceSettings(0.5, "anchored", "mab_worst", "tstr,auc")
    chosen = settings.select(two_levels, ["a"])
    assert chosen.best_level == 2 and chosen.privacy == settings.privacy  # α 0: utility alone
    assert settings.to_json(chosen, 2)["chosen_by"] == "user"


def test_summary_json_lists_the_points_and_leaves_the_references_out():
    """The holder's levels first, then each baseline; the real-data references are anchors, not points; TRTR, the
    reference of TSTR, is written beside every point's TSTR."""
    rows = [record(REAL, None, "auc_trtr", v) for v in (0.88, 0.9, 0.92)]
    rows += [record(RAW, None, "mab", 0.4, "a"), record(SHUFFLED, None, "release_mab", 0.0, "a")]
    for level, mab, auc in ((2, 0.3, 0.9), (1, 0.1, 0.7)):
        rows += [record(HOLDER, level, "mab", mab, "a"), record(HOLDER, level, "auc_tstr", auc)]
    rows += [record("independent", None, "auc_tstr", 0.6), record("independent", None, "mab", 0.02, "a")]
    out = summary_json(to_frame(rows), ["a"], alpha=1.0, privacy=MAB, utility_mix=UtilityMix.parse("tstr"))
    assert [(e["model"], e["level"]) for e in out["levels"]] == [(HOLDER, 1), (HOLDER, 2), ("independent", None)]
    assert out["best_level"] == 1 and out["utility_mix"] == "tstr=1" and out["notes"] == []
    first = out["levels"][0]
    assert first["metrics"]["auc_trtr"]["median"] == 0.9 and out["levels"][2]["metrics"]["auc_trtr"]["median"] == 0.9
    assert first["pu"] == pytest.approx(0.75) and first["metrics"]["pu"]["median"] == first["pu"]
    assert first["wins"] == 1.0 and first["pareto"] is True and "beyond" not in first
    assert "pu" not in out["levels"][2]  # a baseline is not scored
    assert "dp_audit" not in out  # not a sweep run with --audit-dp


def test_summary_json_of_a_summary_and_selection_made_once_is_the_one_it_makes_itself():
    """The command line summarises and chooses once for summary.json and the verdicts: the same file."""
    from tvs_core.choice.summary import choose
    from tvs_core.evaluation.summary import summarise

    rows = [record(RAW, None, "mab", 0.4, "a"), record(SHUFFLED, None, "release_mab", 0.0, "a")]
    for level, mab, auc in ((2, 0.3, 0.9), (1, 0.1, 0.7), (3, 0.35, 0.95)):
        rows += [record(HOLDER, level, "mab", mab + d, "a", iteration=i) for i, d in enumerate((0, 0.01, -0.02))]
        rows += [record(HOLDER, level, "auc_tstr", auc - d, iteration=i) for i, d in enumerate((0, 0.02, 0.01))]
    records = to_frame(rows)
    mix = UtilityMix.parse("tstr")
    summary = summarise(records)
    made_once = summary_json(records, ["a"], alpha=0.3, utility_mix=mix,
                             chosen=(summary, choose(summary, ["a"], 0.3, utility=mix)))
    assert made_once == summary_json(records, ["a"], alpha=0.3, utility_mix=mix)


def test_summary_json_names_a_level_beyond_the_anchors_and_an_empty_sweep():
    rows = [record(RAW, None, "mab", 0.4, "a"), record(SHUFFLED, None, "release_mab", 0.0, "a"),
            record(HOLDER, 1, "mab", 0.5, "a"), record(HOLDER, 1, "auc_tstr", 0.7)]
    out = summary_json(to_frame(rows), ["a"], privacy=MAB, utility_mix=UtilityMix.parse("tstr"))
    assert "more revealing than the real data" in out["levels"][0]["beyond"]
    assert out["levels"][0]["scores"]["P_unclipped"] == pytest.approx(-0.25)
    empty = summary_json(to_frame([record("independent", None, "auc_tstr", 0.6)]), ["a"])
    assert (empty["best_level"], empty["anchors"], empty["notes"]) == (None, {}, [])
    assert [e["model"] for e in empty["levels"]] == ["independent"]


def a_project():
    from tvs_core.projects import Project

    return Project("p", "t", "demo:t", "f", 10, 3, {"columns": []})


def choice_flags() -> dict[str, dict]:
    """Each command's flag of each choice setting: command -> {setting name: argparse action}."""
    import argparse

    from tvs_core.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    return {command: {action.dest: action for action in commands[command]._actions
                      if action.dest in declarations(ChoiceSettings)} for command in ("sweep", "report", "release")}


def test_each_choice_setting_is_declared_once_and_its_flag_and_stored_name_come_from_it():
    """α, the normalisation, the privacy axis and the utility mix are each declared once, on ``ChoiceSettings``'s
    field: the flag of every command that records a choice (its name, help, default and how its text is read), the
    name a project stores it under, and the Choose page's label and help (``Setting.label``, ``sentence``:
    tests/dashboard/test_app.py) are made from it; the flags and defaults are the ones scripts always used."""
    from tvs_core.projects import Project

    declared = declarations(ChoiceSettings)
    assert list(declared) == ["alpha", "normalisation", "privacy", "utility"]
    assert {name: d.flag for name, d in declared.items()} == {
        "alpha": "--alpha", "normalisation": "--normalisation", "privacy": "--privacy", "utility": "--utility"}
    for command, flags in choice_flags().items():
        assert set(flags) == set(declared), command
        for name, action in flags.items():
            assert action.option_strings == [declared[name].flag]
            assert action.help.startswith(f"{declared[name].screen_name}: {declared[name].help}")
            assert action.default == default_of(ChoiceSettings, name) == getattr(ChoiceSettings(), name)
    flags = choice_flags()["sweep"]
    assert flags["normalisation"].choices == list(Normalisation)
    # the defaults as scripts and earlier versions knew them
    assert [str(flags[name].default) for name in declared] == ["0.5", "anchored", "release_skill_worst",
                                                               "tstr=1,pair_structure=1,ci_overlap=1"]
    stored = a_project().to_dict()  # a project keeps each under the setting's name, as the text it always had
    assert {name: stored[name] for name in declared} == {"alpha": 0.5, "normalisation": "anchored",
                                                         "privacy": "release_skill_worst",
                                                         "utility": "tstr=1,pair_structure=1,ci_overlap=1"}
    assert Project.from_dict(stored).choice == ChoiceSettings()


@pytest.mark.parametrize("name, text, words", [
    ("alpha", "2", "2 is out of range: give a number from 0 to 1"),
    ("alpha", "nan", "nan is out of range: give a number from 0 to 1"),
    ("alpha", "abc", "'abc' is not a number"),
    ("normalisation", "bogus", "The setting 'normalisation' cannot be 'bogus'. Choose one of: anchored, paper, "
                               "minmax."),
    ("privacy", "mab_wrost", "'mab_wrost' is not a privacy measure."),
    ("privacy", "mia_auc:x", "'mia_auc' has one value per level, not per column."),
    ("utility", "tstr=0", "The weight of 'tstr' in the utility mix must be a positive number."),
    ("utility", "tstr,typo", "'typo' is not a utility measure."),
])
def test_the_command_line_and_the_settings_refuse_the_same_text_in_the_same_words(name, text, words):
    """A choice setting's text is read in one place, its declaration's reader: the command line's flag refuses a bad
    value in the words a widget's or a stored project's text is refused in (``ChoiceSettings``, which the Choose page's
    callbacks and ``Project.from_dict`` make), each naming what is wrong."""
    from tvs_core.cli import UsageError, build_parser
    from tvs_core.projects import Project

    flag = declarations(ChoiceSettings)[name].flag
    for command in (["sweep", "--out", "o"], ["report", "job", "--out", "r.html"]):
        with pytest.raises(UsageError) as on_the_command_line:
            build_parser().parse_args([*command, flag, text])
        assert f"argument {flag}: {words}" in str(on_the_command_line.value)
    with pytest.raises(DataError) as in_the_library:
        ChoiceSettings(**{name: text})
    assert words in str(in_the_library.value)
    assert declarations(ChoiceSettings)[name].screen_name in str(in_the_library.value)  # named as on the page
    with pytest.raises(DataError, match="A stored project setting cannot be read") as stored:
        Project.from_dict({**a_project().to_dict(), name: text})
    assert words in str(stored.value)


def test_a_privacy_axis_on_a_column_the_sweep_does_not_protect_is_refused_by_name():
    from tvs_core.cli import _choice, build_parser

    args = build_parser().parse_args(["sweep", "--out", "o", "--privacy", "mab:nosuch"])
    assert _choice(args).privacy == Axis.parse("mab:nosuch")  # no sweep to check it against yet
    with pytest.raises(DataError, match="'nosuch' in 'mab:nosuch' is not a sensitive column. Choose one of: a, b."):
        _choice(args, ["a", "b"])
