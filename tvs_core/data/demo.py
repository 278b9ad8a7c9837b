"""Built-in demo tables, generated in code (nothing is downloaded); the wide one, a registry extract of 120 columns,
is in ``wide_demo``.

``clinical`` follows the paper's simulated design (Appendix L): Y ~ Bernoulli(0.5), X | Y Gaussian
with three mutually independent blocks X1-X5, X6-X10 and X11-X20 (+Y); only the third block depends
on Y; X1, X6 and X11 are the sensitive columns. Parameters are invented but plausible, and every
column is a linear rescaling of the Gaussian design, so the copula is exactly the paper's.

The table is the same bytes on every machine: each equicorrelated block is drawn through its exact one-factor
form in elementwise arithmetic, with no matrix factorisation (``rng.multivariate_normal`` factorises through
BLAS, whose kernels OpenBLAS picks by CPU, and gave a different table under another kernel). A test pins the
tables' hashes under two kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import wide_demo

# (name, location, scale, decimals) per block; the first entry of each block is sensitive
_BLOCK_COSTS = [("total_cost_eur", 24000, 6000, 0), ("ward_cost_eur", 11000, 3000, 0),
                ("pharmacy_cost_eur", 4200, 1200, 0), ("imaging_cost_eur", 1800, 500, 0),
                ("lab_cost_eur", 900, 250, 0)]
_BLOCK_RENAL = [("creatinine_mg_dl", 1.3, 0.3, 2), ("urea_mg_dl", 40, 10, 1),
                ("potassium_mmol_l", 4.3, 0.4, 2), ("egfr_ml_min", 65, 15, 1), ("urine_output_ml", 1500, 350, 0)]
_BLOCK_ACUTE = [("lactate_mmol_l", 2.2, 0.7, 2), ("heart_rate_bpm", 92, 14, 0), ("resp_rate_min", 21, 4, 0),
                ("mean_art_pressure_mmhg", 78, 11, 0), ("temperature_c", 37.4, 0.6, 1), ("spo2_pct", 94, 2.2, 1),
                ("wbc_10e9_l", 11.5, 3.2, 1), ("sofa_score", 6.5, 2.5, 1), ("age_years", 64, 12, 0),
                ("bilirubin_mg_dl", 1.4, 0.4, 2)]
RESPONSE = "in_hospital_death"


def _equicorrelated_normals(rng: np.random.Generator, n: int, k: int, rho: float, mean=0.0) -> np.ndarray:
    """n draws of k normals with unit variance and every pairwise correlation rho: one shared factor and k own
    terms, z_j = mean_j + sqrt(rho) w_0 + sqrt(1 - rho) w_j, exactly that covariance without a factorisation."""
    w = rng.standard_normal((n, k + 1))
    return mean + np.sqrt(rho) * w[:, :1] + np.sqrt(1 - rho) * w[:, 1:]


def simulated_clinical(n: int = 1250, seed: int = 2025) -> pd.DataFrame:
    """n ICU-like rows (default 1250 = the paper's 1000 training + 250 test)."""
    rng = np.random.default_rng(seed)
    y = rng.binomial(1, 0.5, size=n)
    costs = _equicorrelated_normals(rng, n, 5, 0.7)
    renal = _equicorrelated_normals(rng, n, 5, 0.65)
    shift = np.array([0.9, 0.7, 0.6, -0.7, 0.3, -0.5, 0.5, 0.9, 0.4, 0.5])  # mean of block 3 given Y = 1
    acute = np.where(y[:, None] == 1,
                     _equicorrelated_normals(rng, n, 10, 0.35, shift / 2),
                     _equicorrelated_normals(rng, n, 10, 0.25, -shift / 2))
    columns = {}
    for block, z in ((_BLOCK_COSTS, costs), (_BLOCK_RENAL, renal), (_BLOCK_ACUTE, acute)):
        for j, (name, loc, scale, decimals) in enumerate(block):
            value = loc + scale * z[:, j]
            columns[name] = np.round(value, decimals) if decimals else np.round(value).astype(np.int64)
    columns[RESPONSE] = y.astype(np.int64)
    return pd.DataFrame(columns)


def breast_cancer() -> pd.DataFrame:
    """scikit-learn's bundled Wisconsin breast-cancer table, response 'diagnosis'."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    frame = data.frame.drop(columns="target")
    frame["diagnosis"] = np.where(data.target == 0, "malignant", "benign")
    return frame


@dataclass(frozen=True)
class Demo:
    name: str
    title: str
    description: str
    loader: Callable[[], pd.DataFrame]
    response: str
    sensitive: tuple[str, ...]


DEMOS = {d.name: d for d in [
    Demo("clinical", "Simulated ICU cohort (paper, Appendix L)",
         "1250 simulated patients, 20 measurements in three independent blocks (costs, renal, acute); only the "
         "acute block predicts in-hospital death. Sensitive: total cost, creatinine, lactate.",
         simulated_clinical, RESPONSE, ("total_cost_eur", "creatinine_mg_dl", "lactate_mmol_l")),
    Demo("breast_cancer", "Breast cancer (Wisconsin, scikit-learn)",
         "569 tumours, 30 cell-nucleus measurements, diagnosis malignant/benign.",
         breast_cancer, "diagnosis", ("mean area",)),
    Demo("registry", "Simulated registry extract, 120 columns (a wide table)",
         "1250 simulated ICU stays, 119 measurements in 16 related blocks (costs and stay, kidney, liver, blood, "
         "heart, chronic illness, …: continuous values, counts, scores, yes/no flags and categories) and death "
         "within 90 days. Sensitive: total cost, creatinine, HbA1c.",
         wide_demo.registry_wide, wide_demo.RESPONSE, wide_demo.SENSITIVE),
]}
DEFAULT_DEMO = "clinical"


def load_demo(name: str = DEFAULT_DEMO) -> pd.DataFrame:
    from ..errors import DataError

    if name not in DEMOS:
        raise DataError(f"Unknown demo '{name}'.", fix=f"Choose one of: {', '.join(DEMOS)}.")
    return DEMOS[name].loader()
