"""The workspace is its owner's alone, and nothing in it can run code or redirect a write when it is read: what an
attacker who could plant a file (a pickle, a link, a path in the store) would try, refused in one sentence."""

from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys

import pandas as pd
import pytest

from tests.conftest import make_mixed_table, make_small_table
from tvs_core.data.fingerprint import fingerprint_table
from tvs_core.errors import DataError, TVSError
from tvs_core.projects import Projects
from tvs_core.storage import Store, Workspace
from tvs_core.storage.migrate import MIGRATED
from tvs_core.storage.private import UnsafeWorkspace
from tvs_core.storage.tables import table_bytes, table_from_bytes


class Planted:
    """A pickle that, when read, leaves a file behind: proof that reading it ran code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def modes(root) -> dict[str, int]:
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return out


@pytest.fixture
def loose_umask():
    before = os.umask(0o022)  # Debian's default: what every file is made with unless the tool says otherwise
    yield
    os.umask(before)


def test_a_workspace_is_a_folder_of_files_only_its_owner_can_read_whatever_the_umask(tmp_path, loose_umask):
    root = tmp_path / "space"
    store = Store(root)
    table = make_small_table()
    Projects(store).create(table, "cohort.csv", "upload:cohort.csv")
    store.space.save_upload("cohort.csv", table, b"age,income\n1,2\n")
    store.space.save_release_copy(fingerprint_table(table), "1-abc", table)
    store.space.access_token()
    os.close(store.space.open_log("abc123"))
    try:
        raise ValueError("x")
    except ValueError:
        store.space.log_unexpected("a test")
    store.log(None, "test", "an event")  # the database and its -wal and -shm files
    found = modes(root)
    assert {"studio.sqlite", "studio.sqlite-wal", "data", "uploads", "releases", "logs", "access-token",
            "logs/errors.log"} <= set(found)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert {path: f"{mode:o}" for path, mode in found.items() if mode & 0o077} == {}


def test_a_workspace_another_account_owns_or_can_write_is_refused(tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    os.chown(foreign, 12345, 12345) if os.geteuid() == 0 else pytest.skip("changing a folder's owner needs root")
    with pytest.raises(UnsafeWorkspace, match="belongs to the account 'uid 12345'"):
        Workspace(foreign)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data").mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(UnsafeWorkspace, match=r"can be changed by other accounts \(mode 777\).*chmod -R go-w"):
        Workspace(shared)
    empty = tmp_path / "empty"
    empty.mkdir()
    os.chmod(empty, 0o777)  # nothing in it could have been planted: it is simply closed
    assert Workspace(empty).root == empty and stat.S_IMODE(os.stat(empty).st_mode) == 0o700


def test_an_earlier_versions_workspace_is_closed_to_others_and_the_user_is_told_once(tmp_path, loose_umask):
    root = tmp_path / "space"
    (root / "data").mkdir(parents=True)
    (root / "data" / "x.txt").write_text("x")  # as the earlier version left them: 0755 folders, 0644 files
    os.chmod(root, 0o755)
    first = Workspace(root)
    assert first.notice and "readable by you only" in first.notice and len(first.tightened) == 3
    assert not {path: mode for path, mode in modes(root).items() if mode & 0o077}
    assert Workspace(root).notice is None  # told once


def test_a_pickle_planted_where_a_table_is_kept_is_never_unpickled(tmp_path):
    store = Store(tmp_path / "space")
    table = make_small_table()
    project = Projects(store).create(table, "cohort.csv", "upload:cohort.csv")
    marker = tmp_path / "ran"
    kept = next((tmp_path / "space" / "data").glob("*-table.parquet"))
    kept.write_bytes(pickle.dumps(Planted(marker)))
    with pytest.raises(TVSError, match="is not a table this tool wrote"):
        Projects(store).table(project.fingerprint)
    assert not marker.exists()
    # a .pkl file beside the tables (the earlier version's format) is never read once the workspace is converted
    (tmp_path / "space" / "data" / f"{project.fingerprint[:24]}-holdout.pkl").write_bytes(
        pickle.dumps(Planted(marker)))
    reopened = Store(tmp_path / "space")
    assert reopened.meta(MIGRATED) == "1" and not reopened.converted
    assert not reopened.space.has_table(project.fingerprint, "holdout") and not marker.exists()


def test_an_earlier_versions_pickles_are_converted_once_and_the_ledger_follows(tmp_path):
    root = tmp_path / "space"
    store = Store(root)
    table = make_mixed_table()
    fingerprint = fingerprint_table(table)
    with store.transaction() as db:  # as before: the earlier version kept pickles
        db.execute("DELETE FROM meta WHERE key = ?", (MIGRATED,))
    (root / "data").mkdir()
    table.to_pickle(root / "data" / f"{fingerprint[:24]}-table.pkl")
    (root / "releases").mkdir(exist_ok=True)
    table.to_pickle(root / "releases" / f"{fingerprint[:24]}-1-abc.pkl")
    store.add_release({"fingerprint": fingerprint, "table_name": "t", "job_id": None, "level": 1, "generator": "g",
                       "settings": "{}", "seed": 0, "rows": len(table), "sha256": "abc", "bytes": 1, "epsilon": None,
                       "note": None, "copy": f"releases/{fingerprint[:24]}-1-abc.pkl", "created": 0.0, "choice": None})
    store.close()
    converted = Store(root)
    assert len(converted.converted) == 2 and not list(root.rglob("*.pkl"))
    pd.testing.assert_frame_equal(converted.space.load_table(fingerprint), table)
    copy = converted.releases()[0]["copy"]
    assert copy.endswith(".parquet")
    pd.testing.assert_frame_equal(converted.space.load_release_copy(copy), table)


def test_an_earlier_pickle_another_account_could_write_is_refused_before_it_is_read(tmp_path):
    root = tmp_path / "space"
    store = Store(root)
    with store.transaction() as db:
        db.execute("DELETE FROM meta WHERE key = ?", (MIGRATED,))
    marker = tmp_path / "ran"
    (root / "data").mkdir()
    planted = root / "data" / "abc-table.pkl"
    planted.write_bytes(pickle.dumps(Planted(marker)))
    os.chmod(planted, 0o666)
    store.close()
    with pytest.raises(UnsafeWorkspace, match="can be changed by other accounts"):
        Store(root)
    assert not marker.exists()


@pytest.mark.parametrize("copy", ["/tmp/elsewhere.pkl", "../outside.parquet", "releases/../../outside.parquet"])
def test_a_path_in_the_store_that_leaves_the_workspace_is_refused(tmp_path, copy):
    from tvs_core.release.ledger import releases

    marker = tmp_path / "ran"
    outside = tmp_path / "outside.parquet"
    outside.write_bytes(pickle.dumps(Planted(marker)))
    store = Store(tmp_path / "space")
    store.add_release({"fingerprint": "ab", "table_name": "t", "job_id": None, "level": 1, "generator": "g",
                       "settings": "{}", "seed": 0, "rows": 1, "sha256": "abc", "bytes": 1, "epsilon": None,
                       "note": None, "copy": copy, "created": 0.0, "choice": None})
    with pytest.raises(UnsafeWorkspace, match="not a file inside the workspace"):
        releases(store, "ab")[0].table(store)
    assert not marker.exists()


def test_a_link_planted_in_the_workspace_is_refused_and_never_followed(tmp_path):
    root = tmp_path / "space"
    space = Workspace(root)
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    (root / "uploads").mkdir()
    (root / "uploads" / "cohort.csv.parquet").symlink_to(target)
    with pytest.raises(UnsafeWorkspace, match=r"uploads/cohort.csv.parquet in the workspace is a link"):
        Workspace(root)
    kept = space.save_upload("cohort.csv", make_small_table(2), b"a,b\n1,2\n")  # nor writes through it
    assert kept.name == "cohort.csv (2).parquet" and target.read_text() == "keep me"


def test_uploads_keep_every_file_under_its_own_name(tmp_path):
    space = Workspace(tmp_path / "space")
    table = make_small_table(3)
    first = space.save_upload("cohort.csv", table, b"1")
    second = space.save_upload("cohort.csv", table, b"22")
    third = space.save_upload("../../cohort.csv", table, b"333")
    assert [p.name for p in (first, second, third)] == ["cohort.csv.parquet", "cohort.csv (2).parquet",
                                                        "cohort.csv (3).parquet"]
    assert [space.upload_origin(p)["size"] for p in (first, second, third)] == [1, 2, 3]
    for name in ("", ".", "..", "a/..", " "):
        with pytest.raises(DataError, match="cannot be kept"):
            space.save_upload(name, table, b"x")


def test_tables_come_back_from_the_workspace_exactly(tmp_path):
    import datetime as dt

    mixed = pd.DataFrame({"a": pd.Series([1, "x", 2.5, None, dt.time(1, 2)], dtype=object),
                          "b": pd.Series([1, 2, 3, 4, 5], dtype=object), "c": pd.array([1, None, 3, 4, 5], "Int64")})
    mixed.attrs["note"] = "read from a workbook"
    for table in (make_mixed_table(), make_small_table(), mixed):
        back = table_from_bytes(table_bytes(table))
        pd.testing.assert_frame_equal(back, table, check_exact=True)
        assert [list(map(type, back[c])) for c in back if back[c].dtype == object] == \
            [list(map(type, table[c])) for c in table if table[c].dtype == object]
        assert fingerprint_table(back) == fingerprint_table(table) and back.attrs == table.attrs


def test_logs_name_where_a_bug_happened_but_never_what_the_data_held(tmp_path):
    space = Workspace(tmp_path / "space")
    cell = f"1961-02-{15 * 2} patient {4700 + 11}"  # not written out, so the traceback's code lines cannot hold it
    try:
        try:
            pd.to_datetime(pd.Series([cell]), format="%Y-%m-%d")
        except ValueError as exc:
            raise KeyError(cell) from exc
    except KeyError:
        log = space.log_unexpected("python -m tvs_core order")
    text = log.read_text()
    assert "4711" not in text and "1961-02-30" not in text
    assert "ValueError" in text and "KeyError" in text and "python -m tvs_core order" in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


@pytest.mark.slow
def test_the_command_line_keeps_its_outputs_out_of_the_workspace_and_its_arguments_out_of_the_log(tmp_path):
    root = tmp_path / "space"
    Store(root)
    env = {**os.environ, "TVS_WORKSPACE": str(root)}
    before = (root / "studio.sqlite").read_bytes()
    for out in (root / "studio.sqlite", root / "data" / "x.csv"):
        done = subprocess.run([sys.executable, "-m", "tvs_core", "release", "--demo", "clinical", "--level", "1",
                               "--out", str(out), "--note", "secret note"], capture_output=True, text=True, env=env)
        assert done.returncode == 2 and "inside the workspace" in done.stderr, done.stderr
    assert (root / "studio.sqlite").read_bytes() == before
    done = subprocess.run([sys.executable, "-m", "tvs_core", "report", "nojob", "--out", str(root / "r.html")],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "inside the workspace" in done.stderr
    assert not (root / "logs" / "errors.log").exists() or "secret" not in (root / "logs" / "errors.log").read_text()


@pytest.mark.slow
def test_the_command_line_prints_no_terminal_escape_codes_from_a_column_name(tmp_path):
    table = make_small_table().rename(columns={"color": "col\x1b]0;owned\x07\x1b[31mred"})
    data = tmp_path / "t.csv"
    table.to_csv(data, index=False)
    done = subprocess.run([sys.executable, "-m", "tvs_core", "order", str(data), "--response", "y",
                           "--sensitive", "nosuchcolumn"], capture_output=True, text=True,
                          env={**os.environ, "TVS_WORKSPACE": str(tmp_path / "space")})
    assert done.returncode == 2 and "\x1b" not in done.stderr and "\x07" not in done.stderr, done.stderr
    inspected = subprocess.run([sys.executable, "-m", "tvs_core", "inspect", str(data)], capture_output=True,
                               text=True, env={**os.environ, "TVS_WORKSPACE": str(tmp_path / "space")})
    assert "\x1b" not in inspected.stdout and json.loads(inspected.stdout)


def test_wiping_removes_every_file_but_the_access_token(tmp_path):
    root = tmp_path / "space"
    store = Store(root)
    Projects(store).create(make_small_table(), "cohort.csv", "upload:cohort.csv")
    token = store.space.access_token()
    store.close()
    store.space.wipe()
    assert [p.name for p in root.iterdir()] == ["access-token"]
    reopened = Store(root)
    assert reopened.space.access_token() == token and Projects(reopened).all() == []
