"""Running evaluations: a plan of tasks, one set of handlers, one engine — in memory (``evaluate``)
or in a background worker backed by the workspace's SQLite store (sweeps)."""

from ..evaluation.records import HOLDER
from .config import COMPETITORS, DEFAULT_BASELINES, SweepConfig, baseline_spec
from .evaluate import EvaluationResult, evaluate
from .store import ACTIVE, Store
from .submission import submit
from .view import JobView
from .workspace import Workspace, default_workspace

__all__ = ["ACTIVE", "COMPETITORS", "DEFAULT_BASELINES", "HOLDER", "EvaluationResult", "JobView", "Store",
           "SweepConfig", "Workspace", "baseline_spec", "default_workspace", "evaluate", "submit"]
