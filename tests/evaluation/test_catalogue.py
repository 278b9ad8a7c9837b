"""A common check over every metric the catalogue declares with a ``compute`` (in the way scikit-learn's common
checks cover every estimator): the function computes exactly the metrics declared with it, each inside its declared
range and in its declared shape (one value per column for a per-column metric), and the same seed gives the same
values again. Checked on a class response and on a continuous one: the function must not depend on one kind."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from tvs_core import TVineSynth, load_demo
from tvs_core.evaluation.anonymity import Part
from tvs_core.evaluation.catalogue import (
    CATALOGUE,
    ENUM_FIELDS,
    GDPR_PARTS,
    GDPR_RECORDS,
    TSTR_METRICS,
    Direction,
    Group,
    Metric,
    Reference,
    Source,
    tstr_metric,
)
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.release import set_metric_functions
from tvs_core.evaluation.set_metrics import SyntheticSet

COLUMNS = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", "in_hospital_death"]
RESPONSES = {"class": "in_hospital_death", "continuous": "heart_rate_bpm"}


@pytest.fixture(scope="module", params=sorted(RESPONSES))
def one_set(request) -> SyntheticSet:
    table = load_demo("clinical")[COLUMNS]
    train, test = table.iloc[:240], table.iloc[240:360]
    model = TVineSynth(response=RESPONSES[request.param], sensitive=["total_cost_eur", "ward_cost_eur"],
                       seed=3).fit(train)
    data = EvaluationData.from_model(model, train, test)
    return SyntheticSet(model.sample_values(240, 2, 11), data, 5, "tvinesynth", 2, 0)


def _values(value) -> list[float]:
    return list(value.values()) if isinstance(value, dict) else [value]


def _same(a, b) -> bool:
    return all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(_values(a), _values(b), strict=True))


@pytest.mark.parametrize("function", set_metric_functions(), ids=lambda function: function.__name__)
def test_every_metric_of_a_published_set_is_computed_as_declared(function, one_set):
    declared = {metric.name for metric in CATALOGUE.values() if metric.compute is function}
    computed = function(replace(one_set, data=replace(one_set.data)))  # nothing shared with another test
    assert set(computed) == declared, set(computed) ^ declared
    for name, value in computed.items():
        metric = CATALOGUE[name]
        assert isinstance(value, dict) == (metric.per_column is not None), name
        low, high = metric.range
        for v in _values(value):
            assert math.isnan(v) or (low <= v and (high is None or v <= high)), (name, v, metric.range)
    again = function(replace(one_set, data=replace(one_set.data)))
    assert set(again) == set(computed)
    assert all(_same(computed[name], again[name]) for name in computed), "the same seed gave other values"


@pytest.mark.parametrize("metric", CATALOGUE.values(), ids=lambda metric: metric.name)
def test_every_metric_declares_its_kinds_as_members_and_names_only_declared_metrics(metric):
    """The typed fields hold their enums' members (text read back from a store still compares equal), and every
    metric an anchor, a fallback or a reference names is declared."""
    for field, kind in ENUM_FIELDS.items():
        value = getattr(metric, field)
        assert value is None or isinstance(value, kind), (field, value)
        assert value is None or value == str(value)
    for end in (metric.worst, metric.ideal):
        assert not isinstance(end, Reference) or end.metric in CATALOGUE, end
    assert metric.fallback is None or metric.fallback in CATALOGUE


def test_a_metric_declared_with_text_holds_the_members_and_a_misspelt_one_fails():
    declared = Metric("m", "M", "M", "share", "lower", (0.0, 1.0), "fidelity", "release", "What m is.")
    assert declared.better is Direction.LOWER and declared.group is Group.FIDELITY and declared.source is Source.RELEASE
    assert declared.lower_is_better
    with pytest.raises(ValueError):
        Metric("m", "M", "M", "share", "smaller", (0.0, 1.0), "fidelity", "release", "What m is.")


def test_each_tstr_is_scored_against_the_trtr_of_its_own_model():
    tstr = [m for m in CATALOGUE.values() if m.group is Group.UTILITY and m.source is Source.RELEASE
            and isinstance(m.ideal, Reference)]
    assert {m.name for m in tstr} >= TSTR_METRICS and len(tstr) == 4  # AUC and R², forest and the linear model
    for metric in tstr:
        reference = CATALOGUE[metric.ideal.metric]
        assert reference.source is Source.REFERENCE and reference.unit == metric.unit, (metric.name, reference.name)
        assert reference.label.split(" ", 1)[1] == metric.label.split(" ", 1)[1]  # the same score of the same model


def test_the_utility_a_choice_reads_follows_the_kind_of_response_the_records_hold():
    assert tstr_metric(["mab", "auc_tstr", "auc_trtr"]).name == "auc_tstr"
    assert tstr_metric(["mab", "r2_trtr_linear"]).name == "r2_tstr"
    assert tstr_metric([]).name == "auc_tstr"
    assert {tstr_metric(names).name for names in (["auc_tstr"], ["r2_tstr"])} == TSTR_METRICS


def test_every_part_of_a_gdpr_criterion_is_described_once_and_declared_as_a_metric():
    assert list(GDPR_PARTS) == list(Part)
    gdpr = {m.name for m in CATALOGUE.values() if m.group is Group.GDPR}
    assert set(GDPR_RECORDS) == gdpr
