"""End to end in headless Chromium: demo → sensitive columns → quick sweep → click a point → export.

Screenshots of every page are written to test-artifacts/e2e/. The test needs Debian's chromium
(/usr/bin/chromium; the README's test command installs it when it can) and the playwright package;
without them it is skipped with the reason, never silently passed."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in requirements-extras.txt")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    workspace = tmp_path_factory.mktemp("e2e-workspace")
    env = {**os.environ, "TVS_WORKSPACE": str(workspace), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                                str(port), "--server.headless", "true"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.5)
    yield f"http://127.0.0.1:{port}", workspace
    from tvs_core.jobs.process import cancel_job
    from tvs_core.jobs.store import Store

    store = Store(workspace)
    for job in store.jobs():
        if job["status"] in ("queued", "running"):
            cancel_job(store, job["id"], grace_seconds=5)
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)


def no_streamlit_errors(page) -> None:
    for test_id in ("stException", "stAlertContentError"):
        boxes = page.locator(f'[data-testid="{test_id}"]')
        assert boxes.count() == 0, f"a Streamlit error box appeared: {boxes.first.inner_text()}"


def go_to(page, title: str) -> None:
    page.get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title.split(" · ")[1].split(" ")[0]).first.wait_for(timeout=60_000)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(1500)  # let plotly finish drawing
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_demo_flow_in_chromium(server, tmp_path):
    url, _ = server
    started = time.time()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.goto(url)
        page.get_by_test_id("stDataFrame").first.wait_for(timeout=90_000)
        page.get_by_text("1250 rows").first.wait_for()
        no_streamlit_errors(page)
        shot(page, "1-data")

        go_to(page, "2 · Sensitive features")
        page.locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)
        # pick the sensitive columns: drop lactate, keep total cost and creatinine
        page.get_by_role("button", name="Remove lactate_mmol_l").click()
        page.wait_for_timeout(1500)
        page.get_by_text("S = total_cost_eur, creatinine_mg_dl").wait_for(timeout=30_000)
        no_streamlit_errors(page)
        shot(page, "2-sensitive")

        go_to(page, "3 · Sweep")
        page.get_by_role("button", name="Start sweep").click()
        points = page.locator(".js-plotly-plot .scatterlayer .trace .points path")
        points.first.wait_for(timeout=180_000)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .scatterlayer .points path').length >= 3",
                               timeout=180_000)
        no_streamlit_errors(page)
        shot(page, "3-sweep")
        # click a TVineSynth level's marker: the trace whose customdata holds level numbers. The chart is
        # redrawn whenever new results arrive, which can swallow a click, so try a few times.
        find_trace = """() => {
            const gd = document.querySelector('.js-plotly-plot');
            return gd.data.findIndex(t => Array.isArray(t.customdata) && t.customdata.some(c => Number.isInteger(c)
                || (Array.isArray(c) && Number.isInteger(c[0]))));
        }"""
        selected = page.get_by_text("Selected level:").locator("xpath=..")
        for _attempt in range(6):
            index = page.evaluate(find_trace)
            assert index >= 0, "no TVineSynth level in the scatter"
            marker = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace").nth(index).locator(
                ".points path").last
            box = marker.bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            try:
                page.wait_for_function("!document.body.innerText.includes('Selected level: —')", timeout=8_000)
                break
            except playwright.TimeoutError:
                continue
        assert "—" not in selected.first.inner_text()

        go_to(page, "4 · Choose")
        page.get_by_text("Best level").first.wait_for(timeout=60_000)
        no_streamlit_errors(page)
        shot(page, "4-choose")

        go_to(page, "5 · Export")
        page.get_by_role("button", name="Generate release").click()
        page.get_by_role("heading", name="Guardrails").wait_for(timeout=60_000)
        with page.expect_download(timeout=60_000) as download:
            page.get_by_role("button", name="Download synthetic CSV").click()
        path = tmp_path / "release.csv"
        download.value.save_as(path)
        header = path.read_text().splitlines()[0]
        assert header.startswith("total_cost_eur,ward_cost_eur") and header.endswith("in_hospital_death")
        no_streamlit_errors(page)
        shot(page, "5-export")
        browser.close()
    (ARTIFACTS / "duration.txt").write_text(f"{time.time() - started:.1f} s\n")
