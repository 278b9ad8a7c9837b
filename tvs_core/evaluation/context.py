"""What every game needs: the encoded train/test data, and a recipe for fresh generators.

Games fit hundreds of models on subsets of the training rows. Each is built from a
``GeneratorSpec`` at the highest level the game needs and then truncated for every lower level
(fit once, truncate many); ``refit_per_level=True`` gives the naive protocol, for checks only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.encoding import TableEncoder
from ..data.missing import INDICATOR_SUFFIX, MissingPolicy
from ..data.prepare import prepare_table
from ..data.schema import CATEGORICAL_TYPES, Schema
from ..errors import DataError
from ..model.generator import SyntheticGenerator
from ..model.registry import generator_class
from .timing import timed


@dataclass
class GeneratorSpec:
    """A generator class and its configuration; ``label`` names it in the records."""

    name: str
    config: dict
    label: str | None = None
    refit_per_level: bool = False

    def __post_init__(self):
        self.label = self.label or self.name

    @property
    def has_levels(self) -> bool:
        return generator_class(self.name).has_levels

    def build(self, seed: int, t_max: int | None = None) -> SyntheticGenerator:
        config = {**self.config, "seed": int(seed), "threads": 1}
        if self.has_levels and t_max is not None:
            config["t_max"] = int(t_max)
        kind = generator_class(self.name)
        return kind(**kind.read_config(config))  # a spec's settings may come as text (a stored job, evaluate())

    @classmethod
    def from_model(cls, model: SyntheticGenerator, label: str | None = None,
                   reuse_families: bool = False) -> GeneratorSpec:
        """The holder's configuration; a TVineSynth keeps the holder's Algorithm-1 order fixed.
        ``reuse_families``: refits keep the holder's fitted vine (structure and families), only parameters
        are estimated — much cheaper with the paper's families, and a documented deviation."""
        config = model.get_config()
        if hasattr(model, "order_"):
            config["order"] = list(model.order_.order[:-1])
        if reuse_families:
            if not hasattr(model, "vine_"):
                raise DataError(f"'{model.name}' has no pair-copula families to reuse.",
                                fix="Turn off 'reuse the holder's family selection'.")
            config["fixed_vine"] = model.vine_.to_json()
        return cls(model.name, config, label)


class FittedModels:
    """One generator fitted at the top level, or (naive) one per level; sampled per level."""

    def __init__(self, spec: GeneratorSpec, levels: list, rows: np.ndarray, data: EvaluationData, seed: int):
        self.spec = spec
        top = max((lv for lv in levels if lv is not None), default=None)
        with timed("fitting"):
            if spec.refit_per_level and spec.has_levels:
                self.models = {lv: spec.build(seed, lv).fit_encoded(rows, data.encoder, data.schema)
                               for lv in levels}
            else:
                model = spec.build(seed, top).fit_encoded(rows, data.encoder, data.schema)
                self.models = dict.fromkeys(levels, model)

    def sets(self, level, n_sets: int, size: int, seed: int) -> np.ndarray:
        """(n_sets, size, d) synthetic sets drawn in one call."""
        with timed("sampling"):
            values = self.models[level].sample_values(n_sets * size, level, seed)
        return values.reshape(n_sets, size, -1)


def encode_rows(encoder: TableEncoder, table: pd.DataFrame, schema: Schema,
                missing: MissingPolicy = MissingPolicy.DROP_ROWS) -> np.ndarray:
    """Rows of another table (the hold-out rows, a release) in an encoding fitted on the training rows. Under
    ``impute`` a column with no gap in these rows gets no missingness indicator of its own: its training indicator
    reads 0 (nothing missing) here."""
    modelled = prepare_table(table, schema, missing).modelled
    complete = {name: 0 for name in encoder.names if name.endswith(INDICATOR_SUFFIX) and name not in modelled}
    return encoder.transform(modelled.assign(**complete).reindex(columns=encoder.names))


@dataclass
class EvaluationData:
    encoder: TableEncoder
    schema: Schema
    train: np.ndarray
    test: np.ndarray
    names: list[str] = field(default_factory=list)
    analysis: list[str] | None = None  # covariates of the regression of Y that ci_overlap compares; None: all
    train_labels: pd.Index | None = None  # each encoded training row's label in the training table
    # real-side work every synthetic set scored against these rows needs alike (set_metrics), done once; a copy
    # with other rows (``dataclasses.replace``) starts empty
    shared: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def response_index(self) -> int:
        return self.names.index(self.schema.response)

    def index(self, column: str) -> int:
        return self.names.index(column)

    @property
    def categorical(self) -> np.ndarray:
        """Columns used as codes, not standardised (binary, nominal, ordinal; a binary Y stays 0/1)."""
        return np.array([self.schema[c].type in CATEGORICAL_TYPES for c in self.names])

    @property
    def discrete(self) -> list[bool]:
        return list(self.encoder.discrete)

    @classmethod
    def from_tables(cls, train: pd.DataFrame, test: pd.DataFrame, schema: Schema,
                    missing: MissingPolicy = MissingPolicy.DROP_ROWS) -> EvaluationData:
        prepared = prepare_table(train, schema, missing)
        return cls(prepared.encoder, prepared.schema, prepared.values.to_numpy(),
                   encode_rows(prepared.encoder, test, schema, missing), list(prepared.encoder.names),
                   train_labels=prepared.labels)

    @classmethod
    def from_model(cls, model: SyntheticGenerator, train: pd.DataFrame, test: pd.DataFrame) -> EvaluationData:
        """The holder's encoder and schema; the same rows the holder's model was fitted on."""
        return cls.from_tables(train, test, model.schema_, model.missing)
