"""An empirical audit of a generator's differential-privacy claim: how much ε its releases demonstrably spend.

A generator that is (ε, δ)-DP makes any membership test on one record obey, for every threshold,
TPR <= e^ε FPR + δ and 1 - FPR <= e^ε (1 - TPR) + δ (the hypothesis-testing view of DP). Running the test many
times on fits with and without a planted record and bounding its true- and false-positive rates with
Clopper-Pearson intervals gives an ε the implementation provably (at 95 %) spends:

    ε_lb = max( ln((TPR_low - δ) / FPR_high), ln((1 - FPR_high - δ) / (1 - TPR_low)) )

(Jagielski, Ullman and Oprea, "Auditing Differentially Private Machine Learning: How Private is Private SGD?",
NeurIPS 2020, Algorithm 2 and its Clopper-Pearson bounds; Nasr, Song, Thakurta, Papernot and Carlini,
"Adversary Instantiation: Lower Bounds for Differentially Private Machine Learning", IEEE S&P 2021, both
inequalities). An ε_lb above the claimed ε means the implementation is not ε-DP, whatever its documentation says;
an ε_lb below it proves nothing either way (an audit can only refute a claim), and ``most_provable`` says how
high these trials could have gone.

Protocol (after the canary audits of synthetic data, e.g. spalabucr/synth-audit, Annamalai et al. 2024):

* **Canaries**, worst-case outliers, one of each kind: ``outside`` — every numeric column one range beyond its
  maximum, every categorical column at its rarest value (the worst case for an implementation that takes its
  domain from the data); ``corner`` — every numeric column at the extreme of the training range farther from its
  median, the rarest categories (the worst case inside a public domain).
* **Trials**: ``trials`` fits on the same base rows (at most ``AUDIT_ROWS`` training rows, seeded); canary
  ``outside`` is in the fit's rows in trials 1, 3, 5, ... and ``corner`` in trials 2-3, 6-7, ...: each canary is in
  half of the fits, the other canary's presence balanced across them (it is part of the neighbouring datasets'
  common rows, which DP covers for any such rows).
* **Membership tests** on the released rows, two scores per canary (``scores``): the distance from the canary to
  its nearest released row (a release that reproduces the record), and how many released values fall near the
  canary's value column by column (a release whose margins reach it: a domain taken from the data).
* **Score, threshold and bound**: the first half of the trials chooses each canary's score and threshold (those
  whose bound is largest on them), the second half measures TPR and FPR at them, so the choice is independent of
  the rates it is judged on. Confidence 95 % over both canaries and both rates (Bonferroni: each one-sided
  Clopper-Pearson bound at 0.05 / 4); the reported ε_lb is the larger canary's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ....seeding import subsample, task_rng, task_seed
from ...context import EvaluationData, GeneratorSpec
from ...distance import nearest, standardise
from ...intervals import clopper_pearson
from ...records import Record, RecordRole, model_label, record
from ...timing import timed

AUDIT_ROWS = 1_000  # base rows of every audit fit (a smaller dataset only makes one record easier to see)
DEFAULT_TRIALS = 80  # fits per audited generator: 20 with and 20 without each canary in each half
CONFIDENCE = 0.95
CANARIES = ("outside", "corner")
SCORE_IN, SCORE_OUT, CLAIM_EPSILON, CLAIM_DELTA = ("dp_audit_score_in", "dp_audit_score_out",
                                                   "dp_audit_claimed_epsilon", "dp_audit_claimed_delta")


def canary_rows(base: np.ndarray, categorical: np.ndarray) -> dict[str, np.ndarray]:
    """The two canaries (module docstring) for ``base`` rows in the encoder's coding."""
    categorical = np.asarray(categorical, dtype=bool)
    low, high, median = base.min(axis=0), base.max(axis=0), np.median(base, axis=0)
    span = np.where(high > low, high - low, 1.0)
    rarest = np.array([_rarest(base[:, j]) for j in range(base.shape[1])])
    outside = np.where(categorical, rarest, high + span)
    corner = np.where(categorical, rarest, np.where(high - median >= median - low, high, low))
    return {"outside": outside, "corner": corner}


def _rarest(column: np.ndarray) -> float:
    values, counts = np.unique(column, return_counts=True)
    return float(values[np.argmin(counts)])


def included(trial: int) -> dict[str, bool]:
    """Which canaries trial ``trial`` puts in the fit's rows: a balanced two-factor design."""
    return {"outside": trial % 2 == 1, "corner": (trial // 2) % 2 == 1}


def scores(release: np.ndarray, base: np.ndarray, canaries: dict[str, np.ndarray],
           categorical: np.ndarray) -> dict[str, float]:
    """Each canary's two membership scores, keyed ``CANARY/SCORE`` (higher: more likely in the fit):

    * ``distance``: minus the distance to the nearest released row (columns z-scored by ``base``), a release that
      reproduces the record;
    * ``margins``: the mean over columns of log(1 + released values within 5 % of the column's range of the
      canary's value; equal, for a categorical column), a release whose one-way margins reach the record, which
      a joint distance dilutes over many columns (a domain taken from the data shows here)."""
    categorical = np.asarray(categorical, dtype=bool)
    span = base.max(axis=0) - base.min(axis=0)
    reach = np.where(categorical, 0.0, 0.05 * np.where(span > 0, span, 1.0))
    release_z, *canary_z = standardise(base, release, *canaries.values())
    out = {}
    for (name, row), row_z in zip(canaries.items(), canary_z, strict=True):
        out[f"{name}/distance"] = -float(nearest(row_z[None], release_z)[0][0, 0])
        out[f"{name}/margins"] = float(np.mean(np.log1p((np.abs(release - row) <= reach).sum(axis=0))))
    return out


def epsilon_lower_bound(tp: int, positives: int, fp: int, negatives: int, delta: float = 0.0,
                        alpha: float = 1 - CONFIDENCE) -> float:
    """ε_lb from a test's counts (module docstring), each rate bounded one-sided at ``alpha / 2``; 0 where the
    bounds prove nothing."""
    tpr_low = clopper_pearson(tp, positives, alpha / 2)[0]
    fpr_high = clopper_pearson(fp, negatives, alpha / 2)[1]
    bounds = [0.0]
    if fpr_high > 0 and tpr_low - delta > 0:
        bounds.append(math.log((tpr_low - delta) / fpr_high))
    if tpr_low < 1 and 1 - fpr_high - delta > 0:
        bounds.append(math.log((1 - fpr_high - delta) / (1 - tpr_low)))
    return max(bounds)


def _counts(inside: np.ndarray, outside: np.ndarray, threshold: float) -> tuple[int, int, int, int]:
    """(TP, positives, FP, negatives) of the test "member when the score is at least ``threshold``"."""
    return int((inside >= threshold).sum()), len(inside), int((outside >= threshold).sum()), len(outside)


@dataclass(frozen=True)
class AuditResult:
    """A generator's claimed (ε, δ) next to the ε its releases demonstrably spend."""

    model: str
    claimed_epsilon: float
    delta: float
    empirical_epsilon: float  # the larger canary's ε_lb, 95 % confidence
    canary: str  # the canary and score that gave it (CANARY/SCORE)
    tpr: float  # the measuring half's rates of that canary's test
    fpr: float
    trials: int  # fits behind the audit
    most_provable: float  # the largest ε_lb these trials could give (a perfect test)

    @property
    def flagged(self) -> bool:
        """The bound exceeds the claim: the implementation is not (claimed ε, δ)-DP."""
        return self.empirical_epsilon > self.claimed_epsilon

    def sentence(self) -> str:
        """One line for the CLI, the pages and the report."""
        verdict = (f"VIOLATION: its releases spend at least ε = {self.empirical_epsilon:.2f} (95 % confidence), more "
                   f"than the claimed ε = {self.claimed_epsilon:g}" if self.flagged else
                   f"consistent with the claimed ε = {self.claimed_epsilon:g}: the audit proves at least "
                   f"ε = {self.empirical_epsilon:.2f} (at most {self.most_provable:.2f} was provable with "
                   f"{self.trials} fits)")
        return f"{model_label(self.model)}: {verdict} ({self.canary} canary, TPR {self.tpr:.2f}, FPR {self.fpr:.2f})"

    def to_dict(self) -> dict:
        return {"claimed_epsilon": self.claimed_epsilon, "delta": self.delta,
                "empirical_epsilon": self.empirical_epsilon, "flagged": self.flagged, "canary": self.canary,
                "tpr": self.tpr, "fpr": self.fpr, "trials": self.trials, "most_provable": self.most_provable,
                "verdict": self.sentence()}


def audit(inside: dict[str, np.ndarray], outside: dict[str, np.ndarray], first_inside: dict[str, np.ndarray],
          first_outside: dict[str, np.ndarray], model: str, epsilon: float, delta: float,
          trials: int) -> AuditResult:
    """The bound from scores keyed ``CANARY/SCORE``: for each canary the choosing half (``first_*``) picks the score
    and threshold with the largest bound, the measuring half (``inside`` / ``outside``) is counted at them; the
    confidence is split over the canaries (Bonferroni)."""
    canaries = sorted({key.split("/")[0] for key in inside})
    alpha = (1 - CONFIDENCE) / max(1, len(canaries))
    found = []  # per canary: (bound, its score key, TPR, FPR) on the measuring half
    for canary in canaries:
        options = []  # (bound on the choosing half, threshold, key): the largest bound, then the highest threshold
        for key in [k for k in sorted(inside) if k.split("/")[0] == canary]:
            for threshold in np.unique(np.r_[first_inside[key], first_outside[key]]):
                options.append((epsilon_lower_bound(*_counts(first_inside[key], first_outside[key], threshold), delta,
                                                    alpha), threshold, key))
        if not options:
            continue
        _, threshold, key = max(options)
        tp, positives, fp, negatives = _counts(inside[key], outside[key], threshold)
        found.append((epsilon_lower_bound(tp, positives, fp, negatives, delta, alpha), key, tp / max(positives, 1),
                      fp / max(negatives, 1)))
    best = max(found, key=lambda f: f[0], default=(0.0, "", 0.0, 0.0))  # ties: the first canary
    positives, negatives = (min((len(v) for v in side.values()), default=0) for side in (inside, outside))
    most = epsilon_lower_bound(positives, positives, 0, negatives, delta, alpha)
    return AuditResult(model, float(epsilon), float(delta), best[0], best[1], best[2], best[3], int(trials), most)


def audits_from_records(records: pd.DataFrame) -> list[AuditResult]:
    """Every audited generator's result from a job's records: scores of trials below half the planned trials
    choose, the rest measure (records of role "audit": ``trial_records``)."""
    rows = records[records["metric"].isin([SCORE_IN, SCORE_OUT, CLAIM_EPSILON, CLAIM_DELTA])]
    found = []
    for model, own in rows.groupby("model", sort=True):
        claims = own[own["metric"] == CLAIM_EPSILON]
        if claims.empty:
            continue
        epsilon = float(claims["value"].iloc[0])
        delta = float(own.loc[own["metric"] == CLAIM_DELTA, "value"].iloc[0])
        trials = int(claims["target"].iloc[0])  # the planned number of trials
        half = trials // 2
        sides: dict = {}
        for (metric, canary), group in own[own["metric"].isin([SCORE_IN, SCORE_OUT])].groupby(["metric",
                                                                                              "attribute"]):
            first = group["iteration"].astype(int) < half
            sides[(metric, canary, True)] = group.loc[first, "value"].to_numpy(float)
            sides[(metric, canary, False)] = group.loc[~first, "value"].to_numpy(float)
        keys = sorted({key for _, key, _ in sides})
        if not keys:
            continue
        side = {(metric, first): {key: sides.get((metric, key, first), np.array([])) for key in keys}
                for metric in (SCORE_IN, SCORE_OUT) for first in (True, False)}
        found.append(audit(side[SCORE_IN, False], side[SCORE_OUT, False], side[SCORE_IN, True],
                           side[SCORE_OUT, True], str(model), epsilon, delta, trials))
    return found


def claimed_privacy(spec: GeneratorSpec) -> tuple[float, float] | None:
    """(ε, δ) a generator's settings claim (its declared ``registry.PrivacyClaim``; δ 0: pure DP); None for a
    generator that claims none."""
    return spec.build(0).privacy_claim()


def audit_base(data: EvaluationData, master_seed: int) -> np.ndarray:
    """The rows every audit fit starts from: at most ``AUDIT_ROWS`` training rows, the same for every trial."""
    return subsample(data.train, AUDIT_ROWS, task_rng(master_seed, "dp-audit rows"))


def trial_records(spec: GeneratorSpec, data: EvaluationData, master_seed: int, trial: int,
                  trials: int = DEFAULT_TRIALS) -> list[Record]:
    """One audit trial: the generator fitted on the base rows plus this trial's canaries, one release of as many
    rows as the base, each canary's score recorded as IN or OUT; trial 0 also records the claimed ε and δ (its
    ``target``: the planned number of trials, which fixes the halves)."""
    claim = claimed_privacy(spec)
    if claim is None:
        raise ValueError(f"{spec.label} claims no ε: there is nothing to audit")
    base = audit_base(data, master_seed)
    canaries = canary_rows(base, data.categorical)
    inside = included(trial)
    rows = np.vstack([base, *(canaries[c][None] for c in CANARIES if inside[c])])
    with timed("fitting"):
        model = spec.build(task_seed(master_seed, "dp-audit", spec.label, trial)).fit_encoded(rows, data.encoder,
                                                                                              data.schema)
    with timed("sampling"):
        release = model.sample_values(len(base), None, task_seed(master_seed, "dp-audit release", spec.label, trial))
    records = [record(spec.label, None, SCORE_IN if inside[key.split("/")[0]] else SCORE_OUT, value, attribute=key,
                      iteration=trial, role=RecordRole.AUDIT)
               for key, value in scores(release, base, canaries, data.categorical).items()]
    if trial == 0:
        records += [record(spec.label, None, CLAIM_EPSILON, claim[0], target=trials, role=RecordRole.AUDIT),
                    record(spec.label, None, CLAIM_DELTA, claim[1], target=trials, role=RecordRole.AUDIT)]
    return records


def run_audit(spec: GeneratorSpec, data: EvaluationData, master_seed: int,
              trials: int = DEFAULT_TRIALS) -> AuditResult:
    """Every trial in this process, then the bound: the audit outside a sweep (tests, the bench)."""
    records = [r for t in range(trials) for r in trial_records(spec, data, master_seed, t, trials)]
    return audits_from_records(pd.DataFrame(records))[0]
