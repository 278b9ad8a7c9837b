"""The memory budget: how much is free (a container's limit counts), what a task needs, and how many workers a stage
gets — each a known number, so a sweep is slowed down rather than killed."""

import pytest

from tvs_core.jobs import memory

GB = 1024.0  # MB


class FakePath:
    """``Path`` over a few fake files of /proc and /sys; any other file is missing (OSError)."""

    files: dict[str, str] = {}

    def __init__(self, path: str):
        self.path = path

    def read_text(self) -> str:
        if self.path not in self.files:
            raise FileNotFoundError(self.path)
        return self.files[self.path]


def free_with(monkeypatch, files: dict[str, str]) -> float | None:
    monkeypatch.setattr(FakePath, "files", files)
    monkeypatch.setattr(memory, "Path", FakePath)
    return memory.available_mb()


MEMINFO = "MemTotal:       16777216 kB\nMemAvailable:    8388608 kB\n"  # 8 GB available


@pytest.mark.parametrize("cgroup, free", [
    ({}, 8 * GB),  # no cgroup v2 files: the machine's MemAvailable
    ({"/sys/fs/cgroup/memory.max": "max\n"}, 8 * GB),  # a cgroup without a limit
    ({"/sys/fs/cgroup/memory.max": str(2 * 2**30), "/sys/fs/cgroup/memory.current": str(2**29)}, 1.5 * GB),
    ({"/sys/fs/cgroup/memory.max": str(64 * 2**30), "/sys/fs/cgroup/memory.current": "0"}, 8 * GB),
    ({"/sys/fs/cgroup/memory.max": "garbage", "/sys/fs/cgroup/memory.current": "0"}, 8 * GB),
])
def test_free_memory_is_the_lower_of_the_machines_and_the_containers_limit(monkeypatch, cgroup, free):
    """In a container the machine may have GBs free that the worker can never use."""
    assert free_with(monkeypatch, {"/proc/meminfo": MEMINFO, **cgroup}) == pytest.approx(free)


def test_free_memory_is_unknown_without_proc(monkeypatch):
    """Unknown (not zero): the sweep then runs on the workers asked for instead of refusing to start."""
    assert free_with(monkeypatch, {}) is None
    assert memory.workers_that_fit(500.0, 3, None) == (3, None)


def test_a_data_tasks_need_grows_with_the_rows_and_a_games_stops_at_the_games_rows():
    assert memory.prior_need_mb("release", 0) == memory.WORKER_BASE_MB
    assert memory.prior_need_mb("release", 10_000) == memory.WORKER_BASE_MB + memory.MB_PER_ROW * 10_000
    assert memory.prior_need_mb("aia", 10_000) == memory.prior_need_mb("aia", memory.GAME_ROWS)
    assert memory.prior_need_mb("aia", 500) == memory.WORKER_BASE_MB + memory.MB_PER_ROW * 500


def test_a_stage_needs_what_its_hungriest_task_needs_and_an_unmeasured_kind_its_prior():
    prior = memory.prior_need_mb("release", 4_000)
    assert memory.stage_need_mb(["aia", "release"], 4_000, {}) == prior  # the data task needs more than the game
    assert memory.stage_need_mb(["aia", "release"], 4_000, {"aia": 2 * prior}) == 2 * prior
    assert memory.stage_need_mb(["release"], 4_000, {"release": None}) == prior  # a peak not measured
    assert memory.stage_need_mb([], 4_000, {}) == memory.WORKER_BASE_MB


def test_a_fifth_of_the_free_memory_is_kept_in_reserve():
    """A task needing exactly what is free would leave nothing for the rest of the machine: it does not fit."""
    assert memory.workers_that_fit(1000.0, 4, 1000.0)[0] == 0
    assert memory.workers_that_fit(800.0, 4, 1000.0)[0] == 1
    assert memory.workers_that_fit(1000.0, 4, 5000.0) == (4, None)  # 4 x 1000 is exactly 80 % of 5000


def test_the_lines_say_the_sizes_in_gb_and_what_to_do():
    slots, line = memory.workers_that_fit(2 * GB, 4, 6 * GB)
    assert slots == 2 and line == ("Memory: 6.0 GB free and about 2.0 GB per task, so this stage runs on 2 worker(s) "
                                   "instead of 4 (same results, later).")
    slots, line = memory.workers_that_fit(3 * GB, 4, 2 * GB)
    assert slots == 0 and "needs about 3.0 GB and only 2.0 GB is free" in line
    assert "Close other programs and press Resume (finished results are kept)" in line


def test_a_need_below_one_mb_does_not_divide_by_zero():
    assert memory.workers_that_fit(0.0, 2, 100.0) == (2, None)
