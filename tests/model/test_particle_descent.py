"""PrivPGD's particle gradient descent (tvs_core/model/particle_descent.py): SparseAdam's update touches only the
entries it is given and moves them by the learning rate; the batched gradient is the gradient of the stated loss
(Σ SW2² × 100 over the batch's marginals, at the given directions) and does not carry one batch into the next;
the targets are laid out as their distinct centres; a masked or dense step moves only the particles it should, to
within [0, 1]; and the whole descent moves the particles onto the target, decays its rate per epoch, and gives the
same particles for the same seed.

The comparisons with torch's SparseAdam bit for bit, with the reference's per-marginal loop and the mask's
distribution are in tests/model/test_particles.py. Known answers here are worked out by hand; the convergence
bounds hold for any seed with a wide margin."""

import math

import numpy as np
import pytest

from tvs_core.model import particle_descent
from tvs_core.model.particle_descent import (
    BatchGradient,
    _dense_step,
    _MaskedState,
    _target_cells,
    masked_adam_step,
    particle_gradient_descent,
)
from tvs_core.model.particles import grid_centres, particle_cells

torch = pytest.importorskip("torch")


def zeros(size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(size, np.float32), np.zeros(size, np.float32)


# -- SparseAdam's update ---------------------------------------------------------------------------------------


def test_a_constant_gradient_moves_each_given_entry_by_the_learning_rate_per_step_against_its_sign():
    """With the bias correction m̂ = g and v̂ = g² at every step of a constant g, so each step is −lr·g/|g| (up to
    ε = 1e-8): 0.1 per step, whatever the gradient's size."""
    param = np.full(6, 0.5, np.float32)
    exp_avg, exp_avg_sq = zeros(6)
    index, grad = np.array([1, 4]), np.array([3.0, -0.02], np.float32)
    for step in (1, 2, 3):
        masked_adam_step(param, exp_avg, exp_avg_sq, index, grad.copy(), step, 0.1)
        assert param[1] == pytest.approx(0.5 - 0.1 * step, abs=1e-5)
        assert param[4] == pytest.approx(0.5 + 0.1 * step, abs=1e-5)
    untouched = [0, 2, 3, 5]
    assert (param[untouched] == 0.5).all() and (exp_avg[untouched] == 0).all() and (exp_avg_sq[untouched] == 0).all()
    # the moments are the running averages: (1 − β^3)·g and (1 − β2^3)·g²
    assert exp_avg[[1, 4]] == pytest.approx((1 - 0.9 ** 3) * grad, rel=1e-5)
    assert exp_avg_sq[[1, 4]] == pytest.approx((1 - 0.999 ** 3) * grad ** 2, rel=1e-4)


def test_the_step_count_sets_the_bias_correction():
    """A first gradient given as step 10 is corrected by sqrt(1 − β2¹⁰)/(1 − β1¹⁰) instead of 1: the move is
    lr·(1 − β1)·sqrt(1 − β2¹⁰) / ((1 − β1¹⁰)·sqrt(1 − β2)); by hand 0.1 · 0.1 · 0.099775 / (0.651322 · 0.0316228)
    = 0.04844 (at step 1 it would be 0.1)."""
    param = np.zeros(2, np.float32)
    exp_avg, exp_avg_sq = zeros(2)
    masked_adam_step(param, exp_avg, exp_avg_sq, np.array([0]), np.array([-1.0], np.float32), 10, 0.1)
    expected = 0.1 * 0.1 * math.sqrt(1 - 0.999 ** 10) / ((1 - 0.9 ** 10) * math.sqrt(0.001))
    assert expected == pytest.approx(0.04844, abs=1e-5)
    assert param[0] == pytest.approx(expected, rel=1e-5) and param[1] == 0


def test_clipping_applies_to_the_moved_entries_and_an_empty_index_changes_nothing():
    param = np.array([0.95, 0.05, 1.5, -0.5], np.float32)  # the last two are outside and not moved
    exp_avg, exp_avg_sq = zeros(4)
    masked_adam_step(param, exp_avg, exp_avg_sq, np.array([0, 1]), np.array([-1.0, 1.0], np.float32), 1, 0.1,
                     clip=(0, 1))
    assert param.tolist() == [1.0, 0.0, 1.5, -0.5]
    before = (param.copy(), exp_avg.copy(), exp_avg_sq.copy())
    masked_adam_step(param, exp_avg, exp_avg_sq, np.array([], int), np.array([], np.float32), 2, 0.1, clip=(0, 1))
    for now, then in zip((param, exp_avg, exp_avg_sq), before, strict=True):
        assert np.array_equal(now, then)


# -- the batched gradient --------------------------------------------------------------------------------------


def sliced_loss(x: np.ndarray, pairs: list[tuple[int, int]], theta: np.ndarray, points: list[np.ndarray]) -> float:
    """100 × Σ over marginals of mean over directions of Σ (sorted projected particles − sorted projected target)²,
    in float64 with numpy's sort."""
    total = 0.0
    for k, (a, b) in enumerate(pairs):
        directions = theta[k].astype(float)
        mine = np.sort(directions @ x[[a, b]].astype(float), axis=1)
        target = np.sort(directions @ points[k].astype(float), axis=1)
        total += ((mine - target) ** 2).sum(axis=1).mean()
    return 100 * total


def toy_batch(rng: np.random.Generator, particles: int = 40):
    """Four columns, marginals (0, 2) and (2, 3), each target a quantised cloud on a 3 × 2 grid."""
    x = rng.random((4, particles), dtype=np.float32)
    pairs = [(0, 2), (2, 3)]
    theta = rng.standard_normal((2, 5, 2)).astype(np.float32)
    theta /= np.linalg.norm(theta, axis=2, keepdims=True)
    counts = [rng.multinomial(particles, np.full(6, 1 / 6)) for _ in pairs]
    centres = grid_centres((3, 2)).numpy().T
    points = [np.repeat(centres, c, axis=1) for c in counts]
    cells = np.stack([centres, centres])
    return x, pairs, theta, cells, np.stack(counts), points


def test_the_batch_gradient_is_the_derivative_of_the_stated_loss_and_a_small_step_against_it_lowers_it():
    x, pairs, theta, cells, counts, points = toy_batch(np.random.default_rng(0))
    rows, block = BatchGradient(2, 5, 40)(x, np.array(pairs), theta, cells, counts)
    assert rows.tolist() == [0, 2, 3]
    gradient = np.zeros(x.shape)
    gradient[rows] = block
    direction = np.random.default_rng(1).standard_normal(x.shape)
    h = 1e-5
    slope = (sliced_loss(x + h * direction, pairs, theta, points)
             - sliced_loss(x - h * direction, pairs, theta, points)) / (2 * h)
    assert slope == pytest.approx(float((gradient * direction).sum()), rel=1e-3)
    before = sliced_loss(x, pairs, theta, points)
    assert sliced_loss(x - 1e-4 * gradient, pairs, theta, points) < before
    assert sliced_loss(x + 1e-4 * gradient, pairs, theta, points) > before


def test_particles_on_their_target_have_no_gradient():
    x, pairs, theta, cells, counts, points = toy_batch(np.random.default_rng(2))
    x[[0, 2]] = points[0][:, np.random.default_rng(3).permutation(40)]  # marginal (0, 2): exactly its target cloud
    rows, block = BatchGradient(1, 5, 40)(x, np.array(pairs[:1]), theta[:1], cells[:1], counts[:1])
    assert rows.tolist() == [0, 2]
    assert np.abs(block).max() < 1e-4


def test_a_batch_gradient_kept_from_a_larger_batch_gives_what_a_fresh_one_gives():
    x, pairs, theta, cells, counts, _ = toy_batch(np.random.default_rng(4))
    kept = BatchGradient(2, 5, 40)
    kept(x, np.array(pairs), theta, cells, counts)  # fills every array kept
    rows, block = kept(x, np.array(pairs[1:]), theta[1:], cells[1:], counts[1:])
    fresh_rows, fresh_block = BatchGradient(1, 5, 40)(x, np.array(pairs[1:]), theta[1:], cells[1:], counts[1:])
    assert rows.tolist() == fresh_rows.tolist() == [2, 3]
    assert np.array_equal(block, fresh_block)


# -- the targets -----------------------------------------------------------------------------------------------


def test_targets_are_laid_out_as_their_used_centres_with_counts_padded_to_the_widest():
    """(2, 3) grid, counts 0 · 4 · 0 · 0 · 0 · 1: cell 1 is (row 0, column 1), centre (1/4, 1/2); cell 5 is (1, 2),
    centre (3/4, 5/6). (1, 2) grid, counts 2 · 0: cell 0, centre (1/2, 1/4), then padding."""
    cells, repeats, widths = _target_cells([(2, 3), (1, 2)], [np.array([0, 4, 0, 0, 0, 1]), np.array([2, 0])])
    assert widths.tolist() == [2, 1]
    assert cells.shape == (2, 2, 2) and repeats.shape == (2, 2) and cells.dtype == np.float32
    assert cells[0] == pytest.approx(np.array([[1 / 4, 3 / 4], [1 / 2, 5 / 6]]))  # (x of each, y of each)
    assert cells[1, :, 0].tolist() == [0.5, 0.25] and cells[1, :, 1].tolist() == [0, 0]
    assert repeats.tolist() == [[4, 1], [2, 0]]


# -- one step --------------------------------------------------------------------------------------------------


def test_an_unmasked_step_moves_each_nonzero_gradient_entry_of_its_rows_and_nothing_else():
    """No entry hidden: block row k is column rows[k]; each particle with a gradient moves by lr against its sign,
    a zero entry is not part of the sparse gradient (moments untouched), other columns stay."""
    x = np.full((4, 3), 0.5, np.float32)
    state = _MaskedState(x, 0)
    block = np.array([[2.0, 0.0, -1.0], [-5.0, 4.0, 0.0]], np.float32)
    state.step(np.array([1, 3]), block, 0.1, np.random.default_rng())
    assert x[1] == pytest.approx([0.4, 0.5, 0.6], abs=1e-5) and x[3] == pytest.approx([0.6, 0.4, 0.5], abs=1e-5)
    assert (x[[0, 2]] == 0.5).all()
    assert np.flatnonzero(state.exp_avg).tolist() == [3, 5, 9, 10]  # x[1, 0], x[1, 2], x[3, 0], x[3, 1]
    assert state.taken == 1
    moved, moments = x.copy(), state.exp_avg.copy()
    state.step(np.array([1]), np.array([[0.0, 0.0, -1.0]], np.float32), 0.1, np.random.default_rng())
    assert np.array_equal(x[[0, 2, 3]], moved[[0, 2, 3]]) and np.array_equal(x[1, :2], moved[1, :2])  # no momentum
    assert np.array_equal(state.exp_avg[:5], moments[:5]) and state.exp_avg[5] != moments[5]


def test_with_every_entry_hidden_nothing_moves_but_the_step_is_counted():
    x = np.full((2, 5), 0.5, np.float32)
    state = _MaskedState(x, x.size)
    for _ in range(3):
        state.step(np.array([0, 1]), np.ones((2, 5), np.float32), 0.1, np.random.default_rng())
    assert (x == 0.5).all() and (state.exp_avg == 0).all() and state.taken == 3


def test_a_dense_step_is_adams_first_step_at_the_rate_given_on_the_rows_given_clipped():
    x = np.array([[0.5, 0.02], [0.5, 0.5], [0.5, 0.5]], np.float32)
    optimiser = torch.optim.Adam([torch.from_numpy(x).requires_grad_(True)], lr=0.1)
    _dense_step(optimiser, np.array([0, 2]), np.array([[1.0, 1.0], [-2.0, 0.0]], np.float32), 0.05)
    assert optimiser.param_groups[0]["lr"] == 0.05  # the rate of this epoch, not the one built with
    assert x[0] == pytest.approx([0.45, 0.0], abs=1e-6)  # 0.02 − 0.05 clipped at 0
    assert x[2] == pytest.approx([0.55, 0.5], abs=1e-6) and (x[1] == 0.5).all()  # a zero gradient: no first move


# -- the descent -----------------------------------------------------------------------------------------------


def descend(seed: int = 0, iterations: int = 40, mask: float = 80, step: int = 50, gamma: float = 0.75,
            batch: int = 0, particles: int = 100) -> np.ndarray:
    """Three columns, all three pairs, every target all at the centre (¼, ¼) of the 2 × 2 grid's first cell."""
    dims, shapes = [(0, 1), (1, 2), (0, 2)], [(2, 2)] * 3
    counts = [np.array([particles, 0, 0, 0])] * 3
    return particle_gradient_descent(dims, shapes, counts, 3, particles, torch.Generator().manual_seed(seed),
                                     iterations, 0.1, step, gamma, 5, batch, mask)


@pytest.mark.parametrize("mask", [0, 80])
def test_the_descent_gathers_the_particles_at_a_point_target(mask):
    """From uniform particles (mean squared distance to ¼ per coordinate 1/12 + 1/16 = 0.146) to the point: below
    a quarter of it after 40 epochs, with or without the mask."""
    start, end = descend(mask=mask, iterations=0), descend(mask=mask)
    assert ((start - 0.25) ** 2).mean() == pytest.approx(1 / 12 + 1 / 16, abs=0.04)
    assert ((end - 0.25) ** 2).mean() < (1 / 12 + 1 / 16) / 4
    assert end.shape == (100, 3) and end.dtype == np.float64 and end.flags.c_contiguous
    assert end.min() >= 0 and end.max() <= 1


@pytest.mark.parametrize("mask", [0, 80])
def test_the_descent_splits_the_particles_between_two_target_cells_as_the_counts_say(mask):
    """Half the target at cell (0, 0), half at (1, 1) of a 2 × 2 grid: 95 % of the particles end in those cells,
    about half in each."""
    counts = [np.array([100, 0, 0, 100])]
    x = particle_gradient_descent([(0, 1)], [(2, 2)], counts, 2, 200, torch.Generator().manual_seed(1), 60, 0.1, 50,
                                  0.75, 10, 0, mask)
    cells = particle_cells(x, [2, 2])
    found = np.bincount(cells[:, 0] * 2 + cells[:, 1], minlength=4)
    assert found[[0, 3]].sum() >= 190 and abs(found[0] - found[3]) <= 20


def test_the_same_generator_seed_gives_the_same_particles_and_another_seed_others():
    assert np.array_equal(descend(seed=3, iterations=5), descend(seed=3, iterations=5))
    assert not np.array_equal(descend(seed=3, iterations=5), descend(seed=4, iterations=5))
    generator = torch.Generator().manual_seed(3)
    torch.randint(10, (1,), generator=generator)  # a generator already drawn from: another starting point
    moved = particle_gradient_descent([(0, 1)], [(2, 2)], [np.array([10, 0, 0, 0])], 2, 10, generator, 0, 0.1, 50,
                                      0.75, 5, 0, 80)
    fresh = particle_gradient_descent([(0, 1)], [(2, 2)], [np.array([10, 0, 0, 0])], 2, 10,
                                      torch.Generator().manual_seed(3), 0, 0.1, 50, 0.75, 5, 0, 80)
    assert not np.array_equal(moved, fresh)


@pytest.mark.parametrize("mask", [0, 80])
def test_the_rate_is_multiplied_by_gamma_once_every_step_epochs(mask):
    """γ = 0: the rate is 0 from the first multiplication on, so the particles stop moving exactly there."""
    assert np.array_equal(descend(iterations=1, step=1, gamma=0.0, mask=mask),
                          descend(iterations=4, step=1, gamma=0.0, mask=mask))
    assert not np.array_equal(descend(iterations=1, step=2, gamma=0.0, mask=mask),
                              descend(iterations=2, step=2, gamma=0.0, mask=mask))  # epoch 2 still at 0.1
    assert np.array_equal(descend(iterations=2, step=2, gamma=0.0, mask=mask),
                          descend(iterations=5, step=2, gamma=0.0, mask=mask))
    assert not np.array_equal(descend(iterations=0, mask=mask), descend(iterations=1, step=1, gamma=0.0, mask=mask))


def test_a_batch_of_zero_is_all_marginals_in_one_batch(monkeypatch):
    assert np.array_equal(descend(iterations=3, batch=0), descend(iterations=3, batch=3))
    sizes = []
    original = BatchGradient.__call__
    monkeypatch.setattr(particle_descent.BatchGradient, "__call__",
                        lambda self, x, pairs, *rest: sizes.append(len(pairs)) or original(self, x, pairs, *rest))
    descend(iterations=2, batch=2)
    assert sizes == [2, 1, 2, 1]  # 3 marginals in batches of 2, twice
