"""Fidelity: whether the published rows look like real ones — as typical as the real rows, covering them, new
rather than copied, with the same pairwise rank correlations and column distributions (``fidelity``, the
family's adapter, over the methods below; the rank correlations are shared with structure in ``set_metrics``).

Statistical fidelity of synthetic rows (docs/reference/protocols.md, 'Fidelity'): alpha-precision, beta-recall and
authenticity (Alaa et al. 2022, as used in the TVineSynth paper, AISTATS 2025, Appendix I), per-column KS / total
variation distances and rank-correlation comparisons.

Inputs are numeric matrices (rows x encoded columns). Alaa et al. score rows in a learned one-class
embedding; we use the identity embedding on columns z-scored by the real data, which needs no
fitting, is deterministic and keeps every number explainable in the app."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ...model.ordering import kendall_tau_matrix
from ...seeding import subsample, task_seed
from ..distance import as_matrix, nearest, standardise
from ..set_metrics import SyntheticSet, on_real, spearman
from .base import Direction, Family, Group, Metric, PerColumn, Source, register


def _grid_weights(grid: np.ndarray) -> np.ndarray:
    """Midpoint-rule weights of a sorted grid in (0, 1): each point owns the interval up to the
    midpoints with its neighbours (0 and 1 at the ends), so the weights sum to 1."""
    edges = np.r_[0.0, (grid[1:] + grid[:-1]) / 2, 1.0]
    return np.diff(edges)


def alpha_precision_beta_recall(real: np.ndarray, synthetic: np.ndarray, alphas: np.ndarray | None = None,
                                seed: int = 0, recall: str = "support", k: int = 5,
                                max_rows: int | None = 10_000) -> dict:
    """alpha-precision / beta-recall curves and their integrated scores IP_alpha, IR_beta.

    Embedding: identity on columns z-scored by the real mean/sd (not Alaa's one-class network).
    alpha-support of the real data: ball around the mean of the standardised real rows whose
    radius is the alpha-quantile of the real rows' distances to it; P_alpha = share of synthetic
    rows inside it. beta-support of the synthetic data: ball around the synthetic mean with the
    beta-quantile of the synthetic rows' distances to it as radius.

    ``recall="support"`` (default) is the TVineSynth paper's App. I as written: a real row counts at beta when
    it lies inside the synthetic beta-support (R_beta = P(X in S_S^beta), eq. 138).
    ``recall="knn"`` is the nearest-neighbour estimator of Alaa's released code: a real row x
    counts when its nearest synthetic row g lies inside the beta-support and d(x, g) <= distance
    from x to its k-th nearest other real row. It is biased for many columns: real rows' nearest
    synthetic rows sit nearer the centre than typical synthetic rows (hubness), so even perfect
    data score IR ~ 0.45 at 27 columns; with k = 1 a perfect generator is capped near 0.5.

    IP_alpha = 1 - 2 * int_0^1 |P_alpha - alpha| d alpha (TVineSynth paper, eq. 139), IR_beta likewise
    (eq. 140), by the midpoint rule on the grid (default: the 20 midpoints (i + 0.5) / 20).
    ``alpha_precision`` and ``beta_recall`` are these integrated scores (a single curve value
    would depend on an arbitrary alpha). Tables above ``max_rows`` rows are subsampled with
    ``seed``, the only random step."""
    real_x = as_matrix(real, "real")
    syn_x = as_matrix(synthetic, "synthetic")
    if real_x.shape[1] != syn_x.shape[1]:
        raise ValueError("real and synthetic need the same columns")
    if recall not in ("support", "knn"):
        raise ValueError(f"recall must be 'support' or 'knn', got {recall!r}")
    if recall == "knn" and (k < 1 or len(real_x) < 2):
        raise ValueError("the knn recall needs k >= 1 and at least two real rows")
    grid = np.linspace(0.025, 0.975, 20) if alphas is None else np.sort(np.asarray(alphas, dtype=float))
    if grid.ndim != 1 or len(grid) == 0 or grid[0] <= 0 or grid[-1] >= 1:
        raise ValueError("alphas must be a non-empty list of values strictly between 0 and 1")
    rng = np.random.default_rng(seed)
    real_x = subsample(real_x, max_rows, rng)
    syn_x = subsample(syn_x, max_rows, rng)
    real_z, syn_z = standardise(real_x, real_x, syn_x)

    real_centre = real_z.mean(axis=0)
    real_radii = np.quantile(np.linalg.norm(real_z - real_centre, axis=1), grid)
    precision = (np.linalg.norm(syn_z - real_centre, axis=1)[None, :] <= real_radii[:, None]).mean(axis=1)

    syn_centre = syn_z.mean(axis=0)
    syn_radii = np.quantile(np.linalg.norm(syn_z - syn_centre, axis=1), grid)
    if recall == "support":
        covered_at = np.linalg.norm(real_z - syn_centre, axis=1)
    else:
        dist, index = nearest(real_z, syn_z)
        knn_radius = nearest(real_z, real_z, k=k, exclude_self=True)[0][:, -1]
        covered_at = np.linalg.norm(syn_z[index[:, 0]] - syn_centre, axis=1)
        covered_at[dist[:, 0] > knn_radius] = np.inf
    recall_curve = (covered_at[None, :] <= syn_radii[:, None]).mean(axis=1)

    weights = _grid_weights(grid)
    return {
        "alphas": grid,
        "precision_curve": precision,
        "recall_curve": recall_curve,
        "alpha_precision": 1 - 2 * float(np.sum(weights * np.abs(precision - grid))),
        "beta_recall": 1 - 2 * float(np.sum(weights * np.abs(recall_curve - grid))),
        "recall": recall,
        "n_real": len(real_z),
        "n_synthetic": len(syn_z),
    }


def real_spacing(real: np.ndarray) -> np.ndarray:
    """Each real row's distance to its nearest other real row, on columns z-scored by the real data: what
    ``authenticity`` compares every synthetic set with (computed once per set of real rows)."""
    real_x = as_matrix(real, "real")
    real_z = standardise(real_x, real_x)[0]
    return nearest(real_z, real_z, k=1, exclude_self=True)[0][:, 0]


def authenticity(real: np.ndarray, synthetic: np.ndarray, spacing: np.ndarray | None = None) -> float:
    """Share of synthetic rows that are not memorised copies (Alaa et al. 2022).

    On columns z-scored by the real data, a synthetic row g with nearest real row x* is
    unauthentic when d(g, x*) <= d(x*, nearest other real row): g sits closer to x* than the
    real data's own spacing there. Ties count as unauthentic, as in Alaa's released code
    (authentic iff strictly farther); this also flags copies of real rows that occur twice. A
    generator that samples the true distribution is not at 1: in d dimensions it scores about
    0.35 (d = 1), 0.5 (d = 5), 0.6 (d = 10), 0.7-0.8 (d = 27). ``spacing``: ``real_spacing(real)``, when known."""
    real_x = as_matrix(real, "real")
    syn_x = as_matrix(synthetic, "synthetic")
    if real_x.shape[1] != syn_x.shape[1]:
        raise ValueError("real and synthetic need the same columns")
    if len(real_x) < 2:
        raise ValueError("need at least two real rows")
    real_z, syn_z = standardise(real_x, real_x, syn_x)
    spacing = real_spacing(real_x) if spacing is None else spacing
    dist, index = nearest(syn_z, real_z, k=1)
    return float(np.mean(dist[:, 0] > spacing[index[:, 0]]))


def _total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """0.5 * sum |p - q| over the union of observed values; NaN (missing) is one more value."""
    _, codes = np.unique(np.r_[a, b], return_inverse=True, equal_nan=True)
    size = codes.max() + 1
    p = np.bincount(codes[: len(a)], minlength=size) / len(a)
    q = np.bincount(codes[len(a):], minlength=size) / len(b)
    return 0.5 * float(np.abs(p - q).sum())


def column_distances(real: np.ndarray, synthetic: np.ndarray, discrete: list[bool]) -> list[float]:
    """Per column: two-sample KS statistic (continuous) or total variation distance (discrete).

    Both lie in [0, 1] (0 = same marginal). KS ignores missing cells (NaN when a side has none
    left); TV treats missing as a category, so a wrong missing rate shows up."""
    real_x = np.asarray(real, dtype=float)
    syn_x = np.asarray(synthetic, dtype=float)
    real_x = real_x[:, None] if real_x.ndim == 1 else real_x
    syn_x = syn_x[:, None] if syn_x.ndim == 1 else syn_x
    if real_x.shape[1] != syn_x.shape[1] or len(discrete) != real_x.shape[1]:
        raise ValueError("real, synthetic and discrete must describe the same columns")
    if len(real_x) == 0 or len(syn_x) == 0:
        raise ValueError("real and synthetic need rows")
    out = []
    for j, is_discrete in enumerate(discrete):
        a, b = real_x[:, j], syn_x[:, j]
        if is_discrete:
            out.append(_total_variation(a, b))
            continue
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        # the statistic only: the asymptotic p-value skips the exact one (slow on large sets, and it warns when
        # it gives up), the statistic is the same whichever way
        out.append(float(stats.ks_2samp(a, b, method="asymp").statistic) if len(a) and len(b) else float("nan"))
    return out


def kendall_real_and_synthetic(model, real: pd.DataFrame, level: int, rows: int = 2_000,
                               seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Kendall-τ matrices of the real table and of ``min(len(real), rows)`` rows drawn at ``level`` (seeded), in the
    model's encoding, with the encoded column names: the Sweep page's per-level panel."""
    synthetic = model.sample(min(len(real), rows), truncation_level=level, seed=seed)
    names = list(model.encoder_.names)
    return (kendall_matrix(model.encoder_.transform(real.dropna(subset=names))),
            kendall_matrix(model.encoder_.transform(synthetic.dropna(subset=names))), names)


def kendall_matrix(values: np.ndarray) -> np.ndarray:
    """Kendall tau-b matrix (the one Algorithm 1 orders by). Pairs with a constant column have no ranking and are
    set to 0; the diagonal is 1."""
    return np.nan_to_num(kendall_tau_matrix(as_matrix(values, "values")), nan=0.0)


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
