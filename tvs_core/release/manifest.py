"""The manifest: everything needed to reproduce and to judge a released file."""

from __future__ import annotations

import hashlib
import json
import math
import platform
import time
from importlib import metadata

import numpy as np
import pandas as pd

from ..model.generator import SyntheticGenerator
from ..version import __version__
from .guardrails import Guardrail

PACKAGES = ("pyvinecopulib", "numpy", "pandas", "scikit-learn", "scipy", "streamlit", "plotly", "joblib")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "tvinesynth-studio": __version__}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def manifest(model: SyntheticGenerator, csv_bytes: bytes, level: int | None, rows: int, seed: int,
             data_fingerprint: str, metrics: list[dict] | None = None, checks: list[Guardrail] | None = None,
             override_reason: str | None = None, job_id: str | None = None, sweep: dict | None = None,
             choice: dict | None = None, verdicts: list[dict] | None = None,
             confirmation: dict | None = None) -> dict:
    """Everything needed to reproduce and to judge the file: fingerprint, schema, order, level,
    families, margins, seeds, package versions, the sweep's settings (preset, hold-out, levels,
    baselines, the hold-out's origin, …), the choice (α, normalisation, privacy metric, the selected level and why),
    the level's verdicts (``choice.verdicts``: what the card and the report's first page say, in their order),
    metrics with intervals, and the file's hash; ``confirmation``: why the user released the level although its
    verdicts warn (their sentences and the reason given), ``override_reason``: despite a blocking guardrail."""
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
        "sweep": sweep, "choice": choice, "verdicts": verdicts or [],
        "metrics": metrics or [], "guardrails": [c.to_dict() for c in checks or []],
        "override_reason": override_reason, "released_despite_warnings": confirmation,
    }


def manifest_bytes(manifest_dict: dict) -> bytes:
    """Strict JSON: a value that is not a number (an interval that could not be computed) is null,
    never a bare NaN token that strict parsers reject."""
    return json.dumps(_strict(manifest_dict), indent=2, allow_nan=False).encode("utf-8")


def _strict(value):
    if isinstance(value, dict):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if pd.api.types.is_scalar(value) and pd.isna(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)
