"""tvs_core.model.generator: settings read from the signature, the fit's refusals, encoded fits, seeds, decoding
of the columns a model does not learn, and saved files it will not read."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tests.helpers import CopyRows
from tvs_core.data.margins import MarginKind
from tvs_core.data.missing import MissingPolicy
from tvs_core.data.schema import infer_schema
from tvs_core.errors import DataError
from tvs_core.model.baselines import IndependentMargins
from tvs_core.model.generator import SyntheticGenerator, _regenerate
from tvs_core.model.ordering import Measure


class Tuned(CopyRows):
    """A subclass with settings of its own, one of them repeating a base setting, and **kwargs."""

    name = "tuned_generator_test"

    def __init__(self, strength: float = 1.0, seed: int = 5, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.strength = strength


def test_parameter_names_are_the_subclasses_first_then_the_bases_each_once():
    names = Tuned.parameter_names()
    assert names[:2] == ["strength", "seed"]
    assert len(names) == len(set(names)) and "kwargs" not in names and "self" not in names
    assert set(SyntheticGenerator.parameter_names()) <= set(names)


def test_a_config_rebuilds_an_equal_generator():
    model = Tuned(strength=2.5, response="y", sensitive=["age"], seed=9)
    config = model.get_config()
    assert config["strength"] == 2.5 and config["seed"] == 9 and config["sensitive"] == ["age"]
    assert Tuned(**config).get_config() == config


def test_roles_given_in_init_override_the_schemas_and_a_single_name_is_one_column():
    schema = infer_schema(make_small_table())
    assert CopyRows()._roles(schema) is schema  # nothing given: the schema as it was
    roled = CopyRows(response="y", sensitive="income")._roles(schema)
    assert roled.response == "y" and roled.sensitive == ["income"]


def test_too_few_rows_left_by_the_missing_value_policy_is_refused_with_the_fix():
    table = make_small_table(120)
    table.loc[table.index[:100], "age"] = np.nan
    with pytest.raises(DataError, match="Only 20 of 120 rows") as caught:
        CopyRows(response="y").fit(table)
    assert "impute" in caught.value.fix


def test_a_response_left_with_one_class_is_refused_naming_it_and_impute_fits():
    table = make_small_table(120)
    table.loc[table["y"] == 1, "age"] = np.nan
    with pytest.raises(DataError, match="single class") as caught:
        CopyRows(response="y").fit(table)
    assert caught.value.column == "y" and "impute" in caught.value.fix
    assert CopyRows(response="y", missing=MissingPolicy.IMPUTE).fit(table).n_train_ == 120


@pytest.mark.parametrize("n", [0, -3])
def test_asking_for_no_rows_is_refused(n):
    model = CopyRows(response="y").fit(make_small_table())
    with pytest.raises(DataError, match="at least 1"):
        model.sample(n)


def test_fitting_on_the_encoded_rows_samples_what_fitting_on_the_table_does():
    """The games fit on rows the holder's encoder already encoded; that must be the same model."""
    table = make_small_table(120)
    on_table = CopyRows(response="y", seed=3).fit(table)
    encoded = on_table.encoder_.transform(table)
    on_values = CopyRows(response="y", seed=3).fit_encoded(encoded, on_table.encoder_, on_table.schema_)
    assert on_values.n_train_ == on_table.n_train_ == 120
    assert np.array_equal(on_values.sample_values(40, seed=2), on_table.sample_values(40, seed=2))
    pd.testing.assert_frame_equal(on_values.sample(40, seed=2), on_table.sample(40, seed=2))


def test_a_call_seed_and_the_level_each_pick_their_own_stream_and_none_means_the_models_seed():
    model = CopyRows(seed=4)
    first = model._rng(None, None).random(3)
    assert np.array_equal(first, model._rng(4, None).random(3))
    assert not np.array_equal(first, model._rng(5, None).random(3))
    assert not np.array_equal(first, model._rng(4, 0).random(3))
    assert not np.array_equal(model._rng(4, 0).random(3), model._rng(4, 1).random(3))


def test_the_sample_has_the_inputs_columns_in_the_inputs_order():
    table = make_small_table()[["y", "color", "age", "sex", "income"]]
    assert list(CopyRows(response="y").fit(table).sample(7).columns) == list(table.columns)


def test_integer_ids_restart_above_every_real_id_at_the_next_power_of_ten():
    table = make_small_table(120)
    table["row"] = np.arange(1, 121)  # largest 120: fresh IDs from 1000
    table["code"] = np.arange(1, 121) + 900  # largest 1020: from 10000
    model = CopyRows(response="y").fit(table)
    out = model.sample(3)
    assert out["row"].tolist() == [1000, 1001, 1002] and out["code"].tolist() == [10000, 10001, 10002]
    assert out["row"].dtype == table["row"].dtype


@pytest.mark.parametrize("dtype, first", [("int8", 1), ("uint8", 1), ("int16", 30_001), ("Int16", 30_001)])
def test_fresh_ids_of_a_narrow_integer_column_do_not_crash_the_sample(dtype, first):
    """An ID column read as int8/int16 (a database's SMALLINT): its fresh IDs (from 1000, or 100000 above 30120)
    may not fit the narrow type, so they are drawn in a wider one rather than raising pandas' lossless-conversion
    error."""
    table = make_small_table(120)
    table["row"] = pd.array(np.arange(first, first + 120), dtype=dtype)
    out = CopyRows(response="y").fit(table).sample(50)
    start = 1000 if first == 1 else 100_000
    assert out["row"].tolist() == list(range(start, start + 50))
    assert pd.api.types.is_integer_dtype(out["row"])


def test_regenerated_text_ids_are_numbered_from_one():
    assert _regenerate({"type": "identifier", "dtype": "object", "constant": None}, 3).tolist() == \
        ["SYN-000001", "SYN-000002", "SYN-000003"]


def test_a_constant_is_repeated_in_its_dtype_and_an_empty_column_is_all_missing_in_its_dtype():
    constant = _regenerate({"type": "constant", "dtype": "int64", "constant": 5}, 4)
    assert constant.tolist() == [5, 5, 5, 5] and constant.dtype == "int64"
    for dtype in ("float64", "datetime64[ns]", "object"):
        empty = _regenerate({"type": "empty", "dtype": dtype, "constant": None}, 3)
        assert len(empty) == 3 and empty.isna().all() and str(empty.dtype) == dtype


@pytest.fixture(scope="module")
def saved():
    return json.loads(IndependentMargins(response="y").fit(make_small_table()).to_json())


def test_a_file_that_is_not_a_saved_model_is_refused(saved):
    with pytest.raises(DataError, match="not a saved TVineSynth Studio model"):
        SyntheticGenerator.from_json(json.dumps({**saved, "format": "something-else"}))


def test_a_model_saved_by_a_newer_version_is_refused_with_the_fix(saved):
    with pytest.raises(DataError, match="newer version") as caught:
        SyntheticGenerator.from_json(json.dumps({**saved, "version": saved["version"] + 1}))
    assert "Update" in caught.value.fix


def test_a_saved_model_names_its_generator_and_comes_back_as_that_class(saved):
    assert saved["generator"] == "independent"
    assert type(SyntheticGenerator.from_json(json.dumps(saved))) is IndependentMargins


def test_a_saved_models_margins_missing_policy_and_measure_come_back_typed_and_an_unknown_one_is_refused(saved):
    """A saved file keeps them as text (``"empirical"``); the library takes them typed, so loading reads them."""
    assert {saved["config"][name] for name in ("margins", "missing", "measure")} == {"empirical", "drop_rows",
                                                                                      "kendall"}
    back = SyntheticGenerator.from_json(json.dumps(saved))
    assert (type(back.margins), type(back.missing), type(back.measure)) == (MarginKind, MissingPolicy, Measure)
    with pytest.raises(DataError, match="The setting 'margins' cannot be 'kernel'") as refused:
        SyntheticGenerator.from_json(json.dumps({**saved, "config": {**saved["config"], "margins": "kernel"}}))
    assert "empirical, kde" in refused.value.fix


@pytest.mark.parametrize("setting, value, named", [
    ("margins", "kernel", "setting 'margins' is 'kernel', not a MarginKind"),
    ("missing", "drop", "setting 'missing' is 'drop', not a MissingPolicy"),
    ("measure", "tau", "setting 'measure' is 'tau', not a Measure"),
    ("margins", "kde", "setting 'margins' is 'kde', not a MarginKind"),  # text, even a valid name: typed at the edge
    ("seed", -1, "seed must be a whole number of 0 or more"),
    ("seed", 2.5, "seed must be a whole number of 0 or more")])
def test_a_setting_no_fit_can_use_is_refused_in_words_before_any_work(setting, value, named):
    """Not a ValueError from numpy's seeding or a margin lookup deep inside the fit: the setting, named, first."""
    table = make_small_table(60)
    for fit in (lambda model: model.fit(table),
                lambda model: model.fit_encoded(np.zeros((60, 5)), None, infer_schema(table).with_roles("y", []))):
        model = IndependentMargins(response="y", **{setting: value})
        with pytest.raises(DataError, match=named):
            fit(model)
        assert not hasattr(model, "encoder_")


def test_a_count_setting_below_its_minimum_is_refused_with_its_default_as_the_way_forward():
    class Counted(CopyRows):
        name = "counted_generator_test"

        def __init__(self, epochs: int = 40, **kwargs):
            super().__init__(**kwargs)
            self.epochs = epochs

        def _check_settings(self) -> None:
            super()._check_settings()
            self._require_counts("epochs")

    assert Counted.default_setting("epochs") == 40 and Counted.default_setting("seed") == 0
    for bad in (0, -3, 1.5, True, "5"):
        with pytest.raises(DataError, match="'epochs' must be a whole number of at least 1") as refused:
            Counted(epochs=bad, response="y").fit(make_small_table(60))
        assert "leave it at its default (40)" in refused.value.fix
    assert Counted(epochs=2.0, response="y").fit(make_small_table(60)).n_train_ == 60


def test_a_generator_without_margins_of_its_own_is_saved_and_samples_the_same_after_loading():
    """A registered generator may model the encoded values directly (the copy generator): saving it needs no margins."""
    model = CopyRows(response="y").fit(make_small_table(60))
    loaded = SyntheticGenerator.from_json(model.to_json())
    assert type(loaded) is CopyRows and not hasattr(loaded, "margins_")
    pd.testing.assert_frame_equal(loaded.sample(30, seed=2), model.sample(30, seed=2), check_exact=True)
