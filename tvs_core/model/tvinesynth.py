"""TVineSynth: a C-vine with the response at the root of tree 1, covariates in Algorithm-1 order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyvinecopulib as pv

from .ordering import OrderResult, algorithm1, association_matrix, explicit_order
from .vine import VineGenerator


class TVineSynth(VineGenerator):
    """Fit once at t_max; ``sample(n, truncation_level=t)`` for any t <= t_max without refitting.

    Parameters: ``sensitive`` columns; ``rho_star`` (one value or one per sensitive column) and the
    association ``measure`` for Algorithm 1, or an explicit covariate ``order``; the ``families``
    preset and optional ``parametric_method``; ``margins`` ('empirical' as in the paper, or 'kde');
    ``t_max`` (default: the paper's Appendix-B advice); ``threads``; ``seed``.
    """

    name = "tvinesynth"

    def __init__(self, response: str | None = None, sensitive=(), rho_star: float | dict | None = None,
                 order: list[str] | None = None, **kwargs):
        super().__init__(response=response, sensitive=sensitive, **kwargs)
        self.rho_star = rho_star
        self.order = list(order) if order is not None else None

    def _fit_values(self, values: np.ndarray) -> None:
        names = self.encoder_.names
        response = self.model_schema_.response
        if self.order is not None:
            self.order_ = explicit_order(self.order, names, response, self.sensitive_)
        else:
            self.association_ = association_matrix(pd.DataFrame(values, columns=names), self.measure)
            self.order_ = algorithm1(self.association_, response, self.sensitive_, self.rho_star, self.measure)
        t_max = self.order_.t_max if self.t_max is None else min(int(self.t_max), self.order_.full_level)
        upper, lower = self._fit_margins(values)
        column_order = [names.index(c) for c in self.order_.order]
        d = len(column_order)

        def make_vine(data, var_types):
            structure = pv.CVineStructure(order=list(range(1, d + 1)))  # last column (Y) = root of tree 1
            return pv.Vinecop.from_data(data, controls=self._controls(trunc_lvl=t_max),
                                        structure=structure, var_types=var_types)

        self._fit_vine_on(upper, lower, column_order, make_vine)

    def _state(self) -> dict:
        state = {**super()._state(), "order": self.order_.to_dict()}
        if getattr(self, "association_", None) is not None:  # what Algorithm 1 read: the report draws it
            state["association"] = self.association_.to_dict(orient="split")
        return state

    def _load_state(self, state: dict) -> None:
        super()._load_state(state)
        self.order_ = OrderResult.from_dict(state["order"])
        if "association" in state:
            self.association_ = pd.DataFrame(**state["association"])
