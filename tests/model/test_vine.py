"""tvs_core.model.vine: pyvinecopulib's data layout, the normal-score map of a Gaussian vine, truncation without
refitting, the fast sampling path's column placement and the fixed-vine refit."""

import numpy as np
import pandas as pd
import pytest
import pyvinecopulib as pv

from tests.conftest import make_small_table
from tvs_core.errors import DataError
from tvs_core.model.baselines import RVine, RVineStar1
from tvs_core.model.families import FamilySet
from tvs_core.model.vine import normal_score_map, unit_data


def gaussian(rho):
    return pv.Bicop(family=pv.BicopFamily.gaussian, parameters=np.array([[rho]]))


def d_vine(first_tree, second_tree):
    """A three-variable D-vine 1-2-3 (2 in the middle) of the given pair copulas."""
    return pv.Vinecop.from_structure(pv.DVineStructure(order=[1, 2, 3]), pair_copulas=[first_tree, second_tree])


@pytest.fixture(scope="module")
def star():
    """An RVineStar1 whose vine order differs from the table's: the response is first in the table, last in the
    vine."""
    return RVineStar1(response="y", seed=2).fit(make_small_table(150)[["y", "age", "income", "sex", "color"]])


def test_unit_data_of_continuous_columns_is_the_upper_values_in_fortran_order():
    upper, lower = np.array([[0.1, 0.2], [0.3, 0.4]]), np.zeros((2, 2))
    data = unit_data(upper, lower, [False, False])
    assert np.array_equal(data, upper) and data.flags.f_contiguous


def test_unit_data_with_a_discrete_column_appends_every_left_limit():
    upper, lower = np.array([[0.5, 0.2], [0.9, 0.4]]), np.array([[0.25, 0.2], [0.5, 0.4]])
    data = unit_data(upper, lower, [True, False])
    assert data.shape == (2, 4) and np.array_equal(data, np.hstack([upper, lower])) and data.flags.f_contiguous


@pytest.mark.parametrize("rho", [0.6, -0.7])
def test_the_normal_score_map_of_one_gaussian_pair_reproduces_its_correlation(rho):
    """z = A w with w independent standard normals: the covariance of z, A Aᵀ, is the copula's correlation."""
    vine = pv.Vinecop.from_structure(pv.DVineStructure(order=[1, 2]), pair_copulas=[[gaussian(rho)]])
    linear = normal_score_map(vine)
    assert np.allclose(linear @ linear.T, [[1, rho], [rho, 1]], atol=1e-9)


def test_the_normal_score_map_of_a_three_variable_gaussian_vine_has_the_hand_computed_correlation():
    """Ends of the D-vine: ρ13 = ρ13|2 √((1-ρ12²)(1-ρ23²)) + ρ12 ρ23 = 0.3 · 0.75 + 0.25 = 0.475."""
    linear = normal_score_map(d_vine([gaussian(0.5), gaussian(0.5)], [gaussian(0.3)]))
    expected = [[1, 0.5, 0.475], [0.5, 1, 0.5], [0.475, 0.5, 1]]
    assert np.allclose(linear @ linear.T, expected, atol=1e-9)


def test_an_independence_second_tree_leaves_the_product_of_the_first_trees_correlations():
    linear = normal_score_map(d_vine([gaussian(0.5), gaussian(-0.4)], [pv.Bicop()]))
    assert np.isclose((linear @ linear.T)[0, 2], -0.2, atol=1e-9)


def test_the_normal_score_map_of_an_independence_vine_is_the_identity():
    assert np.allclose(normal_score_map(d_vine([pv.Bicop(), pv.Bicop()], [pv.Bicop()])), np.eye(3), atol=1e-12)


def test_a_negative_level_is_refused_with_the_lowest_one_named(star):
    with pytest.raises(DataError, match="negative") as caught:
        star.vine_at(-1)
    assert "0 (independence)" in caught.value.fix


def test_the_fitted_level_and_none_give_the_fitted_vine_and_a_lower_one_is_truncated_once(star):
    assert star.vine_at(None) is star.vine_ and star.vine_at(star.fitted_level_) is star.vine_
    lower = star.vine_at(2)
    assert lower.trunc_lvl == 2 and star.vine_at(2) is lower  # kept for the next call
    assert lower.families == star.vine_.families[:2]


def test_level_zero_is_the_independence_copula(star):
    vine = star.vine_at(0)
    assert vine.trunc_lvl == 0 and np.allclose(normal_score_map(vine), np.eye(vine.dim), atol=1e-12)


def test_at_level_zero_each_column_gets_its_own_uniform_in_vine_order(star):
    """Independence: the uniforms drawn come back unchanged, table column ``column_order_[k]`` holding the k-th."""
    drawn = np.random.default_rng(1).random((50, star.vine_.dim))
    unit = star._sample_unit(50, 0, np.random.default_rng(1))
    assert np.allclose(unit[:, star.column_order_], drawn, rtol=0, atol=1e-12)


def test_every_sampled_unit_value_is_strictly_inside_the_unit_interval(star):
    unit = star._sample_unit(500, None, np.random.default_rng(3))
    assert ((unit > 0) & (unit < 1)).all()


@pytest.mark.parametrize("families", ["nope", "gaussian"])
def test_a_family_set_given_as_text_is_refused_at_fit_with_the_sets_named(families):
    """The library takes a ``FamilySet``; text is read by ``read_choice`` where it comes in (command line, stored
    settings, saved models), so text reaching a fit is refused in words, with every set to give instead."""
    with pytest.raises(DataError, match=f"family set is '{families}', not a FamilySet") as caught:
        RVine(response="y", families=families).fit(make_small_table())
    assert all(f"FamilySet.{member.name}" in caught.value.fix for member in FamilySet)


@pytest.mark.parametrize("setting, value, named", [
    ("parametric_method", "ml", "The setting 'estimation method' cannot be 'ml'"),
    ("t_max", -1, "'t_max' must be a whole number"),
    ("t_max", 2.5, "'t_max' must be a whole number"), ("families", "nope", "family set is 'nope'")])
def test_a_vine_setting_no_fit_can_use_is_refused_in_words_before_any_work(setting, value, named):
    """Not pyvinecopulib's RuntimeError or TypeError from inside the fit: the setting and its choices."""
    model = RVine(response="y", **{setting: value})
    with pytest.raises(DataError, match=named):
        model.fit(make_small_table())
    assert not hasattr(model, "encoder_")
    assert RVine(response="y", t_max=0, families=FamilySet.GAUSSIAN).fit(make_small_table()).fitted_level_ == 0


def test_a_parametric_method_given_overrides_the_presets():
    assert RVine(families=FamilySet.GAUSSIAN)._controls(2).parametric_method == "mle"
    assert RVine(families=FamilySet.GAUSSIAN, parametric_method="itau")._controls(2).parametric_method == "itau"


def test_a_fixed_vine_is_truncated_to_a_lower_t_max_and_kept_below_a_higher_one(star):
    table = make_small_table(150)[["y", "age", "income", "sex", "color"]]
    fixed = star.vine_.to_json()
    assert RVineStar1(response="y", fixed_vine=fixed, t_max=2).fit(table).fitted_level_ == 2
    one = RVineStar1(response="y", t_max=1).fit(table).vine_.to_json()
    assert RVineStar1(response="y", fixed_vine=one, t_max=3).fit(table).fitted_level_ == 1


def test_a_loaded_model_samples_a_truncated_level_as_the_fitted_one_does(star):
    again = RVineStar1.from_json(star.to_json())
    assert again.fitted_level_ == star.fitted_level_ and again.column_order_ == star.column_order_
    assert again.vine_at(1).families == star.vine_at(1).families
    assert np.array_equal(again.sample_values(30, 1, seed=4), star.sample_values(30, 1, seed=4))


@pytest.mark.kernels
@pytest.mark.parametrize("families", [FamilySet.GAUSSIAN, FamilySet.FAST])
def test_a_fit_and_a_draw_are_the_same_bytes_at_any_thread_count(families):
    """The holder's fit, the Export page's release and the command line's use every core when they run alone;
    the published file must not depend on that: the same vine, and the same rows bit for bit at every level (the
    Gaussian vine's normal-score map runs in blocks of rows; pyvinecopulib's inverse Rosenblatt transform of the
    other families in one thread, since its last bits depend on how a batch is cut, as checked here)."""
    from tvs_core.model.tvinesynth import TVineSynth
    from tvs_core.model.vine import MIN_BLOCK_ROWS

    table = make_small_table(300)
    models = {threads: TVineSynth(response="y", sensitive=["income"], families=families, threads=threads, seed=3)
              .fit(table) for threads in (1, 2)}
    assert models[1].vine_.to_json() == models[2].vine_.to_json()
    rows = 2 * MIN_BLOCK_ROWS + 7  # two blocks of rows, of unequal sizes
    for level in (None, 1, 2):
        one, two = (models[threads].sample_values(rows, level, seed=11) for threads in (1, 2))
        assert one.tobytes() == two.tobytes()
    if families != "gaussian":
        vine, w = models[1].vine_, np.random.default_rng(0).random((rows, models[1].vine_.dim))
        whole = vine.inverse_rosenblatt(np.asfortranarray(w), num_threads=1)
        assert not all(whole.tobytes() == vine.inverse_rosenblatt(np.asfortranarray(w), num_threads=threads).tobytes()
                       for threads in (2, 3, 4))


@pytest.mark.kernels
@pytest.mark.parametrize("name", ["rvine", "rvine_star1", "dp_vine", "tvinesynth"])
def test_every_generator_that_says_threads_keep_its_fit_fits_the_same_model_on_more_threads(name):
    """A sweep on many workers fits a long baseline with several threads (jobs/plan.fit_threads): only where the
    model is the same bytes (an R-vine's structure selection included), as ``threads_keep_the_fit`` says."""
    from tvs_core.model.registry import generator_class

    kind = generator_class(name)
    assert kind.threads_keep_the_fit
    table = make_small_table(300)
    fitted = []
    for threads in (1, 3):
        model = kind(response="y", sensitive=["income"], seed=3, threads=threads,
                     **({"epsilon": 1.0} if name == "dp_vine" else {}))
        model.fit(table)
        model.threads = 1
        fitted.append(model.to_json())
    assert fitted[0] == fitted[1]


def test_only_vines_say_that_threads_keep_their_fit():
    """A neural network's threads sum its gradients in another order: its fit is not claimed to keep."""
    from tvs_core.model.registry import generator_class

    assert not generator_class("gaussian_copula").threads_keep_the_fit
    assert not generator_class("independent").threads_keep_the_fit


def test_a_top_level_asked_for_is_the_fitted_level_even_when_its_trees_are_all_independence():
    """pyvinecopulib keeps a tree of independence copulas: a model fitted up to level 3 serves level 3 (a sweep's
    highest level, typed by the user), on a table whose columns are independent, so that every tree is."""
    rng = np.random.default_rng(5)
    table = pd.DataFrame(rng.normal(size=(200, 5)), columns=["y", "a", "b", "c", "d"])
    model = RVineStar1(response="y", seed=1, t_max=3, families=FamilySet.GAUSSIAN).fit(table)
    assert model.fitted_level_ == 3
    assert set(model.vine_.families[2]) == {pv.BicopFamily.indep}  # the third tree: independence only
    assert model.vine_at(3) is model.vine_
    assert len(model.sample(10, truncation_level=3)) == 10
