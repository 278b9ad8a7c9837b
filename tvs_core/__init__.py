"""TVineSynth Studio's library: data in, truncated C-vine, synthetic data out. No UI here.

    from tvs_core import TVineSynth, load_demo
    table = load_demo("clinical")
    model = TVineSynth(response="in_hospital_death", sensitive=["total_cost_eur"]).fit(table)
    synthetic = model.sample(1000, truncation_level=5, seed=1)

The packages follow the pipeline: ``data`` (table -> schema -> encoded values), ``model``
(ordering, generators), ``evaluation`` (metrics and their catalogue), ``jobs`` (plans, the engine,
sweeps in the workspace), ``choice`` (PU_t and the best level), ``release`` (export, manifest).
"""

from .data.demo import DEMOS, load_demo
from .data.io import read_table
from .data.schema import ColumnType, Role, Schema, infer_schema
from .data.split import explicit_holdout, holdout_split
from .data.validation import validate
from .errors import DataError, TVSError
from .evaluation.summary import Summary
from .jobs import EvaluationResult, JobView, SweepConfig, evaluate, submit
from .model.baselines import DPVine, GaussianCopula, IndependentMargins, RVine, RVineStar1
from .model.generator import SyntheticGenerator
from .model.ordering import algorithm1, association_matrix
from .model.registry import generator_class, generator_names, register
from .model.tvinesynth import TVineSynth
from .storage import Store
from .version import __version__

load_model = SyntheticGenerator.load

__all__ = [
    "DEMOS", "ColumnType", "DPVine", "DataError", "EvaluationResult", "GaussianCopula", "IndependentMargins",
    "JobView", "RVine", "RVineStar1", "Role", "Schema", "Store", "Summary", "SweepConfig", "SyntheticGenerator",
    "TVSError", "TVineSynth", "__version__", "algorithm1", "association_matrix", "evaluate", "explicit_holdout",
    "generator_class", "generator_names", "holdout_split", "infer_schema", "load_demo", "load_model", "read_table",
    "register", "submit", "validate",
]
