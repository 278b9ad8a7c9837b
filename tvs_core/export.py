"""Publishing a release: the synthetic table for the chosen level, the guardrails checked before
download, a spreadsheet-safe CSV, and a manifest that says exactly how the file was made."""

from __future__ import annotations

import hashlib
import io
import json
import platform
import time
from dataclasses import asdict, dataclass
from importlib import metadata

import numpy as np
import pandas as pd

from .generator import SyntheticGenerator

# Cells starting with these run as formulas in spreadsheet programs (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "|", "%")
PACKAGES = ("pyvinecopulib", "numpy", "pandas", "scikit-learn", "scipy", "streamlit", "plotly", "joblib")


@dataclass
class Guardrail:
    name: str
    severity: str  # "block": download refused unless overridden with a reason; "warn": shown
    message: str

    def to_dict(self) -> dict:
        return asdict(self)


def neutralise_formulas(table: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells that a spreadsheet would run as a formula with a single quote.
    Numbers stay numbers (a negative number is written as a number, not as text)."""
    out = table.copy()
    for column in out.columns:
        col = out[column]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col):
            continue
        text = col.astype("string")
        risky = text.str.startswith(FORMULA_STARTS).fillna(False).to_numpy(dtype=bool)
        if risky.any():
            values = col.astype(object).to_numpy(copy=True)
            values[risky] = ["'" + str(v) for v in values[risky]]
            out[column] = values
    return out


def to_csv_bytes(table: pd.DataFrame) -> bytes:
    return neutralise_formulas(table).to_csv(index=False, lineterminator="\n").encode("utf-8")


def exact_copies(synthetic: pd.DataFrame, train: pd.DataFrame, columns: list[str]) -> int:
    """Synthetic rows equal to some training row on every modelled column."""
    if synthetic.empty or train.empty:
        return 0
    left = synthetic[columns].astype(str).agg("\x1f".join, axis=1)
    right = set(train[columns].astype(str).agg("\x1f".join, axis=1))
    return int(left.isin(right).sum())


def guardrails(synthetic: pd.DataFrame, train: pd.DataFrame, model: SyntheticGenerator,
               summary: pd.DataFrame | None = None, caps: list[dict] | None = None) -> list[Guardrail]:
    """What a privacy officer must see before the file leaves: copies of training rows (blocking),
    metrics that failed or were computed on capped sizes (warnings)."""
    checks = []
    copies = exact_copies(synthetic, train, model.schema_.modelled)
    if copies:
        checks.append(Guardrail("exact_copies", "block",
                                f"{copies} of {len(synthetic)} synthetic rows are exact copies of training rows. "
                                "Releasing them releases real records."))
    else:
        checks.append(Guardrail("exact_copies", "ok", "No synthetic row is an exact copy of a training row."))
    if summary is not None and len(summary):
        failed = summary[summary["median"].isna()]
        for _, row in failed.iterrows():
            what = row["metric"] + (f" ({row['attribute']})" if isinstance(row["attribute"], str) else "")
            checks.append(Guardrail("failed_metric", "warn", f"Metric {what} could not be computed."))
    for cap in caps or []:
        checks.append(Guardrail("capped", "warn", f"{cap['parameter']} was {cap['used']} instead of "
                                                  f"{cap['requested']}: {cap['reason']}."))
    return checks


def blocked(checks: list[Guardrail]) -> list[Guardrail]:
    return [c for c in checks if c.severity == "block"]


def package_versions() -> dict[str, str]:
    from . import __version__

    versions = {"python": platform.python_version(), "tvinesynth-studio": __version__}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def manifest(model: SyntheticGenerator, csv_bytes: bytes, level: int | None, rows: int, seed: int,
             data_fingerprint: str, metrics: list[dict] | None = None, checks: list[Guardrail] | None = None,
             override_reason: str | None = None, job_id: str | None = None) -> dict:
    """Everything needed to reproduce and to judge the file: fingerprint, schema, order, level,
    families, margins, seeds, package versions, metrics with intervals, and the file's hash."""
    config = model.get_config()
    order = getattr(model, "order_", None)
    return {
        "format": "tvinesynth-studio-release", "version": 1,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "file": {"sha256": hashlib.sha256(csv_bytes).hexdigest(), "rows": rows, "bytes": len(csv_bytes),
                 "formula_cells_neutralised": True},
        "data_fingerprint": data_fingerprint, "job_id": job_id,
        "schema": model.schema_.to_dict(), "missing_values": model.missing_report_.to_dict(),
        "generator": model.name, "order": None if order is None else order.to_dict(),
        "truncation_level": level, "fitted_level": getattr(model, "fitted_level_", None),
        "families": config.get("families"), "margins": config.get("margins"),
        "seeds": {"model": config.get("seed"), "release": seed},
        "configuration": config, "packages": package_versions(),
        "metrics": metrics or [], "guardrails": [c.to_dict() for c in checks or []],
        "override_reason": override_reason,
    }


def manifest_bytes(manifest_dict: dict) -> bytes:
    return json.dumps(manifest_dict, indent=2, default=_json_default).encode("utf-8")


def _json_default(value):
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)


def release_table(model: SyntheticGenerator, level: int | None, rows: int, seed: int) -> pd.DataFrame:
    return model.sample(rows, truncation_level=level, seed=seed)


def read_back(csv_bytes: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv_bytes))
