"""The attribute-inference game (docs/reference/protocols.md, 'Attribute-inference game'), one iteration per task.

Cost discipline: the OUT model of an iteration and each IN model are fitted once at the top level
and truncated for every level; the OUT sets serve every target and every sensitive column; an IN
model serves every sensitive column that lists its row as a target.
"""

from __future__ import annotations

import numpy as np

from ..seeding import task_rng, task_seed
from .attribute import Target, classify_sets, guess_errors, population_scaling, regress_sets
from .context import EvaluationData, FittedModels, GeneratorSpec
from .protocol import Protocol
from .records import RAW, Record, RecordRole, record


def _numeric_records(label, level, column, j, in_sets_by_target, out_sets, targets, data, scaling, iteration):
    categorical = data.categorical
    records = []
    coefs, r2s = [], []
    for t in targets:
        coef, intercept, r2 = regress_sets(in_sets_by_target[t.row], j, categorical)
        coefs.append(coef)
        r2s.append(r2)
        err = guess_errors(coef, intercept, data.train[t.row], j, scaling)
        records.append(record(label, level, "mse_in", err.mean(), column, t.row, t.kind, iteration, RecordRole.GAME))
    out_coef, out_intercept, _ = regress_sets(out_sets, j, categorical)
    for t in targets:
        err = guess_errors(out_coef, out_intercept, data.train[t.row], j, scaling)
        records.append(record(label, level, "mse_out", err.mean(), column, t.row, t.kind, iteration, RecordRole.GAME))
    coef = np.abs(np.concatenate(coefs))
    records += [record(label, level, "mab", coef.mean(), column, iteration=iteration, role=RecordRole.GAME),
                record(label, level, "wcab", coef.max(), column, iteration=iteration, role=RecordRole.GAME),
                record(label, level, "mr2", np.concatenate(r2s).mean(), column, iteration=iteration,
                       role=RecordRole.GAME)]
    return records


def _categorical_records(label, level, column, j, in_sets_by_target, out_sets, targets, data, scaling,
                         iteration, seed):
    categorical = data.categorical
    mean, sd = scaling
    records = []
    for t in targets:
        row = np.where(categorical, data.train[t.row], (data.train[t.row] - mean) / sd)[None, :]
        truth = data.train[t.row, j]
        hit_in = (classify_sets(in_sets_by_target[t.row], j, row, categorical, seed)[:, 0] == truth).mean()
        hit_out = (classify_sets(out_sets, j, row, categorical, seed)[:, 0] == truth).mean()
        records.append(record(label, level, "advantage", hit_in - hit_out, column, t.row, t.kind, iteration,
                              RecordRole.GAME))
    return records


def aia_iteration(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                  preset: Protocol, master_seed: int, iteration: int, sensitive: list[str]) -> list[Record]:
    """One game iteration for every level and every sensitive column; returns tidy records."""
    rng = task_rng(master_seed, "aia", iteration)
    target_rows = sorted({t.row for t in targets})
    pool = np.setdiff1d(np.arange(len(data.train)), target_rows)
    raw_out = data.train[rng.choice(pool, size=min(preset.aia_size_raw, len(pool)), replace=False)]
    scaling = population_scaling(data)
    # raw baseline: the same attack on bootstrap samples of the real reference rows
    boot = raw_out[rng.integers(0, len(raw_out), size=(preset.aia_sets, preset.aia_bootstrap_size))]
    out_model = FittedModels(spec, levels, raw_out, data, task_seed(master_seed, "aia", iteration, "out"))
    in_models = {row: FittedModels(spec, levels, np.vstack([raw_out, data.train[row]]), data,
                                   task_seed(master_seed, "aia", iteration, "in", row)) for row in target_rows}
    def attack(level, label, sets_out, sets_in):
        out = []
        for column in sensitive:
            j = data.index(column)
            own = [t for t in targets if t.attribute == column]
            if data.categorical[j]:
                out += _categorical_records(label, level, column, j, sets_in, sets_out, own, data, scaling,
                                            iteration, task_seed(master_seed, "aia", iteration, "clf"))
            else:
                out += _numeric_records(label, level, column, j, sets_in, sets_out, own, data, scaling, iteration)
        return out

    records = attack(None, RAW, boot, dict.fromkeys(target_rows, boot))
    for level in levels:
        sets_out = out_model.sets(level, preset.aia_sets, preset.aia_size_syn,
                                  task_seed(master_seed, "aia", iteration, "out", level))
        sets_in = {row: model.sets(level, preset.aia_sets, preset.aia_size_syn,
                                   task_seed(master_seed, "aia", iteration, "in", row, level))
                   for row, model in in_models.items()}
        records += attack(level, spec.label, sets_out, sets_in)
    return records
