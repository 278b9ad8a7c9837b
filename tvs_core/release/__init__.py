"""Publishing: the released table and its CSV, the guardrails, the manifest."""

from .export import neutralise_formulas, read_back, release_table, to_csv_bytes
from .guardrails import Guardrail, blocked, guardrails
from .manifest import manifest, manifest_bytes

__all__ = ["Guardrail", "blocked", "guardrails", "manifest", "manifest_bytes", "neutralise_formulas", "read_back",
           "release_table", "to_csv_bytes"]
