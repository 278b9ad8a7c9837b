"""A worker process's life: whether it runs — by its pid and the start time recorded with it, so that a pid the
system gave to another process is never taken for the worker — and how it ends on SIGTERM (``Terminated``). Apart
from ``process`` (which starts and cancels workers, handing a job to the standby when one is ready) so that the
standby (``standby``) and the worker (``worker``) read it without importing ``process``."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import NamedTuple

from ..storage.store import JobRow


def process_start_time(pid: int) -> float | None:
    """Start time of a process in clock ticks since boot (Linux); tells a reused pid apart."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return float(fields[19])
    except (OSError, IndexError, ValueError):
        return None


class Worker(NamedTuple):
    """A process and when it started: a pid alone may have been reused by another process since."""

    pid: int | None
    pid_started: float | None = None


def worker_alive(job: JobRow | Worker) -> bool:
    """Whether the worker a job (or a ``Worker``) names runs: not gone, not a reused pid, not a zombie."""
    pid = job.pid
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    started = process_start_time(pid)
    if started is not None and job.pid_started is not None and started != job.pid_started:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":  # zombie: dead, not reaped
        return False
    return True


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C, so that a job's ``finally`` blocks run and the processes
    it started end with it (the default SIGTERM ends the process at once and leaves them behind)."""


def stop_on_sigterm() -> None:
    """From now on, SIGTERM raises ``Terminated`` in this process's main thread."""
    def handler(signum, frame):
        raise Terminated()

    signal.signal(signal.SIGTERM, handler)
