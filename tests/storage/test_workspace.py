"""tvs_core/storage/workspace.py: the workspace folder's layout, its owner-only files, the names it refuses, the
access token, the log of unexpected errors and the outputs kept out of it. What an attacker would plant (pickles,
links, another account's folder) is tested end to end in tests/storage/test_private.py and tests/test_hostile.py."""

from __future__ import annotations

import hashlib
import os
import stat

import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.errors import DataError, TVSError
from tvs_core.storage.private import UnsafeWorkspace
from tvs_core.storage.tables import table_from_bytes
from tvs_core.storage.workspace import (
    TOKEN_FILE,
    WORKSPACE_ENV,
    Workspace,
    default_workspace,
    refuse_inside_workspace,
    traceback_without_values,
)

FINGERPRINT = "0123456789abcdef" * 3  # 48 hex digits, as the store keeps a table's fingerprint


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def space(tmp_path):
    return Workspace(tmp_path / "space")


@pytest.fixture
def loose_umask():
    before = os.umask(0o022)
    yield
    os.umask(before)


def leftovers(folder) -> list[str]:
    """Temporary files a write left behind (an atomic write renames its ``.part`` file into place)."""
    return [p.name for p in folder.iterdir() if p.name.endswith(".part")]


# -- opening ---------------------------------------------------------------------------------------------------------
def test_the_default_workspace_is_the_environment_variable_else_a_folder_in_home(monkeypatch, tmp_path):
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "mine"))
    assert default_workspace() == tmp_path / "mine"
    monkeypatch.delenv(WORKSPACE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_workspace() == tmp_path / "home" / ".tvinesynth-studio"


def test_a_workspace_without_a_folder_given_opens_the_default_one(monkeypatch, tmp_path):
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "from-env"))
    assert Workspace().root == tmp_path / "from-env"


def test_a_new_workspace_and_its_missing_parents_are_made_and_it_is_closed_to_others(tmp_path, loose_umask):
    root = tmp_path / "a" / "b" / "space"
    made = Workspace(root)
    assert made.root == root and root.is_dir() and mode(root) == 0o700
    assert made.notice is None and made.tightened == []  # nothing was open before: nothing to tell


def test_a_workspace_given_as_a_file_is_refused_in_one_sentence(tmp_path):
    file = tmp_path / "notes.txt"
    file.write_text("keep me")
    with pytest.raises(DataError, match="is a file, not a folder"):
        Workspace(file)
    assert file.read_text() == "keep me"


def test_a_workspace_that_cannot_be_created_is_refused_naming_the_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataError, match=r"The workspace folder .*file/space cannot be created"):
        Workspace(tmp_path / "file" / "space")


def test_a_link_to_the_workspace_opens_its_target(tmp_path):
    """The user may point at their workspace through a link: the folder it leads to is the workspace, and is what is
    checked and written."""
    target = tmp_path / "real"
    Workspace(target)
    (tmp_path / "link").symlink_to(target)
    through = Workspace(tmp_path / "link")
    assert through.root == target.resolve()
    assert through.database == target.resolve() / "studio.sqlite"


def test_the_notice_counts_what_was_open_and_names_the_workspace(tmp_path, loose_umask):
    root = tmp_path / "space"
    (root / "uploads").mkdir(parents=True)
    (root / "uploads" / "a.csv").write_text("a")
    (root / "uploads" / "b.csv").write_text("b")
    os.chmod(root, 0o750)
    opened = Workspace(root)
    assert set(opened.tightened) == {root, root / "uploads", root / "uploads" / "a.csv", root / "uploads" / "b.csv"}
    assert f"The workspace {root} was open to other accounts on this computer (4 files and folders)" in opened.notice


# -- tables ----------------------------------------------------------------------------------------------------------
def test_a_table_is_kept_owner_only_and_comes_back_equal(space, loose_umask):
    table = make_small_table(20)
    assert not space.has_table(FINGERPRINT)
    space.save_table(FINGERPRINT, "table", table)
    assert space.has_table(FINGERPRINT) and not space.has_table(FINGERPRINT, "holdout")
    pd.testing.assert_frame_equal(space.load_table(FINGERPRINT), table)
    kept = space.root / "data" / f"{FINGERPRINT[:24]}-table.parquet"
    assert mode(kept) == 0o600 and mode(space.root / "data") == 0o700
    assert leftovers(space.root / "data") == []


def test_a_table_is_kept_once_and_a_second_save_does_not_replace_it(space):
    """The same fingerprint names the same table: the first copy stays (a worker may be reading it)."""
    first, other = make_small_table(20, seed=0), make_small_table(20, seed=1)
    space.save_table(FINGERPRINT, "holdout", first)
    space.save_table(FINGERPRINT, "holdout", other)
    pd.testing.assert_frame_equal(space.load_table(FINGERPRINT, "holdout"), first)


def test_a_damaged_copy_is_replaced_when_the_table_is_opened_again(space):
    """The refusal to read a damaged copy says 'open the data again to keep a new copy': saving the table again
    must then replace it."""
    table = make_small_table(20)
    space.save_table(FINGERPRINT, "table", table)
    (space.root / "data" / f"{FINGERPRINT[:24]}-table.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(TVSError, match="Open the data again to keep a new copy"):
        space.load_table(FINGERPRINT)
    space.save_table(FINGERPRINT, "table", table)
    pd.testing.assert_frame_equal(space.load_table(FINGERPRINT), table)


@pytest.mark.parametrize("fingerprint, name", [
    ("../../etc/passwd", "table"), ("ABCDEF", "table"), ("", "table"), ("a" * 65, "table"), ("abc\n", "table"),
    ("abc", "model"), ("abc", "../table"),
])
def test_a_table_name_that_is_not_a_fingerprint_and_a_known_kind_is_refused(space, fingerprint, name):
    with pytest.raises(UnsafeWorkspace, match="is not the name of a table in the workspace"):
        space.has_table(fingerprint, name)
    with pytest.raises(UnsafeWorkspace):
        space.save_table(fingerprint, name, make_small_table(5))
    assert not (space.root / "data").exists() or list((space.root / "data").iterdir()) == []


def test_a_link_planted_in_place_of_the_tables_folder_is_refused_and_not_written_through(space, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (space.root / "data").symlink_to(elsewhere)
    with pytest.raises(UnsafeWorkspace, match="data in the workspace is a link"):
        space.save_table(FINGERPRINT, "table", make_small_table(5))
    assert list(elsewhere.iterdir()) == []


def test_a_file_in_place_of_the_tables_folder_is_refused(space):
    (space.root / "data").write_text("x")
    with pytest.raises(UnsafeWorkspace, match="data in the workspace is not a folder"):
        space.save_table(FINGERPRINT, "table", make_small_table(5))


def test_a_table_file_replaced_by_a_link_is_not_read(space, tmp_path):
    table = make_small_table(5)
    outside = tmp_path / "outside.parquet"
    space.save_table(FINGERPRINT, "table", table)
    kept = space.root / "data" / f"{FINGERPRINT[:24]}-table.parquet"
    kept.rename(outside)
    kept.symlink_to(outside)
    with pytest.raises(UnsafeWorkspace, match="is a link"):
        space.load_table(FINGERPRINT)


# -- released copies -------------------------------------------------------------------------------------------------
def test_a_released_copy_is_kept_under_releases_and_read_back_by_its_relative_path(space):
    table = make_small_table(10)
    relative = space.save_release_copy(FINGERPRINT, "3-abc", table)
    assert relative == f"releases/{FINGERPRINT[:24]}-3-abc.parquet"
    assert mode(space.root / relative) == 0o600 and mode(space.root / "releases") == 0o700
    pd.testing.assert_frame_equal(space.load_release_copy(relative), table)
    assert leftovers(space.root / "releases") == []


@pytest.mark.parametrize("fingerprint, key", [(FINGERPRINT, "abc"), (FINGERPRINT, "1-ABC"), (FINGERPRINT, "-abc"),
                                              (FINGERPRINT, "1-abc/../x"), ("../x", "1-abc"),
                                              (FINGERPRINT, "1-abc\n")])
def test_a_released_copy_with_a_name_that_is_not_a_key_is_refused(space, fingerprint, key):
    with pytest.raises(UnsafeWorkspace, match="is not the name of a released copy"):
        space.save_release_copy(fingerprint, key, make_small_table(5))


@pytest.mark.parametrize("relative", ["", ".", "/etc/passwd", "..", "../space/studio.sqlite", "releases/../../x"])
def test_a_path_that_is_not_inside_the_workspace_is_refused(space, relative):
    with pytest.raises(UnsafeWorkspace, match="is not a file inside the workspace"):
        space.inside(relative)
    with pytest.raises(UnsafeWorkspace):
        space.remove(relative)


def test_inside_joins_a_relative_path_to_the_workspace(space):
    assert space.inside("releases/a.parquet") == space.root / "releases" / "a.parquet"


def test_removing_a_copy_deletes_it_and_a_missing_one_is_not_an_error(space):
    relative = space.save_release_copy(FINGERPRINT, "1-ab", make_small_table(5))
    space.remove(relative)
    assert not (space.root / relative).exists()
    space.remove(relative)  # gone already: nothing to do


# -- uploads ---------------------------------------------------------------------------------------------------------
ROWS = pd.DataFrame({"a": [1, 2]})


def test_an_upload_is_kept_as_parquet_with_the_files_name_size_and_hash_not_its_bytes(space, loose_umask):
    """The second review: the workspace kept an identical raw copy of every upload (uploads/NAME.csv) while the
    README said tables are kept as Parquet."""
    data = b"a\n1\n2\n"
    kept = space.save_upload("cohort.csv", ROWS, data)
    assert kept == space.root / "uploads" / "cohort.csv.parquet" and data not in kept.read_bytes()
    assert kept.read_bytes()[:4] == b"PAR1" and mode(kept) == 0o600 and mode(kept.parent) == 0o700
    assert space.upload_origin(kept) == {"name": "cohort.csv", "size": len(data),
                                         "sha256": hashlib.sha256(data).hexdigest()}
    pd.testing.assert_frame_equal(table_from_bytes(kept.read_bytes()), ROWS)
    assert leftovers(kept.parent) == []


def test_an_upload_keeps_only_the_last_part_of_a_windows_path_and_no_control_characters(space):
    kept = space.save_upload("C:\\Users\\ana\\co\x1b[31mhort\n.csv", ROWS, b"a\n1\n")
    assert kept == space.root / "uploads" / "co[31mhort.csv.parquet"
    assert space.upload_origin(kept)["name"] == "co[31mhort.csv"


def test_an_upload_without_a_suffix_is_numbered(space):
    assert [space.save_upload("README", ROWS, b"x").name for _ in range(3)] == [
        "README.parquet", "README (2).parquet", "README (3).parquet"]


def test_an_upload_never_replaces_a_file_already_there(space):
    (space.root / "uploads").mkdir()
    (space.root / "uploads" / "cohort.csv (2).parquet").write_bytes(b"earlier")
    (space.root / "uploads" / "cohort.csv.parquet").write_bytes(b"first")
    kept = space.save_upload("cohort.csv", ROWS, b"new")
    assert kept.name == "cohort.csv (3).parquet" and space.upload_origin(kept)["size"] == 3
    assert (space.root / "uploads" / "cohort.csv (2).parquet").read_bytes() == b"earlier"


# -- logs ------------------------------------------------------------------------------------------------------------
def test_a_jobs_log_is_appended_to_and_owner_only(space, loose_umask):
    for text in (b"first\n", b"second\n"):
        handle = space.open_log("abc123")
        os.write(handle, text)
        os.close(handle)
    assert space.log_path("abc123").read_bytes() == b"first\nsecond\n"
    assert mode(space.log_path("abc123")) == 0o600


@pytest.mark.parametrize("job_id", ["../x", "ABC", "", "a b", "abc.log", "abc\n"])
def test_a_log_for_a_name_that_is_not_a_job_id_is_refused(space, job_id):
    with pytest.raises(UnsafeWorkspace, match="is not a job id"):
        space.open_log(job_id)


def test_the_error_log_keeps_every_entry_in_order(space):
    cell = f"patient {4700 + 11}"  # computed, so the traceback's code lines cannot hold it
    for where in ("first place", "second place"):
        try:
            raise RuntimeError(cell)
        except RuntimeError:
            log = space.log_unexpected(where)
    text = log.read_text()
    assert text.index("first place") < text.index("second place")
    assert text.count("RuntimeError (its message is left out") == 2 and "4711" not in text


def test_the_error_log_is_none_when_its_folder_cannot_be_written(space):
    """log_unexpected runs inside an error handler: when the log cannot be written it says so (None) rather than
    raising a second error over the first (which the command line would print with its message)."""
    (space.root / "logs").write_text("a file where the folder should be")
    try:
        raise RuntimeError("secret cell")
    except RuntimeError:
        assert space.log_unexpected("a test") is None


def test_the_error_log_is_none_when_it_is_a_link(space, tmp_path):
    target = tmp_path / "target.log"
    target.write_text("keep me")
    (space.root / "logs").mkdir()
    (space.root / "logs" / "errors.log").symlink_to(target)
    try:
        raise RuntimeError("x")
    except RuntimeError:
        assert space.log_unexpected("a test") is None
    assert target.read_text() == "keep me"


# -- the access token ------------------------------------------------------------------------------------------------
def test_the_access_token_is_made_once_long_and_owner_only(space, loose_umask):
    token = space.access_token()
    assert len(token) >= 40 and token == space.access_token() == Workspace(space.root).access_token()
    assert space.token_path == space.root / TOKEN_FILE and mode(space.token_path) == 0o600


def test_a_token_file_left_empty_by_a_crash_is_replaced_by_a_new_token(space, loose_umask):
    """An earlier version wrote the token in place; stopped between creating the file and writing it, it left an
    empty token that nobody could sign in with, and that was never replaced."""
    space.token_path.write_text("")
    token = space.access_token()
    assert len(token) >= 40 and token == space.access_token() and mode(space.token_path) == 0o600


def test_the_token_is_written_whole_before_it_appears_and_a_token_there_is_kept(space):
    """Written beside it and linked into place: a dashboard starting at the same moment reads the whole token or
    none, and never replaces one that is there."""
    from tvs_core.storage import private

    assert private.create_private_with(space.token_path, b"first") is True
    assert private.create_private_with(space.token_path, b"second") is False
    assert space.access_token() == "first"
    assert [p.name for p in space.root.iterdir() if p.name.startswith(f".{TOKEN_FILE}.")] == []  # no part left


def test_each_workspace_has_a_token_of_its_own(tmp_path):
    assert Workspace(tmp_path / "a").access_token() != Workspace(tmp_path / "b").access_token()


def test_only_the_exact_token_matches(space):
    token = space.access_token()
    assert space.token_matches(token)
    for given in (None, "", token[:-1], token + "x", token.upper() if token != token.upper() else token.lower(),
                  " " + token, "é" + token[1:]):
        assert not space.token_matches(given), given


def test_a_token_file_replaced_by_a_link_is_refused(space, tmp_path):
    space.access_token()
    outside = tmp_path / "outside"
    outside.write_text("planted-token")
    space.token_path.unlink()
    space.token_path.symlink_to(outside)
    with pytest.raises(UnsafeWorkspace, match="is a link"):
        space.access_token()


# -- wiping ----------------------------------------------------------------------------------------------------------
def test_wiping_removes_a_link_but_not_what_it_points_to(space, tmp_path):
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "keep.txt").write_text("keep me")
    (space.root / "linked-folder").symlink_to(outside)
    (space.root / "linked-file").symlink_to(outside / "inner" / "keep.txt")
    space.save_upload("a.csv", ROWS, b"1")
    space.wipe()
    assert sorted(p.name for p in space.root.iterdir()) == []
    assert (outside / "inner" / "keep.txt").read_text() == "keep me"


# -- outputs ---------------------------------------------------------------------------------------------------------
def test_an_output_inside_the_workspace_is_refused_naming_the_option(tmp_path):
    root = tmp_path / "space"
    Workspace(root)
    for out in (root, root / "studio.sqlite", root / "data" / "x.csv", root / "new" / ".." / "r.html"):
        with pytest.raises(DataError, match=r"--report .* is inside the workspace"):
            refuse_inside_workspace(out, root, option="--report")


def test_an_output_beside_the_workspace_is_allowed_even_with_a_name_it_begins_with(tmp_path):
    root = tmp_path / "space"
    Workspace(root)
    for out in (tmp_path / "space2" / "r.html", tmp_path / "space.csv", tmp_path / "r.html"):
        refuse_inside_workspace(out, root)


def test_an_output_reaching_the_workspace_through_a_link_is_refused(tmp_path):
    root = tmp_path / "space"
    Workspace(root)
    (tmp_path / "shortcut").symlink_to(root)
    with pytest.raises(DataError, match="inside the workspace"):
        refuse_inside_workspace(tmp_path / "shortcut" / "studio.sqlite", root)


def test_without_a_workspace_given_the_default_one_is_protected(tmp_path, monkeypatch):
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "default"))
    with pytest.raises(DataError, match="inside the workspace"):
        refuse_inside_workspace(tmp_path / "default" / "out.csv")
    refuse_inside_workspace(tmp_path / "out.csv")


# -- tracebacks without values ---------------------------------------------------------------------------------------
def test_no_traceback_when_no_exception_is_being_handled():
    assert traceback_without_values() == ""


def test_a_traceback_names_each_exception_of_the_chain_by_type_never_by_message():
    cell = str(4700 + 11)  # computed, so the traceback's code lines cannot hold it
    try:
        try:
            raise KeyError(cell)
        except KeyError as exc:
            raise DataError(f"value {cell} is wrong") from exc
    except DataError:
        text = traceback_without_values()
    assert "4711" not in text
    assert text.index("KeyError (its message is left out") < text.index("tvs_core.errors.DataError (its message")
    assert text.count("The exception above led to this one") == 1 and text.startswith("Traceback")


def test_a_context_suppressed_with_from_none_is_left_out():
    try:
        try:
            raise KeyError("x")
        except KeyError:
            raise ValueError("y") from None
    except ValueError:
        text = traceback_without_values()
    assert "KeyError" not in text and "ValueError" in text and "led to this one" not in text
