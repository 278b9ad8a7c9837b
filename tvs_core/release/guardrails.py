"""What a privacy officer must see before a file leaves: copies of training rows (blocking), metrics
that failed or were computed on capped sizes (warnings)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from ..choice.verdicts import Severity
from ..evaluation.catalogue import label
from ..evaluation.distance import exact_copies
from ..evaluation.protocol import SIZE_NAMES
from ..evaluation.summary import Summary
from ..model.generator import SyntheticGenerator


@dataclass
class Guardrail:
    name: str
    severity: Severity  # BLOCK: download refused unless overridden with a reason; WARN: shown
    message: str

    def to_dict(self) -> dict:
        return asdict(self)


def copies_of_training_rows(synthetic: pd.DataFrame, train: pd.DataFrame, columns: list[str]) -> int:
    """Released rows equal to some training row on every modelled column (compared as text, as the file has them)."""
    if synthetic.empty or train.empty:
        return 0
    return exact_copies(synthetic[columns].astype(str).to_numpy(dtype=object),
                        train[columns].astype(str).to_numpy(dtype=object))


def guardrails(synthetic: pd.DataFrame, train: pd.DataFrame, model: SyntheticGenerator,
               summary: Summary | None = None, caps: list[dict] | None = None) -> list[Guardrail]:
    """What a privacy officer must see before the file leaves: copies of training rows (blocking),
    metrics of ``summary`` (the sweep's at the released level) that failed, or computed on capped sizes
    (warnings)."""
    checks = []
    copies = copies_of_training_rows(synthetic, train, model.schema_.modelled)
    if copies:
        checks.append(Guardrail("exact_copies", Severity.BLOCK,
                                f"{copies} of {len(synthetic)} synthetic rows are exact copies of training rows. "
                                "Releasing them releases real records."))
    else:
        checks.append(Guardrail("exact_copies", Severity.OK, "No synthetic row is an exact copy of a training row."))
    if summary is not None and len(summary):
        failed = summary.frame[summary.frame["median"].isna()]
        for _, row in failed.iterrows():
            what = label(row["metric"]) + (f" ({row['attribute']})" if isinstance(row["attribute"], str) else "")
            checks.append(Guardrail("failed_metric", Severity.WARN, f"Metric {what} could not be computed."))
    for cap in caps or []:
        checks.append(Guardrail("capped", Severity.WARN, f"{SIZE_NAMES.get(cap['parameter'], cap['parameter'])} was "
                                                  f"{cap['used']} instead of "
                                                  f"{cap['requested']}: {cap['reason']}."))
    return checks


def blocked(checks: list[Guardrail]) -> list[Guardrail]:
    return [c for c in checks if c.severity == Severity.BLOCK]
