"""The numeric table every model works on (``tvs_core/data/prepare.py``): one number column per modelled column,
nothing lost on the way, and only the columns the user models are checked and kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tvs_core.data.prepare import prepare_table
from tvs_core.data.schema import infer_schema


@pytest.fixture
def schema(mixed_table):
    return infer_schema(mixed_table).with_roles("outcome", ["weight"])


def test_the_numeric_view_has_the_modelled_columns_only_and_decodes_back_exactly(mixed_table, schema):
    """Identifiers, free text and constants never reach a model; every label, date and number is recovered from
    the view, so a model's output decodes to the table's own values; the user's table is not changed."""
    before = mixed_table.copy()
    prepared = prepare_table(mixed_table, schema)
    assert list(prepared.values.columns) == schema.modelled and {"patient_code", "notes", "site"}.isdisjoint(
        prepared.values.columns)
    assert prepared.values.shape == (len(mixed_table), len(schema.modelled)) and not prepared.values.isna().any().any()
    assert set(prepared.values.dtypes) == {np.dtype(float)}
    back = prepared.encoder.inverse_transform(prepared.values.to_numpy())
    pd.testing.assert_frame_equal(back, mixed_table[schema.modelled], check_exact=True)
    pd.testing.assert_frame_equal(mixed_table, before)


def test_an_impossible_date_in_a_column_the_user_dropped_does_not_stop_the_table(mixed_table):
    """The user may drop a broken column instead of fixing it: only modelled columns are checked."""
    table = mixed_table.assign(seen=mixed_table["admitted"].dt.strftime("%Y-%m-%d"))
    table.loc[5, "seen"] = "1961-02-30"
    schema = infer_schema(table).with_roles("outcome", ["weight"]).override("seen", role="dropped")
    prepared = prepare_table(table, schema)
    assert "seen" not in prepared.values.columns and len(prepared.values) == len(table)


def test_dropping_rows_keeps_the_other_rows_in_order(mixed_table, schema):
    table = mixed_table.copy()
    table.loc[3, "weight"] = np.nan
    prepared = prepare_table(table, schema, "drop_rows")
    assert prepared.report.rows_dropped == 1
    assert prepared.values["weight"].tolist() == table["weight"].drop(3).tolist()


def test_imputing_models_where_the_values_were_missing(mixed_table, schema):
    """The indicator column is part of the numeric view, so the pattern of missing cells is modelled too."""
    table = mixed_table.copy()
    table.loc[[3, 7], "weight"] = np.nan
    prepared = prepare_table(table, schema, "impute")
    assert prepared.schema.modelled == [*schema.modelled, "weight__missing"]
    assert np.flatnonzero(prepared.values["weight__missing"].to_numpy()).tolist() == [3, 7]
    assert not prepared.values.isna().any().any() and len(prepared.values) == len(table)
