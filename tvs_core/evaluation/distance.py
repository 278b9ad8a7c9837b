"""Distance-based privacy checks (docs/reference/protocols.md, 'Distance-based checks'): distance to closest record
(DCR) and the Monte Carlo membership inference attack (MCMIA, Gambs et al., PoPETs 2021, §4.6, after Hilprecht,
Härterich and Bernau).

All inputs are numeric matrices (rows x encoded columns) without missing values. Distances are
Euclidean on z-scored columns so that no column dominates through its unit; every pairwise step is
vectorised (sklearn neighbour search or scipy ``cdist`` in bounded chunks).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

from ..seeding import subsample

ETA = 1e-12  # Gambs et al. 2021, §4.6: "an arbitrary small value set to avoid log 0 (we used eta = 1e-12)"
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


def dcr(synthetic: np.ndarray, train: np.ndarray, holdout: np.ndarray, balance: bool = True,
        seed: int = 0) -> dict:
    """Distance to closest record: is each synthetic row nearer to the train rows than to hold-out rows?

    A generator that learned only the distribution is as close to unseen hold-out rows as to train
    rows, so ``closer_to_train_share`` is ~0.5; memorisation pushes it up. That reading needs
    equally many train and hold-out rows (with 4x more train rows even fresh draws are closer to
    train ~80% of the time), so with ``balance`` the larger set is subsampled (seeded) to the size
    of the smaller for the distance part. A verbatim copy therefore scores 1 only when the two sets
    are the same size: with the train rows subsampled, only the copies of the kept rows find their
    match, and a copy scores about 1/2 + 1/2 x (hold-out rows / train rows) (80 train and 40
    hold-out rows: ~0.75). ``exact_copies``, which always uses all train rows, sees every copy.
    Ties count half. Columns are z-scored by the (full) train mean/sd."""
    syn = as_matrix(synthetic, "synthetic")
    tr = as_matrix(train, "train")
    ho = as_matrix(holdout, "holdout")
    _same_width(syn, tr, ho)
    syn_z, tr_z, ho_z = standardise(tr, syn, tr, ho)
    if balance and len(tr_z) != len(ho_z):
        rng = np.random.default_rng(seed)
        size = min(len(tr_z), len(ho_z))
        tr_z, ho_z = subsample(tr_z, size, rng), subsample(ho_z, size, rng)  # only the larger side draws
    d_train = nearest(syn_z, tr_z)[0][:, 0]
    d_holdout = nearest(syn_z, ho_z)[0][:, 0]
    closer = int(np.sum(d_train < d_holdout))
    ties = int(np.sum(d_train == d_holdout))
    n_closer = closer + 0.5 * ties
    return {
        "closer_to_train_share": n_closer / len(syn),
        "n_closer": n_closer,
        "n_ties": ties,
        "n": len(syn),
        "n_train_used": len(tr_z),
        "n_holdout_used": len(ho_z),
        "exact_copies": exact_copies(syn, tr),
        "median_distance_train": float(np.median(d_train)),
        "median_distance_holdout": float(np.median(d_holdout)),
    }


def _top_m_share(scores: np.ndarray, is_train: np.ndarray, m: int) -> float:
    """Share of training records among the m best scores; a tie straddling place m is split in
    proportion (the expected value of random tie-breaking, but deterministic)."""
    threshold = np.sort(scores)[::-1][m - 1]
    above = scores > threshold
    tied = scores == threshold
    slots = m - int(above.sum())
    hits = is_train[above].sum() + slots * is_train[tied].mean()
    return float(hits / m)


def mcmia(train_sample: np.ndarray, control_sample: np.ndarray, synthetic: np.ndarray,
          radius: float | None = None, refinement: bool = True, metric: str = "euclidean") -> dict:
    """Monte Carlo membership inference privacy score (Gambs et al. 2021, §4.6); 0.5 = members and
    non-members indistinguishable, 1 = every training record recovered.

    Score of a record x (S_T and S_C, standardised by the union's mean/sd) over n synthetic g_i:
    the paper writes f(x) = (1/n) sum 1{d(x,g_i) <= r} log(d(x,g_i) + eta), but a plain log
    distance is negative below 1 and decreases as g_i approaches x, so that literal score would
    rank the *least* covered records first, against the paper's own reading ("a high score ...
    synthetic samples very likely to be close to x"). We negate it and measure distances in units
    of r: each neighbour inside U_r(x) adds -log(d/r + eta) >= 0 (0 at the rim, ~27.6 for an exact
    copy), so closer and more neighbours both raise the score. This differs from the negated
    paper term only by the constant log r per neighbour. ``refinement=False`` gives the plain
    Monte Carlo count (1/n) sum 1{d <= r}.

    r is the paper's median heuristic, median over the 2m records of the distance to their
    nearest synthetic point. The paper found Hamming distance (``metric="hamming"``, scipy's
    share of differing columns) stronger than Euclidean on its data; Euclidean is the default."""
    s_t = as_matrix(train_sample, "train_sample")
    s_c = as_matrix(control_sample, "control_sample")
    syn = as_matrix(synthetic, "synthetic")
    _same_width(s_t, s_c, syn)
    if len(s_t) != len(s_c):
        raise ValueError(f"train and control samples must have the same size m, got {len(s_t)} and {len(s_c)}")
    m = len(s_t)
    records = np.vstack([s_t, s_c])
    records_z, syn_z = standardise(records, records, syn)
    n = len(syn_z)
    # two passes over bounded chunks (the radius needs every record's nearest distance first): keeping the
    # 2m x n distance matrix instead took 13 GB at 100 000 rows and got the worker killed
    min_dist = np.concatenate([block.min(axis=1) for _, block in pairwise_chunks(records_z, syn_z, metric)])
    r = float(np.median(min_dist)) if radius is None else float(radius)
    if r < 0:
        raise ValueError("radius must be non-negative")
    unit = r if r > 0 else 1.0  # r = 0: only exact copies are inside U_r and all weigh -log(eta)
    scores = np.empty(len(records_z))
    for rows, block in pairwise_chunks(records_z, syn_z, metric):
        inside = block <= r
        if refinement:  # the weight only where a neighbour is inside U_r (few cells); 0 elsewhere, as summed
            weight = np.zeros_like(block)
            weight[inside] = np.maximum(-np.log(block[inside] / unit + ETA), 0.0)
            scores[rows] = weight.sum(axis=1) / n
        else:
            scores[rows] = inside.sum(axis=1) / n
    is_train = np.r_[np.ones(m, dtype=bool), np.zeros(m, dtype=bool)]
    return {
        "privacy_score": _top_m_share(scores, is_train, m),
        "radius": r,
        "m": m,
        "n_synthetic": n,
        "mean_score_train": float(scores[:m].mean()),
        "mean_score_control": float(scores[m:].mean()),
    }
