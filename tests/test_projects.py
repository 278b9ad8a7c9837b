"""A project holds its sweep's settings once (a SweepConfig), and projects saved before that still open unchanged."""

import json
from dataclasses import fields

from tvs_core.evaluation.metrics.audit import DEFAULT_TRIALS
from tvs_core.jobs.config import SweepConfig, job_id_for
from tvs_core.model.registry import BaselineName
from tvs_core.projects import Project, Projects
from tvs_core.storage.store import Store

# a project as the dashboard saved it before issue 24: every sweep setting a field of its own
OLD_PROJECT = {
    "id": "abc", "name": "cohort.csv", "source": "upload:cohort.csv", "fingerprint": "f" * 16, "rows": 300,
    "columns": 5, "schema": {"columns": []}, "response": "y", "sensitive": ["s1", "s2"], "missing": "impute",
    "holdout_fraction": 0.3, "holdout": None, "holdout_name": None, "measure": "pearson", "rho_star": 0.5,
    "rho_overrides": {"s2": 0.7}, "preview_level": 2, "levels": [10, 1, 5], "preset": "paper", "families": "paper",
    "margins": "kde", "baselines": ["independent"], "baseline_games": True, "per_target_shadows": True,
    "reuse_families": True, "dp_audit": True, "analysis": [], "seed": 7, "backend": "loky", "job_id": "j1",
    "jobs": ["j1"], "alpha": 0.8, "normalisation": "paper", "privacy": "mab_worst", "utility": "tstr",
    "scatter_utility": None, "selected_level": 5, "release_rows": 100, "release_seed": 3, "created": 1.0,
    "updated": 2.0,
}


def test_no_sweep_setting_is_kept_twice():
    """The project's own fields and its SweepConfig's share only the two the Sensitive page resolves at Start."""
    shared = {f.name for f in fields(Project)} & {f.name for f in fields(SweepConfig)}
    assert shared == {"rho_star", "schema"}


def test_a_project_saved_before_the_change_opens_with_the_same_settings_and_the_same_sweep(tmp_path):
    store = Store(tmp_path / "ws")
    store.save_project("abc", json.dumps(OLD_PROJECT), 2.0)
    project = Projects(store).load("abc")
    sweep = project.sweep
    assert (sweep.response, sweep.sensitive, sweep.missing, sweep.holdout_fraction, sweep.measure) == (
        "y", ["s1", "s2"], "impute", 0.3, "pearson")
    assert (sweep.levels, sweep.preset, sweep.families, sweep.margins, sweep.baselines, sweep.seed) == (
        [10, 1, 5], "paper", "paper", "kde", [BaselineName("independent")], 7)
    assert sweep.baselines_play_games and sweep.per_target_shadows and sweep.audits_dp and sweep.reuse_families
    assert (project.rho_star, project.rho_overrides, project.choice.alpha, project.selected_level, project.job_id) == (
        0.5, {"s2": 0.7}, 0.8, 5, "j1")

    # the sweep Start runs is the one the old project defined field by field (same job id)
    config = project.sweep_config(rho_star={"s1": 0.5, "s2": 0.7})
    expected = SweepConfig(response="y", sensitive=["s1", "s2"], rho_star={"s1": 0.5, "s2": 0.7}, measure="pearson",
                           levels=[1, 5, 10], preset="paper", families="paper", margins="kde", missing="impute",
                           seed=7, holdout_fraction=0.3, baselines=["independent"], analysis=None,
                           baseline_games=["aia", "mia"], protocol_overrides={"mia_shared_shadows": False},
                           schema=project.table_schema().to_dict(), reuse_families=True,
                           dp_audit_trials=DEFAULT_TRIALS)
    assert config == expected and job_id_for("f", config) == job_id_for("f", expected)

    # saved again, it is saved in the new shape and opens the same
    Projects(store).save(project)
    saved = json.loads(store.project_json("abc"))
    assert "sweep" in saved and not {"response", "preset", "baseline_games", "dp_audit"} & set(saved)
    again = Projects(store).load("abc")
    assert again.sweep == project.sweep and again.sweep_config(config.rho_star) == config
    store.close()


def test_the_switches_turn_the_fields_that_carry_them_on_and_off():
    sweep = SweepConfig(response="y", sensitive=["s"], protocol_overrides={"aia_iterations": 2})
    sweep.per_target_shadows = True
    assert sweep.protocol_overrides == {"aia_iterations": 2, "mia_shared_shadows": False}
    sweep.per_target_shadows = False
    assert sweep.protocol_overrides == {"aia_iterations": 2}  # a test's smaller games are not touched
    sweep.audits_dp, sweep.baselines_play_games = True, True
    assert (sweep.dp_audit_trials, sweep.baseline_games) == (DEFAULT_TRIALS, ["aia", "mia"])
    sweep.audits_dp, sweep.baselines_play_games = False, False
    assert (sweep.dp_audit_trials, sweep.baseline_games) == (0, [])


def test_opening_a_sweep_shows_its_settings_and_leaves_out_what_the_screen_cannot_show():
    project = Project("p", "t", "demo:t", "f", 10, 3, {"columns": []})
    config = SweepConfig(response="y", sensitive=["s"], rho_star={"s": 0.4}, order=["s", "a", "y"], t_max=2,
                         preset="paper", levels=[1, 2], externals={"mine": "abc"},
                         protocol_overrides={"aia_iterations": 2, "mia_shared_shadows": False}, seed=4)
    project.adopt(config)
    assert (project.rho_star, project.rho_overrides) == (0.4, {})
    assert (project.sweep.preset, project.sweep.levels, project.sweep.seed) == ("paper", [1, 2], 4)
    assert project.sweep.per_target_shadows and project.sweep.protocol_overrides == {"mia_shared_shadows": False}
    assert (project.sweep.order, project.sweep.t_max, project.sweep.externals) == (None, None, None)
    assert config.externals == {"mine": "abc"}  # the sweep's own config is not changed


def test_a_project_and_its_job_stored_by_this_version_read_back_typed(tmp_path):
    """What the Choose page set, and the sweep it started, come back as the types the library takes, never text."""
    import pandas as pd

    from tvs_core.choice import Axis, ChoiceSettings, Normalisation, UtilityMix
    from tvs_core.data.missing import MissingPolicy
    from tvs_core.evaluation.protocol import ProtocolName
    from tvs_core.jobs.backends import Backend
    from tvs_core.model.families import FamilySet
    from tvs_core.model.ordering import Measure
    from tvs_core.storage.store import JobStatus

    store = Store(tmp_path / "ws")
    table = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": [0, 1, 0]})
    project = Projects(store).create(table, "t", "upload:t.csv", response="y", sensitive=["a"])
    project.choice = ChoiceSettings(0.3, Normalisation.PAPER, Axis.parse("mab:a"),
                                    UtilityMix.parse("tstr=2,ci_overlap=1"))
    project.backend = Backend.DASK
    project.sweep.measure, project.sweep.missing = "pearson", "impute"  # as a widget leaves them
    project.sweep.preset, project.sweep.families = "paper", "fast"
    Projects(store).save(project)
    store.create_job("j", project.fingerprint, project.sweep_config().to_dict())

    again = Projects(Store(tmp_path / "ws")).load(project.id)
    assert again.choice == project.choice and type(again.choice.normalisation) is Normalisation
    assert again.choice.privacy == Axis.parse("mab:a") and type(again.backend) is Backend
    assert type(again.sweep.measure) is Measure and again.sweep.missing is MissingPolicy.IMPUTE
    assert again.sweep.preset is ProtocolName.PAPER and again.sweep.families is FamilySet.FAST
    assert all(type(name) is BaselineName for name in again.sweep.baselines) and again.sweep.baselines
    job = Store(tmp_path / "ws").job("j")
    config = SweepConfig.from_dict(job.config)
    assert job.status is JobStatus.QUEUED and config.measure is Measure.PEARSON and config.sensitive == ["a"]
    assert config.preset is ProtocolName.PAPER and config.families is FamilySet.FAST
    assert config.baselines == again.sweep.baselines and type(config.baselines[0]) is BaselineName


# a project as this version writes it (the choice held as one ChoiceSettings, stored as four keys as before)
CURRENT_PROJECT = {
    "id": "cur", "name": "cohort.csv", "source": "upload:cohort.csv", "fingerprint": "f" * 16, "rows": 300,
    "columns": 5, "schema": {"columns": []},
    "sweep": {"response": "y", "sensitive": ["s1"], "rho_star": None, "measure": "kendall", "order": None,
              "levels": [1, 5], "preset": "quick", "families": "gaussian", "margins": "empirical",
              "missing": "drop_rows", "t_max": None, "seed": 0, "holdout_fraction": 0.2,
              "baselines": ["independent"], "feature_set": "correlations", "games": ["release", "aia", "mia"],
              "baseline_games": [], "protocol_overrides": None, "schema": None, "analysis": []},
    "rho_star": None, "rho_overrides": {}, "preview_level": None, "holdout": None, "holdout_name": None,
    "holdout_sha256": None, "backend": "loky", "job_id": None, "jobs": [], "alpha": 0.25, "normalisation": "minmax",
    "privacy": "mab:s1", "utility": "tstr=2,pair_structure=1", "scatter_utility": None, "selected_level": None,
    "release_rows": None, "release_seed": None, "release_note": "", "created": 1.0, "updated": 2.0,
}


def test_a_project_holds_its_choice_once_and_stores_it_in_the_words_it_always_had(tmp_path):
    """The choice is one ChoiceSettings (no loose α, normalisation, privacy or utility field beside it); a project
    file written with the four keys, by this version or an earlier one, opens with that choice and is written back
    byte for byte."""
    from tvs_core.choice import Axis, ChoiceSettings, Normalisation, UtilityMix

    assert not {"alpha", "normalisation", "privacy", "utility"} & {f.name for f in fields(Project)}
    store = Store(tmp_path / "ws")
    for stored in (CURRENT_PROJECT, OLD_PROJECT):
        store.save_project(stored["id"], json.dumps(stored), 2.0)
    current = Projects(store).load("cur")
    assert current.choice == ChoiceSettings(0.25, Normalisation.MINMAX, Axis.parse("mab:s1"),
                                            UtilityMix.parse("tstr=2,pair_structure=1"))
    assert json.loads(json.dumps(current.to_dict(), default=str)) == CURRENT_PROJECT
    assert list(current.to_dict()) == list(CURRENT_PROJECT)  # the keys in their old places too
    old = Projects(store).load("abc")
    assert old.choice == ChoiceSettings(0.8, Normalisation.PAPER, Axis.parse("mab_worst"), UtilityMix.parse("tstr"))
