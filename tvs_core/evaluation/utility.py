"""Utility: train a classifier on real (TRTR) or synthetic (TSTR) rows, score it on the hold-out.

AUC is computed from predicted probabilities (PROTOCOLS.md: the reference scored hard labels).
Binary response: ROC AUC; multiclass: macro one-vs-rest AUC; continuous response: R^2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ..data.encoding import TableEncoder
from .forests import RandomForestClassifier, RandomForestRegressor

CLASSIFIERS = ("random_forest", "logistic")
# a random forest's trees are grown on bootstrap samples of at most this many rows: its cost and memory stop
# growing with the table (a forest on 80 000 rows held ~1.5 GB and took ~2 min); smaller tables are unchanged.
# 10 000 rather than 20 000: on 20 000-row sets of a 100 000-row table TSTR moved by +0.0001/+0.0002 [-0.0014,
# +0.0016] (within the spread over sets) and each forest got 1.7x faster (bench/forest_rows.md)
FOREST_ROWS = 10_000


def _forest_samples(n: int) -> int | None:
    return None if n <= FOREST_ROWS else FOREST_ROWS


def utility_metric(stage: str, discrete_response: bool, classifier: str = "random_forest") -> str:
    """Record name of a utility score: 'auc_tstr', 'auc_trtr_logistic', 'r2_tstr', 'r2_trtr_linear'.

    A continuous response is scored by R² and its records say so; the second model is a logistic
    regression for a class response and a linear regression for a continuous one."""
    name = f"{'auc' if discrete_response else 'r2'}_{stage}"
    if classifier == "random_forest":
        return name
    return f"{name}_{'logistic' if discrete_response else 'linear'}"


def split_xy(values: np.ndarray, response_index: int) -> tuple[np.ndarray, np.ndarray]:
    return np.delete(values, response_index, axis=-1), values[..., response_index]


def fitted_scorer(x_train: np.ndarray, y_train: np.ndarray, discrete_response: bool,
                  classifier: str = "random_forest", seed: int = 0):
    """Train once; return a function scoring any test rows (AUC, or R^2 for a continuous response).
    The function returns NaN when the training rows hold a single class. ``score.on_rows(x, y)`` predicts
    ``x`` once and returns a function scoring any subset of its rows (bootstraps without re-predicting)."""
    if not discrete_response:
        model = RandomForestRegressor(n_estimators=100, random_state=seed, n_jobs=1,
                                      max_samples=_forest_samples(len(x_train))) \
            if classifier == "random_forest" else LinearRegression()
        model.fit(x_train, y_train)

        def score_r2(x, y):
            return float(r2_score(y, model.predict(x)))

        def r2_on_rows(x, y):
            predicted = model.predict(x)
            return lambda rows: float(r2_score(y[rows], predicted[rows]))

        score_r2.on_rows = r2_on_rows
        return score_r2
    classes = np.unique(y_train[~np.isnan(y_train)])
    if len(classes) < 2:
        def constant(x, y):
            return float("nan")

        constant.on_rows = lambda x, y: (lambda rows: float("nan"))
        return constant
    if classifier == "random_forest":
        model = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1,
                                       max_samples=_forest_samples(len(x_train)))
    elif classifier == "logistic":
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    else:
        raise ValueError(f"unknown classifier {classifier!r}; use one of {CLASSIFIERS}")
    model.fit(x_train, y_train.astype(int))

    def from_proba(proba, y_test):
        if len(np.unique(y_test)) < 2:
            return float("nan")
        y_test = y_test.astype(int)
        if len(classes) == 2:
            return float(roc_auc_score(y_test, proba[:, 1]))
        present = np.isin(y_test, classes)  # test rows of a class the synthetic data never produced
        return float(roc_auc_score(y_test[present], proba[present], multi_class="ovr", average="macro",
                                   labels=classes.astype(int)))

    def score(x_test, y_test):
        if len(np.unique(y_test)) < 2:
            return float("nan")
        return from_proba(model.predict_proba(x_test), y_test)

    def on_rows(x_test, y_test):
        proba = model.predict_proba(x_test)
        return lambda rows: from_proba(proba[rows], y_test[rows])

    score.on_rows = on_rows
    return score


def score_classifier(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
                     discrete_response: bool, classifier: str = "random_forest", seed: int = 0) -> float:
    return fitted_scorer(x_train, y_train, discrete_response, classifier, seed)(x_test, y_test)


def utility_score(encoder: TableEncoder, train: pd.DataFrame, test: pd.DataFrame, response: str,
                  classifier: str = "random_forest", seed: int = 0) -> float:
    """Score on tables (encoded with the holder's encoder)."""
    j = encoder.names.index(response)
    x_train, y_train = split_xy(encoder.transform(train), j)
    x_test, y_test = split_xy(encoder.transform(test), j)
    return score_classifier(x_train, y_train, x_test, y_test, encoder.codes[j].discrete, classifier, seed)
