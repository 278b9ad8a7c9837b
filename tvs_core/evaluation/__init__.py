"""Privacy and utility evaluation (PROTOCOLS.md). Metrics are plain functions returning tidy records.

    from tvs_core.evaluation import evaluate, holdout_split
    train, test = holdout_split(table, "in_hospital_death")
    result = evaluate(TVineSynth(...).fit(train), train, test, preset="quick")
    result.summary()   # median and 95 % interval per model, level, metric, attribute
"""

from .context import EvaluationData, GeneratorSpec
from .preview import attribute_risk_preview, normal_scores_correlation
from .protocol import PAPER, PRESETS, QUICK, ProtocolPreset
from .runner import EvaluationResult, default_levels, evaluate, summarise
from .utility import explicit_holdout, holdout_split, utility_score

__all__ = ["PAPER", "PRESETS", "QUICK", "EvaluationData", "EvaluationResult", "GeneratorSpec", "ProtocolPreset",
           "attribute_risk_preview", "default_levels", "evaluate", "explicit_holdout", "holdout_split",
           "normal_scores_correlation", "summarise", "utility_score"]
