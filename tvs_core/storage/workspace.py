"""The local workspace folder, the sole owner of the on-disk layout: the store, the tables of each project and job,
uploads, the copies of released tables, worker logs and the dashboard's access token. Everything a user loads
stays here, readable by its owner only (``private``), and wiping the folder removes it."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import stat
import time
import traceback
from pathlib import Path

import pandas as pd
from pyarrow import ArrowException

from ..errors import DataError, TVSError
from ..text import one_line
from . import private
from .tables import table_bytes, table_from_bytes, table_metadata

WORKSPACE_ENV = "TVS_WORKSPACE"
TOKEN_FILE = "access-token"
# \Z, not $: a name must not end in a newline, which $ lets through
_KEY = re.compile(r"^[0-9a-f]{1,64}\Z")  # table fingerprints, as the store keeps them
_RELEASE_KEY = re.compile(r"^[0-9]+-[0-9a-f]{1,64}\Z")
UPLOAD_KEY = "tvs.upload"  # an upload's origin, in its Parquet file's metadata


def default_workspace() -> Path:
    """$TVS_WORKSPACE, else ~/.tvinesynth-studio: local, per user, and easy to wipe."""
    return Path(os.environ.get(WORKSPACE_ENV, Path.home() / ".tvinesynth-studio"))


class Workspace:
    """Opening a workspace checks that it is the user's alone: a folder another account owns, or one others could
    write that already holds files, is refused in one sentence (``private.UnsafeWorkspace``). A workspace of the
    user's that an earlier version left readable by others is closed to them; ``tightened`` lists what was open,
    so the caller can say so once."""

    def __init__(self, root: str | Path | None = None):
        root = Path(root) if root is not None else default_workspace()
        if root.exists() and not root.is_dir():
            raise DataError(f"The workspace {root} is a file, not a folder.",
                            fix="Give a folder (it is created if needed).")
        try:
            root.parent.mkdir(parents=True, exist_ok=True)
            made = not root.exists()
            root.mkdir(mode=private.FOLDER_MODE, exist_ok=True)  # the umask may open it: closed below
        except OSError as exc:
            raise DataError(f"The workspace folder {root} cannot be created ({exc.strerror}).",
                            fix="Give a folder you can write to.") from None
        self.root = Path(os.path.realpath(root))  # a link to the folder is the user's; its target is checked
        info = os.stat(self.root)
        if not made and (info.st_uid != os.geteuid() or any(self.root.iterdir())):
            private.check_owned(self.root, info, "The workspace folder")  # an empty folder of ours is just closed
        self.tightened: list[Path] = []
        if stat.S_IMODE(info.st_mode) & private.OPEN_TO_OTHERS:
            os.chmod(self.root, stat.S_IMODE(info.st_mode) & ~private.OPEN_TO_OTHERS)
            self.tightened.append(self.root)
        self.tightened += private.tighten(self.root)

    @property
    def notice(self) -> str | None:
        """What opening the workspace changed, in one sentence (None when nothing was open to others)."""
        if not self.tightened:
            return None
        return (f"The workspace {self.root} was open to other accounts on this computer ({len(self.tightened)} "
                "files and folders); it is now readable by you only.")

    def _folder(self, name: str) -> Path:
        folder = self.root / name
        private.private_folder(folder)
        return folder

    @property
    def database(self) -> Path:
        return self.root / "studio.sqlite"

    # -- tables -----------------------------------------------------------------------------------------------
    def _table_path(self, fingerprint: str, name: str) -> Path:
        if not _KEY.match(fingerprint) or name not in ("table", "holdout", "external"):
            raise private.UnsafeWorkspace(f"'{fingerprint}-{name}' is not the name of a table in the workspace.")
        return self._folder("data") / f"{fingerprint[:24]}-{name}.parquet"

    def has_table(self, fingerprint: str, name: str = "table") -> bool:
        return self._table_path(fingerprint, name).exists()

    def save_table(self, fingerprint: str, name: str, table: pd.DataFrame) -> None:
        """A project's or job's table ('table', 'holdout' or 'external'), kept once, every dtype intact; a kept copy
        that can no longer be read (damaged or replaced) is replaced by this one."""
        path = self._table_path(fingerprint, name)
        if path.exists():
            try:
                self._read_table(path)
                return
            except TVSError:
                pass
        private.write_private(path, table_bytes(table))

    def load_table(self, fingerprint: str, name: str = "table") -> pd.DataFrame:
        return self._read_table(self._table_path(fingerprint, name))

    def _read_table(self, path: Path) -> pd.DataFrame:
        try:
            return table_from_bytes(private.read_private(path))
        except (ArrowException, ValueError, KeyError) as exc:
            raise TVSError(f"{path} in the workspace is not a table this tool wrote (damaged or replaced); it was not "
                           "read. Open the data again to keep a new copy.") from exc

    # -- released copies ----------------------------------------------------------------------------------------
    def save_release_copy(self, fingerprint: str, key: str, table: pd.DataFrame) -> str:
        """The workspace's copy of a released table (the pooled-release check needs its rows even when the exported
        file has been moved); returns its path relative to the workspace, as the ledger keeps it."""
        if not _KEY.match(fingerprint) or not _RELEASE_KEY.match(key):
            raise private.UnsafeWorkspace(f"'{key}' is not the name of a released copy.")
        path = self._folder("releases") / f"{fingerprint[:24]}-{key}.parquet"
        private.write_private(path, table_bytes(table))
        return str(path.relative_to(self.root))

    def inside(self, relative: str) -> Path:
        """A path the store keeps (relative to the workspace), refused unless it stays inside the workspace."""
        path = Path(relative)
        if path.is_absolute() or ".." in path.parts or not path.parts:
            raise private.UnsafeWorkspace(f"The store names '{relative}', which is not a file inside the workspace "
                                          f"{self.root}; it is not read.")
        return self.root / path

    def load_release_copy(self, relative: str) -> pd.DataFrame:
        return self._read_table(self.inside(relative))

    def remove(self, relative: str) -> None:
        self.inside(relative).unlink(missing_ok=True)

    # -- uploads ------------------------------------------------------------------------------------------------
    def save_upload(self, name: str, table: pd.DataFrame, data: bytes) -> Path:
        """An uploaded file, once read: its table as Parquet, with the file's name, size and sha256 in the Parquet
        file's metadata (``upload_origin``) — not a copy of its bytes, which could be a CSV or a workbook that
        another program later opens. Kept as ``uploads/NAME.parquet``, or under a new name ('cohort.csv (2)')
        when that is taken: an upload never replaces an earlier one, nor anything else in the workspace."""
        base = Path(one_line(name).replace("\\", "/")).name.strip()
        if base in ("", ".", ".."):
            raise DataError(f"The file name '{one_line(name)}' cannot be kept.",
                            fix="Rename the file (e.g. cohort.csv) and upload it again.")
        origin = {"name": base, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        folder = self._folder("uploads")
        candidate, number = folder / f"{base}.parquet", 1
        while True:
            try:
                handle = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 private.FILE_MODE)
            except FileExistsError:
                number += 1
                candidate = folder / f"{base} ({number}).parquet"
                continue
            os.close(handle)
            return private.write_private(candidate, table_bytes(table, {UPLOAD_KEY: json.dumps(origin)}))

    def upload_origin(self, path: Path) -> dict:
        """The name, size and sha256 of the file an upload kept here was read from."""
        return json.loads(table_metadata(private.read_private(path))[UPLOAD_KEY])

    # -- logs ---------------------------------------------------------------------------------------------------
    def open_log(self, job_id: str) -> int:
        """A file descriptor appending to the job's worker log (0600)."""
        if not _KEY.match(job_id):
            raise private.UnsafeWorkspace(f"'{job_id}' is not a job id.")
        return private.append_private(self._folder("logs") / f"{job_id}.log")

    def log_path(self, job_id: str) -> Path:
        return self.root / "logs" / f"{job_id}.log"

    def log_unexpected(self, where: str) -> Path | None:
        """The traceback being handled, appended to ``logs/errors.log`` under ``where`` (the command or the page):
        a bug is one sentence for the user and its details here. Only where it happened is written, never an
        exception's message, which may quote a cell of the user's data. None when the log cannot be written."""
        try:
            log = self._folder("logs") / "errors.log"
            handle = private.append_private(log)
            with os.fdopen(handle, "a") as stream:
                stream.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {where}\n{traceback_without_values()}")
            return log
        except (OSError, TVSError):  # UnsafeWorkspace: logs/ is a link or not a folder, or the log is not ours
            return None

    # -- the dashboard's access token -------------------------------------------------------------------------
    @property
    def token_path(self) -> Path:
        return self.root / TOKEN_FILE

    def access_token(self) -> str:
        """The workspace's dashboard token (made once, kept 0600): whoever holds it can open the dashboard."""
        path = self.token_path
        if not path.is_symlink() and not path.exists():
            private.create_private_with(path, secrets.token_urlsafe(32).encode())  # or another process's stands
        token = private.read_private(path).decode().strip()
        if not token:  # an empty file: an earlier version wrote it in place and stopped before the token
            private.write_private(path, secrets.token_urlsafe(32).encode())
            token = private.read_private(path).decode().strip()
        return token

    def token_matches(self, given: str | None) -> bool:
        """Compared in constant time, so the answer's timing tells nothing about the token."""
        return bool(given) and hmac.compare_digest(given.encode(), self.access_token().encode())

    def wipe(self) -> None:
        """Remove everything kept here: data, uploads, results, the ledger and its released copies, logs (close the
        store first). The access token stays, so the dashboard that wiped its data stays open to its owner."""
        for entry in self.root.iterdir():
            if entry.name == TOKEN_FILE:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def refuse_inside_workspace(out: str | Path, workspace: str | Path | None = None, option: str = "--out") -> None:
    """An output never goes into the workspace, where it could replace the tool's own files (the database, a
    table, the token)."""
    root = Path(os.path.realpath(workspace if workspace is not None else default_workspace()))
    target = Path(os.path.realpath(out))
    if target == root or root in target.parents:
        raise DataError(f"{option} {out} is inside the workspace {root}, which holds the tool's own files.",
                        fix="Write it to another folder.")


def traceback_without_values() -> str:
    """The traceback being handled: where each exception of the chain was raised and its type, not its message."""
    import sys

    exc = sys.exc_info()[1]
    if exc is None:
        return ""
    chain, current = [], traceback.TracebackException.from_exception(exc)
    while current is not None:
        chain.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    parts = [f"Traceback (most recent call last):\n{''.join(part.stack.format())}{_type_name(part.exc_type)} "
             "(its message is left out: it may quote the data)\n" for part in reversed(chain)]
    return "\nThe exception above led to this one:\n\n".join(parts)


def _type_name(kind: type | None) -> str:
    if kind is None:
        return "an exception"
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
