"""The empirical audit of DP claims (evaluation/metrics/audit/canaries.py): a planted generator that claims an ε but
adds no noise is flagged; a generator that is ε-DP is not; the bound's arithmetic; the sweep's task kind and the CLI's
refusals.

Sizes: 300 clinical rows (5 columns), 40 fits per audit, so each canary is in 10 and out of 10 fits of the
measuring half. With the confidence split over two canaries and two rates (each Clopper-Pearson bound one-sided at
0.0125), a perfect test proves at most ln(0.0125^(1/10) / (1 - 0.0125^(1/10))) = 0.597: a claim of ε = 0.5 can be
refuted, the planted generator separates perfectly and so is flagged at any seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.conftest import SWEEP_COLUMNS, SWEEP_RESPONSE
from tests.helpers import CopyRows
from tvs_core import load_demo
from tvs_core.data.schema import infer_schema
from tvs_core.data.split import holdout_split
from tvs_core.evaluation.context import EvaluationData, GeneratorSpec
from tvs_core.evaluation.metrics.audit.canaries import (
    audit_base,
    canary_rows,
    claimed_privacy,
    epsilon_lower_bound,
    run_audit,
)
from tvs_core.model.families import FamilySet
from tvs_core.model.generator import SyntheticGenerator
from tvs_core.model.registry import PrivacyClaim, register

TRIALS = 40
SEEDS = (0, 1, 2)
CLAIM = 0.5


@register
class NoNoiseDP(CopyRows):
    """Claims an ε and adds no noise at all: releases its training rows, so a planted record is in every release
    of a fit that held it."""

    name = "no_noise_dp_test"
    privacy = PrivacyClaim()  # what it claims, declared as every generator that claims an ε declares it

    def __init__(self, epsilon: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon


@register
class PublicDomainDP(SyntheticGenerator):
    """Truly ε-DP (add/remove neighbours): independent columns, each a histogram over a public domain (fixed bounds
    and bins, given, never read from the rows) with Laplace noise of scale d / ε per count (sensitivity 1 per
    histogram, ε / d each over d columns: sequential composition); negative counts clipped to 0, values uniform in
    their bin."""

    name = "public_domain_dp_test"
    privacy = PrivacyClaim()

    def __init__(self, epsilon: float = 1.0, bounds: list | None = None, bins: int = 20, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon
        self.bounds = bounds
        self.bins = bins

    def _fit_values(self, values: np.ndarray) -> None:
        rng = np.random.default_rng(self.seed)
        d = values.shape[1]
        self.edges_ = [np.linspace(low, high, self.bins + 1) for low, high in self.bounds]
        counts = [np.histogram(np.clip(values[:, j], *self.bounds[j]), bins=self.edges_[j])[0] for j in range(d)]
        noisy = [np.maximum(c + rng.laplace(0.0, d / self.epsilon, len(c)), 0.0) for c in counts]
        self.weights_ = [n / n.sum() if n.sum() > 0 else np.full(len(n), 1 / len(n)) for n in noisy]

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        columns = []
        for edges, weights in zip(self.edges_, self.weights_, strict=True):
            bins = rng.choice(len(weights), n, p=weights)
            columns.append(edges[bins] + rng.random(n) * (edges[bins + 1] - edges[bins]))
        return np.column_stack(columns)


@pytest.fixture(scope="module")
def data() -> EvaluationData:
    table = load_demo("clinical")[SWEEP_COLUMNS].head(300)
    schema = infer_schema(table).with_roles(SWEEP_RESPONSE, ["total_cost_eur"])
    return EvaluationData.from_tables(*holdout_split(table, SWEEP_RESPONSE, 0.2, 0), schema)


def public_bounds(data: EvaluationData) -> list[tuple[float, float]]:
    """A domain fixed before the audit, wide enough for both canaries: three ranges either side of the base rows'."""
    base = audit_base(data, 0)
    low, high = base.min(axis=0), base.max(axis=0)
    return [(lo - 3 * (hi - lo), hi + 3 * (hi - lo)) for lo, hi in zip(low, high, strict=True)]


def test_the_most_a_perfect_test_proves_at_these_sizes():
    tpr_low = 0.0125 ** (1 / 10)
    assert epsilon_lower_bound(10, 10, 0, 10, alpha=0.025) == pytest.approx(math.log(tpr_low / (1 - tpr_low)))
    assert epsilon_lower_bound(10, 10, 0, 10, alpha=0.025) > CLAIM
    assert epsilon_lower_bound(5, 10, 5, 10) == 0.0  # a test that tells nothing proves nothing
    assert epsilon_lower_bound(10, 10, 0, 10, delta=1.0) == 0.0  # δ = 1 allows anything


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generator_that_ignores_its_epsilon_is_flagged(data, seed):
    result = run_audit(GeneratorSpec("no_noise_dp_test", {"epsilon": CLAIM}, "no-noise"), data, seed, TRIALS)
    assert result.flagged and result.empirical_epsilon > CLAIM
    assert result.tpr == 1.0 and result.fpr == 0.0  # the release holds the canary exactly when the fit did
    assert result.sentence().startswith("no-noise: VIOLATION")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generator_that_is_epsilon_dp_is_not_flagged(data, seed):
    """For a mechanism that is (ε, δ)-DP the reported bound exceeds ε with probability at most 5 % (the
    Clopper-Pearson bounds' confidence, split over canaries and rates): here ε = 0.5 is the true ε."""
    spec = GeneratorSpec("public_domain_dp_test", {"epsilon": CLAIM, "bounds": public_bounds(data)}, "public")
    result = run_audit(spec, data, seed, TRIALS)
    assert not result.flagged and result.empirical_epsilon <= CLAIM
    assert result.most_provable == pytest.approx(epsilon_lower_bound(10, 10, 0, 10, alpha=0.025))


def test_canaries_are_worst_case_outliers(data):
    base = audit_base(data, 0)
    canaries = canary_rows(base, data.categorical)
    numeric = ~data.categorical
    assert (canaries["outside"][numeric] > base[:, numeric].max(axis=0)).all()
    extreme = np.isclose(canaries["corner"], base.min(axis=0)) | np.isclose(canaries["corner"], base.max(axis=0))
    assert extreme[numeric].all()
    assert not (base == canaries["corner"]).all(axis=1).any()  # no training row is the corner record


def test_only_generators_with_an_epsilon_claim_are_audited():
    assert claimed_privacy(GeneratorSpec("no_noise_dp_test", {"epsilon": 2.0})) == (2.0, 0.0)
    assert claimed_privacy(GeneratorSpec("mst", {"epsilon": 2.5}))[1] == pytest.approx(1e-5)
    assert claimed_privacy(GeneratorSpec("independent", {})) is None


def test_the_audit_is_a_task_kind_of_the_sweep():
    """Planned per audited baseline and fit (only baselines that claim an ε), each task one fit run by its handler,
    the records giving the bound in summary.json."""
    from tvs_core import TVineSynth
    from tvs_core.choice.summary import summary_json
    from tvs_core.evaluation.records import to_frame
    from tvs_core.jobs.config import SweepConfig
    from tvs_core.jobs.context import JobContext
    from tvs_core.jobs.plan import plan
    from tvs_core.jobs.tasks import run_task

    table = load_demo("clinical")[SWEEP_COLUMNS].head(300)
    train, test = holdout_split(table, SWEEP_RESPONSE, 0.2, 0)
    model = TVineSynth(response=SWEEP_RESPONSE, sensitive=["total_cost_eur"], seed=0,
                       families=FamilySet.FAST).fit(train)
    planted = GeneratorSpec("no_noise_dp_test", {"epsilon": CLAIM}, "no-noise")
    def context(**settings):
        return JobContext.from_config(SweepConfig.for_model(model, levels=[1], games=["release"], **settings), model,
                                      train, test, baselines=[planted, GeneratorSpec("independent", {}, "independent")])

    context = context(dp_audit_trials=TRIALS)
    tasks = [t for t in plan(context) if t.kind == "dp_audit"]
    assert [t.name for t in tasks] == [f"dp_audit:no-noise:{i}" for i in range(TRIALS)]
    records = [r for t in tasks for r in run_task(t, context)[0]]
    audits = summary_json(to_frame(records), ["total_cost_eur"])["dp_audit"]
    assert list(audits) == ["no-noise"] and audits["no-noise"]["flagged"]
    assert audits["no-noise"]["claimed_epsilon"] == CLAIM and audits["no-noise"]["trials"] == TRIALS
    off = JobContext.from_config(SweepConfig.for_model(model, levels=[1], games=["release"]), model, train, test,
                                 baselines=[planted])
    assert not [t for t in plan(off) if t.kind == "dp_audit"]  # off by default


def test_the_command_line_refuses_an_audit_with_nothing_to_audit(tmp_path, capsys):
    from tvs_core.cli import main

    common = ["--out", str(tmp_path / "o"), "--workspace", str(tmp_path / "ws")]
    assert main(["sweep", "--demo", "clinical", "--baselines", "independent", "--audit-dp", *common]) == 2
    assert main(["sweep", "--demo", "clinical", "--baselines", "dp_vine:1", "--audit-dp", "10", *common]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "claims an ε" in lines[0] and "multiple of 4" in lines[1]
    assert not (tmp_path / "o").exists()


def test_a_sweep_without_the_audit_keeps_its_identity():
    """Earlier sweeps' job ids hold: the setting is absent from the config's identity unless it is on."""
    from tvs_core.jobs.config import SweepConfig

    base = SweepConfig(response=SWEEP_RESPONSE, sensitive=["total_cost_eur"])
    assert "dp_audit_trials" not in base.to_dict()
    assert SweepConfig(**{**base.to_dict(), "dp_audit_trials": 80}).to_dict()["dp_audit_trials"] == 80
