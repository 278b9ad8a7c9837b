"""MST (tvs_core/model/mst.py): the zCDP accounting (ρ from (ε, δ) and back), the Gaussian and exponential
mechanisms at the scales the module docstring states, the domain compression and its inverse, the minimum-variance
row count, the tree model (its layout, the step size's curvature bound, the fit and the ancestral sampler), the
selection of a maximum spanning tree, and the generator's refusal of bad settings and its seeding.

Every known answer is worked out by hand in the test; statistical bounds hold for any seed (failure odds ≤ 1e-6).
The model's agreement with sum-product enumeration, the noise of a whole fit and its budget sum are in
tests/model/test_competitors.py."""

import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.conftest import make_small_table
from tvs_core.errors import DataError
from tvs_core.model.mst import (
    MST,
    Measurement,
    TreeModel,
    _logsumexp,
    cdp_delta,
    cdp_rho,
    compress,
    compress_cells,
    estimate_total,
    expand_cells,
    exponential_mechanism,
    marginal_counts,
    measure,
    rounded,
    select,
)


def reference_cdp_delta(rho: float, epsilon: float) -> float:
    """ryan112358/private-pgm ``mechanisms/cdp2adp.py``'s ``cdp_delta`` as written there: 1000 bisection steps."""
    if rho == 0:
        return 0.0
    amin, amax = 1.01, (epsilon + 1) / (2 * rho) + 2
    for _ in range(1000):
        alpha = (amin + amax) / 2
        derivative = (2 * alpha - 1) * rho - epsilon + math.log1p(-1.0 / alpha)
        if derivative < 0:
            amin = alpha
        else:
            amax = alpha
    delta = math.exp((alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha)) / (alpha - 1.0)
    return min(delta, 1.0)


def ckst_log_delta(rho: float, epsilon: float, alpha: np.ndarray) -> np.ndarray:
    """log δ of Canonne, Kamath & Steinke (2020), Proposition 10, at each α > 1: a valid δ for every α."""
    return (alpha - 1) * (alpha * rho - epsilon) + alpha * np.log1p(-1 / alpha) - np.log(alpha - 1)


# -- the accounting --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rho, epsilon", [(0.1, 1.0), (1e-3, 0.5), (2.0, 10.0), (0.5, 0.1), (0.03, 2.5),
                                          (7.0, 10.0)])  # the last: the best α is near 1.3, close to the floor 1.01
def test_cdp_delta_stops_early_at_the_number_the_references_thousand_steps_reach(rho, epsilon):
    assert cdp_delta(rho, epsilon) == reference_cdp_delta(rho, epsilon)


def test_cdp_delta_is_the_best_bound_over_alpha_and_tighter_than_the_classical_conversion():
    for rho, epsilon in [(0.1, 1.0), (1e-3, 0.5), (2.0, 10.0), (0.03, 2.5)]:
        delta = cdp_delta(rho, epsilon)
        alphas = np.linspace(1.02, 3 * (epsilon + 1) / rho, 20_000)
        best = math.exp(ckst_log_delta(rho, epsilon, alphas).min())
        assert delta <= best * (1 + 1e-9)  # no α on a fine grid does better...
        assert delta == pytest.approx(best, rel=1e-3)  # ...and the grid's best is as good
        # ρ-zCDP gives (ρ + 2·sqrt(ρ·log(1/δ)), δ)-DP (Bun & Steinke 2016): δ = exp(−(ε − ρ)² / (4ρ)) is valid
        assert delta <= math.exp(-(epsilon - rho) ** 2 / (4 * rho))


def test_cdp_delta_grows_with_rho_falls_with_epsilon_and_is_zero_at_no_release_and_at_most_one():
    assert cdp_delta(0.0, 1.0) == 0.0
    assert cdp_delta(0.01, 1.0) < cdp_delta(0.1, 1.0) < cdp_delta(1.0, 1.0)
    assert cdp_delta(0.1, 2.0) < cdp_delta(0.1, 1.0) < cdp_delta(0.1, 0.5)
    assert cdp_delta(100.0, 0.1) == 1.0  # the bound exceeds 1 there: capped
    for bad in [(-0.1, 1.0), (0.1, -1.0)]:
        with pytest.raises(ValueError, match="non-negative"):
            cdp_delta(*bad)


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (1.0, 1e-5), (2.5, 1e-6), (10.0, 1e-3)])
def test_cdp_rho_is_the_largest_rho_within_delta_and_at_least_the_classical_one(epsilon, delta):
    rho = cdp_rho(epsilon, delta)
    assert cdp_delta(rho, epsilon) <= delta
    assert cdp_delta(rho * (1 + 1e-6), epsilon) > delta  # the bisection ends at the boundary
    # the classical conversion ε = ρ + 2·sqrt(ρ·log(1/δ)) solved for ρ; CKS is tighter, so it allows at least that
    classical = (math.sqrt(math.log(1 / delta) + epsilon) - math.sqrt(math.log(1 / delta))) ** 2
    assert rho >= classical


def test_cdp_rho_grows_with_the_budget_and_refuses_impossible_settings():
    assert cdp_rho(0.5, 1e-5) < cdp_rho(1.0, 1e-5) < cdp_rho(1.0, 1e-3)
    assert 0 <= cdp_rho(0.0, 1e-5) < 1e-6  # ε = 0: only δ pays for the release, almost nothing may be spent
    assert cdp_rho(1.0, 1.0) == 0.0 and cdp_rho(1.0, 2.0) == 0.0  # δ ≥ 1: anything goes, the reference says 0
    for bad in [(-1.0, 1e-5), (1.0, 0.0), (1.0, -1e-5)]:
        with pytest.raises(ValueError, match="δ positive"):
            cdp_rho(*bad)


# -- the mechanisms --------------------------------------------------------------------------------------------


def test_the_exponential_mechanism_draws_in_proportion_to_exp_of_half_epsilon_score_over_sensitivity():
    """Scores 0, 1, 2 at ε = 2 ln 2, sensitivity 1: weights exp(ln 2 · score) = 1 : 2 : 4, so 1/7, 2/7, 4/7."""
    rng = np.random.default_rng()
    draws = [exponential_mechanism(np.array([0.0, 1.0, 2.0]), 2 * math.log(2), 1.0, rng) for _ in range(7000)]
    observed = np.bincount(draws, minlength=3)
    assert stats.chisquare(observed, 7000 * np.array([1, 2, 4]) / 7).pvalue > 1e-6
    # ε and the sensitivity enter only as their ratio: the same seed gives the same draws
    again = [exponential_mechanism(np.array([0.0, 1.0, 2.0]), 4 * math.log(2), 2.0, np.random.default_rng(5))
             for _ in range(50)]
    assert again == [exponential_mechanism(np.array([0.0, 1.0, 2.0]), 2 * math.log(2), 1.0, np.random.default_rng(5))
                     for _ in range(50)]


def test_the_exponential_mechanism_survives_huge_scores_and_picks_the_best_when_it_dominates():
    rng = np.random.default_rng()
    for _ in range(20):  # exp(0.5 · 1e6) overflows unless the largest logit is taken out first
        assert exponential_mechanism(np.array([1e6, 1e6 - 200.0, 3.0]), 1.0, 1.0, rng) == 0
    assert exponential_mechanism(np.array([5.0]), 1.0, 1.0, rng) == 0


def test_marginal_counts_are_row_major_tables_of_the_cells():
    cells = np.array([[0, 2], [1, 0], [1, 2], [1, 2], [0, 1]])
    assert marginal_counts(cells, [2, 3], (0,)).tolist() == [2, 3]
    assert marginal_counts(cells, [2, 3], (1,)).tolist() == [1, 1, 3]
    # (a, b) at a·3 + b: (0,1), (0,2), (1,0), (1,2), (1,2)
    assert marginal_counts(cells, [2, 3], (0, 1)).tolist() == [0, 1, 1, 1, 0, 2]
    assert marginal_counts(cells, [2, 3], (1, 0)).tolist() == [0, 1, 1, 0, 1, 2]  # (b, a) at b·2 + a
    assert marginal_counts(cells, [4, 3], (0,)).tolist() == [2, 3, 0, 0]  # unused cells are counted as 0


def test_measure_splits_the_zcdp_budget_of_sigma_equally_over_the_cliques():
    """k measurements at noise σ·sqrt(k) each: ρ = Σ 1/(2 (σ√k)²) = 1/(2σ²) (unit L2 sensitivity), in order."""
    cells = np.array([[0, 1, 2], [1, 1, 0], [1, 0, 2]])
    sizes, cliques = [2, 2, 3], [(0,), (1,), (2,), (0, 2)]
    measured = measure(cells, sizes, cliques, 2.0, np.random.default_rng(0))
    assert [m.clique for m in measured] == cliques and all(m.query is None for m in measured)
    assert [m.sigma for m in measured] == pytest.approx([4.0] * 4)
    assert sum(1 / (2 * m.sigma ** 2) for m in measured) == pytest.approx(1 / (2 * 2.0 ** 2))
    assert [m.y.size for m in measured] == [2, 2, 3, 6]
    assert measure(cells, sizes, [], 2.0, np.random.default_rng(0)) == []


def test_the_measured_counts_are_the_exact_counts_plus_normal_noise_of_the_stated_variance():
    """300 draws of 3 cliques at σ = 2: the errors over σ·sqrt(3) are N(0, 1) (χ² band for the variance)."""
    rng = np.random.default_rng()
    cells = rng.integers(0, 3, (40, 2))
    exact = [marginal_counts(cells, [3, 3], c) for c in [(0,), (1,), (0, 1)]]
    errors = np.concatenate([m.y - x for _ in range(300)
                             for m, x in zip(measure(cells, [3, 3], [(0,), (1,), (0, 1)], 2.0, rng), exact,
                                             strict=True)]) / (2.0 * math.sqrt(3))
    n = errors.size  # 300 × (3 + 3 + 9)
    low, high = stats.chi2.ppf([1e-7, 1 - 1e-7], n - 1) / (n - 1)
    assert low < np.var(errors, ddof=1) < high
    assert abs(errors.mean()) < stats.norm.ppf(1 - 1e-7) / math.sqrt(n)


# -- the compression -------------------------------------------------------------------------------------------


def test_compression_merges_the_cells_below_three_sigma_into_one_scaled_cell():
    """σ = 10: cells 1 and 2 (noisy 1 and 25 < 30) merge; their sum 26 is measured as 26/√2 through query 1/√2."""
    one_way = [Measurement((0,), np.array([100.0, 1.0, 25.0, 30.0]), 10.0),
               Measurement((1,), np.array([40.0, 50.0]), 10.0)]
    supports, compressed = compress(one_way)
    assert supports[0].tolist() == [True, False, False, True] and supports[1].tolist() == [True, True]
    assert compressed[0].y == pytest.approx([100.0, 30.0, 26 / math.sqrt(2)])
    assert compressed[0].query == pytest.approx([1.0, 1.0, 1 / math.sqrt(2)])
    assert compressed[0].sigma == 10.0 and compressed[0].clique == (0,)
    assert compressed[1] is one_way[1]  # nothing to merge: the measurement as it was


def test_a_compressed_measurement_is_its_query_applied_to_the_compressed_counts():
    """Without noise the answer is Q · counts on the compressed domain: what the estimation assumes."""
    cells = np.array([[0], [0], [0], [0], [1], [2], [3], [3], [3], [3], [3]])
    exact = marginal_counts(cells, [5], (0,))  # 4, 1, 1, 5, 0
    (keep,), (m,) = compress([Measurement((0,), exact, 1.0)])  # keep: count ≥ 3
    assert keep.tolist() == [True, False, False, True, False]
    squeezed = compress_cells(cells, [keep])
    assert squeezed[:, 0].tolist() == [0, 0, 0, 0, 2, 2, 1, 1, 1, 1, 1]  # kept cells renumbered, merged last
    assert m.query * marginal_counts(squeezed, [3], (0,)) == pytest.approx(m.y)


def test_expanding_compressed_cells_restores_kept_cells_and_draws_merged_ones_uniformly_among_theirs():
    keep = [np.array([False, True, False, True, False]), np.array([True, True])]
    cells = np.column_stack([np.r_[np.zeros(10, int), np.ones(10, int), np.full(3000, 2)],
                             np.tile([0, 1], 1510)])
    out = expand_cells(cells, keep, np.random.default_rng())
    assert out[:10, 0].tolist() == [1] * 10 and out[10:20, 0].tolist() == [3] * 10  # kept: the original cells
    assert np.array_equal(out[:, 1], cells[:, 1])  # a column with nothing merged is unchanged
    merged = np.bincount(out[20:, 0], minlength=5)
    assert merged[[1, 3]].sum() == 0
    assert stats.chisquare(merged[[0, 2, 4]]).pvalue > 1e-6  # uniform among the three merged cells
    original = np.random.default_rng(1).integers(0, 5, (200, 1))
    squeezed = compress_cells(original, keep[:1])
    again = expand_cells(squeezed, keep[:1], np.random.default_rng(2))
    kept_rows = keep[0][original[:, 0]]
    assert np.array_equal(again[kept_rows], original[kept_rows])
    assert not keep[0][again[~kept_rows, 0]].any()  # a merged cell comes back as a merged cell


# -- the row count ---------------------------------------------------------------------------------------------


def test_the_total_is_the_inverse_variance_weighted_estimate_of_every_measurement():
    """By hand: [40, 60] at σ 1 says 100 (variance 2); [110] at σ 2 says 110 (variance 4); [50, 20] through query
    [1, 1/√2] at σ 1 says 50 + 20√2 (v = [1, √2], variance 3). Combined: Σ (x/var) / Σ (1/var)."""
    a = Measurement((0,), np.array([40.0, 60.0]), 1.0)
    b = Measurement((1,), np.array([110.0]), 2.0)
    c = Measurement((2,), np.array([50.0, 20.0]), 1.0, np.array([1.0, 1 / math.sqrt(2)]))
    assert estimate_total([a, b]) == pytest.approx((100 / 2 + 110 / 4) / (1 / 2 + 1 / 4))  # 103.33
    both = ((100 / 2 + 110 / 4 + (50 + 20 * math.sqrt(2)) / 3) / (1 / 2 + 1 / 4 + 1 / 3))
    assert estimate_total([a, b, c]) == pytest.approx(both)
    assert estimate_total([]) == 1.0
    assert estimate_total([Measurement((0,), np.array([-30.0, 5.0]), 1.0)]) == 1.0  # at least one row


# -- the tree model --------------------------------------------------------------------------------------------


def test_logsumexp_is_the_log_of_the_sum_of_exponentials_without_overflow():
    a = np.array([[0.0, 1.0, -2.0], [3.0, 3.0, 0.5]])
    for axis in (0, 1):
        assert _logsumexp(a, axis) == pytest.approx(np.log(np.exp(a).sum(axis=axis)), rel=1e-12)
    assert _logsumexp(a + 1000.0, 1) == pytest.approx(np.log(np.exp(a).sum(axis=1)) + 1000.0, rel=1e-12)


def test_the_tree_is_rooted_at_each_components_lowest_column_in_breadth_first_order_with_contiguous_slices():
    tree = TreeModel([2, 3, 4, 2, 3], [(1, 0), (1, 2), (3, 1), (2, 4)])
    assert tree.order == [0, 1, 2, 3, 4] and tree.parent == [-1, 0, 1, 1, 2]
    assert tree.edges == [(0, 1), (1, 2), (1, 3), (2, 4)]  # oriented parent → child, whatever the input's order
    widths = [2, 3, 4, 2, 3, 2 * 3, 3 * 4, 3 * 2, 4 * 3]
    assert [s.stop - s.start for s in tree.slices.values()] == widths and tree.width == sum(widths)
    starts = [s.start for s in tree.slices.values()]
    assert starts == [0, *np.cumsum(widths)[:-1].tolist()]
    forest = TreeModel([3, 2, 2, 2], [(3, 1)])
    assert forest.order == [0, 1, 3, 2] and forest.parent == [-1, -1, -1, 1] and forest.edges == [(1, 3)]


def test_a_model_refuses_measurements_that_leave_a_clique_unmeasured():
    tree = TreeModel([2, 2], [(0, 1)])
    ones = [Measurement((0,), np.ones(2), 1.0), Measurement((1,), np.ones(2), 1.0)]
    with pytest.raises(ValueError, match="every clique of the model needs a measurement"):
        tree.objective(ones)
    y, query, weight = tree.objective([*ones, Measurement((0, 1), np.arange(4.0), 0.5, np.full(4, 0.5))])
    assert y.tolist() == [1, 1, 1, 1, 0, 1, 2, 3] and query.tolist() == [1] * 4 + [0.5] * 4
    assert weight.tolist() == [1] * 4 + [2] * 4


@pytest.mark.parametrize("sizes, edges", [([2, 3, 4, 2], [(0, 1), (1, 2), (0, 3)]),
                                          ([3, 2, 2, 4, 2], [(3, 1), (0, 2)])])
def test_the_step_size_bound_is_the_largest_eigenvalue_of_the_loss_hessian_over_the_maximal_cliques(sizes, edges):
    """The Hessian built densely from its definition: a variable per cell of each maximal clique (each edge; an
    isolated column itself); a measured edge reads its own cells, a measured column sums its first host edge's."""
    tree = TreeModel(sizes, edges)
    rng = np.random.default_rng(0)
    query, weight = rng.uniform(0.3, 1.5, tree.width), rng.uniform(0.2, 2.0, tree.width)
    hosts = [next((e for e in tree.edges if i in e), (i,)) for i in range(len(sizes))]
    maximal = list(dict.fromkeys([*tree.edges, *hosts]))
    offsets = np.cumsum([0] + [int(np.prod([sizes[j] for j in c])) for c in maximal])
    hessian = np.zeros((offsets[-1], offsets[-1]))
    for clique, where in tree.slices.items():
        host = clique if clique in maximal else hosts[clique[0]]
        start = offsets[maximal.index(host)]
        reads = np.zeros((where.stop - where.start, offsets[-1]))  # measured cells from the variables
        for cell in product(*(range(sizes[j]) for j in host)):
            flat = np.ravel_multi_index(cell, [sizes[j] for j in host])
            mine = cell if clique == host else (cell[host.index(clique[0])],)
            reads[np.ravel_multi_index(mine, [sizes[j] for j in clique]), start + flat] = 1
        curvature = (query[where] * weight[where]) ** 2
        hessian += reads.T @ (curvature[:, None] * reads)
    largest = np.linalg.eigvalsh(hessian)[-1]
    estimate = tree.lipschitz(query, weight)
    assert estimate <= largest * (1 + 1e-9)  # a power iteration's norm never exceeds the largest eigenvalue
    assert estimate == pytest.approx(largest, rel=1e-3)


def full_support_cells(n: int, rng: np.random.Generator) -> np.ndarray:
    """Three dependent columns (2, 3, 4 cells), every pair of values possible: a chain 0 - 1 - 2."""
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 3, n))
    c = np.where(rng.random(n) < 0.6, b + 1, rng.integers(0, 4, n))
    return np.column_stack([a, b, c])


def test_fitting_exact_tree_measurements_reproduces_them_and_lowers_the_loss():
    """Exact, consistent counts on the tree's cliques: the tree model holds them, so the fit's loss goes to 0 and
    total × marginals returns each measured table."""
    cells = full_support_cells(600, np.random.default_rng(0))
    sizes = [2, 3, 4]
    tree = TreeModel(sizes, [(1, 0), (1, 2)])
    measured = [Measurement(c, marginal_counts(cells, sizes, c), 1.0) for c in [(0,), (1,), (2,), *tree.edges]]
    start, start_loss = tree.fit(measured, 600.0, 0)
    assert start == pytest.approx(tree.marginals(np.zeros(tree.width)))  # no step: the uniform model
    probabilities, loss = tree.fit(measured, 600.0, 2000)
    assert loss < 1e-3 * start_loss and loss >= 0
    for m in measured:
        assert 600 * probabilities[tree.slices[m.clique]] == pytest.approx(m.y, abs=0.5), m.clique
    assert tree.fit(measured, 600.0, 300)[1] > loss  # fewer steps, not as far


def test_ancestral_sampling_rounds_the_root_and_each_parent_values_children_to_within_one_row():
    """For any seed: each root cell's count is ⌊n·p⌋ or ⌈n·p⌉, and among the rows of a parent value v (m_v of
    them) each child cell's count is ⌊m_v·p(c | v)⌋ or ⌈…⌉; the sample is no sorted listing."""
    tree = TreeModel([2, 3, 4], [(0, 1), (1, 2)])
    probabilities = tree.marginals(np.random.default_rng(1).normal(scale=1.5, size=tree.width))
    for seed in range(5):
        cells = tree.sample(probabilities, 500, np.random.default_rng(seed))
        assert cells.shape == (500, 3) and cells.min() >= 0 and (cells.max(axis=0) < [2, 3, 4]).all()
        root = np.bincount(cells[:, 0], minlength=2)
        expected = 500 * probabilities[tree.slices[(0,)]]
        assert (np.abs(root - expected) < 1).all() and root.sum() == 500
        for p, c in tree.edges:
            joint = tree._edge(probabilities, p, c)
            for value in range(tree.sizes[p]):
                rows = cells[:, p] == value
                children = np.bincount(cells[rows, c], minlength=tree.sizes[c])
                assert (np.abs(children - rows.sum() * joint[value] / joint[value].sum()) < 1).all()
        assert not (np.diff(cells[:, 0]) >= 0).all()


def test_rounding_gives_the_total_floor_or_ceiling_of_each_share_never_a_zero_weight_and_unbiased_extras():
    rng = np.random.default_rng()
    weights = np.array([0.5, 0.0, 2.0, 1.2, 0.3])
    for _ in range(50):
        values = rounded(weights, 37, rng)
        counts = np.bincount(values, minlength=5)
        assert values.size == 37 and counts[1] == 0
        assert (np.abs(counts - 37 * weights / weights.sum()) < 1).all()
    twos = np.zeros(3, int)  # weights 1 : 1 : 1 and 4 rows: one cell gets the 4th row, each with chance 1/3
    for _ in range(3000):
        twos += np.bincount(rounded(np.ones(3), 4, rng), minlength=3) == 2
    assert twos.sum() == 3000 and stats.chisquare(twos).pvalue > 1e-6
    assert not (np.diff(rounded(np.ones(2), 1000, rng)) >= 0).all()  # shuffled, not 0s then 1s


# -- the selection ---------------------------------------------------------------------------------------------


def three_binary_columns() -> np.ndarray:
    """1000 rows: x1 is x0 with 100 rows flipped, x2 is x1 with 150 others flipped, every column half ones.
    A balanced pair disagreeing in a share f of rows has |true − independent| summed over its 4 cells = |1 − 2f|·n:
    scores (0, 1) 800, (1, 2) 700, (0, 2) 500 (f = 250/1000)."""
    r = np.arange(1000)
    x0 = (r >= 500).astype(int)
    x1 = x0 ^ ((r < 50) | ((r >= 500) & (r < 550)))
    x2 = x1 ^ (((r >= 100) & (r < 175)) | ((r >= 600) & (r < 675)))
    return np.column_stack([x0, x1, x2])


def test_at_a_large_budget_the_selection_is_the_maximum_spanning_tree_in_order_of_weight():
    cells = three_binary_columns()
    exact = [Measurement((j,), marginal_counts(cells, [2, 2, 2], (j,)), 1.0) for j in range(3)]
    scores = {e: np.abs(marginal_counts(cells, [2, 2, 2], e) - 250).sum() for e in [(0, 1), (1, 2), (0, 2)]}
    assert scores == {(0, 1): 800, (1, 2): 700, (0, 2): 500}  # the hand computation above
    for seed in range(3):  # ε_EM = sqrt(8·1000/2) ≈ 63: the best joining pair's weight exceeds the next by e^3000
        edges, epsilon = select(cells, [2, 2, 2], exact, 1000.0, np.random.default_rng(seed))
        assert edges == [(0, 1), (1, 2)]
        assert epsilon == pytest.approx(math.sqrt(8 * 1000.0 / 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_at_any_budget_the_selected_edges_span_the_columns_without_a_cycle(seed):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 3, (200, 5))
    one_way = measure(cells, [3] * 5, [(j,) for j in range(5)], 1.0, rng)
    edges, epsilon = select(cells, [3] * 5, one_way, 1e-6, rng)  # nearly uniform draws
    assert epsilon == pytest.approx(math.sqrt(8 * 1e-6 / 4))
    assert len(edges) == 4 and all(a < b for a, b in edges)
    reached, frontier = {0}, [0]  # 4 edges reaching all 5 columns: a spanning tree
    while frontier:
        node = frontier.pop()
        for other in {b for a, b in edges if a == node} | {a for a, b in edges if b == node}:
            if other not in reached:
                reached.add(other)
                frontier.append(other)
    assert reached == set(range(5))


def test_selection_is_seeded_and_a_single_column_needs_no_tree():
    rng = np.random.default_rng(4)
    cells = rng.integers(0, 3, (100, 6))
    one_way = [Measurement((j,), marginal_counts(cells, [3] * 6, (j,)), 1.0) for j in range(6)]
    runs = [select(cells, [3] * 6, one_way, 1e-4, np.random.default_rng(s))[0] for s in (7, 7, 8, 9, 10)]
    assert runs[0] == runs[1]
    assert any(run != runs[0] for run in runs[2:])  # near-uniform among 6⁴ trees: three more seeds cannot all agree
    assert select(cells[:, :1], [3], one_way[:1], 1.0, rng) == ([], 0.0)


# -- the generator ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon, delta", [(0.0, 1e-5), (-1.0, 1e-5), (float("nan"), 1e-5), (1.0, 0.0),
                                            (1.0, 1.0), (1.0, -1e-5)])
def test_the_generator_refuses_a_budget_outside_its_range_with_a_way_forward(epsilon, delta):
    with pytest.raises(DataError, match="MST needs ε > 0 and 0 < δ < 1") as refused:
        MST(epsilon=epsilon, delta=delta, response="y", iterations=5).fit(make_small_table(60))
    assert "mst:2.5" in str(refused.value.fix)


def test_the_same_seed_measures_selects_and_samples_the_same_and_another_seed_does_not():
    table = make_small_table(120)

    def fitted(seed: int) -> MST:
        return MST(epsilon=2.0, response="y", seed=seed, iterations=30).fit(table)

    first, again, other = fitted(4), fitted(4), fitted(5)
    assert all(np.array_equal(a.y, b.y) for a, b in zip(first.one_way_, again.one_way_, strict=True))
    assert first.edges_ == again.edges_ and np.array_equal(first.marginals_, again.marginals_)
    pd.testing.assert_frame_equal(first.sample(80, seed=1), again.sample(80, seed=1))
    assert not any(np.array_equal(a.y, b.y) for a, b in zip(first.one_way_, other.one_way_, strict=True))


def test_the_generator_samples_the_rows_asked_and_refuses_to_be_saved():
    table = make_small_table(120)
    model = MST(epsilon=5.0, response="y", seed=0, iterations=30).fit(table)
    out = model.sample(333, seed=2)
    assert out.shape == (333, table.shape[1]) and list(out.columns) == list(table.columns)
    assert set(out["color"]) <= set(table["color"]) and set(out["y"]) <= {0, 1}
    assert len(model.tree_.edges) == len(model.encoder_.names) - 1
    with pytest.raises(DataError, match="cannot be saved"):
        model.to_json()
