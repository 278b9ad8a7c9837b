"""A second local account, as an attacker on a shared server has one: created for a test and removed after it.

The threat model is one machine with several accounts. These tests need root (CI runs as root) to create the
account; elsewhere they skip and say why. The attacker's code runs in a child forked from the test process that
drops to the account's uid and gids before doing anything: modules already imported stay usable, but every file,
socket and process it touches is checked by the kernel as that account's, exactly as for a real second user.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

NOT_ROOT = "creating a second local account needs root (CI runs the suite as root)"


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    home: Path

    def run(self, function: Callable, *args, timeout: float = 60.0):
        """``function(*args)`` as this account, in a forked child; its return value (or exception) comes back."""
        return run_as(self, function, *args, timeout=timeout)

    def command(self, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
        """A program (one any account may execute, e.g. /usr/bin/chromium) run as this account."""
        return subprocess.run(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                               "--", *argv], **kwargs)

    def popen(self, argv: list[str], **kwargs) -> subprocess.Popen:
        return subprocess.Popen(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                                 "--", *argv], **kwargs)


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip(NOT_ROOT)
    if shutil.which("useradd") is None or shutil.which("setpriv") is None:
        pytest.skip("useradd and setpriv (Debian's passwd and util-linux) are needed to play a second account")


@contextmanager
def second_account() -> Iterator[Account]:
    """A throwaway local account with its own home under /tmp; removed with everything it owns afterwards."""
    require_root()
    import pwd

    name = f"tvsother{secrets.token_hex(3)}"
    home = Path(tempfile.mkdtemp(prefix=f"{name}-home-"))
    for _attempt in range(20):  # two pytest workers may hold /etc/passwd's lock at the same moment
        made = subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell",
                               "/usr/sbin/nologin", "--user-group", name], capture_output=True, text=True)
        if made.returncode == 0:
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(f"useradd failed: {made.stderr.strip()}")
    try:
        entry = pwd.getpwnam(name)
        os.chown(home, entry.pw_uid, entry.pw_gid)
        os.chmod(home, 0o700)
        yield Account(name, entry.pw_uid, entry.pw_gid, home)
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", name], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def run_as(account: Account, function: Callable, *args, timeout: float = 60.0):
    """Fork, drop to ``account`` (no supplementary groups, umask 022 as on Debian), run, and send the result back
    through a pipe as JSON. The child never returns into pytest."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the attacker
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(account.gid)
            os.setuid(account.uid)
            os.umask(0o022)
            os.environ["HOME"] = str(account.home)
            try:
                outcome = ("value", function(*args))
            except BaseException as exc:  # noqa: BLE001 — the parent re-raises it
                outcome = ("error", f"{type(exc).__name__}: {exc}")
            data = json.dumps(outcome).encode()
        except BaseException as exc:  # noqa: BLE001
            data = json.dumps(["error", f"could not become {account.name}: {exc}"]).encode()
        with os.fdopen(write_end, "wb") as stream:
            stream.write(data)
        os._exit(0)
    os.close(write_end)
    import select

    with os.fdopen(read_end, "rb") as stream:
        ready, _, _ = select.select([stream], [], [], timeout)
        if not ready:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise TimeoutError(f"the code run as {account.name} did not finish within {timeout:.0f} s")
        data = stream.read()
    os.waitpid(pid, 0)
    kind, value = json.loads(data)
    if kind == "error":
        raise AccountError(value)
    return value


class AccountError(Exception):
    """What the second account's code raised (as text)."""


def shared_parent() -> Path:
    """A folder every account can traverse (0755, like a home folder on Debian <= 12): a workspace made inside it is
    protected only by its own modes, which is what the tests must show."""
    parent = Path(tempfile.mkdtemp(prefix="tvs-shared-"))
    os.chmod(parent, 0o755)
    return parent


def readable_by(account: Account, root: Path) -> list[str]:
    """Every file or folder under ``root`` that ``account`` can open for reading (what it could copy)."""

    def probe(top: str) -> list[str]:
        found = []
        for folder, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    with open(path, "rb") as stream:
                        stream.read(1)
                    found.append(path)
                except OSError:
                    pass
            if folder != top:
                found.append(folder)
        try:
            os.listdir(top)
            found.append(top + " (listing)")
        except OSError:
            pass
        return found

    return account.run(probe, str(root))
