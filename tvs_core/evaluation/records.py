"""Tidy metric records: one ``Record`` per (model, level, metric, attribute, target, iteration), built by ``record``.

A record is typed in memory (``RecordRole`` a member, ``value`` a float) and kept in the store as the same text as
ever (``Record.stored``: a dict of plain values, its role the member's text), so that a job stored by an earlier
version reads back (``Record.from_stored``) and stored bytes, job ids and summaries do not change.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum

import pandas as pd

from ..errors import TVSError
from ..model.registry import EPSILON_GENERATORS, BaselineName

HOLDER = "tvinesynth"  # the data holder's own model (TVineSynth.name)
REAL = "real"  # the real training rows: TRTR and the release attack on them
RAW = "raw"  # the attribute game's attack on bootstrap samples of the real reference rows
# the real training rows with every column shuffled on its own: margins kept, every dependence gone — what
# "nothing learnt" looks like for each metric, measured in the same run (the privacy scale's floor)
SHUFFLED = "shuffled"
REFERENCE_MODELS = (REAL, RAW, SHUFFLED)
FIRST_LOOK_ROWS = 500  # real-data references in the records, not generators

# every model a record can be of, by the name a person reads: the figures' legends, the card, the report and the
# manifest's sentences (the one place a generator or a reference is named)
MODEL_LABELS = {
    HOLDER: "TVineSynth",
    "rvine": "R-vine (Dissmann)",
    "rvine_star1": "R-vine, star tree 1",
    "gaussian_copula": "Gaussian copula",
    "independent": "Independent margins",
    "dp_vine": "DP vine",
    "ctgan": "CTGAN",
    "tvae": "TVAE",
    "privbayes": "PrivBayes",
    "mst": "MST",
    "privpgd": "PrivPGD",
    REAL: "Real data",
    RAW: "Real data (attack game)",
    SHUFFLED: "Real data, columns shuffled",
}


def model_label(name: str) -> str:
    """The name a person reads for a model of the records (``dp_vine:<eps>`` included): "DP vine (ε = 0.1)"."""
    parsed = BaselineName.parse(name)
    generator, parameter = parsed.generator, parsed.parameter
    if generator in EPSILON_GENERATORS and parameter:
        return f"{MODEL_LABELS.get(generator, generator)} (ε = {parameter})"
    if generator in ("ctgan", "tvae"):  # the epoch budget is part of what the point means
        budget = {"": "paper settings", "paper": "paper settings", "quick": "quick epochs"}.get(parameter,
                                                                                                f"{parameter} epochs")
        return f"{MODEL_LABELS[generator]} ({budget})"
    return MODEL_LABELS.get(name, name)


class RecordRole(StrEnum):
    """Where a record's number comes from; the first three are the catalogue's ``Source`` of its metric."""

    RELEASE = "release"  # the published sets of the holder's model (and of a baseline or an external set)
    GAME = "game"  # an attack game's generators, fitted on subsets of the training rows
    REFERENCE = "reference"  # the real rows (TRTR, the release attack on the real and the shuffled rows)
    AUDIT = "audit"  # the DP audit's trials
    # a stored sweep's first look (jobs/first_look.py): the holder's recipe fitted on ``FIRST_LOOK_ROWS`` training
    # rows, one set per level; shown on the live scatter until the level's own results arrive, used nowhere else
    FIRST_LOOK = "first_look"


@dataclass(frozen=True, kw_only=True)
class Record:
    """One number of a sweep, and what it is of. Fields in the stored and tabled order (``COLUMNS``)."""

    model: str
    level: int | None
    metric: str
    attribute: str | None = None  # the column (a per-column metric)
    target: object = None  # the attacked row, or the count of a run (the DP audit's trials)
    target_kind: str | None = None
    iteration: int | None = None  # the set's or the game's iteration
    value: float
    role: RecordRole = RecordRole.RELEASE

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        if not isinstance(self.role, RecordRole):
            object.__setattr__(self, "role", RecordRole(self.role))

    def stored(self) -> dict:
        """The record as the store keeps it: plain values in ``COLUMNS`` order, the role as its text."""
        return {name: getattr(self, name) for name in COLUMNS} | {"role": self.role.value}

    @classmethod
    def from_stored(cls, row: dict) -> Record:
        """A record read back from the store; a role this version does not know is refused in one sentence."""
        if row.get("role") not in ROLES:
            raise TVSError(f"A stored result has the role {row.get('role')!r}, which this version does not know "
                           f"(it knows {', '.join(ROLES)}): the job was written by another version of TVineSynth "
                           "Studio, open it with that version.")
        return cls(**{name: row.get(name) for name in COLUMNS})


COLUMNS = [f.name for f in fields(Record)]
ROLES = tuple(RecordRole)


def record(model: str, level, metric: str, value: float, attribute: str | None = None, target=None,
           target_kind: str | None = None, iteration=None, role: RecordRole = RecordRole.RELEASE) -> Record:
    """The one way a record is made: every producer of results calls it."""
    return Record(model=model, level=level, metric=metric, attribute=attribute, target=target,
                  target_kind=target_kind, iteration=iteration, value=value, role=role)


def to_frame(records: list[Record]) -> pd.DataFrame:
    """Records in one canonical order: results arrive from workers in any order, and intervals
    (bootstraps over the replicates) must not depend on it."""
    frame = pd.DataFrame([r.stored() for r in records], columns=COLUMNS)
    frame["level"] = frame["level"].astype("Int64")
    return frame.sort_values(COLUMNS, na_position="first", kind="stable").reset_index(drop=True)


def holder_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The data holder's records (its levels; baselines and references left out). A summary is read through
    ``summary.Summary.holder()``."""
    return frame[frame["model"] == HOLDER]
