"""What the dashboard's tests share: each test's pages open a workspace of their own, with the page module's
cached store and orphan check cleared before and after (a cached store would still point at another test's)."""

from __future__ import annotations

import pytest


@pytest.fixture
def page_workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path / "workspace"))
    from pages import common

    common.store.clear()
    common.resume_orphaned_jobs.clear()
    yield tmp_path / "workspace"
    common.store.clear()
