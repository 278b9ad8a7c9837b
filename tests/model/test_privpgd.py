"""PrivPGD (issue 26): the authors' privacy accounting, the noise it promises, seeded reproducibility, the schema
round trip and a sweep with ``privpgd:2.5`` as a baseline. The optimisation runs at small settings except in
``test_at_the_authors_optimisation_settings...`` (the authors' epochs, rates, schedules, projections; fewer
particles); every statistical bound below is derived in the test and holds for any seed."""

import math
import os
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import minimize_scalar

from tests.conftest import make_mixed_table
from tests.helpers import SMALLEST as TINY
from tvs_core import load_demo
from tvs_core.errors import DataError
from tvs_core.evaluation.records import HOLDER
from tvs_core.figures import model_label
from tvs_core.jobs import COMPETITORS, JobView, SweepConfig, baseline_spec, submit
from tvs_core.jobs.worker import run_job
from tvs_core.model import registry
from tvs_core.model.competitors import EXTRA_FIX, discretise, fit_cost, grid_sizes
from tvs_core.model.mst import marginal_counts
from tvs_core.model.privpgd import REFERENCE_SETTINGS, PrivPGD, measure_pairs, rdp_gaussian_sigma
from tvs_core.model.registry import BaselineName
from tvs_core.release.ledger import epsilon_of
from tvs_core.storage import Store

pytest.importorskip("torch")

Y = "in_hospital_death"
# the seeds of the slow known-answer test (TVS_PRIVPGD_SEEDS=1,2,3 runs it for each; CI runs the first)
SEEDS = [int(s) for s in os.environ.get("TVS_PRIVPGD_SEEDS", "1").split(",")]
TINY_OPTIMISER = dict(particles=200, iterations=8, projection_iterations=10)


def classical_rdp_epsilon(sigma: float, delta: float) -> float:
    """ε of a Gaussian mechanism with noise multiplier σ (RDP α/(2σ²)) by ε = min_α RDP(α) + log(1/δ)/(α − 1),
    minimised numerically over α (autodp's conversion, independent of the closed form in tvs_core)."""
    best = minimize_scalar(lambda a: a / (2 * sigma ** 2) + math.log(1 / delta) / (a - 1), bounds=(1 + 1e-9, 1e6),
                           method="bounded", options={"xatol": 1e-10})
    return float(best.fun)


def test_the_noise_multiplier_is_the_authors_calibration_at_the_papers_budget():
    # by hand: log(1/δ) = 5 ln 10 = 11.5129; ρ = (√(11.5129 + 2.5) − √11.5129)² = (3.74339 − 3.39307)² = 0.122724;
    # σ = 1/√(2ρ) = 2.01849
    sigma = rdp_gaussian_sigma(2.5, 1e-5)
    assert sigma == pytest.approx(2.01849, abs=5e-5)
    for epsilon, delta in ((2.5, 1e-5), (0.1, 1e-5), (10.0, 1e-6)):
        sigma = rdp_gaussian_sigma(epsilon, delta)
        assert classical_rdp_epsilon(sigma, delta) == pytest.approx(epsilon, rel=1e-6)  # the budget is used...
        assert classical_rdp_epsilon(0.99 * sigma, delta) > epsilon  # ...and less noise would exceed it
    with pytest.raises(ValueError):
        rdp_gaussian_sigma(2.5, 0.0)


def test_every_two_way_marginal_gets_an_equal_share_of_the_budget_at_the_bounded_sensitivity():
    table = make_mixed_table(n=150)
    model = PrivPGD(response="outcome", **TINY_OPTIMISER).fit(table)
    d = len(model.encoder_.names)
    k = d * (d - 1) // 2
    assert model.pairs_ == [(a, b) for a in range(d) for b in range(a + 1, d)]  # the workload: all pairs, no 1-way
    sigma = rdp_gaussian_sigma(2.5, 1e-5)  # the defaults are the paper's ε = 2.5, δ = 1e-5
    assert (model.epsilon, model.delta, model.sigma_) == (2.5, 1e-5, sigma)
    assert [m.sigma for m in model.measurements_] == pytest.approx([math.sqrt(2) * sigma * math.sqrt(k)] * k)
    # one row replaced changes a marginal by √2 in L2; each marginal's RDP is α·2/(2 s²) = α/(2σ²)/K: together
    # exactly the RDP α/(2σ²) that the calibration converted to (2.5, 1e-5)
    shares = [2 / (2 * m.sigma ** 2) for m in model.measurements_]
    assert sum(shares) == pytest.approx(1 / (2 * sigma ** 2), rel=1e-12)
    assert max(shares) == pytest.approx(min(shares), rel=1e-12)
    assert epsilon_of(model) == 2.5  # what the release ledger counts


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_measured_marginals_carry_gaussian_noise_of_the_stated_scale(seed):
    """Many draws of the mechanism on one fixed table: the standardised errors of all cells are N(0, 1)."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"a": rng.normal(size=200), "b": rng.integers(0, 3, 200), "c": rng.integers(0, 2, 200)})
    cells, grids = discretise(table.to_numpy(float), [False, True, True], 32)
    sizes = grid_sizes(grids)
    errors = []
    for draw in range(300):
        pairs, sigma, measured = measure_pairs(cells, sizes, 2.5, 1e-5, np.random.default_rng([seed, draw]))
        for m in measured:
            errors.append((m.y - marginal_counts(cells, sizes, m.clique)) / (math.sqrt(2 * len(pairs)) * sigma))
    z = np.concatenate(errors)
    m = z.size  # 300 draws × (32·3 + 32·2 + 3·2) cells
    low, high = stats.chi2.ppf([1e-6, 1 - 1e-6], m - 1) / (m - 1)  # band of s²/σ² for normal noise, any seed
    assert low < np.var(z, ddof=1) < high
    assert abs(z.mean()) < stats.norm.ppf(1 - 1e-6) / math.sqrt(m)


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_rows():
    table = load_demo("clinical")[["total_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]].head(200)

    def released(seed: int) -> bytes:
        model = PrivPGD(response=Y, seed=seed, **TINY_OPTIMISER).fit(table)
        return model.sample(150, seed=4).to_csv(index=False).encode()

    first = released(7)
    assert released(7) == first
    assert released(8) != first


def test_privpgd_round_trips_the_schema():
    mixed = make_mixed_table(n=150)
    out = PrivPGD(response="outcome", seed=3, **TINY_OPTIMISER).fit(mixed).sample(60, seed=1)
    assert list(out.columns) == list(mixed.columns)
    assert (out.dtypes == mixed.dtypes).all()
    for column in ("stage", "ward"):
        assert list(out[column].cat.categories) == list(mixed[column].cat.categories)
    for column in ("colour", "insured", "smoker", "outcome"):
        assert set(out[column].dropna()) <= set(mixed[column])


@pytest.mark.parametrize("seed", SEEDS)
def test_at_the_authors_optimisation_settings_a_large_budget_reproduces_the_marginals(seed):
    """The authors' epochs, learning rates, schedules, projections, batches and mask (REFERENCE_SETTINGS), with
    our 1 000 particles for their 100 000: at ε = 1000 the noise is small and the particles must match the table's
    two-way structure. Bounds: the true frequencies ± 4 standard errors of a frequency from 500 drawn rows,
    plus 0.05 for what the optimisation leaves (the bins' width is 1/32)."""
    rng = np.random.default_rng(seed + 4)
    z = rng.random(1000) < 0.3
    table = pd.DataFrame({"x": np.where(z, 2.0, 0.0) + rng.normal(scale=0.3, size=1000), "z": z.astype(int),
                          "y": np.where(rng.random(1000) < 0.9, z, ~z).astype(int)})
    settings = {**REFERENCE_SETTINGS, "particles": 1000}
    out = PrivPGD(epsilon=1000.0, response="y", seed=seed, **settings).fit(table).sample(500, seed=0)
    slack = 4 * math.sqrt(0.25 / 500) + 0.05
    assert abs(out["z"].mean() - z.mean()) < slack
    assert abs((out["y"] == out["z"]).mean() - (table["y"] == table["z"]).mean()) < slack
    assert abs(out.loc[out.z == 1, "x"].mean() - table.loc[table.z == 1, "x"].mean()) < 0.25  # ≈ 8 bins of 1/32
    assert abs(out.loc[out.z == 0, "x"].mean() - table.loc[table.z == 0, "x"].mean()) < 0.25


def test_bad_settings_and_a_missing_torch_are_one_sentence(monkeypatch):
    table = make_mixed_table(n=100)
    with pytest.raises(DataError, match="ε > 0"):
        PrivPGD(epsilon=0, response="outcome").fit(table)
    with pytest.raises(DataError, match="particles"):
        PrivPGD(particles=0, response="outcome").fit(table)
    with pytest.raises(DataError, match="'iterations' must be a whole number of at least 1"):
        PrivPGD(iterations=2.5, response="outcome").fit(table)
    with pytest.raises(DataError, match="setting 'margins' is 'nope', not a MarginKind"):  # every generator's
        PrivPGD(margins="nope", response="outcome").fit(table)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(DataError) as refused:
        PrivPGD(response="outcome").fit(table)
    assert "torch" in str(refused.value) and refused.value.fix == EXTRA_FIX


def test_privpgd_is_the_papers_competitor_by_name_with_a_cost_before_start():
    config = SweepConfig(response=Y, sensitive=["total_cost_eur"])
    assert "privpgd:2.5" in COMPETITORS and "mst:2.5" not in COMPETITORS
    spec = baseline_spec(BaselineName.parse("privpgd:2.5"), config)
    model = spec.build(0)
    assert isinstance(model, PrivPGD) and (model.epsilon, model.delta) == (2.5, 1e-5)
    assert baseline_spec(BaselineName.parse("mst:2.5"), config).build(0).name == "mst"  # MST stays an option
    assert model_label("privpgd:2.5") == "PrivPGD (ε = 2.5)"
    for bad in ("privpgd", "privpgd:0", "privpgd:x"):
        with pytest.raises(DataError, match="privpgd"):
            baseline_spec(BaselineName.parse(bad), config)
    # its cost grows with the number of two-way marginals, not with the rows
    assert fit_cost("privpgd", None, 1000, 31) > 2 * fit_cost("privpgd", None, 1000, 21) > 0
    assert fit_cost("privpgd", None, 10_000, 21) == fit_cost("privpgd", None, 1000, 21)


class _SmallPrivPGD(PrivPGD):
    """PrivPGD at a few epochs, registered under the same name for the sweep below (the engine builds baselines
    by name)."""

    def __init__(self, **kwargs):
        super().__init__(**{**TINY_OPTIMISER, **kwargs})


def test_a_sweep_with_privpgd_gives_its_tstr_mab_and_membership_point(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._registered, "privpgd", _SmallPrivPGD)
    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]].head(240)
    config = SweepConfig(response=Y, sensitive=["total_cost_eur"], levels=[1], baselines=["privpgd:2.5"],
                         games=["release"], protocol_overrides=TINY)
    store = Store(tmp_path / "space")
    job_id = submit(store, table, config)
    assert run_job(store, job_id, n_jobs=1) == "done"
    records = JobView(store, job_id).records()
    ours = records[records.model == "privpgd:2.5"]
    for metric in ("auc_tstr", "release_mab", "mia_auc"):
        values = ours[ours.metric == metric]["value"]
        assert len(values) > 0 and values.notna().all(), metric
    assert set(records.model) >= {HOLDER, "privpgd:2.5"}
