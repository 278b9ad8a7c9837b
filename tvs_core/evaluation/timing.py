"""Where the time and memory go: fitting, sampling, everything else (metrics), and the peak resident
memory, per task and process."""

from __future__ import annotations

import os
import time
from collections import defaultdict
from contextlib import contextmanager

_totals: dict[str, float] = defaultdict(float)


@contextmanager
def timed(phase: str):
    start = time.perf_counter()
    try:
        yield
    finally:
        _totals[phase] += time.perf_counter() - start


def run_timed(fn, *args, **kwargs) -> tuple[object, dict[str, float]]:
    """Call ``fn`` and return its result with seconds spent fitting, sampling and in metrics."""
    before = dict(_totals)
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    total = time.perf_counter() - start
    spent = {phase: _totals[phase] - before.get(phase, 0.0) for phase in ("fitting", "sampling")}
    spent["metrics"] = max(0.0, total - spent["fitting"] - spent["sampling"])
    spent["total"] = total
    return result, spent


def _status_kb(field: str) -> float | None:
    try:
        with open(f"/proc/{os.getpid()}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_memory() -> None:
    """Start a new peak-memory window for this process (Linux: writing 5 to clear_refs resets VmHWM)."""
    try:
        with open(f"/proc/{os.getpid()}/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def peak_memory_mb() -> float | None:
    """Peak resident memory of this process since the last reset, in MB (None where /proc is missing)."""
    kb = _status_kb("VmHWM")
    return None if kb is None else kb / 1024.0


def resident_memory_mb() -> float | None:
    kb = _status_kb("VmRSS")
    return None if kb is None else kb / 1024.0
