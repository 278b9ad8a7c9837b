"""Metrics of the data actually published: sets drawn once per level from the holder's model and
reused by every metric (utility, release MAB/WCAB, DCR, MCMIA, fidelity)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.generator import SyntheticGenerator
from ..seeding import task_rng, task_seed
from .catalogue import CATALOGUE
from .context import EvaluationData
from .metrics.attribute import release_attribute_records
from .metrics.utility import CLASSIFIERS, trtr_records, tstr_records
from .protocol import Protocol
from .records import REAL, SHUFFLED, Record, RecordRole, record
from .set_metrics import SyntheticSet, bounded
from .sizes import RELEASE_ROWS
from .timing import timed

DISTANCE_SETS = 5  # sets scored by the distance and fidelity metrics (nearest neighbours are the cost)
SCATTER, DETAILS = "scatter", "details"  # the two parts of a release's metrics (``set_metric_functions``)


def reference_records(data: EvaluationData, master_seed: int, sensitive: list[str] = (),
                      classifiers=CLASSIFIERS, part: str | None = None) -> list[Record]:
    """TRTR: the same classifiers trained on the real training rows (interval: bootstrap over
    test rows), and the release attack run on the real rows themselves. ``part``: as ``set_metric_functions``
    (TRTR and the attack come with the scatter's part)."""
    records = trtr_records(data, master_seed, classifiers) if part != DETAILS else []
    # the anchors of the privacy and structure scales, measured like a release: the real training rows
    # published as they are (0 privacy), and shuffled column by column (nothing to learn, the floor)
    shuffled = shuffled_sets(data.train, master_seed, DISTANCE_SETS)
    for label, sets in ((REAL, data.train[None]), (SHUFFLED, shuffled)):
        if part != DETAILS:
            records += [replace(r, role=RecordRole.REFERENCE)
                        for r in release_attribute_records(sets, data, sensitive, label, None)]
        for index, values in enumerate(sets):
            records += set_records(SyntheticSet(values, data, master_seed, label, None, index),
                                   role=RecordRole.REFERENCE, part=part)
    return records


def shuffled_sets(values: np.ndarray, master_seed: int, n_sets: int) -> np.ndarray:
    """The rows with every column permuted on its own (seeded): each margin exact, every dependence gone."""
    rng = task_rng(master_seed, "shuffled")
    return np.stack([np.column_stack([rng.permutation(values[:, j]) for j in range(values.shape[1])])
                     for _ in range(n_sets)])


def set_records(one: SyntheticSet, role: RecordRole = RecordRole.RELEASE, part: str | None = None) -> list[Record]:
    """Every per-set metric of the catalogue (of ``part``, see ``set_metric_functions``) on one published set
    (at most ``SET_ROWS`` rows of each kind), as records."""
    records = []
    one = bounded(one)
    for function in set_metric_functions(part):
        for name, value in function(one).items():
            if isinstance(value, dict):  # per column (or per attack)
                records += [record(one.label, one.level, name, v, attribute=c, iteration=one.index, role=role)
                            for c, v in value.items()]
            else:
                records.append(record(one.label, one.level, name, value, iteration=one.index, role=role))
    return records


def set_metric_functions(part: str | None = None) -> list:
    """The distinct functions the catalogue's entries compute on one published set, in catalogue order. ``part``:
    ``SCATTER``, those of a metric that may be an axis of the scatter (stored with the levels, before any game:
    levels first); ``DETAILS``, the others (the GDPR criteria, fidelity, closeness: a quarter of a release task,
    stored beside the games); None: all."""
    axes = {m.compute for m in CATALOGUE.values() if m.compute and m.axis}
    return [function for function in dict.fromkeys(m.compute for m in CATALOGUE.values() if m.compute)
            if part is None or (function in axes) == (part == SCATTER)]


def release_sets(model: SyntheticGenerator, level, sets: range, size: int, master_seed: int, label: str):
    """Sets ``sets`` (indices) of a level; each has its own seed, so any chunk of them is the same
    data whether drawn alone or with the others."""
    with timed("sampling"):
        return np.stack([model.sample_values(size, level, task_seed(master_seed, "release", label, level, s))
                         for s in sets])


def set_size(data: EvaluationData) -> int:
    """Rows of each published set a release task draws: |train|, at most ``RELEASE_ROWS`` (evaluation/sizes.py)."""
    return min(len(data.train), RELEASE_ROWS)


def release_records(model: SyntheticGenerator, data: EvaluationData, level, preset: Protocol,
                    sensitive: list[str], master_seed: int, label: str, classifiers=CLASSIFIERS,
                    chunk: tuple[int, int] | None = None, part: str | None = None) -> list[Record]:
    """All metrics of one (model, level) on the sets of ``chunk`` = (first, stop) set indices
    (default: all). The sets are drawn once and shared by every metric; distance and fidelity
    metrics use the first DISTANCE_SETS sets, so they come with the first chunk. ``part``: as
    ``set_metric_functions``; TSTR and the release attack come with the scatter's part."""
    n_sets = max(preset.utility_sets, preset.release_sets, DISTANCE_SETS)
    first, stop = chunk or (0, n_sets)
    sets = release_sets(model, level, range(first, stop), set_size(data), master_seed, label)
    return published_records(sets, data, level, preset, sensitive, master_seed, label, classifiers, first, part)


def published_records(sets: np.ndarray, data: EvaluationData, level, preset: Protocol, sensitive: list[str],
                      master_seed: int, label: str, classifiers=CLASSIFIERS, first: int = 0,
                      part: str | None = None) -> list[Record]:
    """Every release metric of published sets (set indices ``first``, ``first`` + 1, ...): a generator's
    draws, or a synthetic table made elsewhere (one set, scored exactly like a generator's)."""
    in_chunk = list(range(first, first + len(sets)))
    scatter = part != DETAILS
    records = tstr_records(sets, data, level, master_seed, label, [s for s in in_chunk if s < preset.utility_sets],
                           first, classifiers) if scatter else []
    attack = [s for s in in_chunk if scatter and s < preset.release_sets]
    if attack:
        records += release_attribute_records(sets[attack[0] - first:attack[-1] + 1 - first], data, sensitive, label,
                                             level, first_set=attack[0])
    for s in [s for s in in_chunk if s < DISTANCE_SETS]:
        records += set_records(SyntheticSet(sets[s - first], data, master_seed, label, level, s), part=part)
    return records


def kendall_matrices(model: SyntheticGenerator, data: EvaluationData, levels: list, master_seed: int,
                     label: str) -> dict:
    """Kendall-tau matrix of one synthetic set per level (for the heatmaps), plus the real one."""
    from .metrics.fidelity import kendall_matrix

    out = {("real", None): kendall_matrix(data.train)}
    for level in levels:
        out[(label, level)] = kendall_matrix(release_sets(model, level, range(1), set_size(data), master_seed,
                                                          label)[0])
    return out
