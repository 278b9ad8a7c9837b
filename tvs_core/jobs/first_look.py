"""A first look at every level within seconds, whatever the table's size.

On a large table the holder's fit alone takes minutes, and nothing could be shown before it. So a
stored sweep starts with a small copy of the whole recipe: TVineSynth fitted (same settings) on a
seeded sample of ``FIRST_LOOK_ROWS`` training rows, one set of as many rows per level, scored by the
two cheap headline metrics — TSTR against a sample of the hold-out, and the release attack (MAB/WCAB).
Its records carry ``role="first_look"``: they stand in for a level on the live scatter only until that
level's own release task has reported, and never enter summaries, the choice or the manifest
(``without_first_look``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np
import pandas as pd

from ..evaluation.context import EvaluationData
from ..evaluation.metrics.attribute import release_attribute_records
from ..evaluation.metrics.utility import CLASSIFIERS, score_classifier, split_xy, utility_metric
from ..evaluation.records import FIRST_LOOK_ROWS, HOLDER, Record, RecordRole, holder_rows, record
from ..evaluation.release import release_sets
from ..seeding import task_rng, task_seed
from .config import SweepConfig
from .context import fit_holder, sweep_levels

EVERY_LEVEL_FROM = 2  # training rows, in samples, above which the first look shows every level (``looked_levels``)


def _sample(table: pd.DataFrame, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    return table if len(table) <= rows else table.iloc[np.sort(rng.choice(len(table), rows, replace=False))]


def looked_levels(n_train: int, levels: int) -> int:
    """How many of a sweep's ``levels`` the first look shows on ``n_train`` training rows: none on a table no larger
    than its sample (the holder's own fit is as quick); only the lowest on a table up to ``EVERY_LEVEL_FROM``
    times the sample, whose holder fits in about the time the first look's other levels would take (884 x 27: the
    holder 0.7 s, the first look's full fit and six more levels 2.3 s, while every level's own numbers waited:
    bench/sweep.md); every level above."""
    if n_train <= FIRST_LOOK_ROWS:
        return 0
    return levels if n_train > EVERY_LEVEL_FROM * FIRST_LOOK_ROWS else min(levels, 1)


def _quick_level(config: SweepConfig) -> int | None:
    """The level the first look shows before anything else, when it can come from a vine fitted to that level
    only (None: fit the whole recipe first)."""
    lowest = min(config.levels) if config.levels else 1  # the default levels always start at 1
    return lowest if lowest >= 1 and (config.t_max is None or lowest <= config.t_max) else None


def first_look(config: SweepConfig, train: pd.DataFrame, test: pd.DataFrame, threads: int = 1,
               levels: Callable[[], list[int]] | None = None) -> Iterator[tuple[int, list[Record], int | None]]:
    """(level, records, how many levels the first look shows) for each level in turn, the lowest first; as many
    levels as ``looked_levels`` says. ``levels`` gives the sweep's levels (default: ``config.levels``, else
    ``sweep_levels``); it is asked only once the lowest level is shown, since on a wide table it takes seconds: until
    then the count is None (not known yet) unless the user chose the levels.

    The lowest level comes from a vine fitted up to that level only: a C-vine with its order fixed selects
    tree by tree, so its first trees are those of the full fit (same pair copulas, same sample), at a small
    part of the cost on wide tables (60 columns: 59 pair copulas instead of 1 700)."""
    if not looked_levels(len(train), 1):
        return
    rng = task_rng(config.seed, RecordRole.FIRST_LOOK, "rows")
    small_train, small_test = _sample(train, FIRST_LOOK_ROWS, rng), _sample(test, 2 * FIRST_LOOK_ROWS, rng)
    quick = _quick_level(config)
    if quick is not None:
        model = fit_holder(replace(config, t_max=quick, levels=[quick]), small_train, threads=threads)
        full = model.order_.full_level
        if config.levels or looked_levels(len(train), 2) == 1:  # chosen, or only the lowest is looked at anyway
            known = looked_levels(len(train), len({lv for lv in config.levels or () if lv <= full} | {quick}))
        else:
            known = None
        for level, records in _looks(config, model, [quick], small_train, small_test):
            yield level, records, known
    swept = (levels or (lambda: sweep_levels(config, train)))()
    if quick is not None and looked_levels(len(train), len({lv for lv in swept if lv <= full} | {quick})) == 1:
        return  # the holder's own fit comes as soon as the other levels' first looks would
    model = fit_holder(replace(config, levels=swept), small_train, threads=threads)
    shown = {lv for lv in swept if lv <= model.fitted_level_}
    count = looked_levels(len(train), len(shown | ({quick} if quick is not None else set())))
    for level, records in _looks(config, model, sorted(shown - {quick}), small_train, small_test):
        yield level, records, count


def _looks(config: SweepConfig, model, levels: list[int], small_train: pd.DataFrame, small_test: pd.DataFrame
           ) -> Iterator[tuple[int, list[Record]]]:
    """Per level: TSTR of each classifier and the release attack, on one set of ``FIRST_LOOK_ROWS`` rows."""
    data = EvaluationData.from_model(model, small_train, small_test)
    j, discrete = data.response_index, data.discrete[data.response_index]
    x_test, y_test = split_xy(data.test, j)
    for level in levels:
        sets = release_sets(model, level, range(1), FIRST_LOOK_ROWS, config.seed, RecordRole.FIRST_LOOK)
        x, y = split_xy(sets[0], j)
        seeds = {c: task_seed(config.seed, RecordRole.FIRST_LOOK, level, c) for c in CLASSIFIERS}
        records = [record(HOLDER, level, utility_metric("tstr", discrete, c),
                          score_classifier(x, y, x_test, y_test, discrete, c, seeds[c]), iteration=0,
                          role=RecordRole.FIRST_LOOK)
                   for c in CLASSIFIERS]
        records += [replace(r, model=HOLDER, role=RecordRole.FIRST_LOOK)
                    for r in release_attribute_records(sets, data, list(config.sensitive), RecordRole.FIRST_LOOK,
                                                       level)]
        yield level, records


def without_first_look(records: pd.DataFrame, keep_missing_levels: bool = False) -> pd.DataFrame:
    """The records without the first look; with ``keep_missing_levels``, a level's first-look records stay
    until that level's own release records have arrived (the live scatter)."""
    if records.empty or "role" not in records:
        return records
    look = records["role"] == RecordRole.FIRST_LOOK
    if not look.any():
        return records
    if not keep_missing_levels:
        return records[~look].reset_index(drop=True)
    holder = holder_rows(records)
    reported = set(holder.loc[holder["role"] == RecordRole.RELEASE, "level"].dropna())
    stale = look & records["level"].isin(reported)
    return records[~stale].reset_index(drop=True)
