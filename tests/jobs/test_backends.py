"""jobs/backends.py: what the Dask backend needs to send a job's context once per stage, not with every task."""

from types import SimpleNamespace

import numpy as np
import pytest

from tvs_core.jobs.backends import register_context_size_for_dask
from tvs_core.jobs.context import JobContext


def test_a_jobs_context_counts_its_arrays_for_dask_so_joblib_scatters_it():
    """joblib's Dask backend scatters an argument once only when Dask's sizeof finds it over 1 kB; counted as an
    object's shell, the context (every training row) was pickled with every task (bench/scale.md, a million rows)."""
    pytest.importorskip("dask")
    from dask.sizeof import sizeof

    train, test = np.zeros((2_000, 10)), np.zeros((500, 10))
    data = SimpleNamespace(train=train, test=test, shared={"distances": np.zeros(1_000)})
    context = JobContext(data=data, holder=None, spec=None, levels=[1], protocol=None, caps=[], targets=[],
                         attacker_rows=np.zeros((100, 10)), sensitive=[], seed=0,
                         externals={"mine": np.zeros((50, 10))})
    register_context_size_for_dask()
    arrays = train.nbytes + test.nbytes + 1_000 * 8 + 100 * 10 * 8 + 50 * 10 * 8
    assert arrays <= sizeof(context) < 2 * arrays
    assert sizeof(context) > 1e3  # joblib's threshold for scattering an argument
