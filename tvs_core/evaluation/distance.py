"""The distances the privacy and fidelity families share (docs/reference/protocols.md, 'Distance-based checks'):
matrix checks, z-scoring, Gower coordinates, nearest neighbours in bounded chunks, exact copies. The families that
read them: closeness (DCR), membership (MCMIA and the shadow-free attacks), fidelity, gdpr, audit.

All inputs are numeric matrices (rows x encoded columns) without missing values. Distances are
Euclidean on z-scored columns so that no column dominates through its unit; every pairwise step is
vectorised (sklearn neighbour search or scipy ``cdist`` in bounded chunks).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

_CHUNK_CELLS = 4_000_000  # distance-matrix cells per chunk: ~32 MB of float64


def as_matrix(values: np.ndarray, name: str = "values") -> np.ndarray:
    """2-D float copy; NaN/inf are refused because a distance to a missing cell is undefined."""
    x = np.asarray(values, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"{name} must be a rows x columns matrix, got shape {x.shape}")
    if len(x) == 0:
        raise ValueError(f"{name} has no rows")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} contains NaN or infinite values; impute or drop them before distance metrics")
    return x


def _same_width(*arrays: np.ndarray) -> None:
    widths = {a.shape[1] for a in arrays}
    if len(widths) != 1:
        raise ValueError(f"all matrices need the same number of columns, got {sorted(widths)}")


def standardise(reference: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """z-score every array by the reference's column mean/sd; constant columns keep sd 1."""
    mean = reference.mean(axis=0)
    sd = reference.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return [(a - mean) / sd for a in arrays]


def gower_space(categorical: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """The arrays in coordinates where the city-block (L1) distance is the Gower-type distance of Giomi et al.
    (PETS 2023; anonymeter's ``MixedTypeKNeighbors``): numeric columns divided by their range over all the arrays
    (any two values differ by at most 1), categorical codes one-hot with 1/2 per indicator (a mismatch costs 1)."""
    pooled = np.vstack(arrays)
    categorical = np.asarray(categorical, dtype=bool)
    numeric = ~categorical
    span = pooled[:, numeric].max(axis=0) - pooled[:, numeric].min(axis=0)
    span = np.where(span > 0, span, 1.0)
    levels = [np.unique(pooled[:, j]) for j in np.flatnonzero(categorical)]

    def place(a: np.ndarray) -> np.ndarray:
        hot = [0.5 * (a[:, [j]] == values[None, :]) for j, values in zip(np.flatnonzero(categorical), levels,
                                                                           strict=True)]
        return np.hstack([a[:, numeric] / span, *hot])

    return [place(a) for a in arrays]


def _smallest(block: np.ndarray, k: int) -> np.ndarray:
    """Column indices of each row's k smallest entries, ascending, ties by the lower index (no full sort)."""
    if k == 1:
        return block.argmin(axis=1)[:, None]
    if k >= block.shape[1]:
        return np.argsort(block, axis=1, kind="stable")
    # argpartition finds the k-th smallest value, but which of the entries tied at it it keeps depends on its
    # selection kernel (numpy picks one by CPU): the tie is settled here by index, the same on every machine
    kth = np.take_along_axis(block, np.argpartition(block, k - 1, axis=1)[:, k - 1:k], axis=1)
    tied = block == kth
    keep = (block < kth) | (tied & (np.cumsum(tied, axis=1) <= k - (block < kth).sum(axis=1, keepdims=True)))
    part = np.nonzero(keep)[1].reshape(len(block), k)
    return np.take_along_axis(part, np.lexsort((part, np.take_along_axis(block, part, axis=1))), axis=1)


def nearest(query: np.ndarray, reference: np.ndarray, k: int = 1,
            exclude_self: bool = False, metric: str = "euclidean") -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the k nearest reference rows, sorted ascending (``metric``: "euclidean" or
    "cityblock", the L1 distance of ``gower_space``).

    sklearn's brute search uses the |a|^2 - 2ab + |b|^2 expansion, which turns an exact copy into a
    small positive distance; the returned distances are therefore recomputed exactly, so copies sit
    at 0 and ties between copies are real ties. ``exclude_self`` (query is reference) drops each
    row's own entry; an exact duplicate of the row still counts as a neighbour at distance 0."""
    extra = 1 if exclude_self else 0
    kk = min(k + extra, len(reference))
    if metric == "cityblock":  # exact L1 blocks: sklearn's tree and brute searches cost several times more here
        index = np.vstack([_smallest(block, kk) for _, block in pairwise_chunks(query, reference, metric)])
    else:
        index = NearestNeighbors(n_neighbors=kk).fit(reference).kneighbors(query, return_distance=False)
    if exclude_self:
        rows = np.arange(len(query))[:, None]
        is_self = index == rows
        # drop the own index when present, else the farthest candidate (own row tied beyond the list)
        drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), kk - 1)
        keep = np.ones_like(index, dtype=bool)
        keep[np.arange(len(query)), drop] = False
        index = index[keep].reshape(len(query), kk - 1)
    gap = query[:, None, :] - reference[index]
    dist = np.abs(gap).sum(axis=2) if metric == "cityblock" else np.sqrt((gap ** 2).sum(axis=2))
    order = np.argsort(dist, axis=1, kind="stable")
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(index, order, axis=1)


def pairwise_chunks(a: np.ndarray, b: np.ndarray, metric: str = "euclidean") -> Iterator[tuple[slice, np.ndarray]]:
    """Yield (row slice of a, distance block a[slice] x b) with bounded memory."""
    step = max(1, _CHUNK_CELLS // max(1, len(b)))
    for start in range(0, len(a), step):
        rows = slice(start, min(start + step, len(a)))
        yield rows, cdist(a[rows], b, metric=metric)


def _row_keys(x: np.ndarray) -> list:
    """Key per row for exact matching: bytes of numeric rows (-0.0 folded into 0.0), tuples of others."""
    x = np.asarray(x)
    if x.dtype == object:
        return [tuple(row) for row in x]
    x = np.ascontiguousarray(x.astype(float) + 0.0)
    return [row.tobytes() for row in x]


def exact_copies(synthetic: np.ndarray, train: np.ndarray) -> int:
    """Synthetic rows identical, value for value, to some train row (raw values: numbers, or any
    objects such as the released table's cells)."""
    seen = set(_row_keys(train))
    return int(sum(key in seen for key in _row_keys(synthetic)))
