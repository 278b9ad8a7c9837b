"""The release report: one self-contained HTML page, every section, no request leaving it, from the CLI too."""

import re

import pytest

from tests.helpers import run
from tvs_core.choice import ChoiceSettings
from tvs_core.errors import DataError
from tvs_core.jobs import JobView
from tvs_core.release.release import Release
from tvs_core.report import SECTIONS, build_report, write_report
from tvs_core.storage.store import Store

MAX_BYTES = 15_000_000
LOCAL = ("file:", "data:", "about:", "blob:")


@pytest.fixture(scope="module")
def view(stored_sweep):
    store, job_id, _ = stored_sweep
    return JobView(store, job_id)


@pytest.fixture(scope="module")
def no_level(view, tmp_path_factory):
    """The command line's report of a sweep whose level was not chosen: the recommendation's release, not written."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    best = ChoiceSettings().select(view.summary(), view.config.sensitive).best_level
    made = Release.from_sweep(view, best, table_name="clinical, 300 rows", chosen_by_user=False)
    write_report(build_report(made, exported=False), path)
    return path


def test_every_section_is_there_and_the_summary_comes_first(no_level):
    text = no_level.read_text()
    ids = re.findall(r'<section id="([a-z]+)">', text)
    assert ids == [key for key, _ in SECTIONS] and ids[0] == "summary"
    assert no_level.stat().st_size < MAX_BYTES
    assert "No level was chosen" in text and "The recommendation is level" in text
    scripts = re.findall(r"<script[^>]*>", text)
    big = [s for s in text.split("<script")[1:] if len(s) > 1_000_000]
    assert len(big) == 1 and "plotly" in big[0][:2000].lower()  # plotly.js embedded once, not per figure
    assert not [s for s in scripts if "src=" in s]  # nothing loaded from elsewhere
    outside = text.replace(big[0], "")
    assert "https://" not in outside and "@import" not in outside
    assert "@media print" in text and "break-before:page" in text
    # the catalogue's labels, the interval and n of every number, the versions
    assert "Membership attack AUC" in text and "n=" in text and "pyvinecopulib" in text


def test_report_opens_in_chromium_without_a_request_leaving_the_page(no_level):
    from tests.browser import CHROMIUM, LAUNCH, playwright

    requests = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", *LAUNCH])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.goto(no_level.as_uri(), wait_until="load")
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 5",
                                   timeout=30_000)  # plotly.js ran from the page itself: the figures are drawn
            for key, _ in SECTIONS:
                assert page.locator(f"section#{key}").count() == 1, key
            page.emulate_media(media="print")
            assert page.locator("nav").evaluate("e => getComputedStyle(e).display") == "none"
        finally:
            browser.close()
    leaving = [url for url in requests if not url.startswith(LOCAL)]
    assert requests and not leaving, leaving


def test_report_of_an_export_with_a_level_a_reason_and_the_pooled_check(view, tmp_path):
    store = Store(tmp_path)  # a ledger of its own: one earlier release of the table
    Release.from_sweep(view, 2, seed=6, store=store).record(store, note="the first one")
    made = Release.from_sweep(view, 2, seed=7, settings=ChoiceSettings(alpha=0.25), store=store)
    assert made.pooled is not None and made.pooled.earlier == 1
    text = build_report(made, reason="Level 2 keeps the ward costs; agreed with the DPO.")
    summary_part = text.split('<section id="data">')[0]
    assert "Level <b>2</b> was chosen" in summary_part and "agreed with the DPO" in summary_part
    assert made.sha256 in summary_part and "α = 0.25" in summary_part
    assert "Pooled-release check" in text and "Membership attack AUC" in text
    with pytest.raises(DataError, match="Level 9 was not evaluated"):
        Release.from_sweep(view, 9)


def test_cli_report_writes_the_page(stored_sweep, tmp_path):
    store, job_id, _ = stored_sweep
    out = tmp_path / "report.html"
    result = run("report", job_id, "--level", "3", "--reason", "as agreed", "--workspace", store.workspace,
                 "--out", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "Level <b>3</b> was chosen" in text and "as agreed" in text and out.stat().st_size < MAX_BYTES
    assert not list(tmp_path.glob(".report.html.*"))  # written to a temporary file and renamed


@pytest.mark.parametrize("args, words", [
    (["report", "nope", "--out", "{tmp}/r.html"], "No job 'nope'"),
    (["report", "{job}", "--level", "9", "--out", "{tmp}/r.html"], "Level 9 was not evaluated"),
    (["report", "{job}", "--out", "{tmp}"], "is a folder"),
    (["report", "{job}", "--alpha", "2", "--out", "{tmp}/r.html"], "--alpha"),
    (["report", "{job}", "--privacy", "nonsense", "--out", "{tmp}/r.html"], "nonsense"),
    (["report", "{job}"], "--out"),
])
def test_cli_report_refuses_bad_input_in_one_line(args, words, stored_sweep, tmp_path):
    store, job_id, _ = stored_sweep
    args = [a.replace("{tmp}", str(tmp_path)).replace("{job}", job_id) for a in args]
    result = run(*args, "--workspace", store.workspace)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr
