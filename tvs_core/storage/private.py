"""Owner-only files. A hospital server has one account per steward, and every account can list a folder made under
umask 022: so the workspace is a 0700 folder of 0600 files whatever the umask, and a folder or file another
account owns, or could have written, is refused (as ssh and gpg refuse their state folders). Reads never follow a
link, so nothing planted in the workspace can redirect one."""

from __future__ import annotations

import errno
import os
import pwd
import stat
import tempfile
from pathlib import Path

from ..errors import TVSError

FOLDER_MODE = 0o700
FILE_MODE = 0o600
WRITABLE_BY_OTHERS = 0o022
OPEN_TO_OTHERS = 0o077


class UnsafeWorkspace(TVSError):
    """The workspace, or a file in it, could have been read or changed by another account."""


def account(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def check_owned(path: Path, info: os.stat_result, what: str) -> None:
    """Refuse what another account owns, or could have written."""
    me = os.geteuid()
    if info.st_uid != me:
        raise UnsafeWorkspace(f"{what} {path} belongs to the account '{account(info.st_uid)}', not to you "
                              f"('{account(me)}'): another account could read or change your data there. Choose a "
                              "folder of your own (leave TVS_WORKSPACE unset for ~/.tvinesynth-studio).")
    if info.st_mode & WRITABLE_BY_OTHERS:
        raise UnsafeWorkspace(f"{what} {path} can be changed by other accounts (mode {stat.S_IMODE(info.st_mode):o}), "
                              "so what it holds may not be yours. Check it, then run `chmod -R go-w` on it, or choose "
                              "an empty folder of your own.")


def private_folder(path: Path) -> None:
    """``path`` made (if needed) as a real folder of ours, 0700, never through a link."""
    try:
        path.mkdir(mode=FOLDER_MODE)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafeWorkspace(f"{path} in the workspace is {'a link' if stat.S_ISLNK(info.st_mode) else 'not a folder'}"
                              "; the workspace holds only its own folders and files. Remove it and try again.")
    check_owned(path, info, "The folder")
    if stat.S_IMODE(info.st_mode) & OPEN_TO_OTHERS:
        os.chmod(path, stat.S_IMODE(info.st_mode) & ~OPEN_TO_OTHERS)


def read_private(path: Path) -> bytes:
    """A workspace file's bytes: a regular file of ours that no other account could have written, opened without
    following a link."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeWorkspace(f"{path} in the workspace is a link; the workspace holds only its own files. "
                                  "Remove it and try again.") from None
        raise
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeWorkspace(f"{path} in the workspace is not a regular file. Remove it and try again.")
        check_owned(path, info, "The file")
        return stream.read()


def write_private(path: Path, data: bytes) -> Path:
    """``data`` at ``path``, 0600, whole or not at all: a temporary file beside it, renamed over it (a link planted
    at ``path`` is replaced, never followed)."""
    name = _written_beside(path, data)
    try:
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return path


def _written_beside(path: Path, data: bytes) -> str:
    """A temporary file of ours (0600) beside ``path`` holding ``data``, on disk; its name."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)  # made 0600
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return name


def create_private_with(path: Path, data: bytes) -> bool:
    """``data`` at ``path``, 0600, unless a file is there already (False then): written whole beside it, then
    linked into place, so a reader never sees half of it and of two processes the first one's file stands."""
    name = _written_beside(path, data)
    try:
        os.link(name, path)  # fails on anything at path, a link included, and never follows one
    except FileExistsError:
        return False
    finally:
        Path(name).unlink(missing_ok=True)
    return True


def append_private(path: Path) -> int:
    """A file descriptor appending to a workspace log: created 0600, never through a link."""
    handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    info = os.fstat(handle)
    try:
        check_owned(path, info, "The file")
    except UnsafeWorkspace:
        os.close(handle)
        raise
    if stat.S_IMODE(info.st_mode) & OPEN_TO_OTHERS:
        os.fchmod(handle, FILE_MODE)
    return handle


def create_private(path: Path) -> None:
    """An empty file of ours at ``path`` (0600) unless one is there: SQLite gives its -wal and -shm files the mode
    of the database file, so creating the database this way keeps all three private."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        return
    os.close(handle)


def tighten(root: Path) -> list[Path]:
    """Everything under ``root`` closed to other accounts (their permission bits removed, so a folder made
    read-only stays read-only); returns what was open to them. An entry another account owns or could have written
    is refused, and so is a link (nothing here makes one)."""
    loosened: list[Path] = []
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                raise UnsafeWorkspace(f"{path} in the workspace is a link; the workspace holds only its own folders "
                                      "and files. Remove it and try again.")
            check_owned(path, info, "The folder" if stat.S_ISDIR(info.st_mode) else "The file")
            if stat.S_IMODE(info.st_mode) & OPEN_TO_OTHERS:
                loosened.append(path)
                os.chmod(path, stat.S_IMODE(info.st_mode) & ~OPEN_TO_OTHERS)
    return loosened
