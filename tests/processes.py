"""Every process a test starts must end with the test: each one carries an owner in its environment
(``TVS_TEST_OWNER``, inherited by subprocesses, loky and Dask workers, Streamlit servers and Chromium), and after
the test no live process may still carry that owner. Fixtures shared by several tests own theirs until the
session ends."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

OWNER = "TVS_TEST_OWNER"
# a process told to stop (a killed worker, a shut-down cluster) may take this long to go: a ceiling for a machine loaded
# several times over (on an idle one they go within a second), not a budget; one that never goes still fails its test
GRACE_SECONDS = 120.0


def owned(owner: str) -> dict[int, str]:
    """pid -> command line of every live process (zombies excluded) whose environment names ``owner``, of every
    process in a session one of those began (other than the test's own), and of every descendant of those: a process
    that retitles itself (Ray's agents and workers, through setproctitle) overwrites the memory /proc reads its
    environment from, and would go unseen by its environment alone (a Ray worker, started by its raylet, may be in a
    session of its own)."""
    wanted = f"{OWNER}={owner}".encode()
    found, sessions, everyone = {}, set(), {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            everyone[int(entry.name)] = (int(fields[3]), command, int(fields[1]))
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = command
                sessions.add(int(fields[3]))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    sessions.discard(os.getsid(0))
    found.update({pid: command for pid, (session, command, _) in everyone.items() if session in sessions})
    grew = True
    while grew:  # descendants, however deep
        children = {pid: command for pid, (_, command, parent) in everyone.items()
                    if parent in found and pid not in found}
        found.update(children)
        grew = bool(children)
    return found


def survivors(owner: str, grace: float = GRACE_SECONDS) -> dict[int, str]:
    """The processes of ``owner`` still alive after ``grace`` seconds; they are killed before returning."""
    deadline = time.monotonic() + grace
    alive = owned(owner)
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = owned(owner)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return alive


def describe(alive: dict[int, str]) -> str:
    return "; ".join(f"{pid}: {command[:160]}" for pid, command in sorted(alive.items()))
