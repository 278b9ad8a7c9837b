"""PrivPGD's particle gradient descent (step 4 of ``particles.py``, which says what is followed and how this
departs from the reference) in numpy: the particles stored column by column, a batch's marginals in one batched
operation, the particles' order from one integer sort, the targets as their few distinct centres, the mask drawn
over the batch's columns, SparseAdam's update written out (the same method, several times faster)."""

from __future__ import annotations

import math

import numpy as np

from .particles import _torch, grid_centres, key_values, sort_keys, stable_order


def masked_adam_step(param: np.ndarray, exp_avg: np.ndarray, exp_avg_sq: np.ndarray, index: np.ndarray,
                     grad: np.ndarray, step: int, lr: float, beta1: float = 0.9, beta2: float = 0.999,
                     eps: float = 1e-8, clip: tuple[float, float] | None = None) -> None:
    """torch.optim.SparseAdam's update (torch 2.x, ``optim._functional.sparse_adam``), operation for operation, on
    flat float32 arrays: the moments and the parameter change only at ``index`` (unique: the sparse gradient's
    entries, ``grad`` its values), and ``step`` counts every step taken, as SparseAdam's state does, for the bias
    correction. Here without building a sparse tensor and coalescing it; equal bit for bit (tests). ``clip``: the
    parameters changed are then clipped to it (PrivPGD's projection onto [0, 1]; the others are in it already)."""
    old_avg, old_sq = exp_avg[index], exp_avg_sq[index]
    new_avg = grad - old_avg
    new_avg *= 1 - beta1
    new_avg += old_avg  # torch: old + update; its numerator update + old is the same number
    new_sq = grad ** 2
    new_sq -= old_sq
    new_sq *= 1 - beta2
    new_sq += old_sq
    exp_avg[index], exp_avg_sq[index] = new_avg, new_sq
    # torch's square root, as SparseAdam's: it is not numpy's correctly rounded one (the last bit differs)
    denom = _torch().from_numpy(new_sq).sqrt().numpy()
    denom += eps
    new_avg /= denom
    new_avg *= -lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    new_avg += param[index]
    param[index] = new_avg if clip is None else np.minimum(np.maximum(new_avg, clip[0], out=new_avg), clip[1],
                                                             out=new_avg)


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
