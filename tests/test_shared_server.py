"""A shared hospital server: one account per steward, umask 022, home folders 0755. A second local account (made for
the test, removed after it; root only) tries what the security review tried: read the owner's workspace, and open
the owner's dashboard without its token."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from tests.accounts import readable_by, require_root, second_account, shared_parent
from tests.helpers import run

pytestmark = pytest.mark.slow  # servers, a second account, Chromium


@pytest.fixture
def debian_umask():
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.fixture
def other():
    with second_account() as account:
        yield account


def test_another_account_reads_nothing_in_the_workspace(other, debian_umask):
    parent = shared_parent()  # a home folder every account can traverse
    try:
        workspace = parent / "workspace"
        out = parent / "out"
        out.mkdir()
        made = run("release", "--demo", "clinical", "--level", "1", "--rows", "200", "--out", out / "s.csv",
                   "--note", "for the registry", "--workspace", workspace)
        assert made.returncode == 0, made.stderr
        assert run("ledger", "--demo", "clinical", "--workspace", workspace).returncode == 0
        from tvs_core.jobs.projects import Projects
        from tvs_core.storage import Store

        store = Store(workspace)
        Projects(store).create(__import__("tvs_core").load_demo("clinical"), "clinical", "demo:clinical")
        try:
            raise ValueError
        except ValueError:
            store.space.log_unexpected("a test")
        assert readable_by(other, workspace) == []
        store.space.save_upload("cohort.csv", b"age,y\n1,0\n")
        store.space.access_token()
        kept = {p.relative_to(workspace).as_posix() for p in workspace.rglob("*")}
        assert {"studio.sqlite", "access-token", "uploads/cohort.csv", "logs/errors.log"} <= kept
        assert any(p.startswith("releases/") for p in kept) and any(p.startswith("data/") for p in kept)
        assert readable_by(other, workspace) == []
        # the release and its manifest, in a folder of the user's that others may list
        assert [p for p in readable_by(other, out) if not p.endswith("(listing)")] == []
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _other_browser(account, port: int) -> subprocess.Popen:
    """Chromium running as the other account, driven from here through its debugging port: every request it makes
    to the dashboard comes from that account's process."""
    from tests.browser import CHROMIUM, LAUNCH

    profile = account.home / "profile"
    account.command(["mkdir", "-p", str(profile)], check=True)
    return account.popen([CHROMIUM, "--headless", *LAUNCH, f"--user-data-dir={profile}",
                          f"--remote-debugging-port={port}", "about:blank"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def test_another_account_cannot_open_the_dashboard_without_its_token(other, tmp_path):
    require_root()
    from tests.browser import CEILING, free_port, playwright, running_server, settled

    parent = shared_parent()
    port = free_port()
    browser_process = _other_browser(other, port)
    try:
        with running_server(parent / "workspace") as server, playwright.sync_playwright() as p:
            deadline = time.monotonic() + 300  # a ceiling: Chromium starting on a loaded machine
            while True:
                try:
                    browser = p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            page = browser.contexts[0].new_page()
            page.set_default_timeout(CEILING)
            page.set_default_navigation_timeout(CEILING)
            for path, token in (("", ""), ("choose", ""), ("export", ""), ("", "not-the-token"),
                                ("projects", server.token[:-1])):
                page.goto(server.link(path, token=token))
                page.get_by_text("opens only with its access token").first.wait_for()
                settled(page)  # anything the app would draw after the sign-in box is drawn by now
                body = page.locator("body").inner_text()
                assert "1250 rows" not in body and "Simulated" not in body, body[:400]
                assert page.locator('[data-testid="stFileUploaderDropzoneInput"]').count() == 0
                assert page.locator('[data-testid="stDataFrame"]').count() == 0
                assert page.locator('[data-testid="stSidebarNav"]').count() == 0
                buttons = page.locator("button").all_inner_texts()
                shown = [b.strip() for b in buttons if b.strip()]
                assert set(shown) <= {"Open the dashboard", "visibility"}, shown
                if token:
                    assert "not right" in body
            page.goto(server.link("", token=""))
            page.get_by_label("Access token").fill(server.token[::-1])
            page.get_by_role("button", name="Open the dashboard").click()
            page.get_by_text("That token is not right").first.wait_for()
            page.goto(server.url)  # the owner's address, copied: the token is all that opens it
            page.get_by_text("1250 rows").first.wait_for()
            browser.close()
    finally:
        os.killpg(browser_process.pid, signal.SIGKILL)
        browser_process.wait()
        shutil.rmtree(parent, ignore_errors=True)


def test_a_second_dashboard_never_lands_on_a_taken_port(tmp_path):
    """A second steward's dashboard: a taken port is refused in one sentence; without --port a free one is taken
    and printed with the token."""
    import socket
    import subprocess
    import sys

    from tests.helpers import ROOT

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = run("dashboard", "--port", port, "--workspace", tmp_path / "space")
        assert refused.returncode == 2 and f"Port {port} is taken" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    elsewhere = tmp_path / "elsewhere"  # started from another folder: the project's settings file still holds
    elsewhere.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "tvs_core", "dashboard", "--workspace", str(tmp_path / "space")],
                               cwd=elsewhere, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        line = process.stdout.readline()
        token = (tmp_path / "space" / "access-token").read_text().strip()
        assert line.startswith("TVineSynth Studio is open for you at http://127.0.0.1:") and f"?token={token}" in line
        settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
        assert settings["browser"]["gatherUsageStats"] is False  # nothing leaves the machine
        deadline = time.monotonic() + 300  # Streamlit reads .streamlit/config.toml from the folder the server runs in
        while time.monotonic() < deadline:
            if Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")[1:3] == [b"-m", b"streamlit"]:
                break
            time.sleep(0.1)
        assert Path(f"/proc/{process.pid}/cwd").resolve() == ROOT.resolve()
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
