"""Utility: train a classifier on real (TRTR) or synthetic (TSTR) rows, score it on the hold-out.

AUC is computed from predicted probabilities (PROTOCOLS.md: the reference scored hard labels).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

from ..encoding import TableEncoder


def holdout_split(table: pd.DataFrame, response: str, fraction: float = 0.2,
                  seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stratified (train, test) split taken before any fit; test is never seen by a generator."""
    y = table[response]
    stratify = y if y.nunique() <= 20 and y.value_counts().min() >= 2 else None
    train, test = train_test_split(table, test_size=fraction, random_state=seed, stratify=stratify)
    return train.reset_index(drop=True), test.reset_index(drop=True)


def features(encoder: TableEncoder, table: pd.DataFrame, response: str) -> tuple[np.ndarray, np.ndarray]:
    values = encoder.transform(table)
    j = encoder.names.index(response)
    return np.delete(values, j, axis=1), values[:, j]


def utility_score(encoder: TableEncoder, train: pd.DataFrame, test: pd.DataFrame, response: str,
                  classifier: str = "random_forest", seed: int = 0) -> float:
    """ROC AUC (binary), macro one-vs-rest AUC (multiclass) or R^2 (continuous response).

    NaN when the training rows hold a single class (no classifier can be trained)."""
    x_train, y_train = features(encoder, train, response)
    x_test, y_test = features(encoder, test, response)
    code = encoder.codes[encoder.names.index(response)]
    if not code.discrete:
        model = RandomForestRegressor(n_estimators=100, random_state=seed, n_jobs=1)
        return float(r2_score(y_test, model.fit(x_train, y_train).predict(x_test)))
    classes = np.unique(y_train[~np.isnan(y_train)])
    if len(classes) < 2:
        return float("nan")
    if classifier == "random_forest":
        model = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    elif classifier == "logistic":
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    else:
        raise ValueError(f"unknown classifier {classifier!r}")
    model.fit(x_train, y_train.astype(int))
    proba = model.predict_proba(x_test)
    y_test = y_test.astype(int)
    if len(classes) == 2:
        return float(roc_auc_score(y_test, proba[:, 1]))
    return float(roc_auc_score(y_test, proba, multi_class="ovr", average="macro", labels=classes.astype(int)))
