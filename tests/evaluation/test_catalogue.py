"""A common check over every metric the catalogue declares with a ``compute`` (in the way scikit-learn's common
checks cover every estimator): the function computes exactly the metrics declared with it, each inside its declared
range and in its declared shape (one value per column for a per-column metric), and the same seed gives the same
values again. Checked on a class response and on a continuous one: the function must not depend on one kind."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from tvs_core import TVineSynth, load_demo
from tvs_core.evaluation.catalogue import CATALOGUE
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
