"""Closeness: whether published rows sit nearer the training rows than the hold-out rows, or copy them outright
(distance to closest record; ``closeness`` below). Listed with membership risk."""

from __future__ import annotations

from ..distance import dcr
from ..set_metrics import SyntheticSet
from .base import Direction, Family, Group, Metric, Source, register


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
