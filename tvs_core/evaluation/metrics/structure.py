"""Structure: whether the published data keeps what relates the columns to each other — every pair's rank
correlation, an analyst's regression of Y, and how hard synthetic rows are to tell from real ones. Computed on
one published set by ``structure``, the family's adapter, over the methods below; listed with utility.

Utility a statistician checks beyond "train on synthetic, test on real": are the real data's pairwise
dependence and the answer of a regression kept, and can the synthetic rows be told from the real ones?

* Pairwise dependence: Spearman matrices (the mid-rank helper of ``fidelity``, so both modules agree).
* Confidence-interval overlap, Karr, Kohnen, Oganian, Reiter & Sanil (2006), "A framework for evaluating the
  utility of data altered to protect confidentiality", Am. Stat. 60(3) 224-232: J = 0.5 * (O/(U_r - L_r) +
  O/(U_s - L_s)), O = min(U_r, U_s) - max(L_r, L_s) NOT truncated at 0, as in synthpop's ``compare.CI`` (which
  dropped its earlier truncation in 2017) and syntheval's ``util_ci_overlap``: 1 for identical intervals, 0 when
  they touch, negative by how many widths apart they are, so a coefficient moved by ten SEs costs more than a near miss.
* pMSE ratio, Snoke, Raab, Nowok, Dibben & Slavkovic (2018), "General and specific utility measures for synthetic
  data", JRSS A 181(3) 663-688, as synthpop's ``utility.gen(method = "logit")``: mean((p_i - c)^2) over
  (k-1)(1-c)^2 c / N, k the non-aliased coefficients. That null is "drawn from a correct model fitted to the real
  rows" (ratio ~1); an independent sample of the population also carries the real rows' own noise and scores
  ~1/(1-c) = 2. Like synthpop's default ``maxorder = 1`` the model has pairwise interactions: with main effects
  alone, permuting every column (all column sums kept) gives the MLE p = c and a ratio of 0."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import linalg, special, stats

from ...seeding import subsample, task_seed
from ..distance import as_matrix
from ..records import SHUFFLED
from ..set_metrics import SyntheticSet, _rank_correlation, on_real, spearman, spearman_difference
from ..sizes import PMSE_ROWS
from .base import AxisKind, Direction, Family, Group, Metric, Reference, Source, register

_ALIAS = 1e-9  # a unit-scaled column whose squared residual on the earlier columns is below this is aliased
_TRTRS = linalg.get_lapack_funcs("trtrs", (np.zeros((1, 1)),))


def spearman_matrix(values: np.ndarray) -> np.ndarray:
    """Spearman matrix (Pearson on mid-ranks, scipy ``rankdata``), reusing the ``fidelity`` helper.

    A constant column has no ranking: its correlations are 0, not NaN, and its diagonal 1, so a synthetic
    column collapsed to one value reads as "dependence lost" rather than as a hole in the table."""
    corr = _rank_correlation(as_matrix(values, "values"))
    np.fill_diagonal(corr, 1.0)
    return corr


def pair_changes(real: np.ndarray, synthetic: np.ndarray, names: list[str]) -> pd.DataFrame:
    """One row per unordered pair (a, b): real and synthetic Spearman and change = synthetic - real, largest
    |change| first, so the dependencies a generator lost (or invented) are read from the top."""
    r, s = spearman_matrix(real), spearman_matrix(synthetic)
    if r.shape != s.shape or len(names) != len(r):
        raise ValueError("real, synthetic and names need the same columns")
    i, j = np.triu_indices(len(r), k=1)
    label = np.asarray(list(names), dtype=object)
    out = pd.DataFrame({"a": label[i], "b": label[j], "real": r[i, j], "synthetic": s[i, j]})
    out["change"] = out["synthetic"] - out["real"]
    order = np.argsort(-np.abs(out["change"].to_numpy()), kind="stable")
    return out.iloc[order].reset_index(drop=True)


def pair_structure(real: np.ndarray, synthetic: np.ndarray, difference: float | None = None) -> float:
    """1 - mean over pairs i<j of |rho_real - rho_synthetic| (Spearman): 1 = every pairwise dependence kept;
    independent margins score about 1 - mean|rho_real|, the floor a generator ignoring dependence gets.
    ``difference``: ``spearman_difference(real, synthetic)``, when known."""
    return 1.0 - (spearman_difference(real, synthetic) if difference is None else difference)


def _real_levels(values: np.ndarray, response: int, categorical: np.ndarray) -> dict[int, np.ndarray]:
    """Levels of every categorical column of the data taken as real; for a categorical response, the one class
    the analysis models (1 for a 0/1 response, else the most frequent class) as a one-element array."""
    levels = {int(j): np.unique(values[:, j]) for j in np.flatnonzero(categorical)}
    if categorical[response]:
        codes, counts = np.unique(values[:, response], return_counts=True)
        binary = set(codes.tolist()) == {0.0, 1.0}
        levels[response] = np.array([1.0 if binary else codes[np.argmax(counts)]])
    return levels


def regression_design(values: np.ndarray, response: int, categorical, covariates: list[int] | None = None,
                      names: list[str] | None = None, real_levels: dict[int, np.ndarray] | None = None,
                      ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """X (intercept first), y and coefficient names for "Y on the covariates" (default: every other column).

    Categorical covariates become indicators of their levels but the first (nominal codes have no order; for
    0/1 codes this is the column itself). Levels and the modelled class of a categorical Y come from
    ``real_levels`` (built from ``values`` when omitted): pass the real data's so the synthetic design has the
    same columns; a synthetic code the real data lacks falls in the baseline."""
    x = as_matrix(values, "values")
    cat = np.asarray(categorical, dtype=bool)
    levels = _real_levels(x, response, cat) if real_levels is None else real_levels
    names = [f"x{j}" for j in range(x.shape[1])] if names is None else list(names)
    covariates = [j for j in range(x.shape[1]) if j != response] if covariates is None else list(covariates)
    blocks, labels = [np.ones((len(x), 1))], ["intercept"]
    for j in covariates:
        if cat[j]:
            kept = levels[j][1:]
            blocks.append((x[:, [j]] == kept[None, :]).astype(float))
            labels += [f"{names[j]}={v:g}" for v in kept]
        else:
            blocks.append(x[:, [j]])
            labels.append(names[j])
    y = (x[:, response] == levels[response][0]).astype(float) if cat[response] else x[:, response].copy()
    return np.hstack(blocks), y, labels


def _estimable(x: np.ndarray) -> np.ndarray:
    """Mask of columns not in the span of the earlier ones (constant beside the intercept, duplicated,
    collinear): like R's lm, those coefficients are not estimable and are reported as NaN, not split."""
    norm = np.sqrt((x**2).sum(axis=0))
    unit = np.where(norm > 0, norm, 1.0)
    gram = (x.T @ x) / np.outer(unit, unit)
    chol = np.zeros_like(gram)  # Cholesky factor of the kept columns' Gram matrix, grown one column at a time
    kept_gram = np.zeros_like(gram)  # its first len(keep) rows: gram[keep], so that [:r, j] is gram[keep, j]
    keep: list[int] = []
    for j in np.flatnonzero(norm > 0):
        r = len(keep)
        # LAPACK's trtrs as scipy's solve_triangular calls it on this C-ordered factor (the same numbers), without
        # the ~60 us of scipy's checks and batch wrapper per call: ~280 calls per pMSE design
        part = _TRTRS(chol[:r, :r].T, kept_gram[:r, j], lower=False, trans=1)[0] if r else np.zeros(0)
        resid = 1.0 - part @ part
        if resid > _ALIAS:
            chol[r, :r], chol[r, r] = part, np.sqrt(resid)
            kept_gram[r] = gram[j]
            keep.append(int(j))
    return np.isin(np.arange(x.shape[1]), keep)


def _newton_step(hess: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """Solve hess @ step = gradient: by Cholesky (a hundred times cheaper than the SVD on the ~400 terms of
    pMSE) while the Hessian is safely positive definite, else by least squares, which also copes with aliased
    terms. Where both apply they agree to rounding."""
    try:
        factor = linalg.cho_factor(hess, check_finite=False)
        if np.min(np.abs(np.diag(factor[0]))) ** 2 > 1e-10 * np.max(np.abs(np.diag(hess))):
            step = linalg.cho_solve(factor, gradient, check_finite=False)
            if np.all(np.isfinite(step)):
                return step
    except np.linalg.LinAlgError:
        pass
    return np.linalg.lstsq(hess, gradient, rcond=None)[0]


def _information(z: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Fisher information Z'WZ, W = p(1 - p), as (sqrt(W) Z)'(sqrt(W) Z): numpy computes a product of a matrix with
    its own transpose by BLAS syrk, one triangle, ~40 % faster than Z'(WZ) on pMSE's ~280 terms. Both are
    the same matrix to rounding (~1e-13 relative on the support table's designs); IRLS converges to the same
    estimate either way."""
    weighted = z * np.sqrt(p * (1 - p))[:, None]
    return weighted.T @ weighted


def _logistic(x: np.ndarray, y: np.ndarray, steps: int = 50,
              covariance: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Unpenalised logistic MLE by damped Newton-Raphson (IRLS) on RMS-scaled columns; returns the estimate
    and the inverse Fisher information (X'WX)^-1 (None unless ``covariance``: pMSE reads the estimate only).
    The linear predictor is clipped at +-30 and a step at 5 scaled units, so separation ends with huge (honest)
    standard errors after ``steps``, never an error."""
    scale = np.sqrt((x**2).mean(axis=0))
    scale[scale == 0] = 1.0
    z = x / scale
    beta = np.zeros(z.shape[1])
    for _ in range(steps):
        p = special.expit(np.clip(z @ beta, -30, 30))
        step = _newton_step(_information(z, p), z.T @ (y - p))
        step *= min(1.0, 5.0 / max(np.abs(step).max(), 1e-300))
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    if not covariance:
        return beta / scale, None
    p = special.expit(np.clip(z @ beta, -30, 30))
    try:
        cov = np.linalg.inv(_information(z, p))
    except np.linalg.LinAlgError:
        cov = np.full((z.shape[1],) * 2, np.nan)
    return beta / scale, cov / np.outer(scale, scale)


def coefficient_intervals(values: np.ndarray, response: int, categorical, names: list[str] | None = None,
                          covariates: list[int] | None = None, real_levels: dict[int, np.ndarray] | None = None,
                          confidence: float = 0.95) -> pd.DataFrame:
    """The analysis "regression of Y on the covariates" and its confidence intervals.

    Continuous Y: OLS with classical standard errors and t quantiles. Categorical Y: unpenalised logistic
    regression of Y == the modelled class (see ``regression_design``) with Wald intervals from the inverse
    Fisher information. Aliased coefficients get NaN estimates; a non-finite standard error a NaN interval."""
    x = as_matrix(values, "values")
    cat = np.asarray(categorical, dtype=bool)
    design, y, labels = regression_design(x, response, cat, covariates, names, real_levels)
    keep = _estimable(design)
    est, se = np.full(len(labels), np.nan), np.full(len(labels), np.nan)
    xk, dof = design[:, keep], len(y) - int(keep.sum())
    if cat[response]:
        beta, cov = _logistic(xk, y)
        quantile = stats.norm.ppf(0.5 + confidence / 2)
    else:
        beta = np.linalg.lstsq(xk, y, rcond=None)[0]
        sigma2 = ((y - xk @ beta) ** 2).sum() / dof if dof > 0 else np.nan
        scale = np.sqrt((xk**2).mean(axis=0))  # columns are non-zero after _estimable; scaling for conditioning
        cov = sigma2 * np.linalg.pinv((xk / scale).T @ (xk / scale)) / np.outer(scale, scale)
        quantile = stats.t.ppf(0.5 + confidence / 2, max(dof, 1))
    est[keep] = beta
    with np.errstate(invalid="ignore"):
        se[keep] = np.sqrt(np.diag(cov))
    se[~np.isfinite(se)] = np.nan
    return pd.DataFrame({"coefficient": labels, "estimate": est, "low": est - quantile * se,
                         "high": est + quantile * se})


def ci_overlap(real: np.ndarray, synthetic: np.ndarray, response: int, categorical, names: list[str] | None = None,
               covariates: list[int] | None = None, confidence: float = 0.95,
               real_intervals: pd.DataFrame | None = None) -> dict:
    """Karr et al. (2006) interval overlap of the same regression fitted to real and to synthetic rows (design
    levels from the real data), averaged over the non-intercept coefficients with finite intervals on both
    sides; untruncated, so it is negative when intervals are disjoint, without a lower bound: two intervals of
    width w whose centres are d apart score 1 - d / w (see the module docstring).
    ``real_intervals``: ``coefficient_intervals`` of the real rows with these settings, when known (the same for
    every synthetic set)."""
    r = as_matrix(real, "real")
    cat = np.asarray(categorical, dtype=bool)
    levels = _real_levels(r, response, cat)
    a = coefficient_intervals(r, response, cat, names, covariates, levels, confidence) \
        if real_intervals is None else real_intervals
    b = coefficient_intervals(as_matrix(synthetic, "synthetic"), response, cat, names, covariates, levels, confidence)
    inner = np.minimum(a["high"], b["high"]) - np.maximum(a["low"], b["low"])
    with np.errstate(invalid="ignore", divide="ignore"):
        overlap = 0.5 * (inner / (a["high"] - a["low"]) + inner / (b["high"] - b["low"]))
    overlap = overlap.where(np.isfinite(overlap))
    table = pd.DataFrame({"coefficient": a["coefficient"], "real_estimate": a["estimate"], "real_low": a["low"],
                          "real_high": a["high"], "synthetic_estimate": b["estimate"], "synthetic_low": b["low"],
                          "synthetic_high": b["high"], "overlap": overlap})
    scored = overlap[table["coefficient"] != "intercept"].dropna()
    return {"ci_overlap": float(scored.mean()) if len(scored) else float("nan"), "per_coefficient": table}


def pmse_ratio(real: np.ndarray, synthetic: np.ndarray, categorical, seed: int = 0, max_params: int = 400,
               max_rows: int | None = None) -> float:
    """pMSE of a logistic propensity model telling real from synthetic rows over its null expectation
    (Snoke et al. 2018): ~1 for rows drawn from a correct model fitted to the real rows, ~2 for an independent
    sample of the population (module docstring), larger = worse, and ~0 for a copy of the real rows (a copy
    is indistinguishable, not "as expected": check privacy).

    The larger set is subsampled (seeded) to the smaller's size, so c = 1/2, and both to at most ``max_rows``.
    Terms: numeric columns z-scored on the stacked rows, categorical ones as indicators of their levels but the
    first, and every pairwise product of terms of different columns; past ``max_params`` (or N/5) terms a seeded
    subset of products."""
    r, s = as_matrix(real, "real"), as_matrix(synthetic, "synthetic")
    if r.shape[1] != s.shape[1]:
        raise ValueError("real and synthetic need the same columns")
    cat = np.asarray(categorical, dtype=bool)
    rng = np.random.default_rng(seed)
    m = min(len(r), len(s), max_rows or len(r))
    r, s = (subsample(v, m, rng) for v in (r, s))
    both, target = np.vstack([r, s]), np.repeat([0.0, 1.0], m)
    terms, owner = [], []
    for j in range(both.shape[1]):
        col = both[:, j]
        if cat[j]:
            block = (col[:, None] == np.unique(col)[None, 1:]).astype(float)
        else:
            block = ((col - col.mean()) / (col.std() or 1.0))[:, None]
        terms.append(block)
        owner += [j] * block.shape[1]
    main = np.hstack(terms)
    a, b = np.triu_indices(main.shape[1], k=1)
    cross = np.asarray(owner)[a] != np.asarray(owner)[b]
    a, b = a[cross], b[cross]
    room = max(0, min(max_params, len(both) // 5) - 1 - main.shape[1])
    if len(a) > room:
        pick = np.sort(rng.choice(len(a), room, replace=False))
        a, b = a[pick], b[pick]
    design = np.hstack([np.ones((len(both), 1)), main, main[:, a] * main[:, b]])
    design = design[:, _estimable(design)]
    beta, _ = _logistic(design, target, covariance=False)
    score = special.expit(np.clip(design @ beta, -30, 30))
    k, c, n = design.shape[1], 0.5, len(both)
    if k < 2:
        return float("nan")  # nothing varies: the ratio is undefined
    return float(np.mean((score - c) ** 2) / ((k - 1) * (1 - c) ** 2 * c / n))




def structure(s: SyntheticSet) -> dict:
    """Utility beyond prediction: pairwise dependence, the analysis' intervals, distinguishability."""
    real, response = s.data.train, s.data.response_index
    covariates = [s.data.index(c) for c in s.data.analysis] if s.data.analysis else None
    key = ("intervals", None if covariates is None else tuple(covariates))
    categorical = s.data.categorical
    intervals = on_real(s, key, lambda: coefficient_intervals(real, response, categorical, s.data.names, covariates,
                                                            _real_levels(real, response, categorical)))
    return {"pair_structure": pair_structure(real, s.values, spearman(s)),
            "ci_overlap": ci_overlap(real, s.values, response, s.data.categorical, s.data.names,
                                     covariates=covariates, real_intervals=intervals)["ci_overlap"],
            "pmse_ratio": pmse_ratio(real, s.values, s.data.categorical, max_rows=PMSE_ROWS,
                                     seed=task_seed(s.master_seed, "pmse", s.label, s.level, s.index))}


def _scaled_to_shuffled(name: str, label: str, short: str, unit: str, better: Direction, value_range: tuple,
                        explanation: str, question: str, **more) -> Metric:
    """A structure metric is a utility axis computed on one published set by ``structure``, scored from
    the real rows shuffled column by column (0: the relations between columns gone) to 1."""
    return Metric(name, label, short, unit, better, value_range, Group.UTILITY, Source.RELEASE, explanation,
                  axis=AxisKind.UTILITY, worst=Reference(name, SHUFFLED), ideal=1.0, question=question,
                  **more)


STRUCTURE = register(Family("structure", 20, (
    _scaled_to_shuffled(
        "pair_structure", "Pairwise dependence kept (1 − mean |Spearman difference|)", "Pair structure",
        "1 − mean |Δρ|", Direction.HIGHER, (-1.0, 1.0),
        "How much of the relations between every pair of columns the synthetic set keeps, whether or not they "
        "involve Y: 1 minus the average gap between each pair's real and synthetic rank correlation (Spearman). "
        "Scaled from independent columns (the real rows shuffled column by column: 0) to the real relations (1).",
        "How much of the relations between columns the synthetic data keep (higher is more useful)"),
    _scaled_to_shuffled(
        "ci_overlap", "Confidence-interval overlap of the analysis (Karr et al. 2006)", "CI overlap", "share",
        Direction.HIGHER, (float("-inf"), 1.0),
        "Whether an analyst would reach the same conclusions: the regression of Y on the covariates (logistic for a "
        "class response, linear otherwise) is fitted on the real training rows and on the synthetic set, and each "
        "coefficient's 95 % confidence intervals are compared; 1 means they coincide, 0 that they only touch, and "
        "below 0 how many interval widths apart they lie (without a lower bound, as in synthpop). Scaled from "
        "independent columns (0) to identical intervals (1).",
        "How far an analysis of Y on the synthetic data reaches the real data's conclusions (higher is more useful)"),
    _scaled_to_shuffled(
        "pmse_ratio", "Propensity-score MSE ratio (pMSE ratio, synthpop)", "pMSE ratio", "ratio", Direction.LOWER,
        (0.0, None),
        "How easily a model tells synthetic rows from real ones, relative to what chance alone gives: about 1 means "
        "they cannot be told apart, larger means they can (propensity-score mean squared error, Snoke et al. "
        "2018).",
        "How easily synthetic rows are told apart from real ones (lower is more useful)", rows=PMSE_ROWS),
), compute=structure))
