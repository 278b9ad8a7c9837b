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
    context = JobContext(config=None, data=data, holder=None, spec=None, levels=[1], protocol=None, caps=[],
                         targets=[], attacker_rows=np.zeros((100, 10)), externals={"mine": np.zeros((50, 10))})
    register_context_size_for_dask()
    arrays = train.nbytes + test.nbytes + 1_000 * 8 + 100 * 10 * 8 + 50 * 10 * 8
    assert arrays <= sizeof(context) < 2 * arrays
    assert sizeof(context) > 1e3  # joblib's threshold for scattering an argument


@pytest.mark.slow
@pytest.mark.kernels
def test_a_sweep_on_a_dask_cluster_of_four_workers_gives_the_same_summary_bytes_as_loky(tmp_path):
    """Issue 57: the engine starts each task when a worker is free and its inputs are stored, whatever the backend;
    every task is seeded from its own key, so a Dask cluster of four worker processes (this machine's, TLS) scores
    the same records as loky's two, and its summary is the same bytes."""
    pytest.importorskip("dask")
    from tests.conftest import make_small_table
    from tests.helpers import TINY
    from tvs_core.jobs import SweepConfig, submit
    from tvs_core.jobs.view import JobView
    from tvs_core.jobs.worker import run_job
    from tvs_core.storage.store import Store

    config = SweepConfig(response="y", sensitive=["income"], levels=[1, 2], baselines=["independent", "rvine"],
                         baseline_games=["mia"], protocol_overrides=TINY)
    found = {}
    for backend, workers in (("loky", 2), ("dask", 4)):
        store = Store(tmp_path / backend)
        job_id = submit(store, make_small_table(150), config)
        assert run_job(store, job_id, n_jobs=workers, backend=backend) == "done", store.job(job_id).error
        view = JobView(store, job_id)
        found[backend] = (view.summary().frame.to_csv(index=False).encode(),
                          sorted((r.task, str(r.records)) for r in store.results(job_id)))
    assert found["dask"][0] == found["loky"][0]
    assert found["dask"][1] == found["loky"][1]
