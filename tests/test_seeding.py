"""One master seed for everything (tvs_core/seeding.py): a task's stream depends on the seed and the task's key
alone — not on the process, the worker or the order tasks run in — and a row cap draws the same rows wherever it
runs."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT
from tvs_core.seeding import MAX_SEED, subsample, task_rng, task_seed

KEYS = [("release", 3, 1), ("release", 3, 2), ("release", 1, 3), ("aia", "cost", 0), ("aia", "stay", 0), (0,), (1,)]


def test_a_task_seed_is_the_same_in_another_process_whatever_its_string_hashing():
    """Workers are other processes, each hashing strings with its own salt: the seed must not depend on it."""
    module = str(ROOT / "tvs_core" / "seeding.py")  # the module alone: the package's imports take seconds
    code = f"import runpy; print(runpy.run_path({module!r})['task_seed'](2025, 'release', 'dp_vine:1', 3))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
                           check=True)
    assert int(other.stdout) == task_seed(2025, "release", "dp_vine:1", 3)


def test_each_master_seed_and_key_gives_its_own_32_bit_seed():
    """Another key, another order of its parts, or another master seed: another stream."""
    seeds = [task_seed(master, *key) for master in (0, 1, MAX_SEED) for key in KEYS]
    assert len(set(seeds)) == len(seeds) and all(0 <= s <= MAX_SEED for s in seeds)
    assert task_seed(7, "a", "b") != task_seed(7, "b", "a")


@pytest.mark.xfail(strict=True, reason="numpy's SeedSequence pads up to 4 entropy words with zeros, so a key of up to "
                   "three parts and the same key with a trailing 0 share one stream. Left so on purpose: a fix changes "
                   "every seeded draw, so every pinned number (tests/test_machines.PINNED, the golden cases), and no "
                   "call site uses such a pair of keys today")
def test_a_key_and_the_same_key_with_a_trailing_zero_are_different_tasks():
    assert task_seed(7, "aia") != task_seed(7, "aia", 0)


def test_a_task_rng_repeats_its_stream_for_the_same_task_only():
    draws = [task_rng(11, "pmse", 4).random(5) for _ in range(2)]
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], task_rng(11, "pmse", 5).random(5))


def test_a_capped_draw_keeps_limit_distinct_rows_in_their_order_and_repeats_with_the_seed():
    rows = np.arange(40).reshape(20, 2)  # row i is (2i, 2i + 1)
    for seed in range(5):
        kept = subsample(rows, 7, np.random.default_rng(seed))
        assert kept.shape == (7, 2) and np.all(kept[:, 1] == kept[:, 0] + 1)  # whole rows, not mixed
        assert np.all(np.diff(kept[:, 0]) > 0)  # distinct, in the table's order
        np.testing.assert_array_equal(kept, subsample(rows, 7, np.random.default_rng(seed)))


def test_rows_within_the_cap_are_all_kept_and_nothing_is_drawn():
    """No draw below the cap: the tasks after it see the same stream whether or not a table was capped."""
    rows = np.arange(6)
    for limit in (None, 6, 100):
        rng = np.random.default_rng(3)
        np.testing.assert_array_equal(subsample(rows, limit, rng), rows)
        assert rng.random() == np.random.default_rng(3).random()
