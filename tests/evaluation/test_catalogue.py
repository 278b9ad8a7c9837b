"""A common check over every metric the catalogue declares with a ``compute`` (in the way scikit-learn's common
checks cover every estimator): the function computes exactly the metrics declared with it, each inside its declared
range and in its declared shape (one value per column for a per-column metric), and the same seed gives the same
values again. Checked on a class response and on a continuous one: the function must not depend on one kind.
Every other metric names the function that writes its records (``produced_by``: a game, an attack, TSTR, TRTR, the DP
audit), and that function, played twice at tiny sizes with the same seeds, writes exactly the metrics declared with
it, each inside its declared range, and the same values again."""

from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.helpers import TINY, CopyRows
from tvs_core import TVineSynth, infer_schema, load_demo
from tvs_core.evaluation import metrics
from tvs_core.evaluation.catalogue import (
    CATALOGUE,
    ENUM_FIELDS,
    FAMILIES,
    GDPR_CRITERIA,
    GDPR_PARTS,
    GDPR_RECORDS,
    TSTR_METRICS,
    Direction,
    Family,
    Group,
    Metric,
    Reference,
    Source,
    described,
    tstr_metric,
)
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.intervals import Interval, IntervalKind
from tvs_core.evaluation.metrics.attribute import aia_iteration, choose_targets, release_attribute_records
from tvs_core.evaluation.metrics.audit import trial_records
from tvs_core.evaluation.metrics.gdpr import Part, criterion_record, gdpr_criteria
from tvs_core.evaluation.metrics.membership.game import (
    attacker_reference_rows,
    mia_evaluation_task,
    mia_shadow_task,
    train_attackers,
)
from tvs_core.evaluation.metrics.utility import trtr_records, tstr_records
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.release import set_metric_functions
from tvs_core.evaluation.set_metrics import SyntheticSet
from tvs_core.model.registry import PrivacyClaim, register

COLUMNS = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", "in_hospital_death"]
RESPONSES = {"class": "in_hospital_death", "continuous": "heart_rate_bpm"}
# the sensitive columns the producers attack, per response: a categorical one where it is not Y (the advantages)
ATTACKED = {"in_hospital_death": ["total_cost_eur"], "heart_rate_bpm": ["total_cost_eur", "in_hospital_death"]}


@register
class ClaimsEpsilon(CopyRows):
    """Claims an ε (so a DP audit runs on it) and fits in no time."""

    name = "claims_epsilon_catalogue_test"
    privacy = PrivacyClaim()  # its claim, declared as every generator that claims an ε declares it

    def __init__(self, epsilon: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon


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
    declared = {m.name for metric in CATALOGUE.values() if metric.compute is function for m in metric.records()}
    computed = function(replace(one_set, data=replace(one_set.data)))  # nothing shared with another test
    assert set(computed) == declared, set(computed) ^ declared
    for name, value in computed.items():
        metric = described()[name]
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


def test_every_part_of_a_gdpr_criterion_is_described_once_and_its_risk_is_one_entry():
    """A criterion's risk is one catalogue entry carrying its interval and number of attacks (an ``Interval``, as
    anonymeter's ``PrivacyRisk``); the three success rates are entries of their own; every record is described."""
    assert list(GDPR_PARTS) == list(Part)
    gdpr = {m.name for m in CATALOGUE.values() if m.group is Group.GDPR}
    assert set(GDPR_RECORDS) == {m.name for m in described().values() if m.group is Group.GDPR}
    assert {GDPR_RECORDS[name][1] for name in gdpr} == {Part.RISK, Part.MAIN_RATE, Part.CONTROL_RATE,
                                                        Part.BASELINE_RATE}
    for criterion, *_ in GDPR_CRITERIA:
        risk = CATALOGUE[criterion_record(criterion, Part.RISK)]
        assert [m.name for m in risk.records()] == [criterion_record(criterion, p) for p in (
            Part.RISK, Part.RISK_LOW, Part.RISK_HIGH, Part.ATTACKS)]
        assert risk.risk.kind is IntervalKind.WILSON
        medians = {"linkability_risk": 0.2, "linkability_risk_low": 0.1, "linkability_risk_high": 0.3,
                   "linkability_attacks": 199.6}
        if criterion == "linkability":
            assert risk.read_risk(medians.get) == Interval(0.2, 0.1, 0.3, 200, IntervalKind.WILSON)
            assert risk.read_risk({"linkability_risk": 0.2}.get) is None  # its interval not measured: no risk read


def test_only_a_risk_writes_records_beside_its_own():
    assert {m.name for m in CATALOGUE.values() if m.risk} == {criterion_record(c, Part.RISK) for c, *_ in GDPR_CRITERIA}
    assert set(described()) - set(CATALOGUE) == {m.name for metric in CATALOGUE.values() if metric.risk
                                             for m in metric.records()[1:]}


def test_every_metric_names_the_one_function_that_computes_it():
    for metric in CATALOGUE.values():
        assert (metric.compute is None) != (metric.produced_by is None), metric.name
        assert callable(metric.compute or metric.produced_by), metric.name


def _records_by_producer(response: str) -> dict:
    """Every ``produced_by`` function played once on 240 training rows at the tiny protocol sizes -> its records."""
    table = load_demo("clinical")[COLUMNS]
    sensitive = ATTACKED[response]
    schema = infer_schema(table.iloc[:240]).with_roles(response, sensitive)
    data = EvaluationData.from_tables(table.iloc[:240], table.iloc[240:360], schema)
    preset = replace(QUICK, **TINY, outlier_quantiles=(0.99,), random_targets=1)
    spec = GeneratorSpec("independent", {"response": response, "sensitive": sensitive})
    targets = choose_targets(data, sensitive, preset.outlier_quantiles, preset.random_targets,
                             np.random.default_rng(0))
    sets = np.stack([data.train[:120], data.train[120:]])
    attacker_rows = attacker_reference_rows(data, targets, preset, 5)
    shadows = [mia_shadow_task(spec, data, targets, [None], preset, 5, s, attacker_rows)
               for s in range(preset.mia_shadows)]
    return {
        tstr_records: tstr_records(sets, data, None, 5, "tvinesynth", [0, 1]),
        trtr_records: trtr_records(data, 5),
        release_attribute_records: release_attribute_records(sets, data, sensitive, "tvinesynth", None),
        aia_iteration: aia_iteration(spec, data, targets, [None], preset, 5, 0, sensitive),
        mia_evaluation_task: mia_evaluation_task(spec, data, targets, [None], preset, 5, 0,
                                                 train_attackers(shadows, 5)),
        # trial 0 holds no canary and records the claim; trial 1 holds one
        trial_records: [r for trial in (0, 1)
                        for r in trial_records(GeneratorSpec(ClaimsEpsilon.name, {"epsilon": 1.0}), data, 5, trial)],
    }


@pytest.fixture(scope="module")
def played() -> dict:
    """Each response -> (every producer's records, the same played again with the same seeds)."""
    return {response: (_records_by_producer(response), _records_by_producer(response))
            for response in RESPONSES.values()}


@pytest.fixture(scope="module")
def produced(played) -> dict:
    """Each producer -> the metric names it wrote for a class response and for a continuous one."""
    names: dict = {}
    for first, _ in played.values():
        for producer, records in first.items():
            names.setdefault(producer, set()).update(r.metric for r in records)
    return names


PRODUCERS = list(dict.fromkeys(m.produced_by for m in CATALOGUE.values() if m.produced_by))


@pytest.mark.parametrize("producer", PRODUCERS, ids=lambda producer: producer.__name__)
def test_every_metric_without_a_compute_is_written_by_the_function_it_names(producer, produced):
    """A new producer fails here until it is played above; a declaration naming the wrong function fails too."""
    declared = {m.name for m in CATALOGUE.values() if m.produced_by is producer}
    assert producer in produced, f"{producer.__name__} is not played by _records_by_producer"
    assert produced[producer] == declared, produced[producer] ^ declared


@pytest.mark.parametrize("producer", PRODUCERS, ids=lambda producer: producer.__name__)
def test_every_metric_a_game_or_an_attack_writes_is_in_its_range_and_the_same_seed_writes_it_again(producer, played):
    """The common check of the ``compute`` functions, for the records of games, attacks, TSTR, TRTR and the DP audit:
    each value inside its declared range, and the same seeds give the same records, value for value."""
    for response, (first, again) in played.items():
        records = first[producer]
        assert records, f"{producer.__name__} wrote nothing for a {response} response"
        for r in records:
            low, high = CATALOGUE[r.metric].range
            value = r.value
            assert math.isnan(value) or (low <= value and (high is None or value <= high)), \
                (r.metric, r.attribute, value, (low, high))
        pd.testing.assert_frame_equal(pd.DataFrame(records), pd.DataFrame(again[producer]), check_exact=True,
                                      obj=f"{producer.__name__}'s records played again with the same seed")


def test_every_family_module_says_what_it_measures_and_the_catalogue_is_what_they_registered():
    """The catalogue is built from the registered families (no list to keep in step): each module of
    ``evaluation/metrics/`` but ``base`` registers one family, declared and computed there."""
    modules = [info.name for info in pkgutil.iter_modules(metrics.__path__) if info.name != "base"]
    for name in modules:
        module = importlib.import_module(f"{metrics.__name__}.{name}")
        assert module.__doc__, f"metrics/{name}.py has no docstring"
        families = [value for value in vars(module).values() if isinstance(value, Family)]
        assert [family.name for family in families] == [name], f"metrics/{name}.py does not declare one family"
        assert families[0] in FAMILIES, f"metrics/{name}.py's family is not registered"
        for metric in families[0]:  # computed in the module that declares it
            function = metric.compute or metric.produced_by
            assert metric.compute is None or function.__module__ == module.__name__, (name, metric.name)
    assert sorted(family.name for family in FAMILIES) == sorted(modules)
    assert [family.position for family in FAMILIES] == sorted(family.position for family in FAMILIES)
    assert len(CATALOGUE) == sum(map(len, FAMILIES)), "a metric name is declared twice"


def test_a_family_whose_one_computation_writes_its_metrics_owns_it():
    """The GDPR criteria: one computation of a published set writes every record of the family's 16 entries (28
    records with the risks' intervals and counts); the family gives it to each, no declaration repeats it."""
    (gdpr,) = [family for family in FAMILIES if family.name == "gdpr"]
    assert gdpr.compute is gdpr_criteria and len(gdpr) == 16
    assert {m.compute for metric in gdpr for m in metric.records()} == {gdpr_criteria}
    assert sum(len(metric.records()) for metric in gdpr) == 28
    own = Metric("m", "M", "M", "share", "lower", (0.0, 1.0), "fidelity", "release", "What m is.",
                 compute=tstr_metric)
    plain = Metric("n", "N", "N", "share", "lower", (0.0, 1.0), "fidelity", "release", "What n is.")
    family = Family("test", 99, (own, plain), compute=gdpr_criteria)
    assert [m.compute for m in family] == [tstr_metric, gdpr_criteria]  # a metric naming its own function keeps it
