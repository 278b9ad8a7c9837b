"""Every column type survives fit -> sample: names, order, dtypes, labels, integers, dates, seeds, saving."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_mixed_table
from tvs_core import SyntheticGenerator, TVineSynth, load_model
from tvs_core.data.io import read_table
from tvs_core.data.missing import MissingPolicy
from tvs_core.data.schema import ColumnType, Role, infer_schema
from tvs_core.errors import DataError
from tvs_core.model.families import FamilySet

N_SAMPLE = 400
LEVEL = 2


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return make_mixed_table()


@pytest.fixture(scope="module")
def model(table):
    return TVineSynth(response="outcome", sensitive=["weight"], families=FamilySet.GAUSSIAN, seed=0).fit(table)


@pytest.fixture(scope="module")
def synthetic(model):
    return model.sample(N_SAMPLE, truncation_level=LEVEL, seed=5)


def test_fixture_covers_every_type(model):
    types = {spec.name: spec.type for spec in model.schema_.columns}
    assert types == {
        "weight": ColumnType.CONTINUOUS, "visits": ColumnType.INTEGER, "salary": ColumnType.CONTINUOUS,
        "stage": ColumnType.ORDINAL, "colour": ColumnType.NOMINAL, "ward": ColumnType.NOMINAL,
        "smoker": ColumnType.BINARY, "insured": ColumnType.BINARY, "admitted": ColumnType.DATETIME,
        "measured_at": ColumnType.DATETIME, "patient_code": ColumnType.IDENTIFIER,
        "row_number": ColumnType.IDENTIFIER, "notes": ColumnType.TEXT, "site": ColumnType.CONSTANT,
        "outcome": ColumnType.BINARY,
    }
    assert model.schema_["outcome"].role == Role.RESPONSE
    assert model.fitted_level_ >= LEVEL


def test_same_columns_in_the_same_order(synthetic, table):
    assert list(synthetic.columns) == list(table.columns)
    assert len(synthetic) == N_SAMPLE
    assert synthetic.index.equals(pd.RangeIndex(N_SAMPLE))


def test_same_dtypes(synthetic, table):
    assert dict(synthetic.dtypes.astype(str)) == dict(table.dtypes.astype(str))


@pytest.mark.parametrize("column", ["stage", "ward"])
def test_categoricals_keep_categories_and_ordered_flag(synthetic, table, column):
    out, original = synthetic[column].dtype, table[column].dtype
    assert isinstance(out, pd.CategoricalDtype)
    assert list(out.categories) == list(original.categories)  # including the unused 'critical'
    assert out.ordered == original.ordered
    assert out == original


@pytest.mark.parametrize("column", ["stage", "colour", "ward", "smoker", "insured", "outcome", "visits"])
def test_sampled_labels_come_from_training(synthetic, table, column):
    released = set(synthetic[column].dropna())
    assert released <= set(table[column].dropna())
    assert len(released) >= 2  # not collapsed onto one label


def test_no_missing_values_invented(synthetic):
    modelled = ["weight", "visits", "salary", "stage", "colour", "ward", "smoker", "insured", "admitted",
                "measured_at", "outcome"]
    assert not synthetic[modelled].isna().any().any()


def test_integers_stay_integers(synthetic, table):
    for column in ["visits", "salary"]:
        assert pd.api.types.is_integer_dtype(synthetic[column])
    assert synthetic["salary"].between(table["salary"].min(), table["salary"].max()).all()
    assert synthetic["salary"].nunique() > 50  # continuous model, rounded: not only training values


def test_continuous_column_keeps_its_range_and_precision(synthetic, table):
    weight = synthetic["weight"]
    assert weight.between(table["weight"].min(), table["weight"].max()).all()
    np.testing.assert_allclose(weight, weight.round(2))  # recorded to two decimals
    assert weight.std() == pytest.approx(table["weight"].std(), rel=0.3)


def test_dates_stay_dates(synthetic, table):
    admitted = synthetic["admitted"]
    assert (admitted == admitted.dt.normalize()).all()  # date-only stays at midnight
    assert admitted.between(table["admitted"].min(), table["admitted"].max()).all()
    measured = synthetic["measured_at"]
    assert (measured != measured.dt.normalize()).any()  # times of day are kept
    assert measured.between(table["measured_at"].min(), table["measured_at"].max()).all()


@pytest.mark.parametrize("column", ["patient_code", "row_number"])
def test_identifiers_are_fresh(synthetic, table, column):
    ids = synthetic[column]
    assert ids.notna().all()
    assert ids.is_unique
    assert not set(ids) & set(table[column])


def test_text_is_left_empty(synthetic):
    assert synthetic["notes"].isna().all()


def test_constant_is_repeated(synthetic):
    assert (synthetic["site"] == "Berlin").all()


def test_same_seed_same_table_different_seed_different_table(model, synthetic):
    pd.testing.assert_frame_equal(model.sample(N_SAMPLE, truncation_level=LEVEL, seed=5), synthetic)
    other = model.sample(N_SAMPLE, truncation_level=LEVEL, seed=6)
    assert not other.equals(synthetic)
    assert not np.allclose(other["weight"].to_numpy(), synthetic["weight"].to_numpy())


def test_sampling_does_not_depend_on_call_order(model, synthetic):
    model.sample(50, truncation_level=0, seed=5)
    model.sample(50, seed=1)
    pd.testing.assert_frame_equal(model.sample(N_SAMPLE, truncation_level=LEVEL, seed=5), synthetic)


def test_json_round_trip_samples_identically(model, synthetic):
    loaded = SyntheticGenerator.from_json(model.to_json())
    assert type(loaded) is TVineSynth
    pd.testing.assert_frame_equal(loaded.sample(N_SAMPLE, truncation_level=LEVEL, seed=5), synthetic)


def test_saved_file_samples_identically(model, synthetic, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    pd.testing.assert_frame_equal(load_model(path).sample(N_SAMPLE, truncation_level=LEVEL, seed=5), synthetic)


def test_a_saved_model_keeps_its_family_set_as_text_and_loads_it_typed(model):
    saved = json.loads(model.to_json())
    assert saved["config"]["families"] == "gaussian"  # the text every version has saved
    assert SyntheticGenerator.from_json(json.dumps(saved)).families is FamilySet.GAUSSIAN


def test_a_saved_model_naming_a_family_set_this_version_lacks_is_refused_in_words(model):
    saved = json.loads(model.to_json())
    saved["config"]["families"] = "gauss"
    with pytest.raises(DataError, match="The setting 'pair-copula families' cannot be 'gauss'") as caught:
        SyntheticGenerator.from_json(json.dumps(saved))
    assert all(str(name) in caught.value.fix for name in FamilySet)


def test_unfitted_model_cannot_sample():
    with pytest.raises(RuntimeError, match="fit"):
        TVineSynth(response="y", sensitive=["x"], families=FamilySet.GAUSSIAN).sample(5)


# -- tables read from CSV: dates and labels as text ----------------------------------------------

def _csv_table(tmp_path) -> pd.DataFrame:
    frame = make_mixed_table(n=150, seed=3)[["weight", "visits", "colour", "insured", "admitted",
                                             "measured_at", "outcome"]].copy()
    frame["admitted"] = frame["admitted"].dt.strftime("%Y-%m-%d")
    frame["measured_at"] = frame["measured_at"].dt.strftime("%Y-%m-%d %H:%M:%S")
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return read_table(path)


def test_csv_table_with_text_dates_round_trips(tmp_path):
    table = _csv_table(tmp_path)
    schema = infer_schema(table)
    assert schema["admitted"].type == ColumnType.DATETIME and schema["measured_at"].type == ColumnType.DATETIME
    model = TVineSynth(response="outcome", sensitive=["weight"], families=FamilySet.GAUSSIAN, seed=0).fit(table)
    synthetic = model.sample(200, seed=1)
    assert list(synthetic.columns) == list(table.columns)
    assert dict(synthetic.dtypes.astype(str)) == dict(table.dtypes.astype(str))
    assert synthetic["admitted"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert synthetic["measured_at"].str.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}").all()
    admitted = pd.to_datetime(synthetic["admitted"])
    assert admitted.between(pd.to_datetime(table["admitted"]).min(), pd.to_datetime(table["admitted"]).max()).all()
    assert set(synthetic["colour"]) <= set(table["colour"])


def test_csv_table_with_missing_text_dates_imputed(tmp_path):
    table = _csv_table(tmp_path)
    table.loc[::6, "admitted"] = np.nan
    model = TVineSynth(response="outcome", sensitive=["weight"], families=FamilySet.GAUSSIAN, seed=0,
                       missing=MissingPolicy.IMPUTE).fit(table)
    assert model.missing_report_.cells_imputed == {"admitted": 25}
    synthetic = model.sample(600, seed=2)
    assert str(synthetic["admitted"].dtype) == str(table["admitted"].dtype)
    assert 0 < synthetic["admitted"].isna().mean() < 0.4
    assert synthetic["admitted"].dropna().str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()


# -- target ordering -----------------------------------------------------------------------------

def test_nominal_codes_are_ordered_by_mean_response():
    rng = np.random.default_rng(21)
    n = 240
    rate = {"north": 0.1, "west": 0.35, "south": 0.65, "east": 0.9}  # alphabetical order differs
    region = rng.choice(list(rate), n)
    pd_categorical = pd.Categorical(rng.choice(["x", "y", "z"], n))  # unrelated to the response
    table = pd.DataFrame({
        "region": region,
        "kind": pd_categorical,
        "score": rng.normal(size=n),
        "event": (rng.random(n) < np.vectorize(rate.get)(region)).astype("int64"),
    })
    means = table.groupby("region")["event"].mean().sort_values()
    assert list(means.index) == ["north", "west", "south", "east"]  # the fixture does what it should
    model = TVineSynth(response="event", sensitive=["score"], families=FamilySet.GAUSSIAN, seed=0).fit(table)
    codes = {code.name: code for code in model.encoder_.codes}
    assert codes["region"].categories == ["north", "west", "south", "east"]
    kind_means = table.groupby("kind", observed=True)["event"].mean().sort_values(kind="mergesort")
    assert codes["kind"].categories == list(kind_means.index)
    assert codes["event"].categories == [0, 1]  # the response keeps its own order
    synthetic = model.sample(2000, seed=0)
    released = synthetic.groupby("region")["event"].mean()
    assert released["north"] < released["east"]  # the relation to the response survives


def test_datetimes_recorded_in_whole_seconds_stay_whole_seconds():
    rng = np.random.default_rng(0)
    stamps = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10**7, 200), unit="s")
    table = pd.DataFrame({"admitted": stamps, "x": rng.normal(size=200), "y": rng.integers(0, 2, 200)})
    out = TVineSynth(response="y", sensitive=["x"], families=FamilySet.GAUSSIAN).fit(table).sample(300, seed=1)
    assert str(out["admitted"].dtype) == str(table["admitted"].dtype)
    assert (out["admitted"] == out["admitted"].dt.floor("s")).all()


def test_released_values_keep_the_input_precision():
    """Up to 15 decimals are kept as recorded (not 19-20 digits), and whole numbers with a stray
    half stay whole numbers (issue 9: 'bun' came out 17 % non-integer)."""
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=n)
    table = pd.DataFrame({"bun": np.round(20 + 5 * x), "ten": np.round(rng.normal(size=n), 10),
                          "y": (x + rng.normal(size=n) > 0).astype(int)})
    table.loc[7, "bun"] = 12.5
    released = TVineSynth(response="y", sensitive=["bun"]).fit(table).sample(400, truncation_level=1, seed=0)
    assert (released["bun"] % 1 == 0).all()
    decimals = released["ten"].map(lambda v: len(repr(float(v)).split(".")[1]))
    assert decimals.max() <= 10
