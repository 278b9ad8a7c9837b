"""tvs_core.model.tvinesynth: TVineSynth stores its settings and nothing else until ``fit``; ``fit`` orders the
covariates by Algorithm 1 (or keeps an explicit order), puts the response at the root of tree 1 and fits once at
t_max, writing what it learnt to attributes ending in ``_``; ``sample(n, truncation_level=t)`` samples any level
from 0 to the fitted one without refitting, so a pair joined in tree k is kept from level k on and cut below it.

The table is the small table of tests/conftest.py (``age`` independent of everything, ``income`` and ``y`` driven by
one latent variable) with one column added by hand: ``years_left`` = 80 - age + N(0, 1), a near-perfect negative
tie to the sensitive ``age``. Algorithm 1 puts it right after ``age`` (it is in K), so their dependence lives in the
last tree only. The structure on the clinical demo, fit-then-truncate against fit-at-t and persistence are in
tests/model/test_model.py; the pyvinecopulib side of truncation in tests/model/test_vine.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.data.margins import MarginKind
from tvs_core.errors import DataError
from tvs_core.model.families import FamilySet
from tvs_core.model.generator import SyntheticGenerator
from tvs_core.model.tvinesynth import TVineSynth

SENSITIVE = ["age"]
ROWS = 3000  # sampled rows per level: a correlation's sampling noise is about 0.02


def with_tied_column(rows: int = 300) -> pd.DataFrame:
    table = make_small_table(rows)
    noise = np.random.default_rng(100).normal(0, 1, rows)
    table["years_left"] = np.round(80 - table["age"] + noise, 1)
    return table


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return with_tied_column()


@pytest.fixture(scope="module")
def model(table) -> TVineSynth:
    return TVineSynth(response="y", sensitive=SENSITIVE, seed=4).fit(table)


def fitted_attributes(generator) -> set[str]:
    return {name for name in vars(generator) if name.endswith("_") and not name.startswith("_")}


# -- settings ------------------------------------------------------------------------------------------------------
def test_init_only_stores_the_settings_and_the_config_rebuilds_an_equal_generator():
    model = TVineSynth(response="y", sensitive=["age"], rho_star={"age": 0.3}, order=("age", "income"),
                       families=FamilySet.GAUSSIAN, t_max=2, margins=MarginKind.KDE, seed=9, threads=2)
    assert fitted_attributes(model) == set()  # nothing learnt, nothing checked yet
    config = model.get_config()
    assert config["rho_star"] == {"age": 0.3} and config["families"] == "gaussian" and config["t_max"] == 2
    assert config["order"] == ["age", "income"]  # kept as a list
    assert {"response", "sensitive", "rho_star", "order", "families", "parametric_method", "t_max", "fixed_vine",
            "margins", "missing", "measure", "seed", "threads"} == set(config)
    assert TVineSynth(**config).get_config() == config


def test_the_defaults_leave_the_order_to_algorithm_1_and_t_max_to_the_papers_advice():
    config = TVineSynth().get_config()
    assert config["order"] is None and config["rho_star"] is None and config["t_max"] is None
    assert config["fixed_vine"] is None and config["measure"] == "kendall" and config["margins"] == "empirical"


def test_an_unfitted_model_refuses_to_sample():
    with pytest.raises(RuntimeError, match="not fitted"):
        TVineSynth(response="y", sensitive=SENSITIVE).sample(5)


# -- fitting -------------------------------------------------------------------------------------------------------
def test_fit_returns_the_model_with_every_documented_fitted_attribute(table):
    model = TVineSynth(response="y", sensitive=SENSITIVE)
    assert model.fit(table) is model
    assert {"schema_", "response_", "sensitive_", "model_schema_", "missing_report_", "encoder_", "n_train_",
            "input_columns_", "dropped_", "margins_", "association_", "order_", "vine_", "column_order_",
            "var_types_", "fitted_level_"} <= fitted_attributes(model)
    assert model.response_ == "y" and model.sensitive_ == SENSITIVE and model.n_train_ == len(table)
    assert model.input_columns_ == list(table.columns)


def test_algorithm_1_puts_the_sensitive_column_first_its_tied_column_next_and_the_response_last(model):
    assert model.order_.order == ["age", "years_left", "income", "sex", "color", "y"]
    assert model.order_.K == ["years_left"] and model.order_.rest == ["income", "sex", "color"]


def test_the_association_algorithm_1_read_is_kept_on_the_encoded_columns(model, table):
    names = model.encoder_.names
    association = model.association_
    assert list(association.index) == list(association.columns) == names
    assert np.allclose(association.to_numpy(), association.to_numpy().T) and np.allclose(np.diag(association), 1)
    assert association.loc["age", "years_left"] < -0.85  # Kendall's tau of a near-perfect negative tie
    assert abs(association.loc["age", "income"]) < 0.2


def test_vine_columns_follow_the_order_with_the_response_last_and_discrete_columns_marked(model):
    names = model.encoder_.names
    assert model.column_order_ == [names.index(c) for c in model.order_.order]
    assert model.var_types_ == ["d" if model.encoder_.discrete[j] else "c" for j in model.column_order_]
    assert model.var_types_[0] == "c" and model.var_types_[-1] == "d"  # age is continuous, y binary


def test_without_t_max_the_vine_is_fitted_at_the_advised_level(model):
    """Appendix B: d + 1 - j with the sensitive column first (j = 1): every one of the d = 5 trees."""
    assert model.order_.t_max == 5 and model.fitted_level_ == model.full_level == 5


def test_a_t_max_is_the_fitted_level_and_one_above_the_full_vine_is_lowered_to_it(table):
    assert TVineSynth(response="y", sensitive=SENSITIVE, t_max=2).fit(table).fitted_level_ == 2
    assert TVineSynth(response="y", sensitive=SENSITIVE, t_max=40).fit(table).fitted_level_ == 5


def test_an_explicit_order_is_kept_and_nothing_is_measured_for_it(table):
    order = ["income", "age", "color", "sex", "years_left"]
    model = TVineSynth(response="y", sensitive=SENSITIVE, order=order).fit(table)
    assert model.order_.order == [*order, "y"] and model.order_.measure is None
    assert not hasattr(model, "association_")
    assert model.fitted_level_ == 4  # the sensitive column second: d + 1 - j = 5 + 1 - 2
    assert "association" not in SyntheticGenerator.from_json(model.to_json())._state()


def test_an_explicit_order_that_leaves_out_a_covariate_is_refused_at_fit(table):
    with pytest.raises(DataError, match="every modelled covariate; missing: years_left"):
        TVineSynth(response="y", sensitive=SENSITIVE, order=["age", "income", "sex", "color"]).fit(table)


def test_a_loaded_model_keeps_the_order_and_the_association_it_was_fitted_with(model):
    loaded = SyntheticGenerator.from_json(model.to_json())
    assert type(loaded) is TVineSynth and loaded.order_ == model.order_
    pd.testing.assert_frame_equal(loaded.association_, model.association_)


# -- levels --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [6, 9])
def test_a_level_above_the_fitted_one_is_refused_naming_the_levels_to_choose_from(model, level):
    with pytest.raises(DataError, match=f"Truncation level {level} is above") as caught:
        model.sample(10, truncation_level=level)
    assert "from 0 to 5" in caught.value.fix


@pytest.mark.parametrize("level", [-1, -2, -50])  # below -1 the stream's seed (level + 1) was numpy's error
def test_a_negative_level_is_refused_with_the_lowest_level_named(model, level):
    with pytest.raises(DataError, match=f"Truncation level {level} is negative") as caught:
        model.sample(10, truncation_level=level)
    assert "0 (independence)" in caught.value.fix


def correlation(model, level, a, b) -> float:
    sample = model.sample(ROWS, truncation_level=level, seed=1)
    return sample[a].corr(sample[b])


def test_the_sensitive_columns_tie_is_kept_at_the_full_level_and_cut_at_every_lower_one(model, table):
    """``age`` and ``years_left`` are joined in tree 5 only (given y, color, sex, income, all unrelated to age)."""
    assert table["age"].corr(table["years_left"]) < -0.95
    assert correlation(model, None, "age", "years_left") < -0.9
    assert correlation(model, 5, "age", "years_left") < -0.9  # the sign is kept too
    for level in (1, 2, 3, 4):
        assert abs(correlation(model, level, "age", "years_left")) < 0.15, level


def test_a_threshold_that_keeps_the_tied_column_out_of_k_lets_level_two_keep_the_tie(table):
    """rho* = 0.99: K is empty, ``years_left`` stays in the rest (last in table order), so it is the root of tree 2
    and its tie with ``age`` is modelled there: level 2 keeps what the default order cuts until level 5."""
    loose = TVineSynth(response="y", sensitive=SENSITIVE, rho_star=0.99, seed=4).fit(table)
    assert loose.order_.K == [] and loose.order_.order == ["age", "income", "sex", "color", "years_left", "y"]
    assert abs(correlation(loose, 1, "age", "years_left")) < 0.15
    assert correlation(loose, 2, "age", "years_left") < -0.9


def test_level_one_keeps_the_responses_tie_and_level_zero_samples_every_column_independently(model, table):
    assert table["income"].corr(table["y"]) > 0.4
    assert correlation(model, 1, "income", "y") > 0.3  # tree 1 is a star around the response
    assert abs(correlation(model, 0, "income", "y")) < 0.1
    assert abs(correlation(model, 0, "age", "years_left")) < 0.1


def test_every_level_keeps_each_columns_values_within_the_training_range(model, table):
    for level in (0, 1, 5):
        sample = model.sample(500, truncation_level=level, seed=2)
        for column in ("age", "income", "years_left"):
            assert table[column].min() <= sample[column].min() <= sample[column].max() <= table[column].max()
        assert set(sample["color"]) <= set(table["color"]) and set(sample["y"]) <= {0, 1}


# -- seeds ---------------------------------------------------------------------------------------------------------
def test_two_fits_with_the_same_settings_sample_the_same_rows_and_another_seed_other_rows(table, model):
    again = TVineSynth(response="y", sensitive=SENSITIVE, seed=4).fit(table)
    for level in (1, 3, None):
        pd.testing.assert_frame_equal(again.sample(200, truncation_level=level),
                                      model.sample(200, truncation_level=level))
    other = TVineSynth(response="y", sensitive=SENSITIVE, seed=5).fit(table)
    assert not other.sample(200, truncation_level=3).equals(model.sample(200, truncation_level=3))


def test_the_models_seed_is_the_default_call_seed(model):
    pd.testing.assert_frame_equal(model.sample(100, truncation_level=2), model.sample(100, truncation_level=2, seed=4))
