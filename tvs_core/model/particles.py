"""PrivPGD's generation step (Donhauser, Abad, Hulkund & Yang, ICML 2024) in torch and numpy: noisy two-way
marginals in, particles out. The mechanism and the generator are in ``privpgd.py``; this module is only the
optimisation.

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
4. Particle gradient descent (``particle_gradient_descent``): N particles uniform in [0, 1]^d; every epoch the
   marginals in random order, in batches; for each marginal the sliced 2-Wasserstein gradient of its two
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
  removes.
- A batch's marginals are computed in one batched operation (the reference loops over them, at the same
  particles). The mask is drawn only over the batch's columns, with the distribution the reference's draw over
  all N·d entries has there (a hypergeometric number hidden, which ones uniform): elsewhere the gradient is zero
  and SparseAdam leaves those entries alone whatever the mask. SparseAdam's update is applied to the kept
  entries directly (``masked_adam_step``, the same arithmetic, checked against torch's in the tests) instead of
  building and coalescing a sparse tensor. An epoch's directions are drawn at once.
- Every random draw comes from the fit's seed: one seeded ``torch.Generator`` for the projection step and the
  quantisation, and a numpy generator seeded from it for the particle gradient descent (the reference: the
  global torch and Python ``random`` states). Ties in sorts are broken stably (``stable_order``: the permutation
  of a stable sort), so a seed gives the same particles.

Speed (issue 38; bench/competitors.md, "PrivPGD's fit, faster"): projections laid out with the sorted axis last
and contiguous, the particles stored column by column, the particles' order from one integer sort, work split so
that it stays in a core's cache, and the arrays of a step reused.
"""

from __future__ import annotations

import math
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


def masked_adam_step(param: np.ndarray, exp_avg: np.ndarray, exp_avg_sq: np.ndarray, index: np.ndarray,
                     grad: np.ndarray, step: int, lr: float, beta1: float = 0.9, beta2: float = 0.999,
                     eps: float = 1e-8, clip: tuple[float, float] | None = None) -> None:
    """torch.optim.SparseAdam's update (torch 2.x, ``optim._functional.sparse_adam``), operation for operation, on
    flat float32 arrays: the moments and the parameter change only at ``index`` (unique: the sparse gradient's
    entries, ``grad`` its values), and ``step`` counts every step taken, as SparseAdam's state does, for the bias
    correction. Here without building a sparse tensor and coalescing it; equal bit for bit (tests). ``clip``: the
    parameters changed are then clipped to it (PrivPGD's projection onto [0, 1]; the others are in it already)."""
    old_avg, old_sq = exp_avg[index], exp_avg_sq[index]
    avg_update = (grad - old_avg) * (1 - beta1)
    sq_update = (grad ** 2 - old_sq) * (1 - beta2)
    exp_avg[index] = old_avg + avg_update
    exp_avg_sq[index] = old_sq + sq_update
    # torch's square root, as SparseAdam's: it is not numpy's correctly rounded one (the last bit differs)
    denom = _torch().from_numpy(sq_update + old_sq).sqrt_().numpy() + eps
    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    moved = param[index] + -step_size * ((avg_update + old_avg) / denom)
    param[index] = moved if clip is None else np.minimum(np.maximum(moved, clip[0], out=moved), clip[1], out=moved)


class BatchGradient:
    """The gradient of Σ SW2² over a batch's marginals as the reference takes it: 2·(x_sorted − y_sorted)·θ back in
    particle order, mean over directions, × 100, summed over the batch. Its arrays are kept from one batch to the
    next (fresh ones of this size came from mmap each step: the page faults cost as much as the arithmetic)."""

    def __init__(self, batch: int, projections: int, particles: int):
        torch = _torch()
        shape = (batch, projections, particles)
        self.projected = np.empty(shape, np.float32)
        self.keys, self.spare = np.empty(shape, np.int64), np.empty(shape, np.int32)
        self.matched = torch.empty(shape)
        self.push = np.empty((batch, 2, particles), np.float32)

    def __call__(self, x: np.ndarray, pairs: np.ndarray, theta: np.ndarray, cells: np.ndarray,
                 counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``x`` (columns, particles); ``pairs`` (b, 2) the marginals' columns; ``theta`` (b, P, 2) their unit
        directions; ``cells`` (b, 2, c) and ``counts`` (b, c) their quantised targets: the grid centres and how
        often each is repeated (padded with count 0). Returns the columns touched (sorted) and their rows of the
        gradient."""
        torch = _torch()
        count, projections, particles = len(pairs), theta.shape[1], x.shape[1]
        projected = self.projected[:count]
        # the target's sorted projections: its few distinct centres sorted (with their counts), each repeated
        centres = sort_keys(np.matmul(theta, cells), counts[:, None, :])
        target = np.repeat(key_values(centres).reshape(-1), (centres & 0xFFFFFFFF).reshape(-1))
        target = target.reshape(count, projections, particles)
        np.matmul(theta, x[pairs.reshape(-1)].reshape(count, 2, particles), out=projected)
        order = stable_order(projected, self.keys[:count], self.spare[:count])
        matched = self.matched[:count]  # each particle's target: the one of its rank
        matched.scatter_(2, torch.from_numpy(order), torch.from_numpy(target))
        projected -= matched.numpy()
        push = self.push[:count]
        np.matmul(theta.transpose(0, 2, 1), projected, out=push)
        push *= 2 * 100 / projections
        columns = pairs.reshape(-1).tolist()
        rows = sorted(set(columns))
        where = np.zeros((len(rows), 2 * count), dtype=np.float32)  # which batch column adds to which row
        where[[rows.index(c) for c in columns], range(2 * count)] = 1
        return np.array(rows), where @ push.reshape(2 * count, particles)


def particle_gradient_descent(dims: list[tuple[int, int]], shapes: list[tuple[int, int]], counts: list[np.ndarray],
                              n_columns: int, particles: int, generator, iterations: int, lr: float,
                              step: int, gamma: float, projections: int, batch: int, mask: float) -> np.ndarray:
    """The reference's particle gradient descent on Σ SW2² over the marginals ``dims`` (column pairs) with
    quantised targets (``counts`` per grid centre). Returns the particles, (particles, n_columns) in [0, 1].

    A batch's marginals are computed in one batched operation (the reference loops over them; each gradient is
    taken at the same particles, before the batch's step, in both); each target is sorted once per epoch, in its
    batch, as in the reference. The mask hides the reference's share of all N·d gradient entries, drawn where it
    matters: how many of the batch's columns' entries are hidden is hypergeometric (as the reference's uniform draw
    over all entries gives), which ones uniform; hidden and untouched entries keep their moments (SparseAdam).
    The random draws come from a numpy generator seeded from ``generator``."""
    torch = _torch()
    rng = np.random.default_rng(int(torch.randint(2**62, (1,), generator=generator)))
    x = rng.random((n_columns, particles), dtype=np.float32)  # a column's coordinates contiguous
    cells, repeats, widths = _target_cells(shapes, counts)
    columns = np.asarray(dims)
    batch = len(dims) if batch == 0 else int(batch)
    gradient = BatchGradient(batch, projections, particles)
    if mask > 0:
        state = _MaskedState(x, int(x.size * mask / 100))
    else:  # no mask: the reference's dense Adam
        dense = torch.optim.Adam([torch.from_numpy(x).requires_grad_(True)], lr=lr)
    for epoch in range(int(iterations)):
        order = rng.permutation(len(dims))
        theta = rng.standard_normal((len(dims), projections, 2), dtype=np.float32)
        theta /= np.sqrt((theta ** 2).sum(axis=2, keepdims=True)) + np.float32(1e-9)
        for first in range(0, len(dims), batch):
            chosen = order[first:first + batch]
            width = widths[chosen].max()  # the batch's distinct target centres: the rest is padding
            rows, block = gradient(x, columns[chosen], theta[first:first + batch], cells[chosen, :, :width],
                                   repeats[chosen, :width])
            if mask > 0:
                state.step(rows, block, lr, rng)
            else:
                _dense_step(dense, rows, block, lr)
        if (epoch + 1) % int(step) == 0:
            lr *= gamma  # StepLR, once per epoch
    return np.ascontiguousarray(x.T).astype(float)


def _target_cells(shapes: list[tuple[int, int]], counts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                                    np.ndarray]:
    """The quantised targets as their distinct points: (marginals, 2, c) grid centres with a positive count and
    (marginals, c) their counts, padded with count 0 to the largest c (tens of centres, of up to 1024 cells), and
    each marginal's number of them."""
    used = [np.flatnonzero(c) for c in counts]
    width = max(len(u) for u in used)
    cells = np.zeros((len(counts), 2, width), dtype=np.float32)
    repeats = np.zeros((len(counts), width), dtype=np.int64)
    for k, (shape, c, u) in enumerate(zip(shapes, counts, used, strict=True)):
        cells[k, :, :len(u)] = grid_centres(shape).numpy()[u].T
        repeats[k, :len(u)] = c[u]
    return cells, repeats, np.array([len(u) for u in used])


class _MaskedState:
    """The particles (flat view), SparseAdam's moments and its step count."""

    def __init__(self, x: np.ndarray, hidden: int):
        self.flat, self.particles, self.hidden = x.reshape(-1), x.shape[1], hidden
        self.exp_avg, self.exp_avg_sq = np.zeros_like(self.flat), np.zeros_like(self.flat)
        self.taken = 0

    def step(self, rows: np.ndarray, block: np.ndarray, lr: float, rng: np.random.Generator) -> None:
        """One masked step on the gradient ``block`` of columns ``rows`` (sorted); the particles moved are clipped
        to [0, 1]."""
        size = block.size
        hidden = rng.hypergeometric(self.hidden, self.flat.size - self.hidden, size)
        kept = rng.choice(size, size - hidden, replace=False, shuffle=False)
        values = block.reshape(-1)[kept]
        index = kept + ((rows - np.arange(len(rows))) * self.particles)[kept // self.particles]  # into the flat x
        nonzero = values != 0
        if not nonzero.all():  # SparseAdam's sparse gradient holds the nonzero entries only
            index, values = index[nonzero], values[nonzero]
        self.taken += 1
        masked_adam_step(self.flat, self.exp_avg, self.exp_avg_sq, index, values, self.taken, lr, clip=(0, 1))


def _dense_step(optimiser, rows: np.ndarray, block: np.ndarray, lr: float) -> None:
    """One step of torch's Adam with the whole gradient (untouched columns zero), particles clipped to [0, 1]."""
    torch = _torch()
    (param,) = optimiser.param_groups[0]["params"]
    optimiser.param_groups[0]["lr"] = lr
    gradient = torch.zeros_like(param)
    gradient[torch.from_numpy(rows)] = torch.from_numpy(block)
    param.grad = gradient
    optimiser.step()
    with torch.no_grad():
        param.clamp_(0, 1)


def particle_cells(positions: np.ndarray, sizes: list[int]) -> np.ndarray:
    """Each particle's cell per column: the nearest centre (i + 1/2)/k, i.e. ⌊x·k⌋ (the reference's
    ``discretize``)."""
    sizes_ = np.asarray(sizes)
    return np.minimum(np.floor(positions * sizes_).astype(int), sizes_ - 1)

