"""The three GDPR criteria (evaluation/metrics/gdpr.py): the issue's known answers on both demos for several seeds,
and the arithmetic they rest on.

Known answers (issue 25): a verbatim copy of the training rows scores every criterion's risk near 1 (at least 0.8)
and its naive baseline never beats its main attack; a release of independent margins that knows nothing of the
training rows scores about 0, its interval covering 0. Margins of each assertion are derived where it stands.
``TVS_TEST_DATA_SEED=K`` runs them on another realisation of the demos (tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from tvs_core import load_demo
from tvs_core.choice.gdpr import gdpr_verdicts
from tvs_core.data.demo import DEMOS
from tvs_core.data.schema import infer_schema
from tvs_core.data.split import holdout_split
from tvs_core.evaluation.catalogue import GDPR_CRITERIA, PerColumn, described
from tvs_core.evaluation.context import EvaluationData, encode_rows
from tvs_core.evaluation.distance import gower_space, nearest
from tvs_core.evaluation.intervals import IntervalKind, wilson
from tvs_core.evaluation.metrics import gdpr as anonymity
from tvs_core.evaluation.metrics.gdpr import Part, criterion_record, gdpr_criteria, univariate_predicates
from tvs_core.evaluation.set_metrics import SyntheticSet
from tvs_core.model.baselines import IndependentMargins

SEEDS = (0, 1, 2)
NULL_SETS = 5


def risks(found: dict, sensitive) -> dict[str, dict]:
    """{criterion or inference:COLUMN: {part: value}} from one set's records."""
    out = {}
    for criterion, *_ in GDPR_CRITERIA:
        for part in Part:
            value = found[criterion_record(criterion, part)]
            if isinstance(value, dict):
                for column in sensitive:
                    out.setdefault(f"{criterion}:{column}", {})[part] = value[column]
            else:
                out.setdefault(criterion, {})[part] = value
    return out


def as_summary(records: dict) -> dict:
    """One set's records in summary.json's form ({name or name:COLUMN: {median, ci_low, ci_high, n}})."""
    out = {}
    for name, value in records.items():
        for key, v in ((f"{name}:{c}", x) for c, x in value.items()) if isinstance(value, dict) else [(name, value)]:
            out[key] = {"median": v, "ci_low": v, "ci_high": v, "n": 1}
    return out


def demo_data(demo: str, seed: int) -> EvaluationData:
    """The demo's encoded training and hold-out rows, split as a sweep splits them (20 % hold-out)."""
    table = load_demo(demo)
    spec = DEMOS[demo]
    schema = infer_schema(table).with_roles(spec.response, list(spec.sensitive))
    return EvaluationData.from_tables(*holdout_split(table, spec.response, 0.2, seed), schema)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("demo", sorted(DEMOS))
def test_a_verbatim_copy_is_at_risk_on_every_criterion(demo, seed):
    """Every attack on a copy succeeds on (nearly) every training row: with n >= 114 attacks the main rate's Wilson
    centre is at least (n + 1.92) / (n + 3.84) >= 0.98, so the risk (m - c) / (1 - c) >= 1 - 0.02 / (1 - c) stays
    above 0.8 unless the control attack succeeds on 90 % of hold-out rows (measured: at most about 0.3). The
    baseline guesses blindly: it cannot reach the main attack's near-certain success."""
    data = demo_data(demo, seed)
    copy = data.train[np.random.default_rng(seed).permutation(len(data.train))]
    records = gdpr_criteria(SyntheticSet(copy, data, seed, "copy", None, 0))
    assert set(records) == {criterion_record(criterion, part) for criterion, *_ in GDPR_CRITERIA for part in Part}
    found = risks(records, data.schema.sensitive)
    assert len(found) == 3 + len(data.schema.sensitive)
    verdicts = gdpr_verdicts(as_summary(records), list(data.schema.sensitive))  # what the officer reads
    assert [v.verdict for v in verdicts] == ["high"] * len(found) and all(v.beats_baseline for v in verdicts)
    assert all(v.sentence.split(": ")[1].startswith("HIGH risk") for v in verdicts)
    for criterion, parts in found.items():
        assert parts["attacks"] >= 100, criterion
        assert parts["risk"] >= 0.8, (criterion, parts)
        assert parts["baseline_rate"] < parts["main_rate"], (criterion, parts)
        assert parts["risk_low"] <= parts["risk"] <= parts["risk_high"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("demo", sorted(DEMOS))
def test_independent_margins_that_never_saw_the_training_rows_are_at_no_risk(demo, seed):
    """Independent margins fitted on rows that are neither training nor hold-out rows: the release knows nothing of
    either, so training and hold-out rows are exchangeable to every attack and the true risk is 0.

    Five replicates, each with its own split of the demo into hold-out (20 %), training and fitting rows (the rest,
    halved), so that they are independent: one set's interval is conditional on its training and hold-out rows,
    and sets sharing those rows miss 0 together. Each 95 % interval covers 0 with probability about 0.95, so the
    median of the five lower ends is 0 unless three of five miss (probability < 10 x 0.05^3 ~ 0.0013). The risk is
    a clipped residual whose standard error is at most about 0.05 at these sizes (>= 114 attacks), so one
    replicate exceeds 0.1 with probability < 0.03 and the median of five with probability < 3e-4."""
    table = load_demo(demo)
    spec = DEMOS[demo]
    schema = infer_schema(table).with_roles(spec.response, list(spec.sensitive))
    replicates = []
    for i in range(NULL_SETS):
        rows = np.random.default_rng([seed, i]).permutation(len(table))
        control, rest = rows[:len(rows) // 5], rows[len(rows) // 5:]
        train, fitting = rest[:len(rest) // 2], rest[len(rest) // 2:]
        data = EvaluationData.from_tables(table.iloc[train], table.iloc[control], schema)
        margins = IndependentMargins(seed=seed).fit_encoded(
            encode_rows(data.encoder, table.iloc[fitting], schema), data.encoder, data.schema)
        synthetic = margins.sample_values(len(train), None, i)
        last = gdpr_criteria(SyntheticSet(synthetic, data, seed, "independent", None, i))
        replicates.append(risks(last, spec.sensitive))
    verdicts = gdpr_verdicts(as_summary(last), list(spec.sensitive))
    assert {v.verdict for v in verdicts} <= {"none", "measurable"}  # one set's verdict: never "high"
    for criterion in replicates[0]:
        low = np.median([r[criterion]["risk_low"] for r in replicates])
        risk = np.median([r[criterion]["risk"] for r in replicates])
        assert low == 0.0 and risk <= 0.1, (criterion, [r[criterion] for r in replicates])


# -- the arithmetic ------------------------------------------------------------------------------------------------
def test_wilson_rate_and_residual_risk_follow_the_paper():
    z = norm.ppf(0.975)
    centre, error = wilson(30, 100)
    assert centre == pytest.approx((30 + z * z / 2) / (100 + z * z))
    assert error == pytest.approx(z / (100 + z * z) * np.sqrt(30 * 70 / 100 + z * z / 4))
    outcome = anonymity.AttackOutcome(100, wilson(60, 100), wilson(20, 100), wilson(5, 100))
    (m, e_m), (c, e_c) = outcome.main, outcome.control
    risk = outcome.risk()
    error = np.sqrt((e_m / (1 - c)) ** 2 + (e_c * (m - 1) / (1 - c) ** 2) ** 2)
    assert risk.value == pytest.approx((m - c) / (1 - c))
    assert (risk.low, risk.high) == pytest.approx((risk.value - error, risk.value + error))
    assert (risk.n, risk.kind) == (100, IntervalKind.WILSON)  # a risk carries its interval and the attacks behind it
    assert risk.words() == f"95 % interval {risk.low:.2f}–{risk.high:.2f} (Wilson, 100 trials)"
    negative = anonymity.AttackOutcome(100, wilson(28, 100), wilson(30, 100), wilson(5, 100)).risk()
    assert negative.value == 0.0 and negative.low == 0.0 and 0 < negative.high < 1  # clipped, as anonymeter reports


def test_gower_space_turns_city_block_distance_into_the_gower_distance():
    a = np.array([[0.0, 1.0, 2.0], [10.0, 0.0, 2.0]])
    b = np.array([[5.0, 1.0, 3.0]])
    categorical = np.array([False, True, True])
    x, y = gower_space(categorical, a, b)
    distance, index = nearest(y, x, k=2, metric="cityblock")
    # range of column 0 is 10: |5 - 0| / 10 + 0 + 1 = 1.5 and |5 - 10| / 10 + 1 + 1 = 2.5
    assert index.tolist() == [[0, 1]] and distance.tolist() == [[1.5, 2.5]]


def test_predicates_count_every_operator():
    rows = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 1.0]])
    ops = [anonymity.EQ, anonymity.LE, anonymity.GE, anonymity.NE, anonymity.LT, anonymity.GT]
    predicates = anonymity.Predicates(np.zeros((6, 1), int), np.array(ops)[:, None], np.full((6, 1), 2.0))
    assert predicates.counts(rows).tolist() == [1, 2, 2, 2, 1, 1]
    both = anonymity.Predicates(np.array([[0, 1]]), np.array([[anonymity.GE, anonymity.EQ]]), np.array([[2.0, 1.0]]))
    assert both.counts(rows).tolist() == [2]


def test_singling_out_control_is_measured_at_the_training_set_size():
    """A hold-out smaller than the training rows: the control population has |train| rows, every hold-out row
    among them, and its count is scaled back by |train| / |hold-out|."""
    rng = np.random.default_rng(0)
    train, control = rng.normal(size=(400, 3)), rng.normal(size=(100, 3))
    population, is_control, scale = anonymity._control_population(train, control, rng)
    assert len(population) == 400 and is_control.sum() == 100 and scale == 4.0
    assert (population[is_control] == control).all()
    larger, flags, one = anonymity._control_population(control, train, rng)
    assert len(larger) == 100 and flags.all() and one == 1.0


def test_every_part_of_every_criterion_is_declared():
    for criterion, *_ in GDPR_CRITERIA:
        for part in Part:
            entry = described()[criterion_record(criterion, part)]
            assert entry.compute is gdpr_criteria
            assert (entry.per_column is PerColumn.SENSITIVE) == (criterion == "inference")


def test_one_set_records_every_declared_part_of_every_criterion():
    """A part added to ``anonymity.Part`` is recorded for every criterion, or this fails."""
    outcome = anonymity.AttackOutcome(100, wilson(60, 100), wilson(20, 100), wilson(5, 100))
    assert list(outcome.values()) == list(Part)


def test_summary_json_carries_the_criteria_per_level_and_baseline():
    """summary.json: singling_out_risk, linkability_risk and inference_risk:COLUMN (and their companions) with
    median, ci_low, ci_high and n for every level and baseline, from the records the per-set mechanism writes (the
    sweep path itself is covered by the golden cases of tests/jobs/test_engine.py)."""
    from tests.conftest import SWEEP_COLUMNS, SWEEP_RESPONSE
    from tvs_core.choice.summary import summary_json
    from tvs_core.evaluation.records import to_frame
    from tvs_core.evaluation.release import set_records

    table = load_demo("clinical")[SWEEP_COLUMNS].head(300)
    schema = infer_schema(table).with_roles(SWEEP_RESPONSE, ["total_cost_eur", "lactate_mmol_l"])
    data = EvaluationData.from_tables(*holdout_split(table, SWEEP_RESPONSE, 0.2, 0), schema)
    records = []
    for label, level in (("tvinesynth", 1), ("tvinesynth", 2), ("independent", None)):
        for index in range(2):
            rows = data.train[np.random.default_rng(index).permutation(len(data.train))]
            records += set_records(SyntheticSet(rows, data, 0, label, level, index))
    summary = summary_json(to_frame(records), list(data.schema.sensitive))
    entries = {(e["model"], e["level"]): e["metrics"] for e in summary["levels"]}
    assert set(entries) == {("tvinesynth", 1), ("tvinesynth", 2), ("independent", None)}
    for metrics in entries.values():
        keys = ["singling_out_risk", "singling_out_univariate_risk", "linkability_risk", "linkability_risk_low",
                *(f"inference_{part}:{column}" for column in data.schema.sensitive for part in ("risk", "attacks"))]
        for key in keys:
            assert set(metrics[key]) == {"median", "ci_low", "ci_high", "n"} and metrics[key]["n"] == 2


def test_univariate_predicates_each_isolate_one_synthetic_row_as_counted_row_by_row():
    """The predicates' match counts come from each column's value counts, not from comparing every predicate with
    every row: they must be the predicates the row-by-row count picks, ties, categories and extremes included."""
    rng = np.random.default_rng(3)
    synthetic = np.column_stack([np.round(rng.normal(size=300), 1), rng.integers(0, 4, 300), rng.normal(size=300),
                                 np.r_[np.zeros(150), np.ones(150)]])
    categorical = np.array([False, True, False, False])
    found = univariate_predicates(synthetic, categorical, np.random.default_rng(0), n=10_000)
    assert len(found) and (found.counts(synthetic) == 1).all()
    # every isolating predicate is found: values seen once, and the extremes that occur once
    singles = sum(int((np.unique(synthetic[:, j], return_counts=True)[1] == 1).sum()) for j in range(4))
    extremes = sum(int(c[0] == 1) + int(c[-1] == 1) for j in (0, 2, 3)
                   for c in [np.unique(synthetic[:, j], return_counts=True)[1]])
    assert len(found) == singles + extremes
