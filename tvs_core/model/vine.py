"""Vine-copula generators: fitted once at their highest level, truncated for every lower one."""

from __future__ import annotations

import numpy as np
import pyvinecopulib as pv
from scipy.special import ndtr, ndtri

from ..errors import DataError
from ..text import read_choice
from .exact_linalg import exact_product
from .families import DEFAULT_FAMILY_SET, FAMILY_SETS, FamilySet, ParametricMethod
from .generator import SyntheticGenerator, refuse_negative_level

LINEAR_FAMILIES = {pv.BicopFamily.indep, pv.BicopFamily.gaussian}
PARAMETRIC_METHODS = tuple(ParametricMethod)  # pyvinecopulib's estimators of a parametric pair copula
LINEAR_TOLERANCE = 1e-9  # largest difference in u from pyvinecopulib's own inverse Rosenblatt we accept
MIN_BLOCK_ROWS = 2_000  # rows below which a thread of its own costs more than it saves


def normal_score_map(vine: pv.Vinecop) -> np.ndarray | None:
    """A vine of Gaussian (and independence) pair copulas is a Gaussian copula: its inverse Rosenblatt
    transform is linear in normal scores, z = A w, which samples 3-7x faster than pair by pair (level 1 to
    full, clinical demo). A is read off pyvinecopulib itself (one probe row per variable), so its ordering
    conventions are kept, and checked on random rows; None (sample pair by pair) for any other family or if
    the check fails."""
    if not all(family in LINEAR_FAMILIES for tree in vine.families for family in tree):
        return None
    dim = vine.dim
    probe = np.vstack([np.zeros(dim), np.eye(dim)])
    z = ndtri(vine.inverse_rosenblatt(np.asfortranarray(ndtr(probe)), num_threads=1))
    linear = (z[1:] - z[0]).T
    check = np.random.default_rng(0).uniform(0.001, 0.999, (32, dim))
    expected = vine.inverse_rosenblatt(np.asfortranarray(check), num_threads=1)
    if not np.all(np.isfinite(linear)) or np.abs(ndtr(ndtri(check) @ linear.T) - expected).max() > LINEAR_TOLERANCE:
        return None
    return linear


def by_row_blocks(transform, rows: np.ndarray, threads: int) -> np.ndarray:
    """``transform(rows)``, on ``threads`` blocks of rows at once (numpy releases the GIL in its loops). Each row's
    numbers are computed by the same operations in the same order whatever the blocks, so the result is the same
    bytes at any thread count."""
    threads = max(1, min(int(threads), len(rows) // MIN_BLOCK_ROWS))
    if threads == 1:
        return transform(rows)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return np.vstack(list(pool.map(transform, np.array_split(rows, threads))))


def unit_data(upper: np.ndarray, lower: np.ndarray, discrete: list[bool]) -> np.ndarray:
    """pyvinecopulib's layout: (n, d) if all continuous, else (n, 2d) with left limits."""
    return np.asfortranarray(np.hstack([upper, lower]) if any(discrete) else upper)


class VineGenerator(SyntheticGenerator):
    """Shared by TVineSynth and the vine baselines. ``vine_`` is fitted at ``fitted_level_``."""

    has_levels = True
    threads_keep_the_fit = True  # pyvinecopulib selects each tree's pair copulas in parallel, each alone

    def __init__(self, *, families: FamilySet = DEFAULT_FAMILY_SET, parametric_method: ParametricMethod | None = None,
                 t_max: int | None = None, fixed_vine: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.families = families
        self.parametric_method = parametric_method
        self.t_max = t_max
        # a fitted vine (pyvinecopulib JSON) whose structure and pair-copula families are kept, only their
        # parameters estimated: the games' opt-in "reuse the holder's family selection"
        self.fixed_vine = fixed_vine

    @classmethod
    def read_config(cls, config: dict) -> dict:
        config = super().read_config(config)
        if "families" in config:
            config["families"] = read_choice(FamilySet, config["families"])
        if config.get("parametric_method") is not None:
            config["parametric_method"] = read_choice(ParametricMethod, config["parametric_method"])
        return config

    def _check_settings(self) -> None:
        super()._check_settings()
        if not isinstance(self.families, FamilySet):  # text is read by read_choice where it comes in
            raise DataError(f"{self.name}'s pair-copula family set is {self.families!r}, not a FamilySet.",
                            fix=f"Give one of: {', '.join(f'FamilySet.{member.name}' for member in FamilySet)}.")
        if self.parametric_method is not None:  # None: the family preset's
            read_choice(ParametricMethod, self.parametric_method)
        if self.t_max is not None:
            self._require_counts("t_max", minimum=0)

    def _controls(self, trunc_lvl: int, **kwargs) -> pv.FitControlsVinecop:
        controls = FAMILY_SETS[self.families].controls(trunc_lvl=trunc_lvl, num_threads=self.threads, **kwargs)
        if self.parametric_method is not None:
            controls.parametric_method = self.parametric_method
        return controls

    def _fit_fixed(self, data: np.ndarray) -> pv.Vinecop:
        """``fixed_vine`` truncated to ``t_max`` (if lower), its pair copulas' parameters refitted on ``data``."""
        vine = pv.Vinecop.from_json(self.fixed_vine)
        if self.t_max is not None and self.t_max < min(vine.trunc_lvl, vine.dim - 1):
            vine.truncate(int(self.t_max))
        controls = pv.FitControlsBicop(parametric_method=self.parametric_method
                                       or FAMILY_SETS[self.families].parametric_method,
                                       num_threads=self.threads)
        return vine.fit(data, controls=controls)

    def _set_vine(self, vine: pv.Vinecop, column_order: list[int], var_types: list[str]) -> None:
        self.vine_ = vine
        self.column_order_ = list(column_order)  # vine column k holds encoder column column_order_[k]
        self.var_types_ = list(var_types)
        self.fitted_level_ = int(vine.trunc_lvl) if vine.trunc_lvl < vine.dim else vine.dim - 1
        self._truncated: dict[int, pv.Vinecop] = {}
        self._linear: dict[int | None, np.ndarray | None] = {}

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
        refuse_negative_level(level)
        if level not in self._truncated:
            # the first ``level`` trees of pair copulas on the truncated structure: the same vine as a JSON copy
            # truncated in place (same pair copulas, same samples: tested), 5x cheaper (the games truncate every
            # refit at every level); its log-likelihood is unset (the copy kept the full vine's; nothing reads it)
            structure = self.vine_.structure
            structure.truncate(level)
            self._truncated[level] = pv.Vinecop.from_structure(
                structure=structure, pair_copulas=self.vine_.pair_copulas[:level], var_types=self.vine_.var_types)
        return self._truncated[level]

    def _sample_unit(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        """Uniforms come from numpy so that the result does not depend on the thread count. A Gaussian vine
        maps them through its normal-score matrix (same numbers as pyvinecopulib's to ~1e-13), in a fixed order
        of operations rather than BLAS, so that a release is the same bytes on every CPU, in ``threads`` blocks of
        rows; other families through pyvinecopulib's inverse Rosenblatt transform, in one thread."""
        vine = self.vine_at(level)
        w = rng.random((n, vine.dim))
        key = None if level is None or level >= self.fitted_level_ else int(level)
        if key not in self._linear:
            self._linear[key] = normal_score_map(vine)
        linear = self._linear[key]
        if linear is not None:
            u_vine = by_row_blocks(lambda part: ndtr(exact_product(ndtri(np.maximum(part, np.finfo(float).tiny)),
                                                                   linear.T)), w, self.threads)
        else:
            # one thread: pyvinecopulib's inverse of a batch depends in its last bits on how the batch is cut (in
            # threads or blocks of rows: tested), and a release must be the same bytes at any thread count
            u_vine = vine.inverse_rosenblatt(np.asfortranarray(w), num_threads=1)
        u = np.empty_like(u_vine)
        u[:, self.column_order_] = u_vine
        return u

    def _sample_values(self, n: int, level: int | None, rng: np.random.Generator) -> np.ndarray:
        return self.margins_.from_unit(self._sample_unit(n, level, rng))

    def _fit_vine_on(self, upper: np.ndarray, lower: np.ndarray, column_order: list[int],
                     make_vine) -> None:
        """Arrange pseudo-observations in vine order and fit with ``make_vine(data, var_types)``, or refit the
        parameters of ``fixed_vine`` (same structure and families) when one is given."""
        discrete = [self.encoder_.discrete[j] for j in column_order]
        var_types = ["d" if is_d else "c" for is_d in discrete]
        data = unit_data(upper[:, column_order], lower[:, column_order], discrete)
        vine = make_vine(data, var_types) if self.fixed_vine is None else self._fit_fixed(data)
        self._set_vine(vine, column_order, var_types)

    def _state(self) -> dict:
        return {"vine": self.vine_.to_json(), "column_order": self.column_order_, "var_types": self.var_types_}

    def _load_state(self, state: dict) -> None:
        self._set_vine(pv.Vinecop.from_json(state["vine"]), state["column_order"], state["var_types"])
