"""Utility: how well prediction models trained on the published data predict the response Y on the real hold-out
rows (TSTR), read against the same models trained on the real training rows (TRTR). Written by
``evaluation/utility.py``'s ``tstr_records`` and ``trtr_records``, named by ``utility_metric``."""

from __future__ import annotations

from collections.abc import Iterable

from ..records import REAL
from ..utility import CLASSIFIERS, trtr_records, tstr_records, utility_metric
from .base import AxisKind, Direction, Family, Group, Metric, Reference, Source, register

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
