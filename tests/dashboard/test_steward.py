"""What the steward reads (issue 56), through the pages as a steward uses them: no recommendation from a cancelled
sweep's provisional numbers, and a level whose verdicts warn released only once they are confirmed, with a reason
that the ledger and the manifest keep."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import SWEPT_GROUP
from tests.dashboard.test_app import confirm, no_errors, project
from tests.helpers import shown


@pytest.fixture(autouse=True)
def workspace(page_workspace):
    return page_workspace


def cancelled(at, forgotten) -> None:
    """The open sweep as a cancel leaves it: the tasks ``forgotten`` (a function of a task's name) never stored."""
    from pages import common

    job_id = project(at).job_id
    store = common.store()
    store.forget_results(job_id, [name for name in store.done_tasks(job_id) if forgotten(name)])
    store.update_job(job_id, status="cancelled")


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_a_cancelled_sweep_whose_games_have_not_reported_recommends_nothing(after_sweep):
    """Finding 2: a sweep cancelled at 28 of 51 tasks recommended level 119 ("best in 88 %") from numbers its games
    had not finished. The membership game's evaluations write every level's numbers at once: without them no level
    is complete, so none is recommended — the Choose page says why, and Export asks for a chosen level."""
    at = after_sweep
    cancelled(at, lambda name: name.startswith("mia_eval"))
    at.switch_page("pages/choose.py").run()
    no_errors(at)
    assert not any("Recommended level" in m.value for m in at.markdown)
    said = next(shown(w.value) for w in at.warning if "No level is recommended" in w.value)
    assert "no level has all its results yet" in said and "levels 1, 10 and 20 are provisional" in said
    at.switch_page("pages/export.py").run()
    no_errors(at)
    assert any("none is recommended yet" in w.value for w in at.warning)
    assert not any(b.label == "Generate release" for b in at.button)


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_a_cancelled_sweep_recommends_only_among_its_complete_levels_and_says_which(after_sweep):
    """The top level lacks its details (the GDPR criteria, fidelity): its numbers are provisional, named as such, and
    the recommendation is made among the complete levels — on the Choose page as in what Export releases."""
    at = after_sweep
    cancelled(at, lambda name: name == "release_details:20")
    at.switch_page("pages/choose.py").run()
    at.slider(key="w.alpha").set_value(0.0).run()  # utility alone: the top level would lead without the rule
    no_errors(at)
    line = next(shown(m.value) for m in at.markdown if "Recommended level" in m.value)
    assert "The numbers of level 20 are provisional" in line and "among the complete ones, levels 1 and 10" in line
    from pages.shared import library

    assert library.recommended_level() in (1, 10)
    assert "best at your weights is not the same as fit to release" in line.lower()


@pytest.mark.slow
@pytest.mark.xdist_group(SWEPT_GROUP)
def test_export_asks_before_releasing_a_level_whose_verdicts_warn_and_the_ledger_keeps_the_reason(after_sweep):
    """Finding 7: a level whose card said "do not release without the officer's agreement" was exported with no
    reminder. Export repeats the verdicts that warn; nothing can be downloaded until the user confirms with a
    reason; the release the download records carries the reason into the manifest and the ledger."""
    at = after_sweep
    at.switch_page("pages/export.py").run()
    next(b for b in at.button if b.label == "Generate release").click().run()
    no_errors(at)
    release = at.session_state["release"]
    warned = release.to_confirm
    assert warned, "every level of a tiny sweep warns (its intervals rest on few replicates)"
    listed = " ".join(shown(m.value) for m in at.markdown)
    assert all(shown(v.text) in listed for v in warned) and "Warning" in listed  # each, its severity in a word
    assert not at.get("download_button")  # nothing leaves yet
    at.checkbox(key="release_confirmed").check().run()
    assert not at.get("download_button")  # a confirmation needs its reason
    confirm(at, "agreed with the officer on 3 March")
    assert len(at.get("download_button")) == 3
    from pages import common
    from tvs_core.release.ledger import ledger_frame, releases

    recorded = at.session_state["release_to_record"]  # what the CSV download's callback records (AppTest cannot
    entry = recorded.record(common.store(), note="for the registry")  # press a download button)
    assert entry.confirmation == "agreed with the officer on 3 March"
    stored = releases(common.store(), entry.fingerprint)[-1]
    assert stored.confirmation == entry.confirmation and stored.verdicts == entry.verdicts
    assert "its warnings: agreed with the officer on 3 March" in ledger_frame([stored]).loc[0, "released despite"]
    manifest = recorded.manifest()["released_despite_warnings"]
    assert manifest["reason"] == "agreed with the officer on 3 March"
    assert manifest["verdicts"] == [v.text for v in warned]
