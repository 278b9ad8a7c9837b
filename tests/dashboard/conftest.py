"""What the dashboard's tests share: each test's pages open a workspace of their own, with the page module's
cached store and orphan check cleared before and after (a cached store would still point at another test's), and
the session state that a test's own calls of the page helpers use outside a page (Streamlit's bare mode) emptied:
it is one per process, so it held the project of whichever test ran before on the same worker.

The pages run on the tiny protocol (``TVS_TEST_PROTOCOL=tiny``: the library gives the quick preset the test suite's
sizes, so the flow under test is the one users get, in seconds), and one finished sweep serves every test that only
reads it (``swept``, copied for each test by ``after_sweep``)."""

from __future__ import annotations

import shutil

import pytest

from tvs_core.evaluation.protocol import TEST_PROTOCOL_ENV

# the finished sweep of ``swept``: three levels and a baseline, so that choosing, comparing and exporting have
# something to choose among
SWEPT_LEVELS, SWEPT_BASELINES = [1, 10, 20], ["independent"]
# the xdist group of the tests that use it: with ``--dist loadgroup`` they run on one worker, which builds it once
SWEPT_GROUP = "dashboard-swept"


def clear_page_caches() -> None:
    import streamlit as st

    from pages import common

    common.store.clear()
    common.resume_orphaned_jobs.clear()
    st.session_state.clear()


@pytest.fixture
def page_workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.setenv(TEST_PROTOCOL_ENV, "tiny")
    clear_page_caches()
    yield tmp_path / "workspace"
    clear_page_caches()


@pytest.fixture(scope="session")
def swept(tmp_path_factory):
    """A workspace whose open project is the clinical demo with a finished sweep (``SWEPT_LEVELS``, the independent
    baseline), started on the Sweep page and run by its worker on the tiny protocol: built once for every test that
    only reads it. Tests that use it are marked ``xdist_group(SWEPT_GROUP)``, so one worker builds it once."""
    from pages import common
    from tests.dashboard.test_app import app, run_sweep

    root = tmp_path_factory.mktemp("swept") / "workspace"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TVS_WORKSPACE", str(root))
        patch.setenv(TEST_PROTOCOL_ENV, "tiny")
        clear_page_caches()
        at = run_sweep(app(), levels=SWEPT_LEVELS, baselines=SWEPT_BASELINES)
        assert common.store().job(at.session_state["project"].job_id).status == "done"
        common.store().close()
        clear_page_caches()
    return root


@pytest.fixture
def after_sweep(swept, page_workspace):
    """The app on a copy of the swept workspace: its project open, its sweep done, nothing chosen."""
    from tests.dashboard.test_app import app

    shutil.copytree(swept, page_workspace)
    return app().run()
