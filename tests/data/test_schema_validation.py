"""infer_schema (types, roles, reasons, overrides) and validate/check (one clear message per problem)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table, sentences
from tvs_core import TVineSynth
from tvs_core.data.schema import ColumnType, Role, Schema, infer_schema
from tvs_core.data.validation import check, validate
from tvs_core.errors import DataError, DataErrors
from tvs_core.model.families import FamilySet

N = 120


@pytest.fixture(scope="module")
def typed_table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    day0 = pd.Timestamp("2021-03-01")
    return pd.DataFrame({
        "weight": np.round(rng.normal(70, 12, N), 2),
        "children": rng.poisson(1.5, N).astype("int64"),
        "salary": rng.integers(20_000, 90_000, N),
        "stage": pd.Categorical(rng.choice(["I", "II", "III"], N), categories=["I", "II", "III"], ordered=True),
        "blood_group": rng.choice(["A", "B", "AB", "0"], N),
        "flag01": rng.integers(0, 2, N),
        "consent": rng.choice(["yes", "no"], N),
        "smoker": rng.integers(0, 2, N).astype(bool),
        "visit": day0 + pd.to_timedelta(rng.integers(0, 500, N), unit="D"),
        "visit_text": (day0 + pd.to_timedelta(rng.integers(0, 500, N), unit="D")).strftime("%Y-%m-%d"),
        "line": rng.permutation(np.arange(1001, 1001 + N)),
        "code": [f"P{i:05d}" for i in rng.permutation(N) + 17],
        "comment": sentences(rng, N),
        "country": ["DE"] * N,
        "version": [3] * N,
        "empty": [np.nan] * N,
    })


EXPECTED = {
    "weight": ColumnType.CONTINUOUS,
    "children": ColumnType.INTEGER,
    "salary": ColumnType.CONTINUOUS,
    "stage": ColumnType.ORDINAL,
    "blood_group": ColumnType.NOMINAL,
    "flag01": ColumnType.BINARY,
    "consent": ColumnType.BINARY,
    "smoker": ColumnType.BINARY,
    "visit": ColumnType.DATETIME,
    "visit_text": ColumnType.DATETIME,
    "line": ColumnType.IDENTIFIER,
    "code": ColumnType.IDENTIFIER,
    "comment": ColumnType.TEXT,
    "country": ColumnType.CONSTANT,
    "version": ColumnType.CONSTANT,
    "empty": ColumnType.CONSTANT,
}


# -- infer_schema --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(EXPECTED))
def test_inferred_type(typed_table, name):
    spec = infer_schema(typed_table)[name]
    assert spec.type == EXPECTED[name], f"{name}: {spec.type} ({spec.reason})"
    assert spec.reason.strip(), f"{name} has no reason"


@pytest.mark.parametrize("name", ["line", "code", "comment", "country", "version", "empty"])
def test_unmodelled_types_are_dropped_with_a_reason(typed_table, name):
    spec = infer_schema(typed_table)[name]
    assert spec.role == Role.DROPPED
    assert not spec.modelled
    assert spec.drop_reason and spec.drop_reason.strip()


def test_modelled_columns_are_covariates_without_drop_reason(typed_table):
    schema = infer_schema(typed_table)
    assert schema.names == list(typed_table.columns)
    for spec in schema.columns:
        if EXPECTED[spec.name] not in (ColumnType.IDENTIFIER, ColumnType.TEXT, ColumnType.CONSTANT):
            assert spec.role == Role.COVARIATE, spec.name
            assert spec.drop_reason is None, spec.name


def test_reasons_explain_the_evidence(typed_table):
    schema = infer_schema(typed_table)
    assert "whole numbers" in schema["salary"].reason and "continuous" in schema["salary"].reason
    assert "missing" in schema["empty"].reason
    assert "DE" in schema["country"].reason


def test_missing_and_unique_counts(typed_table):
    table = typed_table.copy()
    table.loc[:9, "weight"] = np.nan
    schema = infer_schema(table)
    assert schema["weight"].n_missing == 10
    assert schema["weight"].type == ColumnType.CONTINUOUS
    assert schema["empty"].n_missing == N
    assert schema["consent"].n_unique == 2


def test_integer_column_named_like_an_id_is_an_identifier():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"patient_id": rng.choice(np.arange(10_000, 99_999), 80, replace=False),
                          "score": rng.normal(size=80)})
    assert infer_schema(table)["patient_id"].type == ColumnType.IDENTIFIER


def test_integer_count_with_gaps_is_not_an_identifier():
    table = pd.DataFrame({"count": np.tile(np.arange(0, 10), 10)})
    assert infer_schema(table)["count"].type == ColumnType.INTEGER


def test_override_type_wins_and_says_set_by_user(typed_table):
    schema = infer_schema(typed_table)
    new = schema.override("children", type="continuous")
    assert new["children"].type == ColumnType.CONTINUOUS
    assert new["children"].reason == "set by user"
    assert schema["children"].type == ColumnType.INTEGER  # the original schema is unchanged
    new = schema.override("blood_group", type=ColumnType.ORDINAL)
    assert new["blood_group"].type == ColumnType.ORDINAL and new["blood_group"].reason == "set by user"


def test_override_role(typed_table):
    schema = infer_schema(typed_table)
    kept = schema.override("comment", type="nominal", role="covariate")
    assert kept["comment"].role == Role.COVARIATE and kept["comment"].drop_reason is None
    assert kept["comment"].reason == "set by user"
    assert "comment" in kept.modelled
    dropped = schema.override("weight", role=Role.DROPPED)
    assert dropped["weight"].role == Role.DROPPED
    assert "user" in dropped["weight"].drop_reason
    assert "weight" not in dropped.modelled


def test_override_unknown_column(typed_table):
    with pytest.raises(KeyError):
        infer_schema(typed_table).override("nope", type="nominal")


def test_with_roles_sets_response_and_sensitive(typed_table):
    schema = infer_schema(typed_table).with_roles("smoker", ["weight", "salary"])
    assert schema.response == "smoker"
    assert schema.sensitive == ["weight", "salary"]
    assert schema["smoker"].role == Role.RESPONSE
    assert "smoker" not in schema.covariates and "weight" in schema.covariates
    again = schema.with_roles("consent", ["children"])  # previous choices go back to covariate
    assert again.response == "consent" and again.sensitive == ["children"]
    assert again["smoker"].role == Role.COVARIATE and again["weight"].role == Role.COVARIATE
    assert again["comment"].role == Role.DROPPED  # dropped columns stay dropped


def test_infer_schema_with_roles(typed_table):
    schema = infer_schema(typed_table, response="flag01", sensitive=["weight"])
    assert schema.response == "flag01" and schema.sensitive == ["weight"]


def test_with_roles_unknown_column_names_it(typed_table):
    with pytest.raises(DataError) as info:
        infer_schema(typed_table).with_roles("outcome")
    assert info.value.column == "outcome"
    assert "'outcome'" in str(info.value) and "Choose one of" in str(info.value)


def test_schema_dict_round_trip(typed_table):
    schema = infer_schema(typed_table, response="flag01", sensitive=["weight"]).override("children", type="continuous")
    assert Schema.from_dict(schema.to_dict()) == schema


# -- validate / check ----------------------------------------------------------------------------

def _messages(problems) -> str:
    return " | ".join(str(p) for p in problems)


def test_valid_table_has_no_problems(small_table):
    schema = infer_schema(small_table, response="y", sensitive=["income"])
    assert validate(small_table, schema) == []
    check(small_table, schema)  # does not raise


def test_too_few_rows():
    table = make_small_table(n=30)
    problems = validate(table, infer_schema(table, response="y", sensitive=["income"]))
    assert len(problems) == 1
    assert "30 rows" in str(problems[0]) and "50" in str(problems[0])
    assert "larger table" in str(problems[0])


def test_no_response_chosen(small_table):
    problems = validate(small_table, infer_schema(small_table, sensitive=["income"]))
    assert len(problems) == 1
    assert "No response" in str(problems[0]) and "Pick" in str(problems[0])


def test_response_not_in_table(small_table):
    schema = infer_schema(small_table, response="y", sensitive=["income"])
    table = small_table.drop(columns="y")  # e.g. a different file than the schema was made for
    problems = validate(table, schema)
    first = problems[0]
    assert first.column == "y"
    assert "'y'" in str(first) and "not in the table" in str(first)
    assert "Choose one of" in str(first) and "income" in str(first)


def test_response_with_one_class(small_table):
    table = small_table.assign(y=1)
    problems = validate(table, infer_schema(table, response="y", sensitive=["income"]))
    assert [p.column for p in problems] == ["y"]
    assert "'y'" in str(problems[0]) and "two classes" in str(problems[0])
    assert "another response" in str(problems[0])


def test_duplicate_column_names(small_table):
    schema = infer_schema(small_table, response="y", sensitive=["income"])
    table = small_table.copy()
    table.columns = ["age", "income", "age", "color", "y"]
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["age"]
    assert "'age' appears 2 times" in str(problems[0]) and "Rename" in str(problems[0])


def test_empty_column_name(small_table):
    schema = infer_schema(small_table, response="y", sensitive=["income"])
    table = small_table.copy()
    table.columns = ["age", "income", "", "color", "y"]
    problems = validate(table, schema)
    assert len(problems) == 1
    assert "Column 3 has no name" in str(problems[0]) and "header" in str(problems[0])


def test_all_missing_column_with_modelled_role(small_table):
    table = small_table.assign(lab_value=np.nan)
    schema = infer_schema(table, response="y", sensitive=["income"]).override("lab_value", role="covariate")
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["lab_value"]
    assert "'lab_value'" in str(problems[0]) and "no values" in str(problems[0])
    assert "Drop the column" in str(problems[0])
    # left dropped (as inferred), the same column is fine
    assert validate(table, infer_schema(table, response="y", sensitive=["income"])) == []


def test_more_modelled_columns_than_rows():
    rng = np.random.default_rng(5)
    table = pd.DataFrame(np.round(rng.normal(size=(60, 70)), 3), columns=[f"c{i}" for i in range(70)])
    table["y"] = rng.integers(0, 2, 60)
    problems = validate(table, infer_schema(table, response="y", sensitive=["c0"]))
    assert len(problems) == 1
    assert "(71)" in str(problems[0]) and "(60)" in str(problems[0])
    assert "Drop columns" in str(problems[0])


@pytest.mark.parametrize("kind", ["text", "identifier"])
def test_sensitive_column_of_unusable_type(small_table, kind):
    rng = np.random.default_rng(1)
    column = sentences(rng, len(small_table)) if kind == "text" else [f"P{i:05d}" for i in range(len(small_table))]
    table = small_table.assign(secret=column)
    schema = infer_schema(table, response="y", sensitive=["secret"])
    assert schema["secret"].type == ColumnType(kind)
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["secret"]
    assert "'secret'" in str(problems[0]) and kind in str(problems[0])
    assert "another sensitive column" in str(problems[0])


def test_nominal_sensitive_with_pearson(small_table):
    schema = infer_schema(small_table, response="y", sensitive=["color"])
    problems = validate(small_table, schema, measure="pearson")
    assert [p.column for p in problems] == ["color"]
    assert "'color'" in str(problems[0]) and "Pearson" in str(problems[0])
    assert "Kendall" in str(problems[0]) and "ordinal" in str(problems[0])
    assert validate(small_table, schema, measure="kendall") == []
    # following the advice (mark it ordinal) must make the table valid
    assert validate(small_table, schema.override("color", type="ordinal"), measure="pearson") == []


@pytest.mark.parametrize("measure", ["kendall", "pearson"])
def test_ordered_categorical_with_text_labels_can_be_sensitive(small_table, measure):
    rng = np.random.default_rng(4)
    table = small_table.assign(stage=pd.Categorical(rng.choice(["I", "II", "III"], len(small_table)),
                                                    categories=["I", "II", "III"], ordered=True))
    schema = infer_schema(table, response="y", sensitive=["stage"])
    assert schema["stage"].type == ColumnType.ORDINAL
    assert validate(table, schema, measure=measure) == []


@pytest.mark.parametrize("role", ["covariate", "sensitive"])
def test_continuous_column_with_non_numeric_strings(small_table, role):
    rng = np.random.default_rng(2)
    table = small_table.assign(dose=rng.choice(["10", "20", "30", "n/a"], len(small_table)))
    schema = infer_schema(table, response="y", sensitive=["income"])
    assert schema["dose"].type == ColumnType.NOMINAL
    if role == "sensitive":
        schema = schema.with_roles("y", ["dose"])
    schema = schema.override("dose", type="continuous")
    problems = validate(table, schema)
    assert [p.column for p in problems] == ["dose"]
    assert "'dose'" in str(problems[0]) and "non-numeric" in str(problems[0]) and "'n/a'" in str(problems[0])
    assert "mark it nominal" in str(problems[0])


def test_numeric_strings_marked_continuous_are_fine(small_table):
    table = small_table.assign(dose=np.random.default_rng(2).choice(["10", "20.5", "30"], len(small_table)))
    schema = infer_schema(table, response="y", sensitive=["income"]).override("dose", type="continuous")
    assert validate(table, schema) == []


def test_check_raises_one_error_or_all_of_them(small_table):
    table = small_table.assign(y=1)
    schema = infer_schema(table, response="y", sensitive=["color"])
    with pytest.raises(DataError, match="two classes"):
        check(table, schema)
    with pytest.raises(DataErrors) as info:
        check(table, schema, measure="pearson")
    assert {p.column for p in info.value.problems} == {"y", "color"}
    assert "two classes" in str(info.value) and "Pearson" in str(info.value)


# -- the same problems through TVineSynth.fit ----------------------------------------------------

def _fit(table, **kwargs):
    kwargs.setdefault("sensitive", ["income"])
    return TVineSynth(families=FamilySet.GAUSSIAN, seed=0, **kwargs).fit(table)


def test_fit_refuses_too_few_rows():
    with pytest.raises(DataError, match="at least 50"):
        _fit(make_small_table(n=30), response="y")


def test_fit_refuses_missing_response(small_table):
    with pytest.raises(DataError, match="No response"):
        _fit(small_table)


def test_fit_refuses_unknown_response(small_table):
    with pytest.raises(DataError) as info:
        _fit(small_table, response="death")
    assert info.value.column == "death" and "not in the table" in str(info.value)


def test_fit_refuses_single_class_response(small_table):
    with pytest.raises(DataError, match="two classes"):
        _fit(small_table.assign(y=0), response="y")


def test_fit_refuses_text_sensitive_column(small_table):
    table = small_table.assign(notes=sentences(np.random.default_rng(0), len(small_table)))
    with pytest.raises(DataError) as info:
        _fit(table, response="y", sensitive=["notes"])
    assert info.value.column == "notes"


def test_fit_refuses_bad_user_schema(small_table):
    table = small_table.assign(dose=np.random.default_rng(2).choice(["10", "20", "n/a"], len(small_table)))
    schema = infer_schema(table).override("dose", type="continuous")
    with pytest.raises(DataError, match="'dose'"):
        TVineSynth(response="y", sensitive=["income"], families=FamilySet.GAUSSIAN, seed=0).fit(table, schema)


def test_fit_refuses_all_missing_modelled_column(small_table):
    table = small_table.assign(lab_value=np.nan)
    schema = infer_schema(table)
    schema = Schema(tuple(replace(c, role=Role.COVARIATE, drop_reason=None) if c.name == "lab_value" else c
                          for c in schema.columns))
    with pytest.raises(DataError, match="lab_value"):
        TVineSynth(response="y", sensitive=["income"], families=FamilySet.GAUSSIAN, seed=0).fit(table, schema)


def test_overriding_the_type_of_an_inferred_drop_brings_the_column_back():
    table = pd.DataFrame({"code": [f"P{i:05d}" for i in range(100)], "y": [0, 1] * 50})
    schema = infer_schema(table)
    assert schema["code"].role == Role.DROPPED
    fixed = schema.override("code", type="nominal")
    assert fixed["code"].role == Role.COVARIATE and fixed["code"].drop_reason is None
    dropped = fixed.override("code", role="dropped").override("code", type="ordinal")
    assert dropped["code"].role == Role.DROPPED  # the user's own drop is kept
    assert infer_schema(table).override("y", type="text")["y"].role == Role.DROPPED


def severity_table(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """A text ordinal whose alphabetical order (high < low < medium) is not its real order."""
    rng = np.random.default_rng(seed)
    score = rng.normal(size=n)
    severity = np.select([score < -0.5, score < 0.5], ["low", "medium"], "high")
    return pd.DataFrame({"severity": severity, "lab_value": score + rng.normal(scale=0.3, size=n),
                         "outcome": (score + rng.normal(size=n) > 0).astype(int)})


def test_user_order_of_ordinal_labels_reaches_the_model_and_the_release():
    table = severity_table()
    schema = infer_schema(table).with_roles("outcome", ["lab_value"])
    ordered = schema.override("severity", levels=["low", "medium", "high"])
    assert ordered["severity"].type == ColumnType.ORDINAL and ordered["severity"].levels == ("low", "medium", "high")
    assert Schema.from_dict(ordered.to_dict())["severity"].levels == ("low", "medium", "high")
    model = TVineSynth(response="outcome", sensitive=["lab_value"], seed=0).fit(table, schema=ordered)
    code = next(c for c in model.encoder_.codes if c.name == "severity")
    assert code.categories == ["low", "medium", "high"]
    synthetic = model.sample(2000, seed=1)
    assert set(synthetic["severity"]) <= {"low", "medium", "high"}
    means = synthetic.groupby("severity")["lab_value"].mean()
    assert means["low"] < means["medium"] < means["high"]  # the modelled order is the real one


def test_an_order_missing_a_label_is_refused_by_name():
    table = severity_table()
    schema = infer_schema(table).with_roles("outcome", ["lab_value"]).override("severity", levels=["low", "high"])
    problems = [p for p in validate(table, schema) if p.column == "severity"]
    assert len(problems) == 1 and "'medium'" in str(problems[0])
    assert schema.override("severity", type="nominal")["severity"].levels is None
