"""Where the time goes: fitting, sampling, everything else (metrics), per task and process."""

from __future__ import annotations

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
