"""tvs_core/jobs/view.py: a stored job as the pages and the command line read it, over jobs submitted to a store in
tmp_path (no worker started), their results and holder written by hand."""

import json

import pandas as pd
import pytest

from tvs_core.data.fingerprint import fingerprint_table
from tvs_core.errors import TVSError
from tvs_core.evaluation.records import HOLDER, RecordRole, record
from tvs_core.jobs import JobView, SweepConfig, submit
from tvs_core.jobs.context import fit_holder
from tvs_core.jobs.progress import progress
from tvs_core.model.families import DEFAULT_FAMILY_SET, FamilySet
from tvs_core.model.ordering import default_levels
from tvs_core.storage import Store

RECORD_COLUMNS = ["age", "income", "sex", "color", "y"]


def config(**changes):
    return SweepConfig(**{"response": "y", "sensitive": ["income"], "baselines": ["independent"], **changes})


@pytest.fixture
def view(tmp_path, small_table):
    store = Store(tmp_path)
    return JobView(store, submit(store, small_table, config(levels=[3, 1])))


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A submitted job (every level Algorithm 1 advises) whose holder was fitted and stored by hand."""
    from tests.conftest import make_small_table

    store = Store(tmp_path_factory.mktemp("fitted"))
    view = JobView(store, submit(store, make_small_table(), config()))
    holder = fit_holder(view.config, view.tables()[0])
    store.save_model(view.id, HOLDER, holder.to_json())
    return view


def test_a_job_the_store_does_not_hold_is_refused_by_its_id(tmp_path):
    with pytest.raises(TVSError, match="No job 'nope'"):
        JobView(Store(tmp_path), "nope")


def test_the_settings_read_back_are_those_submitted(view):
    assert view.config == config(levels=[3, 1])
    assert view.progress() == progress(view.store, view.id)


def test_a_job_is_active_while_queued_or_running_only(view):
    assert view.active  # submitted: queued
    for status, active in (("running", True), ("interrupted", False), ("failed", False), ("done", False)):
        view.store.update_job(view.id, status=status)
        assert view.active is active


# -- levels and caps -----------------------------------------------------------------------------------------------
def test_before_it_is_planned_a_jobs_levels_are_its_settings_sorted(view):
    assert view.levels == [1, 3]
    assert view.caps == []


def test_once_planned_the_levels_and_caps_are_those_stored_with_the_plan(view):
    caps = [{"field": "aia_size_raw", "wanted": 500, "used": 70}]
    view.store.update_job(view.id, details=json.dumps({"levels": [1, None, 2, 5], "caps": caps}))
    assert view.levels == [1, 2, 5]  # every level planned (a missing one skipped), whatever the settings say
    assert view.caps == caps


def test_without_levels_set_or_a_holder_a_job_has_no_level_yet(tmp_path, small_table):
    store = Store(tmp_path)
    assert JobView(store, submit(store, small_table, config())).levels == []


def test_without_levels_set_the_holders_fit_gives_the_default_levels(fitted):
    holder = fitted.holder()
    assert holder is not None and fitted.levels == default_levels(holder.fitted_level_)
    assert fitted.levels[0] == 1


def test_a_stored_jobs_holder_and_settings_read_back_typed_from_the_text_stored(fitted):
    """The store holds a family set as its text (as every version wrote it); a job read back holds the member."""
    stored = json.loads(fitted.store.model_json(fitted.id, HOLDER))
    assert stored["config"]["families"] == str(DEFAULT_FAMILY_SET)
    assert type(fitted.holder().families) is FamilySet and fitted.holder().families is DEFAULT_FAMILY_SET
    assert fitted.config.families is DEFAULT_FAMILY_SET


# -- the data -----------------------------------------------------------------------------------------------------
def test_the_split_gives_back_every_row_of_the_table_once(view, small_table):
    train, test = view.tables()
    assert len(train) + len(test) == len(small_table)
    assert len(test) == 20  # a 20 % hold-out
    both = pd.concat([train, test]).sort_values(RECORD_COLUMNS).reset_index(drop=True)
    assert both.equals(small_table.sort_values(RECORD_COLUMNS).reset_index(drop=True))
    again = view.tables()
    assert again[0].equals(train) and again[1].equals(test)  # the same split every time it is read


def test_the_table_fingerprint_is_the_tables_alone_the_ledgers_key(view, small_table):
    assert view.table_fingerprint == fingerprint_table(small_table)
    assert view.fingerprint != view.table_fingerprint  # the job's covers a hold-out file too (here: none)


def test_the_settings_record_names_a_random_split(view):
    record = view.settings_record()
    assert not view.holdout_file
    assert record["holdout"] == "a random, stratified 20 % of the table (20 rows), never seen by any model"
    assert record["holdout_fraction"] == 0.2


@pytest.mark.parametrize("sizes", ["", "tiny"])
def test_the_settings_record_holds_the_game_sizes_the_sweep_ran_with(sizes, tmp_path, small_table, monkeypatch):
    """What the worker stores with its plan (the context's details) is what the record says was played: the quick
    preset's sizes capped by the table, or under the test suite's TVS_TEST_PROTOCOL=tiny the tiny ones, named so."""
    from tvs_core.evaluation.protocol import QUICK, TEST_PROTOCOL_ENV, TINY_QUICK_NAME, TINY_SIZES, capped, get_protocol
    from tvs_core.jobs.context import context_for_job

    monkeypatch.setenv(TEST_PROTOCOL_ENV, sizes)
    store = Store(tmp_path)
    view = JobView(store, submit(store, small_table, config(levels=[1])))
    assert "protocol" not in view.settings_record()  # not planned yet: nothing played
    train, _ = view.tables()
    context = context_for_job(view.config, small_table, None, fit_holder(view.config, train), {})
    store.update_job(view.id, details=json.dumps(context.details()))  # as the worker does with its plan
    played = JobView(store, view.id).settings_record()["protocol"]
    pool = len(train) - len({target.row for target in context.targets})
    assert played == json.loads(json.dumps(capped(get_protocol("quick"), pool)[0].to_dict()))
    assert (played["name"] == TINY_QUICK_NAME) is bool(sizes)
    assert played["utility_sets"] == (TINY_SIZES if sizes else QUICK.to_dict())["utility_sets"]


def test_with_a_hold_out_file_the_split_is_the_file_and_the_record_says_so(tmp_path, small_table):
    from tests.conftest import make_small_table

    store = Store(tmp_path)
    holdout = make_small_table(n=30, seed=5)
    view = JobView(store, submit(store, small_table, config(), holdout=holdout))
    train, test = view.tables()
    assert view.holdout_file
    assert len(train) == len(small_table) and test.reset_index(drop=True).equals(holdout)
    record = view.settings_record()
    assert "holdout_fraction" not in record  # a fraction the sweep never used is not recorded
    assert record["holdout"] == "the user's own hold-out file (30 rows); no random split"
    assert record["holdout_file"] == {"file": None, "rows": 30, "sha256": None}  # started without its origin
    assert view.table_fingerprint == fingerprint_table(small_table)


def test_the_hold_out_files_name_and_sha256_given_at_start_are_recorded(tmp_path, small_table):
    """Finding 7: the Data page showed the hold-out file's name; the manifest and the report did not. Its origin is
    kept beside the data (not in the job's identity: the same rows under another name are the same sweep)."""
    from tests.conftest import make_small_table

    store = Store(tmp_path)
    holdout = make_small_table(n=30, seed=5)
    origin = {"file": "ward7_holdout.csv", "sha256": "ab" * 32}
    job_id = submit(store, small_table, config(), holdout=holdout, holdout_origin=origin)
    assert job_id == submit(store, small_table, config(), holdout=holdout)  # the same sweep
    view = JobView(store, job_id)
    assert view.holdout_origin() == {"file": "ward7_holdout.csv", "rows": 30, "sha256": "ab" * 32}
    record = view.settings_record()
    assert record["holdout_file"] == view.holdout_origin()
    assert record["holdout"] == (f"the user's own hold-out file (30 rows), named ward7_holdout.csv, SHA-256 {'ab' * 32}"
                                 "; no random split")


# -- records and notes ---------------------------------------------------------------------------------------------
def add(view, task, records):
    view.store.add_result(view.id, task, task.split(":")[0], [r.stored() for r in records], 1.0)


def test_records_of_every_result_in_one_canonical_frame(view):
    add(view, "release:3:0-10", [record(HOLDER, 3, "release_mab", 0.4)])
    add(view, "release:1:0-10", [record(HOLDER, 1, "release_mab", 0.2), record(HOLDER, 1, "auc_tstr", 0.7)])
    records = view.records()
    assert len(records) == 3
    assert list(records["level"]) == [1, 1, 3]  # sorted, not in the order the results were stored
    assert str(records["level"].dtype) == "Int64"


def test_the_first_look_stands_in_only_on_the_live_scatter_until_its_level_reports(view):
    add(view, "first_look:1", [record(HOLDER, 1, "release_mab", 0.9, role=RecordRole.FIRST_LOOK)])
    add(view, "first_look:3", [record(HOLDER, 3, "release_mab", 0.8, role=RecordRole.FIRST_LOOK)])
    add(view, "release:1:0-10", [record(HOLDER, 1, "release_mab", 0.2)])
    assert RecordRole.FIRST_LOOK not in set(view.records()["role"])  # never for a summary, a choice or an export
    live = view.records(first_look=True)
    assert set(zip(live["level"], live["role"], strict=True)) == {(1, "release"), (3, RecordRole.FIRST_LOOK)}
    assert view.summary().frame["n"].sum() == 1
    assert view.summary(first_look=True).frame["n"].sum() == 2


def test_each_levels_scored_sets_say_whether_it_shows_its_first_numbers(view):
    """Issue 57: a level whose refining chunk has not reported rests on its first chunk's sets only."""
    plan = [{"key": key, "stage": stage} for key, stage in (
        ("release:1:0-2", 1), ("release:3:0-2", 1), ("release:1:2-10", 2), ("release:3:2-10", 2), ("aia:0", 2))]
    view.store.update_job(view.id, plan=json.dumps(plan))
    assert view.sets_scored() == {1: (0, 10), 3: (0, 10)}
    add(view, "release:1:0-2", [])
    add(view, "release:3:0-2", [])
    add(view, "release:3:2-10", [])
    assert view.sets_scored() == {1: (2, 10), 3: (10, 10)}
    view.store.update_job(view.id, plan=json.dumps([{"key": "release:1:0-10", "stage": 1}]))  # an earlier plan
    assert view.sets_scored() == {1: (0, 10)}


def test_a_job_without_results_has_empty_records_and_summary(view):
    assert view.records().empty
    assert view.summary().frame.empty


def test_the_notes_are_the_workers_lines_for_the_user_only(view):
    view.store.log(view.id, "start", "worker 1 started")
    view.store.log(view.id, "memory", "stage 2 ran on 1 worker to fit in memory")
    assert view.notes() == ["stage 2 ran on 1 worker to fit in memory"]


# -- the holder and what is computed from it -----------------------------------------------------------------------
def test_before_the_holders_fit_nothing_is_computed_from_it(view):
    assert view.holder() is None
    assert view.evaluation_data() is None
    assert view.preview() is None
    assert view.exposure(1) is None


def test_the_evaluation_data_are_the_training_and_hold_out_rows_encoded(fitted):
    data = fitted.evaluation_data()
    train, test = fitted.tables()
    assert data.train.shape == (len(train), len(RECORD_COLUMNS))
    assert data.test.shape == (len(test), len(RECORD_COLUMNS))


def test_the_preview_is_of_the_holders_order(fitted):
    preview, order = fitted.preview(), fitted.holder().order_
    assert preview.block[0] == "income"  # the sensitive column heads the block
    assert set(preview.risk["level"]) == set(range(order.full_level + 1))  # every level of that order


def test_each_exposed_record_is_shown_as_the_training_row_it_names(fitted):
    """A steward recognises a record by its values: those shown must be the values of the training row named."""
    exposed = fitted.exposure(1, top=4)
    assert len(exposed) == 4
    assert list(exposed["rank"]) == [1, 2, 3, 4]
    train = fitted.tables()[0]
    shown = exposed[RECORD_COLUMNS].reset_index(drop=True)
    expected = train.loc[exposed["row"], RECORD_COLUMNS].reset_index(drop=True)
    pd.testing.assert_frame_equal(shown, expected, check_dtype=False)


def test_a_column_named_like_an_exposure_field_is_shown_as_the_record_s(tmp_path, small_table):
    store = Store(tmp_path)
    table = small_table.rename(columns={"age": "score"})
    view = JobView(store, submit(store, table, config()))
    store.save_model(view.id, HOLDER, fit_holder(view.config, view.tables()[0]).to_json())
    exposed = view.exposure(1, top=2)
    train = view.tables()[0]
    assert list(exposed["score (record)"]) == list(train.loc[exposed["row"], "score"])
    assert list(exposed["score"]) != list(exposed["score (record)"])  # the exposure's own score beside it


def test_complete_levels_are_those_whose_every_task_of_the_holder_is_stored(view):
    """Issue 56: a cancelled sweep recommended a level from numbers its games had not finished. A level is complete
    when its own release and details tasks and every shared task of the holder (references, games) are stored; a
    baseline's task is no level's; a finished sweep's levels are all complete (None)."""
    from tvs_core.jobs.tasks import Task, TaskKey, TaskKind, plan_json

    store = view.store
    tasks = [Task(TaskKey(TaskKind.REFERENCE)), Task(TaskKey(TaskKind.RELEASE, index=(1, "0-5"))),
             Task(TaskKey(TaskKind.RELEASE, index=(3, "0-5"))), Task(TaskKey(TaskKind.RELEASE_DETAILS, index=(3,))),
             Task(TaskKey(TaskKind.AIA, index=(0,))), Task(TaskKey(TaskKind.BASELINE, player="independent"))]
    store.update_job(view.id, plan=plan_json(tasks), status="cancelled", details=json.dumps({"levels": [1, 3]}))

    def stored(*names):
        for name in names:
            store.add_result(view.id, name, TaskKey.parse(name).kind.value, [], 0.1)

    stored("reference", "release:1:0-5", "release:3:0-5")
    assert view.complete_levels() == set()  # the attribute game writes every level's: none is complete yet
    stored("aia:0")
    assert view.complete_levels() == {1}  # level 3 waits for its details; the baseline is nobody's level
    stored("release_details:3")
    assert view.complete_levels() == {1, 3}
    store.update_job(view.id, status="done")
    assert view.complete_levels() is None
