"""tvs_core.data.wide_demo: the registry extract of 120 columns — its shape, its margins, the dependence its
loadings promise (known answers that hold for any seed at 5 000 rows), and a demo in the list like the others."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tvs_core.data.demo import DEMOS, load_demo
from tvs_core.data.schema import ColumnType, infer_schema
from tvs_core.data.wide_demo import (
    BLOCKS,
    RESPONSE,
    RESPONSE_CUT,
    RESPONSE_LOADINGS,
    ROWS,
    SENSITIVE,
    _positive,
    registry_wide,
)

SPECS = {name: (margin, s, c, b, block) for block, columns in BLOCKS.items() for name, margin, s, c, b in columns}


@pytest.fixture(scope="module")
def large():
    """5 000 rows: a rank correlation's standard error is about 0.014, so the bounds below hold for any seed."""
    return registry_wide(n=5000, seed=11)


def latent_correlation(a: str, b: str) -> float:
    """The correlation of two columns' latent normals: the loadings they share (severity, chronic, their block)."""
    (_, s1, c1, b1, block1), (_, s2, c2, b2, block2) = SPECS[a], SPECS[b]
    return s1 * s2 + c1 * c2 + (b1 * b2 if block1 == block2 else 0.0)


def test_the_registry_has_1250_rows_119_measurements_and_the_response_last():
    table = registry_wide()
    assert table.shape == (ROWS, 120) == (1250, 120)
    assert list(table.columns) == list(SPECS) + [RESPONSE] and table.columns.is_unique
    assert set(table[RESPONSE]) == {0, 1} and table[RESPONSE].dtype == np.int64
    assert all(1 - s * s - c * c - b * b >= 0 for _, s, c, b, _ in SPECS.values())  # every latent has unit variance


def test_the_columns_are_of_every_kind_a_registry_holds():
    schema = infer_schema(registry_wide(), response=RESPONSE, sensitive=list(SENSITIVE))
    kinds = pd.Series([c.type for c in schema.columns]).value_counts()
    assert kinds[ColumnType.CONTINUOUS] >= 60 and kinds[ColumnType.INTEGER] >= 10 and kinds[ColumnType.BINARY] >= 15
    assert kinds[ColumnType.NOMINAL] >= 3 and kinds[ColumnType.ORDINAL] >= 1
    assert all(schema[s].type == ColumnType.CONTINUOUS for s in SENSITIVE)
    assert len(schema.modelled) == 120  # nothing dropped: every column is modelled as shipped


def test_the_same_seed_gives_the_same_table_and_another_seed_another():
    pd.testing.assert_frame_equal(registry_wide(n=60, seed=3), registry_wide(n=60, seed=3))
    assert not registry_wide(n=60, seed=3).equals(registry_wide(n=60, seed=4))


def test_a_skewed_margin_is_about_log_normal_in_its_body_increasing_and_always_positive():
    """median · (x + √(x² + 1))² with x = σz/2 is exp(2 asinh(σz/2)) = exp(σz − (σz)³/24 + …): e^(σz) within 5 %
    for |σz| ≤ 1; strictly increasing, so the ranks (the copula) are the latent normals'."""
    z = np.linspace(-1, 1, 201)
    np.testing.assert_allclose(_positive(100.0, 1.0, 6)(z), 100 * np.exp(z), rtol=0.05)
    wide = _positive(1.0, 1.5, 9)(np.linspace(-8, 8, 101))
    assert (wide > 0).all() and (np.diff(wide) > 0).all()


def test_measurements_stay_within_what_can_be_recorded(large):
    assert large["spo2_pct"].between(70, 100).all() and large["gcs_score"].between(3, 15).all()
    assert large["age_years"].between(18, 100).all() and (large.filter(like="_cost_eur") > 0).all().all()
    assert set(large["smoking_status"].cat.categories) == {"never", "former", "current"}
    assert large["smoking_status"].cat.ordered and set(large["region"]) == {"north", "east", "centre", "south", "west"}


def test_rank_correlations_are_those_the_loadings_promise(large):
    """Spearman's ρ of two strictly increasing functions of bivariate normals with correlation r is
    (6/π) asin(r/2): checked for every pair of skewed (never clipped) columns, within and across blocks."""
    skewed = [name for name, (margin, *_) in SPECS.items() if margin.__qualname__.startswith("_positive")]
    assert len(skewed) >= 30
    ranks = large[skewed].rank().to_numpy()
    found = np.corrcoef(ranks, rowvar=False)
    for i, a in enumerate(skewed):
        for j in range(i + 1, len(skewed)):
            expected = 6 / np.pi * np.arcsin(latent_correlation(a, skewed[j]) / 2)
            assert abs(found[i, j] - expected) < 0.06, (a, skewed[j], found[i, j], expected)


def test_the_sensitive_blocks_are_tight_and_the_response_follows_severity_not_lipids(large):
    corr = large.select_dtypes("number").corr(method="spearman")
    assert corr.loc["total_cost_eur", "ward_cost_eur"] > 0.6 and corr.loc["creatinine_mg_dl", "egfr_ml_min"] < -0.55
    assert abs(corr.loc["total_cost_eur", "cholesterol_mg_dl"]) < 0.06  # no factor in common
    assert corr.loc[RESPONSE, "sofa_score"] > 0.3 and abs(corr.loc[RESPONSE, "cholesterol_mg_dl"]) < 0.06
    share = 1 - stats.norm.cdf(RESPONSE_CUT)  # the latent is standard normal whatever the loadings
    assert abs(large[RESPONSE].mean() - share) < 0.025 and sum(v * v for v in RESPONSE_LOADINGS) < 1


def test_the_wide_demo_is_listed_with_its_response_and_sensitive_columns():
    demo = DEMOS["registry"]
    assert (demo.response, demo.sensitive) == (RESPONSE, SENSITIVE)
    assert "120 columns" in demo.title and load_demo("registry").shape == (1250, 120)
