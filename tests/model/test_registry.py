"""tvs_core.model.registry: generators by name, built-in ones imported on first use, others registered."""

import pytest

from tests.helpers import CopyRows
from tvs_core.errors import DataError
from tvs_core.model import registry
from tvs_core.model.generator import SyntheticGenerator
from tvs_core.model.registry import BUILT_IN, EPSILON_GENERATORS, generator_class, generator_names, register


@pytest.fixture
def registered(monkeypatch):
    """A registry of its own for the test: what it registers is forgotten afterwards."""
    fresh = dict(registry._registered)
    monkeypatch.setattr(registry, "_registered", fresh)
    return fresh


def test_an_unknown_name_is_refused_with_every_choice_named():
    with pytest.raises(DataError) as caught:
        generator_class("tvine_synth")
    error = caught.value
    assert "'tvine_synth'" in error.message
    assert all(name in error.fix for name in generator_names())


def test_names_are_case_sensitive():
    with pytest.raises(DataError, match="Unknown generator"):
        generator_class("GAUSSIAN_COPULA")


def test_register_is_a_decorator_that_returns_the_class_and_makes_it_known(registered):
    class Echo(SyntheticGenerator):
        name = "echo_registry_test"

    assert register(Echo) is Echo
    assert generator_class("echo_registry_test") is Echo
    assert "echo_registry_test" in generator_names()


def test_a_registered_class_takes_precedence_over_a_built_in_of_the_same_name(registered):
    """How a test or a plug-in replaces a built-in (e.g. a smaller PrivPGD) without editing the table."""
    class SmallIndependent(SyntheticGenerator):
        name = "independent"

    register(SmallIndependent)
    assert generator_class("independent") is SmallIndependent
    assert generator_names().count("independent") == 1


def test_names_are_sorted_and_hold_the_built_ins_and_the_registered_ones():
    names = generator_names()
    assert names == sorted(names) and len(names) == len(set(names))
    assert set(BUILT_IN) <= set(names)
    assert CopyRows.name in names  # registered by tests/helpers.py


def test_every_epsilon_generator_is_built_in_and_takes_an_epsilon():
    """``NAME:EPS`` is turned into ``generator_class(NAME)(epsilon=EPS)``: each must accept that setting (and its δ,
    when its claim has one); the built-in ones declare their claim in the registry, a registered one on its class."""
    assert {"dp_vine", "privbayes", "mst", "privpgd"} <= {name for name in EPSILON_GENERATORS if name in BUILT_IN}
    for name, claim in EPSILON_GENERATORS.items():
        assert name in BUILT_IN or generator_class(name).privacy is claim
        assert "epsilon" in generator_class(name).parameter_names()
        assert ("delta" in generator_class(name).parameter_names()) >= claim.delta


def test_generators_without_a_budget_take_no_epsilon():
    for name in ("tvinesynth", "rvine", "gaussian_copula", "independent"):
        assert "epsilon" not in generator_class(name).parameter_names()
