"""tvs_core.model.families: the pair-copula presets and the fit controls each one gives."""

import numpy as np
import pytest
import pyvinecopulib as pv

from tvs_core.errors import DataError
from tvs_core.model.families import DEFAULT_FAMILY_SET, FAMILY_SETS, FamilyChoice, FamilySet
from tvs_core.text import read_choice

F = pv.BicopFamily


def test_an_unknown_family_set_in_text_is_refused_with_every_choice_named():
    with pytest.raises(DataError) as caught:
        read_choice(FamilySet, "gauss")
    assert caught.value.message == "The setting 'pair-copula families' cannot be 'gauss'."
    assert all(name in caught.value.fix for name in FAMILY_SETS)


@pytest.mark.parametrize("text", [None, 3, ["paper"]])
def test_what_is_not_text_naming_a_family_set_is_refused_in_words_too(text):
    with pytest.raises(DataError, match="The setting 'pair-copula families' cannot be"):
        read_choice(FamilySet, text)


def test_each_set_is_read_from_its_name_and_has_its_choice_and_the_default_exists():
    for name, preset in FAMILY_SETS.items():
        assert isinstance(preset, FamilyChoice) and preset.name == name
        assert read_choice(FamilySet, str(name)) is name and read_choice(FamilySet, name) is name
    assert set(FAMILY_SETS) == set(FamilySet) and DEFAULT_FAMILY_SET in FAMILY_SETS


def test_every_preset_may_choose_independence():
    """A pair with no dependence must be fitted as independent, whatever the preset."""
    assert all(F.indep in preset.families for preset in FAMILY_SETS.values())


def test_the_paper_set_is_part_of_the_full_parametric_set():
    assert set(FAMILY_SETS[FamilySet.PAPER].families) < set(FAMILY_SETS[FamilySet.PARAMETRIC].families)


def test_the_gaussian_preset_is_gaussian_pair_copulas_only():
    assert set(FAMILY_SETS[FamilySet.GAUSSIAN].families) == {F.indep, F.gaussian}


@pytest.mark.parametrize("name", list(FAMILY_SETS))
def test_controls_carry_the_presets_families_method_and_the_truncation(name):
    preset = FAMILY_SETS[name]
    controls = preset.controls(trunc_lvl=2, num_threads=1)
    assert set(controls.family_set) == set(preset.families)
    assert controls.parametric_method == preset.parametric_method
    assert controls.trunc_lvl == 2 and controls.selection_criterion == "aic"


def test_controls_pass_extra_settings_through():
    controls = FAMILY_SETS[FamilySet.FAST].controls(trunc_lvl=1, tree_criterion="rho")
    assert controls.tree_criterion == "rho" and controls.trunc_lvl == 1


def test_a_vine_fitted_with_the_gaussian_controls_holds_only_gaussian_and_independence_pairs():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(200, 3))
    x[:, 1] += 2 * x[:, 0]
    u = np.asfortranarray((np.argsort(np.argsort(x, axis=0), axis=0) + 0.5) / len(x))
    vine = pv.Vinecop.from_data(u, controls=FAMILY_SETS[FamilySet.GAUSSIAN].controls(trunc_lvl=2))
    families = {family for tree in vine.families for family in tree}
    assert families <= {F.indep, F.gaussian} and F.gaussian in families
