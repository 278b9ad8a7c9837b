"""A Dask cluster on this machine that only its owner can use (imported only when the Dask backend is chosen).

Every account on a shared server can reach 127.0.0.1, and Dask's scheduler runs whatever function a connected
client submits, as the account that started it. So every connection (client, scheduler, nanny, worker) is TLS with
a key pair made for this cluster alone and held only in its processes' memory: a peer without that key is turned
away during the handshake, before it can send anything. Dask always serves a web page per scheduler and worker
(the dashboard, metrics, health), which nothing here needs and anyone could read: those servers are never started.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile

import cryptography  # noqa: F401  (Security.temporary's key pair; missing, the backend is refused with the others)
from distributed import Nanny, Scheduler, SpecCluster, Worker
from distributed.security import Security
from distributed.worker_memory import parse_memory_limit

HOST = "127.0.0.1"
PROTOCOL = "tls://"
LOGGER = logging.getLogger(__name__)


class _NoWebServer:
    """Dask's ``ServerNode.start_http_server`` listens on a TCP port whatever the dashboard settings (the scheduler
    on 8787 even with ``dashboard_address=None``); here it makes nothing, so these nodes listen only through
    their TLS comms."""

    def start_http_server(self, routes, dashboard_address, default_port=0, ssl_options=None) -> None:
        return None


class PrivateScheduler(_NoWebServer, Scheduler):
    """The scheduler without its web server."""


class PrivateWorker(_NoWebServer, Worker):
    """A worker without its web server (made by the nanny in its own process, so importable by name)."""


class PrivateCluster(SpecCluster):
    """``LocalCluster``'s layout (one nanny and one single-threaded worker process per job, its memory share)
    with TLS on every connection, bound to 127.0.0.1, no web server, and the scheduler's and workers' scratch
    folders in a folder of its own (0700) instead of the shared ``/tmp/dask-scratch-space``, whose owner could swap
    a worker's folder (it is on the worker's import path)."""

    def __init__(self, n_workers: int):
        self.security = Security.temporary()
        self.scratch = tempfile.mkdtemp(prefix="tvs-dask-")  # 0700
        try:
            common = dict(host=HOST, protocol=PROTOCOL, security=self.security, dashboard=False,
                          dashboard_address=None, local_directory=self.scratch)
            scheduler = {"cls": PrivateScheduler, "options": {**common, "port": 0}}
            worker = {"cls": Nanny, "options": {
                **common, "worker_class": PrivateWorker, "nthreads": 1, "silence_logs": logging.WARN,
                "memory_limit": parse_memory_limit("auto", 1, n_workers, logger=LOGGER)}}
            super().__init__(scheduler=scheduler, workers=dict.fromkeys(range(n_workers), worker), worker=worker,
                             security=self.security, silence_logs=logging.WARN)
        except BaseException:
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise

    def close(self, *args, **kwargs):
        """Also removes the scratch folder (what a worker spilled to disk)."""
        try:
            return super().close(*args, **kwargs)
        finally:
            if os.path.isdir(self.scratch):
                shutil.rmtree(self.scratch, ignore_errors=True)
