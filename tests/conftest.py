"""Small shared tables for the data-path tests (80-300 rows, so the suite stays fast)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests import processes
from tests.helpers import MONKEY_SEED_ENV, TINY, monkey_seed

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

# -- another realisation of the demos: TVS_TEST_DATA_SEED=K runs the suite on the clinical demo drawn from seed
# 2025 + K and on the breast-cancer rows in a shuffled order (so another hold-out split), to show that a test's
# statistical assertions hold for any realisation, not just the shipped one. CI runs K = 0 (the shipped demos);
# tests pinned to the shipped bytes are marked ``shipped_demos`` and skipped for K != 0.
DATA_SEED = int(os.environ.get("TVS_TEST_DATA_SEED", "0"))


def _realise_demos(seed: int) -> None:
    from dataclasses import replace

    from tvs_core.data import demo

    demo.DEMOS["clinical"] = replace(demo.DEMOS["clinical"],
                                     loader=lambda: demo.simulated_clinical(seed=2025 + seed))
    shuffled = np.random.default_rng(seed).permutation
    demo.DEMOS["breast_cancer"] = replace(demo.DEMOS["breast_cancer"], loader=lambda: (
        lambda t: t.iloc[shuffled(len(t))].reset_index(drop=True))(demo.breast_cancer()))


if DATA_SEED:
    _realise_demos(DATA_SEED)


def pytest_configure(config):
    """One browser-monkey seed for the whole run, fixed here, in the process that starts pytest-xdist's workers."""
    os.environ[MONKEY_SEED_ENV] = str(monkey_seed())


def pytest_terminal_summary(terminalreporter):
    """Say which seed the browser monkey ran with, so that any run of it can be replayed."""
    reports = [r for kind in ("passed", "failed", "error") for r in terminalreporter.stats.get(kind, [])]
    if any("test_monkey.py" in getattr(r, "nodeid", "") for r in reports):
        seed = os.environ[MONKEY_SEED_ENV]
        terminalreporter.write_line(f"browser monkey: seed {seed} (replay: {MONKEY_SEED_ENV}={seed} pytest "
                                    "tests/dashboard/test_monkey.py)")


# -- the longest tests start first. pytest-xdist (--dist loadgroup) hands out the groups of several tests first,
# then single tests in the order collected: a long test collected late (tests/test_machines.py, the wide demo's
# report) started last and kept one worker busy for minutes after the other had finished. Started first, the two
# workers end together on short tests. By the slowest durations of a whole run (--durations), longest first; a
# name that no longer matches only loses its place. Order only: every test runs, each on its own fixtures.
LONGEST_FIRST = (
    "tests/test_machines.py::test_one_test_per_blas_path_passes_under_the_other_blas_kernels",
    "tests/dashboard/test_e2e_browser.py::test_demo_flow_in_chromium",
    "tests/test_report.py::test_the_default_report_of_the_wide_demo_prints_on_at_most_15_a4_pages",
    "tests/dashboard/test_monkey.py::",
    "tests/dashboard/test_e2e_record.py::",
    "tests/dashboard/test_e2e_state.py::test_reload_mid_sweep_then_restart_and_reopen_from_the_project_list",
    "tests/dashboard/test_wide_demo.py::test_the_wide_demo_shows_every_levels_first_numbers",
    "tests/dashboard/test_wide_demo.py::test_the_wide_demo_goes_through_every_page",
    "tests/jobs/test_engine.py::test_golden_numbers_are_unchanged[sweep_clinical_small]",
    "tests/jobs/test_backends.py::test_a_sweep_on_a_dask_cluster_of_four_workers",
    "tests/test_machines.py::",
    "tests/jobs/test_engine.py::test_golden_numbers_are_unchanged[evaluate_clinical_small]",
    "tests/dashboard/test_e2e_state.py::",
    "tests/dashboard/test_record.py::test_start_says_how_many_tasks_the_progress_will_count",
    "tests/jobs/test_engine.py::test_golden_numbers_are_unchanged[",
)


def _longest_first(item) -> int:
    return next((rank for rank, start in enumerate(LONGEST_FIRST) if item.nodeid.startswith(start)),
                len(LONGEST_FIRST))


@pytest.hookimpl(trylast=True)  # after pytest's own ordering by parametrized fixtures, which it keeps
def pytest_collection_modifyitems(config, items):
    if DATA_SEED:
        skip = pytest.mark.skip(reason=f"pinned to the shipped demos (TVS_TEST_DATA_SEED={DATA_SEED})")
        for item in items:
            if "shipped_demos" in item.keywords:
                item.add_marker(skip)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the same order on every worker: xdist checks that it is
        items.sort(key=_longest_first)  # stable: the rest keep their order


WORDS = ["the", "patient", "was", "seen", "by", "a", "doctor", "today", "and", "felt", "better",
         "after", "rest", "with", "mild", "pain", "in", "left", "knee"]


def sentences(rng: np.random.Generator, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS, rng.integers(5, 10))) for _ in range(n)]


def make_small_table(n: int = 100, seed: int = 0) -> pd.DataFrame:
    """A valid table: two continuous columns, a binary and a nominal string column, a 0/1 response."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({
        "age": np.round(50 + 10 * rng.normal(size=n), 1),
        "income": np.round(3000 + 500 * x + 100 * rng.normal(size=n), 2),
        "sex": rng.choice(["f", "m"], n),
        "color": rng.choice(["red", "green", "blue"], n),
        "y": (x + rng.normal(size=n) > 0).astype("int64"),
    })


def make_mixed_table(n: int = 200, seed: int = 1) -> pd.DataFrame:
    """One column of every type the library knows, plus a binary int response."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    day0 = pd.Timestamp("2020-01-01")
    return pd.DataFrame({
        "weight": np.round(70 + 12 * x, 2),
        "visits": rng.poisson(2, n).astype("int64"),
        "salary": rng.integers(20_000, 90_000, n).astype("int64"),
        "stage": pd.Categorical(rng.choice(["low", "mid", "high"], n),
                                categories=["low", "mid", "high", "critical"], ordered=True),
        "colour": rng.choice(["red", "green", "blue", "pink"], n),
        "ward": pd.Categorical(rng.choice(["A", "B", "C"], n), categories=["C", "A", "B"]),
        "smoker": rng.integers(0, 2, n).astype(bool),
        "insured": rng.choice(["yes", "no"], n),
        "admitted": day0 + pd.to_timedelta(rng.integers(0, 800, n), unit="D"),
        "measured_at": day0 + pd.to_timedelta(rng.integers(0, 800 * 86_400, n), unit="s"),
        "patient_code": [f"P{i:05d}" for i in rng.permutation(n) + 17],
        "row_number": np.arange(1, n + 1, dtype="int64"),
        "notes": sentences(rng, n),
        "site": ["Berlin"] * n,
        "outcome": (x + rng.normal(size=n) > 0).astype("int64"),
    })


@pytest.fixture
def small_table() -> pd.DataFrame:
    return make_small_table()


@pytest.fixture
def mixed_table() -> pd.DataFrame:
    return make_mixed_table()


# -- a small stored sweep, shared by the tests of what reads one (the report, the ledger) --------------------------
SWEEP_RESPONSE = "in_hospital_death"
SWEEP_COLUMNS = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", SWEEP_RESPONSE]
TINY_PROTOCOL = TINY


@pytest.fixture(scope="session")
def stored_sweep(tmp_path_factory):
    """(store, job id, table): 300 rows of the clinical demo, levels 1-3, the independent and a DP baseline,
    every game at tiny sizes, run to the end in a workspace of its own (about 7 s on one core). Tests that
    record releases use a workspace of their own, so the ledger of this one stays empty."""
    from tvs_core import load_demo
    from tvs_core.jobs import SweepConfig, submit
    from tvs_core.jobs.worker import run_job
    from tvs_core.storage.store import Store

    table = load_demo("clinical")[SWEEP_COLUMNS].head(300)
    store = Store(tmp_path_factory.mktemp("stored-sweep"))
    config = SweepConfig(response=SWEEP_RESPONSE, sensitive=["total_cost_eur"], levels=[1, 2, 3],
                         baselines=["independent", "dp_vine:1"], protocol_overrides=TINY_PROTOCOL)
    job_id = submit(store, table, config)
    assert run_job(store, job_id, n_jobs=2) == "done"
    return store, job_id, table


# -- no process outlives the test (or the shared fixture) that started it: tests/processes.py --------------------
SHARED_OWNERS: set[str] = set()


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A fixture shared beyond one test owns the processes it starts until the session ends."""
    if fixturedef.scope == "function":
        yield
        return
    previous = os.environ.get(processes.OWNER)
    owner = f"fixture:{os.getpid()}:{fixturedef.argname}"
    SHARED_OWNERS.add(owner)
    os.environ[processes.OWNER] = owner
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(processes.OWNER, None)
        else:
            os.environ[processes.OWNER] = previous


@pytest.fixture(autouse=True)
def no_process_outlives_its_test(request):
    owner = f"test:{os.getpid()}:{request.node.nodeid}"
    os.environ[processes.OWNER] = owner
    yield
    os.environ.pop(processes.OWNER, None)
    alive = processes.survivors(owner)
    if alive:
        pytest.fail(f"{len(alive)} process(es) started by this test outlived it (killed now): "
                    f"{processes.describe(alive)}", pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    """By now every shared fixture was torn down: none of their processes may be left."""
    alive = {}
    for owner in SHARED_OWNERS:
        alive |= processes.survivors(owner)
    if alive:
        sys.stderr.write(f"\nprocesses started by shared fixtures outlived the session (killed now): "
                         f"{processes.describe(alive)}\n")
        exitstatus = session.exitstatus = pytest.ExitCode.TESTS_FAILED
    session.config._tvs_exit_status = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Leave without the interpreter's teardown, as ``python -m tvs_core`` does: objects the engine's and
    Streamlit's threads still reach make nanobind (pyvinecopulib's bindings) print pages of "leaked instance"
    warnings at exit, after the summary — harmless (the memory goes with the process), and no setting of nanobind
    silences them. By now every report is written; the exit status is pytest's own. A pytest-xdist worker still
    sends its last words to the controller after this, so it exits normally, its teardown's output going to
    test-artifacts/xdist-<worker>-exit.log instead of the run's log."""
    status = getattr(config, "_tvs_exit_status", None)
    if hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        exit_log = os.open(ARTIFACTS / f"xdist-{config.workerinput['workerid']}-exit.log",
                           os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(exit_log, 2)
        os.close(exit_log)
    elif status is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


@pytest.fixture(autouse=True)
def workspace_of_its_own(tmp_path_factory, monkeypatch):
    """No test touches the user's workspace (~/.tvinesynth-studio): each gets a fresh one unless it sets its own,
    and so does every process it starts (the environment is inherited)."""
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path_factory.mktemp("workspace") / "space"))
