"""Missing values: the policy does what it reports, and synthetic data reproduce the missingness."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import sentences
from tvs_core import TVineSynth
from tvs_core.data.missing import INDICATOR_SUFFIX, MissingPolicy, apply_missing_policy
from tvs_core.data.schema import ColumnType, Role, infer_schema
from tvs_core.errors import DataError
from tvs_core.model.families import FamilySet

N = 240
AGE_MISSING = np.arange(0, N, 5)  # every fifth row: 20 %
GROUP_MISSING = np.arange(0, 40, 2)  # 20 rows, half of them also miss age
VISITS_MISSING = np.arange(100, 112)
DAY_MISSING = np.arange(200, 206)
RESPONSE_MISSING = [1, 3, 7]  # none of these rows miss anything else


@pytest.fixture(scope="module")
def holey_table() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    x = rng.normal(size=N)
    table = pd.DataFrame({
        "age": np.round(50 + 10 * rng.normal(size=N), 1),
        "bp": np.round(120 + 10 * x, 2),
        "group": rng.choice(["a", "b", "c"], N),
        "visits": pd.array(rng.poisson(3, N), dtype="Int64"),
        "day": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 300, N), unit="D"),
        "notes": sentences(rng, N),  # dropped as text; its missing values must not matter
        "y": (x + rng.normal(size=N) > 0).astype(float),
    })
    table.loc[AGE_MISSING, "age"] = np.nan
    table.loc[GROUP_MISSING, "group"] = np.nan
    table.loc[VISITS_MISSING, "visits"] = pd.NA
    table.loc[DAY_MISSING, "day"] = pd.NaT
    table.loc[np.arange(50, 120), "notes"] = np.nan
    table.loc[RESPONSE_MISSING, "y"] = np.nan
    return table


@pytest.fixture(scope="module")
def schema(holey_table):
    return infer_schema(holey_table, response="y", sensitive=["bp"])


def _rows_with_missing(table: pd.DataFrame, columns) -> set[int]:
    return set(np.flatnonzero(table[list(columns)].isna().any(axis=1).to_numpy()))


# -- apply_missing_policy ------------------------------------------------------------------------

def test_schema_sees_the_missing_values(schema):
    assert schema["age"].n_missing == len(AGE_MISSING)
    assert schema["notes"].type == ColumnType.TEXT and schema["notes"].role == Role.DROPPED


def test_drop_rows_reports_rows_dropped(holey_table, schema):
    out, out_schema, report = apply_missing_policy(holey_table, schema, "drop_rows")
    expected = _rows_with_missing(holey_table, ["age", "bp", "group", "visits", "day", "y"])
    assert report.policy == "drop_rows"
    assert report.rows_before == N
    assert report.rows_dropped == len(expected)
    assert report.rows_after == N - len(expected) == len(out)
    assert report.rows_dropped_for_response == len(RESPONSE_MISSING)
    assert not out.isna().any().any()
    assert list(out.columns) == schema.modelled and "notes" not in out.columns
    assert out_schema.names == schema.modelled
    assert f"dropped {len(expected)} of {N} rows" in report.summary()
    # the surviving rows are the complete ones, in their original order, under their labels in the table given
    kept = [i for i in range(N) if i not in expected]
    pd.testing.assert_series_equal(out["bp"], holey_table["bp"].iloc[kept])


def test_missing_values_in_dropped_columns_do_not_drop_rows(holey_table, schema):
    only_notes = holey_table.assign(age=holey_table["age"].fillna(40.0), group=holey_table["group"].fillna("a"),
                                    visits=holey_table["visits"].fillna(1), day=holey_table["day"].fillna(
                                        pd.Timestamp("2021-01-01")), y=holey_table["y"].fillna(0.0))
    assert only_notes["notes"].isna().sum() > 0
    _, _, report = apply_missing_policy(only_notes, schema, "drop_rows")
    assert report.rows_dropped == 0


def test_impute_reports_cells_per_column(holey_table, schema):
    out, out_schema, report = apply_missing_policy(holey_table, schema, "impute")
    kept = [i for i in range(N) if i not in RESPONSE_MISSING]
    expected_cells = {c: int(holey_table[c].iloc[kept].isna().sum()) for c in ["age", "group", "visits", "day"]}
    assert report.cells_imputed == expected_cells
    assert expected_cells == {"age": len(AGE_MISSING), "group": len(GROUP_MISSING),
                              "visits": len(VISITS_MISSING), "day": len(DAY_MISSING)}
    assert "bp" not in report.cells_imputed  # nothing to impute there
    assert report.rows_dropped == report.rows_dropped_for_response == len(RESPONSE_MISSING)
    assert report.rows_after == len(out) == N - len(RESPONSE_MISSING)
    assert f"imputed {sum(expected_cells.values())} cells in 4 columns" in report.summary()
    assert f"dropped {len(RESPONSE_MISSING)} rows with a missing response" in report.summary()
    assert not out.isna().any().any()


def test_impute_adds_indicators_matching_the_missing_cells(holey_table, schema):
    out, out_schema, report = apply_missing_policy(holey_table, schema, "impute")
    kept = holey_table.drop(index=RESPONSE_MISSING).reset_index(drop=True)
    for column in ["age", "group", "visits", "day"]:
        indicator = column + INDICATOR_SUFFIX
        assert report.indicator_columns[column] == indicator
        assert indicator in out.columns
        np.testing.assert_array_equal(out[indicator].to_numpy(), kept[column].isna().to_numpy().astype(int))
        assert out_schema[indicator].type == ColumnType.BINARY
        assert out_schema[indicator].role == Role.COVARIATE
    assert "bp" + INDICATOR_SUFFIX not in out.columns
    assert out_schema.response == "y"


def test_impute_fill_values(holey_table, schema):
    out, _, report = apply_missing_policy(holey_table, schema, "impute")
    kept = holey_table.drop(index=RESPONSE_MISSING)
    assert out.index.equals(kept.index)  # the rows kept, under their labels in the table given
    assert report.fill_values["age"] == pytest.approx(kept["age"].median())
    assert report.fill_values["group"] == kept["group"].mode().iloc[0]
    assert isinstance(report.fill_values["visits"], int)
    assert (out.loc[kept["age"].isna(), "age"] == kept["age"].median()).all()
    # observed values are untouched
    pd.testing.assert_series_equal(out.loc[kept["age"].notna(), "age"], kept.loc[kept["age"].notna(), "age"])


def _two_day_table(n: int = 120) -> pd.DataFrame:
    """A date-only column whose median falls between two days (at noon), 20 % missing."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=n)
    day = pd.Series(pd.Timestamp("2022-05-01") + pd.to_timedelta(np.arange(n) % 2, unit="D"))
    day[np.arange(0, n, 5)] = pd.NaT  # 24 missing, 12 of each day, so 48 + 48 observed
    return pd.DataFrame({"x": x, "day": day, "y": (x + rng.normal(size=n) > 0).astype("int64")})


def test_impute_keeps_a_date_only_column_at_midnight():
    table = _two_day_table()
    observed = table["day"].dropna()
    assert observed.median() != observed.median().normalize()  # the naive median is at noon
    out, _, report = apply_missing_policy(table, infer_schema(table, response="y"), "impute")
    assert report.cells_imputed == {"day": 24}
    assert (out["day"] == out["day"].dt.normalize()).all()


def test_imputed_date_only_column_is_released_as_dates():
    table = _two_day_table()
    model = TVineSynth(response="y", sensitive=["x"], families=FamilySet.GAUSSIAN, seed=0,
                       missing=MissingPolicy.IMPUTE).fit(table)
    day = model.sample(500, seed=3)["day"]
    assert day.isna().any()
    observed = day.dropna()
    assert (observed == observed.dt.normalize()).all()
    assert set(observed) <= set(table["day"].dropna())


def test_unknown_policy_is_refused(holey_table, schema):
    with pytest.raises(DataError, match="drop_rows"):
        apply_missing_policy(holey_table, schema, "mean")


# -- through TVineSynth --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def imputed_model(holey_table):
    return TVineSynth(response="y", sensitive=["bp"], families=FamilySet.GAUSSIAN, seed=0,
                      missing=MissingPolicy.IMPUTE).fit(holey_table)


@pytest.fixture(scope="module")
def imputed_sample(imputed_model):
    return imputed_model.sample(2000, seed=1)


def test_fit_reports_the_policy(imputed_model):
    report = imputed_model.missing_report_
    assert report.policy == "impute"
    assert report.rows_dropped_for_response == len(RESPONSE_MISSING)
    assert report.cells_imputed["age"] == len(AGE_MISSING)
    assert imputed_model.n_train_ == N - len(RESPONSE_MISSING)


def test_imputed_model_reproduces_the_share_of_missing_values(imputed_sample, holey_table):
    share = imputed_sample["age"].isna().mean()
    assert holey_table["age"].isna().mean() == pytest.approx(0.2)
    assert 0.05 <= share <= 0.40, share
    for column in ["group", "visits", "day"]:
        assert 0 < imputed_sample[column].isna().sum() < 0.3 * len(imputed_sample), column
    assert not imputed_sample["bp"].isna().any()  # never missing in training, never missing here


def test_imputed_model_never_releases_a_missing_response(imputed_sample):
    assert not imputed_sample["y"].isna().any()
    assert set(imputed_sample["y"].unique()) <= {0.0, 1.0}


def test_no_indicator_columns_leak(imputed_sample, holey_table):
    assert list(imputed_sample.columns) == list(holey_table.columns)
    assert not any(c.endswith(INDICATOR_SUFFIX) for c in imputed_sample.columns)


def test_imputed_model_keeps_dtypes(imputed_sample, holey_table):
    assert dict(imputed_sample.dtypes.astype(str)) == dict(holey_table.dtypes.astype(str))
    observed = imputed_sample["group"].dropna()
    assert set(observed) <= set(holey_table["group"].dropna())
    visits = imputed_sample["visits"].dropna()
    assert set(visits) <= set(holey_table["visits"].dropna())
    day = imputed_sample["day"].dropna()
    assert (day == day.dt.normalize()).all()


def test_imputed_model_saved_and_loaded_samples_the_same(imputed_model):
    from tvs_core import SyntheticGenerator

    again = SyntheticGenerator.from_json(imputed_model.to_json())
    pd.testing.assert_frame_equal(again.sample(300, seed=4), imputed_model.sample(300, seed=4))
    assert again.missing_report_.indicator_columns == imputed_model.missing_report_.indicator_columns


def test_drop_rows_model_releases_complete_rows(holey_table):
    model = TVineSynth(response="y", sensitive=["bp"], families=FamilySet.GAUSSIAN, seed=0).fit(holey_table)
    expected = _rows_with_missing(holey_table, ["age", "bp", "group", "visits", "day", "y"])
    assert model.missing_report_.rows_dropped == len(expected)
    assert model.n_train_ == N - len(expected)
    synthetic = model.sample(500, seed=2)
    assert not synthetic.drop(columns="notes").isna().any().any()
    assert synthetic["notes"].isna().all()  # text is not released
    assert list(synthetic.columns) == list(holey_table.columns)


def test_drop_rows_leaving_too_few_rows_suggests_impute():
    rng = np.random.default_rng(3)
    n = 80
    x = rng.normal(size=n)
    table = pd.DataFrame({"a": x, "b": rng.normal(size=n), "y": (x > 0).astype(int)})
    table.loc[: n // 2, "b"] = np.nan
    with pytest.raises(DataError) as info:
        TVineSynth(response="y", sensitive=["a"], families=FamilySet.GAUSSIAN, seed=0).fit(table)
    assert "impute" in str(info.value) and "rows" in str(info.value)
    model = TVineSynth(response="y", sensitive=["a"], families=FamilySet.GAUSSIAN, seed=0,
                       missing=MissingPolicy.IMPUTE).fit(table)
    assert model.missing_report_.cells_imputed == {"b": n // 2 + 1}
