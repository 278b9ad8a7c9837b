"""tvs_core/evaluation/attribute_game.py: one iteration of the attribute-inference game on the small table (a numeric
and a categorical sensitive column, hand-picked targets) — which records it writes, their bounds, the raw baseline
that attacks the same sets as IN and OUT (so it shows no gap), and its seeding. That its metrics are the ones the
catalogue declares is in tests/evaluation/test_catalogue.py."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY
from tvs_core.data.schema import infer_schema
from tvs_core.evaluation.attribute import Target
from tvs_core.evaluation.attribute_game import aia_iteration
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import RAW, Record

SENSITIVE = ["income", "color"]  # continuous: a regression attack; nominal: a classifier
TARGETS = [Target(3, "income", "outlier"), Target(10, "income", "random"), Target(10, "color", "random")]
PRESET = replace(QUICK, **{**TINY, "aia_bootstrap_size": 60, "aia_size_raw": 60, "aia_size_syn": 60})


@pytest.fixture(scope="module")
def data() -> EvaluationData:
    table = make_small_table(120)
    schema = infer_schema(table).with_roles("y", SENSITIVE)
    return EvaluationData.from_tables(table.iloc[:80], table.iloc[80:], schema)


@pytest.fixture(scope="module")
def spec() -> GeneratorSpec:
    return GeneratorSpec("independent", {"response": "y", "sensitive": SENSITIVE}, label="indep")


@pytest.fixture(scope="module")
def records(data, spec) -> list[dict]:
    return aia_iteration(spec, data, TARGETS, [None], PRESET, master_seed=5, iteration=2, sensitive=SENSITIVE)


def by(records, **fields) -> list[Record]:
    return [r for r in records if all(getattr(r, k) == v for k, v in fields.items())]


def test_each_model_writes_per_target_errors_and_per_column_summaries_for_a_numeric_column(records):
    for model in (RAW, "indep"):
        found = Counter(r.metric for r in by(records, model=model, attribute="income"))
        assert found == {"mse_in": 2, "mse_out": 2, "mab": 1, "wcab": 1, "mr2": 1}, model
        assert {(r.target, r.target_kind) for r in by(records, model=model, metric="mse_in")} == {
            (3, "outlier"), (10, "random")}


def test_a_categorical_column_gets_one_advantage_per_own_target(records):
    for model in (RAW, "indep"):
        found = by(records, model=model, attribute="color")
        assert [(r.metric, r.target, r.target_kind) for r in found] == [("advantage", 10, "random")]


def test_every_record_is_a_game_record_of_this_iteration(records):
    assert {r.role for r in records} == {"game"} and {r.iteration for r in records} == {2}
    assert {r.level for r in records} == {None} and {r.model for r in records} == {RAW, "indep"}


def test_the_values_are_within_their_bounds(records):
    for model in (RAW, "indep"):
        value = {r.metric: r.value for r in by(records, model=model, target=None)}
        assert 0.0 <= value["mab"] <= value["wcab"]  # a mean of absolute coefficients never exceeds their maximum
        assert 0.0 <= value["mr2"] <= 1.0
    assert all(r.value >= 0 for r in records if r.metric.startswith("mse"))
    assert all(-1.0 <= r.value <= 1.0 for r in records if r.metric == "advantage")


def test_the_raw_baseline_attacks_the_same_sets_in_and_out_so_it_shows_no_gap(records):
    """The raw reference has no IN model: both sides are the same bootstrap sets, so the errors match exactly and
    the categorical attacker's advantage is exactly 0."""
    raw = by(records, model=RAW)
    inside = {r.target: r.value for r in raw if r.metric == "mse_in"}
    outside = {r.target: r.value for r in raw if r.metric == "mse_out"}
    assert inside == outside
    assert [r.value for r in raw if r.metric == "advantage"] == [0.0]


def test_one_record_set_per_level_for_a_generator_with_levels(data):
    spec = GeneratorSpec("tvinesynth", {"response": "y", "sensitive": SENSITIVE}, label="tvs")
    found = aia_iteration(spec, data, TARGETS[:2], [1, 2], PRESET, 5, 0, ["income"])
    assert Counter((r.model, r.level) for r in found) == {(RAW, None): 7, ("tvs", 1): 7, ("tvs", 2): 7}


def test_the_same_iteration_gives_the_same_records_and_another_iteration_others(data, spec):
    def play(iteration):
        return aia_iteration(spec, data, TARGETS[:2], [None], PRESET, 5, iteration, ["income"])

    first = play(2)
    assert play(2) == first
    assert [r.value for r in play(3)] != [r.value for r in first]


def test_a_column_without_targets_writes_no_per_target_records(data, spec):
    found = aia_iteration(spec, data, TARGETS[:2], [None], PRESET, 5, 0, SENSITIVE)
    assert by(found, attribute="color") == []  # no target of its own: nothing to attack
