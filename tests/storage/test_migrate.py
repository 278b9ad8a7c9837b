"""Converting an earlier version's pickles (``tvs_core/storage/migrate.py``): once, into files only their owner can
read, and only the workspace's own tables: a ``.pkl`` a user uploaded is neither read nor removed."""

from __future__ import annotations

import os
import stat

import pandas as pd

from tests.conftest import make_small_table
from tvs_core.storage import Store
from tvs_core.storage.migrate import MIGRATED, convert_pickles


def unconverted_store(root):
    """A workspace as the earlier version left it: no record that its pickles were converted."""
    store = Store(root)
    with store.transaction() as db:
        db.execute("DELETE FROM meta WHERE key = ?", (MIGRATED,))
    return store


def test_converted_tables_are_owner_only_whatever_the_umask(tmp_path):
    """The converted table is the hospital's data: a 0644 default (Debian's umask) must not apply to it."""
    store = unconverted_store(tmp_path / "space")
    table = make_small_table(30)
    (store.workspace / "data").mkdir(exist_ok=True)
    table.to_pickle(store.workspace / "data" / "abc-table.pkl")
    before = os.umask(0o022)
    try:
        converted = convert_pickles(store)
    finally:
        os.umask(before)
    kept = store.workspace / "data" / "abc-table.parquet"
    assert converted == [store.workspace / "data" / "abc-table.pkl"] and not converted[0].exists()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    pd.testing.assert_frame_equal(store.space.load_table("abc"), table)


def test_a_pickle_a_user_uploaded_is_neither_read_nor_removed(tmp_path):
    """Only the tool's own folders (data, releases) held its pickles: an uploaded file is the user's."""
    store = unconverted_store(tmp_path / "space")
    upload = store.workspace / "uploads" / "cohort.pkl"
    upload.parent.mkdir(exist_ok=True)
    upload.write_bytes(b"not a pickle at all")
    assert convert_pickles(store) == []
    assert upload.read_bytes() == b"not a pickle at all" and not upload.with_suffix(".parquet").exists()
    assert store.meta(MIGRATED) == "1"


def test_a_workspace_with_nothing_to_convert_is_marked_and_never_converted_again(tmp_path):
    """After the first conversion a ``.pkl`` planted in the data folder stays unread: it is not converted."""
    store = unconverted_store(tmp_path / "space")
    assert convert_pickles(store) == [] and store.meta(MIGRATED) == "1"
    (store.workspace / "data").mkdir(exist_ok=True)
    planted = store.workspace / "data" / "abc-table.pkl"
    make_small_table(10).to_pickle(planted)
    assert convert_pickles(store) == []
    assert planted.exists() and not planted.with_suffix(".parquet").exists()
