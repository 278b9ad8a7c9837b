"""The wide built-in demo: a registry extract of 1,250 ICU stays × 120 columns, generated in code.

Registry tables are 60–200 columns wide; this one lets a steward (and the tests) try width without data of their
own. Its shape is a registry's: blocks of related measurements (costs and stay, kidney, liver, blood, clotting,
electrolytes, inflammation, acute physiology, ventilation, diabetes, lipids, heart, chronic illness, treatment,
demographics, administration), each moved by its own latent factor, and two factors across blocks — how ill the
patient is now (``severity``) and how ill they were before (``chronic``) — so that, as in real extracts, the blocks
are not independent. The response ``death_90d`` (about 19 %) follows both. Columns are continuous (skewed where lab
values are), counts, scores, yes/no flags and a few categories, with invented but plausible names, units and
margins. Sensitive by default: the total cost of the stay, creatinine and HbA1c.

Same bytes on every machine: the latent normals are combined elementwise (no matrix product, which OpenBLAS
computes with CPU-specific kernels), and every margin is built from +, ×, ÷ and √ only — IEEE-exact operations —
with no exp or log (NumPy picks SIMD versions of those by CPU). A skewed margin is median · (x + √(x² + 1))² with
x = σz/2, which is exp(2·asinh(σz/2)): a log-normal median·e^(σz) within 5 % for |σz| ≤ 1, with gentler tails.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

Margin = Callable[[np.ndarray], np.ndarray]
RESPONSE = "death_90d"
SENSITIVE = ("total_cost_eur", "creatinine_mg_dl", "hba1c_pct")
ROWS = 1250  # 1,000 training rows: like every demo, below every cap of evaluation/sizes.py


def _normal(loc: float, scale: float, decimals: int, low: float, high: float) -> Margin:
    """A measurement around ``loc``, kept within what can be recorded."""
    def margin(z):
        value = np.clip(loc + scale * z, low, high)
        return np.round(value, decimals) if decimals else np.round(value).astype(np.int64)
    return margin


def _positive(median: float, sigma: float, decimals: int = 0) -> Margin:
    """A right-skewed positive value (a cost, most lab values): about log-normal, without exp."""
    def margin(z):
        x = sigma * z / 2
        value = median * (x + np.sqrt(x * x + 1)) ** 2
        return np.round(value, decimals) if decimals else np.round(value).astype(np.int64)
    return margin


def _count(median: float, sigma: float) -> Margin:
    """A count (days, units, hours): the skewed value rounded down, so small medians give many zeros."""
    skewed = _positive(median, sigma, 6)
    return lambda z: np.floor(skewed(z)).astype(np.int64)


def _flag(cut: float) -> Margin:
    """Yes (1) above ``cut``: a prevalence of P(Z > cut)."""
    return lambda z: (z > cut).astype(np.int64)


def _labels(cuts: tuple[float, ...], labels: tuple[str, ...], ordered: bool = False) -> Margin:
    """Categories between the cuts of the latent value; ordered ones as an ordered categorical."""
    def margin(z):
        values = np.asarray(labels, dtype=object)[np.searchsorted(np.asarray(cuts), z)]
        return pd.Categorical(values, categories=list(labels), ordered=True) if ordered else values
    return margin


# block -> columns: (name, margin, loading on severity, on chronic illness, on the block's own factor)
BLOCKS: dict[str, list[tuple[str, Margin, float, float, float]]] = {
    "costs": [
        ("total_cost_eur", _positive(21000, 0.7), 0.30, 0.0, 0.85),
        ("ward_cost_eur", _positive(9000, 0.6), 0.20, 0.0, 0.80),
        ("icu_cost_eur", _positive(6500, 1.0), 0.35, 0.0, 0.72),
        ("theatre_cost_eur", _positive(2500, 1.1), 0.10, 0.0, 0.62),
        ("pharmacy_cost_eur", _positive(3100, 0.7), 0.20, 0.0, 0.70),
        ("imaging_cost_eur", _positive(1200, 0.6), 0.15, 0.0, 0.58),
        ("lab_cost_eur", _positive(800, 0.5), 0.20, 0.0, 0.62),
        ("therapy_cost_eur", _positive(600, 0.8), 0.0, 0.20, 0.50),
        ("length_of_stay_days", _count(7, 0.6), 0.25, 0.10, 0.75),
        ("icu_days", _count(2, 0.9), 0.40, 0.0, 0.55),
        ("procedures_n", _count(3, 0.6), 0.10, 0.0, 0.50),
        ("consults_n", _count(2, 0.7), 0.10, 0.15, 0.42),
        ("readmissions_12m", _count(0.6, 1.0), 0.0, 0.35, 0.25),
    ],
    "kidney": [
        ("creatinine_mg_dl", _positive(1.2, 0.45, 2), 0.25, 0.15, 0.80),
        ("urea_mg_dl", _positive(38, 0.5, 1), 0.25, 0.10, 0.74),
        ("egfr_ml_min", _normal(68, 22, 1, 5, 140), -0.20, -0.15, -0.78),
        ("cystatin_c_mg_l", _positive(1.1, 0.35, 2), 0.10, 0.15, 0.70),
        ("potassium_mmol_l", _normal(4.3, 0.5, 2, 2.5, 7.0), 0.10, 0.0, 0.40),
        ("phosphate_mmol_l", _normal(1.15, 0.25, 2, 0.3, 3.0), 0.10, 0.0, 0.45),
        ("uric_acid_mg_dl", _normal(6.2, 1.6, 1, 1.5, 14.0), 0.0, 0.15, 0.40),
        ("urine_output_ml", _normal(1500, 450, 0, 100, 4000), -0.25, 0.0, -0.50),
        ("proteinuria_g_day", _positive(0.25, 0.9, 2), 0.0, 0.20, 0.50),
    ],
    "liver": [
        ("bilirubin_mg_dl", _positive(0.9, 0.6, 2), 0.20, 0.0, 0.68),
        ("alt_u_l", _positive(32, 0.6), 0.10, 0.0, 0.75),
        ("ast_u_l", _positive(35, 0.6), 0.15, 0.0, 0.75),
        ("alp_u_l", _positive(95, 0.45), 0.0, 0.10, 0.50),
        ("ggt_u_l", _positive(45, 0.75), 0.0, 0.10, 0.55),
        ("albumin_g_dl", _normal(3.4, 0.55, 2, 1.2, 5.2), -0.35, -0.20, -0.40),
        ("inr", _positive(1.1, 0.18, 2), 0.20, 0.0, 0.45),
        ("ammonia_umol_l", _positive(30, 0.45), 0.10, 0.0, 0.45),
        ("ldh_u_l", _positive(240, 0.45), 0.30, 0.0, 0.40),
    ],
    "blood": [
        ("haemoglobin_g_dl", _normal(12.2, 1.9, 1, 5.0, 19.0), -0.15, -0.15, 0.85),
        ("haematocrit_pct", _normal(37, 5.5, 1, 15, 58), -0.15, -0.15, 0.85),
        ("platelets_10e9_l", _normal(240, 80, 0, 10, 700), -0.15, 0.0, 0.30),
        ("mcv_fl", _normal(90, 6, 1, 60, 120), 0.0, 0.10, 0.30),
        ("rdw_pct", _normal(14, 1.6, 1, 10, 25), 0.10, 0.25, -0.30),
        ("ferritin_ug_l", _positive(180, 0.9), 0.20, 0.0, -0.35),
    ],
    "clotting": [
        ("fibrinogen_g_l", _normal(3.6, 1.1, 2, 0.5, 9.0), 0.20, 0.0, 0.40),
        ("d_dimer_mg_l", _positive(0.9, 0.9, 2), 0.30, 0.10, 0.60),
        ("aptt_s", _normal(32, 6, 1, 18, 90), 0.15, 0.0, 0.55),
        ("antithrombin_pct", _normal(88, 16, 0, 20, 140), -0.30, 0.0, -0.45),
    ],
    "electrolytes": [
        ("sodium_mmol_l", _normal(138, 4.5, 0, 115, 165), 0.0, 0.0, 0.60),
        ("chloride_mmol_l", _normal(103, 5, 0, 80, 130), 0.0, 0.0, 0.62),
        ("calcium_mmol_l", _normal(2.25, 0.17, 2, 1.4, 3.4), -0.15, 0.0, 0.30),
        ("magnesium_mmol_l", _normal(0.85, 0.12, 2, 0.4, 1.6), 0.0, 0.0, 0.30),
    ],
    "inflammation": [
        ("wbc_10e9_l", _positive(9.5, 0.4, 1), 0.30, 0.0, 0.75),
        ("neutrophils_10e9_l", _positive(7.0, 0.45, 1), 0.30, 0.0, 0.78),
        ("lymphocytes_10e9_l", _positive(1.4, 0.45, 2), -0.20, 0.0, -0.35),
        ("crp_mg_l", _positive(40, 1.1, 1), 0.35, 0.0, 0.60),
        ("procalcitonin_ng_ml", _positive(0.5, 1.3, 2), 0.35, 0.0, 0.60),
        ("temperature_c", _normal(37.3, 0.7, 1, 34.0, 41.5), 0.15, 0.0, 0.45),
    ],
    "physiology": [
        ("lactate_mmol_l", _positive(1.8, 0.5, 2), 0.60, 0.0, 0.30),
        ("heart_rate_bpm", _normal(90, 18, 0, 30, 180), 0.45, 0.0, 0.20),
        ("resp_rate_min", _normal(20, 5, 0, 6, 50), 0.45, 0.0, 0.20),
        ("systolic_bp_mmhg", _normal(122, 22, 0, 50, 230), -0.30, 0.10, 0.75),
        ("diastolic_bp_mmhg", _normal(68, 13, 0, 20, 130), -0.25, 0.0, 0.72),
        ("mean_art_pressure_mmhg", _normal(84, 15, 0, 30, 160), -0.30, 0.05, 0.78),
        ("spo2_pct", _normal(95, 3, 0, 70, 100), -0.40, -0.10, 0.0),
        ("gcs_score", _normal(13.8, 2.2, 0, 3, 15), -0.50, -0.10, 0.0),
        ("sofa_score", _normal(5, 3, 0, 0, 24), 0.75, 0.0, 0.0),
        ("apache_ii_score", _normal(17, 7, 0, 0, 60), 0.72, 0.20, 0.0),
        ("news2_score", _normal(5, 2.8, 0, 0, 20), 0.62, 0.0, 0.10),
        ("pain_score", _normal(3, 2.4, 0, 0, 10), 0.20, 0.0, 0.0),
    ],
    "ventilation": [
        ("ph", _normal(7.39, 0.07, 3, 6.8, 7.7), -0.35, 0.0, -0.40),
        ("pao2_mmhg", _normal(85, 22, 0, 35, 300), -0.10, 0.0, 0.45),
        ("paco2_mmhg", _normal(41, 8, 1, 15, 100), 0.10, 0.20, 0.45),
        ("fio2_pct", _normal(35, 14, 0, 21, 100), 0.40, 0.0, 0.55),
        ("pf_ratio", _positive(260, 0.4), -0.40, 0.0, -0.65),
        ("base_excess_mmol_l", _normal(-1, 4, 1, -25, 20), -0.40, 0.0, 0.0),
        ("bicarbonate_mmol_l", _normal(23.5, 3.5, 1, 8, 40), -0.30, 0.10, 0.10),
        ("ventilation_hours", _count(10, 1.3), 0.45, 0.0, 0.50),
        ("peep_cmh2o", _count(5, 0.5), 0.25, 0.0, 0.50),
    ],
    "diabetes": [
        ("hba1c_pct", _positive(6.0, 0.17, 1), 0.0, 0.25, 0.80),
        ("glucose_mg_dl", _positive(125, 0.3), 0.25, 0.10, 0.65),
        ("diabetes", _flag(0.85), 0.0, 0.20, 0.75),
        ("insulin_units_day", _count(8, 1.2), 0.10, 0.10, 0.62),
        ("bmi_kg_m2", _positive(26.5, 0.18, 1), 0.0, 0.15, 0.40),
    ],
    "lipids": [
        ("cholesterol_mg_dl", _normal(185, 42, 0, 70, 400), 0.0, 0.0, 0.80),
        ("ldl_mg_dl", _normal(110, 35, 0, 20, 300), 0.0, 0.0, 0.78),
        ("hdl_mg_dl", _normal(48, 13, 0, 10, 120), -0.10, 0.0, -0.30),
        ("triglycerides_mg_dl", _positive(140, 0.5), 0.0, 0.10, 0.45),
        ("statin", _flag(0.4), 0.0, 0.40, 0.30),
    ],
    "heart": [
        ("troponin_ng_l", _positive(18, 1.2), 0.30, 0.10, 0.60),
        ("nt_probnp_pg_ml", _positive(600, 1.3), 0.20, 0.30, 0.68),
        ("ejection_fraction_pct", _normal(55, 11, 0, 10, 80), -0.10, -0.20, -0.68),
        ("nyha_class", _normal(1.9, 0.9, 0, 1, 4), 0.10, 0.30, 0.55),
        ("qtc_ms", _normal(440, 30, 0, 340, 600), 0.10, 0.0, 0.30),
        ("atrial_fibrillation", _flag(1.1), 0.0, 0.30, 0.40),
        ("heart_failure", _flag(1.2), 0.0, 0.30, 0.60),
    ],
    "chronic": [
        ("charlson_index", _count(3, 0.6), 0.0, 0.72, 0.30),
        ("hypertension", _flag(0.0), 0.0, 0.50, 0.20),
        ("copd", _flag(1.2), 0.0, 0.40, 0.0),
        ("chronic_kidney_disease", _flag(1.3), 0.0, 0.45, 0.0),
        ("cancer_active", _flag(1.5), 0.10, 0.30, 0.0),
        ("dementia", _flag(1.8), 0.0, 0.45, 0.20),
        ("liver_cirrhosis", _flag(2.0), 0.0, 0.30, 0.0),
        ("stroke_history", _flag(1.6), 0.0, 0.35, 0.10),
        ("frailty_scale", _normal(4, 1.6, 0, 1, 9), 0.10, 0.65, 0.30),
        ("barthel_index", _normal(80, 20, 0, 0, 100), -0.10, -0.60, -0.30),
        ("medications_n", _count(6, 0.5), 0.0, 0.60, 0.20),
        ("smoking_status", _labels((-0.3, 0.8), ("never", "former", "current"), ordered=True), 0.0, 0.25, 0.0),
    ],
    "treatment": [
        ("antibiotic_days", _count(4, 0.8), 0.40, 0.0, 0.50),
        ("vasopressor_hours", _count(6, 1.4), 0.55, 0.0, 0.50),
        ("sedation_hours", _count(12, 1.3), 0.35, 0.0, 0.55),
        ("transfusion_units", _count(0.8, 1.2), 0.30, 0.0, 0.40),
        ("dialysis", _flag(1.7), 0.30, 0.20, 0.30),
        ("surgery", _flag(0.5), 0.0, 0.0, 0.50),
        ("central_line", _flag(0.6), 0.35, 0.0, 0.45),
        ("tracheostomy", _flag(1.9), 0.30, 0.0, 0.35),
    ],
    "demographics": [
        ("age_years", _normal(66, 14, 0, 18, 100), 0.10, 0.55, 0.0),
        ("sex", _labels((0.05,), ("female", "male")), 0.0, 0.0, 0.70),
        ("height_cm", _normal(170, 9.5, 0, 140, 205), 0.0, -0.10, 0.65),
        ("weight_kg", _positive(78, 0.2, 1), 0.0, 0.10, 0.50),
        ("education_years", _normal(12, 3, 0, 0, 22), 0.0, -0.20, 0.0),
        ("lives_alone", _flag(1.0), 0.0, 0.20, 0.0),
    ],
    "administration": [
        ("admission_type", _labels((-0.5, 1.0), ("elective", "emergency", "transfer")), 0.40, 0.0, 0.0),
        ("insurance", _labels((0.7, 1.6), ("public", "private", "self-pay")), 0.0, -0.15, 0.0),
        ("region", _labels((-0.84, -0.25, 0.25, 0.84), ("north", "east", "centre", "south", "west")), 0.0, 0.0, 0.0),
        ("weekend_admission", _flag(0.57), 0.05, 0.0, 0.0),
    ],
}
# the response's latent value: severity and chronic illness, plus its own noise; death above the cut (~19 %)
RESPONSE_LOADINGS, RESPONSE_CUT = (0.75, 0.25), 0.88


def registry_wide(n: int = ROWS, seed: int = 2025) -> pd.DataFrame:
    """``n`` registry rows: 119 measurements in the blocks above and the binary response, last."""
    rng = np.random.default_rng(seed)
    severity, chronic = rng.standard_normal(n), rng.standard_normal(n)
    columns: dict[str, object] = {}
    for block in BLOCKS.values():
        own = rng.standard_normal(n)
        noise = rng.standard_normal((len(block), n))
        for (name, margin, s, c, b), e in zip(block, noise, strict=True):
            columns[name] = margin(s * severity + c * chronic + b * own + np.sqrt(1 - s * s - c * c - b * b) * e)
    s, c = RESPONSE_LOADINGS
    latent = s * severity + c * chronic + np.sqrt(1 - s * s - c * c) * rng.standard_normal(n)
    columns[RESPONSE] = (latent > RESPONSE_CUT).astype(np.int64)
    return pd.DataFrame(columns)
