"""The dashboard never loses the user's work, tried the way people break it, in headless Chromium:
change page and come back, reload mid-sweep, restart the server, upload a CSV with missing responses
and an Excel workbook. Screenshots go to test-artifacts/e2e/."""

import pandas as pd
import pytest

from tests.browser import (
    SWEEP_CEILING,
    Server,
    browser_page,
    go_to,
    held_sweep,
    no_streamlit_errors,
    project_keeps,
    running_server,
    settled,
    shot,
    sidebar,
    small_sweep,
    upload,
    wait_for_text,
)
from tvs_core import load_demo

pytestmark = pytest.mark.slow  # a Streamlit server, headless Chromium and a sweep


def pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the selectbox labelled ``label``."""
    page.get_by_test_id("stSelectbox").filter(has_text=label).first.click()
    page.get_by_role("option", name=option).first.click()
    settled(page)


def slider_value(page, label: str) -> str:
    return page.get_by_test_id("stSlider").filter(has_text=label).first.get_by_test_id(
        "stSliderThumbValue").inner_text()


def selected(page, label: str) -> str:
    return page.get_by_role("combobox", name=label).first.input_value()


def checked(page, text: str) -> bool:
    return page.get_by_test_id("stRadio").get_by_text(text).first.locator(
        "xpath=ancestor::label//input").is_checked()


def test_choices_survive_navigation_on_every_page(tmp_path):
    workspace = tmp_path / "workspace"
    with running_server(workspace) as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_test_id("stDataFrame").first.wait_for()
        page.get_by_text("Impute and model a missingness indicator").click()
        project_keeps(workspace, "the missing-value policy", lambda p: p.sweep.missing == "impute")
        thumb = page.get_by_test_id("stSlider").filter(has_text="Hold-out").first.get_by_role("slider")
        thumb.focus()
        thumb.press("ArrowRight")
        thumb.press("ArrowRight")  # 0.20 -> 0.30
        project_keeps(workspace, "the hold-out share", lambda p: abs(p.sweep.holdout_fraction - 0.3) < 1e-9)
        settled(page)
        assert slider_value(page, "Hold-out") == "0.30"
        go_to(page, "2 · Sensitive features")
        page.get_by_text("Pearson correlation").click()
        project_keeps(workspace, "the association measure", lambda p: p.sweep.measure == "pearson")
        settled(page)
        go_to(page, "3 · Sweep")
        pick(page, "Protocol", "paper")
        project_keeps(workspace, "the protocol", lambda p: p.sweep.preset == "paper")
        for title in ("4 · Choose", "5 · Export", "Projects", "1 · Data"):
            go_to(page, title)
            no_streamlit_errors(page)
        assert checked(page, "Impute and model a missingness indicator")
        assert slider_value(page, "Hold-out") == "0.30"
        go_to(page, "2 · Sensitive features")
        assert checked(page, "Pearson correlation")
        assert slider_value(page, "Association threshold") == "0.60"  # the paper's Pearson 0.6, not 0.00
        go_to(page, "3 · Sweep")
        assert selected(page, "Protocol") == "paper"
        page.reload()  # a reload: a new session, the same project
        page.get_by_role("heading", name="Sweep").first.wait_for()
        settled(page)
        assert selected(page, "Protocol") == "paper"
        shot(page, "state-1-after-navigation")


def test_reload_mid_sweep_then_restart_and_reopen_from_the_project_list(tmp_path):
    workspace = tmp_path / "workspace"
    server = Server(workspace).start()
    try:
        with browser_page() as page:
            page.goto(server.url)
            page.get_by_test_id("stDataFrame").first.wait_for()
            go_to(page, "3 · Sweep")
            small_sweep(page)
            page.get_by_role("button", name="Start sweep").click()
            with held_sweep(workspace):  # it runs, and stays running through the reload
                wait_for_text(page, lambda: sidebar(page), "Sweep: running")
                page.reload()  # mid-sweep
                page.get_by_role("heading", name="Sweep").first.wait_for()
                wait_for_text(page, lambda: sidebar(page), "Sweep: running")
                settled(page)
                assert page.get_by_role("button", name="Start sweep").is_disabled()  # one worker per job
                shot(page, "state-2-reloaded-mid-sweep")
            wait_for_text(page, lambda: sidebar(page), "Sweep: done", SWEEP_CEILING)  # the same sweep completes
            no_streamlit_errors(page)
        server.stop()
        server.start()  # a server restart, same workspace
        other = tmp_path / "other.csv"
        load_demo("clinical")[["total_cost_eur", "lactate_mmol_l", "in_hospital_death"]].head(200).to_csv(
            other, index=False)
        with browser_page() as page:
            page.goto(server.url)
            page.get_by_test_id("stDataFrame").first.wait_for()
            assert "Sweep: done" in sidebar(page)  # the open project came back with its sweep
            upload(page, other)
            wait_for_text(page, lambda: sidebar(page), "other.csv")
            assert "Sweep: not started" in sidebar(page)
            go_to(page, "Projects")
            page.get_by_text("Simulated ICU cohort").first.click()  # expand the first project
            open_button = page.get_by_role("button", name="Open", exact=True).first
            open_button.wait_for()
            shot(page, "6-projects")
            open_button.click()
            page.get_by_role("heading", name="Sweep").first.wait_for()
            page.locator(".js-plotly-plot").first.wait_for()
            assert "Simulated ICU cohort" in sidebar(page) and "Sweep: done" in sidebar(page)
            no_streamlit_errors(page)
            shot(page, "state-3-reopened-after-restart")
    finally:
        server.cancel_jobs()
        server.stop()


def test_missing_responses_and_an_excel_workbook_in_the_browser(tmp_path):
    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "in_hospital_death"]]
    table = table.head(300).astype({"in_hospital_death": "float64"})
    table.loc[[5, 50, 150], "in_hospital_death"] = float("nan")
    csv = tmp_path / "missing_y.csv"
    table.to_csv(csv, index=False)
    workbook = tmp_path / "cohort.xlsx"
    with pd.ExcelWriter(workbook, engine="openpyxl") as writer:
        table.head(120).to_excel(writer, sheet_name="cohort", index=False)
    with running_server(tmp_path / "workspace") as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_test_id("stDataFrame").first.wait_for()
        upload(page, csv)
        page.get_by_text("3 rows have no value of the response").wait_for()
        go_to(page, "2 · Sensitive features")
        page.get_by_test_id("stMultiSelect").filter(has_text="Sensitive columns").first.click()
        page.get_by_role("option", name="total_cost_eur").first.click()
        page.keyboard.press("Escape")
        page.get_by_text("the sensitive columns (total_cost_eur)").first.wait_for()  # the order, in words
        go_to(page, "3 · Sweep")
        small_sweep(page)
        page.get_by_role("button", name="Start sweep").click()
        wait_for_text(page, lambda: sidebar(page), "Sweep: done", SWEEP_CEILING)
        assert "failed" not in sidebar(page)
        no_streamlit_errors(page)
        go_to(page, "1 · Data")
        upload(page, workbook)
        wait_for_text(page, lambda: sidebar(page), "cohort.xlsx")
        assert "120 rows" in sidebar(page)
        no_streamlit_errors(page)
        shot(page, "state-4-excel")
