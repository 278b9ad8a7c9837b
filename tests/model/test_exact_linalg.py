"""tvs_core.model.exact_linalg: the BLAS-free product and Cholesky factor a release's sampling goes through."""

import numpy as np
import pytest

from tvs_core.model.exact_linalg import exact_product, psd_cholesky


def test_product_of_two_small_matrices_is_the_hand_computed_one():
    assert np.array_equal(exact_product([[1, 2], [3, 4]], [[5, 6], [7, 8]]), [[19, 22], [43, 50]])


@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 3, 4), (7, 6, 2), (3, 4, 6)])
def test_product_agrees_with_numpy(shape):
    n, k, m = shape
    rng = np.random.default_rng(sum(shape))
    left, right = rng.normal(size=(n, k)), rng.normal(size=(k, m))
    assert exact_product(left, right).shape == (n, m)
    assert np.allclose(exact_product(left, right), left @ right, rtol=1e-12, atol=1e-12)


def test_product_agrees_with_numpy_on_triangular_and_gappy_right_matrices():
    """Rows of zeros, a triangular map (contiguous non-zeros) and rows with gaps (non-contiguous columns)."""
    rng = np.random.default_rng(3)
    left = rng.normal(size=(6, 5))
    triangular = np.tril(rng.normal(size=(5, 5)))
    gappy = rng.normal(size=(5, 5)) * np.array([[1, 0, 1, 0, 1], [0, 0, 0, 0, 0], [0, 1, 0, 0, 1],
                                                 [1, 0, 0, 0, 0], [0, 1, 1, 0, 0]])
    for right in (triangular, triangular.T, gappy, np.zeros((5, 5))):
        assert np.allclose(exact_product(left, right), left @ right, rtol=1e-12, atol=1e-12)


def test_block_size_does_not_change_a_single_bit():
    rng = np.random.default_rng(8)
    left, right = rng.normal(size=(11, 4)), np.triu(rng.normal(size=(4, 4)))
    whole = exact_product(left, right)
    for block in (1, 2, 5, 11, 64):
        assert np.array_equal(exact_product(left, right, block=block), whole)


def test_a_rows_result_does_not_depend_on_the_other_rows():
    """The same draw gives the same bytes whether it is sampled alone or among others."""
    rng = np.random.default_rng(9)
    left, right = rng.normal(size=(9, 4)), rng.normal(size=(4, 3))
    whole = exact_product(left, right, block=4)
    for i in range(len(left)):
        assert np.array_equal(exact_product(left[i:i + 1], right), whole[i:i + 1])


def test_no_rows_give_an_empty_result_of_the_right_width():
    assert exact_product(np.zeros((0, 3)), np.ones((3, 2))).shape == (0, 2)


def test_cholesky_of_a_small_matrix_is_the_hand_computed_one():
    assert np.allclose(psd_cholesky([[4, 2], [2, 3]]), [[2, 0], [1, np.sqrt(2)]], rtol=0, atol=1e-15)


def test_cholesky_agrees_with_numpy_on_a_positive_definite_matrix():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(5, 5))
    matrix = a @ a.T + 5 * np.eye(5)
    factor = psd_cholesky(matrix)
    assert np.allclose(factor, np.linalg.cholesky(matrix), rtol=1e-12, atol=1e-12)
    assert np.array_equal(factor, np.tril(factor)) and (np.diag(factor) > 0).all()


def test_cholesky_of_collinear_columns_has_a_zero_column_and_still_reproduces_the_matrix():
    """A correlation matrix with a column repeated (numpy's Cholesky refuses it)."""
    matrix = np.array([[1.0, 0.5, 1.0], [0.5, 1.0, 0.5], [1.0, 0.5, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(matrix)
    factor = psd_cholesky(matrix)
    assert np.array_equal(factor[:, 2], np.zeros(3))
    assert np.allclose(factor @ factor.T, matrix, rtol=0, atol=1e-12)


def test_cholesky_of_the_identity_is_the_identity_and_of_zeros_is_zeros():
    assert np.array_equal(psd_cholesky(np.eye(4)), np.eye(4))
    assert np.array_equal(psd_cholesky(np.zeros((3, 3))), np.zeros((3, 3)))
