"""Memory is a budget: before a stage starts, how much one task needs is estimated, and the stage runs on
only as many parallel workers as the machine can hold — the same numbers, later, never an OOM-killed worker.

The need of a task kind is the largest peak that kind has reached in this job (``results.peak_mb``, measured
per task by the engine), or before any has run a prior: a worker's base plus a share per training row
up to the row caps (the per-set and forest caps bound it; bench/scale.md measured it). When not even one
worker fits, the sweep stops with one line saying how much it needs and how much is free.
"""

from __future__ import annotations

from pathlib import Path

from ..evaluation.sizes import RELEASE_ROWS
from .tasks import Growth, TaskKind

WORKER_BASE_MB = 300.0  # an idle worker with numpy, scikit-learn and pyvinecopulib loaded
MB_PER_ROW = 0.05  # per training row of a data task, up to RELEASE_ROWS (forests and sets dominate)
GAME_ROWS = 1_000  # the games draw at most about this many rows, whatever the table
HEADROOM = 0.8  # never plan to use more than this share of the free memory


def available_mb() -> float | None:
    """Memory this process may still use: MemAvailable, or the cgroup limit minus its usage if lower."""
    free = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                free = float(line.split()[1]) / 1024
    except OSError:
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = float(Path("/sys/fs/cgroup/memory.current").read_text())
            free = min(free if free is not None else float("inf"), (float(limit) - used) / 2**20)
    except (OSError, ValueError):
        pass
    return free


def prior_need_mb(kind: str, n_train: int) -> float:
    rows = min(n_train, RELEASE_ROWS) if TaskKind(kind).growth == Growth.DATA else min(n_train, GAME_ROWS)
    return WORKER_BASE_MB + MB_PER_ROW * rows


def stage_need_mb(kinds: list[str], n_train: int, measured: dict[str, float]) -> float:
    """What the hungriest task of a stage is expected to hold: measured where possible, else the prior."""
    return max((measured.get(kind) or prior_need_mb(kind, n_train) for kind in kinds), default=WORKER_BASE_MB)


def workers_that_fit(need_mb: float, workers: int, free_mb: float | None) -> tuple[int, str | None]:
    """How many parallel workers the free memory holds (at most ``workers``), with one line for the user
    when it is fewer; 0 workers when not even one fits."""
    if free_mb is None:
        return workers, None
    fit = int(HEADROOM * free_mb // max(need_mb, 1.0))
    if fit >= workers:
        return workers, None
    if fit < 1:
        return 0, (f"Not enough memory: a task of this sweep needs about {need_mb / 1024:.1f} GB and only "
                   f"{free_mb / 1024:.1f} GB is free. Close other programs and press Resume (finished results "
                   "are kept).")
    return fit, (f"Memory: {free_mb / 1024:.1f} GB free and about {need_mb / 1024:.1f} GB per task, so this stage "
                 f"runs on {fit} worker(s) instead of {workers} (same results, later).")
