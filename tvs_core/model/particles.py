"""PrivPGD's generation step (Donhauser, Abad, Hulkund & Yang, ICML 2024) in torch: noisy two-way marginals
in, particles out. The mechanism and the generator are in ``privpgd.py``; this module is only the optimisation.

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
  per marginal.
- The target's sorted projections are the grid centres' sorted projections repeated by their counts (the
  reference sorts all N repeated points: the same numbers).
- Every random draw comes from one seeded ``torch.Generator`` (the reference: the global torch and Python
  ``random`` states), and ties in sorts are broken stably, so a seed gives the same particles.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np


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
    ``targets`` (noisy counts / n, one flat vector per marginal). Returns them in the order given.

    The gradient is written out (what autograd gives for the reference's loss, |·|' = sign, 0 at 0): for one
    direction, W1 = Σ_i gap_i·|c_i| with c the cumulative sum of u − v in projected order, so ∂W1/∂(u − v)_j is
    the sum of gap_i·sign(c_i) over the positions i at or after j's; then through the softmax."""
    torch = _torch()
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, shape in enumerate(shapes):
        groups[tuple(shape)].append(index)
    out: list[np.ndarray] = [np.empty(0)] * len(targets)
    for shape, members in groups.items():
        centres = grid_centres(shape) - 0.5
        v = torch.tensor(np.stack([targets[i] for i in members]), dtype=torch.float32)
        count, cells = v.shape
        start = v.clamp(min=0)
        total = start.sum(dim=1, keepdim=True)
        # the reference divides by the sum as it is; a marginal whose noisy cells are all negative starts uniform
        start = torch.where(total > 0, start / total.clamp(min=1e-30), torch.full_like(start, 1 / cells))
        theta = torch.log(start + 1e-9).requires_grad_(True)
        optimiser = torch.optim.Adam([theta], lr=lr)
        scheduler = torch.optim.lr_scheduler.StepLR(optimiser, step_size=step, gamma=gamma)
        zero_row = torch.zeros(count, 1, projections)
        for _ in range(int(iterations)):
            ordered, order = torch.sort(centres @ _directions(projections, 2, generator).T, dim=0, stable=True)
            gaps = torch.diff(ordered, dim=0)  # (cells - 1, directions)
            u = torch.softmax(theta.detach(), dim=1)
            cumulative = torch.cumsum((u - v)[:, order], dim=1)[:, :-1, :]  # (marginals, cells - 1, directions)
            slope = torch.sign(cumulative) * gaps / projections  # the mean over directions
            after = slope.sum(dim=1, keepdim=True) - torch.cumsum(slope, dim=1) + slope  # Σ over i ≥ rank
            by_rank = torch.cat([after, zero_row], dim=1)
            by_cell = torch.zeros_like(by_rank).scatter_(1, order.expand(count, cells, projections), by_rank).sum(2)
            theta.grad = u * (by_cell - (by_cell * u).sum(dim=1, keepdim=True))
            optimiser.step()
            scheduler.step()
        probabilities = torch.softmax(theta.detach(), dim=1).double().numpy()
        for row, index in enumerate(members):
            out[index] = probabilities[row]
    return out


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


def particle_gradient_descent(dims: list[tuple[int, int]], shapes: list[tuple[int, int]], counts: list[np.ndarray],
                              n_columns: int, particles: int, generator, iterations: int, lr: float,
                              step: int, gamma: float, projections: int, batch: int, mask: float) -> np.ndarray:
    """The reference's particle gradient descent on Σ SW2² over the marginals ``dims`` (column pairs) with
    quantised targets (``counts`` per grid centre). Returns the particles, (particles, n_columns) in [0, 1].

    A batch's marginals are computed in one batched operation (the reference loops over them; each gradient is
    taken at the same particles, before the batch's step, in both)."""
    torch = _torch()
    x = torch.rand(particles, n_columns, generator=generator).requires_grad_(True)
    optimiser = torch.optim.SparseAdam([x], lr=lr) if mask > 0 else torch.optim.Adam([x], lr=lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimiser, step_size=step, gamma=gamma)
    targets = torch.stack([grid_centres(shape).repeat_interleave(torch.tensor(c), dim=0)
                           for shape, c in zip(shapes, counts, strict=True)])  # (marginals, particles, 2)
    columns = torch.tensor(dims)
    batch = len(dims) if batch == 0 else int(batch)
    for _ in range(int(iterations)):
        order = torch.randperm(len(dims), generator=generator)
        for first in range(0, len(dims), batch):
            chosen = order[first:first + batch]
            pairs = columns[chosen]  # (batch, 2)
            theta = _directions(len(chosen) * projections, 2, generator).reshape(len(chosen), projections, 2)
            selected = x.detach()[:, pairs].permute(1, 0, 2)  # (batch, particles, 2)
            ordered, where = torch.sort(torch.bmm(selected, theta.transpose(1, 2)), dim=1, stable=True)
            target, _ = torch.sort(torch.bmm(targets[chosen], theta.transpose(1, 2)), dim=1, stable=True)
            back = torch.zeros_like(ordered).scatter_(1, where, 2 * (ordered - target))  # in particle order
            push = torch.bmm(back, theta) / projections * 100  # (batch, particles, 2)
            gradient = torch.zeros(particles, n_columns)
            gradient.index_add_(1, pairs.reshape(-1), push.permute(1, 0, 2).reshape(particles, -1))
            if mask > 0:
                hidden = torch.randperm(gradient.numel(), generator=generator)[:int(gradient.numel() * mask / 100)]
                gradient.view(-1)[hidden] = 0
                x.grad = gradient.to_sparse()
            else:
                x.grad = gradient
            optimiser.step()
            with torch.no_grad():
                x.clamp_(0, 1)
        scheduler.step()
    return x.detach().numpy().astype(float)


def particle_cells(positions: np.ndarray, sizes: list[int]) -> np.ndarray:
    """Each particle's cell per column: the nearest centre (i + 1/2)/k, i.e. ⌊x·k⌋ (the reference's
    ``discretize``)."""
    sizes_ = np.asarray(sizes)
    return np.minimum(np.floor(positions * sizes_).astype(int), sizes_ - 1)

