"""Running evaluations: a plan of tasks, one set of handlers, one engine — in memory (``evaluate``)
or in a background worker backed by the workspace's SQLite store (``storage``: sweeps)."""

from ..evaluation.records import HOLDER
from .config import COMPETITORS, DEFAULT_BASELINES, SweepConfig, baseline_spec
from .evaluate import EvaluationResult, evaluate
from .submission import submit
from .view import JobView

__all__ = ["COMPETITORS", "DEFAULT_BASELINES", "HOLDER", "EvaluationResult", "JobView", "SweepConfig", "baseline_spec",
           "evaluate", "submit"]
