"""tvs_core/jobs/first_look.py: how many levels a first look shows, which it shows first, its records and how they
leave the records read back. On the small shared table with a sample of 50 rows (the run against a stored sweep is in
test_scale.py)."""

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.evaluation.records import FIRST_LOOK_ROWS, HOLDER, RecordRole, record, to_frame
from tvs_core.jobs import SweepConfig
from tvs_core.jobs import first_look as module
from tvs_core.jobs.context import split_tables
from tvs_core.jobs.first_look import _quick_level, _sample, looked_levels, without_first_look

SAMPLE = 50


def config(**changes):
    return SweepConfig(**{"response": "y", "sensitive": ["income"], "baselines": [], **changes})


@pytest.fixture
def small_sample(monkeypatch):
    monkeypatch.setattr(module, "FIRST_LOOK_ROWS", SAMPLE)


def looks(**changes):
    """The first look of a 150-row table (120 training rows: more than twice the sample, so every level)."""
    sweep = config(**changes)
    return list(module.first_look(sweep, *split_tables(sweep, make_small_table(n=150), None)))


# -- how many levels ---------------------------------------------------------------------------------------------
def test_the_levels_looked_at_never_exceed_the_levels_and_grow_with_the_table():
    rows = [0, FIRST_LOOK_ROWS, FIRST_LOOK_ROWS + 1, 2 * FIRST_LOOK_ROWS, 2 * FIRST_LOOK_ROWS + 1, 10 ** 6]
    for levels in (0, 1, 4, 12):
        shown = [looked_levels(n, levels) for n in rows]
        assert shown == sorted(shown) and all(0 <= s <= levels for s in shown)
        assert shown[1] == 0 and shown[-1] == levels  # none on a table the size of its sample, all on a large one


@pytest.mark.parametrize(("changes", "quick"), [({}, 1), ({"levels": [7, 2, 4]}, 2), ({"t_max": 1}, 1),
                                                ({"levels": [3], "t_max": 2}, None), ({"levels": [0, 2]}, None)])
def test_the_level_shown_first_from_a_vine_fitted_to_it_alone(changes, quick):
    """The lowest level of the sweep, when it is a level a vine can be fitted up to (at least 1, at most t_max)."""
    assert _quick_level(config(**changes)) == quick


# -- the sample --------------------------------------------------------------------------------------------------
def test_a_table_no_larger_than_the_sample_is_used_whole(small_table):
    assert _sample(small_table, len(small_table), np.random.default_rng(0)) is small_table


def test_the_sample_is_distinct_rows_of_the_table_in_table_order_the_same_for_a_seed(small_table):
    sample = _sample(small_table, 30, np.random.default_rng(4))
    assert len(sample) == 30 and sample.index.is_unique and sample.index.is_monotonic_increasing
    assert sample.equals(small_table.loc[sample.index])
    assert sample.equals(_sample(small_table, 30, np.random.default_rng(4)))


# -- the looks ---------------------------------------------------------------------------------------------------
def test_no_first_look_and_no_fit_on_a_table_no_larger_than_the_sample(small_table, monkeypatch):
    monkeypatch.setattr(module, "fit_holder", lambda *a, **k: pytest.fail("a first look was fitted"))
    sweep = config()
    train, test = split_tables(sweep, small_table.head(FIRST_LOOK_ROWS), None)
    assert list(module.first_look(sweep, train, test)) == []


def test_every_level_once_the_lowest_first_each_knowing_how_many_come(small_sample):
    found = looks(levels=[3, 2])
    assert [level for level, _, _ in found] == [2, 3]
    assert {count for _, _, count in found} == {2}


def test_a_level_above_what_the_sample_can_fit_is_not_looked_at_nor_counted(small_sample):
    found = looks(levels=[1, 2, 3, 50])  # 5 columns: no vine of 50 trees
    assert [(level, count) for level, _, count in found] == [(1, 3), (2, 3), (3, 3)]


def test_a_looks_records_are_the_holders_at_its_level_marked_as_a_first_look_and_seeded(small_sample):
    found = looks(levels=[1, 2])
    for level, records, _ in found:
        assert {(r.model, r.level, r.role) for r in records} == {(HOLDER, level, RecordRole.FIRST_LOOK)}
        assert {"auc_tstr", "release_mab"} <= {r.metric for r in records}
    assert looks(levels=[1, 2]) == found  # the same settings, the same first look


# -- without_first_look ------------------------------------------------------------------------------------------
def frame(*rows):
    return to_frame([record(model, level, "release_mab", 0.5, role=role) for model, level, role in rows])


def test_records_without_a_first_look_are_returned_as_they_are():
    records = frame((HOLDER, 1, "release"), ("independent", None, "release"))
    assert without_first_look(records) is records
    assert without_first_look(records, keep_missing_levels=True) is records
    empty = to_frame([])
    assert without_first_look(empty, keep_missing_levels=True) is empty
    no_role = pd.DataFrame({"model": [HOLDER], "level": [1]})
    assert without_first_look(no_role) is no_role


def test_only_the_holders_own_release_records_retire_a_levels_first_look():
    """A baseline's records, or the holder's game records, at a level do not mean that level's release task has
    reported: its first look stays on the live scatter."""
    records = frame((HOLDER, 1, RecordRole.FIRST_LOOK), (HOLDER, 2, RecordRole.FIRST_LOOK),
                    (HOLDER, 3, RecordRole.FIRST_LOOK),
                    (HOLDER, 1, "release"), (HOLDER, 2, "game"), ("copy_rows_test", 3, "release"))
    live = without_first_look(records, keep_missing_levels=True)
    assert sorted(live.loc[live["role"] == RecordRole.FIRST_LOOK, "level"]) == [2, 3]
    assert len(live) == len(records) - 1
    assert RecordRole.FIRST_LOOK not in set(without_first_look(records)["role"])
    assert len(without_first_look(records)) == 3
