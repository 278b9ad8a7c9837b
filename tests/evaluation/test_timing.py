"""Where a task's time and memory go, as the engine stores them per task: fitting, sampling, the rest (metrics) and
the peak resident memory. The clock is a fake one, so every number is known."""

from types import SimpleNamespace

import pytest

from tvs_core.evaluation import timing
from tvs_core.evaluation.timing import peak_memory_mb, reset_peak_memory, resident_memory_mb, run_timed, timed


@pytest.fixture
def clock(monkeypatch):
    """A clock that moves only when the test says so: ``clock.advance(seconds)``."""
    fake = SimpleNamespace(now=1000.0)
    fake.perf_counter = lambda: fake.now
    fake.advance = lambda seconds: setattr(fake, "now", fake.now + seconds)
    monkeypatch.setattr(timing, "time", fake)
    return fake


def test_each_second_is_counted_once_as_fitting_sampling_or_metrics(clock):
    def task(x, scale=1):
        clock.advance(1)  # metrics
        with timed("fitting"):
            clock.advance(2)
        with timed("sampling"):
            clock.advance(3)
        with timed("fitting"):  # a second fit adds up
            clock.advance(4)
        return x * scale

    result, spent = run_timed(task, 5, scale=2)
    assert result == 10
    assert spent == {"fitting": 6.0, "sampling": 3.0, "metrics": 1.0, "total": 10.0}


def spend(clock, phase: str, seconds: float) -> None:
    with timed(phase):
        clock.advance(seconds)


def test_a_phase_the_task_did_not_enter_is_zero_and_other_phases_count_as_metrics(clock):
    spent = run_timed(spend, clock, "loading", 2)[1]
    assert spent == {"fitting": 0.0, "sampling": 0.0, "metrics": 2.0, "total": 2.0}


def test_only_the_tasks_own_time_is_counted_not_an_earlier_tasks(clock):
    run_timed(spend, clock, "fitting", 5)
    assert run_timed(spend, clock, "fitting", 5)[1]["fitting"] == 5.0  # not 10: earlier totals are subtracted


def test_a_fit_that_fails_still_counts_its_time(clock):
    def task():
        with pytest.raises(ValueError):
            with timed("fitting"):
                clock.advance(2)
                raise ValueError("a fit failed")
        clock.advance(1)

    assert run_timed(task)[1] == {"fitting": 2.0, "sampling": 0.0, "metrics": 1.0, "total": 3.0}


def test_nested_phases_never_make_the_metrics_time_negative(clock):
    def task():
        with timed("sampling"):
            clock.advance(1)
            with timed("fitting"):  # a sampler that refits: the seconds are in both phases
                clock.advance(2)

    assert run_timed(task)[1] == {"fitting": 2.0, "sampling": 3.0, "metrics": 0.0, "total": 3.0}


PEAK_IN_A_FRESH_PROCESS = """
import numpy as np
from tvs_core.evaluation.timing import peak_memory_mb, reset_peak_memory, resident_memory_mb
reset_peak_memory()
before = resident_memory_mb()
block = np.ones(100 * 2**20 // 8)  # 100 MB, written so it is resident
del block
print(before, peak_memory_mb(), resident_memory_mb())
reset_peak_memory()
print(peak_memory_mb(), resident_memory_mb())
"""


def test_the_peak_holds_the_largest_memory_since_the_last_reset():
    """A task's stored peak must include a large array it freed before it ended, and not the previous task's. Run in
    a fresh process, as a task runs in a worker: a long-lived test process may hand the array memory it already
    holds, which its peak has counted before the reset."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", PEAK_IN_A_FRESH_PROCESS], capture_output=True, text=True, check=True,
                         timeout=600).stdout.split()
    before, peak, resident, peak_after_reset, resident_after_reset = map(float, out)
    assert peak >= before + 90 and resident < peak - 50  # freed, yet in the peak
    assert peak_after_reset < resident_after_reset + 50  # the earlier block is out of the new window


def test_memory_is_unknown_where_proc_is_missing(monkeypatch):
    monkeypatch.setattr(timing, "os", SimpleNamespace(getpid=lambda: 0))  # /proc/0 does not exist
    reset_peak_memory()  # no error
    assert peak_memory_mb() is None and resident_memory_mb() is None
