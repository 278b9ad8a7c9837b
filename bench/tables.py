"""Synthetic benchmark tables of a known shape, deterministic given a seed (no downloads).

``support_like`` imitates the paper's SUPPORT2 table: 884 rows x 27 columns (26 covariates and the
binary response ``hospdead``) with SUPPORT2's column names and roughly its margins. Dependence is a
Gaussian copula built from four independent latent factors (plus noise), which gives correlated blocks:

- severity ``S``: sps, aps, avtisst, scoma, meanbp (-), pafi (-), alb (-), bili, ph (-), hrt, resp, wblc,
  adlsc, and the response hospdead (latent probit, ~26 % deaths);
- cost ``C``: charges, totcst (sensitive), totmcst, and avtisst;
- renal ``R``: crea (sensitive), bun, urine (-), alb (-), ph (-), age, diabetes;
- metabolic ``M``: diabetes, glucose.

Margins: skewed lognormal/gamma for the costs, crea, bun, bili, wblc, glucose, urine, sps, aps, scoma;
truncated normals for vital signs and labs; ``num.co`` (0-9) and ``edu`` are integer counts (binomial);
``diabetes`` is a binary 0/1 covariate. Column correlations are those of the latent Gaussian vector
distorted by the margins; nothing here is fitted to the real SUPPORT2 data.

Usage: ``from bench.tables import support_like`` (or ``from tables import ...`` inside bench/).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

RESPONSE = "hospdead"
SENSITIVE = ("totcst", "crea")

_TN = stats.truncnorm


def _truncnorm(mean: float, sd: float, low: float, high: float):
    return _TN((low - mean) / sd, (high - mean) / sd, loc=mean, scale=sd)


# name: (loadings on S, C, R, M), frozen marginal distribution, decimals to round to (None = binary)
COLUMNS: dict[str, tuple[tuple[float, float, float, float], object, int | None]] = {
    "age": ((0.10, 0.00, 0.25, 0.10), _truncnorm(62.0, 15.6, 18.0, 101.0), 2),
    "num.co": ((0.15, 0.10, 0.20, 0.20), stats.binom(9, 0.21), 0),  # comorbidities, 0..9
    "edu": ((-0.10, 0.10, 0.00, -0.10), stats.binom(24, 0.49), 0),  # years of education
    "scoma": ((0.55, 0.10, 0.00, 0.00), stats.gamma(0.6, scale=20.0), 1),
    "charges": ((0.25, 0.85, 0.00, 0.00), stats.lognorm(1.1, scale=26000.0), 0),
    "totcst": ((0.25, 0.90, 0.00, 0.00), stats.lognorm(1.0, scale=14000.0), 0),
    "totmcst": ((0.20, 0.80, 0.00, 0.00), stats.lognorm(1.0, scale=12000.0), 0),
    "avtisst": ((0.50, 0.50, 0.00, 0.00), stats.gamma(4.0, scale=5.7), 2),
    "sps": ((0.85, 0.10, 0.20, 0.00), stats.gamma(5.5, scale=4.6), 2),
    "aps": ((0.85, 0.10, 0.25, 0.00), stats.gamma(3.2, scale=11.8), 1),
    "meanbp": ((-0.45, 0.00, 0.00, 0.00), _truncnorm(85.0, 27.0, 20.0, 190.0), 1),
    "wblc": ((0.30, 0.00, 0.00, 0.00), stats.lognorm(0.6, scale=10.5), 2),
    "hrt": ((0.35, 0.00, 0.00, 0.00), _truncnorm(98.0, 31.0, 20.0, 250.0), 1),
    "resp": ((0.35, 0.00, 0.00, 0.00), _truncnorm(23.0, 9.5, 4.0, 70.0), 1),
    "temp": ((0.10, 0.00, 0.00, 0.00), _truncnorm(37.1, 1.25, 32.0, 41.7), 2),
    "pafi": ((-0.50, 0.00, 0.00, 0.00), _truncnorm(240.0, 110.0, 20.0, 890.0), 1),
    "alb": ((-0.35, 0.00, -0.20, 0.00), _truncnorm(2.95, 0.85, 0.4, 6.0), 2),
    "bili": ((0.30, 0.00, 0.00, 0.00), stats.lognorm(1.3, scale=1.0), 2),
    "crea": ((0.20, 0.00, 0.85, 0.10), stats.lognorm(0.65, scale=1.4), 2),
    "sod": ((0.10, 0.00, 0.15, 0.00), _truncnorm(137.5, 6.0, 110.0, 180.0), 1),
    "ph": ((-0.30, 0.00, -0.20, 0.00), _truncnorm(7.415, 0.08, 6.8, 7.8), 3),
    "glucose": ((0.10, 0.00, 0.10, 0.55), stats.lognorm(0.45, scale=140.0), 1),
    "bun": ((0.20, 0.00, 0.75, 0.00), stats.lognorm(0.7, scale=25.0), 1),
    "urine": ((-0.20, 0.00, -0.45, 0.00), stats.gamma(2.0, scale=1100.0), 0),
    "adlsc": ((0.30, 0.00, 0.10, 0.00), stats.beta(0.8, 2.5, scale=7.0), 3),  # ADL score 0..7
    "diabetes": ((0.00, 0.00, 0.30, 0.50), 0.20, None),  # binary: share of ones
    RESPONSE: ((0.70, 0.20, 0.20, 0.00), 0.26, None),  # in-hospital death
}


def _factor_table(specs: dict, n: int, seed: int) -> pd.DataFrame:
    """Rows of a Gaussian factor copula with the given loadings, through each column's margin."""
    rng = np.random.default_rng(seed)
    loadings = np.array([spec[0] for spec in specs.values()])  # (columns, 4)
    noise_sd = np.sqrt(1.0 - (loadings ** 2).sum(axis=1))  # unit latent variances
    factors = rng.standard_normal((n, loadings.shape[1]))
    latent = factors @ loadings.T + rng.standard_normal((n, len(specs))) * noise_sd
    u = stats.norm.cdf(latent)
    columns = {}
    for k, (name, (_, margin, decimals)) in enumerate(specs.items()):
        if decimals is None:  # binary: the top share of the latent variable is 1
            columns[name] = (u[:, k] > 1.0 - margin).astype(int)
        elif decimals == 0 and isinstance(margin.dist, stats.rv_discrete):
            columns[name] = margin.ppf(u[:, k]).astype(int)
        else:
            values = np.round(margin.ppf(u[:, k]), decimals)
            columns[name] = values.astype(int) if decimals == 0 else values
    return pd.DataFrame(columns)


def support_like(n: int = 884, seed: int = 0) -> pd.DataFrame:
    """A SUPPORT2-shaped table: ``n`` rows, 26 covariates + binary ``hospdead`` (last column).

    Deterministic given ``seed``. Sensitive columns of the benches: ``SENSITIVE`` (totcst, crea).
    """
    return _factor_table(COLUMNS, n, seed)


def wide_table(n: int, columns: int, seed: int = 0) -> pd.DataFrame:
    """A SUPPORT2-like table of any width: ``columns - 1`` covariates cycling through ``COLUMNS``'
    margins and factor loadings (renamed ``<name>_<k>`` after the first round) plus ``hospdead``.

    For the scale bench (bench/scale.py): same dependence pattern and margins as ``support_like`` at
    27 columns (in another column order: the sensitive ones first, so even 10 columns hold them).
    """
    covariates = [*SENSITIVE, *(c for c in COLUMNS if c not in (RESPONSE, *SENSITIVE))]
    specs = {(name if k < len(covariates) else f"{name}_{k // len(covariates)}"): COLUMNS[name]
             for k, name in ((k, covariates[k % len(covariates)]) for k in range(columns - 1))}
    specs[RESPONSE] = COLUMNS[RESPONSE]
    return _factor_table(specs, n, seed)


BLOCK_SHARE = 0.3  # the dependent wide table's correlation between two blocks, as a share of the real one


def real_correlation() -> np.ndarray:
    """The normal-scores correlation of a real table's 30 columns: scikit-learn's Wisconsin breast-cancer features
    (569 patients; strongly dependent: a tumour's radius, perimeter and area correlate above 0.99)."""
    from sklearn.datasets import load_breast_cancer

    features = load_breast_cancer().data
    ranks = stats.rankdata(features, axis=0) / (len(features) + 1)
    return np.corrcoef(stats.norm.ppf(ranks), rowvar=False)


def dependent_wide_table(n: int, columns: int, seed: int = 0) -> pd.DataFrame:
    """A wide table whose columns depend on each other far more than ``wide_table``'s: the same names, margins and
    binary ``hospdead`` (last), but a Gaussian copula whose correlation is blocks of a real table's
    (``real_correlation``, 30 columns a block) with ``BLOCK_SHARE`` of it between any two blocks —
    ``(1 - share) I + share J`` (blocks x blocks) Kronecker the real correlation, positive definite like it.

    For issue 57: the tester's 5,000 x 120 registry table took over 12 min where the bench's took 505 s; the cost
    grows with how much dependence a table has, not only with its width."""
    real = real_correlation()
    blocks = -(-columns // len(real))
    mixing = (1 - BLOCK_SHARE) * np.eye(blocks) + BLOCK_SHARE * np.ones((blocks, blocks))
    correlation = np.kron(mixing, real)[:columns, :columns]
    factor = np.linalg.cholesky(correlation)
    rng = np.random.default_rng(seed)
    u = stats.norm.cdf(rng.standard_normal((n, columns)) @ factor.T)
    covariates = [*SENSITIVE, *(c for c in COLUMNS if c not in (RESPONSE, *SENSITIVE))]
    names = [(name if k < len(covariates) else f"{name}_{k // len(covariates)}")
             for k, name in ((k, covariates[k % len(covariates)]) for k in range(columns - 1))]
    out = {}
    for k, name in enumerate([*names, RESPONSE]):
        margin, decimals = COLUMNS[name.rsplit("_", 1)[0] if name not in COLUMNS else name][1:]
        if decimals is None:  # binary: the top share of the latent variable is 1
            out[name] = (u[:, k] > 1.0 - margin).astype(int)
        elif decimals == 0 and isinstance(margin.dist, stats.rv_discrete):
            out[name] = margin.ppf(u[:, k]).astype(int)
        else:
            values = np.round(margin.ppf(u[:, k]), decimals)
            out[name] = values.astype(int) if decimals == 0 else values
    return pd.DataFrame(out)
