"""PrivPGD (issue 26) on both demos next to the paper's other competitors, and the TVineSynth paper's Figure 2
statements about it checked on the clinical demo.

Why: PrivPGD is written here from the authors' code (tvs_core/model/privpgd.py); a statistician comparing our scatter
with the paper needs to see that it behaves as the paper reports. This runs the sweep of bench/competitors.py (quick
preset, release metrics, the paper's epochs) with ``privpgd:2.5`` as the only competitor — TVineSynth's numbers do
not depend on which baselines run (every task is seeded from its key), and this script checks that they equal the
committed run's — and reads the other competitors' rows from that committed run (same seed and settings) in
bench/competitors.md. It then writes the section "PrivPGD (issue 26)" of bench/competitors.md (replacing an earlier
one, keeping the rest): the table with 95 % intervals, the fit seconds against ``fit_cost``, and each Figure 2
statement with whether this run agrees and whether the intervals separate.

Usage (from the repo root): ``nice -n 10 python -m bench.privpgd [clinical breast_cancer]``. Each demo's sweep is
kept in the temporary folder (``privpgd-bench-DEMO.pkl``) as it finishes; ``--run-only`` stops there (to run the
demos as parallel processes) and ``--write-only`` writes the section from the kept sweeps. ``--others`` runs the
other competitors (and MST) in the same way instead, kept as ``privpgd-bench-DEMO-others.pkl``: when kept, their rows
replace the committed run's (which may come from an earlier version of the demos).
"""

from __future__ import annotations

import datetime
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from bench.common import exit_with_usage_if_asked
from bench.competitors import interval_cell, run
from bench.machine import cpu_model
from tvs_core import load_demo
from tvs_core.jobs import COMPETITORS
from tvs_core.model.competitors import fit_cost

ROOT = Path(__file__).resolve().parents[1]

NOTE = ROOT / "bench" / "competitors.md"
TITLE = "## PrivPGD (issue 26)"
NAME = "privpgd:2.5"


def committed_rows(text: str, demo: str) -> dict[str, list[str]]:
    """The table rows of ``demo`` in the committed issue-13 run: model -> its cells as written."""
    part = text.split(f"## {demo} (", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("model", "---"):
            rows[cells[0]] = cells[1:]
    return rows


def interval(cell: str) -> tuple[float, float, float]:
    median, low, high = (float(v) for v in re.findall(r"-?\d+\.\d+", cell)[:3])
    return median, low, high


def statement(claim: str, higher: tuple[str, str], lower: tuple[str, str]) -> str:
    """One check ``higher > lower`` on medians, and whether the 95 % intervals are disjoint."""
    (a_name, a_cell), (b_name, b_cell) = higher, lower
    a, b = interval(a_cell), interval(b_cell)
    agrees = a[0] > b[0]
    separated = a[1] > b[2] if agrees else b[1] > a[2]
    verdict = "**agrees**" if agrees else "**differs**"
    return (f"- {claim}: {verdict} — {a_name} {a_cell} vs {b_name} {b_cell} "
            f"({'intervals disjoint' if separated else 'intervals overlap'})")


OTHERS = [name for name in COMPETITORS if name != NAME] + ["mst:2.5"]


def kept(demo: str, others: bool = False) -> Path:
    return Path(tempfile.gettempdir()) / f"privpgd-bench-{demo}{'-others' if others else ''}.pkl"


def table_rows(frame: pd.DataFrame) -> dict[str, list[str]]:
    """model (with its level) -> its four cells, as in the tables of bench/competitors.md."""
    rows = {}
    for row in frame.itertuples():
        name = row.model if pd.isna(row.level) else f"{row.model} t={int(row.level)}"
        rows[name] = [interval_cell(row.tstr_auc), interval_cell(row.release_mab_worst), interval_cell(row.mia_auc),
                      f"{row.fit_seconds:.1f}"]
    return rows


def main() -> None:
    args = sys.argv[1:]
    run_only, write_only, others = "--run-only" in args, "--write-only" in args, "--others" in args
    demos = [a for a in args if not a.startswith("--")] or ["clinical", "breast_cancer"]
    for demo in demos if not write_only else []:
        started = time.perf_counter()
        frame, trtr = run(demo, "paper", OTHERS if others else [NAME])
        pd.to_pickle((frame, trtr, time.perf_counter() - started), kept(demo, others))
        print(f"{demo} done", file=sys.stderr, flush=True)
    if not run_only:
        write({demo: pd.read_pickle(kept(demo)) for demo in demos})


def write(results: dict) -> None:
    """The section from each demo's (frame, TRTR AUC, sweep seconds), into bench/competitors.md."""
    text = NOTE.read_text()
    before = text.split(f"\n{TITLE}", 1)[0].rstrip("\n")
    load = os.getloadavg()[0]
    lines = [TITLE, "",
             f"Run {datetime.date.today()} on {cpu_model()} ({os.cpu_count()} cores, load average {load:.1f} when "
             "this was written: other work shared the machine), `nice -n 10 python -m bench.privpgd --run-only "
             "DEMO` for each demo in turn, then `python -m bench.privpgd --write-only`: the "
             "sweep above (quick preset, release metrics, two tasks at a time each) with `privpgd:2.5` (ε = 2.5, δ"
             " = 1e-5, the authors' settings but 1 000 particles and 10 projection-step directions: "
             "docs/reference/models.md, Competitors) as its baseline. Cells as above: median over the published "
             "sets [95 % bootstrap interval]. The other competitors' rows come from a second sweep of this run with "
             "them as baselines (`--others`; TVineSynth's rows of the two sweeps are compared below), or, marked, "
             "from the committed run above.", ""]
    clinical = None
    for demo, (frame, trtr, seconds) in results.items():
        new = table_rows(frame)
        rerun = kept(demo, others=True).exists()
        old = table_rows(pd.read_pickle(kept(demo, others=True))[0]) if rerun else committed_rows(text, demo)
        same = [name for name in new if name != NAME and old.get(name, [None])[:3] == new[name][:3]]
        holder = [name for name in new if name != NAME]
        columns = len(load_demo(demo).columns)
        expected = fit_cost("privpgd", None, 0, columns)
        lines += [f"### {demo} (TRTR AUC {trtr:.3f}; sweep {seconds:.0f} s)", "",
                  "| model | TSTR AUC | release MAB (worst column) | mia_auc | fit s |", "|---|---|---|---|---|"]
        rows = {**{k: v for k, v in old.items() if not k.startswith("tvinesynth")}, **new}
        for name in sorted(rows, key=lambda r: (r.split(" t=")[0], int(r.split(" t=")[1]) if " t=" in r else 0)):
            lines.append(f"| {name}{'' if name in new or rerun else ' (committed run)'} | " + " | ".join(rows[name])
                         + " |")
        source = "the other competitors' sweep of this run" if rerun else "the committed run"
        lines += ["", f"TVineSynth's rows equal those of {source}: {len(same)} of {len(holder)} (TSTR, MAB, "
                      f"mia_auc cells). PrivPGD's fit: {new[NAME][3]} s inside the sweep; `fit_cost` expects "
                      f"{expected:.0f} s ({columns} columns, {columns * (columns - 1) // 2} two-way marginals).", ""]
        if demo == "clinical":
            clinical = rows
    if clinical is not None:
        best = max((n for n in clinical if n.startswith("tvinesynth")), key=lambda n: interval(clinical[n][0])[0])
        low = "tvinesynth t=1"
        pgd = clinical[NAME]
        lines += ["### The paper's Figure 2 statements about PrivPGD, on the clinical demo", "",
                  "Section 3.1 and Figure 2 (SUPPORT2): utility \"superior to CTGAN and especially to PrivBayes and "
                  "PrivPGD\"; AIA \"outperforming TVAE and PrivPGD\" at low levels, \"PrivPGD exhibits a surprisingly "
                  "high MAB\"; MIA: PrivPGD's PG like PrivBayes'. The demo is not SUPPORT2 and MAB here is the release "
                  "MAB (not the game's); mia_auc is the strongest shadow-free attack, not PG.", "",
                  statement("utility, TVineSynth (best level) above PrivPGD", (best, clinical[best][0]),
                            (NAME, pgd[0])),
                  statement("utility, CTGAN above PrivPGD", ("ctgan", clinical["ctgan"][0]), (NAME, pgd[0])),
                  statement("utility, TVAE above PrivPGD", ("tvae", clinical["tvae"][0]), (NAME, pgd[0]))]
        for eps in ("0.1", "1", "5"):
            lines.append(statement(f"utility, PrivPGD above PrivBayes ε = {eps}", (NAME, pgd[0]),
                                   (f"privbayes:{eps}", clinical[f"privbayes:{eps}"][0])))
        lines.append(statement("AIA, PrivPGD's MAB above TVineSynth's lowest level", (NAME, pgd[1]),
                               (low, clinical[low][1])))
        lines.append(statement("AIA, PrivPGD's MAB above PrivBayes ε = 1", (NAME, pgd[1]),
                               ("privbayes:1", clinical["privbayes:1"][1])))
        median, lo, hi = interval(pgd[2])
        lines += [f"- MIA, PrivPGD near chance like PrivBayes: mia_auc {pgd[2]} "
                  f"({'**agrees**: the interval holds 0.5' if lo <= 0.5 <= hi else '**differs**: 0.5 is outside'}; "
                  f"PrivBayes ε = 1 {clinical['privbayes:1'][2]})", ""]
    NOTE.write_text(before + "\n\n" + "\n".join(lines))


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    main()
