"""TVineSynth Studio's library: data in, truncated C-vine, synthetic data out. No UI here.

    from tvs_core import TVineSynth, load_demo
    table = load_demo("clinical")
    model = TVineSynth(response="in_hospital_death", sensitive=["total_cost"]).fit(table)
    synthetic = model.sample(1000, truncation_level=5, seed=1)
"""

__version__ = "0.1.0"

from .baselines import DPVine, GaussianCopula, IndependentMargins, RVine, RVineStar1
from .demo import DEMOS, load_demo
from .errors import DataError, TVSError
from .generator import GENERATORS, SyntheticGenerator
from .io import read_table
from .model import TVineSynth
from .ordering import algorithm1, association_matrix
from .schema import ColumnType, Role, Schema, infer_schema
from .validation import validate

load_model = SyntheticGenerator.load

__all__ = [
    "DEMOS", "GENERATORS", "ColumnType", "DPVine", "DataError", "GaussianCopula", "IndependentMargins",
    "RVine", "RVineStar1", "Role", "Schema", "SyntheticGenerator", "TVSError", "TVineSynth", "algorithm1",
    "association_matrix", "infer_schema", "load_demo", "load_model", "read_table", "validate",
]
