"""A SweepConfig is a sweep's identity: its defaults, its stored form, its switches, its protocol, the names it
refuses and the words that tell a user how the settings on screen differ from a sweep's."""

import json

import pytest

from tvs_core.errors import DataError
from tvs_core.evaluation.protocol import get_protocol
from tvs_core.jobs.config import (
    CONSTRAINTS,
    DEFAULT_BASELINES,
    SETTING_NAMES,
    SweepConfig,
    baseline_spec,
    check_external_name,
    job_id_for,
    setting_differences,
)
from tvs_core.model.registry import BaselineName


def sweep(**settings) -> SweepConfig:
    return SweepConfig(response="y", sensitive=["s"], **settings)


def test_defaults_are_the_quick_preset_with_every_switch_off_and_no_list_shared():
    """Two new sweeps start alike, and changing one's baselines must not change the other's."""
    first, second = sweep(), sweep()
    assert first.baselines == list(map(BaselineName.parse, DEFAULT_BASELINES))
    assert first.games == ["release", "aia", "mia"] and first.protocol() == get_protocol("quick")
    assert not (first.baselines_play_games or first.per_target_shadows or first.audits_dp or first.reuse_families)
    first.baselines.append(BaselineName("ctgan"))
    first.games.remove("mia")
    assert second.baselines == list(map(BaselineName.parse, DEFAULT_BASELINES))
    assert second.games == ["release", "aia", "mia"]


def test_the_stored_form_survives_json_and_gives_back_the_same_sweep_and_id():
    """The store keeps a sweep as JSON: read back, it must be the same sweep (same id), every setting included."""
    full = sweep(rho_star={"s": 0.4}, levels=[1, 3], seed=9, holdout_fraction=0.25, analysis=["a"],
                 externals={"mine": "abc"}, reuse_families=True, dp_audit_trials=5,
                 protocol_overrides={"aia_iterations": 2}, baseline_games=["aia"])
    for config in (full, sweep()):
        stored = json.loads(json.dumps(config.to_dict()))
        assert SweepConfig.from_dict(stored) == config
        assert job_id_for("f", SweepConfig.from_dict(stored)) == job_id_for("f", config)
    assert job_id_for("f", full) != job_id_for("g", full)  # the data is part of the identity


def test_turning_per_target_shadows_on_and_off_again_gives_back_the_same_sweep():
    """A switch flipped back must not leave an empty override behind that changes the sweep's id."""
    config = sweep()
    config.per_target_shadows = True
    assert config.protocol().mia_shared_shadows is False
    config.per_target_shadows = False
    assert config.protocol_overrides is None and job_id_for("f", config) == job_id_for("f", sweep())
    assert sweep(protocol_overrides={"mia_shared_shadows": True}).per_target_shadows is False


def test_the_protocol_is_the_presets_with_only_the_overrides_changed():
    config = sweep(preset="paper", protocol_overrides={"aia_iterations": 2})
    paper = get_protocol("paper")
    assert config.protocol() == paper.__class__(**{**paper.to_dict(), "aia_iterations": 2})
    assert get_protocol("paper").aia_iterations == 10  # the shared preset is not changed


def test_an_unknown_preset_is_refused_with_the_presets_to_choose_from():
    """'fast' is a family set, not a protocol: refused when the sweep is made, before anything runs."""
    with pytest.raises(DataError, match="The setting 'protocol' cannot be 'fast'. Choose one of: quick, paper."):
        sweep(preset="fast")


@pytest.mark.parametrize("name", ["real", "tvinesynth", "shuffled", "independent", "my set", "", "a/b"])
def test_an_external_set_cannot_take_a_models_name_or_odd_characters(name):
    with pytest.raises(DataError, match="cannot name an external set.*Give another name"):
        check_external_name(name, sweep(baselines=["independent"]))


def test_an_external_set_may_be_named_with_letters_digits_dashes_and_underscores():
    check_external_name("my_set-2", sweep())  # no error


@pytest.mark.parametrize("name, words", [
    ("nope", "Unknown baseline 'nope'.*Choose from: .*independent"),
    ("tvinesynth", "Unknown baseline 'tvinesynth'"),  # the holder's own model is no baseline
    ("independent:3", "takes no parameter.*Write independent"),
    ("dp_vine:inf", "positive number after 'dp_vine:'.*Write e.g. dp_vine:1"),
])
def test_a_baseline_name_that_cannot_be_run_is_refused_in_words(name, words):
    with pytest.raises(DataError, match=words):
        baseline_spec(BaselineName.parse(name), sweep())


def test_the_sweeps_pair_copula_families_reach_the_vine_baselines_only():
    config = sweep(families="gaussian")
    assert baseline_spec(BaselineName.parse("dp_vine:1"), config).config["families"] == "gaussian"
    assert baseline_spec(BaselineName.parse("rvine"), config).config["families"] == "gaussian"
    assert "families" not in baseline_spec(BaselineName.parse("independent"), config).config


def test_the_same_settings_differ_in_nothing():
    assert setting_differences(sweep(rho_star={"s": 0.3}), sweep(rho_star={"s": 0.3})) == []
    assert setting_differences(sweep(), sweep(analysis=[], externals={})) == []  # unset and empty alike


def test_each_difference_is_one_phrase_in_the_sweep_pages_words():
    before = sweep(seed=0, holdout_fraction=0.2, baselines=["independent"], rho_star={"s": 0.3, "t": 0.5})
    now = sweep(seed=1, holdout_fraction=0.25, baselines=["independent", "rvine"], rho_star={"s": 0.4, "t": 0.5},
                baseline_games=["aia", "mia"], reuse_families=True)
    assert setting_differences(before, now) == [
        "association threshold ρ* for s: 0.3 in the sweep, 0.4 now",  # only the column that changed
        "master seed: 0 in the sweep, 1 now",
        "hold-out fraction: 0.2 in the sweep, 0.25 now",
        "baselines (reference points): independent in the sweep, independent, rvine now",
        "baselines play the attack games: — in the sweep, aia, mia now",
        "attack games reuse the holder's families: — in the sweep, on now",
    ]
    assert setting_differences(before, now, ignored=("seed", "rho_star", "holdout_fraction", "baselines",
                                                     "baseline_games", "reuse_families")) == []


def test_a_schema_difference_names_the_columns_whose_type_role_or_labels_changed():
    column = {"name": "age", "type": "continuous", "role": "covariate", "reason": "numbers"}
    grade = {"name": "grade", "type": "ordinal", "role": "covariate", "levels": ["a", "b"]}
    before = sweep(schema={"columns": [column, grade]})
    now = sweep(schema={"columns": [{**column, "reason": "other words"}, {**grade, "levels": ["b", "a"]}]})
    assert setting_differences(before, now) == ["column types and roles: grade"]
    assert setting_differences(before, sweep(schema={"columns": [{**column, "type": "discrete"}, grade]})) == [
        "column types and roles: age"]


def test_a_stored_sweep_reads_back_typed_and_with_the_same_id():
    """Settings stored as text by this version (and every earlier one) come back as the enums the library takes."""
    from tvs_core.data.margins import MarginKind
    from tvs_core.data.missing import MissingPolicy
    from tvs_core.evaluation.protocol import ProtocolName
    from tvs_core.model.families import FamilySet
    from tvs_core.model.ordering import Measure

    config = SweepConfig(response="y", sensitive=["a"], measure="pearson", margins="kde", missing="impute",
                         levels=[1, 5], preset="paper", families="tll")
    stored = json.loads(json.dumps(config.to_dict()))
    assert (stored["preset"], stored["families"]) == ("paper", "tll")  # stored as their text, as before
    again = SweepConfig.from_dict(stored)
    assert (again.measure, again.margins, again.missing) == (Measure.PEARSON, MarginKind.KDE, MissingPolicy.IMPUTE)
    assert (again.preset, again.families) == (ProtocolName.PAPER, FamilySet.TLL)
    assert type(again.measure) is Measure and type(again.preset) is ProtocolName and type(again.families) is FamilySet
    assert again == config and job_id_for("f", again) == job_id_for("f", config)


# a sweep's settings as an earlier version stored them, every setting text; its id as that version computed it
OLD_STORED = {"response": "y", "sensitive": ["s"], "measure": "spearman", "preset": "paper", "families": "tll",
              "margins": "kde", "missing": "impute", "levels": [1, 3], "seed": 5,
              "baselines": ["independent", "dp_vine:1", "ctgan:quick", "retired_gen:2"]}
OLD_ID, DEFAULT_ID = "05f332e99edc3a00", "437499c77c703087"  # job_id_for("f" * 16, ...) before the settings were typed


def test_a_sweep_stored_as_text_by_an_earlier_version_keeps_its_job_id():
    """The id finds a finished sweep again: typing the settings must not change it, or Start would run it anew."""
    assert job_id_for("f" * 16, SweepConfig.from_dict(OLD_STORED)) == OLD_ID
    assert job_id_for("f" * 16, SweepConfig(response="y", sensitive=["s"])) == DEFAULT_ID


def test_baselines_are_typed_names_stored_as_the_text_the_command_line_takes():
    config = SweepConfig.from_dict(OLD_STORED)
    assert config.baselines == [BaselineName("independent"), BaselineName("dp_vine", "1"),
                                BaselineName("ctgan", "quick"), BaselineName("retired_gen", "2")]
    stored = json.loads(json.dumps(config.to_dict()))
    assert stored["baselines"] == OLD_STORED["baselines"] and SweepConfig.from_dict(stored) == config
    assert baseline_spec(config.baselines[1], config).label == "dp_vine:1"  # the records' model label, unchanged


def test_an_old_sweep_naming_a_baseline_this_version_lacks_still_opens_and_refuses_only_to_run_it():
    config = SweepConfig.from_dict(OLD_STORED)  # no error: its finished numbers stay readable
    with pytest.raises(DataError, match="Unknown baseline 'retired_gen:2'.*Choose from: .*independent"):
        baseline_spec(config.baselines[-1], config)


BAD_SETTINGS = [
    ("measure", "mab", "The setting 'association measure' cannot be 'mab'. Choose one of: kendall, spearman, pearson"),
    ("seed", -1, "'master seed' is -1: not a whole number from 0"),
    ("levels", ["3"], "'truncation levels' is ['3']: not a whole number from 0"),
    ("holdout_fraction", 1.5, "'hold-out fraction' is 1.5: not a number between 0 and 1"),
    ("games", ["aia", "poker"], "The setting 'attack games' cannot be 'poker'. Choose one of: release, aia, mia"),
    ("baseline_games", ["release"], "The setting 'baselines play the attack games' cannot be 'release'. Choose one "
                                    "of: aia, mia"),
    ("feature_set", "shadows", "The setting 'attack features' cannot be 'shadows'. Choose one of: correlations, "
                               "naive, histogram"),
    ("preset", "thorough", "The setting 'protocol' cannot be 'thorough'. Choose one of: quick, paper"),
    ("preset", 2, "The setting 'protocol' cannot be '2'. Choose one of: quick, paper"),
    ("families", "gauss", "The setting 'pair-copula families' cannot be 'gauss'. Choose one of: paper, parametric, "
                          "fast, tll, gaussian"),
    ("baselines", "independent", "'baselines (reference points)' is 'independent': not a list of baseline names"),
    ("baselines", ["independent", 3],
     "'baselines (reference points)' is ['independent', 3]: not a list of baseline names"),
    ("baselines", ["ctgan:"],
     "'baselines (reference points)' is ['ctgan:']: 'ctgan:' is not written GENERATOR or GENERATOR:PARAMETER"),
]


@pytest.mark.parametrize("setting, value, words", BAD_SETTINGS)
def test_a_bad_stored_setting_is_refused_in_one_sentence_naming_it(setting, value, words):
    stored = {**SweepConfig(response="y", sensitive=["a"]).to_dict(), setting: value}
    with pytest.raises(DataError) as refused:
        SweepConfig.from_dict(stored)
    assert words in str(refused.value) and refused.value.fix  # a choice: the setting, the value, the choices


def test_a_setting_this_version_does_not_know_is_refused_by_name():
    with pytest.raises(DataError, match="not known to this version: colour"):
        SweepConfig.from_dict({**SweepConfig(response="y", sensitive=["a"]).to_dict(), "colour": "red"})


@pytest.mark.parametrize("setting, value, words", BAD_SETTINGS)
def test_a_bad_value_set_on_a_live_sweep_is_refused_in_the_same_sentence_and_changes_nothing(setting, value, words):
    """A page or the command line changes a live config field by field: each change is checked as a stored one is,
    and a refused one leaves the setting as it was (the sweep Start would run is still a valid one)."""
    config = sweep()
    before = config.to_dict()
    with pytest.raises(DataError) as refused:
        setattr(config, setting, value)
    assert words in str(refused.value) and refused.value.fix
    assert config.to_dict() == before


def test_a_setting_set_as_text_on_a_live_sweep_is_held_typed_and_a_switch_is_checked_through_its_field():
    from tvs_core.evaluation.protocol import ProtocolName
    from tvs_core.model.families import FamilySet
    from tvs_core.model.ordering import Measure

    config = sweep()
    config.families, config.preset, config.measure = "tll", "paper", "pearson"  # as a widget leaves them
    assert (config.families, config.preset, config.measure) == (FamilySet.TLL, ProtocolName.PAPER, Measure.PEARSON)
    assert type(config.families) is FamilySet and type(config.preset) is ProtocolName
    assert type(config.measure) is Measure
    config.baselines_play_games = True  # a switch sets its field, which is checked
    assert config.baseline_games == ["aia", "mia"]
    with pytest.raises(DataError, match="'DP audit' is -1"):
        config.dp_audit_trials = -1


def test_each_command_line_flag_of_a_sweep_setting_is_made_from_its_one_declaration():
    """A sweep setting is declared once (``SweepConfig``'s field: type and default; its ``Setting``: constraint,
    screen name, help, flag, how its text is read): every command that has its flag offers it with its screen name
    and help, a choice with its Enum's values and the field's default; the sweep command offers every declared flag,
    the switches' too; the manifest and every refusal name it by the same screen name."""
    import argparse

    from tvs_core.cli import build_parser
    from tvs_core.jobs.config import SETTINGS, SWITCHES, setting_default

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    flagged = {name: declared for name, declared in {**SETTINGS, **SWITCHES}.items() if declared.flag}
    assert {"response", "sensitive", "rho_star", "measure", "order", "levels", "preset", "families", "margins",
            "missing", "seed", "baselines", "analysis", "reuse_families", "dp_audit_trials", "baselines_play_games",
            "per_target_shadows"} <= set(flagged)
    offered = set()
    for parser in commands.values():
        for action in parser._actions:
            for name in (n for n, declared in flagged.items() if declared.flag in action.option_strings):
                offered.add(name)
                declared = flagged[name]
                assert action.dest == name
                assert action.help.replace("%%", "%").startswith(f"{declared.screen_name}: {declared.help}")
                if declared.kind is not None:
                    assert action.choices == [member.value for member in declared.kind]
                    assert action.default == setting_default(name)
    assert offered == set(flagged)
    assert set(flagged) <= {action.dest for action in commands["sweep"]._actions}
    assert SETTING_NAMES == {name: declared.screen_name for name, declared in SETTINGS.items()}
    assert CONSTRAINTS == {name: declared.check for name, declared in SETTINGS.items()}


def test_the_sweep_flags_give_the_config_the_command_line_runs():
    """What the flags say is what the sweep runs: each flag's text read as its setting declares, set on the config
    by the setting's name (``cli.with_flags``), the switches through the field that carries them."""
    from tvs_core.cli import build_parser, with_flags

    args = build_parser().parse_args(
        ["sweep", "--out", "o", "--rho", "0.3", "--order", "b,a", "--levels", "5,1,5", "--baselines", "none",
         "--audit-dp", "--baseline-games", "--per-target-shadows", "--missing", "impute", "--seed", "7"])
    config = with_flags(args, response="y", sensitive=["s"])
    assert (config.rho_star, config.order, config.levels, config.baselines) == (0.3, ["b", "a"], [1, 5], [])
    assert (config.dp_audit_trials, config.baseline_games, config.per_target_shadows) == (80, ["aia", "mia"], True)
    assert (config.missing, config.seed) == ("impute", 7)
    untouched = build_parser().parse_args(["sweep", "--out", "o"])
    # no flag: the config's defaults, the same sweep (the same id)
    assert with_flags(untouched, response="y", sensitive=["s"]).to_dict() == sweep().to_dict()


SCRATCH_SETTING = """
    # a setting added in a test: one declaration
    scratch_knob: int = _setting(0, check=_whole(0), screen_name="scratch knob", added_later=True,
                                 flag="--scratch-knob", parse=lambda text: whole_number(text, 0),
                                 help="how far the scratch knob is turned")
"""


def test_adding_a_sweep_setting_is_one_declaration(monkeypatch):
    """A scratch copy of jobs/config.py with one more field declared (and nothing else changed): its constraint, its
    name in the manifest and the refusals, its command-line flag (help, default, how its text is read, and the value
    that reaches the config) and the Sweep page's label and help of its widget all follow; an earlier sweep keeps
    its id while the new setting is unset."""
    import sys
    import types
    from pathlib import Path

    import tvs_core.cli as cli
    from tvs_core.jobs import config as real

    source = Path(real.__file__).read_text()
    anchor = "\n    def __setattr__(self, name: str, value) -> None:"
    assert source.count(anchor) == 1
    module = types.ModuleType("tvs_core.jobs.scratch_config")
    module.__package__ = "tvs_core.jobs"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(source.replace(anchor, SCRATCH_SETTING + anchor), real.__file__, "exec"), module.__dict__)

    assert module.SETTING_NAMES["scratch_knob"] == "scratch knob"
    assert module.CONSTRAINTS["scratch_knob"] is module.SETTINGS["scratch_knob"].check
    config = module.SweepConfig(response="y", sensitive=["s"])
    assert real.job_id_for("f", real.SweepConfig(response="y", sensitive=["s"])) == module.job_id_for("f", config)
    with pytest.raises(DataError, match="'scratch knob' is -1"):
        config.scratch_knob = -1
    assert module.declaration("scratch_knob").label == "Scratch knob"  # the Sweep page's widget (pages/sweep.setting)
    assert module.declaration("scratch_knob").sentence == "How far the scratch knob is turned."

    for name in ("SETTINGS", "SWITCHES", "SweepConfig"):
        monkeypatch.setattr(cli, name, getattr(module, name))
    parser = cli.build_parser()
    sweep_command = parser._subparsers._group_actions[0].choices["sweep"]
    knob = sweep_command._option_string_actions["--scratch-knob"]
    assert knob.help == "scratch knob: how far the scratch knob is turned (default: 0)"
    assert knob.default == 0
    args = parser.parse_args(["sweep", "--out", "o", "--scratch-knob", "3"])
    config = cli.with_flags(args, response="y", sensitive=["s"])
    assert config.scratch_knob == 3 and config.to_dict()["scratch_knob"] == 3
    with pytest.raises(cli.UsageError, match="--scratch-knob"):
        parser.parse_args(["sweep", "--out", "o", "--scratch-knob", "x"])


@pytest.mark.parametrize("generator", ["dp_vine", "privbayes", "mst", "privpgd"])
def test_a_generators_privacy_claim_is_declared_once_and_read_alike_everywhere(generator):
    """Each generator that promises differential privacy declares its claim once (``registry.EPSILON_GENERATORS``):
    the sweep's baseline carries the ε of its name, the fitted model promises it (the release ledger's ε and the DP
    audit's (ε, δ)), the figures shade it, and one check refuses a budget that is none, in the name and in the fit."""
    from tvs_core.evaluation.metrics.audit import claimed_privacy
    from tvs_core.figures.style import baseline_style
    from tvs_core.model.registry import EPSILON_GENERATORS, generator_class
    from tvs_core.release.ledger import epsilon_of

    claim = EPSILON_GENERATORS[generator]
    spec = baseline_spec(BaselineName.parse(f"{generator}:2"), sweep())
    epsilon, delta = claimed_privacy(spec)
    assert epsilon == 2.0 == epsilon_of(spec.build(0)) == BaselineName.parse(f"{generator}:2").epsilon
    assert (delta > 0) == claim.delta
    assert baseline_style(f"{generator}:2") != baseline_style(f"{generator}:0.2")  # shaded by its ε
    for bad in ("0", "-1", "nan", "inf", "x"):
        with pytest.raises(DataError, match="positive number"):
            baseline_spec(BaselineName.parse(f"{generator}:{bad}"), sweep())
        assert BaselineName.parse(f"{generator}:{bad}").epsilon is None
    model = generator_class(generator)(response="y", epsilon=0.0)
    with pytest.raises(DataError, match="needs ε > 0") as refused:
        model._check_settings()
    assert f"{generator}:{claim.example}" in refused.value.fix
    assert claimed_privacy(baseline_spec(BaselineName.parse("independent"), sweep())) is None
