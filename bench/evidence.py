"""Every metric per level on both demos (and the SUPPORT2-shaped table), and where the recommendation lands.

Why (issue 11): the recommendation must land where a statistician would put it. For each table this
runs the default quick sweep and writes, per TVineSynth level, the utility parts (TSTR, pair
structure, CI overlap, pMSE ratio) and the privacy measures (game MAB on the worst sensitive column,
PG, the shadow-free membership attacks), with the real-data and shuffled-columns anchors; then the
best level at alpha = 0.25 / 0.5 / 0.75 under the paper's choice (TSTR, game MAB) and under the new
defaults (utility mix; MAB with its measured floor; or the strongest membership attack), and what
the recommended level cuts (the instant preview).

Usage (from the repo root): ``python -m bench.evidence [clinical breast_cancer support]``; writes
bench/evidence.md.
"""

from __future__ import annotations

import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bench.common import exit_with_usage_if_asked
from bench.machine import cpu_model
from bench.tables import RESPONSE, SENSITIVE, support_like
from tvs_core import load_demo
from tvs_core.choice import choose
from tvs_core.choice.axes import Axis
from tvs_core.choice.mix import DEFAULT_MIX, UtilityMix
from tvs_core.choice.selection import PrivacyPoints
from tvs_core.data.demo import DEMOS
from tvs_core.evaluation.catalogue import CATALOGUE, tstr_metric
from tvs_core.evaluation.records import REAL, SHUFFLED
from tvs_core.evaluation.summary import Summary
from tvs_core.jobs import JobView, SweepConfig, submit
from tvs_core.jobs.worker import run_job
from tvs_core.storage.store import Store

ROOT = Path(__file__).resolve().parents[1]

TABLES = {
    "clinical": lambda: (load_demo("clinical"), DEMOS["clinical"].response, list(DEMOS["clinical"].sensitive)),
    "breast_cancer": lambda: (load_demo("breast_cancer"), DEMOS["breast_cancer"].response,
                              list(DEMOS["breast_cancer"].sensitive)),
    "support": lambda: (support_like(), RESPONSE, list(SENSITIVE)),
}
CHOICES = [("paper: TSTR, game MAB", UtilityMix.parse("tstr"), Axis.parse("mab_worst")),
           ("mix, game MAB (floor measured)", None, Axis.parse("mab_worst")),
           ("mix, membership attack AUC", None, Axis.parse("mia_auc"))]
ALPHAS = (0.25, 0.5, 0.75)


def cell(model_rows: Summary, level: int | None, axis: Axis, sensitive: list[str], summary: Summary) -> str:
    """One model's value at ``level``; on a worst-column axis, of the column the choice names (scaled by the
    anchors, as the card and the scatter say it)."""
    found, column = PrivacyPoints(summary, axis, sensitive).of(model_rows, level)
    if found is None or found.missing:
        return "—"
    where = f" ({column})" if axis.worst and column else ""
    return f"{found.cell(3)}{where}"


def report(name: str, workspace: Path) -> list[str]:
    table, response, sensitive = TABLES[name]()
    store = Store(workspace)
    started = time.perf_counter()
    job_id = submit(store, table, SweepConfig(response=response, sensitive=sensitive, preset="quick"))
    status = run_job(store, job_id, n_jobs=2)
    seconds = time.perf_counter() - started
    view = JobView(store, job_id)
    summary = view.summary()
    tstr = tstr_metric(summary.metrics())
    axes = [Axis(tstr), Axis(CATALOGUE["pair_structure"]), Axis(CATALOGUE["ci_overlap"]),
            Axis(CATALOGUE["pmse_ratio"]), Axis.parse("mab_worst"), Axis.parse("pg"), Axis.parse("mia_auc"),
            Axis.parse("mia_tpr_at_1pct_fpr"), Axis.parse("mcmia")]
    lines = [f"## {name}: {len(table)} rows × {table.shape[1]} columns, Y = {response}, sensitive = "
             f"{', '.join(sensitive)}", "",
             f"Quick sweep, default levels and baselines: {status} in {seconds:.0f} s (job {job_id}).", "",
             "| level | " + " | ".join(a.metric.short for a in axes) + " |",
             "|---" * (len(axes) + 1) + "|"]
    holder = summary.holder()
    for level in holder.levels():
        lines.append(f"| {level} | " + " | ".join(cell(holder, level, a, sensitive, summary) for a in axes) + " |")
    for model, words in ((REAL, "real rows (anchor 0 of privacy; TRTR)"), (SHUFFLED, "columns shuffled (floor)"),
                         ("independent", "independent margins (baseline)")):
        rows = summary.model(model)
        if model == REAL:
            rows = Summary(pd.concat([rows.frame, rows.metric(tstr.ideal.metric).frame.assign(metric=tstr.name)]))
        if model != "independent":  # the game MAB's anchors are the release attack's
            rows = Summary(pd.concat([rows.frame, rows.metric("release_mab").frame.assign(metric="mab")]))
        lines.append(f"| {words} | " + " | ".join(cell(rows, None, a, sensitive, summary) for a in axes) + " |")
    lines += ["", "Best level (share of resamples it wins):", "",
              "| choice | " + " | ".join(f"α = {a}" for a in ALPHAS) + " |", "|---" * (len(ALPHAS) + 1) + "|"]
    recommended = set()
    for label, utility, privacy in CHOICES:
        picks = []
        for alpha in ALPHAS:
            selection = choose(summary, sensitive, alpha, "anchored", privacy, utility=utility or DEFAULT_MIX)
            best = selection.best_level
            wins = float(selection.table.set_index("level").loc[best, "wins"])
            picks.append(f"{best} ({wins:.0%})")
            recommended.add(best)
        lines.append(f"| {label} | " + " | ".join(picks) + " |")
    preview = view.preview()
    lines += ["", "What the recommended levels cut (instant preview, |real correlation| ≥ 0.1 kept at < half):", ""]
    for level in sorted(recommended):
        cut = preview.cut_at(level)
        cost = cut[cut["where"] != "sensitive block (intended)"]
        examples = "; ".join(f"{r.a} – {r.b} {r.real:+.2f} → {r.kept:+.2f}" for r in cost.head(4).itertuples())
        lines.append(f"- level {level}: {len(cut)} cut, {len(cut) - len(cost)} inside the sensitive block"
                     + (f"; others: {examples}" if examples else ""))
    lines += ["", *(f"> {s}" for s in preview.sentences()), ""]
    return lines


def main(names: list[str]) -> None:
    out = ["# Evidence per level (issue 11)", "",
           f"Machine: {cpu_model()}, {os.cpu_count()} cores; {datetime.date.today()}; "
           f"command: `python -m bench.evidence {' '.join(names)}`.",
           "Cells: median [95 % bootstrap interval of the median] over the quick preset's replicates (5 synthetic "
           "sets for the release metrics: a spread, not a confidence interval; see the card's wording).", ""]
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            out += report(name, Path(folder) / name)
            print(f"{name} done", file=sys.stderr)
    (ROOT / "bench" / "evidence.md").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    main(sys.argv[1:] or list(TABLES))
