"""tvs_core.model.baselines: the reference generators' own logic on a small table of known correlations."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.errors import DataError
from tvs_core.model.baselines import DPVine, GaussianCopula, IndependentMargins, RVine, RVineStar1

RHO = 0.9


@pytest.fixture(scope="module")
def correlated():
    """300 normal rows: b has correlation +0.9 with a, c has -0.9 with a; a binary response."""
    rng = np.random.default_rng(21)
    a, e1, e2 = rng.normal(size=(3, 300))
    noise = np.sqrt(1 - RHO ** 2)
    return pd.DataFrame({"a": a, "b": RHO * a + noise * e1, "c": -RHO * a + noise * e2,
                         "y": (a + rng.normal(size=300) > 0).astype("int64")})


def test_gaussian_copula_correlation_is_a_correlation_matrix_with_the_datas_signs(correlated):
    model = GaussianCopula(response="y").fit(correlated)
    corr = model.correlation_
    names = model.encoder_.names
    a, b, c = names.index("a"), names.index("b"), names.index("c")
    assert corr.shape == (4, 4) and np.allclose(corr, corr.T) and np.allclose(np.diag(corr), 1)
    assert np.linalg.eigvalsh(corr).min() > -1e-12
    assert abs(corr[a, b] - RHO) < 0.1 and abs(corr[a, c] + RHO) < 0.1


@pytest.mark.parametrize("seed", [0, 1])
def test_gaussian_copula_samples_keep_the_sign_and_size_of_the_correlation(correlated, seed):
    out = GaussianCopula(response="y").fit(correlated).sample(2000, seed=seed)
    assert abs(out["a"].corr(out["b"]) - RHO) < 0.1
    assert abs(out["a"].corr(out["c"]) + RHO) < 0.1


def test_gaussian_copula_samples_a_column_that_is_a_function_of_another_as_that_function(correlated):
    """b = 2a + 1 makes the correlation matrix singular (a plain Cholesky refuses it): every sampled pair is
    still in the same order in both columns."""
    table = correlated.assign(b=2 * correlated["a"] + 1)
    out = GaussianCopula(response="y").fit(table).sample(500, seed=3)
    assert np.isfinite(out[["a", "b"]].to_numpy()).all()
    assert out["a"].corr(out["b"], method="spearman") > 0.999


@pytest.mark.parametrize("seed", [0, 1])
def test_independent_margins_destroy_the_correlation_and_keep_each_column(correlated, seed):
    out = IndependentMargins(response="y").fit(correlated).sample(2000, seed=seed)
    assert abs(out["a"].corr(out["b"])) < 0.1 and abs(out["a"].corr(out["c"])) < 0.1
    for column in ("a", "b", "c"):
        low, high = correlated[column].min(), correlated[column].max()
        assert out[column].between(low - 1e-8, high + 1e-8).all()  # the release keeps 9 decimals of these
        assert abs(out[column].median() - correlated[column].median()) < 0.25


def test_independent_margins_keep_the_response_rate(correlated):
    out = IndependentMargins(response="y").fit(correlated).sample(2000, seed=5)
    assert abs(out["y"].mean() - correlated["y"].mean()) < 0.06


def test_a_saved_gaussian_copula_keeps_its_correlation_exactly(correlated):
    model = GaussianCopula(response="y").fit(correlated)
    assert json.loads(model.to_json())["state"]["correlation"] == model.correlation_.tolist()


def test_rvine_is_fitted_up_to_the_full_level_unless_t_max_says_otherwise():
    table = make_small_table(150)
    full = RVine(response="y").fit(table)
    assert full.fitted_level_ == full.full_level == table.shape[1] - 1
    assert full.column_order_ == list(range(table.shape[1]))
    low = RVine(response="y", t_max=1).fit(table)
    assert low.fitted_level_ == 1 and low.vine_.trunc_lvl == 1
    with pytest.raises(DataError, match="above the level"):
        low.sample(10, truncation_level=2)


def test_rvine_star1_puts_the_response_last_in_vine_order_wherever_it_is_in_the_table():
    table = make_small_table(150)[["y", "age", "income", "sex", "color"]]
    model = RVineStar1(response="y").fit(table)
    names = model.encoder_.names
    assert [names[j] for j in model.column_order_] == ["age", "income", "sex", "color", "y"]
    assert list(model.sample(20, seed=1).columns) == list(table.columns)


def test_dp_vine_defaults_to_level_two_keeps_an_explicit_t_max_and_stops_at_the_full_level(correlated):
    assert DPVine().t_max == 2 and DPVine(t_max=1).t_max == 1
    assert DPVine(response="y", t_max=1).fit(correlated).fitted_level_ == 1
    two_columns = correlated[["a", "y"]]
    assert DPVine(response="y").fit(two_columns).fitted_level_ == 1  # d - 1 = 1 < 2


def test_dp_vine_settings_are_its_config(correlated):
    config = DPVine(response="y", epsilon=0.5, split=0.4, bins=20).get_config()
    assert (config["epsilon"], config["split"], config["bins"], config["t_max"]) == (0.5, 0.4, 20, 2)


def test_dp_vine_splits_its_rows_by_the_given_share(correlated):
    model = DPVine(response="y", split=0.3).fit(correlated)
    assert model.vine_.nobs == len(correlated) - round(0.3 * len(correlated))


def test_dp_vine_is_the_same_model_for_the_same_seed_and_another_for_another(correlated):
    """The DP noise and the row split come from the model's seed: a refit reproduces them."""
    first = DPVine(response="y", seed=1).fit(correlated).to_json()
    assert DPVine(response="y", seed=1).fit(correlated).to_json() == first
    assert DPVine(response="y", seed=2).fit(correlated).to_json() != first


@pytest.mark.parametrize("settings, named", [({"epsilon": -1.0}, "ε > 0"), ({"epsilon": 0.0}, "ε > 0"),
                                             ({"split": 1.5}, "split of the rows"), ({"split": 0.0}, "split"),
                                             ({"bins": 0}, "'bins' must be a whole number")])
def test_the_dp_vine_refuses_a_budget_split_or_grid_that_cannot_work_in_words(settings, named):
    """Not the margins' ValueError from inside the fit (a negative ε), nor a fit on no rows (split 0)."""
    with pytest.raises(DataError, match=named):
        DPVine(response="y", **settings).fit(make_small_table())
