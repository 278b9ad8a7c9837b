"""What one fit of CTGAN and TVAE costs, split into a fixed part and a part per epoch (issue 13).

Why: the Sweep page shows each competitor's expected fit time before Start, and the sweep's time estimate
adds it. A first table scaled one quick fit linearly in epochs, which overstated a 400-epoch CTGAN fit on
the clinical demo eightfold (1 374 s predicted, 170 s measured): most of a quick fit is the fixed part
(the ctgan package fits a Bayesian Gaussian mixture to every continuous column before the first epoch).
This fits each model at two epoch budgets on both demos' training rows, one torch thread (as in a sweep
worker), one process at a time, and derives per demo

    seconds = fixed + per_epoch x epochs,

then normalises both parts by (training rows / 1000) x (encoded columns / 10), the size they grow with, and
prints the constants ``tvs_core/model/competitors.py`` uses (the median over the two demos).

Usage (from the repo root): ``python -m bench.competitor_costs`` — writes bench/competitor_costs.md.

``python -m bench.competitor_costs privpgd`` (issue 38) instead fits PrivPGD at its defaults on both demos' training
rows, one fit at a time, one torch thread: its cost grows with the two-way marginals, K = d(d − 1)/2, not with the
rows, so it prints seconds per marginal (the median over the demos, ``PRIVPGD_SECONDS_PER_MARGINAL``) and replaces
the section "PrivPGD" of bench/competitor_costs.md, keeping the rest.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from pathlib import Path
from statistics import median

from bench.common import exit_with_usage_if_asked
from bench.machine import cpu_model
from tvs_core import load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.context import split_tables
from tvs_core.model.competitors import CTGAN, TVAE
from tvs_core.model.privpgd import PrivPGD

ROOT = Path(__file__).resolve().parents[1]

BUDGETS = {"ctgan": (5, 60), "tvae": (5, 120)}


def fit_seconds(model_class, epochs: int, train, spec) -> float:
    model = model_class(epochs=epochs, response=spec.response, sensitive=list(spec.sensitive), seed=0, threads=1)
    start = time.perf_counter()
    model.fit(train)
    return time.perf_counter() - start


def main() -> None:
    lines = ["# One fit of CTGAN and TVAE: fixed part and part per epoch", "",
             f"Run {datetime.date.today()} on {cpu_model()} ({os.cpu_count()} cores, one torch thread, one fit at a "
             "time), `python -m bench.competitor_costs`. Size unit: (training rows / 1000) × (encoded columns / 10).",
             "", "| model | demo | rows | columns | epochs → seconds | fixed s | s per epoch | fixed / size | "
             "per epoch / size |", "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    constants: dict[str, list[tuple[float, float]]] = {}
    for demo in ("clinical", "breast_cancer"):
        spec = DEMOS[demo]
        config = SweepConfig(response=spec.response, sensitive=list(spec.sensitive))
        train, _ = split_tables(config, load_demo(demo), None)
        for name, model_class in (("ctgan", CTGAN), ("tvae", TVAE)):
            low, high = BUDGETS[name]
            seconds = {e: fit_seconds(model_class, e, train, spec) for e in (low, high)}
            per_epoch = (seconds[high] - seconds[low]) / (high - low)
            fixed = max(seconds[low] - per_epoch * low, 0.0)
            size = len(train) / 1000 * train.shape[1] / 10
            constants.setdefault(name, []).append((fixed / size, per_epoch / size))
            lines.append(f"| {name} | {demo} | {len(train)} | {train.shape[1]} | "
                         + ", ".join(f"{e} → {s:.1f}" for e, s in seconds.items())
                         + f" | {fixed:.1f} | {per_epoch:.3f} | {fixed / size:.2f} | {per_epoch / size:.4f} |")
            print(lines[-1], flush=True)
    lines += ["", "Constants (median over the demos), as used by `fit_cost`:", ""]
    for name, values in constants.items():
        lines.append(f"- {name}: fixed {median(v[0] for v in values):.2f} s per size unit, "
                     f"{median(v[1] for v in values):.4f} s per epoch per size unit")
    print("\n".join(lines[-3:]))
    (ROOT / "bench" / "competitor_costs.md").write_text("\n".join(lines) + "\n")


def privpgd() -> None:
    """PrivPGD's CPU seconds per two-way marginal on both demos (wall seconds beside them); the notes' section."""
    rows = ["| demo | rows | columns | K | wall s | CPU s | CPU s per marginal |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    per_marginal = []
    for demo in ("clinical", "breast_cancer"):
        spec = DEMOS[demo]
        config = SweepConfig(response=spec.response, sensitive=list(spec.sensitive))
        train, _ = split_tables(config, load_demo(demo), None)
        model = PrivPGD(response=spec.response, sensitive=list(spec.sensitive), seed=0, threads=1)
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(train)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        d = len(model.encoder_.names)
        k = d * (d - 1) // 2
        per_marginal.append(cpu / k)  # what a core of its own takes; wall adds the machine's other work
        rows.append(f"| {demo} | {len(train)} | {d} | {k} | {wall:.1f} | {cpu:.1f} | {cpu / k:.3f} |")
        print(rows[-1], flush=True)
    lines = ["## PrivPGD", "",
             f"Run {datetime.date.today()} on {cpu_model()} ({os.cpu_count()} cores, one torch thread, one fit at a "
             f"time, load average {os.getloadavg()[0]:.1f} at the end), `python -m bench.competitor_costs privpgd`: "
             "one fit at the defaults (ε = 2.5) on the training rows. K = d(d − 1)/2 two-way marginals.", "", *rows]
    lines += ["", f"Constant (median over the demos), as used by `fit_cost`: privpgd {median(per_marginal):.3f} s per "
                  "two-way marginal"]
    print(lines[-1])
    note = ROOT / "bench" / "competitor_costs.md"
    kept = note.read_text().split("\n## PrivPGD", 1)[0].rstrip("\n")
    note.write_text(kept + "\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    privpgd() if sys.argv[1:] == ["privpgd"] else main()
