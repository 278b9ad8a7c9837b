"""The local workspace folder, the sole owner of the on-disk layout: the store, the data of each job,
uploads and worker logs. Everything a user loads stays here, and wiping the folder removes it."""

from __future__ import annotations

import os
import shutil
import time
import traceback
from pathlib import Path

from ..errors import DataError

WORKSPACE_ENV = "TVS_WORKSPACE"


def default_workspace() -> Path:
    """$TVS_WORKSPACE, else ~/.tvinesynth-studio: local, per user, and easy to wipe."""
    return Path(os.environ.get(WORKSPACE_ENV, Path.home() / ".tvinesynth-studio"))


class Workspace:
    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_workspace()
        if self.root.exists() and not self.root.is_dir():
            raise DataError(f"The workspace {self.root} is a file, not a folder.",
                            fix="Give a folder (it is created if needed).")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(f"The workspace folder {self.root} cannot be created ({exc.strerror}).",
                            fix="Give a folder you can write to.") from None

    def _folder(self, name: str) -> Path:
        folder = self.root / name
        folder.mkdir(exist_ok=True)
        return folder

    @property
    def database(self) -> Path:
        return self.root / "studio.sqlite"

    def table_path(self, fingerprint: str, name: str) -> Path:
        """A job's input table ('table' or 'holdout'), pickled: every dtype is kept exactly."""
        return self._folder("data") / f"{fingerprint[:24]}-{name}.pkl"

    def release_path(self, fingerprint: str, key: str) -> Path:
        """The workspace's copy of a released table (the pooled-release check needs its rows even when the
        exported file has been moved), pickled like the job tables."""
        return self._folder("releases") / f"{fingerprint[:24]}-{key}.pkl"

    def upload_path(self, name: str) -> Path:
        return self._folder("uploads") / Path(name).name

    def log_path(self, job_id: str) -> Path:
        return self._folder("logs") / f"{job_id}.log"

    def log_unexpected(self, where: str) -> Path | None:
        """The traceback being handled, appended to ``logs/errors.log`` under ``where`` (the command line or the
        page): a bug is one sentence for the user and its details here. None when the log cannot be written."""
        try:
            log = self._folder("logs") / "errors.log"
            with open(log, "a") as stream:
                stream.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {where}\n{traceback.format_exc()}")
            return log
        except OSError:
            return None

    def wipe(self) -> None:
        """Remove everything kept here: data, uploads, results, the ledger and its released copies, logs (close
        the store first)."""
        shutil.rmtree(self.root, ignore_errors=True)
