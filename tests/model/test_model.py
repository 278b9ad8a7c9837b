"""TVineSynth and the baselines: structure, truncation without refitting, seeds, persistence."""

import numpy as np
import pandas as pd
import pytest

from tvs_core import (
    DPVine,
    GaussianCopula,
    IndependentMargins,
    RVine,
    RVineStar1,
    SyntheticGenerator,
    TVineSynth,
    load_demo,
)
from tvs_core.data.margins import MarginKind
from tvs_core.errors import DataError
from tvs_core.model.families import FamilySet
from tvs_core.model.ordering import algorithm1, association_matrix

Y = "in_hospital_death"
SENSITIVE = ["total_cost_eur", "creatinine_mg_dl"]
COLUMNS = ["total_cost_eur", "ward_cost_eur", "lab_cost_eur", "creatinine_mg_dl", "urea_mg_dl",
           "lactate_mmol_l", "heart_rate_bpm", "resp_rate_min", Y]


@pytest.fixture(scope="module")
def table():
    return load_demo("clinical")[COLUMNS].head(400).reset_index(drop=True)


@pytest.fixture(scope="module")
def model(table):
    return TVineSynth(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST, seed=7).fit(table)


def tree1_partners(vine):
    order = list(vine.order)
    return [{order[e], vine.structure.struct_array(0, e)} for e in range(vine.dim - 1)]


def test_response_is_root_of_tree_one_and_order_is_algorithm_1(model, table):
    names = model.encoder_.names
    expected = algorithm1(association_matrix(pd.DataFrame(model.encoder_.transform(table), columns=names)),
                          Y, SENSITIVE)
    assert model.order_.order == expected.order
    assert model.order_.order[-1] == Y
    y_vine_index = model.order_.order.index(Y) + 1  # pyvinecopulib counts from 1
    assert all(y_vine_index in edge for edge in tree1_partners(model.vine_))
    # tree 2 is a star around the covariate entering just before Y
    second_root = len(model.order_.order) - 1
    for e in range(model.vine_.dim - 2):
        pc_edge = {list(model.vine_.order)[e], model.vine_.structure.struct_array(1, e)}
        assert second_root in pc_edge


@pytest.mark.parametrize("preset", [FamilySet.FAST, pytest.param(FamilySet.PAPER, marks=pytest.mark.slow)])
def test_fit_at_t_max_then_truncate_equals_fit_at_t(table, preset):
    data = table if preset is FamilySet.FAST else table.head(200)
    full = TVineSynth(response=Y, sensitive=SENSITIVE, families=preset, seed=1).fit(data)
    for level in (1, 3, 6):
        direct = TVineSynth(response=Y, sensitive=SENSITIVE, families=preset, t_max=level, seed=1).fit(data)
        truncated = full.vine_at(level)
        assert truncated.trunc_lvl == direct.vine_.trunc_lvl == level
        for tree in range(level):
            for edge in range(truncated.dim - 1 - tree):
                a, b = truncated.get_pair_copula(tree, edge), direct.vine_.get_pair_copula(tree, edge)
                assert a.family == b.family and a.rotation == b.rotation
                np.testing.assert_allclose(a.parameters, b.parameters, rtol=1e-10)
        pd.testing.assert_frame_equal(full.sample(300, truncation_level=level, seed=5),
                                      direct.sample(300, truncation_level=level, seed=5))


@pytest.mark.parametrize("preset", [FamilySet.FAST, FamilySet.GAUSSIAN])
def test_vine_at_is_the_fitted_vine_truncated_in_place(model, table, preset):
    """``vine_at`` builds the truncated vine from the first trees' pair copulas (issue 27: 5x cheaper than a JSON
    copy); it must be the vine pyvinecopulib's own ``truncate`` gives: same pair copulas, same samples (the
    table has discrete columns, which change the vine's data layout)."""
    import pyvinecopulib as pv

    fitted = model if preset is FamilySet.FAST else TVineSynth(response=Y, sensitive=SENSITIVE, families=preset,
                                                       seed=7).fit(table)
    assert "d" in fitted.vine_.var_types
    uniforms = np.asfortranarray(np.random.default_rng(0).random((200, fitted.vine_.dim)))
    for level in (1, 2, 5):
        copy = pv.Vinecop.from_json(fitted.vine_.to_json())
        copy.truncate(level)
        ours = fitted.vine_at(level)
        assert ours.trunc_lvl == copy.trunc_lvl == level and ours.var_types == copy.var_types
        assert ours.structure.to_json() == copy.structure.to_json()
        for tree in range(level):
            for edge in range(ours.dim - 1 - tree):
                a, b = ours.get_pair_copula(tree, edge), copy.get_pair_copula(tree, edge)
                assert a.to_json() == b.to_json()
        np.testing.assert_array_equal(ours.inverse_rosenblatt(uniforms), copy.inverse_rosenblatt(uniforms))


def test_same_seed_same_output_and_thread_count_does_not_matter(model, table):
    a = model.sample(500, truncation_level=4, seed=11)
    pd.testing.assert_frame_equal(a, model.sample(500, truncation_level=4, seed=11))
    assert not a.equals(model.sample(500, truncation_level=4, seed=12))
    threaded = TVineSynth(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST, seed=7, threads=2).fit(table)
    pd.testing.assert_frame_equal(a, threaded.sample(500, truncation_level=4, seed=11))


def test_output_has_input_columns_dtypes_and_levels(model, table):
    out = model.sample(250, truncation_level=2, seed=3)
    assert list(out.columns) == list(table.columns)
    assert (out.dtypes == table.dtypes).all()
    assert set(out[Y].unique()) <= {0, 1}


def test_truncation_cuts_dependence_of_the_sensitive_block(model):
    """The block (cost, ward, lab) enters first: tree-1 truncation leaves it tied only through Y."""
    full = model.sample(3000, seed=1)
    low = model.sample(3000, truncation_level=1, seed=1)
    assert full["total_cost_eur"].corr(full["ward_cost_eur"]) > 0.5
    assert abs(low["total_cost_eur"].corr(low["ward_cost_eur"])) < 0.1


def test_level_above_t_max_is_refused(table):
    model = TVineSynth(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST, t_max=3).fit(table)
    with pytest.raises(DataError, match="above the level the model was fitted at"):
        model.sample(10, truncation_level=5)


def test_save_and_load_reproduce_samples(model, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    loaded = SyntheticGenerator.load(path)
    assert loaded.order_.order == model.order_.order
    pd.testing.assert_frame_equal(loaded.sample(200, truncation_level=3, seed=2),
                                  model.sample(200, truncation_level=3, seed=2))


def test_kde_margins_release_values_not_in_training(table):
    model = TVineSynth(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST, margins=MarginKind.KDE,
                       seed=0).fit(table)
    out = model.sample(400, seed=1)
    shared = np.isin(out["lactate_mmol_l"], table["lactate_mmol_l"]).mean()
    empirical = TVineSynth(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST).fit(table).sample(400, seed=1)
    assert (out.dtypes == table.dtypes).all()
    assert abs(out["lactate_mmol_l"].mean() - table["lactate_mmol_l"].mean()) < 0.2
    assert shared < np.isin(empirical["lactate_mmol_l"], table["lactate_mmol_l"]).mean() + 1e-9


@pytest.mark.parametrize("cls", [RVine, RVineStar1, DPVine, GaussianCopula, IndependentMargins])
def test_baselines_share_the_interface(cls, table):
    model = cls(response=Y, sensitive=SENSITIVE, families=FamilySet.FAST, seed=3) if cls.has_levels else \
        cls(response=Y, sensitive=SENSITIVE, seed=3)
    out = model.fit(table).sample(300, seed=4)
    assert list(out.columns) == list(table.columns) and (out.dtypes == table.dtypes).all()
    pd.testing.assert_frame_equal(out, SyntheticGenerator.from_json(model.to_json()).sample(300, seed=4))


def test_rvine_star1_first_tree_is_a_star_around_y(table):
    model = RVineStar1(response=Y, families=FamilySet.FAST).fit(table)
    y_vine_index = model.column_order_.index(model.encoder_.names.index(Y)) + 1
    assert all(y_vine_index in edge for edge in tree1_partners(model.vine_))


def test_gaussian_copula_keeps_and_independent_margins_remove_dependence(table):
    gauss = GaussianCopula(response=Y).fit(table).sample(3000, seed=1)
    indep = IndependentMargins(response=Y).fit(table).sample(3000, seed=1)
    real = table["total_cost_eur"].corr(table["ward_cost_eur"])
    assert abs(gauss["total_cost_eur"].corr(gauss["ward_cost_eur"]) - real) < 0.1
    assert abs(indep["total_cost_eur"].corr(indep["ward_cost_eur"])) < 0.06


def _ks(a, b):
    grid = np.union1d(a, b)
    fa = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    fb = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return np.max(np.abs(fa - fb))


def test_dp_vine_margins_differ_from_empirical_and_tighten_as_epsilon_grows(table):
    """KS distance between the DP margin (sampled) and the real column, averaged over seeds."""
    def distance(epsilon):
        values = []
        for seed in range(4):
            model = DPVine(response=Y, epsilon=epsilon, families=FamilySet.FAST, seed=seed).fit(table)
            out = model.sample(4000, seed=0)
            values.append(np.mean([_ks(out[c].to_numpy(float), table[c].to_numpy(float))
                                   for c in ["total_cost_eur", "lactate_mmol_l", "urea_mg_dl"]]))
        return np.mean(values)

    loose, medium, tight = distance(0.05), distance(1.0), distance(100.0)
    assert loose > medium > tight
    assert loose > 0.1  # clearly not the empirical margin
    assert tight < 0.1


def test_dp_vine_is_truncated_at_two_and_uses_half_the_rows(table):
    model = DPVine(response=Y, epsilon=1.0, families=FamilySet.FAST).fit(table)
    assert model.vine_.trunc_lvl == 2
    assert model.vine_.nobs == len(table) // 2
