"""Benchmark the default quick sweep: time to the first result, to every TVineSynth level's quick numbers, and to
the end, on the clinical demo, breast cancer and a 884 x 27 SUPPORT2-shaped table (bench/tables.py).

Why (issue 27): the scatter must have every level with all its quick numbers within 20 s and the whole quick sweep
of the 884 x 27 table must take at most 45 s on 2 cores; the estimate shown before Start must be within 1.5x.

Usage (from the repo root):
  ``python -m bench.sweep run --out after.json [--runs 3] [--tables support,clinical,breast_cancer] [--competitors]
  [--standby]``
  ``python -m bench.sweep report before1.json,before2.json after1.json,after2.json`` (the before/after table
  of bench/sweep.md, to stdout; each side's files merged). The before numbers run another checkout's code: the
  ``tvs_core`` measured (and the worker's ``python -m tvs_core``) is the one in the folder the command runs in, so
  ``git archive BASE tvs_core | tar -x -C DIR && cd DIR && PYTHONPATH=/path/to/repo python -m bench.sweep run ...``.
Each run: a fresh workspace, ``submit``, a worker process with ``n_jobs=2``, times from ``submit`` (store timestamps).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tables() -> dict:
    from bench.tables import RESPONSE, SENSITIVE, support_like
    from tvs_core import load_demo
    from tvs_core.data.demo import DEMOS

    out = {"support": (support_like(), RESPONSE, list(SENSITIVE))}
    for name in ("clinical", "breast_cancer"):
        out[name] = (load_demo(name), DEMOS[name].response, list(DEMOS[name].sensitive))
    return out


def before_start(store, table, config) -> float:
    """The estimate the Sweep page shows before Start (levels: the default of the advised top level, d when the
    sensitive columns enter first)."""
    from tvs_core import infer_schema
    from tvs_core.jobs.plan import planned_tasks
    from tvs_core.jobs.progress import estimate
    from tvs_core.model.ordering import default_levels

    schema = infer_schema(table).with_roles(config.response, config.sensitive)
    n_train = int(round(len(table) * (1 - config.holdout_fraction)))
    levels = default_levels(len(schema.modelled) - 1)
    tasks = planned_tasks(config, levels)
    planned = tasks if hasattr(tasks[0], "name") else [[t.key, t.kind, t.stage] for t in tasks]  # older checkouts
    return estimate(store, planned, n_train, len(schema.modelled), 2, config)[0]


def timed_sweep(table, response, sensitive, workspace: Path, competitors: bool = False, standby: bool = False) -> dict:
    """Submit, start a worker process; first result, every level complete, total, per-kind task seconds.
    ``competitors``: the default baselines and the paper's competitors (``COMPETITORS``), as the Sweep page offers;
    ``standby``: Start finds the workspace's standby worker ready, its imports done, as the dashboard keeps one
    (issue 57; older checkouts have none)."""
    from tvs_core.jobs import SweepConfig, submit
    from tvs_core.jobs.config import COMPETITORS, DEFAULT_BASELINES
    from tvs_core.jobs.process import start_worker
    try:
        from tvs_core.storage import Store
    except ImportError:  # a checkout from before issue 24 (another checkout's code): the store was in jobs/
        from tvs_core.jobs.store import Store

    store = Store(workspace)
    config = SweepConfig(response=response, sensitive=list(sensitive), preset="quick",
                         **({"baselines": [*DEFAULT_BASELINES, *COMPETITORS]} if competitors else {}))
    estimated = before_start(store, table, config)
    if standby:
        from tvs_core.jobs.standby import start_standby, waiting

        start_standby(store)
        while (found := waiting(store)) is None or found.state != "ready":
            time.sleep(0.1)
    load = os.getloadavg()[0]
    start = time.time()
    job_id = submit(store, table, config)
    start_worker(store, job_id, n_jobs=2)
    while store.job(job_id).status not in ("done", "failed", "cancelled"):
        time.sleep(0.1)
    job = store.job(job_id)
    total = job.finished - start
    results = store.results(job_id)
    kinds: dict[str, list[float]] = {}
    for r in results:
        kinds.setdefault(r.kind, []).append(r.seconds)
    level_tasks = [r.created for r in results if r.kind == "release"]
    others = [r.created for r in results if r.kind not in ("release", "holder", "first_look", "reference")]
    return {"status": job.status, "total": total, "first": min(r.created for r in results) - start,
            "levels": max(level_tasks) - start, "first_other": min(others) - start if others else None,
            "estimate": estimated, "load": load, "tasks": len(results), "kinds": kinds,
            "order": [r.task for r in results],
            "plan": [[entry["key"], entry["stage"]] for entry in (job.plan if isinstance(job.plan, list)
                                                                  else json.loads(job.plan))],
            # when each task was stored and how long it ran (s from submit): where the wall time goes
            "worker_started": job.started - start,
            "timeline": [[r.task, r.kind, round(r.created - start, 2), round(r.seconds, 2)]
                         for r in sorted(results, key=lambda r: r.created)]}


def run(args) -> None:
    import tvs_core

    print("tvs_core from", tvs_core.__file__, flush=True)
    cases = tables()
    out = {}
    for name in args.tables.split(","):
        table, response, sensitive = cases[name]
        out[name] = []
        for i in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                found = timed_sweep(table, response, sensitive, Path(tmp), competitors=args.competitors,
                                    standby=args.standby)
            out[name].append(found)
            print(f"{name} run {i}: total {found['total']:.1f} s, levels {found['levels']:.1f} s, estimate "
                  f"{found['estimate']:.1f} s, load {found['load']:.2f}, {found['status']}", flush=True)
            Path(args.out).write_text(json.dumps(out, indent=1))


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def merged(paths: str) -> dict:
    """The runs of several ``run`` outputs (comma-separated paths), per table."""
    out: dict = {}
    for path in paths.split(","):
        for name, runs in json.loads(Path(path).read_text()).items():
            out.setdefault(name, []).extend(runs)
    return out


def report(args) -> None:
    before, after = (merged(paths) for paths in (args.before, args.after))
    lines = ["| table | measure | before s | after s | after / before |", "|---|---|---:|---:|---:|"]
    for name in after:
        if name not in before:
            continue
        for key, label in (("total", "complete quick sweep"), ("levels", "every level's quick numbers"),
                           ("first", "first stored result"), ("estimate", "estimate before Start")):
            b, a = _median(before[name], key), _median(after[name], key)
            lines.append(f"| {name} | {label} | {b:.1f} | {a:.1f} | {a / b:.2f} |")
        loads = [r["load"] for r in before[name]] + [r["load"] for r in after[name]]
        lines.append(f"| {name} | load average at start (1 min), before / after | "
                     f"{_median(before[name], 'load'):.2f} | {_median(after[name], 'load'):.2f} | "
                     f"max {max(loads):.2f} |")
    lines += ["", "Task seconds per kind (median over runs of the sum over tasks), 884 x 27:", "",
              "| kind | before s | after s |", "|---|---:|---:|"]
    for name in ("support",):
        kinds = sorted(set().union(*(r["kinds"] for r in before.get(name, []) + after.get(name, []))))
        for kind in kinds:
            b = statistics.median(sum(r["kinds"].get(kind, [0])) for r in before.get(name, [{"kinds": {}}]))
            a = statistics.median(sum(r["kinds"].get(kind, [0])) for r in after.get(name, [{"kinds": {}}]))
            lines.append(f"| {kind} | {b:.1f} | {a:.1f} |")
    print("\n".join(lines))


def fixture(args) -> None:
    """tests/jobs/recorded_sweeps.json: per table, the shape, levels, every task's seconds by kind and the duration of
    the first ``after`` run (what tests/jobs/test_progress_estimate.py feeds the estimator)."""
    from tvs_core import infer_schema

    out = {}
    cases = tables()
    for name, runs in merged(args.after).items():
        table, response, sensitive = cases[name]
        run = runs[0]
        levels = sorted({int(key.split(":")[1]) for key in run["order"] if key.startswith("release:")})
        out[name] = {"n_train": int(round(len(table) * 0.8)), "response": response, "sensitive": sensitive,
                     "n_columns": len(infer_schema(table).with_roles(response, sensitive).modelled),
                     "levels": levels, "seconds": run["kinds"], "total": run["total"], "load": run["load"],
                     "plan": [entry for entry in run["plan"] if not entry[0].startswith("first_look")]}
    if args.cpu:  # CPU seconds per task, every task in one process (what a quiet core takes), 884 x 27
        out["support"]["cpu_seconds"] = json.loads(Path(args.cpu).read_text())["cpu"]
    (ROOT / "tests" / "jobs" / "recorded_sweeps.json").write_text(json.dumps(out, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--tables", default="support,clinical,breast_cancer")
    r.add_argument("--competitors", action="store_true", help="add the paper's competitors to the baselines")
    r.add_argument("--standby", action="store_true", help="Start with the standby worker ready, as the dashboard")
    p = sub.add_parser("report")
    p.add_argument("before")
    p.add_argument("after")
    f = sub.add_parser("fixture")
    f.add_argument("after")
    f.add_argument("--cpu", default=None)
    args = parser.parse_args()
    {"run": run, "report": report, "fixture": fixture}[args.command](args)


if __name__ == "__main__":
    main()
