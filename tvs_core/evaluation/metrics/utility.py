"""Utility: how well prediction models trained on the published data predict the response Y on the real hold-out
rows (TSTR), read against the same models trained on the real training rows (TRTR): the family's declaration, and
the code that writes its records (``tstr_records``, ``trtr_records``, named by ``utility_metric``).

A classifier is trained on real (TRTR) or synthetic (TSTR) rows and scored on the hold-out. AUC is computed from
predicted probabilities (the reference scored hard labels: docs/reference/protocols.md, 'Where we differ').
Binary response: ROC AUC; multiclass: macro one-vs-rest AUC; continuous response: R^2."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ...data.encoding import TableEncoder
from ...seeding import task_rng, task_seed
from ..context import EvaluationData
from ..forests import RandomForestClassifier, RandomForestRegressor
from ..records import REAL, Record, RecordRole, record
from .base import AxisKind, Direction, Family, Group, Metric, Reference, Source, register

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


def tstr_records(sets: np.ndarray, data: EvaluationData, level, master_seed: int, label: str, indices: list[int],
                 first: int = 0, classifiers=CLASSIFIERS) -> list[Record]:
    """TSTR: each classifier trained on each published set of ``indices`` (set ``s`` is ``sets[s - first]``) and
    scored on the hold-out rows, as records; each set and classifier seeded on its own, so a chunk of sets gives
    the records it would give with the others."""
    j = data.response_index
    discrete = data.discrete[j]
    x_test, y_test = split_xy(data.test, j)
    records = []
    for s in indices:
        x, y = split_xy(sets[s - first], j)
        for c in classifiers:
            seed = task_seed(master_seed, "tstr", label, level, s, c)
            records.append(record(label, level, utility_metric("tstr", discrete, c),
                                  score_classifier(x, y, x_test, y_test, discrete, c, seed), iteration=s))
    return records


def trtr_records(data: EvaluationData, master_seed: int, classifiers=CLASSIFIERS) -> list[Record]:
    """TRTR, the reference TSTR is read against: the same classifiers trained on the real training rows; its
    interval from 199 bootstraps of the hold-out rows (replicate 0: the hold-out itself)."""
    j = data.response_index
    x_train, y_train = split_xy(data.train, j)
    x_test, y_test = split_xy(data.test, j)
    rng = task_rng(master_seed, "trtr", "bootstrap")
    replicates = [np.arange(len(y_test))] + [rng.integers(0, len(y_test), len(y_test)) for _ in range(199)]
    records = []
    for c in classifiers:
        name = utility_metric("trtr", data.discrete[j], c)
        scorer = fitted_scorer(x_train, y_train, data.discrete[j], c, task_seed(master_seed, "trtr", c))
        on_rows = scorer.on_rows(x_test, y_test)  # predicted once; each bootstrap only re-scores
        for b, rows in enumerate(replicates):
            records.append(record(REAL, None, name, on_rows(rows), iteration=b, role=RecordRole.REFERENCE))
    return records


def utility_score(encoder: TableEncoder, train: pd.DataFrame, test: pd.DataFrame, response: str,
                  classifier: str = "random_forest", seed: int = 0) -> float:
    """Score on tables (encoded with the holder's encoder)."""
    j = encoder.names.index(response)
    x_train, y_train = split_xy(encoder.transform(train), j)
    x_test, y_test = split_xy(encoder.transform(test), j)
    return score_classifier(x_train, y_train, x_test, y_test, encoder.codes[j].discrete, classifier, seed)


UTILITY_STAGES = ("tstr", "trtr")  # trained on synthetic rows, or on the real training rows (the reference)


def _utility(auc: bool, stage: str, classifier: str) -> Metric:
    """TSTR/TRTR by AUC (class response) or R² (continuous); a random forest, or the linear second model. Named by
    ``utility.utility_metric``, the rule the records are written by; TSTR's ideal is the TRTR of the same model."""
    real, forest = stage == "trtr", classifier == "random_forest"
    unit = "ROC AUC" if auc else "R²"
    second = "logistic" if auc else "linear"
    name = utility_metric(stage, auc, classifier)
    model = "random forest" if forest else f"{second} regression"
    words = "AUC" if auc else "R²"
    short = f"{stage.upper()} {words} " + (f"({'real' if real else 'synthetic'}-trained)" if forest else f", {second}")
    trained = "the real training rows (TRTR)" if real else "synthetic rows (TSTR)"
    scored = "macro one-vs-rest for several classes" if auc else "for a continuous response"
    return Metric(name, f"{stage.upper()} {unit} ({model})", short.replace(" ,", ","), unit, Direction.HIGHER,
                  (0.0 if auc else float("-inf"), 1.0), Group.UTILITY, Source.REFERENCE if real else Source.RELEASE,
                  f"How well a prediction model for Y ({model}) trained on {trained} predicts the real hold-out "
                  f"rows ({unit}, {scored})"
                  + (": the reference the synthetic data is compared with." if real else
                     ": close to TRTR means the release predicts Y about as well as the real data."),
                  axis=None if real or not forest else AxisKind.UTILITY,
                  question=None if real or not forest else "How well models trained on the synthetic data predict Y, "
                                                           "compared with the real data (higher is more useful)",
                  worst=None if real else (0.5 if auc else 0.0),
                  ideal=None if real else Reference(utility_metric("trtr", auc, classifier), REAL),
                  spread="percentile" if real else "bootstrap", produced_by=trtr_records if real else tstr_records)


UTILITY = register(Family("utility", 10, tuple(_utility(auc, stage, classifier) for auc in (True, False)
                                               for stage in UTILITY_STAGES for classifier in CLASSIFIERS)))
_BY_NAME = {m.name: m for m in UTILITY}


def tstr_metric(metric_names: Iterable[str]) -> Metric:
    """TSTR with the random forest, by R² when ``metric_names`` (a run's records) hold the utilities of a continuous
    response, else by AUC: the utility of a single-axis choice, and what the utility mix's ``tstr`` stands for."""
    continuous = {utility_metric(stage, False, c) for stage in UTILITY_STAGES for c in CLASSIFIERS}
    return _BY_NAME[utility_metric("tstr", continuous.isdisjoint(map(str, metric_names)))]


# the metrics ``tstr_metric`` may answer: one per kind of response
TSTR_METRICS = frozenset(utility_metric("tstr", discrete) for discrete in (True, False))
