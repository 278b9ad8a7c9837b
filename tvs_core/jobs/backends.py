"""Where tasks run: joblib's backend. loky on this machine; Dask or Ray (optional, imported only when
chosen) for clusters. The backend never changes a number: every task is seeded from its own key."""

from __future__ import annotations

from contextlib import contextmanager

from joblib import parallel_config

from ..errors import TVSError

BACKENDS = ("loky", "dask", "ray")
# Ray's joblib backend returns lists only: its tasks go in batches of one per worker, and each
# batch is stored as soon as it has finished (loky and Dask stream every result on arrival).
RESULT_ORDER = {"loky": "generator_unordered", "dask": "generator_unordered", "ray": "list"}


@contextmanager
def backend_context(backend: str = "loky", address: str | None = None, n_jobs: int = 2):
    """joblib's backend for the tasks. Dask and Ray are optional and imported only when chosen."""
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=n_jobs):
            yield n_jobs
    elif backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            raise TVSError("The Dask backend needs the optional packages in requirements-extras.txt "
                           "(pip install -r requirements-extras.txt).") from exc
        cluster = None if address else LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True,
                                                      dashboard_address=None)
        client = Client(address or cluster)
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield n_jobs
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError as exc:
            raise TVSError("The Ray backend needs the optional packages in requirements-extras.txt "
                           "(pip install -r requirements-extras.txt).") from exc
        register_ray()
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=address, num_cpus=None if address else n_jobs, include_dashboard=False,
                     log_to_driver=False)
        try:
            with parallel_config(backend="ray", n_jobs=n_jobs):
                yield n_jobs
        finally:
            if started_here:
                ray.shutdown()
    else:
        raise TVSError(f"Unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}.")
