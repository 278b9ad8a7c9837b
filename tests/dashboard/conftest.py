"""What the dashboard's tests share: each test's pages open a workspace of their own, with the page module's
cached store and orphan check cleared before and after (a cached store would still point at another test's), and
the session state that a test's own calls of the page helpers use outside a page (Streamlit's bare mode) emptied:
it is one per process, so it held the project of whichever test ran before on the same worker."""

from __future__ import annotations

import pytest


@pytest.fixture
def page_workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path / "workspace"))
    import streamlit as st

    from pages import common

    common.store.clear()
    common.resume_orphaned_jobs.clear()
    st.session_state.clear()
    yield tmp_path / "workspace"
    common.store.clear()
    st.session_state.clear()
