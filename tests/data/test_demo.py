"""tvs_core.data.demo: the built-in tables: the paper's simulated design (three independent blocks, only the third
tied to the response) and the Wisconsin breast-cancer table; each is ready to model as shipped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tvs_core.data.demo import (
    _BLOCK_ACUTE,
    _BLOCK_COSTS,
    _BLOCK_RENAL,
    DEFAULT_DEMO,
    DEMOS,
    RESPONSE,
    _equicorrelated_normals,
    breast_cancer,
    load_demo,
    simulated_clinical,
)
from tvs_core.data.schema import ColumnType, infer_schema
from tvs_core.data.validation import validate
from tvs_core.errors import DataError

BLOCKS = [_BLOCK_COSTS, _BLOCK_RENAL, _BLOCK_ACUTE]


@pytest.fixture(scope="module")
def large():
    """5000 rows: a correlation's standard error is about 0.014, so the bounds below hold for any seed."""
    return simulated_clinical(n=5000, seed=11)


@pytest.mark.parametrize("rho", [0.0, 0.35, 0.7])
def test_equicorrelated_normals_have_unit_variance_and_the_given_correlation(rho):
    z = _equicorrelated_normals(np.random.default_rng(0), 20_000, 3, rho)
    np.testing.assert_allclose(z.std(axis=0), 1.0, atol=0.03)
    corr = np.corrcoef(z, rowvar=False)[np.triu_indices(3, 1)]
    np.testing.assert_allclose(corr, rho, atol=0.04)


def test_equicorrelated_normals_are_shifted_by_their_mean_per_column():
    mean = np.array([1.0, -2.0])
    z = _equicorrelated_normals(np.random.default_rng(0), 20_000, 2, 0.5, mean)
    np.testing.assert_allclose(z.mean(axis=0), mean, atol=0.05)


def test_the_clinical_table_has_its_20_measurements_and_the_response_in_order():
    table = simulated_clinical(n=40)
    assert list(table.columns) == [name for block in BLOCKS for name, *_ in block] + [RESPONSE]
    assert len(table) == 40 and set(table[RESPONSE]) <= {0, 1} and table[RESPONSE].dtype == np.int64


def test_each_measurement_is_recorded_at_its_precision():
    """Whole numbers are integers; the others carry at most their decimals."""
    table = simulated_clinical(n=200)
    for name, _, _, decimals in (entry for block in BLOCKS for entry in block):
        if decimals == 0:
            assert table[name].dtype == np.int64, name
        else:
            assert np.allclose(table[name], table[name].round(decimals), rtol=0, atol=1e-9), name


def test_the_same_seed_gives_the_same_table_and_another_seed_another():
    pd.testing.assert_frame_equal(simulated_clinical(n=50, seed=3), simulated_clinical(n=50, seed=3))
    assert not simulated_clinical(n=50, seed=3).equals(simulated_clinical(n=50, seed=4))


def test_blocks_are_correlated_within_and_independent_between(large):
    corr = large.corr()
    assert corr.loc["total_cost_eur", "ward_cost_eur"] > 0.6  # costs: rho 0.7
    assert corr.loc["creatinine_mg_dl", "urea_mg_dl"] > 0.55  # renal: rho 0.65
    assert abs(corr.loc["total_cost_eur", "creatinine_mg_dl"]) < 0.08
    assert abs(corr.loc["total_cost_eur", "lactate_mmol_l"]) < 0.08


def test_only_the_acute_block_predicts_the_response(large):
    corr = large.corr()[RESPONSE]
    assert corr[[name for name, *_ in _BLOCK_COSTS + _BLOCK_RENAL]].abs().max() < 0.08
    assert corr["lactate_mmol_l"] > 0.3 and corr["mean_art_pressure_mmhg"] < -0.2  # shifted up and down by Y
    assert 0.45 < large[RESPONSE].mean() < 0.55


def test_the_breast_cancer_table_has_its_diagnosis_as_words():
    table = breast_cancer()
    assert table.shape == (569, 31) and "target" not in table
    assert set(table["diagnosis"]) == {"malignant", "benign"}
    assert (table["diagnosis"] == "malignant").sum() == 212


@pytest.mark.parametrize("name", list(DEMOS))
def test_every_demo_is_valid_as_shipped_with_its_response_and_sensitive_columns(name):
    demo = DEMOS[name]
    table = load_demo(name)
    schema = infer_schema(table, response=demo.response, sensitive=list(demo.sensitive))
    assert schema[demo.response].type == ColumnType.BINARY and len(schema.modelled) == table.shape[1]
    assert validate(table, schema) == []


def test_the_default_demo_is_the_clinical_table():
    assert DEFAULT_DEMO == "clinical" and list(load_demo().columns) == list(load_demo("clinical").columns)


def test_an_unknown_demo_is_refused_with_the_choices():
    with pytest.raises(DataError, match="Unknown demo 'iris'") as info:
        load_demo("iris")
    assert info.value.fix == "Choose one of: clinical, breast_cancer, registry."
