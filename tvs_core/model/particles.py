"""PrivPGD's generation step (Donhauser, Abad, Hulkund & Yang, ICML 2024) in torch and numpy: noisy two-way
marginals in, particles out. The mechanism and the generator are in ``privpgd.py``; this module is the
optimisation's steps 1-3 and the sorting both steps share, ``particle_descent.py`` its step 4.

Followed: jaabmar/private-pgd ``src/inference/privpgd/inference.py`` (``AdvancedSlicedInference``, commits
8f7ff7c and bf5bb0e, identical in what is used here) and ``src/inference/embedding.py`` (commit b726780):

1. Embedding: a column of k cells is one coordinate in [0, 1], cell i at the centre (i + 1/2) / k; a two-way
   marginal lives on the k_a × k_b grid of centres (row-major, as the counts are flattened).
2. Projection step (``projection_step`` / ``optimize_u``): each noisy marginal divided by n (a signed measure)
   is replaced by the probability vector u = softmax(θ) on its grid minimising the sliced 1-Wasserstein
   distance to it (random directions, the grid shifted by −1/2, W1 by Vallender's identity: Σ gap·|F_u − F_v|);
   θ starts at log(max(y/n, 0)/Σ + 1e-9); Adam, lr 0.1, StepLR(step, γ) per iteration.
3. Deterministic quantisation (``repeat_rows``): each grid centre repeated ⌊u·N⌋ times, the remaining rows drawn
   from u, so every marginal becomes a point cloud of N points.
4. Particle gradient descent (``particle_descent.particle_gradient_descent``): N particles uniform in [0, 1]^d;
   every epoch the marginals in random order, in batches; for each marginal the sliced 2-Wasserstein gradient of its two
   coordinates (sorted projections of particles and target on random directions: 2·(x_sorted − y_sorted)·θ,
   back in particle order, mean over directions, × 100, as the reference), summed over the batch; a share
   ``p_mask`` % of the gradient's entries set to zero at random; one SparseAdam step; particles clipped to
   [0, 1]; StepLR per epoch.

Deviations (same objective, same steps; none changes what the method computes in expectation):
- In the projection step one set of directions per iteration is shared by the marginals of one grid shape,
  so their sliced distances are computed in one batched operation (the reference draws directions per
  marginal; each marginal still sees fresh random directions every iteration). Their losses are summed:
  Adam is elementwise and each θ only enters its own marginal's loss, so this is the same as one optimiser
  per marginal. Its gradient is written out (``w1_gradient``), up to a constant per marginal that the softmax
  removes; the groups' θ are stepped by one torch Adam in its fused form (the same update in one kernel; the
  last bit of a value may round otherwise).
- A batch's marginals are computed in one batched operation (the reference loops over them, at the same
  particles). The mask is drawn only over the batch's columns, with the distribution the reference's draw over
  all N·d entries has there (a hypergeometric number hidden, which ones uniform): elsewhere the gradient is zero
  and SparseAdam leaves those entries alone whatever the mask. SparseAdam's update is applied to the kept
  entries directly (``masked_adam_step``, the same arithmetic, checked against torch's in the tests) instead of
  building and coalescing a sparse tensor. An epoch's directions are drawn at once. A target's sorted
  projections are its distinct centres' sorted projections repeated by their counts (the reference sorts all N
  repeated points: the same numbers).
- Every random draw comes from the fit's seed: one seeded ``torch.Generator`` for the projection step and the
  quantisation, and a numpy generator seeded from it for the particle gradient descent (the reference: the
  global torch and Python ``random`` states). Ties in sorts are broken stably (``stable_order``: the permutation
  of a stable sort), so a seed gives the same particles.

Speed (bench/competitors.md, "PrivPGD's fit, faster"): the projection step's work laid out with the
sorted axis last and contiguous, in parts that stay in a core's cache, into reused arrays, every group's θ stepped
by one fused Adam; sorts by one integer sort of (value, index) keys (``sort_keys``).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

# float32 values one pass of the projection step works on at once: the working set stays in a core's L2 cache (on
# the 2-core AMD EPYC, 512 KB each, the whole group at once was 3-8x slower per iteration under load)
_CACHE_VALUES = 2**19


def _torch():
    import torch

    return torch


def grid_centres(shape: tuple[int, ...]):
    """The embedded centres of a marginal's cells, row-major (the order of the flattened counts)."""
    torch = _torch()
    axes = [(torch.arange(k, dtype=torch.float32) + 0.5) / k for k in shape]
    mesh = torch.meshgrid(*axes, indexing="ij")
    return torch.stack([m.reshape(-1) for m in mesh], dim=1)


def _directions(count: int, dim: int, generator):
    torch = _torch()
    theta = torch.randn(count, dim, generator=generator)
    return theta / (theta.norm(dim=1, keepdim=True) + 1e-9)


def project_marginals(targets: list[np.ndarray], shapes: list[tuple[int, int]], generator, iterations: int,
                      projections: int, lr: float = 0.1, step: int = 100, gamma: float = 0.8) -> list[np.ndarray]:
    """The reference's projection step: probability vectors on each marginal's grid closest in sliced W1 to
    ``targets`` (noisy counts / n, one flat vector per marginal). Returns them in the order given. The marginals of
    one grid shape form a group (one θ tensor); one Adam (fused: one kernel) steps every group's θ."""
    torch = _torch()
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, shape in enumerate(shapes):
        groups[tuple(shape)].append(index)
    parts = [_Group(shape, [targets[i] for i in members], projections) for shape, members in groups.items()]
    optimiser = torch.optim.Adam([g.theta for g in parts], lr=lr, fused=True)  # 2.5x faster than unfused here
    scheduler = torch.optim.lr_scheduler.StepLR(optimiser, step_size=step, gamma=gamma)
    size = max(g.rows * projections * g.cells for g in parts)
    buffers = (torch.empty(size), torch.empty(size))  # reused: fresh arrays of this size came from mmap
    for _ in range(int(iterations)):
        for group in parts:
            group.gradient(_directions(projections, 2, generator), buffers)
        optimiser.step()
        scheduler.step()
    out: list[np.ndarray] = [np.empty(0)] * len(targets)
    for group, members in zip(parts, groups.values(), strict=True):
        probabilities = torch.softmax(group.theta.detach(), dim=1).double().numpy()
        for row, index in enumerate(members):
            out[index] = probabilities[row]
    return out


class _Group:
    """The marginals of one grid shape in the projection step: their targets v, θ (u = softmax θ) and its
    gradient, computed in parts of ``rows`` marginals whose work stays in a core's cache."""

    def __init__(self, shape: tuple[int, int], targets: list[np.ndarray], projections: int):
        torch = _torch()
        self.centres_t = (grid_centres(shape) - 0.5).T.contiguous()
        self.v = torch.tensor(np.stack(targets), dtype=torch.float32)
        count, self.cells = self.v.shape
        start = self.v.clamp(min=0)
        total = start.sum(dim=1, keepdim=True)
        # the reference divides by the sum as it is; a marginal whose noisy cells are all negative starts uniform
        start = torch.where(total > 0, start / total.clamp(min=1e-30), torch.full_like(start, 1 / self.cells))
        self.theta = torch.log(start + 1e-9).requires_grad_(True)
        self.theta.grad = torch.empty_like(self.theta)
        self.rows = min(count, max(1, _CACHE_VALUES // (projections * self.cells)))

    def gradient(self, directions, buffers) -> None:
        """θ's gradient for one set of ``directions``, into ``theta.grad``."""
        torch = _torch()
        sorting = projected_order(directions @ self.centres_t)
        u = torch.softmax(self.theta.detach(), dim=1)
        shape = (self.rows, len(directions), self.cells)
        views = tuple(b[:self.rows * len(directions) * self.cells].view(shape) for b in buffers)
        for first in range(0, len(u), self.rows):
            part = slice(first, first + self.rows)
            self.theta.grad[part] = w1_gradient(u[part], self.v[part], sorting, views)


def projected_order(projected):
    """For the grid's cells projected on each direction (directions, cells): the cells in projected order (flat,
    direction after direction), each cell's position in that order (flat, offset by its direction's start) and
    the gaps between consecutive projected cells (directions, cells − 1). The order is torch.sort's with
    ``stable=True``, by ``sort_keys``."""
    torch = _torch()
    projections, cells = projected.shape
    keys = sort_keys(projected.numpy(), np.arange(cells, dtype=np.int64))
    offsets = (np.arange(projections) * cells)[:, None]
    order = (keys & 0xFFFFFFFF) + offsets  # flat
    position = np.empty(projections * cells, dtype=np.int64)
    position[order.reshape(-1)] = np.arange(projections * cells)
    return (torch.from_numpy((order - offsets).reshape(-1)), torch.from_numpy(position),
            torch.from_numpy(np.diff(key_values(keys), axis=1)))


def w1_gradient(u, v, sorting, buffers):
    """∂/∂θ of the mean over directions of W1(softmax θ = u, v), for marginals (rows) on one grid; ``sorting``:
    ``projected_order`` of the directions; ``buffers``: two tensors of at least (rows, directions, cells) reused
    between calls (fresh ones of this size came from mmap: page faults).

    Written out (what autograd gives for the reference's loss, |·|' = sign, 0 at 0): for one direction,
    W1 = Σ_i gap_i·|c_i| with c the cumulative sum of u − v in projected order, so ∂W1/∂(u − v)_j is the sum of
    gap_i·sign(c_i) over the positions i at or after j's; then through the softmax, which ignores a constant added
    to every cell, so that sum is taken as minus the sum over the positions before j's. Laid out (marginals,
    directions, cells), both cumulative sums run on the contiguous last axis."""
    torch = _torch()
    order, position, gaps = sorting
    count, projections = len(u), gaps.shape[0]
    first, second = (b[:count] for b in buffers)
    torch.index_select(u - v, 1, order, out=first.view(count, -1))  # u − v in projected order
    torch.cumsum(first, dim=2, out=second)
    torch.sign(second, out=second)
    first[:, :, 0] = 0  # the sum before the first position
    torch.mul(second[:, :, :-1], gaps, out=first[:, :, 1:])  # slope i, shifted one position on
    torch.cumsum(first, dim=2, out=second)  # Σ over the positions before each position
    torch.index_select(second.view(count, -1), 1, position, out=first.view(count, -1))  # back to cell order
    by_cell = first.sum(dim=1)
    by_cell *= -1 / projections  # minus, and the mean over directions
    return u * (by_cell - (by_cell * u).sum(dim=1, keepdim=True))


def quantised_counts(probabilities: np.ndarray, particles: int, generator) -> np.ndarray:
    """How often each grid centre is repeated (the reference's ``repeat_rows``): ⌊u·N⌋, the remaining rows
    drawn from u with replacement."""
    torch = _torch()
    weights = torch.tensor(probabilities, dtype=torch.float32)
    counts = (weights / weights.sum() * particles).int()
    left = particles - int(counts.sum())
    if left > 0:
        extra = torch.multinomial(weights, left, replacement=True, generator=generator)
        counts += torch.bincount(extra, minlength=counts.numel()).int()
    return counts.numpy().astype(np.int64)


def sort_keys(values: np.ndarray, low: np.ndarray, keys: np.ndarray | None = None,
              spare: np.ndarray | None = None) -> np.ndarray:
    """Sorts float32 ``values`` along the last axis carrying ``low`` (integers below 2³², e.g. an index) with them,
    as int64 keys: the value's bits above ``low``, negative values' bits flipped so that integer order is float
    order. Equal values keep the order of their ``low``. ``values`` is changed in place where it holds −0.0 (to
    +0.0, which compares equal); ``keys`` (int64) and ``spare`` (int32) of its shape: arrays to reuse. Returns the
    sorted keys."""
    keys = np.empty(values.shape, np.int64) if keys is None else keys
    spare = np.empty(values.shape, np.int32) if spare is None else spare
    np.add(values, np.float32(0), out=values)  # −0.0 + 0.0 = +0.0; every other value unchanged
    bits = values.view(np.int32)
    np.right_shift(bits, 31, out=spare)
    np.bitwise_and(spare, 0x7FFFFFFF, out=spare)
    np.bitwise_xor(bits, spare, out=spare)
    np.left_shift(spare, 32, out=keys, dtype=np.int64)
    np.bitwise_or(keys, low, out=keys)
    keys.sort(axis=-1)
    return keys


def key_values(keys: np.ndarray) -> np.ndarray:
    """The float32 values of ``sort_keys``'s keys."""
    bits = (keys >> 32).astype(np.int32)
    bits ^= (bits >> 31) & 0x7FFFFFFF
    return bits.view(np.float32)


def stable_order(values: np.ndarray, keys: np.ndarray | None = None, spare: np.ndarray | None = None) -> np.ndarray:
    """The permutation sorting float32 ``values`` along the last axis, ties in index order (torch.sort's with
    ``stable=True``): one sort of int64 keys (``sort_keys`` with the index), several times faster than an argsort.
    The permutation is written into ``keys`` if given."""
    keys = sort_keys(values, np.arange(values.shape[-1], dtype=np.int64), keys, spare)
    return np.bitwise_and(keys, 0xFFFFFFFF, out=keys)


def particle_cells(positions: np.ndarray, sizes: list[int]) -> np.ndarray:
    """Each particle's cell per column: the nearest centre (i + 1/2)/k, i.e. ⌊x·k⌋ (the reference's
    ``discretize``)."""
    sizes_ = np.asarray(sizes)
    return np.minimum(np.floor(positions * sizes_).astype(int), sizes_ - 1)

