"""The browser tests' harness: bench/browser.py's server and page helpers (skipped without playwright or Debian's
chromium), and what only tests need — a sweep held still at a chosen moment, a project's choice waited for in the
workspace, screenshots for test-artifacts/e2e/, a small sweep set up as a person does."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in requirements-extras.txt")

from bench.browser import (  # noqa: E402
    CEILING,
    CHROMIUM,
    LAUNCH,
    ROOT,
    SWEEP_CEILING,
    Server,
    browser_page,
    free_port,
    go_to,
    resident_mb,
    running_server,
    settled,
    sidebar,
    upload,
    upload_and_weigh,
    wait_for_text,
)
from tests.helpers import wait_until  # noqa: E402

__all__ = ["CEILING", "CHROMIUM", "LAUNCH", "ROOT", "SWEEP_CEILING", "Server", "browser_page", "free_port", "go_to",
           "resident_mb", "running_server", "settled", "sidebar", "upload", "upload_and_weigh", "wait_for_text",
           "wait_until"]

if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
ARTIFACTS = ROOT / "test-artifacts" / "e2e"


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


def no_streamlit_errors(page) -> None:
    for test_id in ("stException", "stAlertContentError"):
        boxes = page.locator(f'[data-testid="{test_id}"]')
        assert boxes.count() == 0, f"a Streamlit error box appeared: {boxes.first.inner_text()}"


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


CONFIRM = "I have read these verdicts and release this level anyway"


def confirm_verdicts(page, why: str) -> None:
    """On Export, after Generate: confirm the release of a level whose verdicts warn, with a reason, as a person
    does; the downloads then appear. Not every level warns (level 10 of the clinical demo's quick sweep has nothing
    to confirm): the caller picks a level that does."""
    page.get_by_text(CONFIRM).first.click()
    reason = page.get_by_test_id("stTextInput").filter(has_text="Why (kept in the manifest").locator("input")
    playwright.expect(reason).to_be_enabled(timeout=CEILING)
    reason.fill(why)
    reason.press("Enter")
    page.get_by_role("button", name="Download synthetic CSV").wait_for(timeout=CEILING)


def shot(page, name: str) -> None:
    """A screenshot for test-artifacts/e2e/, once the page's runs are done."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


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


