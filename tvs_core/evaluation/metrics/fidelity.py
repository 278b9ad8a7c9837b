"""Fidelity: whether the published rows look like real ones — as typical as the real rows, covering them, new
rather than copied, with the same pairwise rank correlations and column distributions (``fidelity`` below
over ``evaluation/fidelity.py``)."""

from __future__ import annotations

from ...seeding import task_seed
from ..fidelity import alpha_precision_beta_recall, authenticity, column_distances, real_spacing
from ..set_metrics import SyntheticSet, on_real, spearman
from .base import Direction, Family, Group, Metric, PerColumn, Source, register


def fidelity(s: SyntheticSet) -> dict:
    support = alpha_precision_beta_recall(s.data.train, s.values, seed=task_seed(s.master_seed, "fid", s.index))
    distances = column_distances(s.data.train, s.values, s.data.discrete)
    return {"alpha_precision": support["alpha_precision"], "beta_recall": support["beta_recall"],
            "authenticity": authenticity(s.data.train, s.values,
                                         on_real(s, "spacing", lambda: real_spacing(s.data.train))),
            "spearman_difference": spearman(s),
            "column_distance": dict(zip(s.data.names, distances, strict=True))}


def _fidelity(name: str, label: str, short: str, unit: str, better: Direction, value_range: tuple, explanation: str,
              **more) -> Metric:
    """Every fidelity metric is computed on one published set by ``fidelity``, for the release."""
    return Metric(name, label, short, unit, better, value_range, Group.FIDELITY, Source.RELEASE, explanation,
                  **more)


FIDELITY = register(Family("fidelity", 80, (
    _fidelity("alpha_precision", "α-precision (fidelity)", "α-precision (fidelity)", "share", Direction.HIGHER,
              (0.0, 1.0),
              "Whether synthetic rows are as typical as real rows: the regions that hold a given share of the most "
              "typical real rows (the α-supports) should hold the same share of synthetic rows, at every size. 1 "
              "means they do; lower means synthetic rows crowd the centre or stray outside (integrated "
              "α-precision, Alaa et al. 2022)."),
    _fidelity("beta_recall", "β-recall (diversity)", "β-recall (diversity)", "share", Direction.HIGHER, (0.0, 1.0),
              "Whether the synthetic data covers the real rows as it should: the regions that hold a given share of "
              "the most typical synthetic rows (the β-supports) should hold the same share of real rows, at every "
              "size. 1 means they do; lower means the release misses or crowds some kinds of records (integrated "
              "β-recall, Alaa et al. 2022)."),
    _fidelity("authenticity", "Authenticity (share of non-copied rows)", "Authenticity", "share", Direction.HIGHER,
              (0.0, 1.0),
              "The share of synthetic rows that are new rather than near-copies: not closer to a training row than "
              "that row's own nearest real neighbour (Alaa et al. 2022)."),
    _fidelity("spearman_difference", "Mean |Spearman difference| real vs synthetic", "Spearman matrix difference",
              "|ρ difference|", Direction.LOWER, (0.0, 2.0),
              "How much the rank correlations (Spearman) between pairs of columns differ, on average, between the "
              "real and the synthetic data: 0 means the same."),
    _fidelity("column_distance", "Distance between real and synthetic column distributions",
              "Column distance (KS / TV)", "KS or TV distance", Direction.LOWER, (0.0, 1.0),
              "How different each column's distribution of values is in the synthetic data, from 0 (the same) to 1 "
              "(no overlap): Kolmogorov-Smirnov distance for numbers, total variation for categories.",
              per_column=PerColumn.ANY),
), compute=fidelity))
