"""Attribute inference: the attacker regresses a sensitive column on all others (docs/reference/protocols.md,
'Attribute-inference game' and 'The release attack and the anchors').

Numeric sensitive column: OLS on standardised columns of each synthetic set; MAB = mean |b_k|,
WCAB = max |b_k| (intercept excluded), MSE of the guess for each target, MR2 = mean R^2.
Categorical sensitive column: a multinomial logistic attacker; the advantage is
P(correct | IN) - P(correct | OUT) (Stadler et al.'s definition for finite values).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from sklearn.linear_model import LogisticRegression

from ..text import choice_named, read_choice
from .context import EvaluationData
from .records import Record, record


@choice_named("kind of target")
class TargetKind(StrEnum):
    """How a target row of the games was picked: near an outer quantile of its column (for a categorical one: of
    its rarest categories), at random, or chosen by the user. Records keep it as its text (``target_kind``)."""

    OUTLIER = "outlier"
    RANDOM = "random"
    CHOSEN = "chosen"


@dataclass(frozen=True)
class Target:
    row: int  # index into the training rows
    attribute: str
    kind: TargetKind

    def __post_init__(self):
        object.__setattr__(self, "kind", read_choice(TargetKind, self.kind))


def choose_targets(data: EvaluationData, sensitive: list[str], quantiles, n_random: int,
                   rng: np.random.Generator, overrides: dict[str, list[int]] | None = None) -> list[Target]:
    """Per sensitive column: the rows nearest its outer quantiles ("outliers") plus random rows.

    For a categorical column the outliers are rows of its rarest categories. ``overrides`` maps a
    column to the training-row indices to use instead."""
    targets: list[Target] = []
    for column in sensitive:
        if overrides and column in overrides:
            targets += [Target(int(r), column, TargetKind.CHOSEN) for r in overrides[column]]
            continue
        j = data.index(column)
        x = data.train[:, j]
        taken: set[int] = {t.row for t in targets if t.attribute == column}
        if data.categorical[j]:
            values, counts = np.unique(x, return_counts=True)
            ranked = [int(r) for v in values[np.argsort(counts, kind="stable")] for r in np.flatnonzero(x == v)]
            picks = ranked[:len(quantiles)]
        else:
            picks = []
            for q in quantiles:
                for r in np.argsort(np.abs(x - np.quantile(x, q)), kind="stable"):
                    if int(r) not in taken and int(r) not in picks:
                        picks.append(int(r))
                        break
        targets += [Target(r, column, TargetKind.OUTLIER) for r in picks]
        taken |= set(picks)
        pool = np.setdiff1d(np.arange(len(x)), list(taken))
        targets += [Target(int(r), column, TargetKind.RANDOM) for r in rng.choice(pool, size=n_random, replace=False)]
    return targets


def standardise_each_set(sets: np.ndarray, categorical: np.ndarray) -> np.ndarray:
    """Each set by its own mean and sample SD (ddof=1), as the game's regressions need; categorical codes are left
    as they are. (``distance.standardise`` scales arrays by one reference instead.)"""
    mean = sets.mean(axis=-2, keepdims=True)
    sd = sets.std(axis=-2, ddof=1, keepdims=True)
    z = np.where(sd > 0, (sets - mean) / np.where(sd > 0, sd, 1.0), 0.0)
    return np.where(categorical, sets, z)


def regress_sets(sets: np.ndarray, target: int, categorical: np.ndarray):
    """OLS of column ``target`` on all other columns (with intercept), for every set at once.

    Returns coefficients (n_sets, d-1) without the intercept, intercepts (n_sets,) and R^2."""
    z = standardise_each_set(sets, categorical)
    y = z[..., target]
    x = np.delete(z, target, axis=-1)
    design = np.concatenate([np.ones(x.shape[:-1] + (1,)), x], axis=-1)
    # matmul, not einsum: BLAS makes the Gram matrices ~10x faster (values agree to ~1e-15 relative)
    gram = design.mT @ design
    rhs = (design.mT @ y[..., None])[..., 0]
    try:
        solution = np.linalg.solve(gram, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:  # a constant column in some set: least squares for that set only, so that a
        # set's coefficients never depend on the sets it is scored with (a level's sets come in chunks: plan.py)
        solution = np.stack([_solve_one(gram[s], rhs[s], design[s], y[s]) for s in range(len(sets))])
    fitted = (design @ solution[..., None])[..., 0]
    total = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    r2 = np.where(total > 0, 1 - ((y - fitted) ** 2).sum(axis=1) / np.where(total > 0, total, 1), 0.0)
    return solution[:, 1:], solution[:, 0], r2


def _solve_one(gram: np.ndarray, rhs: np.ndarray, design: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One set's OLS solution: the normal equations as every set's are solved (the same LAPACK call, so the same
    bits as within a batch), least squares where its Gram matrix is singular."""
    try:
        return np.linalg.solve(gram, rhs[:, None])[:, 0]
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(design, y, rcond=None)[0]


def population_scaling(data: EvaluationData):
    """Train mean and SD, used to standardise a target's features and secret for the guess."""
    mean = data.train.mean(axis=0)
    sd = data.train.std(axis=0, ddof=1)
    sd[sd == 0] = 1.0
    mean[data.categorical] = 0.0
    sd[data.categorical] = 1.0
    return mean, sd


def guess_errors(coef: np.ndarray, intercept: np.ndarray, row: np.ndarray, target: int,
                 scaling) -> np.ndarray:
    """Squared error of b_0 + sum b_j x_j against the target's standardised secret, per set."""
    mean, sd = scaling
    z = (row - mean) / sd
    guess = intercept + coef @ np.delete(z, target)
    return (guess - z[target]) ** 2


def classify_sets(sets: np.ndarray, target: int, rows: np.ndarray, categorical: np.ndarray,
                  seed: int) -> np.ndarray:
    """Categorical secret: per set, a multinomial logistic attacker's guesses for ``rows``."""
    guesses = np.empty((len(sets), len(rows)))
    for s, values in enumerate(standardise_each_set(sets, categorical)):
        y = values[:, target]
        x = np.delete(values, target, axis=1)
        classes = np.unique(y)
        if len(classes) == 1:
            guesses[s] = classes[0]
            continue
        model = LogisticRegression(max_iter=500, random_state=seed).fit(x, y)
        guesses[s] = model.predict(np.delete(rows, target, axis=1))
    return guesses


def release_attribute_records(sets: np.ndarray, data: EvaluationData, sensitive: list[str], label: str,
                              level, first_set: int = 0) -> list[Record]:
    """The release attack: the attacker's regression on sets from the holder's own model (MAB, WCAB, R² inside the
    set) and what it does to the real people — the same attacker guessing every training row's sensitive value from
    its other columns (``release_skill``)."""
    records = []
    categorical = data.categorical
    mean, sd = population_scaling(data)
    scaled = np.where(categorical, data.train, (data.train - mean) / sd)  # the real rows as the guess reads them
    for column in sensitive:
        j = data.index(column)
        if categorical[j]:
            truth = data.train[:, j]
            majority = np.mean(truth == np.bincount(truth.astype(int)).argmax())
            guesses = classify_sets(sets, j, scaled, categorical, seed=0)
            for s, g in enumerate(guesses):
                hits = np.mean(g == truth)
                records += [record(label, level, "release_advantage", hits - majority, column,
                                   iteration=first_set + s),
                            record(label, level, "release_skill", categorical_skill(hits, majority), column,
                                   iteration=first_set + s)]
            continue
        coef, intercept, r2 = regress_sets(sets, j, categorical)
        skill = predictive_r2(coef, intercept, scaled, j)
        for s in range(len(sets)):
            k = first_set + s
            records.append(record(label, level, "release_mab", np.mean(np.abs(coef[s])), column, iteration=k))
            records.append(record(label, level, "release_wcab", np.max(np.abs(coef[s])), column, iteration=k))
            records.append(record(label, level, "release_r2", r2[s], column, iteration=k))
            records.append(record(label, level, "release_skill", skill[s], column, iteration=k))
    return records


def predictive_r2(coef: np.ndarray, intercept: np.ndarray, scaled: np.ndarray, target: int) -> np.ndarray:
    """Per set, 1 - MSE / variance of the attacker's guesses (the game's guess, ``guess_errors``) of every real row's
    standardised secret: out of sample, since the attacker fitted on a published set, not on these rows. The attacker
    fitted on the real rows themselves scores their in-sample R², which no linear guess beats; one that learnt
    nothing scores about 0 (below 0 when its guesses are worse than the column's average)."""
    others, truth = np.delete(scaled, target, axis=1), scaled[:, target]
    variance = truth.var()
    if not variance > 0:
        return np.zeros(len(coef))
    # one product per set: the same bytes whether a set is scored alone or with others (a matrix of sets would let
    # BLAS block the sum differently with their number)
    return np.array([1 - ((b0 + others @ b - truth) ** 2).mean() / variance for b, b0 in zip(coef, intercept,
                                                                                            strict=True)])


def categorical_skill(hits: float, majority: float) -> float:
    """The share of the majority guess's errors the attacker avoids: (accuracy - majority) / (1 - majority), the
    categorical counterpart of a predictive R² (0: no better than always guessing the most common category)."""
    return 0.0 if majority >= 1 else float((hits - majority) / (1 - majority))
