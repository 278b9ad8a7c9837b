"""tvs_core.data.encoding: columns to numbers (category codes, days since 1970) and back, with names, dtypes,
labels and precision restored."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tvs_core.data.encoding import ColumnCode, TableEncoder, _decimals, _restore_dtype, plain_value
from tvs_core.data.schema import ColumnSpec, ColumnType, Role, Schema


def schema_of(*columns, response=None):
    """A schema naming each column's type by hand (no inference): (name, type) or (name, type, levels)."""
    specs = []
    for name, ctype, *levels in columns:
        role = Role.RESPONSE if name == response else Role.COVARIATE
        specs.append(ColumnSpec(name, ctype, role, "test", levels=tuple(levels[0]) if levels else None))
    return Schema(tuple(specs))


def encoder(table, *columns, response=None):
    return TableEncoder(schema_of(*columns, response=response)).fit(table)


# -- plain_value ----------------------------------------------------------------------------------------------------

def test_plain_value_turns_numpy_scalars_into_python_ones():
    assert plain_value(np.int64(3)) == 3 and type(plain_value(np.int64(3))) is int
    assert type(plain_value(np.float64(2.5))) is float and type(plain_value(np.bool_(True))) is bool
    assert plain_value("x") == "x" and plain_value(7) == 7


def test_plain_value_writes_a_timestamp_as_iso_text():
    assert plain_value(pd.Timestamp("2020-01-02 03:04:05")) == "2020-01-02T03:04:05"


@pytest.mark.parametrize("missing", [None, float("nan"), np.float64("nan"), np.float32("nan"), pd.NaT, pd.NA],
                         ids=["None", "nan", "float64", "float32", "NaT", "NA"])
def test_every_missing_scalar_becomes_none(missing):
    assert plain_value(missing) is None


def test_a_saved_model_writes_missing_numpy_and_pandas_scalars_as_null():
    """A model is saved by ``json.dumps(default=plain_value)``: what json cannot write itself must become null."""
    payload = {"f32": np.float32("nan"), "nat": pd.NaT, "na": pd.NA}
    assert json.loads(json.dumps(payload, default=plain_value, allow_nan=False)) == dict.fromkeys(payload)


# -- fit: the code order of each categorical column ------------------------------------------------------------------

def test_nominal_codes_follow_the_mean_response_ties_broken_by_size_then_label():
    """Means: a 0 (2 rows), d 0 (1 row), b 1 (2 rows), c 1 (1 row): by mean, then the smaller group first."""
    table = pd.DataFrame({"c": ["b", "a", "b", "c", "a", "d"], "y": [1, 0, 1, 1, 0, 0]})
    enc = encoder(table, ("c", ColumnType.NOMINAL), ("y", ColumnType.BINARY), response="y")
    assert enc.codes[0].categories == ["d", "a", "c", "b"]
    assert enc.transform(table)[:, 0].tolist() == [3, 1, 3, 2, 1, 0]


def test_the_response_and_a_nominal_column_without_response_are_coded_in_sorted_order():
    table = pd.DataFrame({"c": ["b", "a", "c", "a"], "y": [1, 0, 0, 1]})
    enc = encoder(table, ("c", ColumnType.NOMINAL), ("y", ColumnType.BINARY))  # no response chosen
    assert enc.codes[0].categories == ["a", "b", "c"] and enc.codes[1].categories == [0, 1]


def test_an_ordinal_column_follows_the_users_order_and_labels_it_lacks_go_last():
    table = pd.DataFrame({"s": ["high", "low", "mid", "odd", "low"]})
    enc = encoder(table, ("s", ColumnType.ORDINAL, ["low", "mid", "high"]))
    assert enc.codes[0].categories == ["low", "mid", "high", "odd"]


def test_an_ordered_categorical_keeps_its_order_without_its_unused_categories():
    col = pd.Categorical(["b", "c", "b"], categories=["c", "a", "b"], ordered=True)
    enc = encoder(pd.DataFrame({"s": col}), ("s", ColumnType.ORDINAL))
    code = enc.codes[0]
    assert code.categories == ["c", "b"]  # the codes: present labels only
    assert code.pandas_categories == ["c", "a", "b"] and code.ordered_category  # the dtype: all of them
    decoded = enc.inverse_transform(np.array([[0.0], [1.0]]))["s"]
    assert list(decoded) == ["c", "b"] and list(decoded.cat.categories) == ["c", "a", "b"] and decoded.cat.ordered


def test_labels_are_stored_as_plain_python_values():
    """Codes are saved as JSON: numpy integers in categories would not be."""
    enc = encoder(pd.DataFrame({"k": np.array([3, 1, 3], dtype="int64")}), ("k", ColumnType.NOMINAL))
    assert enc.codes[0].categories == [1, 3] and all(type(v) is int for v in enc.codes[0].categories)


# -- transform ------------------------------------------------------------------------------------------------------

def test_a_label_unseen_in_fit_and_a_missing_cell_encode_as_nan():
    table = pd.DataFrame({"c": ["a", "b"]})
    enc = encoder(table, ("c", ColumnType.NOMINAL))
    assert np.isnan(enc.transform(pd.DataFrame({"c": ["z", None]}))).all()


def test_dates_become_days_since_1970_in_utc():
    table = pd.DataFrame({
        "naive": pd.to_datetime(["1970-01-02", "1970-01-03 12:00"], format="mixed"),
        "zoned": pd.to_datetime(["1970-01-02 01:00+01:00", "1970-01-01T00:00Z"], format="mixed", utc=True),
        "text": ["1970-01-11", None],
    })
    enc = encoder(table, *[(c, ColumnType.DATETIME) for c in table])
    values = enc.transform(table)
    assert values[:, 0].tolist() == [1.0, 2.5]
    assert values[:, 1].tolist() == [1.0, 0.0]  # 01:00 at +01:00 is midnight UTC
    assert values[0, 2] == 10.0 and np.isnan(values[1, 2])


def test_the_matrix_has_one_column_per_modelled_column_in_schema_order():
    table = pd.DataFrame({"b": [1.5, 2.5], "skip": ["x", "y"], "a": [3, 4]})
    schema = Schema((ColumnSpec("b", ColumnType.CONTINUOUS, Role.COVARIATE, "t"),
                     ColumnSpec("skip", ColumnType.TEXT, Role.DROPPED, "t"),
                     ColumnSpec("a", ColumnType.INTEGER, Role.RESPONSE, "t")))
    enc = TableEncoder(schema).fit(table)
    assert enc.names == ["b", "a"] and enc.discrete == [False, True]
    assert enc.transform(table).tolist() == [[1.5, 3.0], [2.5, 4.0]]


# -- inverse_transform ----------------------------------------------------------------------------------------------

def test_category_codes_are_rounded_and_clipped_to_the_known_labels():
    enc = encoder(pd.DataFrame({"c": ["a", "b", "c"]}), ("c", ColumnType.NOMINAL))
    decoded = enc.inverse_transform(np.array([[-3.0], [0.4], [0.6], [1.5], [9.0]]))["c"]
    assert list(decoded) == ["a", "a", "b", "c", "c"]


def test_integers_are_rounded_and_keep_their_dtype():
    enc = encoder(pd.DataFrame({"k": np.array([1, 5], dtype="int32")}), ("k", ColumnType.INTEGER))
    decoded = enc.inverse_transform(np.array([[1.4], [4.6]]))["k"]
    assert decoded.tolist() == [1, 5] and decoded.dtype == np.dtype("int32")


def test_a_continuous_column_is_released_at_its_recorded_precision():
    enc = encoder(pd.DataFrame({"w": [70.25, 81.5, 64.0]}), ("w", ColumnType.CONTINUOUS))
    assert enc.codes[0].decimals == 2
    assert enc.inverse_transform(np.array([[70.123456]]))["w"].tolist() == [70.12]


def test_dates_come_back_in_their_unit_and_dtype():
    """Dates recorded as days stay whole days, stamps in whole seconds stay whole seconds; a zone stays UTC and
    dates written as text come back as text in ISO form."""
    table = pd.DataFrame({
        "day": pd.to_datetime(["2020-01-01", "2020-03-01"]),
        "stamp": pd.to_datetime(["2020-01-01 10:00:01", "2020-01-02 11:00:00"]),
        "zoned": pd.to_datetime(["2020-01-01", "2020-01-02"]).tz_localize("UTC"),
        "text": ["2020-01-01", "2020-02-01"],
    })
    enc = encoder(table, *[(c, ColumnType.DATETIME) for c in table])
    assert [(c.date_only, c.whole_seconds) for c in enc.codes] == [(True, True), (False, True), (True, True),
                                                                   (True, True)]
    back = enc.inverse_transform(enc.transform(table) + 0.3)  # 0.3 days = 7 h 12 min
    assert back["day"].tolist() == table["day"].tolist() and back["day"].dtype == table["day"].dtype
    assert back["stamp"][0] == pd.Timestamp("2020-01-01 17:12:01")
    assert back["zoned"].dtype == table["zoned"].dtype and back["zoned"].tolist() == table["zoned"].tolist()
    assert back["text"].tolist() == ["2020-01-01", "2020-02-01"]


def test_a_table_round_trips_exactly_with_names_and_dtypes(small_table):
    schema = schema_of(("age", ColumnType.CONTINUOUS), ("income", ColumnType.CONTINUOUS),
                       ("sex", ColumnType.BINARY), ("color", ColumnType.NOMINAL), ("y", ColumnType.BINARY),
                       response="y")
    enc = TableEncoder(schema).fit(small_table)
    pd.testing.assert_frame_equal(enc.inverse_transform(enc.transform(small_table)), small_table)


def test_saved_codes_decode_as_the_fitted_encoder_does(small_table):
    schema = schema_of(("age", ColumnType.CONTINUOUS), ("color", ColumnType.NOMINAL), ("y", ColumnType.BINARY),
                       response="y")
    enc = TableEncoder(schema).fit(small_table)
    again = TableEncoder.from_dict(json.loads(json.dumps(enc.to_dict())), schema)
    assert [c.to_dict() for c in again.codes] == [c.to_dict() for c in enc.codes]
    values = enc.transform(small_table)
    pd.testing.assert_frame_equal(again.inverse_transform(values), enc.inverse_transform(values))


def test_a_column_code_says_whether_it_is_discrete():
    assert ColumnCode("k", ColumnType.INTEGER, "int64").discrete
    assert not ColumnCode("w", ColumnType.CONTINUOUS, "float64").discrete
    assert not ColumnCode("d", ColumnType.DATETIME, "datetime64[ns]").discrete


# -- _decimals and _restore_dtype -----------------------------------------------------------------------------------

@pytest.mark.parametrize("values, decimals", [
    ([1.5, 2.25], 2),
    ([1.0, 2.0, 3.0], 0),
    ([1.0] * 99 + [12.5], 0),  # one stray half in a hundred whole numbers: still whole numbers
    ([1.0] * 98 + [12.25, 1.25], 2),  # two halves in a hundred are more than the 1 % let through
    ([], None),
])
def test_decimals_are_the_fewest_that_reproduce_99_percent_of_the_values(values, decimals):
    assert _decimals(np.array(values, dtype=float)) == decimals


def test_restoring_a_dtype_that_cannot_hold_the_values_keeps_them_unchanged():
    """An integer dtype cannot hold a missing value: the floats are returned rather than an error."""
    out = _restore_dtype(pd.Series([1.0, np.nan]), "int64")
    assert out.dtype == np.dtype(float) and out.isna().tolist() == [False, True]


def test_restoring_bool_and_object_dtypes():
    assert _restore_dtype(pd.Series([1.0, 0.0]), "bool").tolist() == [True, False]
    assert _restore_dtype(pd.Series(["a"]), "object").dtype == np.dtype(object)
