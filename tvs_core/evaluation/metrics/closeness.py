"""Closeness: whether published rows sit nearer the training rows than the hold-out rows, or copy them outright
(distance to closest record, ``dcr``, docs/reference/protocols.md 'Distance-based checks'; ``closeness`` the
family's adapter). Listed with membership risk. Distances are those of ``evaluation/distance.py``: Euclidean on
columns z-scored by the training rows."""

from __future__ import annotations

import numpy as np

from ...seeding import subsample
from ..distance import _same_width, as_matrix, exact_copies, nearest, standardise
from ..set_metrics import SyntheticSet
from .base import Direction, Family, Group, Metric, Source, register


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


def closeness(s: SyntheticSet) -> dict:
    found = dcr(s.values, s.data.train, s.data.test)
    return {"dcr_closer_to_train": found["closer_to_train_share"], "exact_copies": found["exact_copies"]}


CLOSENESS = register(Family("closeness", 50, (
    Metric("dcr_closer_to_train", "Share of synthetic rows closer to training than to hold-out rows",
           "Share closer to training rows", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of synthetic rows whose nearest real row is a training row rather than a hold-out row "
           "(distance to closest record): about 0.5 when the release does not copy its training rows."),
    Metric("exact_copies", "Exact copies of training rows", "Exact copies", "rows", Direction.LOWER, (0.0, None),
           Group.MEMBERSHIP_RISK, Source.RELEASE,
           "How many synthetic rows equal a training row on every modelled column: each one is a real record "
           "released."),
), compute=closeness))
