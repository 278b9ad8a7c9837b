"""Epsilon-DP histogram margins (COPULA-SHIRLEY, Gambs et al., PoPETs 2021, Algorithm 2).

Each bin count gets Laplace noise of scale 2/epsilon (bounded DP, sensitivity 2); negative counts
are clipped to a small positive value so the CDF stays strictly increasing and invertible. Discrete
columns use one bin per observed value, as in the paper. Continuous columns use ``bins`` equal-width
bins with linear interpolation inside a bin (the paper's one-bin-per-unique-value would release the
exact training values). The bin range is taken from the data, which strictly leaks min and max;
this mirrors the reference implementation and is documented in the model card.
"""

from __future__ import annotations

import numpy as np

from ..settings import PrivacyClaim

_FLOOR = 1e-3


class DPHistogramMargins:
    kind = "dp_histogram"
    privacy = PrivacyClaim()  # pure ε-DP, declared and checked as every generator's claim is (``settings``)

    def __init__(self, epsilon: float, bins: int = 50):
        self.privacy.check(type(self).__name__, None, {"epsilon": epsilon})
        self.epsilon = float(epsilon)
        self.bins = int(bins)
        self.discrete: list[bool] = []
        self.edges: list[np.ndarray] = []  # bin edges (continuous) or support values (discrete)
        self.cdfs: list[np.ndarray] = []  # CDF at the right edge of each bin / at each support value

    def fit(self, values: np.ndarray, discrete: list[bool], rng: np.random.Generator) -> DPHistogramMargins:
        self.discrete = list(discrete)
        self.edges, self.cdfs = [], []
        for j, is_discrete in enumerate(discrete):
            col = values[:, j]
            if is_discrete:
                support, counts = np.unique(col, return_counts=True)
                edges = support
            else:
                lo, hi = float(col.min()), float(col.max())
                if hi <= lo:
                    hi = lo + 1.0
                counts, edges = np.histogram(col, bins=self.bins, range=(lo, hi))
            noisy = np.maximum(counts + rng.laplace(0.0, 2.0 / self.epsilon, size=len(counts)), _FLOOR)
            self.edges.append(edges.astype(float))
            self.cdfs.append(np.cumsum(noisy) / noisy.sum())
        return self

    def cdf(self, j: int, x: np.ndarray) -> np.ndarray:
        edges, cdf = self.edges[j], self.cdfs[j]
        if self.discrete[j]:
            idx = np.searchsorted(edges, x, side="right") - 1
            return np.where(idx >= 0, cdf[np.clip(idx, 0, len(cdf) - 1)], 0.0)
        return np.interp(x, edges, np.concatenate([[0.0], cdf]))

    def to_unit(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        upper, lower = [], []
        for j in range(values.shape[1]):
            x = values[:, j]
            up = self.cdf(j, x)
            if self.discrete[j]:
                idx = np.searchsorted(self.edges[j], x, side="left") - 1
                lower.append(np.where(idx >= 0, self.cdfs[j][np.clip(idx, 0, None)], 0.0))
            else:
                lower.append(up)
            upper.append(up)
        clip = lambda a: np.clip(np.column_stack(a), 1e-10, 1 - 1e-10)  # noqa: E731
        return clip(upper), clip(lower)

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        out = np.empty_like(u)
        for j in range(u.shape[1]):
            edges, cdf = self.edges[j], self.cdfs[j]
            if self.discrete[j]:
                out[:, j] = edges[np.clip(np.searchsorted(cdf, u[:, j], side="left"), 0, len(edges) - 1)]
            else:
                out[:, j] = np.interp(u[:, j], np.concatenate([[0.0], cdf]), edges)
        return out

    def to_dict(self) -> dict:
        return {"kind": self.kind, "epsilon": self.epsilon, "bins": self.bins, "discrete": self.discrete,
                "edges": [e.tolist() for e in self.edges], "cdfs": [c.tolist() for c in self.cdfs]}

    @classmethod
    def from_dict(cls, d: dict) -> DPHistogramMargins:
        m = cls(d["epsilon"], d["bins"])
        m.discrete = list(d["discrete"])
        m.edges = [np.asarray(e, dtype=float) for e in d["edges"]]
        m.cdfs = [np.asarray(c, dtype=float) for c in d["cdfs"]]
        return m
