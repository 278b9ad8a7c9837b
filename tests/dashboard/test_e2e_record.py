"""Where the race lives in the browser: settings nudged while a sweep runs must not hide it, and a note typed and
followed at once by a click on the download must be the note the ledger and the report keep (headless
Chromium; screenshots in test-artifacts/e2e/)."""

from __future__ import annotations

import pytest

from tests.browser import (
    SWEEP_CEILING,
    browser_page,
    confirm_verdicts,
    go_to,
    held_sweep,
    no_streamlit_errors,
    project_keeps,
    running_server,
    settled,
    shot,
    sidebar,
    small_sweep,
    wait_for_text,
)
from tvs_core.evaluation.protocol import TINY_QUICK_NAME
from tvs_core.jobs import JobView
from tvs_core.release.ledger import releases
from tvs_core.storage import Store

pytestmark = pytest.mark.slow  # a Streamlit server, headless Chromium and a sweep


def nudge_threshold(page, steps: int) -> None:
    thumb = page.get_by_test_id("stSlider").filter(has_text="Association threshold").first.get_by_role("slider")
    thumb.focus()
    for _ in range(steps):
        thumb.press("ArrowLeft")
    settled(page)
    for _ in range(steps):
        thumb.press("ArrowRight")
    settled(page)


def type_seed(page, text: str) -> None:
    field = page.get_by_test_id("stTextInput").filter(has_text="Master seed").locator("input")
    field.fill(text)
    field.press("Enter")
    settled(page)


def test_nudging_settings_mid_sweep_keeps_the_sweep_and_a_note_typed_before_a_click_is_kept(tmp_path):
    workspace = tmp_path / "workspace"
    with running_server(workspace) as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_test_id("stDataFrame").first.wait_for()
        go_to(page, "3 · Sweep")
        small_sweep(page)
        page.get_by_role("button", name="Start sweep").click()
        with held_sweep(workspace) as job_id:  # it runs, and stays running while the settings are nudged
            wait_for_text(page, lambda: sidebar(page), "Sweep: running")
            # nudged while it runs, and put back: the sweep stays shown everywhere
            type_seed(page, "1")
            wait_for_text(page, lambda: page.locator("body").inner_text(), "Your settings now differ")
            type_seed(page, "0")
            go_to(page, "2 · Sensitive features")
            nudge_threshold(page, 20)
            shown = page.get_by_test_id("stSlider").filter(has_text="Association threshold").first.get_by_test_id(
                "stSliderThumbValue").inner_text()
            # what the slider says is what the project keeps, once the reruns the keys asked for have run (an older
            # script thread's save used to land last and keep 0.38 for good)
            project_keeps(workspace, f"the threshold the slider shows ({shown})",
                          lambda project: project.rho_star == float(shown))
            assert "Sweep: not started" not in sidebar(page)
            go_to(page, "3 · Sweep")
            body = page.locator("body").inner_text()
            assert "Press Start" not in body and "Your settings now differ" not in body, body[:2000]
            assert page.get_by_role("button", name="Cancel").is_enabled() and "Sweep: running" in sidebar(page)
            shot(page, "record-1-nudged-mid-sweep")
        wait_for_text(page, lambda: sidebar(page), "Sweep: done", SWEEP_CEILING)
        no_streamlit_errors(page)
        # the server's environment reached the worker it started: the sweep played the tiny games, and says so
        assert JobView(Store(workspace), job_id).settings_record()["protocol"]["name"] == TINY_QUICK_NAME

        go_to(page, "5 · Export")
        assert "Run a sweep" not in page.locator("body").inner_text()
        page.get_by_role("button", name="Generate release").click()
        page.get_by_role("heading", name="Guardrails").wait_for()
        confirm_verdicts(page, "the officer agreed on 3 March")  # the level's verdicts warn: read and confirmed
        note = page.get_by_test_id("stTextInput").filter(has_text="Note for the ledger").locator("input")
        note.fill("agreed with the DPO for the registry")  # no Enter, no wait: straight to the download
        with page.expect_download():
            page.get_by_role("button", name="Download synthetic CSV").click()
        page.get_by_text("Recorded in the release ledger as this table's release 1").first.wait_for()
        store = Store(workspace)
        recorded = releases(store)
        assert [e.note for e in recorded] == ["agreed with the DPO for the registry"]
        assert [e.confirmation for e in recorded] == ["the officer agreed on 3 March"]
        assert recorded[0].choice and recorded[0].choice.startswith("recommended at")  # nobody clicked a level
        report = page.get_by_role("button", name="Download report (HTML)")
        report.wait_for()
        with page.expect_download() as download:
            report.click()
        text = open(download.value.path(), encoding="utf-8").read()
        assert "agreed with the DPO for the registry" in text
        assert "no reason was written down" not in text
        shot(page, "record-2-note-kept")
        no_streamlit_errors(page)
