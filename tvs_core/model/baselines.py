"""Reference generators behind the same fit/sample interface as TVineSynth.

R-vine (Dissmann), R-vine star1 (paper Appendix G: tree 1 is a star around Y, later trees selected),
Gaussian copula, independent margins, and the COPULA-SHIRLEY epsilon-DP vine (Gambs et al., PoPETs 2021).
"""

from __future__ import annotations

import numpy as np
import pyvinecopulib as pv
from scipy import stats

from ..data.dp_margins import DPHistogramMargins
from ..errors import DataError
from .exact_linalg import exact_product, psd_cholesky
from .generator import SyntheticGenerator
from .vine import VineGenerator


class RVine(VineGenerator):
    """Dissmann's algorithm: every tree is a maximum spanning tree of |Kendall's tau|."""

    name = "rvine"

    def _fit_values(self, values: np.ndarray) -> None:
        upper, lower = self._fit_margins(values)
        d = values.shape[1]
        trunc = d - 1 if self.t_max is None else int(self.t_max)
        self._fit_vine_on(upper, lower, list(range(d)),
                          lambda data, vt: pv.Vinecop.from_data(data, controls=self._controls(trunc), var_types=vt))


class RVineStar1(VineGenerator):
    """Appendix G: the first tree is the star around Y (as in TVineSynth), the rest is Dissmann."""

    name = "rvine_star1"

    def _fit_values(self, values: np.ndarray) -> None:
        upper, lower = self._fit_margins(values)
        names = self.encoder_.names
        response = names.index(self.model_schema_.response)
        column_order = [j for j in range(len(names)) if j != response] + [response]
        d = len(column_order)
        trunc = d - 1 if self.t_max is None else int(self.t_max)

        def make_vine(data, var_types):
            star = pv.CVineStructure(order=list(range(1, d + 1)), trunc_lvl=1)
            vine = pv.Vinecop.from_structure(structure=star, var_types=var_types)
            vine.select(data, controls=self._controls(trunc))  # keeps tree 1, selects trees 2..trunc
            return vine

        self._fit_vine_on(upper, lower, column_order, make_vine)


class DPVine(VineGenerator):
    """COPULA-SHIRLEY: epsilon-DP histogram margins from one half of the rows; the vine (Dissmann,
    Spearman's rho as tree criterion, truncation 2) on the other half's DP pseudo-observations.
    By parallel composition the whole model is epsilon-DP (Gambs et al. 2021, Theorem 4.1)."""

    name = "dp_vine"

    def __init__(self, epsilon: float = 1.0, split: float = 0.5, bins: int = 50, **kwargs):
        kwargs.setdefault("t_max", 2)
        super().__init__(**kwargs)
        self.epsilon = epsilon
        self.split = split
        self.bins = bins

    def _check_settings(self) -> None:
        super()._check_settings()
        if not 0 < self.split < 1:
            raise DataError(f"The DP vine needs a split of the rows between 0 and 1 (got split={self.split}).",
                            fix="Leave the split at 0.5.")
        self._require_counts("bins")

    def _fit_values(self, values: np.ndarray) -> None:
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, 4004]))
        rows = rng.permutation(len(values))
        n_hist = int(round(self.split * len(values)))
        hist_rows, vine_rows = rows[:n_hist], rows[n_hist:]
        self.margins_ = DPHistogramMargins(self.epsilon, self.bins).fit(
            values[hist_rows], self.encoder_.discrete, rng)
        upper, lower = self.margins_.to_unit(values[vine_rows])
        d = values.shape[1]
        trunc = min(int(self.t_max), d - 1)
        self._fit_vine_on(upper, lower, list(range(d)), lambda data, vt: pv.Vinecop.from_data(
            data, controls=self._controls(trunc, tree_criterion="rho"), var_types=vt))


class GaussianCopula(SyntheticGenerator):
    """Correlation of normal scores; the classic single-matrix copula baseline."""

    name = "gaussian_copula"

    def _fit_values(self, values: np.ndarray) -> None:
        upper, lower = self._fit_margins(values)
        scores = stats.norm.ppf((upper + lower) / 2)
        self.correlation_ = np.atleast_2d(np.corrcoef(scores, rowvar=False))

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        # its own factor and product rather than rng.multivariate_normal's LAPACK factorisation, whose result
        # (an eigenbasis, for tied eigenvalues) depends on the CPU's BLAS kernel
        z = exact_product(rng.standard_normal((n, len(self.correlation_))), psd_cholesky(self.correlation_).T)
        return self.margins_.from_unit(stats.norm.cdf(z))

    def _state(self) -> dict:
        return {"correlation": self.correlation_.tolist()}

    def _load_state(self, state: dict) -> None:
        self.correlation_ = np.asarray(state["correlation"])


class IndependentMargins(SyntheticGenerator):
    """Every column drawn on its own: safe by construction, useless for prediction."""

    name = "independent"

    def _fit_values(self, values: np.ndarray) -> None:
        self._fit_margins(values)

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        return self.margins_.from_unit(rng.random((n, len(self.encoder_.names))))
