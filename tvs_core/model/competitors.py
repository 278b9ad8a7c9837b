"""The paper's competitors (Section 3.1, Figure 2, Appendix J) behind the same fit/sample interface.

CTGAN and TVAE come from the maintained ``ctgan`` package (an optional extra: torch), imported
only when one of them is fitted. PrivBayes (Zhang et al. 2017) is written here: no maintained
implementation installs with our pins. Like every generator they model the encoded columns, so
the evaluation games can refit them on subsets exactly as they refit the holder.
"""

from __future__ import annotations

import math
from importlib import import_module

import numpy as np
import pandas as pd
from joblib import parallel_config

from ..errors import DataError
from .generator import SyntheticGenerator

EXTRA_FIX = "Install the competitors' extra: pip install -r requirements-competitors.txt."

# Appendix J, SUPPORT2 (Section 3.1); "quick" is our epoch budget for interactive sweeps (the label says so)
EPOCH_BUDGETS: dict[str, dict[str, dict]] = {
    "ctgan": {"paper": {"epochs": 400, "batch_size": 100}, "quick": {"epochs": 20, "batch_size": 100}},
    "tvae": {"paper": {"epochs": 800, "batch_size": 100, "embedding_dim": 4},
             "quick": {"epochs": 40, "batch_size": 100, "embedding_dim": 4}},
}


# What one fit costs, for the estimate shown before Start (not a promise). bench/competitor_costs.py fits CTGAN and
# TVAE at two epoch budgets on both demos, one fit at a time, and splits each fit into a fixed part (the ctgan
# package's per-column Gaussian mixtures) and a part per epoch, both per size unit = (rows / 1000) x (columns / 10);
# the fixed parts are the medians over the demos (2-core AMD EPYC, 2026-11-21). The part per epoch is what the
# paper-epoch fits took inside sweeps (two tasks at once), the geometric mean over three tables: clinical (CTGAN
# 115 s, TVAE 62 s; bench/competitors.md), breast cancer (64 s, 46 s) and the 884 x 27 table of bench/tables.py
# (197 s, 126 s, the median of 3 sweeps in bench/sweep.md, 2026-11-26). The size unit misses the width the ctgan
# package encodes a table to (the 884 x 27 table's costs twice the demos' per unit), so one fit may be off by up to
# 1.6x either way; the sweep's estimate stays within 1.5x of the measured sweeps. A first table scaled one 20-epoch
# fit linearly in epochs and overstated a 400-epoch fit eightfold.
FIXED_SECONDS_PER_SIZE = {"ctgan": 4.49, "tvae": 1.94}
SECONDS_PER_EPOCH_PER_SIZE = {"ctgan": 0.147, "tvae": 0.0473}
PRIVBAYES_SECONDS_PER_1000_ROWS = 0.5
# MST (model/mst.py): its 5000 mirror-descent steps do not grow with the rows. Measured 2026-11, same machine, the
# clinical demo's 21 columns at ε = 2.5: 3.7-4.1 s per fit on 1000 rows, 4.4-4.8 s on 10 000 rows.
MST_SECONDS_PER_FIT, MST_SECONDS_PER_1000_ROWS = 3.8, 0.08
# PrivPGD (model/privpgd.py): the projection step and the 1000 epochs of particle gradient descent both run once per
# two-way marginal and not per row, so a fit costs a constant per marginal, K = d(d - 1)/2. Measured 2026-11-25 after
# the fit was made several times cheaper (bench/competitor_costs.md, "PrivPGD"; same 2-core machine, shared,
# load average 5): CPU seconds of one fit at the defaults, one torch thread, per marginal, the median over the demos
# (clinical 0.385, breast cancer 0.383). It was 3.4 s a marginal before (709.5 s wall for the clinical demo's 210).
PRIVPGD_SECONDS_PER_MARGINAL = 0.384


def fit_cost(generator: str, epochs: int | None, n_rows: int, n_columns: int) -> float | None:
    """Expected seconds of one fit of a competitor on ``n_rows`` x ``n_columns`` inside a sweep (None: not a
    competitor)."""
    if generator in SECONDS_PER_EPOCH_PER_SIZE:
        size = n_rows / 1000 * n_columns / 10
        per_fit = FIXED_SECONDS_PER_SIZE[generator] + SECONDS_PER_EPOCH_PER_SIZE[generator] * int(epochs or 0)
        return size * per_fit
    if generator == "privbayes":
        return PRIVBAYES_SECONDS_PER_1000_ROWS * n_rows / 1000
    if generator == "mst":
        return MST_SECONDS_PER_FIT + MST_SECONDS_PER_1000_ROWS * n_rows / 1000
    if generator == "privpgd":
        return PRIVPGD_SECONDS_PER_MARGINAL * n_columns * (n_columns - 1) / 2
    return None


class _NotSaved:
    """Competitors are evaluated, not released from: saving one is refused with a way forward."""

    can_be_saved = False

    def to_json(self) -> str:
        raise DataError(f"A fitted {self.name} model cannot be saved in the model file format.",
                        fix="Save a synthetic sample of it instead, through the safe writer: "
                            "tvs_core.release.export.write_csv(model.sample(n), 'sample.csv') (formula cells "
                            "neutralised, never over an input).")


class _CtganFamily(_NotSaved, SyntheticGenerator):
    """Shared by CTGAN and TVAE: the encoded table with its discrete columns marked, torch seeded
    from the master seed, one torch thread per worker (the engine parallelises across tasks)."""

    synthesizer = ""

    def __init__(self, epochs: int = 300, batch_size: int = 500, **kwargs):
        super().__init__(**kwargs)
        self.epochs = epochs
        self.batch_size = batch_size

    def _options(self) -> dict:
        return {"epochs": int(self.epochs), "batch_size": int(self.batch_size)}

    def _check_settings(self) -> None:
        super()._check_settings()
        self._require_counts(*self._options())

    def _fit_values(self, values: np.ndarray) -> None:
        try:
            torch = import_module("torch")
            synthesizer = getattr(import_module("ctgan"), self.synthesizer)
        except ImportError:
            raise DataError(f"{self.synthesizer} needs the 'ctgan' package, which is not installed.",
                            fix=EXTRA_FIX) from None
        torch.set_num_threads(max(1, int(self.threads)))
        names = list(self.encoder_.names)
        frame = pd.DataFrame(values, columns=names)
        discrete = [c for c, d in zip(names, self.encoder_.discrete, strict=True) if d]
        # a batch larger than the rows would train on nothing; CTGAN needs it a multiple of its pac (10)
        batch = max(10, min(int(self.batch_size), len(values)) // 10 * 10)
        model = synthesizer(**{**self._options(), "batch_size": batch}, enable_gpu=False)
        model.set_random_state(int(self.seed) % 2**31)
        # ctgan transforms the columns of 500+ rows with Parallel(n_jobs=-1): inside a sweep's worker process that
        # means threads, and every column's transform sets and reads numpy's global random state (rdt), so the
        # threads raced and the same seed gave different fits (the clinical demo; 455-row breast cancer was not
        # affected). One column after the other, as in the package's own path for small tables: the same fit.
        with parallel_config(backend="sequential"):
            model.fit(frame, discrete_columns=discrete)
        self.model_ = model

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        self.model_.set_random_state(int(rng.integers(2**31)))
        with parallel_config(backend="sequential"):
            sample = self.model_.sample(n)
        return sample[list(self.encoder_.names)].to_numpy(dtype=float)


class CTGAN(_CtganFamily):
    """Conditional tabular GAN (Xu et al. 2019); defaults = Appendix J's SUPPORT2 settings."""

    name = "ctgan"
    synthesizer = "CTGAN"

    def __init__(self, epochs: int = 400, batch_size: int = 100, **kwargs):
        super().__init__(epochs=epochs, batch_size=batch_size, **kwargs)


class TVAE(_CtganFamily):
    """Tabular VAE (Xu et al. 2019); defaults = Appendix J's SUPPORT2 settings (latent dimension 4)."""

    name = "tvae"
    synthesizer = "TVAE"

    def __init__(self, epochs: int = 800, batch_size: int = 100, embedding_dim: int = 4, **kwargs):
        super().__init__(epochs=epochs, batch_size=batch_size, **kwargs)
        self.embedding_dim = embedding_dim

    def _options(self) -> dict:
        return {**super()._options(), "embedding_dim": int(self.embedding_dim)}


def mutual_information_sensitivity(n: int) -> float:
    """Zhang et al. (2017), Lemma 4.1: sensitivity of I(X; Π) (in bits) when one of n rows changes."""
    if n < 2:
        return 1.0
    return 2 / n * math.log2((n + 1) / 2) + (n - 1) / n * math.log2((n + 1) / (n - 1))


def mutual_information(joint: np.ndarray) -> float:
    """I(X; Π) in bits from a table of counts."""
    p = joint / joint.sum()
    px, pp = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log2(p[nz] / (px @ pp)[nz])).sum())


def discretise(values: np.ndarray, discrete, bins: int) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """Column by column: discrete codes with at most ``bins`` labels keep them; others get ``bins``
    equal-width bins. Returns the cell of every value and, per column, ``("codes", labels)`` or
    ``("bins", edges)``. Shared by the marginal-based competitors (PrivBayes, MST, PrivPGD) so they see one grid."""
    grids: list[tuple[str, np.ndarray]] = []
    cells = np.empty(values.shape, dtype=int)
    for j, is_discrete in enumerate(discrete):
        column = values[:, j]
        labels = np.unique(column)
        if is_discrete and len(labels) <= bins:
            grids.append(("codes", labels))
            cells[:, j] = np.searchsorted(labels, column)
        else:
            edges = np.linspace(column.min(), column.max(), int(bins) + 1)
            grids.append(("bins", edges))
            cells[:, j] = np.clip(np.searchsorted(edges, column, side="right") - 1, 0, int(bins) - 1)
    return cells, grids


def grid_sizes(grids: list[tuple[str, np.ndarray]]) -> list[int]:
    """The number of cells of each column of a ``discretise`` grid."""
    return [len(grid) if kind == "codes" else len(grid) - 1 for kind, grid in grids]


def cell_values(cells: np.ndarray, grids: list[tuple[str, np.ndarray]], discrete,
                rng: np.random.Generator, centres: bool = False) -> np.ndarray:
    """Values back from cells: a label as itself, a bin as a uniform draw inside it, or its centre with
    ``centres`` (PrivPGD's reference maps a bin back to its centre); a binned discrete column is rounded, so a
    count stays a whole number."""
    n, d = cells.shape
    out = np.empty((n, d))
    for j, (kind, grid) in enumerate(grids):
        if kind == "codes":
            out[:, j] = grid[cells[:, j]]
        else:
            low, high = grid[cells[:, j]], grid[cells[:, j] + 1]
            out[:, j] = (low + high) / 2 if centres else low + rng.random(n) * (high - low)
            if discrete[j]:
                out[:, j] = np.round(out[:, j])
    return out


class PrivBayes(_NotSaved, SyntheticGenerator):
    """PrivBayes (Zhang et al. 2017) with degree-``degree`` network, as the paper runs it (Appendix J:
    25 bins, degree 1, ε ∈ {0.1, 1, 5}).

    Budget: ε1 = β·ε chooses the network greedily, each of the d − 1 choices by the exponential
    mechanism on mutual information (ε1 / (d − 1) each, sensitivity of Lemma 4.1); ε2 = (1 − β)·ε
    releases the d − 1 joint tables Pr[X_i, Π_i] with Laplace noise of scale 2(d − 1)/ε2 on counts
    (= 2(d − 1)/(n ε2) on frequencies, Zhang et al. Section 4.2). Sequential composition: ε-DP.
    Deviations (as DataSynthesizer, the code Stadler et al. patched): bin edges and the labels of
    discrete columns come from the data, not from a public domain; values are drawn uniformly inside
    their bin. Only degree 1 is implemented (the paper's setting)."""

    name = "privbayes"

    def __init__(self, epsilon: float = 1.0, bins: int = 25, degree: int = 1, beta: float = 0.3, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon
        self.bins = bins
        self.degree = degree
        self.beta = beta

    def _discretise(self, values: np.ndarray) -> np.ndarray:
        """The cells of ``values``; remembers each column's labels or bin edges in ``cells_``."""
        cells, self.cells_ = discretise(values, self.encoder_.discrete, int(self.bins))
        return cells

    def _check_settings(self) -> None:
        super()._check_settings()
        if self.degree != 1:
            raise DataError(f"PrivBayes is implemented for degree 1 (the paper's setting), not {self.degree}.",
                            fix="Use degree=1.")
        if not 0 < self.beta < 1:
            raise DataError(f"PrivBayes needs 0 < β < 1 (got β={self.beta}).", fix="Leave β at 0.3.")
        self._require_counts("bins")

    def _fit_values(self, values: np.ndarray) -> None:
        rng = np.random.default_rng(np.random.SeedSequence([int(self.seed), 2017]))
        cells = self._discretise(values)
        n, d = cells.shape
        sizes = grid_sizes(self.cells_)
        self.epsilon1_, self.epsilon2_ = self.beta * self.epsilon, (1 - self.beta) * self.epsilon
        steps = max(d - 1, 1)
        self.step_epsilon_ = self.epsilon1_ / steps
        self.sensitivity_ = mutual_information_sensitivity(n)
        self.laplace_scale_ = 2 * steps / self.epsilon2_  # on counts

        def counts(child: int, parent: int) -> np.ndarray:
            table = np.zeros((sizes[child], sizes[parent]))
            np.add.at(table, (cells[:, child], cells[:, parent]), 1)
            return table

        first = int(rng.integers(d))
        chosen, self.parents_ = [first], {first: None}
        while len(chosen) < d:
            pairs = [(x, p) for x in range(d) if x not in self.parents_ for p in chosen]
            scores = np.array([mutual_information(counts(x, p)) for x, p in pairs])
            logits = self.step_epsilon_ * scores / (2 * self.sensitivity_)
            weights = np.exp(logits - logits.max())
            x, p = pairs[int(rng.choice(len(pairs), p=weights / weights.sum()))]
            chosen.append(x)
            self.parents_[x] = p
        self.order_ = chosen
        self.joints_ = {}
        for x in chosen[1:]:
            exact = counts(x, self.parents_[x])
            self.joints_[x] = np.clip(exact + rng.laplace(0.0, self.laplace_scale_, exact.shape), 0, None)
        if d == 1:
            noisy = np.bincount(cells[:, 0], minlength=sizes[0]) + rng.laplace(0.0, self.laplace_scale_, sizes[0])
            self.root_ = _normalised(np.clip(noisy, 0, None))
        else:  # the root's distribution is a margin of the first released joint table (no extra budget)
            second = chosen[1]
            self.root_ = _normalised(self.joints_[second].sum(axis=0))

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        d = len(self.cells_)
        cells = np.empty((n, d), dtype=int)
        cells[:, self.order_[0]] = rng.choice(len(self.root_), size=n, p=self.root_)
        for x in self.order_[1:]:
            joint = self.joints_[x]
            conditional = np.apply_along_axis(_normalised, 0, joint)  # column k: Pr[X | Π = k]
            cumulative = np.cumsum(conditional[:, cells[:, self.parents_[x]]], axis=0)
            u = rng.random(n)
            cells[:, x] = np.minimum((cumulative < u).sum(axis=0), joint.shape[0] - 1)
        return cell_values(cells, self.cells_, self.encoder_.discrete, rng)


def _normalised(weights: np.ndarray) -> np.ndarray:
    """A distribution from noisy non-negative weights; all-zero (noise ate everything) → uniform."""
    total = weights.sum()
    return weights / total if total > 0 else np.full(len(weights), 1 / len(weights))
