"""Linear algebra with the same bits on every CPU, for the sampling path of a release.

BLAS (OpenBLAS, picked by numpy and scipy) chooses its kernels by CPU, and kernels sum in different orders,
so a matrix product can differ in the last digit from one machine to another, and a factorisation more. What a
release draws goes through these functions instead: elementwise numpy operations (each correctly rounded,
whatever the vector width) in a fixed order, and ``math.fsum`` (exactly rounded) for inner products.
"""

from __future__ import annotations

import math

import numpy as np


def exact_product(left: np.ndarray, right: np.ndarray, block: int = 1024) -> np.ndarray:
    """``left @ right`` summed term by term in the order of ``right``'s rows, skipping zeros (a vine's
    normal-score map is triangular); blocks of rows keep the running sums in cache."""
    left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    out = np.zeros((left.shape[0], right.shape[1]))
    spans = []
    for k, row in enumerate(right):
        columns = np.flatnonzero(row)
        if columns.size:
            contiguous = columns[-1] + 1 - columns[0] == columns.size
            spans.append((k, slice(columns[0], columns[-1] + 1) if contiguous else columns))
    for start in range(0, left.shape[0], block):
        part, rows = out[start:start + block], left[start:start + block]
        for k, columns in spans:
            part[:, columns] += rows[:, k:k + 1] * right[k, columns]
    return out


def psd_cholesky(matrix: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """A lower-triangular L with L Lᵀ = ``matrix`` for a positive semi-definite matrix (a correlation matrix of
    collinear columns included: a pivot below ``tolerance`` gives a zero column)."""
    matrix = np.asarray(matrix, dtype=float)
    d = len(matrix)
    factor = np.zeros((d, d))
    for j in range(d):
        pivot = matrix[j, j] - math.fsum(factor[j, :j] * factor[j, :j])
        if pivot <= tolerance:
            continue
        factor[j, j] = math.sqrt(pivot)
        for i in range(j + 1, d):
            factor[i, j] = (matrix[i, j] - math.fsum(factor[i, :j] * factor[j, :j])) / factor[j, j]
    return factor
