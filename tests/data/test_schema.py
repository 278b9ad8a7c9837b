"""tvs_core.data.schema: one column's type and the reason shown for it, roles, the user's overrides, dates written as
text, and the suggested response. (Inference over a whole typed table is in test_schema_validation.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tvs_core.data.schema import (
    MAX_COUNT_LEVELS,
    ColumnSpec,
    ColumnType,
    Role,
    Schema,
    _row,
    infer_column,
    infer_schema,
    mostly_missing,
    not_dates,
    parse_dates,
    suggest_response,
)
from tvs_core.errors import DataError

S = pd.Series


def spec(name, ctype, role=Role.COVARIATE):
    return ColumnSpec(name, ctype, role, "test")


# -- infer_column ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("col, expected, reason", [
    (S([np.nan] * 4), ColumnType.CONSTANT, "all 4 values are missing"),
    (S(["DE", "DE", None]), ColumnType.CONSTANT, "the same value ('DE') in every row"),
    (S([3, 7, 3, 7, 7]), ColumnType.BINARY, "exactly two distinct values"),
    (S(pd.Categorical(["x", "y", "z"])), ColumnType.NOMINAL, "unordered categories"),
    (S(pd.Categorical(["x", "y", "z"], ordered=True)), ColumnType.ORDINAL, "ordered categories"),
    (S([1.5, 2.5, 3.25]), ColumnType.CONTINUOUS, "numbers with decimals"),
    (S(["x", "y", "z", "x"]), ColumnType.NOMINAL, "text labels (3 categories)"),
    (S(pd.to_datetime(["2020-01-01", "2021-01-01", "2022-01-01"])), ColumnType.DATETIME, "stored as dates"),
], ids=["all-missing", "one-value", "two-values", "categorical", "ordered-categorical", "decimals", "labels",
        "dates"])
def test_a_column_type_and_the_reason_shown_for_it(col, expected, reason):
    assert infer_column("c", col) == (expected, reason)


def test_whole_numbers_are_counts_up_to_30_levels_and_continuous_beyond():
    counts = S(np.arange(60) % MAX_COUNT_LEVELS)
    assert infer_column("c", counts)[0] == ColumnType.INTEGER
    many = S(np.arange(62) % (MAX_COUNT_LEVELS + 1) * 3)
    ctype, reason = infer_column("c", many)
    assert ctype == ColumnType.CONTINUOUS and "released rounded to whole numbers" in reason


def test_a_running_number_or_a_unique_integer_named_like_an_id_is_an_identifier():
    assert infer_column("c", S(np.arange(100, 125)))[0] == ColumnType.IDENTIFIER
    gaps = S(np.arange(40) * 7)
    assert infer_column("c", gaps)[0] == ColumnType.CONTINUOUS  # unique, but neither consecutive nor named so
    assert infer_column("record", gaps)[0] == ColumnType.IDENTIFIER


def test_a_few_unique_integers_are_not_called_identifiers():
    """At most 20 values: unique by chance is too likely for a small sample."""
    assert infer_column("c", S(np.arange(20)))[0] == ColumnType.INTEGER


def test_numbers_with_a_few_text_cells_are_numbers_and_the_reason_points_at_the_problem():
    ctype, reason = infer_column("c", S([str(i % 12) for i in range(30)] + ["n/a"]))
    assert ctype == ColumnType.INTEGER and reason.startswith("numbers, but 1 cell(s) hold text")
    assert infer_column("c", S([f"{i}.5" for i in range(30)] + ["n/a"]))[0] == ColumnType.CONTINUOUS


def test_text_that_parses_as_dates_is_dates_but_plain_numbers_are_not():
    assert infer_column("c", S([f"2020-01-0{i % 9 + 1}" for i in range(20)])) == (ColumnType.DATETIME,
                                                                                   "text that parses as dates")
    assert infer_column("c", S(["20200101", "20200102", "20200103", "20200101"]))[0] == ColumnType.NOMINAL


def test_many_distinct_strings_are_free_text_codes_or_too_many_labels():
    sentence = S([f"felt better after rest {i}" for i in range(40)])
    assert infer_column("c", sentence)[0] == ColumnType.TEXT
    assert infer_column("c", S([f"c{i}" for i in range(40)]))[0] == ColumnType.IDENTIFIER
    repeated = S([f"lab{i}" for i in range(40)] + ["lab0"] * 10)
    assert infer_column("c", repeated) == (ColumnType.TEXT,
                                           "40 distinct labels in 50 rows — too many to model as categories")


def test_a_few_unique_codes_are_identifiers_only_when_named_so():
    codes = S([f"c{i}" for i in range(10)])
    assert infer_column("code_id", codes)[0] == ColumnType.IDENTIFIER
    assert infer_column("colour", codes)[0] == ColumnType.NOMINAL


# -- infer_schema and mostly_missing --------------------------------------------------------------------------------

def test_mostly_missing_means_more_than_nine_in_ten_rows():
    assert mostly_missing(S([1.0] + [np.nan] * 10)) and not mostly_missing(S([1.0] + [np.nan] * 9))
    assert not mostly_missing(S([], dtype=float))


def test_a_mostly_missing_column_is_dropped_whatever_its_few_cells_look_like():
    table = pd.DataFrame({"rare": [1.0, 2.0] + [np.nan] * 48, "x": np.arange(50) / 2})
    column = infer_schema(table)["rare"]
    assert column.type == ColumnType.BINARY and column.role == Role.DROPPED
    assert column.drop_reason.startswith("missing in 96 % of the rows") and column.n_missing == 48


def test_every_unmodelled_type_is_dropped_with_its_own_reason():
    table = pd.DataFrame({"id": np.arange(40), "site": ["Berlin"] * 40,
                          "note": [f"seen today and felt fine {i}" for i in range(40)]})
    schema = infer_schema(table)
    assert schema.modelled == []
    assert "re-identify" in schema["id"].drop_reason and "repeats the constant" in schema["site"].drop_reason
    assert "free text" in schema["note"].drop_reason


# -- Schema ---------------------------------------------------------------------------------------------------------

def test_roles_read_off_a_schema():
    schema = Schema((spec("a", ColumnType.CONTINUOUS, Role.SENSITIVE), spec("y", ColumnType.BINARY, Role.RESPONSE),
                     spec("b", ColumnType.NOMINAL), spec("d", ColumnType.TEXT, Role.DROPPED)))
    assert schema.names == ["a", "y", "b", "d"] and schema.response == "y" and schema.sensitive == ["a"]
    assert schema.modelled == ["a", "y", "b"] and schema.covariates == ["a", "b"]
    assert Schema(()).response is None
    with pytest.raises(KeyError):
        schema["nope"]


def test_giving_levels_makes_a_column_ordinal_and_changing_its_type_forgets_them():
    schema = Schema((spec("s", ColumnType.NOMINAL),))
    ordered = schema.override("s", levels=np.array(["low", "high"], dtype=object))
    assert ordered["s"].type == ColumnType.ORDINAL and ordered["s"].levels == ("low", "high")
    assert ordered["s"].reason == "set by user"
    assert ordered.override("s", type="ordinal")["s"].levels == ("low", "high")  # still ordinal: kept
    assert ordered.override("s", type="binary")["s"].levels is None


def test_levels_given_as_numpy_numbers_are_stored_as_python_ones():
    """Levels are saved in a project's JSON."""
    levels = Schema((spec("k", ColumnType.INTEGER),)).override("k", levels=np.array([3, 1, 2]))["k"].levels
    assert levels == (3, 1, 2) and all(type(v) is int for v in levels)


def test_marking_a_column_unmodelled_drops_it_unless_a_role_is_given():
    schema = Schema((spec("c", ColumnType.NOMINAL),))
    dropped = schema.override("c", type="identifier")["c"]
    assert dropped.role == Role.DROPPED and dropped.drop_reason == "identifier columns are not modelled (set by user)"
    kept = schema.override("c", type="constant", role="covariate")["c"]
    assert kept.role == Role.COVARIATE and kept.drop_reason is None


def test_with_roles_keeps_the_drop_reason_of_a_dropped_column_only():
    schema = Schema((ColumnSpec("d", ColumnType.TEXT, Role.DROPPED, "t", drop_reason="free text"),
                     spec("a", ColumnType.CONTINUOUS), spec("y", ColumnType.BINARY)))
    out = schema.with_roles("y", ["a"])
    assert out["d"].drop_reason == "free text" and out["a"].drop_reason is None
    cleared = out.with_roles(None)
    assert cleared.response is None and cleared.sensitive == []


def test_a_spec_read_back_from_json_has_its_levels_as_a_tuple():
    original = ColumnSpec("s", ColumnType.ORDINAL, Role.COVARIATE, "t", levels=("a", "b"))
    d = original.to_dict()
    d["levels"] = list(d["levels"])  # as JSON gives it back
    assert ColumnSpec.from_dict(d) == original
    assert Schema((original,)).to_frame()["type"].tolist() == ["ordinal"]


# -- dates written as text ------------------------------------------------------------------------------------------

def test_dates_with_different_zones_become_one_column_of_utc_times():
    parsed = parse_dates(S(["2020-01-01T10:00+02:00", "2020-01-01T10:00-01:00", "2020-01-02"]))
    assert parsed.dt.tz is None
    assert parsed.tolist() == [pd.Timestamp("2020-01-01 08:00"), pd.Timestamp("2020-01-01 11:00"),
                               pd.Timestamp("2020-01-02")]


def test_not_dates_names_every_cell_that_holds_no_possible_date_and_skips_empty_ones():
    values = S(["2020-01-01", "2020-02-30", None, "x", "2020-02-30"])
    assert not_dates(values).tolist() == [1, 3, 4]
    assert not_dates(S(["2020-01-01", None])).empty


def test_unreadable_dates_are_refused_by_column_without_their_value():
    with pytest.raises(DataError) as info:
        parse_dates(S(["2020-01-01", "2020-13-45"], name="seen"))
    assert info.value.column == "seen" and "row 3" in str(info.value) and "13-45" not in str(info.value)


def test_rows_are_numbered_as_a_spreadsheet_numbers_them():
    assert (_row(0), _row(np.int64(3)), _row("r7")) == ("2", "5", "'r7'")


# -- suggest_response -----------------------------------------------------------------------------------------------

def test_the_suggested_response_is_the_last_binary_column_named_like_an_outcome():
    schema = Schema((spec("death", ColumnType.BINARY), spec("age", ColumnType.CONTINUOUS),
                     spec("readmitted", ColumnType.BINARY), spec("status", ColumnType.NOMINAL)))
    assert suggest_response(schema) == "readmitted"


def test_a_categorical_outcome_is_suggested_when_no_binary_one_is_named_so():
    schema = Schema((spec("diagnosis", ColumnType.NOMINAL), spec("sex", ColumnType.BINARY),
                     spec("target", ColumnType.CONTINUOUS)))
    assert suggest_response(schema) == "diagnosis"


def test_no_response_is_suggested_from_dropped_or_unnamed_columns():
    schema = Schema((ColumnSpec("outcome", ColumnType.BINARY, Role.DROPPED, "t"), spec("sex", ColumnType.BINARY),
                     spec("outcome_notes", ColumnType.NOMINAL)))
    assert suggest_response(schema) is None
