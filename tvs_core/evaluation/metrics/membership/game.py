"""The membership-inference game -> privacy gain PG = 1 - (TP - FP) (docs/reference/protocols.md,
'Membership-inference game').

The attacker summarises each synthetic set by a feature vector and trains, per target and level, a
random forest to tell sets from models fitted with the target (IN, label 1) from sets of models
fitted without it (OUT, label 0). Three tasks, each pure and seeded from the master seed so the
caller can run them in any order on any worker:

1. ``attacker_reference_rows``: rawA, drawn once from train minus the targets.
2. ``mia_shadow_task`` (one per shadow): labelled features of shadow sets; ``train_attackers``
   pools them into one forest per (target row, level).
3. ``mia_evaluation_task`` (one per iteration): the forests guess on fresh IN/OUT sets; PG records.

A shadow and an evaluation iteration are their models — the shared OUT model and one IN model per target row —,
each seeded from its own key: ``shadow_model_features`` and ``eval_out_rates`` / ``eval_in_rates`` run one model
alone (a sweep runs them as tasks of their own, on as many workers), ``labelled_shadow`` and ``eval_records`` put
their parts together, and the two whole tasks are exactly those parts run one after the other.

Cost discipline as in the attribute game: every model is fitted once at the top level and sampled
at every level; a row that is a target for several sensitive columns is fitted and attacked once.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

import numpy as np

from ....seeding import task_rng, task_seed
from ....text import choice_named, read_choice
from ...context import EvaluationData, FittedModels, GeneratorSpec
from ...forests import RandomForestClassifier
from ...protocol import Protocol
from ...records import Record, RecordRole, record
from ..attribute import Target

# -- feature sets of one synthetic set ---------------------------------------------------------------
# Every function accepts one set (n, d) or a stack (..., n, d) and returns (..., n_features).


def features_correlations(values: np.ndarray) -> np.ndarray:
    """Strict upper triangle of the Pearson correlation matrix over all columns, NaN -> 0.

    The default of Stadler et al.: a constant column (possible in a small synthetic set) has no
    correlation, and 0 is what an attacker would read from it."""
    values = np.asarray(values, dtype=float)
    centred = values - values.mean(axis=-2, keepdims=True)
    cov = centred.mT @ centred  # matmul, not einsum: ~10x faster through BLAS
    sd = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = cov / (sd[..., :, None] * sd[..., None, :])
    corr = np.clip(np.nan_to_num(corr, nan=0.0, posinf=0.0, neginf=0.0), -1.0, 1.0)
    upper = np.triu_indices(values.shape[-1], k=1)
    return corr[..., upper[0], upper[1]]


def features_naive(values: np.ndarray) -> np.ndarray:
    """Per column mean, median, variance (ddof=1), min and max: Stadler et al.'s "naive" summary.

    Min and max are what expose an outlier target; the moments expose a shifted margin."""
    values = np.asarray(values, dtype=float)
    stats = np.stack([values.mean(axis=-2), np.median(values, axis=-2), values.var(axis=-2, ddof=1),
                      values.min(axis=-2), values.max(axis=-2)], axis=-1)  # (..., d, 5)
    return stats.reshape(stats.shape[:-2] + (-1,))


def histogram_edges(train: np.ndarray, bins: int = 10) -> np.ndarray:
    """(d, bins+1) equal-width bin edges per column of the training rows, computed once.

    Fixed edges make the histograms of all sets comparable; they describe the population the
    attacker is assumed to know (the training data's range)."""
    train = np.asarray(train, dtype=float)
    return np.stack([np.histogram_bin_edges(train[:, j], bins=bins) for j in range(train.shape[1])])


def features_histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Per column share of rows in each bin of ``edges`` (from ``histogram_edges``).

    Bins follow np.histogram ([a, b), the last closed); values outside the edges count in the
    outer bins, so every column's shares sum to 1."""
    values = np.asarray(values, dtype=float)
    edges = np.asarray(edges, dtype=float)
    d, bins = values.shape[-1], edges.shape[1] - 1
    stack = values.reshape((-1,) + values.shape[-2:])  # (S, n, d)
    n_sets, n = stack.shape[:2]
    index = np.stack([np.searchsorted(edges[j, 1:-1], stack[..., j], side="right") for j in range(d)], axis=-1)
    flat = (np.arange(n_sets)[:, None, None] * d + np.arange(d)) * bins + index  # (S, n, d)
    counts = np.bincount(flat.ravel(), minlength=n_sets * d * bins).reshape(n_sets, d * bins)
    return (counts / n).reshape(values.shape[:-2] + (d * bins,))


@choice_named("attack features")
class FeatureSet(StrEnum):
    """How the membership attacker summarises a synthetic set (Stadler et al.'s feature sets)."""

    CORRELATIONS = "correlations"
    NAIVE = "naive"
    HISTOGRAM = "histogram"


FEATURE_SETS: dict[FeatureSet, Callable[..., np.ndarray]] = {
    FeatureSet.CORRELATIONS: features_correlations,
    FeatureSet.NAIVE: features_naive,
    FeatureSet.HISTOGRAM: features_histogram,
}


def set_features(sets: np.ndarray, feature_set: FeatureSet = FeatureSet.CORRELATIONS,
                 edges: np.ndarray | None = None) -> np.ndarray:
    """(n_sets, n, d) synthetic sets -> (n_sets, n_features) for the attack classifier."""
    feature_set = read_choice(FeatureSet, feature_set)
    sets = np.asarray(sets, dtype=float)
    if feature_set == FeatureSet.HISTOGRAM:
        if edges is None:
            raise ValueError("The histogram feature set needs bin edges; compute them with histogram_edges(train).")
        return features_histogram(sets, edges)
    return FEATURE_SETS[feature_set](sets)


def _edges_for(feature_set: FeatureSet, data: EvaluationData, edges):
    return histogram_edges(data.train) if feature_set == FeatureSet.HISTOGRAM and edges is None else edges


# -- reference data ----------------------------------------------------------------------------------


def _pool(data: EvaluationData, targets: list[Target]) -> np.ndarray:
    return np.setdiff1d(np.arange(len(data.train)), sorted({t.row for t in targets}))


def _draw(rng: np.random.Generator, rows: np.ndarray, size: int, what: str) -> np.ndarray:
    if size > len(rows):
        raise ValueError(f"{what} asks for {size} rows but only {len(rows)} are available; "
                         "lower the preset with protocol.capped first.")
    return rng.choice(rows, size=size, replace=False)


def attacker_reference_rows(data: EvaluationData, targets: list[Target], preset: Protocol,
                            master_seed: int) -> np.ndarray:
    """rawA: the attacker's reference rows (indices into data.train), drawn once outside the targets."""
    rng = task_rng(master_seed, "mia", "attacker")
    return np.sort(_draw(rng, _pool(data, targets), preset.mia_size_attacker, "sizeRawA"))


# -- shadow training ---------------------------------------------------------------------------------


def _features_by_level(spec: GeneratorSpec, levels: list, rows: np.ndarray, data: EvaluationData, n_sets: int,
                       size: int, feature_set: FeatureSet, edges, master_seed: int, *key) -> dict:
    """Fit one model on ``rows`` (seed from ``key``) and return the features of its sets per level."""
    model = FittedModels(spec, levels, rows, data, task_seed(master_seed, *key))
    return {level: set_features(model.sets(level, n_sets, size, task_seed(master_seed, *key, level)), feature_set,
                                edges)
            for level in levels}


def _shadow_subset(data: EvaluationData, preset: Protocol, master_seed: int, shadow: int, attacker_rows: np.ndarray,
                   *per_target) -> np.ndarray:
    """The shadow's subset of rawA (sizeRawT rows), from the shadow's own seed."""
    rng = task_rng(master_seed, "mia", "shadow", shadow, *per_target)
    return data.train[_draw(rng, np.asarray(attacker_rows), preset.mia_size_raw, "sizeRawT (shadow subset)")]


def shadow_model_features(spec: GeneratorSpec, data: EvaluationData, levels: list, preset: Protocol,
                          master_seed: int, shadow: int, attacker_rows: np.ndarray, row: int | None = None,
                          feature_set: FeatureSet = FeatureSet.CORRELATIONS, edges: np.ndarray | None = None) -> dict:
    """One model of shadow ``shadow`` and the features of its sets per level: {("out" | "in", level): features}.

    ``row`` None: the shadow's OUT model, shared by every target (``preset.mia_shared_shadows``); a target row: its
    IN model (fitted on the subset and the row), and, when shadows are not shared, its own subset's OUT model too.
    Each model is seeded from its key, so these parts together are exactly ``mia_shadow_task``'s models."""
    edges = _edges_for(feature_set, data, edges)
    sizes = (preset.mia_shadow_sets, preset.mia_size_syn, feature_set, edges, master_seed)
    per_target = () if preset.mia_shared_shadows else ("target", row)
    subset = _shadow_subset(data, preset, master_seed, shadow, attacker_rows, *per_target)
    out = {}
    if row is None or not preset.mia_shared_shadows:
        out |= {("out", level): x for level, x in _features_by_level(spec, levels, subset, data, *sizes, "mia",
                                                                      "shadow", shadow, "out", *per_target).items()}
    if row is not None:
        out |= {("in", level): x for level, x in _features_by_level(spec, levels, np.vstack([subset, data.train[row]]),
                                                                     data, *sizes, "mia", "shadow", shadow, "in",
                                                                     row).items()}
    return out


def labelled_shadow(out_part: dict | None, in_parts: dict[int, dict], levels: list) -> dict:
    """One shadow's labelled features, {(target_row, level): (X, y)}, OUT sets 0 and IN sets 1, from its models'
    features (``shadow_model_features``: the shared OUT part, if any, and each target row's part)."""
    results = {}
    for row in sorted(in_parts):
        part = in_parts[row]
        for level in levels:
            x_in, x_out = part[("in", level)], (part.get(("out", level)) if out_part is None
                                                 else out_part[("out", level)])
            results[(row, level)] = (np.vstack([x_out, x_in]),
                                     np.concatenate([np.zeros(len(x_out), int), np.ones(len(x_in), int)]))
    return results


def mia_shadow_task(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                    preset: Protocol, master_seed: int, shadow: int, attacker_rows: np.ndarray,
                    feature_set: FeatureSet = FeatureSet.CORRELATIONS, edges: np.ndarray | None = None) -> dict:
    """Labelled features of one shadow: {(target_row, level): (X, y)}, OUT sets 0, IN sets 1.

    A random subset of rawA (size sizeRawT) is drawn; the OUT model is fitted on it once and, per
    unique target row, an IN model on subset + row. Each model is fitted once at the top level and
    sampled nSynA sets of sizeSynT at every level.

    Deliberate cost saving (``preset.mia_shared_shadows``, the default): PROTOCOLS draws the shadow
    subsets per target; here shadow ``shadow`` uses one subset and one OUT model (and its OUT sets)
    for all targets. The distribution of each target's shadow training data is unchanged (a uniform
    subset of rawA, with and without the target); only the OUT fits are shared, which turns
    (targets x 2) fits per shadow into (targets + 1). Targets' attackers become correlated through
    the shared OUT sets, not biased. ``mia_shared_shadows=False`` runs the paper's way.

    ``edges`` (histogram feature set only) defaults to ``histogram_edges(data.train)``.
    """
    edges = _edges_for(feature_set, data, edges)
    model = (spec, data, levels, preset, master_seed, shadow, attacker_rows)
    out_part = shadow_model_features(*model, None, feature_set, edges) if preset.mia_shared_shadows else None
    in_parts = {row: shadow_model_features(*model, row, feature_set, edges)  # one IN model alive at a time
                for row in sorted({t.row for t in targets})}
    return labelled_shadow(out_part, in_parts, levels)


def train_attackers(shadow_results: list[dict], seed: int) -> dict:
    """One random forest per (target row, level) on the features pooled over all shadows.

    Each forest's seed depends only on the master seed and its key, so a caller may split the
    shadow dicts by key, train the parts in parallel and merge the results: the forests are the same."""
    keys = list(dict.fromkeys(key for result in shadow_results for key in result))
    attackers = {}
    for key in keys:
        parts = [result[key] for result in shadow_results if key in result]
        x = np.vstack([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        row, level = key
        forest = RandomForestClassifier(n_estimators=100, n_jobs=1,
                                        random_state=task_seed(seed, "mia", "attacker", row, level))
        attackers[key] = forest.fit(x, y)
    return attackers


# -- evaluation --------------------------------------------------------------------------------------


def _eval_reference_rows(data: EvaluationData, targets: list[Target], preset: Protocol, master_seed: int,
                         iteration: int) -> np.ndarray:
    """rawT_out of an evaluation iteration: sizeRawT rows of train minus the targets, from the iteration's seed."""
    rng = task_rng(master_seed, "mia", "eval", iteration)
    return data.train[_draw(rng, _pool(data, targets), preset.mia_size_raw, "sizeRawT")]


def eval_out_rates(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list, preset: Protocol,
                   master_seed: int, iteration: int, attackers: dict, feature_set: FeatureSet = FeatureSet.CORRELATIONS,
                   edges: np.ndarray | None = None) -> dict:
    """The iteration's OUT model (shared by every target): FP, the share of its sets each target's attacker calls
    members, {(row, level): FP}."""
    edges = _edges_for(feature_set, data, edges)
    raw_out = _eval_reference_rows(data, targets, preset, master_seed, iteration)
    features = _features_by_level(spec, levels, raw_out, data, preset.mia_sets, preset.mia_size_syn, feature_set,
                                  edges, master_seed, "mia", "eval", iteration, "out")
    # a forest scores each row on its own: these guesses are those of one predict on the IN and OUT sets together
    return {(row, level): float(np.mean(attackers[(row, level)].predict(features[level]) == 1))
            for row in sorted({t.row for t in targets}) for level in levels}


def eval_in_rates(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list, preset: Protocol,
                  master_seed: int, iteration: int, attackers: dict, row: int,
                  feature_set: FeatureSet = FeatureSet.CORRELATIONS, edges: np.ndarray | None = None) -> dict:
    """Target row ``row``'s IN model: TP, the share of its sets the row's attacker calls members, {level: TP}."""
    edges = _edges_for(feature_set, data, edges)
    raw_out = _eval_reference_rows(data, targets, preset, master_seed, iteration)
    features = _features_by_level(spec, levels, np.vstack([raw_out, data.train[row]]), data, preset.mia_sets,
                                  preset.mia_size_syn, feature_set, edges, master_seed, "mia", "eval", iteration,
                                  "in", row)
    return {level: float(np.mean(attackers[(row, level)].predict(features[level]) == 1)) for level in levels}


def eval_records(label: str, targets: list[Target], levels: list, iteration: int, out_rates: dict,
                 in_rates: dict[int, dict]) -> list[Record]:
    """PG, TP and FP records per target and level from the iteration's rates (``eval_out_rates``, and
    ``eval_in_rates`` by target row): PG = 1 - (TP - FP) (Adv_R = 1)."""
    records = []
    for level in levels:
        for t in targets:
            tp, fp = in_rates[t.row][level], out_rates[(t.row, level)]
            for metric, value in (("pg", 1.0 - (tp - fp)), ("mia_tp", tp), ("mia_fp", fp)):
                records.append(record(label, level, metric, value, attribute=t.attribute, target=t.row,
                                      target_kind=t.kind.value, iteration=iteration, role=RecordRole.GAME))
    return records


def mia_evaluation_task(spec: GeneratorSpec, data: EvaluationData, targets: list[Target], levels: list,
                        preset: Protocol, master_seed: int, iteration: int, attackers: dict,
                        feature_set: FeatureSet = FeatureSet.CORRELATIONS,
                        edges: np.ndarray | None = None) -> list[Record]:
    """One evaluation iteration at every level: PG, TP and FP records per target.

    rawT_out (sizeRawT rows of train minus targets) gives one OUT model shared by all targets and
    one IN model per unique target row; nSynT sets each per level. TP = share of IN sets the
    target's attacker calls members, FP = share of OUT sets; PG = 1 - (TP - FP) (Adv_R = 1)."""
    edges = _edges_for(feature_set, data, edges)
    game = (spec, data, targets, levels, preset, master_seed, iteration, attackers)
    out_rates = eval_out_rates(*game, feature_set, edges)
    in_rates = {row: eval_in_rates(*game, row, feature_set, edges) for row in sorted({t.row for t in targets})}
    return eval_records(spec.label, targets, levels, iteration, out_rates, in_rates)
