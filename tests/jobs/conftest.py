"""Fixtures of the jobs tests."""

import pytest

from tvs_core.storage.store import Store


@pytest.fixture
def store(tmp_path):
    """An empty workspace's store in this test's own folder."""
    return Store(tmp_path)
