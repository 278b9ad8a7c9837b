"""Benchmark the sweep engine: time to the first stored result, a complete quick sweep, and the
store's overhead per result, on a 884 x 27 SUPPORT2-shaped table (bench/tables.py).

Why: the dashboard promises that the privacy-utility scatter starts filling within seconds of
pressing Start (target <= 5 s to the first result) and that a quick sweep finishes in about a
minute (target <= 60 s on 2 cores); the store must not be what makes it slow.

Usage (from the repo root): ``python bench/sweep.py``; writes bench/sweep.md.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import pyvinecopulib as pv
from machine import cpu_model
from tables import RESPONSE, SENSITIVE, support_like

from tvs_core.jobs import SweepConfig, submit
from tvs_core.jobs.process import start_worker
from tvs_core.jobs.progress import progress
from tvs_core.jobs.store import Store


def timed_sweep(table, workspace: Path, **changes) -> dict:
    """Submit, start a worker process, and time first result, first release level and completion."""
    store = Store(workspace)
    config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick", **changes)
    start = time.perf_counter()
    job_id = submit(store, table, config)
    start_worker(store, job_id, n_jobs=2)
    first = first_release = None
    while True:
        results = store.results(job_id)
        now = time.perf_counter() - start
        if results and first is None:
            first = now
        if first_release is None and any(r["kind"] == "release" for r in results):
            first_release = now
        job = store.job(job_id)
        if job["status"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.05)
    total = time.perf_counter() - start
    kinds: dict[str, list[float]] = {}
    for r in store.results(job_id):
        kinds.setdefault(r["kind"], []).append(r["seconds"])
    return {"status": job["status"], "error": job["error"], "first": first, "first_release": first_release,
            "total": total, "tasks": progress(store, job_id)["total"], "kinds": kinds,
            "records": sum(len(r["records"]) for r in store.results(job_id))}


def store_overhead(workspace: Path, n: int = 300) -> dict:
    """Median seconds to commit one result of 200 records (a typical release task) in WAL mode."""
    store = Store(workspace)
    store.create_job("overhead", "f" * 64, {})
    record = {"model": "tvinesynth", "level": 5, "metric": "release_mab", "attribute": "totcst", "target": None,
              "target_kind": None, "iteration": 3, "value": 0.123456789, "role": "release"}
    times = []
    for i in range(n):
        start = time.perf_counter()
        store.add_result("overhead", f"task:{i}", "release", [record] * 200, 1.0)
        times.append(time.perf_counter() - start)
    reading = time.perf_counter()
    store.results("overhead")
    return {"median_s": statistics.median(times), "p90_s": sorted(times)[int(0.9 * n)],
            "read_all_s": time.perf_counter() - reading, "n": n}


def main() -> None:
    table = support_like()
    with tempfile.TemporaryDirectory() as tmp:
        sweep = timed_sweep(table, Path(tmp) / "sweep")
        games = timed_sweep(table, Path(tmp) / "baseline_games", baseline_games=["aia", "mia"])
        overhead = store_overhead(Path(tmp) / "overhead")
    per_kind = "\n".join(f"| {kind} | {len(v)} | {statistics.median(v):.2f} | {sum(v):.1f} |"
                         for kind, v in sorted(sweep["kinds"].items()))
    extra = {kind: sum(v) for kind, v in games["kinds"].items()}
    added = ", ".join(f"{kind} {extra[kind] - sum(sweep['kinds'].get(kind, [])):+.1f} s" for kind in sorted(extra))
    ok = lambda met: "met" if met else "**missed**"  # noqa: E731
    report = f"""# Sweep engine on a 884 x 27 table

Reproduce: `python bench/sweep.py` (from the repo root).

- Date: {datetime.date.today().isoformat()}; machine: nproc={os.cpu_count()}, CPU: {cpu_model()}
- Python {platform.python_version()}, pyvinecopulib {pv.__version__}
- Table: `bench/tables.support_like()` (884 rows, 26 covariates + `hospdead`), sensitive totcst, crea
- Sweep: `SweepConfig(preset="quick")`, default levels, families and baselines, a worker process
  started with `start_worker(n_jobs=2)`; times measured from `submit` by polling the store every 50 ms.

| measure | seconds | target |
|---|---:|---|
| first stored result (the holder's fit) | {sweep['first']:.2f} | <= 5 s: {ok(sweep['first'] <= 5)} |
| first release level (release MAB, TSTR, MCMIA, DCR, fidelity) | {sweep['first_release']:.2f} | |
| complete quick sweep ({sweep['tasks']} tasks, {sweep['records']} records, status {sweep['status']}) \
| {sweep['total']:.1f} | <= 60 s: {ok(sweep['total'] <= 60)} |
| the same with `baseline_games=["aia", "mia"]` (every baseline plays both attack games; {games['tasks']} \
tasks, status {games['status']}) | {games['total']:.1f} | opt-in, no target |

Task times (seconds inside the worker, summed over both cores):

| kind | tasks | median s | total s |
|---|---:|---:|---:|
{per_kind}

With `baseline_games=["aia", "mia"]`, task seconds added per kind (the baselines' games): {added}.

Store overhead: committing one result of 200 records takes {overhead['median_s'] * 1000:.2f} ms (median
of {overhead['n']}; 90th percentile {overhead['p90_s'] * 1000:.2f} ms); reading all
{overhead['n']} results back takes {overhead['read_all_s']:.2f} s.
"""
    (ROOT / "bench" / "sweep.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
