"""A browser on the real dashboard, for the bench scripts, the README's screenshot and the browser tests: a Streamlit
server on a free port with its own workspace, on the tiny protocol (``TVS_TEST_PROTOCOL=tiny``, inherited by its sweep
workers), headless Chromium (Debian's, /usr/bin/chromium), and helpers that wait on conditions — Streamlit's test
ids, its script state — never a fixed time, with ceilings generous enough for a machine loaded several times over.
Needs playwright (requirements-extras.txt)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from playwright import sync_api as playwright

from tvs_core.evaluation.protocol import TEST_PROTOCOL_ENV

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Ceilings, never budgets: how long a wait on the app may take before the test fails. A page's first run, a click's
# rerun, a chart's drawing take a second or two on an idle machine, and minutes on one loaded many times over (a
# page that never comes still fails, later). Every Playwright wait of the pages here uses CEILING unless it says less.
CEILING = 600_000  # ms
SWEEP_CEILING = 1_800_000  # ms: for a whole sweep of a demo on the tiny protocol, in its worker
START_SECONDS = 600.0  # for a server to listen: an import of Streamlit and pandas on a loaded machine
LAUNCH = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _access_token(workspace: str) -> str:
    from tvs_core.storage import Workspace

    return Workspace(workspace).access_token()


class Server:
    """``streamlit run app.py`` on 127.0.0.1:port with the workspace given; restartable. ``account`` (a
    ``tests.accounts.Account``): the server runs as that account, as a steward's does, and its workspace is that
    account's (made by it)."""

    def __init__(self, workspace: Path, port: int | None = None, account=None):
        self.workspace, self.port, self.account = workspace, port or free_port(), account
        self.token = account.run(_access_token, str(workspace)) if account else _access_token(str(workspace))
        self.url = self.link()  # the address the console prints: the token in it
        self.process = None
        # the environment as it was when the server was made: a restart keeps it (a shared test fixture's server,
        # restarted inside a test, stays the fixture's: tests/processes.py's owner of every process it starts)
        self.environment = dict(os.environ)
        self.log = workspace.parent / f"streamlit-{self.port}.log"

    def link(self, path: str = "", token: str | None = None) -> str:
        """The address of a page (a deep link), with the access token unless ``token=""``."""
        token = self.token if token is None else token
        return f"http://127.0.0.1:{self.port}/{path}" + (f"?token={token}" if token else "")

    def start(self) -> Server:
        env = {**self.environment, "TVS_WORKSPACE": str(self.workspace), "PYTHONPATH": str(ROOT),
               TEST_PROTOCOL_ENV: "tiny"}
        owner_only = lambda path, flags: os.open(path, flags, 0o600)  # noqa: E731
        with open(self.log, "ab", opener=owner_only) as log:  # beside the workspace: what the server said
            command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(self.port),
                       "--server.headless", "true"]
            if self.account is not None:
                env["HOME"] = str(self.account.home)
            self.process = (self.account.popen if self.account is not None else subprocess.Popen)(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the Streamlit server did not listen on port {self.port}; {self.said()}")

    def said(self, characters: int = 3000) -> str:
        """The end of the server's output, and whether it still runs: for a failing test's message."""
        alive = self.process is not None and self.process.poll() is None
        text = self.log.read_text(errors="replace")[-characters:] if self.log.exists() else ""
        return f"server {'running' if alive else 'not running'}; its output ends with:\n{text}"

    def stop(self) -> None:
        """The server only: sweep workers run in their own sessions and survive it, as in real use."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:  # a script run still busy in pandas on a loaded machine: as Ctrl-C twice
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=20)
            self.process = None

    def cancel_jobs(self) -> None:
        if self.account is not None:  # its workspace opens only as its owner
            self.account.run(_cancel_jobs, str(self.workspace), timeout=600)
        else:
            _cancel_jobs(str(self.workspace))


def _cancel_jobs(workspace: str) -> None:
    from tvs_core.jobs.process import cancel_job
    from tvs_core.storage.store import Store

    store = Store(workspace)
    for job in store.jobs():
        if job.status in ("queued", "running"):
            cancel_job(store, job.id, grace_seconds=5)


@contextmanager
def running_server(workspace: Path, account=None):
    server = Server(workspace, account=account).start()
    try:
        yield server
    finally:
        server.cancel_jobs()
        server.stop()


@contextmanager
def browser_page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH, timeout=CEILING)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            page = context.new_page()  # in a context of its own, so that a test can open another tab beside it
            page.set_default_timeout(CEILING)  # Playwright's own default is 30 s
            page.set_default_navigation_timeout(CEILING)
            yield page
        finally:
            browser.close()


# Streamlit's script state, which it writes on its root element: "running" while a script (or a fragment) runs
SCRIPT_STATE = "document.querySelector('[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state')"
# consecutive checks, 100 ms apart, that find no run and no rerun asked for: short enough to fall between two of a
# running sweep's refreshes (every 2 s), long enough for an action's rerun to have been asked for
QUIET_CHECKS = 3


def settled(page, timeout: float = CEILING) -> None:
    """Wait until the app has finished the runs the last actions set off: no script run, and no rerun asked for,
    at a few checks in a row (a sweep's page refreshes itself every two seconds, so a quiet moment comes between two
    refreshes). A slider sends its value 200 ms after the last key: what must follow from it is waited for as a
    condition on the result (the value the project keeps), not through this."""
    page.evaluate("window.__tvsQuiet = 0")
    page.wait_for_function(f"""() => {{
        const quiet = {SCRIPT_STATE} === 'notRunning';
        window.__tvsQuiet = quiet ? (window.__tvsQuiet || 0) + 1 : 0;
        return window.__tvsQuiet >= {QUIET_CHECKS};
    }}""", polling=100, timeout=timeout)


def go_to(page, title: str) -> None:
    heading = page.get_by_role("heading", name=title.split(" · ")[-1].split(" ")[0]).first
    for attempt in range(3):
        page.get_by_role("link", name=title).click()
        try:  # a click that lands while the page reruns (a sweep's last refresh) can be dropped: click again,
            heading.wait_for(timeout=CEILING / 3)  # as a person would; a page that never comes still fails below
            break
        except playwright.TimeoutError:
            if attempt == 2:
                raise
    settled(page)  # the page's widgets are drawn


def sidebar(page) -> str:
    return page.get_by_test_id("stSidebar").inner_text()


def upload(page, path: Path) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))  # the table's
    page.get_by_text(f"{path.name} — ").first.wait_for()


def wait_for_text(page, where, text: str, timeout: float = CEILING) -> None:
    deadline = time.monotonic() + timeout / 1000
    while time.monotonic() < deadline:
        if text in where():
            return
        page.wait_for_timeout(500)  # between two looks
    raise AssertionError(f"'{text}' did not appear in {timeout / 1000:.0f} s; saw: {where()[:500]}")


def resident_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"process {pid} is gone")


def upload_and_weigh(server: Server, page, path: Path) -> tuple[str, float, float]:
    """Upload ``path`` on the open Data page, as a steward does, and wait for the page's verdict: (what it said —
    the refusal, or the opened table's heading —, seconds from the upload to the verdict, how far the server grew
    at its peak meanwhile, MB: its peak resident size, reset before the upload, less its size before)."""
    pid = server.process.pid
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak resident size starts again from now (Linux, as root)
    before = resident_mb(pid)
    settled(page)  # a person uploads once the page is drawn
    started = time.monotonic()
    verdict = page.get_by_text(f"Could not open {path.name}").or_(page.get_by_text(f"{path.name} — ")).first
    for attempt in range(2):
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))
        try:  # in one run of the suite an upload reached no run of the page (the server stayed idle, cause not
            verdict.wait_for(timeout=CEILING / 2)  # found): choose the file again, as a person would
            break
        except playwright.TimeoutError:
            if attempt == 1:
                raise
    seconds = time.monotonic() - started
    said = verdict.inner_text()
    settled(page)
    return said, seconds, resident_mb(pid, "VmHWM") - before
