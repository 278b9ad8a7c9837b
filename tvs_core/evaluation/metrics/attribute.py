"""Attribute inference: how well an attacker infers a person's sensitive columns from their other columns — in the
paper's attack game (generators fitted with and without a target person, ``aia_iteration``) and on
the published sets themselves (``release_attribute_records``, also run on the real rows and on the
shuffled ones: the anchors).

The default privacy axis is ``release_skill``: how well the attacker who learnt from a published set guesses the real
people's sensitive values. The paper's MAB (the mean size of the attacker's coefficients) stays selectable; it
misleads when one column gives the sensitive one away, since one large coefficient among many near zero makes a
small mean (docs/reference/protocols.md, 'The default privacy axis').

Attribute inference: the attacker regresses a sensitive column on all others (docs/reference/protocols.md,
'Attribute-inference game' and 'The release attack and the anchors').

Numeric sensitive column: OLS on standardised columns of each synthetic set; MAB = mean |b_k|,
WCAB = max |b_k| (intercept excluded), MSE of the guess for each target, MR2 = mean R^2.
Categorical sensitive column: a multinomial logistic attacker; the advantage is
P(correct | IN) - P(correct | OUT) (Stadler et al.'s definition for finite values).

The attribute-inference game (docs/reference/protocols.md, 'Attribute-inference game'), one iteration at a time.

Cost discipline: the OUT model of an iteration and each IN model are fitted once at the top level
and truncated for every level; the OUT sets serve every target and every sensitive column; an IN
model serves every sensitive column that lists its row as a target.

An iteration is its models: the OUT model (``aia_out_statistics``) and one IN model per target row
(``aia_in_statistics``), each fitted, sampled and attacked on its own — so a sweep can run them as separate tasks on
as many workers — and what the attacker learnt from their sets is then turned into the iteration's records
(``aia_records``). Every model and every set is seeded from the master seed and its own key, so the parts give the
numbers one task would (``aia_iteration`` is exactly that: the parts run one after the other)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from sklearn.linear_model import LogisticRegression

from ...seeding import task_rng, task_seed
from ...text import choice_named, read_choice
from ..context import EvaluationData, FittedModels, GeneratorSpec
from ..protocol import Protocol
from ..records import RAW, REAL, SHUFFLED, Record, RecordRole, record
from .base import AxisKind, Direction, Family, Group, Metric, PerColumn, Reference, Source, register


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


def _mab(name: str, label: str, short: str, source: Source, reference: str, on_release: str | None = None,
         worst_case: bool = False) -> Metric:
    """The attacker's coefficients; a game's ``on_release`` is the same attack on the published sets: its value on
    the shuffled rows is this one's ideal, and it stands in while the game has not reported."""
    what = "largest" if worst_case else "mean"
    blind = ("when one column gives the sensitive one away, the attacker needs one large coefficient and the rest are "
             "near zero, so the mean is small while the guesses are nearly exact" if not worst_case else
             "a release that spreads the dependence over correlated columns can give large coefficients that "
             "offset each other and guess badly")
    published = source is Source.RELEASE
    asked = (f"How much the most telling column{' of the published data' if published else ''} reveals the "
             "sensitive columns to an attacker" if worst_case else
             f"How well an attacker infers the sensitive columns{' from the published data' if published else ''}")
    return Metric(name, label, short, "|standardised coefficient|", Direction.LOWER, (0.0, None), Group.ATTRIBUTE_RISK,
                  source,
                  f"How strongly an attacker's guess of a person's sensitive value follows their other columns: "
                  f"the {what} of the attacker's coefficients, ignoring their sign — each the standard deviations "
                  "its guess moves when one other column moves by one (paper, Section 2.4). 0 means the other "
                  "columns tell nothing. Read it against the same attack on the real rows (privacy 0) and on the "
                  "real rows with every column shuffled, where there is nothing to learn (privacy 1). The paper's "
                  f"measure, kept as it defines it; it can mislead, because the size of the coefficients is not how "
                  f"well the guesses hit: {blind}. The attacker's skill on real people measures the guesses.",
                  per_column=PerColumn.SENSITIVE, axis=AxisKind.PRIVACY, worst=Reference(name, reference),
                  ideal=Reference(on_release or name, SHUFFLED, 0.0), fallback=on_release,
                  question=f"{asked} (the paper's measure; lower is safer)",
                  produced_by=release_attribute_records if published else aia_iteration)


ATTRIBUTE = register(Family("attribute", 30, (
    Metric("release_skill", "Attacker's skill at guessing the real people's sensitive values",
           "Attacker skill on real people", "share of guessing error removed", Direction.LOWER, (float("-inf"), 1.0),
           Group.ATTRIBUTE_RISK, Source.RELEASE,
           "How well someone who learns from the published data guesses a real person's sensitive value from their "
           "other columns: the attacker fits the paper's regression on each published set, then guesses the value "
           "of every person in the training data; the score is the share of the guessing error it removes compared "
           "with guessing the column's average for everyone (for a categorical column, its most common category). "
           "1 means every guess is right, 0 no better than the average, below 0 worse. Read it against the same "
           "attacker trained on the real rows themselves (privacy 0: no linear guess does better on them) and on "
           "the real rows with every column shuffled, where there is nothing to learn (privacy 1). Unlike the "
           "paper's MAB it does not shrink when a single column gives the sensitive one away.",
           per_column=PerColumn.SENSITIVE, axis=AxisKind.PRIVACY, worst=Reference("release_skill", REAL),
           ideal=Reference("release_skill", SHUFFLED, 0.0),
           question="How well an attacker who learns from the published data guesses the real people's sensitive "
                    "values (lower is safer)",
           produced_by=release_attribute_records),
    _mab("mab", "Mean absolute attacker coefficient (MAB)", "Attack game MAB", Source.GAME, RAW,
         on_release="release_mab"),
    _mab("wcab", "Worst-case absolute attacker coefficient (WCAB)", "Attack game WCAB", Source.GAME, RAW,
         on_release="release_wcab", worst_case=True),
    _mab("release_mab", "Mean absolute attacker coefficient on the release (MAB)", "Release MAB", Source.RELEASE,
         REAL),
    _mab("release_wcab", "Worst-case absolute attacker coefficient on the release (WCAB)", "Release WCAB",
         Source.RELEASE, REAL, worst_case=True),
    Metric("mr2", "Attacker R² (attack game)", "Attacker R²", "R²", Direction.LOWER, (0.0, 1.0), Group.ATTRIBUTE_RISK,
           Source.GAME,
           "How much of the sensitive column's variation the attacker's guesses explain in the attack game, from 0 "
           "(nothing) to 1 (all of it).", per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("release_r2", "Attacker R² on the release", "Release attacker R²", "R²", Direction.LOWER, (0.0, 1.0),
           Group.ATTRIBUTE_RISK, Source.RELEASE,
           "How much of the sensitive column's variation the attacker's guesses explain on the published sets, "
           "from 0 (nothing) to 1 (all of it).",
           per_column=PerColumn.SENSITIVE, produced_by=release_attribute_records),
    Metric("mse_in", "Attacker squared error, target in training data", "Guess error (IN)",
           "squared error (standardised)", Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "How far off the attacker's guess of a target person's sensitive value is (squared, in standard "
           "deviations) when that person was in the training rows.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("mse_out", "Attacker squared error, target left out", "Guess error (OUT)", "squared error (standardised)",
           Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "The same guess error when the person was left out: IN close to OUT means being in the data does not "
           "help the attacker.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("advantage", "Attacker advantage, categorical column (attack game)", "Attacker advantage (categorical)",
           "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.GAME,
           "For a categorical sensitive column: how much more often the attacker guesses a person's category "
           "correctly when the person was in the training rows than when not; 0 means no difference.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("release_advantage", "Attacker advantage over the majority class on the release",
           "Release attacker advantage", "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.RELEASE,
           "For a categorical sensitive column: how much better than always guessing the most common category an "
           "attacker trained on the published sets does; 0 means no better.", per_column=PerColumn.SENSITIVE,
           produced_by=release_attribute_records),
)))
