"""The pooled-release check: an attacker who holds every earlier release of a table and the new one.

Each release is judged alone by the sweep; published together they are one larger sample of the same model (or of
several), and correlated releases compose worse than separate accounting says (Zhang, Malin, Raviv and Vorobeychik,
"Confounding Privacy and Inverse Composition"). Before a new export of a table that already has releases, the release
attribute attack and the three membership attacks — the same functions the per-set metrics call — run on the union of
the distinct earlier releases and the new one, and on the new release alone; the pool's risk is compared with the
single release's interval from the sweep. Exact copies of training rows in the pool are counted (a copying generator
shows at once), and the ε of differentially private releases adds up.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.context import EvaluationData, encode_rows
from ..evaluation.intervals import Interval
from ..evaluation.metrics.attribute import release_attribute_records
from ..evaluation.set_metrics import SyntheticSet, bounded
from ..evaluation.summary import Summary
from ..model.generator import SyntheticGenerator
from ..seeding import task_seed
from .guardrails import copies_of_training_rows
from .ledger import Budget, LedgerEntry, budget, distinct, epsilon_of

COLUMNS = ["metric", "label", "column", "better", "single", "single_low", "single_high", "n", "pooled", "raised"]


@dataclass
class PooledCheck:
    earlier: int  # distinct earlier releases in the pool
    rows: int  # rows in the pool (earlier + new)
    risks: pd.DataFrame  # COLUMNS: the single release's value and sweep interval next to the pool's
    copies: int  # pooled rows equal to a training row on every modelled column
    budget: Budget  # ε with the new release added
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def raised(self) -> bool:
        return bool(self.risks["raised"].fillna(False).astype(bool).any()) or self.copies > 0


def _risks(values: np.ndarray, data: EvaluationData, sensitive: list[str], level, seed: int) -> dict:
    """{(metric, column): value} of the release attribute attack and the membership attacks on one set."""
    out = {(r.metric, r.attribute): r.value
           for r in release_attribute_records(values[None], data, sensitive, "pooled", level)}
    one = bounded(SyntheticSet(values, data, seed, "pooled", level, 0))
    # the membership attacks as the catalogue declares them: the function that computes mia_auc on one set
    for name, value in CATALOGUE["mia_auc"].compute(one).items():
        if not isinstance(value, dict):
            out[(name, None)] = float(value)
    return out


def _interval(summary: Summary | None, level, metric: str, column: str | None) -> tuple[float, float, int]:
    """The sweep's interval of the single release at this level (NaN where it was not measured)."""
    found = None if summary is None else summary.point(level).metric(metric).attribute(column).interval()
    if found is None:
        return np.nan, np.nan, 0
    return found.low, found.high, found.n or 0  # the table's count of sets: 0 where none stands behind it


TOLERANCE = 1e-9  # shares such as TPRs are ratios of small counts: equal values must not count as beyond


def raised(metric: str, pooled: float, low: float, high: float) -> bool | None:
    """The pooled attack is beyond the single release's interval in the less private direction (None: no
    interval, or no pooled value, to compare)."""
    if np.isnan(low) or np.isnan(high) or np.isnan(pooled):
        return None
    if CATALOGUE[metric].lower_is_better:
        return bool(pooled > high + TOLERANCE)
    return bool(pooled < low - TOLERANCE)


def pooled_check(model: SyntheticGenerator, data: EvaluationData | None, train: pd.DataFrame, new: pd.DataFrame,
                 new_sha256: str, earlier: list[tuple[LedgerEntry, pd.DataFrame]], sensitive: list[str], level,
                 master_seed: int, summary: Summary | None = None) -> PooledCheck:
    """Attack the union of the distinct ``earlier`` releases (ledger entries with their rows) and ``new``
    as one attacker would, next to ``new`` alone; ``summary`` (the sweep's) gives the single release's interval.
    ``train`` is the decoded training split (for exact copies), ``data`` its encoding (``JobView.evaluation_data``;
    None without a sweep: no attacks, only the copies and the budget)."""
    kept = {e.sha256: (e, t) for e, t in earlier}
    pool = [kept[e.sha256] for e in distinct([e for e, _ in earlier]) if e.sha256 != new_sha256]
    tables = [t for _, t in pool] + [new]
    alone, together = {}, {}
    if data is not None:  # the attacks need the rows held out of the fit (a sweep's split)
        encoded = [encode_rows(data.encoder, t, model.schema_, model.missing) for t in tables]
        single, pooled = encoded[-1], np.vstack(encoded)
        seed = task_seed(master_seed, "pooled-release", level)
        alone, together = _risks(single, data, sensitive, level, seed), _risks(pooled, data, sensitive, level, seed)
    rows = []
    for (metric, column), value in alone.items():
        low, high, n = _interval(summary, level, metric, column)
        entry = CATALOGUE[metric]
        rows.append({"metric": metric, "label": entry.short, "column": column, "better": entry.better, "single": value,
                     "single_low": low, "single_high": high, "n": n, "pooled": together.get((metric, column), np.nan),
                     "raised": raised(metric, together.get((metric, column), np.nan), low, high)})
    risks = pd.DataFrame(rows, columns=COLUMNS)
    pool_table = pd.concat(tables, ignore_index=True)
    copies = copies_of_training_rows(pool_table, train, model.schema_.modelled)
    spent = [e for e, _ in pool]
    spent_budget = budget(spent)
    eps = epsilon_of(model)
    total = Budget(spent_budget.epsilon + (eps or 0.0), spent_budget.dp_releases + (eps is not None),
                   spent_budget.other_releases + (eps is None))
    check = PooledCheck(len(pool), len(pool_table), risks, copies, total)
    if len(pool) < len(earlier):
        check.notes.append(f"{len(earlier) - len(pool)} earlier export(s) are the same file as another (or as this "
                           "one) and count once.")
    check.warnings += raised_sentences(risks, len(pool))
    if copies:
        check.warnings.append(f"{copies} of the {len(pool_table)} pooled rows are exact copies of training rows: "
                              "together the releases publish real records.")
    if risks["raised"].isna().all() and len(risks):
        check.notes.append("The sweep has no interval for these attacks at this level: compare the numbers directly.")
    if data is None:
        check.notes.append("The attacks were not run: they need rows held out of the fit, which only a sweep has "
                           "(release from a sweep to attack the pool); the copies and the privacy budget are counted.")
    if (risks["metric"] == "release_mab").any():
        check.notes.append("A pooled attacker's regression is estimated from more rows, so its noise shrinks: MAB can "
                           "fall when releases are pooled; a coefficient the model really keeps does not.")
    return check


def raised_sentences(risks: pd.DataFrame, earlier: int) -> list[str]:
    """One warning per row of ``risks`` whose pooled value is beyond the single release's interval, quoting that
    row's own numbers."""
    out = []
    for row in risks[risks["raised"].fillna(False).astype(bool)].itertuples():
        where = f" for {row.column}" if isinstance(row.column, str) else ""
        direction = "above" if CATALOGUE[row.metric].lower_is_better else "below"
        single = Interval(row.single, row.single_low, row.single_high, int(row.n))
        out.append(f"Pooled with the {earlier} earlier release(s), {row.label}{where} is {row.pooled:.4f}: "
                   f"{direction} the single release's {single.words(4)} "
                   f"(this release alone: {row.single:.4f}). An attacker holding all of them learns more than the "
                   "sweep measured for one release.")
    return out


def verdict(check: PooledCheck) -> str:
    """The check's one-line verdict, recomputed from its table (the Export page, the report, the CLI)."""
    beyond = int(check.risks["raised"].fillna(False).astype(bool).sum())
    compared = int(check.risks["raised"].notna().sum())
    copies = (f"; {check.copies} pooled row(s) copy a training row" if check.copies else
              "; no pooled row copies a training row")
    if check.risks.empty:
        return (f"Pooled with the {check.earlier} earlier release(s): no attack was run (they need a sweep's hold-out "
                f"rows){copies}.")
    if beyond:
        return (f"Pooled with the {check.earlier} earlier release(s), {beyond} of {compared} attack value(s) go beyond "
                f"a single release's interval{copies}.")
    if not compared:
        return (f"Pooled with the {check.earlier} earlier release(s): the sweep has no interval for a single release "
                f"at this level, so nothing could be compared{copies}.")
    return (f"Pooled with the {check.earlier} earlier release(s), none of the {compared} attack value(s) goes beyond "
            f"a single release's interval{copies}.")


DISPLAY_COLUMNS = {"label": "Attack", "column": "Column", "better": "More private when", "single": "This release",
                   "single_low": "One release: interval from", "single_high": "to", "n": "Sets behind the interval",
                   "pooled": "Pooled", "raised": "Pooled beyond the interval"}


def display_table(risks: pd.DataFrame) -> pd.DataFrame:
    """The risks table in words, for a reader: human headers, 'all columns' for a metric of the whole set,
    'lower'/'higher' for the private direction, 'yes'/'no'/'—' for beyond the interval."""
    out = risks[list(DISPLAY_COLUMNS)].copy()
    out["column"] = [c if isinstance(c, str) else "all columns" for c in out["column"]]
    out["better"] = [f"{b} values" for b in out["better"]]
    out["raised"] = ["—" if r is None or (isinstance(r, float) and np.isnan(r)) else ("yes" if r else "no")
                     for r in out["raised"]]
    return out.rename(columns=DISPLAY_COLUMNS)


def sha256_of(file_bytes: bytes) -> str:
    return hashlib.sha256(file_bytes).hexdigest()
