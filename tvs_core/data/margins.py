"""Marginal distributions: map each column to the unit interval and back.

``EmpiricalMargins`` is the paper's choice: ranks/(n+1) in, Hyndman-Fan type-8 quantiles of the
training column out (discrete columns snap to the closest observed value). ``KdeMargins`` smooths
each column with ``pyvinecopulib.Kde1d`` so that released continuous values are not training values.
Discrete columns get a second, left-limit column (F(x-)) appended, as pyvinecopulib expects.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
import pyvinecopulib as pv

from ..text import choice_named, read_choice


def _clip(u: np.ndarray) -> np.ndarray:
    return np.clip(u, 1e-10, 1 - 1e-10)


def sorted_quantile(ref: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(ref, q, method="median_unbiased")`` for an already sorted ``ref`` without NaN, in numpy's
    own arithmetic (same bits), minus its re-sorting: numpy partitions ``ref`` and sorts the indices of every
    call, which was most of the cost of sampling large sets."""
    n = len(ref)
    alpha = beta = 1 / 3.0
    virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    previous = np.floor(virtual)
    following = previous + 1
    above, below = virtual >= n - 1, virtual < 0
    previous[above], following[above] = -1, -1
    previous[below], following[below] = 0, 0
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = np.asanyarray(virtual - previous, dtype=virtual.dtype)
    a, b = ref[previous], ref[following]
    diff = b - a
    out = np.add(a, diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


class _SavedMargins:
    """Saving and loading: the kind, the discrete flags, per-column arrays named in ``_arrays``."""

    kind = ""
    _arrays: tuple[str, ...] = ()
    discrete: list[bool]

    def to_dict(self) -> dict:
        arrays = {name: [v.tolist() for v in getattr(self, name)] for name in self._arrays}
        return {"kind": self.kind, "discrete": self.discrete, **arrays, **self._extra()}

    @classmethod
    def from_dict(cls, d: dict):
        m = cls()
        m.discrete = list(d["discrete"])
        for name in cls._arrays:
            setattr(m, name, [np.asarray(v, dtype=float) for v in d[name]])
        m._load_extra(d)
        return m

    def _extra(self) -> dict:
        return {}

    def _load_extra(self, d: dict) -> None:
        pass


class EmpiricalMargins(_SavedMargins):
    kind = "empirical"
    _arrays = ("sorted_values",)

    def __init__(self):
        self.sorted_values: list[np.ndarray] = []
        self.discrete: list[bool] = []

    def fit(self, values: np.ndarray, discrete: list[bool]) -> EmpiricalMargins:
        self.sorted_values = [np.sort(values[:, j]) for j in range(values.shape[1])]
        self.discrete = list(discrete)
        return self

    def to_unit(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pseudo-observations F(x) and left limits F(x-): average ranks / (n+1) for continuous
        columns (left limit = value), rank(max) / (n+1) and (rank(min) - 1) / (n+1) for discrete."""
        upper, lower = [], []
        for j, ref in enumerate(self.sorted_values):
            m = len(ref) + 1
            below = np.searchsorted(ref, values[:, j], side="left")
            at_or_below = np.searchsorted(ref, values[:, j], side="right")
            if self.discrete[j]:
                upper.append(at_or_below / m)
                lower.append(below / m)
            else:
                upper.append((below + at_or_below + 1) / 2 / m)
                lower.append(upper[-1])
        return _clip(np.column_stack(upper)), _clip(np.column_stack(lower))

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        out = np.empty_like(u)
        for j, ref in enumerate(self.sorted_values):
            x = sorted_quantile(ref, _clip(u[:, j]))  # Hyndman-Fan type 8
            if self.discrete[j]:
                x = _closest(np.unique(ref), x)
            out[:, j] = x
        return out



def _closest(support: np.ndarray, x: np.ndarray) -> np.ndarray:
    idx = np.clip(np.searchsorted(support, x), 1, len(support) - 1) if len(support) > 1 else np.zeros(len(x), int)
    if len(support) == 1:
        return np.full_like(x, support[0])
    left, right = support[idx - 1], support[idx]
    return np.where(np.abs(x - left) <= np.abs(right - x), left, right)


class KdeMargins(_SavedMargins):
    kind = "kde"
    _arrays = ("support",)

    def __init__(self):
        self.kdes: list = []
        self.discrete: list[bool] = []
        self.support: list[np.ndarray] = []

    def fit(self, values: np.ndarray, discrete: list[bool]) -> KdeMargins:
        self.discrete = list(discrete)
        self.kdes, self.support = [], []
        for j, is_discrete in enumerate(discrete):
            col = values[:, j]
            if is_discrete:
                # Kde1d's discrete mode needs consecutive integers; fit on the rank of each observed value
                support = np.unique(col)
                kde = pv.core.Kde1d(var_type="d", xmin=0, xmax=len(support) - 1)
                kde.fit(np.searchsorted(support, col).astype(float))
            else:
                support = np.array([col.min(), col.max()])
                kde = pv.core.Kde1d(var_type="c")
                kde.fit(col.astype(float))
            self.kdes.append(kde)
            self.support.append(support)
        return self

    def to_unit(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        upper, lower = [], []
        for j, kde in enumerate(self.kdes):
            if self.discrete[j]:
                pos = _closest_index(self.support[j], values[:, j]).astype(float)
                upper.append(kde.cdf(pos))
                lower.append(kde.cdf_left(pos))
            else:
                upper.append(kde.cdf(np.ascontiguousarray(values[:, j], dtype=float)))
                lower.append(upper[-1])
        return _clip(np.column_stack(upper)), _clip(np.column_stack(lower))

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        out = np.empty_like(u)
        for j, kde in enumerate(self.kdes):
            x = kde.icdf(np.ascontiguousarray(_clip(u[:, j])))
            if self.discrete[j]:
                idx = np.clip(np.rint(x), 0, len(self.support[j]) - 1).astype(int)
                x = self.support[j][idx]
            out[:, j] = x
        return out

    def _extra(self) -> dict:
        return {"kdes": [k.to_json() for k in self.kdes]}

    def _load_extra(self, d: dict) -> None:
        self.kdes = [pv.core.Kde1d.from_json(k) for k in d["kdes"]]


def _closest_index(support: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.searchsorted(support, _closest(support, x))


@choice_named("margins")
class MarginKind(StrEnum):
    EMPIRICAL = "empirical"
    KDE = "kde"


MARGINS = {MarginKind.EMPIRICAL: EmpiricalMargins, MarginKind.KDE: KdeMargins}


def make_margins(kind: MarginKind):
    """New, unfitted margins of ``kind`` (its text too: anything else refused in read_choice's one wording)."""
    return MARGINS[read_choice(MarginKind, kind)]()


def margins_from_dict(d: dict):
    from .dp_margins import DPHistogramMargins

    return {**MARGINS, DPHistogramMargins.kind: DPHistogramMargins}[d["kind"]].from_dict(d)
