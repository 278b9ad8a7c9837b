"""``tvs_core.evaluation.distance`` function by function, on hand-sized inputs: the matrix checks, the z-scoring,
the Gower coordinates, the neighbour search against brute force, the chunked distances, exact copies, DCR and
MCMIA's invariants and hand-computed answers. The statistical readings of DCR and MCMIA (a copying generator,
fresh draws) are in ``test_fidelity_distance.py``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from tvs_core.evaluation import distance
from tvs_core.evaluation.distance import (
    _smallest,
    as_matrix,
    exact_copies,
    gower_space,
    nearest,
    pairwise_chunks,
    standardise,
)
from tvs_core.evaluation.metrics.closeness import dcr
from tvs_core.evaluation.metrics.membership.attacks import ETA, _top_m_share, mcmia


def points(n, d, seed):
    return np.random.default_rng(seed).normal(size=(n, d))


# --- as_matrix and widths -----------------------------------------------------------------------------------------

def test_as_matrix_makes_a_vector_one_column_of_floats():
    x = as_matrix([1, 2, 3])
    assert x.shape == (3, 1) and x.dtype == float and x[:, 0].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("values, message", [
    (np.zeros((2, 2, 2)), "rows x columns"),
    (np.zeros((0, 3)), "has no rows"),
    (np.array([[1.0, np.inf]]), "NaN or infinite"),
    (np.array([[np.nan]]), "NaN or infinite"),
])
def test_as_matrix_refuses_what_has_no_distance_and_names_the_input(values, message):
    with pytest.raises(ValueError, match=message) as caught:
        as_matrix(values, "holdout")
    assert "holdout" in str(caught.value)


def test_dcr_and_mcmia_refuse_matrices_of_different_widths():
    with pytest.raises(ValueError, match="same number of columns"):
        dcr(points(5, 2, 0), points(5, 3, 1), points(5, 3, 2))
    with pytest.raises(ValueError, match="same number of columns"):
        mcmia(points(5, 3, 0), points(5, 3, 1), points(5, 2, 2))


# --- standardise and gower_space ----------------------------------------------------------------------------------

def test_standardise_uses_the_reference_mean_and_sd_for_every_array():
    reference = np.array([[0.0, 5.0], [2.0, 5.0]])  # column 0: mean 1, sd 1; column 1 constant
    ref_z, other_z = standardise(reference, reference, np.array([[3.0, 7.0]]))
    assert ref_z.tolist() == [[-1.0, 0.0], [1.0, 0.0]]
    # a constant column keeps sd 1: it is only centred, never divided by zero
    assert other_z.tolist() == [[2.0, 2.0]]


def test_standardised_reference_has_zero_mean_and_unit_sd():
    x = points(50, 3, 3) * [1.0, 100.0, 0.01] + [5.0, -300.0, 2.0]
    (z,) = standardise(x, x)
    assert np.allclose(z.mean(axis=0), 0) and np.allclose(z.std(axis=0), 1)


def test_gower_distance_is_one_per_fully_different_column_and_zero_for_a_copy():
    """Numeric columns are scaled by their range over all arrays, a categorical mismatch costs 1: two rows at
    opposite ends of the numeric range with different categories are 2 apart, and a row is 0 from itself."""
    a = np.array([[0.0, 1.0], [2.0, 1.0]])
    b = np.array([[4.0, 2.0]])
    x, y = gower_space(np.array([False, True]), a, b)
    assert x.shape[0] == 2 and y.shape[0] == 1
    assert cdist(y, x, "cityblock").tolist() == [[2.0, 1.5]]  # |4-0|/4 + 1 and |4-2|/4 + 1
    assert cdist(x, x, "cityblock").diagonal().tolist() == [0.0, 0.0]


def test_gower_distance_is_bounded_by_the_number_of_columns_and_symmetric():
    rng = np.random.default_rng(4)
    a = np.c_[rng.normal(size=30), rng.integers(0, 4, 30), rng.uniform(size=30), rng.integers(0, 2, 30)]
    b = np.c_[rng.normal(size=20) * 3, rng.integers(0, 5, 20), rng.uniform(size=20), rng.integers(0, 2, 20)]
    x, y = gower_space(np.array([False, True, False, True]), a, b)
    d = cdist(y, x, "cityblock")
    assert d.min() >= 0 and d.max() <= 4 + 1e-12
    assert np.allclose(cdist(x, y, "cityblock"), d.T)


def test_gower_space_of_a_constant_numeric_column_adds_nothing():
    a = np.array([[3.0, 0.0], [3.0, 1.0]])
    x, _ = gower_space(np.array([False, False]), a, a)
    assert np.isfinite(x).all() and cdist(x[:1], x[1:], "cityblock")[0, 0] == 1.0  # only column 1 differs


# --- _smallest, nearest, pairwise_chunks --------------------------------------------------------------------------

def test_smallest_returns_the_k_smallest_in_ascending_order():
    block = np.array([[5.0, 1.0, 4.0, 0.0, 3.0], [0.0, 9.0, 8.0, 7.0, 1.0]])
    assert _smallest(block, 1).tolist() == [[3], [0]]
    assert _smallest(block, 3).tolist() == [[3, 1, 4], [0, 4, 3]]
    assert _smallest(block, 5).tolist() == np.argsort(block, axis=1).tolist()
    assert _smallest(block, 9).shape == (2, 5)  # k beyond the width: every column


def test_smallest_breaks_a_tie_at_the_first_place_by_the_lower_index():
    assert _smallest(np.array([[2.0, 1.0, 1.0, 3.0]]), 1).tolist() == [[1]]
    assert _smallest(np.array([[1.0, 1.0, 1.0]]), 3).tolist() == [[0, 1, 2]]


def test_smallest_keeps_the_lower_indices_of_a_tie_at_the_kth_place():
    """Which neighbours the GDPR linkability attack compares must not depend on the CPU's selection kernel."""
    block = np.array([[1.0, 2.0, 2.0, 1.0, 1.0, 0.0, 1.0, 1.0, 2.0, 2.0]])
    assert _smallest(block, 3).tolist() == [[5, 0, 3]]


def test_smallest_is_a_stable_sort_cut_at_k_on_blocks_full_of_ties():
    rng = np.random.default_rng(5)
    for _ in range(300):
        block = rng.integers(0, 4, size=(int(rng.integers(1, 6)), int(rng.integers(3, 12)))).astype(float)
        k = int(rng.integers(2, block.shape[1]))
        assert _smallest(block, k).tolist() == np.argsort(block, axis=1, kind="stable")[:, :k].tolist()


@pytest.mark.parametrize("metric", ["euclidean", "cityblock"])
def test_nearest_finds_the_same_distances_as_brute_force(metric):
    query, reference = points(15, 3, 5), points(40, 3, 6)
    dist, index = nearest(query, reference, k=4, metric=metric)
    brute = np.sort(cdist(query, reference, metric), axis=1)[:, :4]
    assert dist.shape == index.shape == (15, 4)
    assert np.allclose(dist, brute)
    assert np.allclose(dist, np.take_along_axis(cdist(query, reference, metric), index, axis=1))
    assert np.all(np.diff(dist, axis=1) >= 0)  # ascending


def test_nearest_puts_an_exact_copy_at_exactly_zero_even_far_from_the_origin():
    """The |a|^2 - 2ab + |b|^2 expansion loses a copy's zero on large values; the recomputed distance keeps it."""
    x = points(30, 4, 7) * 1e3 + 1e7
    dist, index = nearest(x, x)
    assert (dist[:, 0] == 0.0).all() and index[:, 0].tolist() == list(range(30))


def test_nearest_follows_a_permutation_of_the_reference_rows():
    query, reference = points(10, 2, 8), points(25, 2, 9)
    order = np.random.default_rng(10).permutation(25)
    dist, index = nearest(query, reference, k=3)
    dist_p, index_p = nearest(query, reference[order], k=3)
    assert np.array_equal(dist, dist_p) and np.array_equal(index, order[index_p])


def test_nearest_asks_for_no_more_neighbours_than_there_are_reference_rows():
    dist, index = nearest(points(3, 2, 11), points(2, 2, 12), k=5)
    assert dist.shape == (3, 2) and sorted(index[0]) == [0, 1]
    dist, index = nearest(points(4, 2, 13), points(4, 2, 13), k=10, exclude_self=True)
    assert dist.shape == (4, 3) and all(i not in row for i, row in enumerate(index))


@pytest.mark.parametrize("metric", ["euclidean", "cityblock"])
def test_nearest_excluding_self_drops_the_own_row_even_among_ties(metric):
    """Three identical rows: each row's own index may be tied beyond the list; it is still never returned."""
    x = np.zeros((3, 2))
    dist, index = nearest(x, x, k=1, exclude_self=True, metric=metric)
    assert dist[:, 0].tolist() == [0.0, 0.0, 0.0]
    assert all(index[i, 0] != i for i in range(3))


def test_pairwise_chunks_cover_every_row_once_and_equal_the_full_matrix(monkeypatch):
    a, b = points(23, 3, 14), points(10, 3, 15)
    monkeypatch.setattr(distance, "_CHUNK_CELLS", 10 * 4)  # four rows of a per chunk
    chunks = list(pairwise_chunks(a, b, "cityblock"))
    assert [(s.start, s.stop) for s, _ in chunks] == [(0, 4), (4, 8), (8, 12), (12, 16), (16, 20), (20, 23)]
    assert np.allclose(np.vstack([block for _, block in chunks]), cdist(a, b, "cityblock"))


# --- exact_copies -------------------------------------------------------------------------------------------------

def test_exact_copies_counts_every_synthetic_copy_and_matches_across_int_and_float():
    train = np.array([[1, 2], [3, 4]])
    synthetic = np.array([[1.0, 2.0], [1.0, 2.0], [4.0, 3.0], [3.0, 4.0]])
    assert exact_copies(synthetic, train) == 3  # a repeated copy counts each time; a reordered row is no copy
    assert exact_copies(train, synthetic) == 2


def test_exact_copies_compares_object_cells_value_for_value():
    train = np.array([["a", 1], ["b", 2]], dtype=object)
    synthetic = np.array([["a", 1], ["b", 3], ["c", 2]], dtype=object)
    assert exact_copies(synthetic, train) == 1
    assert exact_copies(train, train) == 2


# --- DCR ----------------------------------------------------------------------------------------------------------

def test_dcr_hand_computed_on_one_column():
    """Train (0, 2) has mean 1 and sd 1, so z = raw - 1. A synthetic row at 1 is 1 from train and 9 from a hold-out
    at (10, 12); one at 3 is 1 from both train's 2 and a hold-out at 4: a tie, counted half."""
    out = dcr([[1.0]], [[0.0], [2.0]], [[10.0], [12.0]])
    assert out["closer_to_train_share"] == 1.0 and out["n_ties"] == 0
    assert out["median_distance_train"] == 1.0 and out["median_distance_holdout"] == 9.0
    tie = dcr([[3.0]], [[0.0], [2.0]], [[4.0], [6.0]])
    assert tie["n_ties"] == 1 and tie["n_closer"] == 0.5 and tie["closer_to_train_share"] == 0.5
    assert tie["exact_copies"] == 0 and dcr([[2.0]], [[0.0], [2.0]], [[4.0], [6.0]])["exact_copies"] == 1


def test_dcr_is_unchanged_by_the_order_of_the_synthetic_and_train_rows():
    synthetic, train, holdout = points(40, 3, 16), points(30, 3, 17), points(30, 3, 18)
    out = dcr(synthetic, train, holdout)
    assert dcr(synthetic[::-1], train[np.random.default_rng(0).permutation(30)], holdout) == pytest.approx(out)


def test_dcr_does_not_depend_on_the_units_of_a_column():
    synthetic, train, holdout = points(40, 3, 19), points(30, 3, 20), points(30, 3, 21)
    units = np.array([1000.0, 0.001, 1.0])
    out, rescaled = dcr(synthetic, train, holdout), dcr(synthetic * units, train * units, holdout * units)
    assert rescaled["closer_to_train_share"] == out["closer_to_train_share"]
    assert rescaled["median_distance_train"] == pytest.approx(out["median_distance_train"])


def test_dcr_shares_of_a_set_and_of_its_mirror_add_up_to_one():
    """Hold-out = -train (same mean 0 and sd), synthetic mirrored with it: every row closer to train becomes closer
    to the hold-out, so the two shares add up to 1, ties included."""
    train = points(20, 2, 22)
    train = train - train.mean(axis=0)
    synthetic = np.r_[points(30, 2, 23), np.zeros((1, 2))]  # the origin: a tie in both
    a = dcr(synthetic, train, -train)
    b = dcr(-synthetic, train, -train)
    assert a["closer_to_train_share"] + b["closer_to_train_share"] == pytest.approx(1.0)
    assert a["n_ties"] == b["n_ties"] >= 1


def test_dcr_without_balance_uses_every_row():
    out = dcr(points(10, 2, 24), points(40, 2, 25), points(10, 2, 26), balance=False)
    assert out["n_train_used"] == 40 and out["n_holdout_used"] == 10 and out["n"] == 10
    assert 0.0 <= out["closer_to_train_share"] <= 1.0


# --- MCMIA --------------------------------------------------------------------------------------------------------

def test_top_m_share_hand_computed_with_and_without_ties():
    scores = np.array([4.0, 3.0, 2.0, 1.0])
    assert _top_m_share(scores, np.array([True, False, True, False]), 2) == 0.5
    # place 2 is a tie of one train and one control record: one slot, half a hit
    assert _top_m_share(np.array([3.0, 2.0, 2.0, 1.0]), np.array([True, True, False, False]), 2) == 0.75


def test_mcmia_scores_of_train_and_control_swapped_add_up_to_one():
    """The attacker's ranking is symmetric in the two samples: whatever share of the top m is train's when one set
    is called train, the rest is when the roles are swapped."""
    a, b, synthetic = points(40, 3, 27), points(40, 3, 28), np.r_[points(60, 3, 29), points(40, 3, 27)[:10] + 0.01]
    for refinement in (True, False):
        forward = mcmia(a, b, synthetic, refinement=refinement)
        backward = mcmia(b, a, synthetic, refinement=refinement)
        assert forward["privacy_score"] + backward["privacy_score"] == pytest.approx(1.0)
        assert forward["radius"] == pytest.approx(backward["radius"])
        assert forward["mean_score_train"] == pytest.approx(backward["mean_score_control"])


def test_mcmia_is_unchanged_by_the_order_of_synthetic_rows_and_the_units_of_a_column():
    a, b, synthetic = points(30, 2, 30), points(30, 2, 31), points(50, 2, 32)
    out = mcmia(a, b, synthetic)
    assert mcmia(a, b, synthetic[::-1]) == pytest.approx(out)
    units = np.array([250.0, 0.01])
    assert mcmia(a * units, b * units, synthetic * units) == pytest.approx(out)


def test_mcmia_radius_zero_counts_only_exact_copies_hand_computed():
    """One synthetic row, a copy of train record 0: at r = 0 it alone scores -log(eta) / n; the other three records
    tie at 0 for the second of m = 2 places, one of them train: 1 + 1/3 hits."""
    train, control = np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 1.0]])
    out = mcmia(train, control, train[:1], radius=0.0)
    assert out["radius"] == 0.0 and out["n_synthetic"] == 1 and out["m"] == 2
    assert out["mean_score_train"] == pytest.approx(-np.log(ETA) / 2)
    assert out["mean_score_control"] == 0.0
    assert out["privacy_score"] == pytest.approx(2 / 3)


def test_mcmia_plain_count_is_the_share_of_synthetic_rows_inside_the_radius():
    """Columns z-score by the union (mean 5, sd 5): radius 1 is 5 raw units. Each train record has one of the two
    synthetic rows within it, no control record has any."""
    train, control = np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[0.0, 10.0], [10.0, 10.0]])
    synthetic = np.array([[0.1, 0.0], [10.5, 0.0]])
    out = mcmia(train, control, synthetic, radius=1.0, refinement=False)
    assert out["mean_score_train"] == 0.5 and out["mean_score_control"] == 0.0
    assert out["privacy_score"] == 1.0


def test_mcmia_refuses_a_negative_radius():
    with pytest.raises(ValueError, match="non-negative"):
        mcmia(points(5, 2, 0), points(5, 2, 1), points(5, 2, 2), radius=-0.1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_verbatim_copy_scores_1_on_balanced_sets_and_about_three_quarters_when_train_is_halved(seed):
    """The balancing subsamples the train rows to the hold-out's size, so only the copies of kept rows find their
    match: with twice as many train rows, half the copies do, and the rest fall either side at random."""
    train, holdout = points(800, 3, seed), points(400, 3, seed + 10)
    assert dcr(train[:400], train[:400], holdout, seed=seed)["closer_to_train_share"] == 1.0
    halved = dcr(train, train, holdout, seed=seed)
    assert halved["n_train_used"] == 400 and halved["exact_copies"] == 800
    assert halved["closer_to_train_share"] == pytest.approx(0.75, abs=0.06)  # sd of the random half: 0.0125
