"""Analytic preview of attribute-inference risk per truncation level (Theorem 2.4), in milliseconds.

For standard-normal scores with correlation R in C-vine order, truncating the Gaussian C-vine at
tau keeps trees 1..tau, whose roots are A = (Y, X_(d), ..., X_(d-tau+2)); every pair outside A
becomes conditionally independent given A. The implied correlation matrix therefore keeps R on
A x all and sets R_jl = R_jA R_AA^-1 R_Al for j, l outside A. The attacker's expected coefficients
are beta = R_{-j,-j}^-1 R_{-j,j} (eq. 13) on that matrix; MAB is mean |beta|, WCAB max |beta|.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def normal_scores_correlation(values: pd.DataFrame, discrete: list[bool] | None = None) -> pd.DataFrame:
    """Pearson correlation of normal scores Phi^-1(rank / (n+1)) (mid-ranks for ties)."""
    x = values.to_numpy(dtype=float)
    u = stats.rankdata(x, axis=0) / (len(x) + 1)
    corr = np.corrcoef(stats.norm.ppf(u), rowvar=False)
    return pd.DataFrame(np.nan_to_num(corr), index=values.columns, columns=values.columns)


def implied_correlation(corr: np.ndarray, level: int) -> np.ndarray:
    """Correlation of the Gaussian C-vine truncated at ``level``; ``corr`` is in C-vine order
    (last variable = root of tree 1)."""
    n = corr.shape[0]
    roots = list(range(n - 1, n - 1 - min(level, n - 1), -1))
    others = [j for j in range(n) if j not in roots]
    out = corr.copy()
    if not roots:
        out[np.ix_(others, others)] = 0.0
    else:
        ra = corr[np.ix_(others, roots)]
        cond = ra @ np.linalg.solve(corr[np.ix_(roots, roots)], ra.T)
        out[np.ix_(others, others)] = cond
    np.fill_diagonal(out, 1.0)
    return out


def expected_beta(corr: np.ndarray, target: int) -> np.ndarray:
    """Eq. (13): E[beta] = R_{-j,-j}^-1 R_{-j,j}, in the order of the remaining variables."""
    rest = [k for k in range(corr.shape[0]) if k != target]
    return np.linalg.solve(corr[np.ix_(rest, rest)], corr[rest, target])


def attribute_risk_preview(corr: pd.DataFrame, order: list[str], sensitive: list[str],
                           levels: list[int] | None = None) -> pd.DataFrame:
    """Tidy rows (level, attribute, mab, wcab, r2) of the expected attacker for every level."""
    r = corr.loc[order, order].to_numpy()
    d = len(order) - 1
    levels = list(range(0, d + 1)) if levels is None else levels
    rows = []
    for level in levels:
        implied = implied_correlation(r, level)
        for column in sensitive:
            j = order.index(column)
            beta = expected_beta(implied, j)
            rest = [k for k in range(len(order)) if k != j]
            r2 = float(implied[j, rest] @ beta)
            rows.append({"level": level, "attribute": column, "mab": float(np.mean(np.abs(beta))),
                         "wcab": float(np.max(np.abs(beta))), "r2": r2})
    return pd.DataFrame(rows)
