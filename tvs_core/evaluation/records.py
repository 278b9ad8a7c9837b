"""Tidy metric records: one row per (model, level, metric, attribute, target, iteration)."""

from __future__ import annotations

import pandas as pd

HOLDER = "tvinesynth"  # the data holder's own model (TVineSynth.name)
REAL = "real"  # the real training rows: TRTR and the release attack on them
RAW = "raw"  # the attribute game's attack on bootstrap samples of the real reference rows
# the real training rows with every column shuffled on its own: margins kept, every dependence gone — what
# "nothing learnt" looks like for each metric, measured in the same run (the privacy scale's floor)
SHUFFLED = "shuffled"
REFERENCE_MODELS = (REAL, RAW, SHUFFLED)
# role of a stored sweep's first look (jobs/first_look.py): the holder's recipe fitted on this many training
# rows, one set per level; shown on the live scatter until the level's own results arrive, used nowhere else
FIRST_LOOK = "first_look"
FIRST_LOOK_ROWS = 500  # real-data references in the records, not generators
COLUMNS = ["model", "level", "metric", "attribute", "target", "target_kind", "iteration", "value", "role"]


def record(model: str, level, metric: str, value: float, attribute: str | None = None, target=None,
           target_kind: str | None = None, iteration=None, role: str = "release") -> dict:
    """``role`` says where a number comes from: 'release' (the holder's own model), 'game'
    (an attack game's generators), 'reference' (real data, e.g. TRTR or the raw AIA baseline)."""
    return {"model": model, "level": level, "metric": metric, "attribute": attribute, "target": target,
            "target_kind": target_kind, "iteration": iteration, "value": float(value), "role": role}


def to_frame(records: list[dict]) -> pd.DataFrame:
    """Records in one canonical order: results arrive from workers in any order, and intervals
    (bootstraps over the replicates) must not depend on it."""
    frame = pd.DataFrame(records, columns=COLUMNS)
    frame["level"] = frame["level"].astype("Int64")
    return frame.sort_values(COLUMNS, na_position="first", kind="stable").reset_index(drop=True)


def holder_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The data holder's records (its levels; baselines and references left out). A summary is read through
    ``summary.Summary.holder()``."""
    return frame[frame["model"] == HOLDER]
