"""Metric records: one row each, and one canonical frame whatever order the workers' results arrive in (the
intervals bootstrap over its rows, so they must not depend on it)."""

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from tvs_core.errors import TVSError
from tvs_core.evaluation.catalogue import Source
from tvs_core.evaluation.records import COLUMNS, HOLDER, REAL, Record, RecordRole, holder_rows, record, to_frame
from tvs_core.storage.store import Store

# records as the store holds them, written by the version before records were typed (its ``record`` dicts through
# ``json.dumps``): one of each role, a NaN value, a count as target, a reference without a level
STORED = ('[{"model": "tvinesynth", "level": 2, "metric": "mab", "attribute": "income", "target": 17, "target_kind": '
          '"outlier", "iteration": 0, "value": 0.25, "role": "game"}, {"model": "real", "level": null, "metric": '
          '"auc_trtr_logistic", "attribute": null, "target": null, "target_kind": null, "iteration": 3, "value": '
          '0.8125, "role": "reference"}, {"model": "tvinesynth", "level": 1, "metric": "release_mab", "attribute": '
          '"income", "target": null, "target_kind": null, "iteration": null, "value": NaN, "role": "first_look"}, '
          '{"model": "dp-mst", "level": null, "metric": "audit_epsilon_claim", "attribute": null, "target": 200, '
          '"target_kind": null, "iteration": null, "value": 1.0, "role": "audit"}, {"model": "tvinesynth", "level": '
          '3, "metric": "inference_risk", "attribute": "diagnosis", "target": null, "target_kind": null, "iteration": '
          '4, "value": 0.0625, "role": "release"}]')


def test_a_record_is_typed_with_a_float_value_and_the_release_role_by_default():
    row = record(HOLDER, 2, "auc_tstr", np.float32(0.5))
    assert [f.name for f in dataclasses.fields(Record)] == COLUMNS
    assert type(row.value) is float and row.value == 0.5
    assert row.role is RecordRole.RELEASE and row.attribute is row.target is row.iteration is None
    assert record("m", 1, "mcmia", 1, target=7, iteration=0, role=RecordRole.GAME).value == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.value = 0.7  # type: ignore[misc]


def test_every_source_of_the_catalogue_is_a_role():
    """A metric's ``Source`` says what its records are measured on; its records carry that role."""
    assert {str(s) for s in Source} <= {str(r) for r in RecordRole}


def test_records_stored_by_the_earlier_version_read_back_typed_and_are_stored_again_byte_for_byte(tmp_path):
    store = Store(tmp_path / "space")
    store.create_job("job", "fingerprint", {})
    back = [Record.from_stored(r) for r in json.loads(STORED)]
    assert [r.role for r in back] == [RecordRole.GAME, RecordRole.REFERENCE, RecordRole.FIRST_LOOK, RecordRole.AUDIT,
                                      RecordRole.RELEASE]
    assert all(type(r.role) is RecordRole and type(r.value) is float for r in back)
    assert back[0] == record(HOLDER, 2, "mab", 0.25, "income", 17, "outlier", 0, RecordRole.GAME)
    assert back[1].level is None and back[3].target == 200 and math.isnan(back[2].value)
    store.add_result("job", "release:1", "release", [r.stored() for r in back], 1.0)
    (kept,) = store.db.execute("SELECT records FROM results WHERE job_id = 'job'").fetchone()
    assert kept == STORED  # the same bytes as before records were typed: old and new jobs read alike
    again = [Record.from_stored(r) for result in store.results("job") for r in result.records]
    assert json.dumps([r.stored() for r in again]) == STORED and [r.role for r in again] == [r.role for r in back]


def test_a_stored_role_this_version_does_not_know_is_refused_in_one_sentence():
    row = json.loads(STORED)[0] | {"role": "oracle"}
    with pytest.raises(TVSError) as refused:
        Record.from_stored(row)
    message = str(refused.value)
    assert "'oracle'" in message and "release, game, reference, audit, first_look" in message
    assert message.count(". ") == 0 and message.endswith(".")


def rows() -> list[Record]:
    """A sweep's records as they may arrive: references without a level, repeated iterations, tied keys."""
    return [record(HOLDER, 2, "mcmia", 0.6, "s", 3, "outlier", 1, RecordRole.GAME),
            record(HOLDER, 2, "mcmia", 0.5, "s", 3, "outlier", 0, RecordRole.GAME),
            record(REAL, None, "auc_trtr", 0.8, role=RecordRole.REFERENCE),
            record(HOLDER, 1, "auc_tstr", 0.7),
            record(HOLDER, 1, "auc_tstr", 0.6),
            record("independent", 10, "auc_tstr", 0.55, role=RecordRole.GAME)]


def test_the_frame_is_the_same_for_any_arrival_order():
    expected = to_frame(rows())
    for seed in range(5):
        shuffled = [rows()[i] for i in np.random.default_rng(seed).permutation(len(rows()))]
        pd.testing.assert_frame_equal(to_frame(shuffled), expected)


def test_the_frame_has_the_canonical_columns_and_whole_levels_in_numeric_order():
    frame = to_frame(rows())
    assert list(frame.columns) == COLUMNS and str(frame["level"].dtype) == "Int64"
    assert frame["model"].tolist() == ["independent", REAL] + [HOLDER] * 4
    assert frame["level"].iloc[1:].tolist() == [pd.NA, 1, 1, 2, 2]  # the reference has no level
    assert frame.loc[frame["metric"] == "mcmia", "iteration"].tolist() == [0, 1]
    assert to_frame([record(HOLDER, 10, "m", 1), record(HOLDER, 2, "m", 1)])["level"].tolist() == [2, 10]


def test_no_records_is_an_empty_frame_with_the_columns():
    frame = to_frame([])
    assert frame.empty and list(frame.columns) == COLUMNS


def test_the_holders_rows_leave_out_baselines_and_references():
    held = holder_rows(to_frame(rows()))
    assert set(held["model"]) == {HOLDER} and len(held) == 4
