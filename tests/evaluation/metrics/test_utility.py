"""Utility scores for each kind of response, and the categorical attribute attacker."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.helpers import TINY_ONE_ITERATION
from tvs_core import TVineSynth, evaluate
from tvs_core.data.split import explicit_holdout, holdout_split
from tvs_core.evaluation.metrics.utility import score_classifier
from tvs_core.evaluation.protocol import QUICK


def test_binary_auc_uses_probabilities_not_labels():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] + 0.5 * rng.normal(size=400) > 0).astype(float)
    auc = score_classifier(x[:300], y[:300], x[300:], y[300:], True, "logistic")
    assert 0.85 < auc < 1.0
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    hard = roc_auc_score(y[300:], LogisticRegression().fit(x[:300], y[:300]).predict(x[300:]))
    assert auc > hard + 0.02  # the reference's hard-label "AUC" is a balanced accuracy


def test_multiclass_macro_auc_and_continuous_r2():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 2))
    classes = np.digitize(x[:, 0], [-0.5, 0.5]).astype(float)
    auc = score_classifier(x[:450], classes[:450], x[450:], classes[450:], True, "random_forest")
    assert 0.8 < auc <= 1.0
    target = 2 * x[:, 1] + 0.1 * rng.normal(size=600)
    r2 = score_classifier(x[:450], target[:450], x[450:], target[450:], False, "logistic")
    assert r2 > 0.95


def test_single_class_training_data_gives_nan():
    x = np.zeros((20, 2))
    assert np.isnan(score_classifier(x, np.ones(20), x, np.r_[np.ones(10), np.zeros(10)], True))


def test_holdout_is_stratified_and_explicit_holdout_checks_columns():
    table = pd.DataFrame({"x": range(100), "y": [0] * 80 + [1] * 20})
    train, test = holdout_split(table, "y", 0.2, seed=0)
    assert len(test) == 20 and test["y"].sum() == 4
    from tvs_core.errors import DataError

    with pytest.raises(DataError, match="lacks column 'y'"):
        explicit_holdout(table, table[["x"]])


def test_categorical_sensitive_column_gets_an_advantage_score():
    rng = np.random.default_rng(2)
    n = 400
    z = rng.normal(size=n)
    table = pd.DataFrame({"a": z + 0.3 * rng.normal(size=n), "b": rng.normal(size=n),
                          "ward": np.where(z > 0.5, "icu", np.where(z < -0.5, "step-down", "general")),
                          "y": (z + rng.normal(size=n) > 0).astype(int)})
    train, test = holdout_split(table, "y", seed=0)
    model = TVineSynth(response="y", sensitive=["ward", "a"], seed=0).fit(train)
    tiny = replace(QUICK, **TINY_ONE_ITERATION)
    records = evaluate(model, train, test, preset=tiny, levels=[1, 3], n_jobs=1, games=("release", "aia")).records
    ward = records[records.attribute == "ward"]
    assert {"advantage", "release_advantage"} <= set(ward["metric"])
    advantages = ward[ward["metric"].isin(["advantage", "release_advantage"])]  # (the GDPR inference counts too)
    assert advantages["value"].between(-1, 1).all()
    assert "mab" in set(records.loc[records.attribute == "a", "metric"])
