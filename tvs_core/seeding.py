"""One master seed for everything: each task derives its own stream from the seed and its key, so
results do not depend on which worker runs a task or in what order."""

from __future__ import annotations

import zlib

import numpy as np

MAX_SEED = 2**32 - 1  # a master or release seed: any 32-bit unsigned number, as numpy seeds take it


def _word(part) -> int:
    if isinstance(part, (int, np.integer)):
        return int(part) & 0xFFFFFFFF
    return zlib.crc32(str(part).encode())


def task_seed(master: int, *key) -> int:
    """A 32-bit seed for the task identified by ``key`` (ints and strings)."""
    sequence = np.random.SeedSequence([_word(master), *(_word(k) for k in key)])
    return int(sequence.generate_state(1)[0])


def task_rng(master: int, *key) -> np.random.Generator:
    return np.random.default_rng(task_seed(master, *key))


def subsample(rows: np.ndarray, limit: int | None, rng: np.random.Generator) -> np.ndarray:
    """At most ``limit`` rows, a seeded draw in their original order; every row (and no draw) below it.
    The one rule behind every declared row cap, so a capped metric draws the same rows wherever it runs."""
    if limit is None or len(rows) <= limit:
        return rows
    return rows[np.sort(rng.choice(len(rows), limit, replace=False))]
