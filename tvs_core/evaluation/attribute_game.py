"""The attribute-inference game (docs/reference/protocols.md, 'Attribute-inference game'), one iteration at a time.

Cost discipline: the OUT model of an iteration and each IN model are fitted once at the top level
and truncated for every level; the OUT sets serve every target and every sensitive column; an IN
model serves every sensitive column that lists its row as a target.

An iteration is its models: the OUT model (``aia_out_statistics``) and one IN model per target row
(``aia_in_statistics``), each fitted, sampled and attacked on its own — so a sweep can run them as separate tasks on
as many workers — and what the attacker learnt from their sets is then turned into the iteration's records
(``aia_records``). Every model and every set is seeded from the master seed and its own key, so the parts give the
numbers one task would (``aia_iteration`` is exactly that: the parts run one after the other).
"""

from __future__ import annotations

import numpy as np

from ..seeding import task_rng, task_seed
from .attribute import Target, classify_sets, guess_errors, population_scaling, regress_sets
from .context import EvaluationData, FittedModels, GeneratorSpec
from .protocol import Protocol
from .records import RAW, Record, RecordRole, record

# what the attacker learnt from one model's sets at one level, by (what, column, target row): ("fit", column, None)
# the regression of a numeric secret on the other columns — coefficients and intercept per set, and R² for an IN
# model —, ("hit", column, row) the share of sets whose classifier guessed the row's categorical secret
Statistics = dict[tuple[str, str, int | None], tuple[np.ndarray, ...]]


def _rows(data: EvaluationData, targets: list[Target], preset: Protocol, master_seed: int, iteration: int):
    """The iteration's reference rows (no target among them) and the raw reference's bootstrap sets of them."""
    rng = task_rng(master_seed, "aia", iteration)
    target_rows = sorted({t.row for t in targets})
    pool = np.setdiff1d(np.arange(len(data.train)), target_rows)
    raw_out = data.train[rng.choice(pool, size=min(preset.aia_size_raw, len(pool)), replace=False)]
    boot = raw_out[rng.integers(0, len(raw_out), size=(preset.aia_sets, preset.aia_bootstrap_size))]
    return target_rows, raw_out, boot


def _learnt(sets: np.ndarray, data: EvaluationData, targets: list[Target], sensitive: list[str], seed: int,
            with_r2: bool) -> Statistics:
    """What the attack learns from ``sets`` about the ``targets``' sensitive values (see ``Statistics``)."""
    out: Statistics = {}
    scaling = population_scaling(data)
    for column in sensitive:
        j = data.index(column)
        own = [t for t in targets if t.attribute == column]
        if not own:
            continue
        if data.categorical[j]:
            mean, sd = scaling
            for row in dict.fromkeys(t.row for t in own):
                values = np.where(data.categorical, data.train[row], (data.train[row] - mean) / sd)[None, :]
                guessed = classify_sets(sets, j, values, data.categorical, seed)[:, 0] == data.train[row, j]
                out[("hit", column, row)] = (np.array(guessed.mean()),)
        else:
            coef, intercept, r2 = regress_sets(sets, j, data.categorical)
            out[("fit", column, None)] = (coef, intercept, r2) if with_r2 else (coef, intercept)
    return out


def _classifier_seed(master_seed: int, iteration: int) -> int:
    return task_seed(master_seed, "aia", iteration, "clf")


def aia_out_statistics(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                       preset: Protocol, master_seed: int, iteration: int, sensitive: list[str]) -> dict:
    """The iteration's OUT model (fitted without any target), sampled at every level and attacked: {level:
    Statistics} for every target."""
    _, raw_out, _ = _rows(data, targets, preset, master_seed, iteration)
    model = FittedModels(spec, levels, raw_out, data, task_seed(master_seed, "aia", iteration, "out"))
    seed = _classifier_seed(master_seed, iteration)
    return {level: _learnt(model.sets(level, preset.aia_sets, preset.aia_size_syn,
                                      task_seed(master_seed, "aia", iteration, "out", level)),
                           data, targets, sensitive, seed, with_r2=False)
            for level in levels}


def aia_in_statistics(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                      preset: Protocol, master_seed: int, iteration: int, sensitive: list[str], row: int) -> dict:
    """The IN model of target row ``row`` (fitted with it), sampled at every level and attacked: {level:
    Statistics} for the targets of that row."""
    _, raw_out, _ = _rows(data, targets, preset, master_seed, iteration)
    model = FittedModels(spec, levels, np.vstack([raw_out, data.train[row]]), data,
                         task_seed(master_seed, "aia", iteration, "in", row))
    own = [t for t in targets if t.row == row]
    seed = _classifier_seed(master_seed, iteration)
    return {level: _learnt(model.sets(level, preset.aia_sets, preset.aia_size_syn,
                                      task_seed(master_seed, "aia", iteration, "in", row, level)),
                           data, own, sensitive, seed, with_r2=True)
            for level in levels}


def _attack(label, level, out: Statistics, in_by_row: dict[int, Statistics], targets: list[Target],
            data: EvaluationData, sensitive: list[str], iteration: int) -> list[Record]:
    """The game's records of one level from what the attacker learnt of the OUT and IN sets."""
    scaling = population_scaling(data)
    records = []
    for column in sensitive:
        j = data.index(column)
        own = [t for t in targets if t.attribute == column]
        if data.categorical[j]:
            records += [record(label, level, "advantage", (in_by_row[t.row][("hit", column, t.row)][0]
                                                          - out[("hit", column, t.row)][0]).item(),
                               column, t.row, t.kind.value, iteration, RecordRole.GAME) for t in own]
            continue
        coefs, r2s = [], []
        for t in own:
            coef, intercept, r2 = in_by_row[t.row][("fit", column, None)]
            coefs.append(coef)
            r2s.append(r2)
            err = guess_errors(coef, intercept, data.train[t.row], j, scaling)
            records.append(record(label, level, "mse_in", err.mean(), column, t.row, t.kind.value, iteration,
                                  RecordRole.GAME))
        out_coef, out_intercept = out[("fit", column, None)][:2]
        for t in own:
            err = guess_errors(out_coef, out_intercept, data.train[t.row], j, scaling)
            records.append(record(label, level, "mse_out", err.mean(), column, t.row, t.kind.value, iteration,
                                  RecordRole.GAME))
        coef = np.abs(np.concatenate(coefs))
        records += [record(label, level, "mab", coef.mean(), column, iteration=iteration, role=RecordRole.GAME),
                    record(label, level, "wcab", coef.max(), column, iteration=iteration, role=RecordRole.GAME),
                    record(label, level, "mr2", np.concatenate(r2s).mean(), column, iteration=iteration,
                           role=RecordRole.GAME)]
    return records


def aia_records(label: str, data: EvaluationData, targets: list[Target], levels: list, preset: Protocol,
                master_seed: int, iteration: int, sensitive: list[str], out: dict, in_by_row: dict[int, dict],
                raw: bool = True) -> list[Record]:
    """One iteration's records from its models' statistics (``aia_out_statistics``, and ``aia_in_statistics`` by
    target row); ``raw``: with the raw reference (the same attack on bootstrap samples of the real reference rows)."""
    records = []
    if raw:
        target_rows, _, boot = _rows(data, targets, preset, master_seed, iteration)
        seed = _classifier_seed(master_seed, iteration)
        learnt = _learnt(boot, data, targets, sensitive, seed, with_r2=True)
        records += _attack(RAW, None, learnt, dict.fromkeys(target_rows, learnt), targets, data, sensitive,
                           iteration)
    for level in levels:
        records += _attack(label, level, out[level], {row: part[level] for row, part in in_by_row.items()}, targets,
                           data, sensitive, iteration)
    return records


def aia_iteration(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                  preset: Protocol, master_seed: int, iteration: int, sensitive: list[str]) -> list[Record]:
    """One game iteration for every level and every sensitive column; returns tidy records."""
    out = aia_out_statistics(spec, data, targets, levels, preset, master_seed, iteration, sensitive)
    in_by_row = {row: aia_in_statistics(spec, data, targets, levels, preset, master_seed, iteration, sensitive, row)
                 for row in sorted({t.row for t in targets})}
    return aia_records(spec.label, data, targets, levels, preset, master_seed, iteration, sensitive, out, in_by_row)
