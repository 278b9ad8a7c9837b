"""The record says only what happened (issue 37's findings, each at its cause): nothing is chosen without a click,
a running or finished sweep stays shown whatever the settings, typed numbers are refused in words and never
changed, counts are exact, the manifest names the hold-out the sweep used."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import SWEPT_GROUP
from tests.dashboard.test_app import app, finish_sweep, no_errors, project, run_sweep
from tests.helpers import shown
from tvs_core import load_demo


@pytest.fixture(autouse=True)
def workspace(page_workspace):
    return page_workspace


def generate(at):
    at.switch_page("pages/export.py").run()
    next(b for b in at.button if b.label == "Generate release").click().run()
    no_errors(at)
    return at.session_state["release"]


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_a_level_nobody_clicked_is_released_as_the_recommendation_never_as_a_choice(after_sweep):
    at = after_sweep
    at.switch_page("pages/choose.py").run()
    at.slider(key="w.alpha").set_value(0.2).run()  # the recommendation moves with α; nothing is chosen
    at.slider(key="w.alpha").set_value(0.5).run()
    no_errors(at)
    assert project(at).selected_level is None
    assert any("You have not chosen a level" in i.value for i in at.info)
    release = generate(at)
    from pages import common
    from pages.shared import library

    recommended = library.recommended_level()
    choice = release.manifest()["choice"]
    assert release.level == recommended and not release.chosen_by_user
    assert choice["chosen_by"] == "recommendation" and choice["why"].endswith("not chosen by the user")
    assert choice["why"].startswith("recommended at α = 0.5")
    entry = release.record(common.store(), note="n")
    assert entry.choice == choice["why"]
    # a click is a choice, and is recorded as one
    project(at).selected_level = 20
    at.switch_page("pages/choose.py").run()
    choice = generate(at).manifest()["choice"]
    assert choice["chosen_by"] == "user" and choice["why"].startswith("chosen by the user")


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_changing_a_setting_keeps_the_sweep_shown_and_says_how_it_differs(after_sweep):
    at = after_sweep
    job_id = project(at).job_id
    at.switch_page("pages/sweep.py").run()
    at.text_input(key="w.sweep.seed#typed").set_value("1").run()
    at.switch_page("pages/sensitive.py").run()
    at.slider(key="w.rho.None").set_value(0.21).run()
    no_errors(at)
    assert project(at).job_id == job_id  # still the sweep shown, everywhere
    at.switch_page("pages/sweep.py").run()
    warning = shown(next(w.value for w in at.warning if "Your settings now differ" in w.value))
    assert "master seed: 0 in the sweep, 1 now" in warning and "association threshold ρ*" in warning
    assert len(at.get("plotly_chart")) >= 1  # the sweep's scatter is still drawn
    at.switch_page("pages/export.py").run()
    assert not any("Run a sweep" in w.value for w in at.warning)
    at.switch_page("pages/sweep.py").run()
    next(b for b in at.button if b.label == "Go back to the sweep's settings").click().run()
    no_errors(at)
    assert project(at).sweep.seed == 0 and not any("Your settings now differ" in w.value for w in at.warning)
    assert at.text_input(key="w.sweep.seed#typed").value == "0"


@pytest.mark.parametrize("typed", ["1e9", "12.7", "-3", "abc", ""])
def test_a_seed_that_is_not_a_whole_number_is_refused_in_words_and_blocks_start(typed):
    at = app().run()
    at.switch_page("pages/sensitive.py").run()
    at.switch_page("pages/sweep.py").run()
    at.text_input(key="w.sweep.seed#typed").set_value(typed).run()
    no_errors(at)
    assert at.text_input(key="w.sweep.seed#typed").value == typed  # never silently changed
    assert project(at).sweep.seed == 0
    assert any("master seed" in e.value for e in at.error), [e.value for e in at.error]
    assert next(b for b in at.button if b.label == "Start sweep").disabled


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_rows_that_cannot_be_drawn_are_refused_and_generate_is_blocked(after_sweep):
    at = after_sweep
    at.switch_page("pages/export.py").run()
    for typed in ("0", "1e9", "2000000"):
        at.text_input(key="w.release_rows#typed").set_value(typed).run()
        assert any("number of rows" in e.value for e in at.error)
        assert next(b for b in at.button if b.label == "Generate release").disabled
    at.text_input(key="w.release_rows#typed").set_value("300").run()
    assert len(generate(at).table) == 300


@pytest.mark.slow
def test_start_says_how_many_tasks_the_progress_will_count():
    """On 300 rows of the demo (the count does not depend on the table's size, the sweep's cost does)."""
    from pages import common

    at = app().run()
    cohort = load_demo("clinical").head(300).to_csv(index=False).encode()
    at.file_uploader[0].set_value(("cohort.csv", cohort, "text/csv")).run()
    project(at).sweep.sensitive = ["total_cost_eur", "lactate_mmol_l"]
    at.switch_page("pages/sensitive.py").run()
    at.switch_page("pages/sweep.py").run()
    at.multiselect(key="w.sweep.levels").set_value([1, 10]).run()
    at.multiselect(key="w.sweep.baselines").set_value(["independent"]).run()
    said = next(c.value for c in at.caption if c.value.startswith("Start runs"))
    next(b for b in at.button if b.label == "Start sweep").click().run()
    finish_sweep(at)
    info = common.job().progress()
    assert said.startswith(f"Start runs {info['total']} tasks") and info["done"] == info["total"], (said, info)


@pytest.mark.slow
def test_the_manifest_names_the_users_hold_out_file_not_an_unused_split():
    table = load_demo("clinical")
    at = app().run()
    at.file_uploader[0].set_value(("cohort.csv", table.head(300).to_csv(index=False).encode(), "text/csv")).run()
    project(at).sweep.sensitive = ["total_cost_eur"]
    at.file_uploader(key=f"holdout.{project(at).id}").set_value(
        ("holdout.csv", table.tail(100).to_csv(index=False).encode(), "text/csv")).run()
    no_errors(at)
    assert project(at).holdout is not None
    run_sweep(at, levels=[1], baselines=[])
    sweep = generate(at).manifest()["sweep"]
    assert "holdout_fraction" not in sweep and "hold-out file (100 rows)" in sweep["holdout"]


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_earlier_releases_are_shown_before_generate_and_the_mix_panel_keeps_its_label(after_sweep):
    at = after_sweep
    at.switch_page("pages/choose.py").run()
    labels = [e.label for e in at.expander]
    at.slider(key="w.mix.pair_structure").set_value(0.0).run()
    assert [e.label for e in at.expander] == labels  # a changed label is a new, closed panel
    release = generate(at)
    from pages import common

    release.record(common.store(), note="first")
    later = app()  # a new session: nothing generated yet
    later.switch_page("pages/export.py").run()
    no_errors(later)
    assert "release" not in later.session_state
    listed = [d.value for d in later.dataframe if "release" in d.value.columns]
    assert listed and len(listed[0]) == 1 and listed[0]["note"].tolist() == ["first"]


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_choose_says_when_the_sweep_has_not_finished(after_sweep):
    at = after_sweep
    from pages import common

    common.store().update_job(project(at).job_id, status="interrupted")
    at.switch_page("pages/choose.py").run()
    assert any("has not finished" in w.value for w in at.warning)


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_a_typed_note_is_kept_as_it_is_typed(after_sweep):
    at = after_sweep
    at.switch_page("pages/export.py").run()
    next(b for b in at.button if b.label == "Generate release").click().run()
    at.text_input(key="w.release_note").set_value("for the registry").run()
    reloaded = app()
    reloaded.switch_page("pages/export.py").run()
    assert project(reloaded).release_note == "for the registry"
    assert reloaded.text_input(key="w.release_note").value == "for the registry"
