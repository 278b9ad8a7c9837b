"""Metric records: one row each, and one canonical frame whatever order the workers' results arrive in (the
intervals bootstrap over its rows, so they must not depend on it)."""

import numpy as np
import pandas as pd

from tvs_core.evaluation.records import COLUMNS, HOLDER, REAL, holder_rows, record, to_frame


def test_a_record_has_every_column_a_float_value_and_the_release_role_by_default():
    row = record(HOLDER, 2, "auc_tstr", np.float32(0.5))
    assert list(row) == COLUMNS and type(row["value"]) is float and row["value"] == 0.5
    assert row["role"] == "release" and row["attribute"] is row["target"] is row["iteration"] is None
    assert record("m", 1, "mcmia", 1, target=7, iteration=0, role="game")["value"] == 1.0


def rows() -> list[dict]:
    """A sweep's records as they may arrive: references without a level, repeated iterations, tied keys."""
    return [record(HOLDER, 2, "mcmia", 0.6, attribute="s", target=3, target_kind="outlier", iteration=1, role="game"),
            record(HOLDER, 2, "mcmia", 0.5, attribute="s", target=3, target_kind="outlier", iteration=0, role="game"),
            record(REAL, None, "auc_trtr", 0.8, role="reference"),
            record(HOLDER, 1, "auc_tstr", 0.7),
            record(HOLDER, 1, "auc_tstr", 0.6),
            record("independent", 10, "auc_tstr", 0.55, role="game")]


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
