"""jobs/ray_cluster.py: a Ray cluster started for a job ends whole with it — on exit, on Ctrl-C, on SIGTERM — and
its folder goes; and it starts only when the user accepts its open ports (the security review: after SIGTERM two
Ray agents, two workers and the tvs-ray-* folder outlived the command line; on a busy machine a test's
ray::PoolActor workers outlived the test)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import processes
from tests.helpers import ROOT, ctrl_c_as_in_a_terminal, run, wait_until
from tvs_core.jobs.backends import RAY_REFUSAL
from tvs_core.jobs.ray_cluster import end_session, session_processes


def test_ending_a_session_ends_every_process_in_it_whatever_its_group():
    """A process tree in a session of its own, one of them in a process group of its own (as a Ray worker may be):
    all gone once the session is ended."""
    tree = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setpgid(0, 0); time.sleep(600)'])\n"
        "print('ready', flush=True)\n"
        "time.sleep(600)\n")], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert select.select([tree.stdout], [], [], 300)[0] and tree.stdout.readline() == b"ready\n"
        assert len(session_processes(tree.pid)) == 3
        end_session(tree.pid)
        tree.wait(timeout=60)
        assert session_processes(tree.pid) == []
    finally:
        if tree.poll() is None:
            os.killpg(tree.pid, signal.SIGKILL)
            tree.wait()


def test_ray_does_not_start_without_the_flag_that_names_its_open_ports(tmp_path, monkeypatch):
    """The command line refuses, in one sentence naming the flag, before anything is read or started."""
    made = run("sweep", "--demo", "clinical", "--levels", "1", "--baselines", "none", "--backend", "ray",
               "--workspace", tmp_path / "ws", "--out", tmp_path / "out")
    assert made.returncode == 2, made.stderr
    assert made.stderr.strip().splitlines() == [f"error: {RAY_REFUSAL}"]
    assert "--accept-open-ports" in RAY_REFUSAL and RAY_REFUSAL.count(". ") == 0  # one sentence, naming the flag
    assert not (tmp_path / "ws").exists() and not (tmp_path / "out").exists()


def _ray_processes(owner: str) -> dict[int, str]:
    return {pid: command for pid, command in processes.owned(owner).items()
            if command.startswith("ray::") or "ray/" in command or "raylet" in command or "gcs_server" in command}


@pytest.fixture
def short_tmp():
    """A temporary folder with a short path: Ray's sockets live under it (a socket's path has at most 107 bytes)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="tvs", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


RAN_ON_RAY = 4  # the first look and the holder run in the command line's process before Ray is joined


def _tasks_done(workspace: Path) -> int:
    """Tasks the sweep in ``workspace`` has stored so far (0 while its store does not exist yet)."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{workspace / 'studio.sqlite'}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT COALESCE(MAX(done), 0) FROM jobs").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow  # a sweep on a Ray cluster in a command line of its own: 14-17 s each
@pytest.mark.parametrize(("ending", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "Ctrl-C"])
def test_nothing_of_a_ray_cluster_outlives_a_sigterm_or_ctrl_c_of_the_command_line(tmp_path, short_tmp, ending, code):
    """A sweep on Ray, terminated (or interrupted from its terminal: Ctrl-C reaches its whole process group) while
    its workers run tasks: the command line says how to resume and leaves no Ray process (servers, agents, workers)
    and no tvs-ray-* folder behind."""
    pytest.importorskip("ray")
    owner = f"ray-sigterm-{os.getpid()}-{time.monotonic_ns()}"
    temporary = short_tmp
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temporary), processes.OWNER: owner}
    sweep = subprocess.Popen([sys.executable, "-m", "tvs_core", "sweep", "--demo", "clinical", "--levels", "1,2",
                              "--baselines", "none", "--backend", "ray", "--accept-open-ports", "--n-jobs", "2",
                              "--workspace", str(tmp_path / "ws"), "--out", str(tmp_path / "out")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        def running_tasks_on_ray() -> bool:
            # while its workers run tasks: Ray's workers are up and two tasks have ended on them (a signal that
            # lands while ray.init and the pool start is another case: test_a_sigterm_while_ray_starts_…)
            assert sweep.poll() is None, sweep.stderr.read().decode()
            return (any(command.startswith("ray::") for command in _ray_processes(owner).values())
                    and _tasks_done(tmp_path / "ws") >= RAN_ON_RAY)

        wait_until(running_tasks_on_ray, "the sweep's tasks running on Ray workers", timeout=900)
        assert list(temporary.glob("tvs-ray-*"))
        if ending == signal.SIGINT:  # a terminal sends Ctrl-C to the foreground group: the command line's own
            os.killpg(sweep.pid, ending)
        else:
            sweep.send_signal(ending)
        said = sweep.communicate(timeout=600)[1].decode()
        assert sweep.returncode == code, said
        assert "interrupted" in said and "Aborted" not in said, said
        left = processes.survivors(owner)
        assert left == {}, f"{len(left)} process(es) outlived the sweep: {processes.describe(left)}"
        assert list(temporary.glob("tvs-ray-*")) == []
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)
            sweep.wait()
        processes.survivors(owner, grace=0)


def test_a_job_on_ray_leaves_no_process_and_no_folder_when_it_ends(short_tmp, monkeypatch):
    """In the test's own process, as tests/jobs/test_sweep.py runs it: once the backend's context is left, no
    process of the cluster is alive and its folder is gone — no grace period needed, however slow the machine."""
    pytest.importorskip("ray")
    import tempfile

    from joblib import Parallel, delayed

    from tvs_core.jobs.backends import backend_context

    monkeypatch.setattr(tempfile, "tempdir", str(short_tmp))
    owner = os.environ[processes.OWNER]
    with backend_context("ray", n_jobs=2):
        ran_on = Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(4))
        started_by = Parallel(n_jobs=2)(delayed(os.getppid)() for _ in range(4))
        # what is checked below is not empty: the tasks ran in processes of the cluster this context started. Its
        # workers may have ended with the call's pool already; the raylet that started them lives as long as the
        # context, and is seen with its cluster (tests/processes.py)
        cluster = _ray_processes(owner)
        assert any("gcs_server" in command for command in cluster.values()), cluster
        raylets = {pid for pid, command in cluster.items() if "raylet" in command}
        assert set(started_by) <= raylets and os.getpid() not in ran_on, (ran_on, started_by, cluster)
        assert list(short_tmp.glob("tvs-ray-*"))
    left = processes.survivors(owner, grace=0)
    assert left == {}, processes.describe(left)
    assert list(short_tmp.glob("tvs-ray-*")) == []


# run in a process of its own: a driver that took a signal while ``ray.init`` ran keeps Ray threads that abort the
# process later (it took an xdist worker down with it, tests later), so the test's process must not be pytest's
SIGTERM_DURING_INIT = """
import os, signal, sys, tempfile
import ray
from tvs_core.jobs.backends import backend_context

class Stopped(Exception):
    pass

def ours(signum, frame):
    raise Stopped

real = ray.init

def started_then_terminated(*args, **kwargs):
    answer = real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)  # Ray's handler is the one in place now
    return answer

tempfile.tempdir = sys.argv[1]
ray.init = started_then_terminated
signal.signal(signal.SIGTERM, ours)
try:
    with backend_context("ray", n_jobs=1):
        print("the job went on after its SIGTERM", flush=True)
except Stopped:
    print("stopped by the job's own handler" if signal.getsignal(signal.SIGTERM) is ours else "handler replaced",
          flush=True)
os._exit(0)
"""


def test_a_sigterm_while_ray_starts_reaches_the_jobs_own_handler(short_tmp):
    """``ray.init`` puts in a SIGTERM handler that exits at once (the review's "Aborted", its processes left): a
    SIGTERM that lands while Ray starts reaches the job's own handler, and the cluster still ends whole."""
    pytest.importorskip("ray")
    done = subprocess.run([sys.executable, "-c", SIGTERM_DURING_INIT, str(short_tmp)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900)
    assert done.stdout.strip().splitlines()[-1:] == ["stopped by the job's own handler"], done.stdout + done.stderr
    left = processes.survivors(os.environ[processes.OWNER], grace=0)
    assert left == {}, processes.describe(left)
    assert list(short_tmp.glob("tvs-ray-*")) == []
