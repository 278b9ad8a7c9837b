"""Turn a typed table into numbers the vine can model, and synthetic numbers back into the table.

Nominal categories are coded 0..K-1 in order of their mean response (target ordering), so that a
rank-based copula sees a monotone relation with Y; ordinal and binary columns keep their own order;
dates become days since 1970. Decoding restores names, order, dtypes and category labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .schema import CATEGORICAL_TYPES, DISCRETE_TYPES, ColumnType, Schema, parse_dates

_DAY_NS = 86_400 * 10**9


@dataclass
class ColumnCode:
    name: str
    type: ColumnType
    dtype: str  # the pandas dtype of the input column, restored on decode
    categories: list | None = None  # labels in code order, for categorical types
    ordered_category: bool = False  # input was an ordered pandas Categorical
    pandas_categories: list | None = None  # categories of a pandas Categorical input, in its order
    date_only: bool = False
    whole_seconds: bool = False
    decimals: int | None = None  # precision of a continuous column, restored on decode

    @property
    def discrete(self) -> bool:
        return self.type in DISCRETE_TYPES

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["type"] = self.type.value
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ColumnCode:
        return cls(**{**d, "type": ColumnType(d["type"])})


def plain_value(value):
    """A JSON-safe Python scalar for a numpy/pandas value (NaN, NaT and NA → None, timestamps → ISO text)."""
    if value is None or value is pd.NaT or value is pd.NA or (isinstance(value, (float, np.floating))
                                                              and np.isnan(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return value.item() if hasattr(value, "item") else value


def _plain_list(values) -> list:
    return [v.item() if hasattr(v, "item") else v for v in values]


class TableEncoder:
    """Numeric view of the modelled columns; configure with the schema, ``fit`` on the table."""

    def __init__(self, schema: Schema):
        self.schema = schema
        self.codes: list[ColumnCode] = []

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.codes]

    @property
    def discrete(self) -> list[bool]:
        return [c.discrete for c in self.codes]

    def fit(self, df: pd.DataFrame) -> TableEncoder:
        response = self.schema.response
        response_code = None
        if response is not None:
            spec = self.schema[response]
            code = self._fit_column(df[response], spec.type, None, levels=spec.levels)
            response_code = self._encode_column(df[response], code)
        self.codes = []
        for name in self.schema.modelled:
            spec = self.schema[name]
            target = None if name == response else response_code
            self.codes.append(self._fit_column(df[name], spec.type, target, name=name, levels=spec.levels))
        return self

    def _fit_column(self, col: pd.Series, ctype: ColumnType, target, name: str | None = None,
                    levels: tuple | None = None) -> ColumnCode:
        code = ColumnCode(name=name or str(col.name), type=ctype, dtype=str(col.dtype))
        if isinstance(col.dtype, pd.CategoricalDtype):
            code.pandas_categories = _plain_list(col.dtype.categories)
            code.ordered_category = bool(col.dtype.ordered)
        if ctype in CATEGORICAL_TYPES:
            values = col.dropna()
            if ctype == ColumnType.ORDINAL and levels:  # the user's order; labels it lacks go last
                rank = {str(v): i for i, v in enumerate(levels)}
                labels = sorted(values.unique(), key=lambda v: (rank.get(str(v), len(rank)), str(v)))
            elif ctype == ColumnType.ORDINAL and isinstance(col.dtype, pd.CategoricalDtype):
                present = set(values.unique())
                labels = [c for c in col.dtype.categories if c in present]
            elif ctype == ColumnType.NOMINAL and target is not None:
                frame = pd.DataFrame({"label": values.to_numpy(), "y": target[values.index.to_numpy()]})
                stats = frame.groupby("label", sort=True)["y"].agg(["mean", "size"])
                stats = stats.reset_index().sort_values(["mean", "size", "label"], kind="mergesort",
                                                        key=lambda s: s.astype(str) if s.name == "label" else s)
                labels = list(stats["label"])
            else:
                labels = sorted(values.unique(), key=lambda v: (str(type(v)), v))
            code.categories = _plain_list(labels)
        elif ctype == ColumnType.CONTINUOUS and pd.api.types.is_float_dtype(col):
            code.decimals = _decimals(col.dropna().to_numpy(dtype=float))
        elif ctype == ColumnType.DATETIME:
            text = not pd.api.types.is_datetime64_any_dtype(col)  # dates stored as strings (object or str)
            stamps = parse_dates(col.dropna()) if text else col.dropna()
            code.date_only = bool((stamps == stamps.dt.normalize()).all())
            code.whole_seconds = bool((stamps == stamps.dt.floor("s")).all())
        return code

    def _encode_column(self, col: pd.Series, code: ColumnCode) -> np.ndarray:
        if code.type in CATEGORICAL_TYPES:
            mapping = {label: i for i, label in enumerate(code.categories)}
            return np.array([mapping.get(_plain_list([v])[0], np.nan) if pd.notna(v) else np.nan for v in col],
                            dtype=float)
        if code.type == ColumnType.DATETIME:
            stamps = col if pd.api.types.is_datetime64_any_dtype(col) else parse_dates(col)
            if stamps.dt.tz is not None:
                stamps = stamps.dt.tz_convert("UTC").dt.tz_localize(None)
            ns = stamps.astype("datetime64[ns]").astype("int64").to_numpy().astype(float)
            ns[stamps.isna().to_numpy()] = np.nan
            return ns / _DAY_NS
        return pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """(n, d) float matrix of the modelled columns in schema order."""
        return np.column_stack([self._encode_column(df[c.name], c) for c in self.codes])

    def inverse_transform(self, values: np.ndarray) -> pd.DataFrame:
        """Table with the input's names, dtypes and labels from a numeric matrix."""
        columns = {}
        for j, code in enumerate(self.codes):
            columns[code.name] = self._decode_column(values[:, j], code)
        return pd.DataFrame(columns)

    def _decode_column(self, x: np.ndarray, code: ColumnCode) -> pd.Series:
        if code.type in CATEGORICAL_TYPES:
            idx = np.clip(np.rint(x), 0, len(code.categories) - 1).astype(int)
            labels = [code.categories[i] for i in idx]
            if code.pandas_categories is not None:
                return pd.Series(pd.Categorical(labels, categories=code.pandas_categories,
                                                ordered=code.ordered_category))
            return _restore_dtype(pd.Series(labels), code.dtype)
        if code.type == ColumnType.DATETIME:
            unit_ns = _DAY_NS if code.date_only else 10**9 if code.whole_seconds else 1
            ns = np.rint(x * (_DAY_NS / unit_ns)).astype("int64") * unit_ns
            stamps = pd.to_datetime(ns)
            if code.dtype.startswith("datetime64"):
                return pd.Series(stamps).astype(code.dtype) if "UTC" not in code.dtype else \
                    pd.Series(stamps).dt.tz_localize("UTC").astype(code.dtype)
            text = stamps.strftime("%Y-%m-%d" if code.date_only else "%Y-%m-%d %H:%M:%S")
            return _restore_dtype(pd.Series(text, dtype=object), code.dtype)
        if code.type == ColumnType.INTEGER or _is_int_dtype(code.dtype):
            return _restore_dtype(pd.Series(np.rint(x)), code.dtype)
        if code.decimals is not None:
            x = np.round(x, code.decimals)
        return _restore_dtype(pd.Series(x), code.dtype)

    def to_dict(self) -> dict:
        return {"codes": [c.to_dict() for c in self.codes]}

    @classmethod
    def from_dict(cls, d: dict, schema: Schema) -> TableEncoder:
        enc = cls(schema)
        enc.codes = [ColumnCode.from_dict(c) for c in d["codes"]]
        return enc


def _decimals(values: np.ndarray, most: int = 15, share: float = 0.99) -> int | None:
    """Fewest decimals that reproduce at least ``share`` of the values (None: full precision), so a
    release keeps the recorded precision instead of showing interpolation artefacts — and a column of
    whole numbers with a stray 12.5 stays a column of whole numbers."""
    if len(values) == 0:
        return None
    tolerance = 1e-9 * max(1.0, float(np.abs(values).max()))
    for k in range(most + 1):
        if np.mean(np.abs(np.round(values, k) - values) <= tolerance) >= share:
            return k
    return None


def _is_int_dtype(dtype: str) -> bool:
    return dtype.lower().startswith(("int", "uint"))


def _restore_dtype(series: pd.Series, dtype: str) -> pd.Series:
    if dtype in ("object", "str", "string") or dtype.startswith("string"):
        return series.astype(object) if dtype == "object" else series.astype(dtype)
    if dtype == "bool":
        return series.astype(bool)
    try:
        return series.astype(dtype)
    except (TypeError, ValueError):
        return series
