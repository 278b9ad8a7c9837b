"""Does the Dask backend send a job's context once per stage? 12 tasks that each receive a 400 MB JobContext, two
stages, timed with and without ``jobs.backends.register_context_size_for_dask`` (bench/scale.md, "A million rows").

Usage (from the repo root): ``python -m bench.dask_context [off]``."""
import sys
import time
from types import SimpleNamespace

import numpy as np
from joblib import Parallel, delayed

from bench.common import exit_with_usage_if_asked
from tvs_core.jobs import backends
from tvs_core.jobs.context import JobContext


def task(context, i):
    return float(context.data.train[i, 0])

if __name__ == '__main__':
    exit_with_usage_if_asked(__doc__)
    if sys.argv[1:] == ["off"]:
        backends.register_context_size_for_dask = lambda: None
    train = np.random.default_rng(0).random((1_000_000, 50))
    context = JobContext(config=None, data=SimpleNamespace(train=train, test=train[:1000], shared={}), holder=None,
                         spec=None, levels=[1], protocol=None, caps=[], targets=[], attacker_rows=None)
    with backends.backend_context("dask", n_jobs=2) as workers:
        with Parallel(n_jobs=workers, return_as="generator_unordered") as parallel:
            for stage in range(2):
                start = time.perf_counter()
                out = sorted(parallel(delayed(task)(context, i) for i in range(12)))
                seconds = time.perf_counter() - start
                print(sys.argv[1:] or ["on"], "stage", stage, f"{seconds:.1f} s", len(out), flush=True)
