"""Attribute inference with known answers: Gaussian blocks where Theorem 2.4 predicts the attacker."""

import numpy as np
import pandas as pd
import pytest

from tvs_core import TVineSynth, infer_schema
from tvs_core.evaluation.attribute import regress_sets, release_attribute_records
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.preview import (
    attribute_risk_preview,
    expected_beta,
    implied_correlation,
    normal_scores_correlation,
)
from tvs_core.model.families import FamilySet

# Order: s, a1, a2 (block A, independent of the rest) | b1, b2, b3 (block B, tied to y) | y
ORDER = ["s", "a1", "a2", "b1", "b2", "b3", "y"]


def block_gaussian(n, seed):
    rng = np.random.default_rng(seed)
    corr = np.eye(7)
    for block, rho in (([0, 1, 2], 0.6), ([3, 4, 5, 6], 0.5)):
        for i in block:
            for j in block:
                if i != j:
                    corr[i, j] = rho
    return pd.DataFrame(rng.multivariate_normal(np.zeros(7), corr, size=n), columns=ORDER), corr


@pytest.fixture(scope="module")
def fitted():
    table, corr = block_gaussian(3000, 0)
    schema = infer_schema(table).with_roles("y", ["s"])
    model = TVineSynth(response="y", sensitive=["s"], order=ORDER[:-1], families=FamilySet.GAUSSIAN, seed=0)
    model.fit(table, schema)
    data = EvaluationData.from_tables(table, table.head(100), schema)
    return model, data, table


def test_release_mab_is_zero_where_truncation_cuts_the_block_and_positive_above(fitted):
    model, data, _ = fitted
    tau_block = 6 + 1 - 3  # d + 1 - |K| - |S| with K = {a1, a2}
    j = data.index("s")
    mab = {}
    for level in (1, tau_block, 5, 6):
        sets = model.sample_values(40 * 3000, level, seed=level).reshape(40, 3000, -1)
        coef, _, _ = regress_sets(sets, j, data.categorical)
        mab[level] = np.abs(coef).mean()
        if level <= tau_block:  # every coefficient's mean is zero within its sampling interval
            se = coef.std(axis=0, ddof=1) / np.sqrt(len(coef))
            assert np.all(np.abs(coef.mean(axis=0)) < 4 * se + 1e-3), (level, coef.mean(axis=0), se)
    noise = mab[tau_block]
    assert mab[6] > 5 * noise and mab[5] > 2 * noise


def test_mean_beta_matches_theorem_2_4(fitted):
    model, data, table = fitted
    corr = normal_scores_correlation(table[ORDER]).to_numpy()
    j = data.index("s")
    for level in (2, 5, 6):
        sets = model.sample_values(40 * 3000, level, seed=100 + level).reshape(40, 3000, -1)
        coef, _, _ = regress_sets(sets, j, data.categorical)
        predicted = expected_beta(implied_correlation(corr, level), 0)
        measured = coef.mean(axis=0)
        se = coef.std(axis=0, ddof=1) / np.sqrt(len(coef))
        # sampling error of the 40 sets plus the model's estimation error (n = 3000)
        assert np.all(np.abs(measured - predicted) < 4 * se + 0.03), (level, measured, predicted)


def test_preview_reproduces_theorem_2_5_and_is_monotone_in_blocks():
    _, corr = block_gaussian(10, 0)
    preview = attribute_risk_preview(pd.DataFrame(corr, index=ORDER, columns=ORDER), ORDER, ["s"])
    mab = preview.set_index("level")["mab"]
    assert np.allclose(mab.loc[:4], 0, atol=1e-12)  # tau <= d + 1 - |K| - |S| = 4: beta = 0 exactly
    assert mab.loc[5] > 0.05 and mab.loc[6] >= mab.loc[5]
    full = expected_beta(corr, 0)
    assert np.allclose(implied_correlation(corr, 6), corr)
    assert mab.loc[6] == pytest.approx(np.abs(full).mean())


def test_release_records_name_every_set_and_metric(fitted):
    model, data, _ = fitted
    sets = model.sample_values(5 * 500, 6, seed=1).reshape(5, 500, -1)
    records = pd.DataFrame(release_attribute_records(sets, data, ["s"], "tvinesynth", 6))
    assert set(records["metric"]) == {"release_mab", "release_wcab", "release_r2"}
    assert sorted(records.loc[records.metric == "release_mab", "iteration"]) == list(range(5))
    assert (records.loc[records.metric == "release_wcab", "value"].to_numpy()
            >= records.loc[records.metric == "release_mab", "value"].to_numpy()).all()


def test_a_sets_coefficients_do_not_depend_on_the_sets_it_is_regressed_with():
    """A level's sets are scored in chunks (jobs/plan.py): a set with a constant column (its regression singular)
    must not change how the others in its chunk are solved, or the chunks' numbers would differ from one task's."""
    rng = np.random.default_rng(3)
    sets = rng.normal(size=(3, 60, 4))
    sets[2, :, 1] = 1.0  # a constant column in the last set only
    categorical = np.zeros(4, dtype=bool)
    together = regress_sets(sets, 0, categorical)
    for s in range(3):
        alone = regress_sets(sets[s:s + 1], 0, categorical)
        for whole, part in zip(together, alone, strict=True):
            assert whole[s].tobytes() == part[0].tobytes(), s
