"""MST (McKenna, Miklau & Sheldon 2021, "Winning the NIST Contest: A scalable and general approach to
differentially private synthetic data"): the maintained DP marginal method closest to the paper's PrivPGD
(not on PyPI), written here because no packaged MST installs with our pins (docs/reference/models.md,
"Competitors"). It stood in for PrivPGD before PrivPGD itself was written (``privpgd.py``) and stays an
option (``mst:EPS``).

Followed: ``mechanisms/mst.py`` (commit fb048d2) and ``mechanisms/cdp2adp.py`` of ryan112358/private-pgm for
the mechanism; the reference hands estimation and generation to Private-PGM (``mbi``), whose
``estimation.mirror_descent`` (mbi 1.1.0, the line search and first step) and ``synthetic_data(method="round")``
of the ``FactoredInference`` era (randomized rounding per parent value, shuffled) we follow on the tree.

1. ρ = ``cdp_rho(ε, δ)``: the smallest ρ whose zCDP gives (ε, δ)-DP by Canonne, Kamath & Steinke (2020);
   σ = sqrt(3 / (2ρ)).
2. The d one-way marginals, each with Gaussian noise σ·sqrt(d) (weights 1/sqrt(d), L2 sensitivity 1): ρ/3.
3. Domain compression: a column's cells whose noisy count is below 3 × its noise scale merge into one cell,
   measured as their sum scaled by 1/sqrt(merged cells) (query and answer alike).
4. Selection: an independent model fitted to the compressed one-way measurements (1000 iterations); each
   pair scored by the L1 distance between its true two-way counts and the model's (sensitivity 1); d − 1
   exponential mechanisms, each ε_EM = sqrt(8 (ρ/3) / (d − 1)) (ε_EM²/8-zCDP) with weights exp(ε_EM/2 · score),
   over the pairs that join two components (Kruskal): a maximum spanning tree, ρ/3.
5. The d − 1 selected two-way marginals on the compressed domain, each with noise σ·sqrt(d − 1): ρ/3.
6. Estimation: Private-PGM's objective Σ ‖Q μ_C − y‖² / (2σ_C²) over every measurement, minimised over the
   tree-structured model p(x) ∝ exp(Σ θ_i(x_i) + Σ θ_ij(x_i, x_j)) by mirror descent on θ (5000 iterations;
   step 2 / (L · total), ×1.01 after a step meeting the Armijo condition, ×0.5 and no step otherwise) with
   exact sum-product on the tree; total = the minimum-variance estimate from the measurements.
7. Generation, ancestral on the tree: the root, then each child per parent value, by randomized rounding of
   the model's (conditional) counts, shuffled; a merged cell becomes a uniform draw among its cells.

Deviations: the columns are cut into cells as PrivBayes does (``competitors.discretise``: the paper's 25 bins;
bin ranges and labels from the data, where the reference assumes a public discrete domain); the potentials
sit on the nodes and edges (mbi keeps them on the maximal cliques, folding a node's factor into an edge:
the same model and the same mirror-descent steps); ``sample(n)`` draws n rows (the reference: the
estimated total); generation starts at the first column (mbi: its elimination order; same distribution);
the binary searches of ``cdp_delta`` / ``cdp_rho`` stop once the interval stops shrinking (the reference's
1000 fixed steps end at the same number).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from .competitors import _NotSaved, cell_values, discretise, grid_sizes
from .generator import SyntheticGenerator

DELTA = 1e-5  # the paper's δ for PrivPGD, its DP marginal competitor (Section 3.1)
SELECTION_ITERATIONS = 1000  # the reference's iterations for the independent model that scores the pairs
LIPSCHITZ_STEPS = 50  # power iterations for the first step size (as mbi)


def cdp_delta(rho: float, epsilon: float) -> float:
    """δ such that ρ-zCDP implies (ε, δ)-DP (Canonne, Kamath & Steinke 2020, the reference's ``cdp_delta``)."""
    if rho < 0 or epsilon < 0:
        raise ValueError("ρ and ε must be non-negative")
    if rho == 0:
        return 0.0
    low, high = 1.01, (epsilon + 1) / (2 * rho) + 2  # any α > 1 bounds δ; the optimum is at least (1 + ε/ρ)/2
    alpha = (low + high) / 2
    for _ in range(1000):
        alpha = (low + high) / 2
        derivative = (2 * alpha - 1) * rho - epsilon + math.log1p(-1 / alpha)
        bounds = (alpha, high) if derivative < 0 else (low, alpha)
        if bounds == (low, high):
            break  # the interval no longer shrinks: the remaining steps would not move α
        low, high = bounds
    delta = math.exp((alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha)) / (alpha - 1)
    return min(delta, 1.0)


@lru_cache(maxsize=64)
def cdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ whose zCDP still implies (ε, δ)-DP (the reference's ``cdp_rho``): MST's whole budget."""
    if epsilon < 0 or delta <= 0:
        raise ValueError("ε must be non-negative and δ positive")
    if delta >= 1:
        return 0.0
    low, high = 0.0, epsilon + 1  # cdp_delta(low) <= δ < cdp_delta(high)
    for _ in range(1000):
        rho = (low + high) / 2
        bounds = (rho, high) if cdp_delta(rho, epsilon) <= delta else (low, rho)
        if bounds == (low, high):
            break
        low, high = bounds
    return low


def exponential_mechanism(scores: np.ndarray, epsilon: float, sensitivity: float, rng: np.random.Generator) -> int:
    """An index drawn with weights exp(ε · score / (2 · sensitivity)) (the reference's, not monotonic)."""
    logits = 0.5 * epsilon / sensitivity * np.asarray(scores, dtype=float)
    weights = np.exp(logits - logits.max())
    return int(rng.choice(len(weights), p=weights / weights.sum()))


@dataclass
class Measurement:
    """A noisy marginal: ``y`` ≈ Q · counts(clique) + N(0, sigma²) per cell (flattened, row-major)."""

    clique: tuple[int, ...]
    y: np.ndarray
    sigma: float
    query: np.ndarray | None = None  # diagonal of Q (a compressed one-way marginal); None: the identity


def marginal_counts(cells: np.ndarray, sizes: list[int], clique: tuple[int, ...]) -> np.ndarray:
    """The counts of a one- or two-way marginal, flattened row-major."""
    if len(clique) == 1:
        return np.bincount(cells[:, clique[0]], minlength=sizes[clique[0]]).astype(float)
    a, b = clique
    return np.bincount(cells[:, a] * sizes[b] + cells[:, b], minlength=sizes[a] * sizes[b]).astype(float)


def measure(cells: np.ndarray, sizes: list[int], cliques: list[tuple[int, ...]], sigma: float,
            rng: np.random.Generator) -> list[Measurement]:
    """Gaussian mechanism on ``cliques`` with equal weights of unit L2 norm: noise σ·sqrt(len(cliques)) each,
    ρ = 1 / (2σ²) for the lot (one row changes each marginal by 1 in one cell)."""
    scale = sigma * math.sqrt(len(cliques))
    return [Measurement(clique, x + rng.normal(0.0, scale, x.size), scale)
            for clique, x in ((c, marginal_counts(cells, sizes, c)) for c in cliques)]


def compress(one_way: list[Measurement]) -> tuple[list[np.ndarray], list[Measurement]]:
    """The reference's domain compression: per column the cells kept (noisy count ≥ 3σ) and the measurements
    re-expressed on the compressed domain (the merged cells' sum, query and answer scaled by 1/sqrt(merged))."""
    supports, compressed = [], []
    for m in one_way:
        keep = m.y >= 3 * m.sigma
        supports.append(keep)
        if keep.all():
            compressed.append(m)
            continue
        merged = int((~keep).sum())
        y = np.append(m.y[keep], m.y[~keep].sum() / math.sqrt(merged))
        query = np.ones(y.size)
        query[-1] = 1 / math.sqrt(merged)
        compressed.append(Measurement(m.clique, y, m.sigma, query))
    return supports, compressed


def compress_cells(cells: np.ndarray, supports: list[np.ndarray]) -> np.ndarray:
    """Cells on the compressed domain: kept cells renumbered in order, the merged ones as the last cell."""
    out = cells.copy()
    for j, keep in enumerate(supports):
        mapping = np.full(keep.size, int(keep.sum()))
        mapping[keep] = np.arange(int(keep.sum()))
        out[:, j] = mapping[cells[:, j]]
    return out


def expand_cells(cells: np.ndarray, supports: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """The original cells back; a merged cell becomes a uniform draw among the cells it merged."""
    out = cells.copy()
    for j, keep in enumerate(supports):
        kept, merged = np.flatnonzero(keep), np.flatnonzero(~keep)
        rare = cells[:, j] == kept.size
        out[~rare, j] = kept[cells[~rare, j]]
        if merged.size:
            out[rare, j] = rng.choice(merged, int(rare.sum()))
    return out


def estimate_total(measurements: list[Measurement]) -> float:
    """Private-PGM's minimum-variance estimate of the number of rows: each measurement's v·y with Qᵀv = 1
    (v = 1/diag Q), variance σ²·v·v, combined by inverse variance; at least 1."""
    estimates, variances = [], []
    for m in measurements:
        v = np.ones(m.y.size) if m.query is None else 1 / m.query
        estimates.append(float(v @ m.y))
        variances.append(m.sigma ** 2 * float(v @ v))
    if not estimates:
        return 1.0
    variances_ = np.array(variances)
    variance = 1 / np.sum(1 / variances_)
    return max(1.0, float(variance * np.sum(np.array(estimates) / variances_)))


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = a.max(axis=axis, keepdims=True)
    return np.squeeze(top, axis=axis) + np.log(np.exp(a - top).sum(axis=axis))


def rounded(weights: np.ndarray, total: int, rng: np.random.Generator) -> np.ndarray:
    """``total`` cell indices in proportion to ``weights`` by randomized rounding, shuffled (mbi's "round")."""
    counts = weights * (total / weights.sum())
    whole = np.floor(counts).astype(int)
    extra = total - int(whole.sum())
    if extra > 0:
        fraction = np.maximum(counts - whole, 1e-12)  # the floor keeps the draw possible despite float error
        whole[rng.choice(counts.size, extra, replace=False, p=fraction / fraction.sum())] += 1
    values = np.repeat(np.arange(counts.size), whole)
    rng.shuffle(values)
    return values


class TreeModel:
    """A pairwise model on a forest over columns of ``sizes`` cells: p(x) ∝ exp(Σ θ_i(x_i) + Σ θ_pc(x_p, x_c)).

    Every clique (node, edge oriented parent → child) owns a slice of one flat parameter vector, so the
    loss, its gradient and the mirror-descent step are single array operations; marginals come from
    exact sum-product (roots are the lowest column of each component, children in breadth-first order)."""

    def __init__(self, sizes: list[int], edges: list[tuple[int, int]]):
        self.sizes = [int(k) for k in sizes]
        d = len(self.sizes)
        neighbours: list[list[int]] = [[] for _ in range(d)]
        for a, b in edges:
            neighbours[a].append(b)
            neighbours[b].append(a)
        self.parent, self.order = [-1] * d, []
        seen = [False] * d
        for root in range(d):
            if seen[root]:
                continue
            seen[root], queue = True, deque([root])
            while queue:
                node = queue.popleft()
                self.order.append(node)
                for other in neighbours[node]:
                    if not seen[other]:
                        seen[other], self.parent[other] = True, node
                        queue.append(other)
        self.edges = [(self.parent[c], c) for c in self.order if self.parent[c] >= 0]  # breadth-first
        self.slices: dict[tuple[int, ...], slice] = {}
        start = 0
        for clique in [(i,) for i in range(d)] + self.edges:
            width = int(np.prod([self.sizes[j] for j in clique]))
            self.slices[clique] = slice(start, start + width)
            start += width
        self.width = start

    def marginals(self, theta: np.ndarray) -> np.ndarray:
        """Every clique's marginal probabilities (flat, like ``theta``) by sum-product in log space."""
        out = np.empty(self.width)
        up = [theta[self.slices[(i,)]].copy() for i in range(len(self.sizes))]  # θ_i + messages from below
        message: dict[int, np.ndarray] = {}
        for c in reversed(self.order):
            p = self.parent[c]
            if p >= 0:
                message[c] = _logsumexp(self._edge(theta, p, c) + up[c][None, :], axis=1)
                up[p] = up[p] + message[c]
        belief: dict[int, np.ndarray] = {}
        for c in self.order:
            p = self.parent[c]
            if p < 0:
                belief[c] = up[c]
            else:
                cavity = belief[p] - message[c]  # p's belief without what c told it
                edge = self._edge(theta, p, c)
                joint = edge + cavity[:, None] + up[c][None, :]
                joint = np.exp(joint - joint.max())
                out[self.slices[(p, c)]] = (joint / joint.sum()).ravel()
                belief[c] = up[c] + _logsumexp(edge + cavity[:, None], axis=0)
            node = np.exp(belief[c] - belief[c].max())
            out[self.slices[(c,)]] = node / node.sum()
        return out

    def _edge(self, vector: np.ndarray, p: int, c: int) -> np.ndarray:
        return vector[self.slices[(p, c)]].reshape(self.sizes[p], self.sizes[c])

    def objective(self, measurements: list[Measurement]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(y, diag Q, 1/σ) laid out like the parameters: each clique is measured exactly once."""
        y, query, weight = np.zeros(self.width), np.ones(self.width), np.zeros(self.width)
        for m in measurements:
            where = self.slices[m.clique]
            y[where], weight[where] = m.y, 1 / m.sigma
            if m.query is not None:
                query[where] = m.query
        if (weight == 0).any():
            raise ValueError("every clique of the model needs a measurement")
        return y, query, weight

    def lipschitz(self, query: np.ndarray, weight: np.ndarray) -> float:
        """mbi's L: the largest eigenvalue of the loss's Hessian over the maximal cliques (a node measured
        through the first edge holding it), by power iteration."""
        curvature = (query * weight) ** 2
        hosts = {i: next(((p, c) for p, c in self.edges if i in (p, c)), (i,)) for i in range(len(self.sizes))}
        cliques = list(dict.fromkeys([*self.edges, *hosts.values()]))
        vector = {cl: np.ones(self.sizes[cl[0]] * (self.sizes[cl[1]] if len(cl) == 2 else 1)) for cl in cliques}
        norm = math.sqrt(sum(v.size for v in vector.values()))
        vector = {cl: v / norm for cl, v in vector.items()}
        estimate = 0.0
        for _ in range(LIPSCHITZ_STEPS):
            product = {cl: np.zeros_like(v) for cl, v in vector.items()}
            for p, c in self.edges:
                product[(p, c)] += curvature[self.slices[(p, c)]] * vector[(p, c)]
            for i, host in hosts.items():
                own = curvature[self.slices[(i,)]]
                if len(host) == 1:
                    product[host] += own * vector[host]
                    continue
                table = vector[host].reshape(self.sizes[host[0]], self.sizes[host[1]])
                if i == host[0]:
                    product[host] += np.repeat(own * table.sum(axis=1), self.sizes[host[1]])
                else:
                    product[host] += np.tile(own * table.sum(axis=0), self.sizes[host[0]])
            estimate = math.sqrt(sum(float(v @ v) for v in product.values()))
            vector = {cl: v / (estimate + 1e-12) for cl, v in product.items()}
        return estimate

    def fit(self, measurements: list[Measurement], total: float, iterations: int) -> tuple[np.ndarray, float]:
        """Mirror descent on θ for Σ ‖Q μ − y‖² / (2σ²), μ = total × marginals(θ) (Private-PGM, mbi 1.1.0):
        the fitted marginal probabilities and the final loss."""
        y, query, weight = self.objective(measurements)

        def loss_and_gradient(mu: np.ndarray) -> tuple[float, np.ndarray]:
            residual = (query * mu - y) * weight
            return 0.5 * float(residual @ residual), query * weight * residual

        theta = np.zeros(self.width)
        probabilities = self.marginals(theta)
        mu = total * probabilities
        loss, gradient = loss_and_gradient(mu)
        alpha = 2.0 / (self.lipschitz(query, weight) * total)
        for _ in range(int(iterations)):
            candidate = theta - alpha * gradient
            probabilities2 = self.marginals(candidate)
            mu2 = total * probabilities2
            loss2, gradient2 = loss_and_gradient(mu2)
            if loss - loss2 >= 0.5 * alpha * float(gradient @ (mu - mu2)):
                theta, probabilities, mu, loss, gradient = candidate, probabilities2, mu2, loss2, gradient2
                alpha *= 1.01
            else:
                alpha *= 0.5
        return probabilities, loss

    def sample(self, probabilities: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` rows of cells, ancestrally: roots by their marginal, children per parent value."""
        cells = np.empty((n, len(self.sizes)), dtype=int)
        for c in self.order:
            p = self.parent[c]
            if p < 0:
                cells[:, c] = rounded(probabilities[self.slices[(c,)]], n, rng)
                continue
            joint = self._edge(probabilities, p, c)
            by_parent = np.argsort(cells[:, p], kind="stable")
            start = 0
            for value, count in enumerate(np.bincount(cells[:, p], minlength=self.sizes[p])):
                if count:
                    cells[by_parent[start:start + count], c] = rounded(joint[value], int(count), rng)
                start += count
        return cells


def select(cells: np.ndarray, sizes: list[int], one_way: list[Measurement], rho: float,
           rng: np.random.Generator) -> tuple[list[tuple[int, int]], float]:
    """The reference's selection with budget ``rho``: the tree's edges (in the order chosen) and ε_EM."""
    d = len(sizes)
    if d < 2:
        return [], 0.0
    independent = TreeModel(sizes, [])
    total = estimate_total(one_way)
    probabilities, _ = independent.fit(one_way, total, SELECTION_ITERATIONS)
    node = [probabilities[independent.slices[(i,)]] for i in range(d)]
    candidates = list(combinations(range(d), 2))
    scores = {(a, b): float(np.abs(marginal_counts(cells, sizes, (a, b)) - total * np.outer(node[a], node[b])
                                   .ravel()).sum()) for a, b in candidates}
    epsilon = math.sqrt(8 * rho / (d - 1))
    component = list(range(d))

    def root(i: int) -> int:
        while component[i] != i:
            component[i] = component[component[i]]
            i = component[i]
        return i

    edges = []
    for _ in range(d - 1):
        candidates = [e for e in candidates if root(e[0]) != root(e[1])]
        a, b = candidates[exponential_mechanism(np.array([scores[e] for e in candidates]), epsilon, 1.0, rng)]
        edges.append((a, b))
        component[root(a)] = root(b)
    return edges, epsilon


class MST(_NotSaved, SyntheticGenerator):
    """MST (McKenna et al. 2021) at (ε, δ)-DP, on the paper's 25-bin grid; see the module docstring for the
    steps, the reference followed and the deviations. Defaults: δ = 1e-5 (the paper's, for PrivPGD) and the
    reference's 5000 estimation iterations."""

    name = "mst"

    def __init__(self, epsilon: float = 1.0, delta: float = DELTA, bins: int = 25, iterations: int = 5000,
                 **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon
        self.delta = delta
        self.bins = bins
        self.iterations = iterations

    def _check_settings(self) -> None:
        super()._check_settings()
        self._require_counts("bins", "iterations")

    def _fit_values(self, values: np.ndarray) -> None:
        rng = np.random.default_rng(np.random.SeedSequence([int(self.seed), 2021]))
        cells, self.cells_ = discretise(values, self.encoder_.discrete, int(self.bins))
        d = cells.shape[1]
        self.rho_ = cdp_rho(float(self.epsilon), float(self.delta))
        self.sigma_ = math.sqrt(3 / (2 * self.rho_))
        one_way = measure(cells, grid_sizes(self.cells_), [(j,) for j in range(d)], self.sigma_, rng)
        self.one_way_ = one_way  # before compression: what the test of the noise reads
        self.supports_, compressed = compress(one_way)
        cells = compress_cells(cells, self.supports_)
        sizes = [m.y.size for m in compressed]
        self.edges_, self.selection_epsilon_ = select(cells, sizes, compressed, self.rho_ / 3, rng)
        self.tree_ = TreeModel(sizes, self.edges_)
        self.two_way_ = measure(cells, sizes, self.tree_.edges, self.sigma_, rng)
        self.total_ = estimate_total(compressed + self.two_way_)
        self.marginals_, self.loss_ = self.tree_.fit(compressed + self.two_way_, self.total_, int(self.iterations))

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        cells = expand_cells(self.tree_.sample(self.marginals_, n, rng), self.supports_, rng)
        return cell_values(cells, self.cells_, self.encoder_.discrete, rng)
