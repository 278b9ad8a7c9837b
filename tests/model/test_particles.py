"""PrivPGD's optimisation (tvs_core/model/particles.py and particle_descent.py, issue 38): each faster piece
against the plain computation it replaces — torch's stable sort, torch's SparseAdam, the reference's per-marginal
gradient loop, autograd on the reference's projection-step loss — and the mask's distribution."""

import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_mixed_table
from tvs_core.model import particle_descent, particles, privpgd
from tvs_core.model.particle_descent import BatchGradient, masked_adam_step
from tvs_core.model.particles import (
    grid_centres,
    key_values,
    projected_order,
    sort_keys,
    stable_order,
    w1_gradient,
)
from tvs_core.model.privpgd import PrivPGD

torch = pytest.importorskip("torch")
TINY = dict(particles=200, iterations=8, projection_iterations=10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stable_order_is_the_permutation_of_a_stable_sort(seed):
    rng = np.random.default_rng(seed)
    special = np.array([-1.5, -0.0, 0.0, 0.25, -0.25, 1e-40, -1e-40, 1.0, -1.0], np.float32)  # ties, ±0, subnormals
    values = np.where(rng.random((3, 4, 60)) < 0.5, rng.choice(special, (3, 4, 60)),
                      rng.standard_normal((3, 4, 60)).astype(np.float32))
    expected = torch.sort(torch.from_numpy(values), dim=-1, stable=True)
    assert np.array_equal(stable_order(values.copy()), expected.indices.numpy())
    keys = np.empty(values.shape, np.int64)
    assert np.array_equal(stable_order(values.copy(), keys), expected.indices.numpy())
    carried = sort_keys(values.copy(), np.arange(60) * 7)  # any integers ride along; the values come back
    assert np.array_equal(carried & 0xFFFFFFFF, expected.indices.numpy() * 7)
    assert np.array_equal(key_values(carried), expected.values.numpy())


def test_the_masked_adam_step_is_sparse_adams_update_bit_for_bit():
    """Several steps, masks of varying size (one empty), the learning rate changed as StepLR does: parameter and
    both moments equal torch.optim.SparseAdam's exactly, its step count included."""
    rng = np.random.default_rng(3)
    start = rng.random(300, dtype=np.float32)
    reference = torch.nn.Parameter(torch.from_numpy(start.copy()))
    optimiser = torch.optim.SparseAdam([reference], lr=0.1)
    param, exp_avg, exp_avg_sq = start.copy(), np.zeros(300, np.float32), np.zeros(300, np.float32)
    for step, (kept, lr) in enumerate([(60, 0.1), (5, 0.1), (0, 0.1), (300, 0.075), (120, 0.075), (33, 0.05)], 1):
        index = rng.choice(300, kept, replace=False)
        values = rng.normal(scale=50, size=kept).astype(np.float32)
        optimiser.param_groups[0]["lr"] = lr
        reference.grad = torch.sparse_coo_tensor(torch.from_numpy(index)[None], torch.from_numpy(values), (300,),
                                                 check_invariants=True)
        optimiser.step()
        masked_adam_step(param, exp_avg, exp_avg_sq, index, values, step, lr)
        state = optimiser.state[reference]
        assert state["step"] == step
        assert np.array_equal(reference.detach().numpy(), param), step
        assert np.array_equal(state["exp_avg"].numpy(), exp_avg), step
        assert np.array_equal(state["exp_avg_sq"].numpy(), exp_avg_sq), step


def reference_gradient(x: np.ndarray, pairs: list[tuple[int, int]], theta: np.ndarray,
                       points: np.ndarray) -> np.ndarray:
    """The reference's loop (``sliced_two_wasserstein_squared_distance_and_gradient`` per marginal, summed into
    ``grad_mat[:, dimX]``), with the given directions; particles as rows."""
    particles_ = torch.from_numpy(x.T.copy())
    gradient = torch.zeros_like(particles_)
    for k, (a, b) in enumerate(pairs):
        directions = torch.from_numpy(theta[k])
        projected = particles_[:, [a, b]] @ directions.T
        x_sorted, where = torch.sort(projected, dim=0, stable=True)
        y_sorted, _ = torch.sort(torch.from_numpy(points[k].T.copy()) @ directions.T, dim=0)
        grads = 2 * (x_sorted - y_sorted).unsqueeze(2) * directions.unsqueeze(0)
        back = torch.zeros_like(grads)
        for dim in range(2):
            back[:, :, dim].scatter_(0, where, grads[:, :, dim])
        gradient[:, [a, b]] += back.mean(1) * 100
    return gradient.numpy()


def test_the_batched_gradient_equals_the_references_loop_over_marginals():
    """Overlapping columns, a batch smaller than the arrays kept for it, quantised targets on three grids given as
    their centres and counts (zero counts and padding included)."""
    rng = np.random.default_rng(5)
    columns, count, projections = 5, 64, 6
    x = rng.random((columns, count), dtype=np.float32)
    pairs = [(0, 1), (1, 3), (0, 4)]
    theta = rng.standard_normal((3, projections, 2)).astype(np.float32)
    theta /= np.linalg.norm(theta, axis=2, keepdims=True)
    cells, counts, points = [], [], []
    for shape in [(4, 3), (3, 2), (4, 2)]:  # a quantised target: grid centres, some unused, repeated
        repeats = rng.multinomial(count, rng.dirichlet(np.full(shape[0] * shape[1], 0.5)))
        points.append(grid_centres(shape).repeat_interleave(torch.from_numpy(repeats), dim=0).T.numpy())
        padded = np.zeros((2, 12), np.float32)
        padded[:, :repeats.size] = grid_centres(shape).T.numpy()
        cells.append(padded)
        counts.append(np.pad(repeats, (0, 12 - repeats.size)))
    gradient = BatchGradient(5, projections, count)
    rows, block = gradient(x, np.array(pairs), theta, np.stack(cells), np.stack(counts))
    expected = reference_gradient(x, pairs, theta, np.stack(points))
    assert list(rows) == [0, 1, 3, 4]
    np.testing.assert_allclose(block, expected[:, rows].T, rtol=1e-5, atol=1e-4)
    assert np.abs(expected[:, 2]).max() == 0  # an untouched column has no gradient row


def test_the_projection_steps_gradient_equals_autograd_on_the_references_loss():
    """The reference's sliced W1 (``sliced_one_wasserstein_distance``: Vallender's identity in projected order,
    mean over directions) differentiated by autograd through the softmax, for three marginals on one grid."""
    rng = np.random.default_rng(7)
    shape, projections = (4, 3), 5
    centres = grid_centres(shape) - 0.5
    theta = torch.tensor(rng.normal(size=(3, 12)), dtype=torch.float32, requires_grad=True)
    v = torch.tensor(rng.dirichlet(np.ones(12), 3) + rng.normal(scale=0.05, size=(3, 12)), dtype=torch.float32)
    directions = torch.tensor(rng.normal(size=(projections, 2)), dtype=torch.float32)
    directions /= directions.norm(dim=1, keepdim=True)
    projected = centres @ directions.T  # (cells, directions)
    ordered, order = torch.sort(projected, dim=0)
    u = torch.softmax(theta, dim=1)
    loss = 0
    for row in range(3):
        cumulative = torch.cumsum(u[row][order], dim=0)[:-1] - torch.cumsum(v[row][order], dim=0)[:-1]
        loss = loss + (torch.abs(cumulative) * torch.diff(ordered, dim=0)).sum(dim=0).mean()
    loss.backward()
    buffers = (torch.empty(4, projections, 12), torch.empty(4, projections, 12))
    ours = w1_gradient(u.detach(), v, projected_order(projected.T.contiguous()), buffers)
    np.testing.assert_allclose(ours.numpy(), theta.grad.numpy(), rtol=1e-4, atol=1e-7)


def test_the_mask_hides_the_references_share_of_entries_where_the_gradient_lives(monkeypatch):
    """Of a batch's 2 x 100 gradient entries, out of 10 x 100, the reference hides a uniform 80 % of all entries:
    the kept ones among the batch's are 200 - Hypergeometric(800 hidden of 1000, 200 drawn), mean 40, variance
    200·0.8·0.2·800/999. The mean over 400 steps must lie within 5 of its standard errors; every index is one of
    the batch's entries, once."""
    x = np.full((10, 100), 0.5, dtype=np.float32)
    state = particle_descent._MaskedState(x, int(x.size * 80 / 100))
    seen = []
    monkeypatch.setattr(particle_descent, "masked_adam_step",
                        lambda p, m, v, index, *rest, **options: seen.append(index))
    rng = np.random.default_rng(11)
    block = np.ones((2, 100), dtype=np.float32)
    for _ in range(400):
        state.step(np.array([2, 5]), block, 0.1, rng)
    kept = np.array([len(index) for index in seen])
    variance = 200 * 0.8 * 0.2 * 800 / 999
    assert abs(kept.mean() - 40) < 5 * math.sqrt(variance / len(kept))
    assert state.taken == 400
    for index in seen:
        assert len(set(index.tolist())) == len(index)
        assert set((index // 100).tolist()) <= {2, 5}


def test_a_masked_step_moves_only_kept_entries_and_clips_them():
    x = np.full((3, 50), 0.999, dtype=np.float32)
    state = particle_descent._MaskedState(x, int(x.size * 80 / 100))
    block = np.full((1, 50), -1000.0, dtype=np.float32)  # pushes up: Adam's first step is lr, so past 1
    state.step(np.array([1]), block, 0.1, np.random.default_rng(0))
    moved = x != np.float32(0.999)
    assert moved[1].any() and not moved[[0, 2]].any()
    assert (x[1][moved[1]] == 1).all()
    assert np.array_equal(moved.reshape(-1), state.exp_avg != 0)  # the moments changed where the particles did


def test_the_fit_runs_on_the_threads_asked_and_leaves_the_callers_setting(monkeypatch):
    seen = []

    def recording(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return particles.project_marginals(*args, **kwargs)

    monkeypatch.setattr(privpgd, "project_marginals", recording)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        PrivPGD(response="outcome", threads=1, **TINY).fit(make_mixed_table(n=120))
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_without_a_mask_the_dense_adam_moves_every_particle():
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150), "y": rng.integers(0, 2, 150)})
    model = PrivPGD(response="y", mask=0, seed=1, **TINY).fit(table)
    assert model.particles_.shape == (200, 3) and model.particles_.min() >= 0
    assert len(np.unique(model.particles_, axis=0)) > 100  # spread over the grid, not stuck at the start
