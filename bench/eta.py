"""How wrong is the time left the dashboard shows? Quick sweeps in a worker process, polled every 0.5 s.

For each table, in a fresh workspace: a first sweep (no earlier sweep to learn from: the costs in
bench/sweep.md, rescaled by the sweep's own tasks), then a second one with another seed (the first
sweep's costs available). At every poll the shown time left is compared with the time that was in fact
left. Issue 9's target: within ±50 % after the first third of the sweep. Relative errors blow up in the
last seconds of a sweep, so points with less than 10 % of the sweep (and under 5 s) left are reported
apart. Also: the estimate shown before Start against the real duration.

Usage (from the repo root): ``python bench/eta.py``; writes bench/eta.md.
"""

from __future__ import annotations

import datetime
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from machine import cpu_model
from tables import RESPONSE, SENSITIVE, support_like

from tvs_core import load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.jobs import SweepConfig, submit
from tvs_core.jobs.plan import planned_tasks
from tvs_core.jobs.process import start_worker
from tvs_core.jobs.progress import estimate, progress
from tvs_core.model.ordering import default_levels
from tvs_core.storage import Store


def run(store: Store, table, config: SweepConfig, levels: list[int]) -> dict:
    n_train = int(round(len(table) * (1 - config.holdout_fraction)))
    planned = [[t.key, t.kind, t.stage] for t in planned_tasks(config, levels)]
    from tvs_core import infer_schema

    n_columns = len(infer_schema(table).with_roles(config.response, config.sensitive).modelled)
    before, source = estimate(store, planned, n_train, n_columns)
    start = time.perf_counter()
    job_id = submit(store, table, config)
    start_worker(store, job_id, n_jobs=2)
    samples = []
    while True:
        info = progress(store, job_id)
        samples.append((time.perf_counter() - start, info["eta_seconds"], info["done"], info["total"]))
        if info["status"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.5)
    total = time.perf_counter() - start
    late, end = [], []
    for elapsed, eta, _, _ in samples:
        left = total - elapsed
        if eta is None or elapsed < total / 3:
            continue
        (late if left >= max(5.0, 0.1 * total) else end).append((eta - left) / left if left > 0 else 0.0)
    return {"status": info["status"], "total": total, "before": before, "source": source, "late": late,
            "end": end}


def main() -> None:
    cases = [("clinical demo (1250 x 21)", load_demo("clinical"), DEMOS["clinical"].response,
              list(DEMOS["clinical"].sensitive), default_levels(17)),
             ("SUPPORT2-like (884 x 27)", support_like(), RESPONSE, list(SENSITIVE), default_levels(21))]
    rows = []
    for name, table, response, sensitive, levels in cases:
        with tempfile.TemporaryDirectory() as folder:
            store = Store(folder)
            for seed, label in ((0, "first sweep in the workspace"), (1, "second sweep (learns from the first)")):
                config = SweepConfig(response=response, sensitive=sensitive, levels=levels, seed=seed)
                result = run(store, table, config, levels)
                late = [abs(e) for e in result["late"]]
                rows.append(f"| {name} | {label} | {result['status']} | {result['total']:.1f} | "
                            f"{result['before']:.1f} ({(result['before'] - result['total']) / result['total']:+.0%}) | "
                            f"{statistics.median(late):.0%} | {max(late):.0%} | {len(late)} | "
                            f"{max((abs(e) for e in result['end']), default=0):.0%} |")
                print(rows[-1], flush=True)
    text = f"""# Time left: shown against real

Reproduce: `python bench/eta.py` (from the repo root).

- Date: {datetime.date.today()}; machine: 2 cores, CPU: {cpu_model()}; Python {platform.python_version()}
- Quick preset, default baselines, levels 1, every 5th and t_max (the default), a worker process with 2
  workers, polled every 0.5 s. Error = (time left shown − time in fact left) / time in fact left.

| table | sweep | status | duration s | estimate before Start s (error) | median abs. error, after the first third \
| max abs. error, after the first third | polls | max abs. error, last 10 % |
|---|---|---|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + "\n"
    (ROOT / "bench" / "eta.md").write_text(text)


if __name__ == "__main__":
    main()
