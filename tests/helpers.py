"""Shared by several test modules: a test-only generator (registered once) and the command-line runner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tvs_core.evaluation.protocol import TINY_SIZES
from tvs_core.model.generator import SyntheticGenerator
from tvs_core.model.registry import register

# the evaluation protocol at tiny sizes, shared by the tests that run a sweep: every game played, in seconds. Declared
# in the library, whose TVS_TEST_PROTOCOL=tiny gives the quick preset these sizes (the dashboard's flows run on it)
TINY = dict(TINY_SIZES)
TINY_ONE_ITERATION = {**TINY, "aia_iterations": 1}
# smaller still, for the competitors (a CTGAN or PrivPGD fit per task): sizes their small tables hold
SMALLEST = dict(utility_sets=2, release_sets=2, aia_iterations=1, aia_sets=2, aia_size_raw=100, aia_size_syn=100,
                mia_iterations=1, mia_shadows=2, mia_shadow_sets=2, mia_sets=2, mia_size_attacker=100, mia_size_raw=80,
                mia_size_syn=80)

ROOT = Path(__file__).resolve().parent.parent

# the browser monkey's seed (tests/dashboard/test_monkey.py): one a run, another every day, or the one named here
MONKEY_SEED_ENV = "TVS_MONKEY_SEED"


def monkey_seed() -> int:
    """$TVS_MONKEY_SEED, else today's date as a number (20251128, UTC). The root conftest sets the variable once,
    before pytest-xdist starts its workers, so that every worker collects the same test."""
    import time

    return int(os.environ.get(MONKEY_SEED_ENV) or time.strftime("%Y%m%d", time.gmtime()))


@register
class CopyRows(SyntheticGenerator):
    """Releases its training rows (shuffled, tiled to n): the most unsafe generator there is — every IN set
    holds the target, every pooled release publishes real records."""

    name = "copy_rows_test"

    def _fit_values(self, values: np.ndarray) -> None:
        self.rows_ = np.array(values)

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        return self.rows_[np.resize(rng.permutation(len(self.rows_)), n)]

    def _state(self) -> dict:
        return {"rows": self.rows_.tolist()}

    def _load_state(self, state: dict) -> None:
        self.rows_ = np.asarray(state["rows"])


def run(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    """``python -m tvs_core ARGS`` in a fresh process, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tvs_core", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@register
class FailingFit(SyntheticGenerator):
    """A generator whose fit fails. Registered in the test process only, so a job's worker processes do not know
    it: as a baseline it fails the job inside a worker."""

    name = "failing_fit_test"

    def _fit_values(self, values: np.ndarray) -> None:
        raise RuntimeError("planted failure of a baseline's fit")

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        raise AssertionError("never fitted")


def make_small_table_for_store():
    """A tiny valid table for store tests (the content does not matter)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": rng.normal(size=60), "y": rng.integers(0, 2, 60)})


APP_RUN_CEILING = 900.0  # seconds one AppTest run may take, on a machine loaded several times over
SWEEP_SECONDS = 1800.0  # seconds a sweep of a demo on the tiny protocol may take in its worker, there


def wait_until(condition, what: str, timeout: float = 600.0, every: float = 0.2):
    """Poll ``condition()`` until it returns something true (returned); fail after ``timeout`` seconds, a ceiling
    for a loaded machine, never a budget."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {timeout:.0f} s")
        time.sleep(every)


def dashboard(timeout: float = APP_RUN_CEILING):
    """The app as AppTest runs it, signed in with the workspace's access token ($TVS_WORKSPACE), as the address the
    console prints does. ``timeout`` is a ceiling for each run, never a budget: a run that reaches it hangs."""
    from streamlit.testing.v1 import AppTest

    from tvs_core.storage import Workspace

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params["token"] = Workspace().access_token()
    return at


def shown(markdown: str) -> str:
    """What a reader sees of markdown whose user text the pages escaped (``plain.md``)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown)


class PlantedPickle:
    """A pickle that makes the file ``marker`` when it is read: what another account could plant, or what an earlier
    version kept. Whatever reads the store must leave ``marker`` absent."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def stored_job(store, job_id: str = "job", status: str = "queued", config: dict | None = None, **fields) -> str:
    """A job's row in ``store`` with this status and these fields, for a test that runs nothing."""
    store.create_job(job_id, "fingerprint", {"response": "y"} if config is None else config)
    store.update_job(job_id, status=status, **fields)
    return job_id


def ctrl_c_as_in_a_terminal() -> None:
    """``preexec_fn`` of a process a test signals as a terminal would: with Ctrl-C's default. An xdist worker, a test
    run started in the background (``cmd &``) or a worker that left its interrupts to its parent ignores SIGINT, a
    child inherits that, and Python then installs no KeyboardInterrupt handler: the child would never see the Ctrl-C
    the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
