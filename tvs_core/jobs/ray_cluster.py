"""A Ray cluster on this machine that ends with the job (imported only when the Ray backend is chosen).

``ray.init()`` in the job's own process starts Ray's servers as its children, and they start agents and workers of
their own; after a SIGTERM of the command line, two agents, two workers and the session folder outlived it (the
agents died only with SIGKILL), and on a busy machine a test's two ``ray::PoolActor`` workers were still alive when
the test ended. So the cluster is started by a small process of its own, in a new session (``RayHead``): every
process Ray starts — its servers, their agents, the workers — belongs to that session, and ending the cluster ends
every process of the session, then waits until none is left. The job joins the cluster as a second driver. Should
the job's process die without its clean-up (SIGKILL), the head sees its input close and leaves, and Ray's servers,
bound to their parent, leave with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..errors import TVSError

STARTED = 600.0  # seconds the cluster may take to start on a loaded machine
ENDED = 300.0  # seconds its processes may take to be gone once killed
# the head: a local cluster on 127.0.0.1 (Ray's own start, without its dashboard), its address on standard output,
# then nothing until its input closes
_HEAD = """
import sys
import ray
ray.init(num_cpus=int(sys.argv[1]), include_dashboard=False, log_to_driver=False, _temp_dir=sys.argv[2],
         _node_ip_address="127.0.0.1")
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()
"""


class RayHead:
    """``with RayHead(temp_dir, n_cpus) as head: ray.init(address=head.address)``; on leaving, every process of the
    cluster's session is gone."""

    def __init__(self, temp_dir: str, n_cpus: int):
        self.temp_dir, self.n_cpus = temp_dir, n_cpus
        self.process: subprocess.Popen | None = None
        self.address = ""

    def __enter__(self) -> RayHead:
        self.log = Path(self.temp_dir).parent / "head.log"  # in the cluster's private folder, removed with it
        with open(self.log, "ab", opener=lambda path, flags: os.open(path, flags, 0o600)) as log:
            self.process = subprocess.Popen([sys.executable, "-c", _HEAD, str(self.n_cpus), self.temp_dir],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                            start_new_session=True)
        try:
            self.address = self._address()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _address(self) -> str:
        """The head's first line, once its cluster runs (the wait is on that line, bounded by ``STARTED``)."""
        import selectors

        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout=STARTED):
                raise TVSError(f"The Ray cluster did not start within {STARTED:.0f} s.")
        line = self.process.stdout.readline().decode().strip()
        if not line:
            self.process.wait()
            said = self.log.read_text(errors="replace").strip().splitlines()
            raise TVSError(f"The Ray cluster did not start: {said[-1] if said else 'no message'}.")
        return line

    def stop(self) -> None:
        """End every process of the cluster's session, wait until none is left, and reap the head."""
        if self.process is None:
            return
        end_session(self.process.pid)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.process.wait()
        self.process = None


def end_session(session: int, within: float = ENDED) -> None:
    """SIGKILL every process of ``session`` until none is left (a zombie is gone: only its parent's wait is
    missing); checked again while waiting, since a dying server may have started one more."""
    deadline = time.monotonic() + within
    while True:
        alive = session_processes(session)
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise TVSError(f"{len(alive)} process(es) of the Ray cluster could not be ended: {sorted(alive)}.")
        time.sleep(0.1)


def session_processes(session: int) -> list[int]:
    """The live processes (zombies excluded) whose session is ``session``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == session:
            found.append(int(entry.name))
    return found
