"""What every synthetic-data generator shares: table in, table out, seeded, savable.

Subclasses only model the copula of the encoded columns: ``_fit_values`` receives the (n, d)
numeric matrix, ``_sample_values`` returns one. Everything about types, missing values, dropped
columns and column order lives here, once.
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.encoding import TableEncoder, plain_value
from ..data.margins import MarginKind, make_margins, margins_from_dict
from ..data.missing import MissingPolicy, MissingReport, reapply_missingness
from ..data.prepare import prepare_table
from ..data.schema import ColumnType, Schema, infer_schema, mostly_missing
from ..data.validation import MIN_ROWS, check
from ..errors import DataError
from ..text import read_choice
from .ordering import Measure
from .registry import EPSILON_GENERATORS

MODEL_FORMAT = "tvinesynth-studio-model"
MODEL_FORMAT_VERSION = 1


def all_cores() -> int:
    """The processors this process may run on: the threads of a fit or a release that runs alone (the holder's
    fit, the Export page's release, the command line's), never of a sweep's tasks, which share the cores."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def refuse_negative_level(truncation_level: int | None) -> None:
    """A level is 0 (every column on its own) or more, and the error says so in the library's words."""
    if truncation_level is not None and int(truncation_level) < 0:
        raise DataError(f"Truncation level {int(truncation_level)} is negative.", fix="Use 0 (independence) or more.")


# the settings every generator has that are one of a few named choices: held typed, as the library takes them
TYPED_SETTINGS = {"margins": MarginKind, "missing": MissingPolicy, "measure": Measure}


class SyntheticGenerator:
    """Base generator. Configure in ``__init__``, ``fit(table)``, then ``sample(n, ...)``.

    As in scikit-learn, ``__init__`` only stores its arguments (so ``get_config`` can read them back
    from the signature) and ``fit`` writes what it learns to attributes ending in ``_``."""

    name = "base"
    has_levels = False  # whether ``sample`` takes a truncation level
    # whether ``fit`` gives the same model whatever ``threads`` is, so that a fit may use the cores it is given (a
    # neural network's threads reduce in another order: not claimed unless tested, tests/model/test_vine.py)
    threads_keep_the_fit = False
    # whether a fitted model can be saved (``to_json``): a sweep then fits a baseline in one task and scores its sets in
    # others (jobs/plan.py); the competitors cannot, and are fitted and scored in one
    can_be_saved = True

    def __init__(self, response: str | None = None, sensitive: list[str] | tuple[str, ...] = (),
                 margins: MarginKind = MarginKind.EMPIRICAL, missing: MissingPolicy = MissingPolicy.DROP_ROWS,
                 measure: Measure = Measure.KENDALL,
                 seed: int = 0, threads: int = 1):
        self.response = response
        self.sensitive = sensitive
        self.margins = margins
        self.missing = missing
        self.measure = measure
        self.seed = seed
        self.threads = threads

    # -- configuration ------------------------------------------------------------------------
    @classmethod
    def parameter_names(cls) -> list[str]:
        """The settings of this class: every named ``__init__`` parameter along the class hierarchy."""
        names: list[str] = []
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            for parameter in inspect.signature(init).parameters.values():
                if parameter.name != "self" and parameter.kind not in (parameter.VAR_POSITIONAL,
                                                                       parameter.VAR_KEYWORD):
                    if parameter.name not in names:
                        names.append(parameter.name)
        return names

    def get_config(self) -> dict:
        return {name: getattr(self, name) for name in self.parameter_names()}

    @classmethod
    def read_config(cls, config: dict) -> dict:
        """Settings as a saved model stores them (an Enum as its text) read back as ``__init__`` takes them; a
        subclass with a typed setting reads it after ``super().read_config(config)``."""
        config = dict(config)
        for setting, kind in TYPED_SETTINGS.items():
            if isinstance(config.get(setting), str) and not isinstance(config[setting], kind):
                config[setting] = read_choice(kind, config[setting])
        return config

    @classmethod
    def default_setting(cls, name: str):
        """The default of setting ``name`` in the nearest ``__init__`` that declares it (None: no default)."""
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            parameter = inspect.signature(init).parameters.get(name) if init is not None else None
            if parameter is not None:
                return None if parameter.default is parameter.empty else parameter.default
        return None

    def _check_settings(self) -> None:
        """Refuse, in words and before any work, a setting no fit can use; a subclass adds its own checks after
        ``super()._check_settings()``. (``__init__`` only stores settings, as in scikit-learn, so they are checked
        when the fit starts.)"""
        for setting, kind in TYPED_SETTINGS.items():  # text is read by ``read_config`` or the caller's edge
            value = getattr(self, setting)
            if not isinstance(value, kind):
                raise DataError(f"{self.name}'s setting '{setting}' is {value!r}, not a {kind.__name__}.",
                                fix=f"Give one of: {', '.join(f'{kind.__name__}.{member.name}' for member in kind)}.")
        if not _whole(self.seed) or self.seed < 0:
            raise DataError(f"The seed must be a whole number of 0 or more (it is {self.seed!r}).",
                            fix="Give e.g. seed=0.")
        if (claim := EPSILON_GENERATORS.get(self.name)) is not None:  # the privacy it promises: its one check
            claim.check(type(self).__name__, self.name, self.get_config())

    def privacy_claim(self) -> tuple[float, float] | None:
        """(ε, δ) this generator promises (its declared ``registry.PrivacyClaim``); None: it claims none."""
        claim = EPSILON_GENERATORS.get(self.name)
        return None if claim is None else claim.of(self.get_config())

    def _require_counts(self, *settings: str, minimum: int = 1) -> None:
        """Refuse a count setting (epochs, bins, ...) that is not a whole number of at least ``minimum``."""
        for setting in settings:
            value = getattr(self, setting)
            if not _whole(value) or value < minimum:
                default = self.default_setting(setting)
                raise DataError(f"{self.name}'s setting '{setting}' must be a whole number of at least {minimum} "
                                f"(it is {value!r}).", fix=f"Set it to {minimum} or more" +
                                (f", or leave it at its default ({default})." if default is not None else "."))

    def _roles(self, schema: Schema) -> Schema:
        """The schema with the roles set in ``__init__`` (a single sensitive name is one column)."""
        sensitive = [self.sensitive] if isinstance(self.sensitive, str) else list(self.sensitive)
        if self.response is not None or sensitive:
            return schema.with_roles(self.response or schema.response, sensitive or schema.sensitive)
        return schema

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame, schema: Schema | None = None) -> SyntheticGenerator:
        self._check_settings()
        if schema is None:
            schema = infer_schema(table)
        schema = self._roles(schema)
        check(table, schema, measure=self.measure)
        self.schema_ = schema
        self.response_ = schema.response
        self.sensitive_ = schema.sensitive
        self._remember_input(table, schema)
        prepared = prepare_table(table, schema, self.missing)
        modelled, self.model_schema_, self.missing_report_ = prepared.modelled, prepared.schema, prepared.report
        if len(modelled) < MIN_ROWS:
            raise DataError(
                f"Only {len(modelled)} of {len(table)} rows are left after applying the missing-value policy "
                f"'{self.missing}' ({self.missing_report_.summary()}); at least {MIN_ROWS} are needed.",
                fix="Choose the 'impute' policy or drop the columns with most missing values.")
        classes = modelled[schema.response].nunique()
        if classes < 2:
            raise DataError(f"After removing rows with missing values the response '{schema.response}' has "
                            f"a single class.", column=schema.response, fix="Choose the 'impute' policy.")
        self.encoder_ = prepared.encoder
        self.n_train_ = len(modelled)
        self._fit_values(prepared.values.to_numpy())
        return self

    def fit_encoded(self, values: np.ndarray, encoder: TableEncoder, schema: Schema) -> SyntheticGenerator:
        """Fit on rows already encoded by ``encoder`` (fitted on the holder's training data).

        The evaluation games fit hundreds of models on subsets of the same table; sharing the
        holder's encoder keeps every model's numbers on one scale and skips pandas entirely."""
        self._check_settings()
        self.schema_ = self.model_schema_ = schema
        self.response_ = schema.response
        self.sensitive_ = schema.sensitive
        self.encoder_ = encoder
        self.missing_report_ = MissingReport("drop_rows", len(values), len(values), 0, 0)
        self.input_columns_ = list(encoder.names)
        self.dropped_ = {}
        self.n_train_ = len(values)
        self._fit_values(np.asarray(values, dtype=float))
        return self

    def sample_values(self, n: int, truncation_level: int | None = None, seed: int | None = None) -> np.ndarray:
        """Synthetic rows in the encoder's numeric coding (what the metrics consume)."""
        self._check_fitted()
        refuse_negative_level(truncation_level)  # before the level seeds the stream
        return self._sample_values(int(n), truncation_level, self._rng(seed, truncation_level))

    def _fit_margins(self, values: np.ndarray):
        self.margins_ = make_margins(self.margins).fit(values, self.encoder_.discrete)
        return self.margins_.to_unit(values)

    def _fit_values(self, values: np.ndarray) -> None:
        raise NotImplementedError

    def _remember_input(self, table: pd.DataFrame, schema: Schema) -> None:
        self.input_columns_ = [str(c) for c in table.columns]
        self.dropped_ = {}
        for spec in schema.columns:
            if not spec.modelled:
                col = table[spec.name]
                empty = mostly_missing(col)  # released empty: its few cells are no pattern, and might be someone's
                constant = col.dropna().iloc[0] if spec.type == ColumnType.CONSTANT and col.notna().any() and \
                    not empty else None
                self.dropped_[spec.name] = {"type": "empty" if empty else spec.type.value, "dtype": str(col.dtype),
                                            "constant": plain_value(constant)}
                if spec.type == ColumnType.IDENTIFIER and pd.api.types.is_integer_dtype(col) and col.notna().any() \
                        and not empty:
                    # surrogate IDs start at the next power of ten above every real ID: no overlap, and
                    # only the number of digits of the real IDs is revealed
                    self.dropped_[spec.name]["first_id"] = 10 ** len(str(max(int(col.max()), 0)))

    # -- sampling -----------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "encoder_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit(table) first")

    def _rng(self, seed: int | None, level: int | None) -> np.random.Generator:
        """One stream per (master seed, level, call seed): results never depend on call order."""
        key = [self.seed if seed is None else seed, 0 if level is None else level + 1]
        return np.random.default_rng(np.random.SeedSequence(key))

    def sample(self, n: int, truncation_level: int | None = None, seed: int | None = None) -> pd.DataFrame:
        """A synthetic table with the input's columns, order and dtypes."""
        self._check_fitted()
        if int(n) < 1:
            raise DataError(f"Asked for {n} rows; ask for at least 1.")
        return self.decode(self.sample_values(n, truncation_level, seed))

    def decode(self, values: np.ndarray) -> pd.DataFrame:
        table = self.encoder_.inverse_transform(values)
        table = reapply_missingness(table, self.missing_report_)
        n = len(table)
        for name, info in self.dropped_.items():
            table[name] = _regenerate(info, n)
        return table[self.input_columns_]

    def _sample_values(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _sample_unit(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    # -- persistence --------------------------------------------------------------------------
    def _state(self) -> dict:
        return {}

    def _load_state(self, state: dict) -> None:
        pass

    def to_json(self) -> str:
        """Everything needed to sample again. Note: empirical margins hold the training values."""
        self._check_fitted()
        payload = {
            "format": MODEL_FORMAT, "version": MODEL_FORMAT_VERSION, "generator": self.name,
            "config": self.get_config(), "schema": self.schema_.to_dict(),
            "model_schema": self.model_schema_.to_dict(), "missing": self.missing_report_.to_dict(),
            "encoder": self.encoder_.to_dict(),
            # a generator may model the encoded values without margins of its own (the test's copy generator)
            "margins": self.margins_.to_dict() if hasattr(self, "margins_") else None,
            "input_columns": self.input_columns_, "dropped": self.dropped_, "n_train": self.n_train_,
            "state": self._state(),
        }
        return json.dumps(payload, default=plain_value)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json())

    @staticmethod
    def from_json(text: str) -> SyntheticGenerator:
        payload = json.loads(text)
        if payload.get("format") != MODEL_FORMAT:
            raise DataError("This file is not a saved TVineSynth Studio model.")
        if payload["version"] > MODEL_FORMAT_VERSION:
            raise DataError(f"The model was saved by a newer version (format {payload['version']}).",
                            fix="Update TVineSynth Studio.")
        from .registry import generator_class

        cls = generator_class(payload["generator"])
        model = cls(**cls.read_config(payload["config"]))
        model.schema_ = Schema.from_dict(payload["schema"])
        model.response_, model.sensitive_ = model.schema_.response, model.schema_.sensitive
        model.model_schema_ = Schema.from_dict(payload["model_schema"])
        model.missing_report_ = MissingReport(**payload["missing"])
        model.encoder_ = TableEncoder.from_dict(payload["encoder"], model.model_schema_)
        if payload["margins"] is not None:
            model.margins_ = margins_from_dict(payload["margins"])
        model.input_columns_ = payload["input_columns"]
        model.dropped_ = payload["dropped"]
        model.n_train_ = payload["n_train"]
        model._load_state(payload["state"])
        return model

    @staticmethod
    def load(path: str | Path) -> SyntheticGenerator:
        return SyntheticGenerator.from_json(Path(path).read_text())


def _whole(value) -> bool:
    """A whole number (3, 3.0, numpy's too), not a flag."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) and \
        float(value).is_integer()


def _regenerate(info: dict, n: int) -> pd.Series:
    """Columns the model does not learn: fresh IDs, empty text, the constant repeated."""
    kind, dtype = info["type"], info["dtype"]
    if kind == ColumnType.IDENTIFIER.value:
        if dtype.lower().startswith(("int", "uint")):
            first = info.get("first_id", 1)
            ids = np.arange(first, first + n)
            if n and ids[-1] > np.iinfo(np.dtype(dtype.lower())).max:  # a narrow type (int8, int16): widen it
                dtype = "Int64" if dtype[0].isupper() else "int64"
            return pd.Series(ids, dtype=dtype)
        return pd.Series([f"SYN-{i:06d}" for i in range(1, n + 1)], dtype=object if dtype == "object" else None)
    if kind == ColumnType.CONSTANT.value and info["constant"] is not None:
        series = pd.Series([info["constant"]] * n)
        try:
            return series.astype(dtype)
        except (TypeError, ValueError):
            return series
    series = pd.Series([None] * n, dtype=object)
    try:
        return series.astype(dtype) if dtype != "object" else series
    except (TypeError, ValueError):
        return series
