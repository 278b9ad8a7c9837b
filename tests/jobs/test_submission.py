"""tvs_core/jobs/submission.py: a sweep entering the store (its id, its data kept, refusals before any job exists) and
the decision of ``start_or_follow`` on stored states written by hand. No worker is started: a live worker is this
test process, recorded as the job's."""

import os

import pytest

from tests.conftest import make_small_table
from tvs_core.data.fingerprint import fingerprint_table
from tvs_core.errors import DataError, DataErrors
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.process import process_start_time
from tvs_core.jobs.submission import (
    Next,
    Started,
    check_data,
    data_fingerprint,
    job_externals,
    job_id_of,
    job_tables,
    resume_sweep,
    run_sweep,
    start_or_follow,
    start_problems,
    submit,
    with_externals,
)


def config(**changes):
    return SweepConfig(**{"response": "y", "sensitive": ["income"], "baselines": ["independent"], **changes})


@pytest.fixture
def holdout():
    return make_small_table(n=40, seed=3)


@pytest.fixture
def external():
    return make_small_table(n=50, seed=9)


# -- identity ------------------------------------------------------------------------------------------------------
def test_the_data_fingerprint_covers_the_hold_out_file():
    table = fingerprint_table(make_small_table())
    alone = data_fingerprint(table, None)
    assert alone == data_fingerprint(table, None) and len(alone) == 64
    assert alone != table  # never mistaken for the table's own (the ledger's key)
    assert data_fingerprint(table, fingerprint_table(make_small_table(n=40, seed=3))) != alone


def test_the_id_known_before_submitting_is_the_id_the_job_gets(store, small_table, holdout, external):
    assert submit(store, small_table, config()) == job_id_of(small_table, config())
    assert (submit(store, small_table, config(), holdout, {"mine": external})
            == job_id_of(small_table, config(), holdout, {"mine": external}))


def test_other_data_or_settings_are_another_job(small_table, holdout, external):
    ids = {job_id_of(small_table, config()), job_id_of(small_table, config(seed=1)),
           job_id_of(make_small_table(seed=4), config()), job_id_of(small_table, config(), holdout),
           job_id_of(small_table, config(), externals={"mine": external})}
    assert len(ids) == 5


def test_the_same_sweep_submitted_twice_is_one_job(store, small_table):
    assert submit(store, small_table, config()) == submit(store, small_table.copy(), config())
    assert len(store.jobs()) == 1


# -- the data kept -------------------------------------------------------------------------------------------------
def test_the_data_is_read_back_as_submitted(store, small_table, holdout):
    job = store.job(submit(store, small_table, config(), holdout))
    table, kept = job_tables(store, job)
    assert table.equals(small_table) and kept.equals(holdout)
    job = store.job(submit(store, small_table, config()))
    assert job_tables(store, job)[1] is None  # no hold-out file: none is made up


def test_a_job_whose_data_left_the_workspace_says_to_start_again(store, small_table):
    job = store.job(submit(store, small_table, config()))
    store.space._table_path(job.fingerprint, "table").unlink()
    with pytest.raises(DataError, match="no longer in the workspace") as raised:
        job_tables(store, job)
    assert "Start the sweep again" in raised.value.fix


def test_external_sets_are_kept_by_name_and_refused_once_gone(store, small_table, external):
    job = store.job(submit(store, small_table, config(), externals={"mine": external}))
    sweep = SweepConfig.from_dict(job.config)
    assert list(job_externals(store, sweep)) == ["mine"]
    assert job_externals(store, sweep)["mine"][list(small_table.columns)].equals(external)
    store.space._table_path(sweep.externals["mine"], "external").unlink()
    with pytest.raises(DataError, match="'mine' is no longer in the workspace"):
        job_externals(store, sweep)
    assert job_externals(store, config()) == {}


# -- refusals before any job exists --------------------------------------------------------------------------------
@pytest.mark.parametrize(("changes", "words"), [({"response": "nope"}, "'nope' is not in the table"),
                                                ({"sensitive": ["nope"]}, "'nope' is not in the table")])
def test_settings_that_do_not_fit_the_table_are_refused_before_any_job(store, small_table, changes, words):
    with pytest.raises(DataError, match=words):
        submit(store, small_table, config(**changes))
    assert store.jobs() == []


@pytest.mark.parametrize(("change", "words"), [
    (lambda h: h.head(5), "at least 20"),
    (lambda h: h.drop(columns="age"), "lacks column 'age'"),
    (lambda h: h.assign(age="x"), "In the hold-out file: Column 'age'"),
    (lambda h: h.assign(income=float("nan")), "In the hold-out file: Column 'income' has no values"),
])
def test_a_hold_out_file_that_cannot_be_used_is_refused_naming_the_problem(store, small_table, holdout, change,
                                                                           words):
    with pytest.raises(DataError, match=words):
        submit(store, small_table, config(), change(holdout.copy()))
    assert store.jobs() == []


def test_every_problem_of_a_hold_out_file_is_named_at_once(small_table, holdout):
    with pytest.raises(DataErrors) as raised:
        check_data(small_table, config(), holdout.assign(age="x", income=float("nan")))
    assert len(raised.value.problems) == 2
    assert all(str(problem).startswith("In the hold-out file: ") for problem in raised.value.problems)


def test_a_hold_out_category_the_data_lacks_is_refused_naming_it_and_its_rows(small_table, holdout):
    """The models and the utility tests know only the data's categories: the sweep would stop later on a bare
    error (found by a module test of jobs.submission), so Start refuses it now."""
    unseen = holdout.copy()
    unseen.loc[[0, 3], "color"] = "purple"
    with pytest.raises(DataError) as raised:
        check_data(small_table, config(), unseen)
    assert raised.value.column == "color"
    assert "'purple'" in str(raised.value) and "rows 2, 5" in str(raised.value)
    assert "'blue', 'green', 'red'" in str(raised.value)  # the categories to use
    with_gaps = holdout.copy()
    with_gaps.loc[[1, 2], "color"] = None
    check_data(small_table, config(), with_gaps)  # the data's own categories and missing cells pass


# -- external sets -------------------------------------------------------------------------------------------------
def test_without_external_sets_the_settings_are_unchanged(small_table):
    assert with_externals(config(), small_table, None, None) == (config(), {})
    assert with_externals(config(), small_table, None, {}) == (config(), {})


def test_an_external_set_is_named_in_the_settings_by_the_fingerprint_of_its_rows(small_table, external):
    sweep, checked = with_externals(config(), small_table, None, {"mine": external})
    assert sweep.externals == {"mine": fingerprint_table(checked["mine"])}
    assert config().externals is None  # the settings given are not changed


@pytest.mark.parametrize("name", ["tvinesynth", "independent", "a b"])
def test_an_external_set_may_not_take_a_models_name_or_odd_characters(store, small_table, external, name):
    with pytest.raises(DataError, match="cannot name an external set"):
        submit(store, small_table, config(), externals={name: external})
    assert store.jobs() == []


def test_an_external_set_without_a_training_column_is_refused_before_any_job(store, small_table, external):
    with pytest.raises(DataError, match="'mine' lacks column 'age'"):
        submit(store, small_table, config(), externals={"mine": external.drop(columns="age")})
    assert store.jobs() == []


# -- start_or_follow -----------------------------------------------------------------------------------------------
def job_in_state(store, table, status, tasks=(), worker="none"):
    job_id = submit(store, table, config())
    pid = {"none": None, "alive": os.getpid(), "reused": os.getpid()}[worker]
    started = process_start_time(os.getpid()) if worker == "alive" else -1.0  # a reused pid: another start time
    store.update_job(job_id, status=status, pid=pid, pid_started=started)
    for task in tasks:
        store.add_result(job_id, task, task.split(":")[0], [], 1.0)
    return job_id


@pytest.mark.parametrize(("status", "worker", "tasks", "expected"), [
    ("done", "none", ["reference"], (Next.NOTHING, False)),
    ("queued", "none", [], (Next.RUN, False)),  # submitted, never started
    ("running", "alive", ["reference"], (Next.FOLLOW, False)),  # one worker per job
    ("running", "reused", ["reference"], (Next.RUN, True)),  # its worker died, its pid was given to another process
    ("interrupted", "none", ["reference", "release:1:0-10"], (Next.RUN, True)),
    ("failed", "alive", ["reference"], (Next.RUN, True)),  # a failed job's process is no worker of it any more
    ("cancelled", "none", [], (Next.RUN, False)),
])
def test_start_answers_follows_or_runs_by_the_stored_state(store, small_table, status, worker, tasks, expected):
    job_id = job_in_state(store, small_table, status, tasks, worker)
    assert start_or_follow(store, small_table, config()) == Started(job_id, *expected)
    assert len(store.jobs()) == 1


def test_start_of_new_settings_is_a_new_job_to_run(store, small_table):
    done = job_in_state(store, small_table, "done", ["reference"])
    started = start_or_follow(store, small_table, config(seed=3))
    assert started.job_id != done and started == Started(started.job_id, Next.RUN, False)


# -- run_sweep and resume_sweep: the one way the command line, Start and Resume run a sweep ------------------------
@pytest.mark.parametrize(("status", "worker", "runs"), [
    ("done", "none", False), ("queued", "none", True), ("running", "alive", False), ("interrupted", "none", True),
])
def test_a_sweep_is_handed_to_the_runner_only_when_it_needs_running(store, small_table, status, worker, runs):
    job_id = job_in_state(store, small_table, status, ["reference"], worker)
    ran = []
    started, answer = run_sweep(store, small_table, config(), lambda s, j: ran.append(j) or "ran")
    assert started.job_id == job_id and ran == ([job_id] if runs else [])
    assert answer == ("ran" if runs else None)


@pytest.mark.parametrize(("status", "worker", "words"), [
    ("done", "none", "has finished"), ("running", "alive", "is running already"),
])
def test_resume_refuses_a_finished_or_running_sweep_in_words(store, small_table, status, worker, words):
    job_id = job_in_state(store, small_table, status, ["reference"], worker)
    ran = []
    with pytest.raises(DataError, match=words):
        resume_sweep(store, job_id, lambda s, j: ran.append(j))
    assert ran == []


def test_resume_hands_a_stopped_sweep_to_the_runner(store, small_table):
    job_id = job_in_state(store, small_table, "cancelled", ["reference"])
    ran = []
    resume_sweep(store, job_id, lambda s, j: ran.append(j))
    assert ran == [job_id]


# -- start_problems: what the pages say before Start is offered ---------------------------------------------------
def test_a_table_that_can_be_modelled_has_no_problems_and_a_bad_hold_out_file_is_named(small_table):
    from tvs_core.data.schema import infer_schema

    schema = infer_schema(small_table).with_roles("y", ["income"])
    assert start_problems(small_table, schema) == []
    problems = start_problems(small_table, schema, holdout=small_table.drop(columns="income").head(60))
    assert problems and any("income" in p for p in problems)
