"""Where tasks run: joblib's backend. loky on this machine; Dask or Ray (optional, imported only when
chosen) for clusters. The backend never changes a number: every task is seeded from its own key.

On a shared server every account can reach 127.0.0.1, and a cluster runs whatever a connected client sends it as the
account that started it: a cluster started here must accept only its owner (docs/security.md). Dask's does (TLS,
dask_cluster); Ray's cannot, so the dashboard does not offer it and the command line starts it only with
--accept-open-ports, after saying so (``risk``). A Ray cluster started here runs in a session of its own, ended
whole with the job (ray_cluster)."""

from __future__ import annotations

import atexit
import os
import signal
import threading
import traceback
from contextlib import contextmanager
from enum import StrEnum

from joblib import parallel_config

from ..errors import TVSError
from ..text import choice_named, read_choice


@choice_named("backend")
class Backend(StrEnum):
    """Where a sweep's tasks run (the numbers do not depend on it)."""

    LOKY = "loky"
    DASK = "dask"
    RAY = "ray"


BACKENDS = tuple(Backend)
# The backends whose cluster on this machine accepts only the account that started it (the dashboard offers no
# other): loky's workers are this process's children; Dask's local cluster is TLS with a key of its own
# (dask_cluster). Ray's is not: its servers listen on every network address (Ray 2.60 has no setting for it).
OWNER_ONLY = (Backend.LOKY, Backend.DASK)
RAY_RISK = ("Warning: Ray's cluster listens on every network address of this computer and cannot be limited to your "
            "account, so on a shared server other users may reach it and the data it holds; use the default backend "
            "(loky) there.")
RAY_REFUSAL = ("Ray's cluster listens on every network address of this computer and cannot be limited to your account, "
               "so on a shared server other users may reach it and the data it holds: add --accept-open-ports to "
               "start it anyway, or use the default backend (loky).")
# Ray's joblib backend returns lists only: its tasks go in batches of one per worker, and each
# batch is stored as soon as it has finished (loky and Dask stream every result on arrival).
RESULT_ORDER = {"loky": "generator_unordered", "dask": "generator_unordered", "ray": "list"}


def register_context_size_for_dask() -> None:
    """A job's context counted by its arrays for Dask. joblib's Dask backend sends an argument to the workers once per
    stage (scattered) only when Dask's ``sizeof`` finds it larger than 1 kB; a JobContext counted as its object's
    shell was pickled with every task instead (a million rows: 4.5 GB per task, bench/scale.md)."""
    from dask.sizeof import sizeof

    from .context import JobContext

    @sizeof.register(JobContext)
    def _context_bytes(context: JobContext) -> int:
        data = context.data
        return int(sizeof([data.train, data.test, context.attacker_rows, context.externals, data.shared]))


@contextmanager
def backend_context(backend: Backend = Backend.LOKY, address: str | None = None, n_jobs: int = 2):
    """joblib's backend for the tasks. Dask and Ray are optional and imported only when chosen."""
    backend = read_choice(Backend, backend)
    if backend == Backend.LOKY:
        interrupted = False
        try:
            with parallel_config(backend="loky", n_jobs=n_jobs, initializer=leave_interrupts_to_parent):
                yield n_jobs
        except BaseException as exc:  # the finished frames' locals (joblib's queues) go, so their semaphores are
            _clear_frames(exc)  # released before the resource trackers stop
            interrupted = isinstance(exc, KeyboardInterrupt)
            raise
        finally:
            # Ctrl-C or SIGTERM lands anywhere in joblib, which may still hold its semaphores: the workers end now,
            # the trackers with the process (the command line runs its exit handlers, which release them, first)
            stop_local_workers(trackers=not interrupted)
    elif backend == Backend.DASK:
        try:
            from dask.distributed import Client

            from .dask_cluster import PrivateCluster
        except ImportError as exc:
            raise TVSError(extras_needed("Dask")) from exc
        # a cluster given by its address is the user's, secured by the user (Dask's configuration); one started here
        # accepts only this account (dask_cluster)
        cluster = None if address else PrivateCluster(n_jobs)
        try:
            client = Client(address) if address else Client(cluster, security=cluster.security)
        except BaseException:
            if cluster is not None:
                cluster.close()
            raise
        register_context_size_for_dask()
        try:
            with parallel_config(backend="dask", n_jobs=-1):
                yield n_jobs
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
            stop_local_workers()  # the resource tracker its processes' start launched
    elif backend == Backend.RAY:
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError as exc:
            raise TVSError(extras_needed("Ray")) from exc
        register_ray()
        if address or ray.is_initialized():  # the user's cluster (secured by the user), or one already joined
            joined = not ray.is_initialized()
            if joined:
                ray.init(address=address, log_to_driver=False)
            try:
                with parallel_config(backend="ray", n_jobs=n_jobs):
                    yield n_jobs
            finally:
                if joined:
                    ray.shutdown()
            return
        from .ray_cluster import RayHead

        with _private_ray_files() as temp_dir, RayHead(temp_dir, n_jobs) as head:  # leaving ends its processes
            try:
                with _sigterm_kept():
                    ray.init(address=head.address, log_to_driver=False, _node_ip_address="127.0.0.1")
                with parallel_config(backend="ray", n_jobs=n_jobs):
                    yield n_jobs
            finally:
                if ray.is_initialized():
                    ray.shutdown()
                stop_local_workers()
    else:
        raise TVSError(f"Unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}.")


@contextmanager
def _sigterm_kept():
    """``ray.init`` puts its own SIGTERM handler in, which exits at once (``sys.exit(15)``, the review's "Aborted"):
    ours, which ends the cluster first and says how to resume, is put back after it, and a SIGTERM that came
    meanwhile (Ray's SystemExit) is handed to ours."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    keep = signal.getsignal(signal.SIGTERM)
    try:
        yield
    except SystemExit as exc:
        if exc.code != signal.SIGTERM or not callable(keep):
            raise
        keep(signal.SIGTERM, None)  # ours raises (jobs.process.Terminated)
        raise
    finally:
        signal.signal(signal.SIGTERM, keep)


def extras_needed(name: str) -> str:
    return (f"The {name} backend needs the optional packages, installed from the hash-locked file: "
            "pip install --require-hashes -r requirements-test.lock.")


def risk(backend: Backend, address: str | None = None) -> str | None:
    """The one sentence a user must read before a backend sends their data where other people may reach it; None
    when the backend keeps it to their account (a remote cluster secured with TLS is the user's to secure)."""
    if backend == Backend.RAY:
        return RAY_RISK
    if backend == Backend.DASK and address:
        try:
            import dask

            default = dask.config.get("distributed.comm.default-scheme", "tcp")
        except ImportError:  # refused with its own message when the cluster is reached
            return None
        scheme = address.split("://")[0] if "://" in address else default
        if scheme != "tls":
            return (f"Warning: the Dask cluster at {address} is reached without encryption, so anyone who can reach "
                    "it can read the data sent to it and run programs on it; give a tls:// address with the "
                    "cluster's certificates in Dask's configuration.")
    return None


@contextmanager
def _private_ray_files():
    """Ray's token and session files for a cluster started here, in a folder of this account's alone (0700), the
    token written 0600 from the start. Left to itself Ray writes the token 0644 to ~/.ray/auth_token, which any
    account can copy and then connect with, and its session folders world-writable under /tmp/ray. The token
    mode is switched on for this process and its children only; the cached token is dropped before and after,
    since every cluster has a new one (``ray._raylet``'s loader, Ray 2.60)."""
    import secrets
    import shutil
    import tempfile

    from ray._raylet import AuthenticationTokenLoader, Config

    names = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN")
    saved = {name: os.environ.get(name) for name in names}
    folder = tempfile.mkdtemp(prefix="tvs-ray-")
    try:
        token = os.path.join(folder, "token")
        with os.fdopen(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as stream:
            stream.write(secrets.token_hex(32))
        os.environ.pop("RAY_AUTH_TOKEN", None)
        os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=token)
        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
        yield os.path.join(folder, "session")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
        shutil.rmtree(folder, ignore_errors=True)


def leave_interrupts_to_parent() -> None:
    """A terminal's Ctrl-C reaches the whole foreground group, workers included. A worker hit between two tasks
    (loky's own loop, outside any handler) printed a traceback; the parent ends its workers itself, so they ignore
    it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_local_workers(trackers: bool = True) -> None:
    """End loky's worker processes and the resource trackers its start launched, now. Left alone the workers wait
    for loky's idle timeout (5 minutes, ~300 MB each) and outlive a process that leaves with ``os._exit`` (the CLI,
    a worker) by longer: a job's end is every process's end, whether it finished, failed, was cancelled or was
    interrupted. The trackers go last, once the executor's semaphores and folders are released (stopped earlier
    they would report them as leaked, and start again when they are released)."""
    import gc
    from multiprocessing import resource_tracker as multiprocessing_tracker

    from joblib.externals.loky import reusable_executor
    from joblib.externals.loky.backend import resource_tracker as loky_tracker

    executor = reusable_executor._executor
    if executor is not None:
        reusable_executor._executor = None
        # the executor's own threads hold its queues (and their semaphores) until they end: on a loaded machine
        # they outlived the collection below, and a semaphore released after the trackers stopped started one again
        threads = [getattr(executor, "_executor_manager_thread", None),
                   getattr(getattr(executor, "_call_queue", None), "_thread", None)]
        # joblib's executor also removes its temporary memmapping folders
        (getattr(executor, "terminate", None) or executor.shutdown)(kill_workers=True)
        _forget_unmade_folders(getattr(executor, "_temp_folder_manager", None), loky_tracker)
        del executor
        for thread in threads:
            if isinstance(thread, threading.Thread) and thread is not threading.current_thread():
                thread.join(timeout=10)
        del threads, thread  # a thread object holds the queues too
        for _ in range(2):  # the executor's queues and locks unregister their semaphores as they are freed (a
            gc.collect()  # second pass takes what the first one's finalizers released)
    for tracker in (loky_tracker._resource_tracker, multiprocessing_tracker._resource_tracker) if trackers else ():
        tracker._stop()  # each ends once no live process holds its pipe, and is started again when needed


def _forget_unmade_folders(manager, tracker) -> None:
    """joblib registers each Parallel call's memmapping folder with the tracker when the call starts, but makes it
    only when an array is large enough to share, and its clean-up skips a folder that does not exist: the tracker
    would call it leaked, and its exit handler unregister it after the tracker has gone. Done here instead (joblib
    1.6: the clean-up's own steps for a folder it deletes)."""
    if manager is None:
        return
    for context, folder in list(getattr(manager, "_cached_temp_folders", {}).items()):
        if not os.path.exists(folder):
            tracker.unregister(folder, "folder")
            manager._cached_temp_folders.pop(context, None)
            finalizer = manager._finalizers.pop(context, None)
            if finalizer is not None:
                atexit.unregister(finalizer)


def _clear_frames(exc: BaseException) -> None:
    """Drop the local variables of the finished frames an exception (and the ones it was raised from or during)
    holds on to; its traceback text is unchanged."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__
