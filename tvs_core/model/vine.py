"""Vine-copula generators: fitted once at their highest level, truncated for every lower one."""

from __future__ import annotations

import numpy as np
import pyvinecopulib as pv

from ..errors import DataError
from .families import DEFAULT_PRESET, get_preset
from .generator import SyntheticGenerator


def unit_data(upper: np.ndarray, lower: np.ndarray, discrete: list[bool]) -> np.ndarray:
    """pyvinecopulib's layout: (n, d) if all continuous, else (n, 2d) with left limits."""
    return np.asfortranarray(np.hstack([upper, lower]) if any(discrete) else upper)


class VineGenerator(SyntheticGenerator):
    """Shared by TVineSynth and the vine baselines. ``vine_`` is fitted at ``fitted_level_``."""

    has_levels = True

    def __init__(self, *, families: str = DEFAULT_PRESET, parametric_method: str | None = None,
                 t_max: int | None = None, **kwargs):
        super().__init__(**kwargs)
        self.families = families
        self.parametric_method = parametric_method
        self.t_max = t_max

    def _controls(self, trunc_lvl: int, **kwargs) -> pv.FitControlsVinecop:
        preset = get_preset(self.families)
        controls = preset.controls(trunc_lvl=trunc_lvl, num_threads=self.threads, **kwargs)
        if self.parametric_method is not None:
            controls.parametric_method = self.parametric_method
        return controls

    def _set_vine(self, vine: pv.Vinecop, column_order: list[int], var_types: list[str]) -> None:
        self.vine_ = vine
        self.column_order_ = list(column_order)  # vine column k holds encoder column column_order_[k]
        self.var_types_ = list(var_types)
        self.fitted_level_ = int(vine.trunc_lvl) if vine.trunc_lvl < vine.dim else vine.dim - 1
        self._truncated: dict[int, pv.Vinecop] = {}

    @property
    def full_level(self) -> int:
        return self.vine_.dim - 1

    def vine_at(self, truncation_level: int | None) -> pv.Vinecop:
        """The fitted vine truncated to ``truncation_level`` (None = as fitted), without refitting."""
        if truncation_level is None or truncation_level >= self.fitted_level_:
            if truncation_level is not None and truncation_level > self.fitted_level_:
                raise DataError(
                    f"Truncation level {truncation_level} is above the level the model was fitted at "
                    f"({self.fitted_level_}).", fix=f"Choose a level from 0 to {self.fitted_level_}, or refit "
                    f"with t_max >= {truncation_level}.")
            return self.vine_
        level = int(truncation_level)
        if level < 0:
            raise DataError(f"Truncation level {level} is negative.", fix="Use 0 (independence) or more.")
        if level not in self._truncated:
            vine = pv.Vinecop.from_json(self.vine_.to_json())
            vine.truncate(level)
            self._truncated[level] = vine
        return self._truncated[level]

    def _sample_unit(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        """Uniforms come from numpy so that the result does not depend on the thread count."""
        vine = self.vine_at(level)
        w = np.asfortranarray(rng.random((n, vine.dim)))
        u_vine = vine.inverse_rosenblatt(w, num_threads=self.threads)
        u = np.empty_like(u_vine)
        u[:, self.column_order_] = u_vine
        return u

    def _sample_values(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        return self.margins_.from_unit(self._sample_unit(n, level, rng))

    def _fit_vine_on(self, upper: np.ndarray, lower: np.ndarray, column_order: list[int],
                     make_vine) -> None:
        """Arrange pseudo-observations in vine order and fit with ``make_vine(data, var_types)``."""
        discrete = [self.encoder_.discrete[j] for j in column_order]
        var_types = ["d" if is_d else "c" for is_d in discrete]
        data = unit_data(upper[:, column_order], lower[:, column_order], discrete)
        self._set_vine(make_vine(data, var_types), column_order, var_types)

    def _state(self) -> dict:
        return {"vine": self.vine_.to_json(), "column_order": self.column_order_, "var_types": self.var_types_}

    def _load_state(self, state: dict) -> None:
        self._set_vine(pv.Vinecop.from_json(state["vine"]), state["column_order"], state["var_types"])
