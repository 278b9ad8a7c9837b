"""Privacy and utility metrics (docs/reference/protocols.md): plain functions returning tidy records, declared in the
catalogue. Running them over levels and games is ``tvs_core.jobs`` (``tvs_core.evaluate``)."""

from .catalogue import CATALOGUE, METRICS, Metric, label
from .context import EvaluationData, GeneratorSpec
from .metrics.utility import utility_score
from .preview import attribute_risk_preview, normal_scores_correlation
from .protocol import PAPER, PROTOCOLS, QUICK, Protocol
from .summary import Summary, summarise

__all__ = ["CATALOGUE", "METRICS", "PAPER", "PROTOCOLS", "QUICK", "EvaluationData", "GeneratorSpec", "Metric",
           "Protocol", "Summary", "attribute_risk_preview", "label", "normal_scores_correlation", "summarise",
           "utility_score"]
