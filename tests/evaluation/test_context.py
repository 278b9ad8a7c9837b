"""tvs_core.evaluation.context: what every game starts from. ``EvaluationData`` holds the training rows encoded as
the holder's model encodes them and the hold-out rows in that same encoding (``encode_rows``); a ``GeneratorSpec``
is a recipe for fresh, unfitted generators, seeded per task; ``FittedModels`` fits a recipe once at the highest
level a game needs and samples every level from it (or, for checks only, refits per level).

The tables are the small table of tests/conftest.py: 100 training and 60 hold-out rows, ``age`` and ``income``
continuous, ``sex`` binary, ``color`` nominal, ``y`` the binary response."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.data.missing import MissingPolicy
from tvs_core.data.schema import infer_schema
from tvs_core.errors import DataError
from tvs_core.evaluation.context import EvaluationData, FittedModels, GeneratorSpec, encode_rows
from tvs_core.model.baselines import IndependentMargins
from tvs_core.model.tvinesynth import TVineSynth

SENSITIVE = ["income"]


@pytest.fixture(scope="module")
def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = make_small_table(160)
    return table.iloc[:100].reset_index(drop=True), table.iloc[100:].reset_index(drop=True)


@pytest.fixture(scope="module")
def schema(tables):
    return infer_schema(tables[0]).with_roles("y", SENSITIVE)


@pytest.fixture(scope="module")
def data(tables, schema) -> EvaluationData:
    return EvaluationData.from_tables(*tables, schema)


@pytest.fixture(scope="module")
def holder(tables) -> TVineSynth:
    return TVineSynth(response="y", sensitive=SENSITIVE, seed=3).fit(tables[0])


# -- the encoded rows ----------------------------------------------------------------------------------------------
def test_encoding_the_training_rows_again_gives_the_stored_encoding(data, tables, schema):
    assert data.train.shape == (100, 5) and data.test.shape == (60, 5)
    assert np.array_equal(encode_rows(data.encoder, tables[0], schema), data.train)


def test_the_hold_out_is_encoded_with_the_codes_learnt_on_the_training_rows(data, tables, schema):
    """A hold-out row equal to a training row gets that row's numbers, category codes included, even though the
    hold-out alone would order the labels otherwise (and here holds only two of them)."""
    train, test = tables
    copied = pd.concat([train.iloc[[0, 1]], test[test["color"] != "red"].head(3)], ignore_index=True)
    encoded = encode_rows(data.encoder, copied, schema)
    assert np.array_equal(encoded[:2], data.train[:2])
    assert np.array_equal(encode_rows(data.encoder, test, schema), data.test)


def test_the_other_tables_column_order_and_extra_columns_do_not_matter(data, tables, schema):
    test = tables[1]
    shuffled = test[list(reversed(test.columns))].assign(notes="free text")
    assert np.array_equal(encode_rows(data.encoder, shuffled, schema), data.test)


def test_a_hold_out_row_with_a_missing_cell_is_dropped_under_drop_rows(data, tables, schema):
    test = tables[1].copy()
    test.loc[7, "age"] = np.nan
    encoded = encode_rows(data.encoder, test, schema)
    assert np.array_equal(encoded, np.delete(data.test, 7, axis=0))


def test_under_impute_a_complete_hold_out_row_is_encoded_as_not_missing(tables, schema):
    train, test = tables[0].copy(), tables[1]
    train.loc[3, "age"] = np.nan
    data = EvaluationData.from_tables(train, test, schema, missing="impute")
    assert "age__missing" in data.names and len(data.train) == 100
    encoded = encode_rows(data.encoder, test, schema, "impute")
    assert not np.isnan(encoded).any()
    assert (encoded[:, data.index("age__missing")] == 0).all()


def test_the_columns_roles_and_kinds_are_read_off_the_schema_in_encoder_order(data):
    assert data.names == ["age", "income", "sex", "color", "y"] == data.encoder.names
    assert data.response_index == 4 and data.index("color") == 3
    assert data.categorical.tolist() == [False, False, True, True, True]  # binary, nominal and Y are codes
    assert data.discrete == [False, False, True, True, True]


def test_every_training_row_keeps_its_label_when_none_is_dropped(data):
    assert list(data.train_labels) == list(range(100))


def test_a_dropped_training_row_leaves_the_others_their_own_labels(tables, schema):
    train = tables[0].copy()
    train.loc[3, "age"] = np.nan
    data = EvaluationData.from_tables(train, tables[1], schema)
    assert len(data.train) == 99
    assert list(data.train_labels[:5]) == [0, 1, 2, 4, 5]


def test_from_model_encodes_as_the_holder_does(holder, tables):
    data = EvaluationData.from_model(holder, *tables)
    assert data.names == holder.encoder_.names and data.schema.response == "y"
    assert data.schema.sensitive == SENSITIVE
    assert np.array_equal(data.train, holder.encoder_.transform(tables[0]))
    assert np.array_equal(data.test, holder.encoder_.transform(tables[1]))


def test_from_model_follows_the_holders_missing_value_policy(tables):
    train = tables[0].copy()
    train.loc[[3, 40], "age"] = np.nan
    dropped = EvaluationData.from_model(TVineSynth(response="y", sensitive=SENSITIVE).fit(train), train, tables[1])
    assert len(dropped.train) == 98 and "age__missing" not in dropped.names
    imputed = TVineSynth(response="y", sensitive=SENSITIVE, missing=MissingPolicy.IMPUTE).fit(train)
    kept = EvaluationData.from_model(imputed, train, tables[1])
    assert len(kept.train) == 100 and kept.names == imputed.encoder_.names
    assert kept.train[[3, 40], kept.index("age__missing")].tolist() == [1.0, 1.0]


def test_a_copy_with_other_rows_starts_with_nothing_shared(data):
    data.shared["work"] = 1
    try:
        other = replace(data, train=data.train[:50])
        assert other.shared == {} and len(other.train) == 50 and other.names == data.names
    finally:
        data.shared.pop("work")


# -- recipes -------------------------------------------------------------------------------------------------------
def test_a_recipe_is_labelled_by_its_generators_name_unless_given_a_label():
    assert GeneratorSpec("independent", {}).label == "independent"
    assert GeneratorSpec("independent", {}, label="floor").label == "floor"


def test_whether_a_recipe_has_levels_is_its_generators():
    assert GeneratorSpec("tvinesynth", {}).has_levels and not GeneratorSpec("independent", {}).has_levels


def test_build_gives_a_fresh_unfitted_generator_with_the_tasks_seed_and_one_thread():
    config = {"response": "y", "sensitive": SENSITIVE, "seed": 99, "threads": 4, "families": "gaussian"}
    spec = GeneratorSpec("tvinesynth", config)
    one, two = spec.build(7), spec.build(7)
    assert type(one) is TVineSynth and one is not two
    assert one.seed == 7 and one.threads == 1 and one.families == "gaussian" and one.sensitive == SENSITIVE
    assert not hasattr(one, "encoder_") and one.get_config() == two.get_config()
    assert config["seed"] == 99 and config["threads"] == 4  # the recipe is not changed by a build


def test_build_sets_t_max_only_for_a_generator_with_levels():
    spec = GeneratorSpec("tvinesynth", {"response": "y", "t_max": 4})
    assert spec.build(0, t_max=2).t_max == 2 and spec.build(0).t_max == 4
    independent = GeneratorSpec("independent", {"response": "y"}).build(0, t_max=2)
    assert isinstance(independent, IndependentMargins) and "t_max" not in independent.get_config()


def test_a_recipe_from_a_tvinesynth_keeps_the_holders_order(holder, data):
    spec = GeneratorSpec.from_model(holder, label="holder")
    assert spec.name == "tvinesynth" and spec.label == "holder"
    assert spec.config["order"] == holder.order_.order[:-1] and spec.config["seed"] == holder.seed
    refit = spec.build(11).fit_encoded(data.train[:60], data.encoder, data.schema)
    assert refit.order_.order == holder.order_.order and refit.order_.measure is None


def test_a_recipe_can_reuse_the_holders_fitted_vine_and_one_without_a_vine_is_refused(holder, tables):
    assert GeneratorSpec.from_model(holder).config["fixed_vine"] is None
    assert GeneratorSpec.from_model(holder, reuse_families=True).config["fixed_vine"] == holder.vine_.to_json()
    independent = IndependentMargins(response="y").fit(tables[0])
    assert "order" not in GeneratorSpec.from_model(independent).config
    with pytest.raises(DataError, match="'independent' has no pair-copula families") as caught:
        GeneratorSpec.from_model(independent, reuse_families=True)
    assert "Turn off" in caught.value.fix


# -- fitted models -------------------------------------------------------------------------------------------------
def test_one_model_fitted_at_the_highest_level_serves_every_level(data):
    spec = GeneratorSpec("tvinesynth", {"response": "y", "sensitive": SENSITIVE})
    fitted = FittedModels(spec, [1, None, 3, 2], data.train, data, seed=5)
    models = set(map(id, fitted.models.values()))
    assert len(models) == 1 and set(fitted.models) == {1, None, 3, 2}
    assert fitted.models[1].fitted_level_ == 3 and fitted.models[1].seed == 5


def test_refitting_per_level_fits_each_level_at_itself_and_samples_what_truncation_does(data):
    spec = GeneratorSpec("tvinesynth", {"response": "y", "sensitive": SENSITIVE})
    once = FittedModels(spec, [1, 3], data.train, data, seed=5)
    naive = FittedModels(replace(spec, refit_per_level=True), [1, 3], data.train, data, seed=5)
    assert naive.models[1] is not naive.models[3]
    assert [naive.models[level].fitted_level_ for level in (1, 3)] == [1, 3]
    for level in (1, 3):
        assert np.array_equal(naive.sets(level, 2, 30, seed=8), once.sets(level, 2, 30, seed=8))


def test_a_generator_without_levels_is_fitted_once_even_when_asked_to_refit(data):
    spec = GeneratorSpec("independent", {"response": "y"}, refit_per_level=True)
    fitted = FittedModels(spec, [1, 2], data.train, data, seed=0)
    assert fitted.models[1] is fitted.models[2]


def test_sets_are_one_draw_cut_into_equal_sets(data):
    fitted = FittedModels(GeneratorSpec("tvinesynth", {"response": "y", "sensitive": SENSITIVE}), [2], data.train,
                          data, seed=1)
    sets = fitted.sets(2, 3, 40, seed=6)
    assert sets.shape == (3, 40, len(data.names))
    assert np.array_equal(sets.reshape(120, -1), fitted.sets(2, 1, 120, seed=6)[0])
    assert not np.array_equal(sets, fitted.sets(2, 3, 40, seed=7))
