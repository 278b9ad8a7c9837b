"""PrivPGD (Donhauser, Abad, Hulkund & Yang, "Privacy-preserving data release leveraging optimal transport and
particle gradient descent", ICML 2024): the paper's DP marginal competitor (TVineSynth, Figure 2: ε = 2.5,
δ = 1e-5, "parameters kept to their default values", Appendix J). Not packaged (docs/reference/models.md,
"Competitors"), so written here from the authors' code, jaabmar/private-pgd:

- Mechanism, ``src/mechanisms/kway.py`` (commit 2e33cd7) with ``src/mechanisms/mechanism.py`` and
  ``mechanisms/privacy_calibrator.py`` (commit 676806d), as run by ``examples/privpgd.py`` (commit 8fc878d):
  the workload is every two-way marginal (``generate_all_kway_workload(degree=2)``), K = d(d − 1)/2 of them, and
  the whole budget goes to measuring them — no selection step, no one-way marginals. Bounded DP (one row
  replaced, ``bounded=True``): a marginal's L2 sensitivity is √2. σ = ``gaussian_mech(ε, δ)`` (autodp 0.2.3.1:
  the σ whose Gaussian RDP α/(2σ²) converts to (ε, δ) by ε = min_α RDP(α) + log(1/δ)/(α − 1)); each cell of
  each marginal gets N(0, (√2·σ·√K)²). The K measurements then compose to the RDP of one Gaussian mechanism of
  noise multiplier σ, hence (ε, δ)-DP. The number of rows n is public (bounded DP): the noisy counts are
  divided by the true n, as the reference passes ``total = data.records``.
- Discretisation, ``src/data/create_data.py`` / ``data/data_handler.py``: equal-width bins, 32 per column (the
  reference's data sets, ``default_32``), an integer column with fewer values keeps one cell per value, labels
  one cell each — here ``competitors.discretise`` with 32 bins; a cell maps back to its bin's centre, as the
  reference's ``DataHandler.backward`` does.
- Generation, ``src/inference/privpgd/inference.py``: see ``particles.py`` (projection step, quantisation,
  particle gradient descent on the sliced Wasserstein distance).

Deviations, each measured or forced by this machine (2 CPU cores, no GPU; the reference's defaults target a GPU):
- Bin ranges and labels come from the data (as PrivBayes and MST here and the reference's own data handler;
  the TVineSynth paper used public ranges for SUPPORT2, Appendix M), so, as there, the ranges are not private.
- ``particles``: 1 000 (the reference: 100 000). One fit sorts particles × 10 projections for each of the K
  marginals in each of the 1000 epochs: one such sort of 100 000 particles took 0.27 s here (2026-11, a loaded
  2-core machine), i.e. about 16 hours per fit on the clinical demo (K = 210). The quantised targets' resolution
  (1/N) stays below the mechanism's noise per cell in frequency (√2·σ·√K / n: 0.04 on the clinical demo, 0.14 on
  breast cancer). A release draws its rows from the particles (without replacement up to N): with n ≥ N rows, as
  the clinical demo's 1 000 training rows, every release is the whole particle set in another order, so metrics
  that ignore row order (the release MAB) do not vary over a fit's releases.
- ``projection_projections``: 10 directions per iteration of the projection step (the reference: 200), for the
  same reason (K marginals × 1750 iterations × directions × up to 32 × 32 cells); the iterations, learning rate
  and schedule are the reference's.
Every other setting is the reference's default: 1000 epochs, lr 0.1, StepLR(50, 0.75), 10 projections, batches of
5 marginals, 80 % of the gradient masked, projection step 1750 iterations with StepLR(100, 0.8).

How the optimisation is computed differs from the reference's code, not what it computes (``particles.py`` lists
each departure; a fit several times cheaper than a direct port): a batch's marginals in one batched operation (the
reference loops over them, at the same particles); the mask drawn over the batch's columns only, with the
distribution the reference's draw over all entries has there (elsewhere the gradient is zero); SparseAdam's update
applied to the kept entries directly; the projection step's directions shared by the marginals of one grid shape,
its gradient written out and its Adam fused; random draws from generators seeded by the fit's seed.
"""

from __future__ import annotations

import math
from importlib import import_module
from itertools import combinations

import numpy as np

from ..errors import DataError
from .competitors import EXTRA_FIX, _NotSaved, cell_values, discretise, grid_sizes
from .generator import SyntheticGenerator
from .mst import DELTA, Measurement, measure
from .particle_descent import particle_gradient_descent
from .particles import particle_cells, project_marginals, quantised_counts

EPSILON = 2.5  # the TVineSynth paper's (and the reference's default) budget for PrivPGD
BOUNDED_SENSITIVITY = math.sqrt(2)  # one row replaced moves one count down and another up
# the reference's settings (``AdvancedSlicedInference`` defaults, examples/privpgd.py), for the record and for a
# caller with the hours to run them: PrivPGD(**REFERENCE_SETTINGS). They are run as the module docstring's last
# paragraph says: the same steps, batched; the mask drawn over a batch's columns with the reference's distribution
# there; SparseAdam's update without a sparse tensor; the projection step's directions shared within a grid shape.
REFERENCE_SETTINGS = {"particles": 100_000, "iterations": 1000, "lr": 0.1, "step": 50, "gamma": 0.75,
                      "projections": 10, "batch": 5, "mask": 80, "projection_iterations": 1750,
                      "projection_projections": 200, "projection_step": 100, "projection_gamma": 0.8, "bins": 32}


def rdp_gaussian_sigma(epsilon: float, delta: float) -> float:
    """The noise multiplier σ the reference calibrates with autodp's ``gaussian_mech(ε, δ)``: Gaussian RDP
    α/(2σ²) converted by ε = min_α α/(2σ²) + log(1/δ)/(α − 1) = ρ + 2·sqrt(ρ·log(1/δ)), ρ = 1/(2σ²). autodp
    finds σ by root finding on that minimum; here in closed form, ρ = (sqrt(log(1/δ) + ε) − sqrt(log(1/δ)))²."""
    if not (epsilon > 0 and 0 < delta < 1):
        raise ValueError("ε must be positive and 0 < δ < 1")
    log_term = math.log(1 / delta)
    rho = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    return 1 / math.sqrt(2 * rho)


def measure_pairs(cells: np.ndarray, sizes: list[int], epsilon: float, delta: float,
                  rng: np.random.Generator) -> tuple[list[tuple[int, int]], float, list[Measurement]]:
    """The reference's KWay mechanism on every two-way marginal: (the pairs, σ, the measurements), each cell
    with noise √2·σ·√K (``mst.measure`` scales the noise by √K for K equally weighted marginals)."""
    pairs = list(combinations(range(cells.shape[1]), 2))
    sigma = rdp_gaussian_sigma(float(epsilon), float(delta))
    return pairs, sigma, measure(cells, sizes, pairs, BOUNDED_SENSITIVITY * sigma, rng)


class PrivPGD(_NotSaved, SyntheticGenerator):
    """PrivPGD at (ε, δ)-DP: every two-way marginal measured by the Gaussian mechanism, particles moved to match
    them in sliced Wasserstein distance. See the module docstring for the reference followed and the deviations
    (``particles`` and ``projection_projections``; ``REFERENCE_SETTINGS`` holds the reference's values)."""

    name = "privpgd"

    def __init__(self, epsilon: float = EPSILON, delta: float = DELTA, bins: int = 32, particles: int = 1000,
                 iterations: int = 1000, lr: float = 0.1, step: int = 50, gamma: float = 0.75, projections: int = 10,
                 batch: int = 5, mask: float = 80, projection_iterations: int = 1750,
                 projection_projections: int = 10, projection_step: int = 100, projection_gamma: float = 0.8,
                 **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon
        self.delta = delta
        self.bins = bins
        self.particles = particles
        self.iterations = iterations
        self.lr = lr
        self.step = step
        self.gamma = gamma
        self.projections = projections
        self.batch = batch
        self.mask = mask
        self.projection_iterations = projection_iterations
        self.projection_projections = projection_projections
        self.projection_step = projection_step
        self.projection_gamma = projection_gamma

    def _check_settings(self) -> None:
        super()._check_settings()
        self._require_counts("bins", "particles", "iterations", "projections", "projection_iterations",
                             "projection_projections", "step", "projection_step")
        if not 0 <= self.mask < 100 or int(self.batch) < 0:
            raise DataError(f"PrivPGD needs 0 ≤ mask < 100 and batch ≥ 0 (got mask={self.mask}, batch={self.batch}).",
                            fix="Leave 'mask' (80) and 'batch' (5) at their defaults.")

    def _fit_values(self, values: np.ndarray) -> None:
        try:
            torch = import_module("torch")
        except ImportError:
            raise DataError("PrivPGD needs the 'torch' package, which is not installed.", fix=EXTRA_FIX) from None
        previous = torch.get_num_threads()
        torch.set_num_threads(max(1, int(self.threads)))  # a sweep builds it with one: its tasks share the cores
        try:
            self._fit_cells(values, torch)
        finally:
            torch.set_num_threads(previous)  # a fit in the caller's process leaves its setting as it was

    def _fit_cells(self, values: np.ndarray, torch) -> None:
        rng = np.random.default_rng(np.random.SeedSequence([int(self.seed), 2024]))
        cells, self.cells_ = discretise(values, self.encoder_.discrete, int(self.bins))
        n, d = cells.shape
        if d < 2:
            raise DataError("PrivPGD measures two-way marginals and needs at least two modelled columns.",
                            fix="Add a covariate, or choose another generator.")
        sizes = grid_sizes(self.cells_)
        self.pairs_, self.sigma_, self.measurements_ = measure_pairs(cells, sizes, self.epsilon, self.delta, rng)
        generator = torch.Generator().manual_seed(int(rng.integers(2**63)))
        shapes = [(sizes[a], sizes[b]) for a, b in self.pairs_]
        self.targets_ = project_marginals([m.y / n for m in self.measurements_], shapes, generator,
                                          int(self.projection_iterations), int(self.projection_projections),
                                          step=int(self.projection_step), gamma=float(self.projection_gamma))
        counts = [quantised_counts(p, int(self.particles), generator) for p in self.targets_]
        positions = particle_gradient_descent(self.pairs_, shapes, counts, d, int(self.particles), generator,
                                              int(self.iterations), float(self.lr), int(self.step), float(self.gamma),
                                              int(self.projections), int(self.batch), float(self.mask))
        self.particles_ = particle_cells(positions, sizes)

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        """``n`` of the particles (without replacement while there are enough), each cell at its bin's centre."""
        pool = len(self.particles_)
        cells = self.particles_[rng.choice(pool, n, replace=n > pool)]
        return cell_values(cells, self.cells_, self.encoder_.discrete, rng, centres=True)
