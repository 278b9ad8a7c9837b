"""Shared by the browser tests: a Streamlit server on a free port with its own workspace, on the tiny protocol
(``TVS_TEST_PROTOCOL=tiny``, inherited by its sweep workers), headless Chromium (Debian's, /usr/bin/chromium), and
helpers that wait on conditions — Streamlit's test ids, its script state, what the workspace stores — never a fixed
time, with ceilings generous enough for a machine loaded several times over."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.helpers import wait_until
from tests.processes import OWNER
from tvs_core.evaluation.protocol import TEST_PROTOCOL_ENV

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in requirements-extras.txt")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
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
        self.owner = os.environ.get(OWNER)  # who started it (a shared fixture): a restart inside a test keeps it
        self.log = workspace.parent / f"streamlit-{self.port}.log"

    def link(self, path: str = "", token: str | None = None) -> str:
        """The address of a page (a deep link), with the access token unless ``token=""``."""
        token = self.token if token is None else token
        return f"http://127.0.0.1:{self.port}/{path}" + (f"?token={token}" if token else "")

    def start(self) -> Server:
        env = {**os.environ, "TVS_WORKSPACE": str(self.workspace), "PYTHONPATH": str(ROOT), TEST_PROTOCOL_ENV: "tiny"}
        if self.owner is not None:
            env[OWNER] = self.owner
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


def _write_locked(database: Path) -> bool:
    import sqlite3

    connection = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        connection.close()


def _stopped(store, group: int) -> None:
    """The process group stopped (SIGSTOP) at a moment it holds no write lock on the store."""
    deadline = time.monotonic() + CEILING / 1000  # a ceiling, not a wait: a busy machine may take long to commit
    while time.monotonic() < deadline:
        os.killpg(group, signal.SIGSTOP)
        if not _write_locked(store.path):
            return
        os.killpg(group, signal.SIGCONT)  # stopped inside a write: let it finish, then stop it again
        time.sleep(0.05)
    raise AssertionError("the sweep's worker never left the store's write lock")


def _running_worker(store) -> tuple[str, int]:
    """The open project's sweep, once its worker runs: (job id, its process group)."""
    from tvs_core.projects import Projects

    job_id = wait_until(lambda: Projects(store).current().job_id, "a sweep was started", CEILING / 1000)
    job = wait_until(lambda: (found := store.job(job_id)).status == "running" and found.pid and found,
                     "the sweep's worker runs", CEILING / 1000)
    return job_id, job.pid  # started in a session of its own: its process group


@contextmanager
def held_sweep(workspace: Path):
    """The open project's sweep held where it is while the test acts, as a long sweep on a busy machine is: once it
    runs, its worker's process group (the worker and its pool) is stopped (SIGSTOP) at a moment it holds no write
    lock on the store, and let go (SIGCONT) afterwards. The pages see a running sweep whose progress waits; the
    sweep then finishes as any other. Yields the job's id."""
    from tvs_core.storage import Store

    store = Store(workspace)
    try:
        job_id, group = _running_worker(store)
        _stopped(store, group)
        try:
            yield job_id
        finally:
            with suppress(ProcessLookupError):
                os.killpg(group, signal.SIGCONT)
    finally:
        store.close()


class Hold:
    """A sweep held by ``held_when``: ``job_id()`` waits until it is held there and gives its id."""

    def __init__(self):
        self.reached, self.error, self.job, self.group = threading.Event(), None, None, None
        self.released = threading.Event()

    def job_id(self) -> str:
        assert self.reached.wait(CEILING / 1000), "the sweep was never held"
        if self.error is not None:
            raise self.error
        return self.job


@contextmanager
def held_when(workspace: Path, until, near=None):
    """Entered before Start: the sweep the open project starts is held (its process group stopped) at the first
    moment ``until(store, job_id)`` holds — a state a running sweep passes through in a moment, such as every level's
    first numbers stored before any level is refined. A thread waits for the worker, lets it run while
    ``near(store, job_id)`` does not hold yet, then runs it in slices of 20 ms, stopped between them while
    ``until`` is read (a task longer than a slice cannot end unseen), and keeps it stopped there until the context
    ends. Yields a ``Hold``."""
    from tvs_core.storage import Store

    hold = Hold()

    def watch() -> None:
        store = Store(workspace)
        try:
            hold.job, hold.group = _running_worker(store)
            deadline = time.monotonic() + CEILING / 1000
            while near is not None and not near(store, hold.job) and not hold.released.is_set():
                assert time.monotonic() < deadline, f"the sweep never came near the state held for ({near})"
                time.sleep(0.05)
            _stopped(store, hold.group)
            while not until(store, hold.job) and not hold.released.is_set():
                assert time.monotonic() < deadline, f"the sweep never reached the state held for ({until})"
                os.killpg(hold.group, signal.SIGCONT)
                time.sleep(0.02)
                _stopped(store, hold.group)
        except BaseException as exc:  # said by job_id(), in the test's thread
            hold.error = exc
        finally:
            store.close()
            hold.reached.set()

    watcher = threading.Thread(target=watch, name="held_when", daemon=True)
    watcher.start()
    try:
        yield hold
    finally:
        hold.released.set()
        watcher.join(CEILING / 1000)
        if hold.group is not None:
            with suppress(ProcessLookupError):
                os.killpg(hold.group, signal.SIGCONT)


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


def no_streamlit_errors(page) -> None:
    for test_id in ("stException", "stAlertContentError"):
        boxes = page.locator(f'[data-testid="{test_id}"]')
        assert boxes.count() == 0, f"a Streamlit error box appeared: {boxes.first.inner_text()}"


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


def project_keeps(workspace: Path, what: str, check) -> None:
    """Wait until the open project, as the workspace stores it, passes ``check``: a choice is kept once it is
    saved, whatever the screen shows meanwhile."""
    from tvs_core.projects import Projects
    from tvs_core.storage import Store

    def saved():
        store = Store(workspace)
        try:
            return check(Projects(store).current())
        finally:
            store.close()

    wait_until(saved, f"the project keeps {what}", CEILING / 1000, every=0.5)


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


CONFIRM = "I have read these verdicts and release this level anyway"


def confirm_verdicts(page, why: str) -> None:
    """On Export, after Generate: confirm the release of a level whose verdicts warn, with a reason, as a person
    does (every level of a tiny sweep warns: its intervals rest on few replicates); the downloads then appear."""
    page.get_by_text(CONFIRM).first.click()
    reason = page.get_by_test_id("stTextInput").filter(has_text="Why (kept in the manifest").locator("input")
    playwright.expect(reason).to_be_enabled(timeout=CEILING)
    reason.fill(why)
    reason.press("Enter")
    page.get_by_role("button", name="Download synthetic CSV").wait_for(timeout=CEILING)


def sidebar(page) -> str:
    return page.get_by_test_id("stSidebar").inner_text()


def shot(page, name: str) -> None:
    """A screenshot for test-artifacts/e2e/, once the page's runs are done."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


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


def keep_only(page, label: str, kept: int) -> None:
    """Remove all but the first ``kept`` choices of the multi-select labelled ``label`` by their crosses, as a
    user does; each removal reruns the page, so the chips are counted again every time."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label).first
    box.wait_for()
    chips = box.locator("[data-tag]")
    for _ in range(50):
        before = chips.count()
        if before <= kept:
            return
        name = chips.nth(kept).get_attribute("aria-label")
        chips.nth(kept).get_by_role("button", name=f"Remove {name}", exact=True).click()
        deadline = time.monotonic() + CEILING / 1000
        while chips.count() >= before and time.monotonic() < deadline:
            page.wait_for_timeout(200)  # between two looks
    raise AssertionError(f"'{label}' still has more than {kept} choices")


def small_sweep(page) -> None:
    """On the Sweep page: the first two truncation levels and no baselines. For tests about state and records,
    which need a real sweep in a real worker but not every level of it; the levels' own numbers are tested in
    tests/jobs."""
    keep_only(page, "Truncation levels", 2)
    keep_only(page, "Baselines (reference points)", 0)
    start = page.get_by_role("button", name="Start sweep")
    deadline = time.monotonic() + CEILING / 1000
    while not start.is_enabled():  # the page's last rerun has not arrived yet, or it says why not
        if time.monotonic() > deadline:
            levels = page.get_by_test_id("stMultiSelect").filter(has_text="Truncation levels").first
            chips = [chip.get_attribute("aria-label") for chip in levels.locator("[data-tag]").all()]
            notes = [box.inner_text() for box in page.get_by_test_id("stAlert").all()]
            raise AssertionError(f"Start sweep stayed disabled; levels shown {chips}; the page says {notes}")
        page.wait_for_timeout(500)  # between two looks
    settled(page)


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
    started = time.monotonic()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))
    verdict = page.get_by_text(f"Could not open {path.name}").or_(page.get_by_text(f"{path.name} — ")).first
    verdict.wait_for(timeout=CEILING)
    seconds = time.monotonic() - started
    said = verdict.inner_text()
    settled(page)
    return said, seconds, resident_mb(pid, "VmHWM") - before
