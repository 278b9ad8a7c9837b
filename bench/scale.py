"""How the default quick sweep scales with the table: wall time, peak memory, time to the first stored
result and where the time goes, for rows x columns of a SUPPORT2-like table (bench/tables.wide_table).

Why: registry tables hold 10^5-10^6 rows (issue 12). Targets: 100 000 x 30 in <= 10 min with a peak
resident memory <= 4 GB on 2 cores; time growing at most linearly in rows from 5 000 up; first result
<= 5 s at every size.

Usage (from the repo root): ``python -m bench.scale [--rows 1000,5000] [--columns 10,30]
[--tables wide,dependent] [--standby] [--first-only] [--record NAME]``. Every measured size is kept in
bench/scale.json (a re-run replaces its own sizes) and bench/scale.md is written from all of them. Peak memory: the
sum of the resident memory of the worker process and all its children, sampled every 0.1 s (an upper bound on what
the sweep held at once).

Issue 57: ``--tables`` runs each size on the bench's table (``wide``, bench/tables.wide_table) and on the one whose
columns are more dependent (``dependent``, bench/tables.dependent_wide_table); ``--standby`` starts the sweep with
the workspace's standby worker ready (jobs/standby.py: its imports done before Start, as the dashboard does) and
records the seconds its worker spent importing after Start; ``--first-only`` stops a sweep at its first stored
result (for the first result's time alone); ``--record NAME`` keeps the sweep's schedule in
bench/cores_schedules.json for bench/cores.py's replay.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pyvinecopulib as pv

from bench.machine import cpu_model
from bench.tables import RESPONSE, SENSITIVE, dependent_wide_table, wide_table
from tvs_core import infer_schema
from tvs_core.jobs import SweepConfig, submit
from tvs_core.jobs.process import start_worker
from tvs_core.jobs.standby import imports_after_start, start_standby, waiting
from tvs_core.jobs.tasks import LEVELS
from tvs_core.storage.store import JobRow, Store

ROOT = Path(__file__).resolve().parents[1]

RESULTS = ROOT / "bench" / "scale.json"
TIMEOUT = 45 * 60
UNRECORDED_CODE = "≤498aa50"  # cells measured before the code was recorded with them


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                tree.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return tree


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and every descendant, in MB."""
    tree, total, todo = _children(), 0.0, [pid]
    while todo:
        current = todo.pop()
        todo += tree.get(current, [])
        try:
            with open(f"/proc/{current}/status") as status:
                total += next(float(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
        except (OSError, StopIteration):
            continue
    return total


def _levels_done_s(store: Store, job: JobRow, start_wall: float) -> float | None:
    """Seconds from submit until every task of the plan's first stage (every level's own first numbers — its first
    two published sets since issue 57, its quick numbers before — and the reference anchors) was stored; None while
    one is missing."""
    plan = job.plan or []
    wanted = {entry["key"] for entry in plan if isinstance(entry, dict) and entry.get("stage") == LEVELS}
    created = {r.task: r.created for r in store.results(job.id)}
    if not wanted or not wanted <= set(created):
        return None
    return max(created[key] for key in wanted) - start_wall


def _shown_s(store: Store, job: JobRow, start_wall: float) -> float | None:
    """Seconds from submit until every level of the sweep had numbers on the scatter: its first look or its own
    release task, whichever came first; None while a level had neither."""
    levels = [lv for lv in job.details.get("levels") or () if lv is not None]
    first: dict[int, float] = {}
    for result in store.results(job.id):
        key = result.task.split(":")
        if key[0] in ("first_look", "release") and len(key) > 1 and key[1].isdigit():
            first[int(key[1])] = min(first.get(int(key[1]), float("inf")), result.created)
    if not levels or any(level not in first for level in levels):
        return None
    return max(first[level] for level in levels) - start_wall


TABLES = {"wide": wide_table, "dependent": dependent_wide_table}


def measure(rows: int, columns: int, workspace: Path, backend: str = "loky", timeout: float = TIMEOUT,
            label: str = "", table_name: str = "wide", standby: bool = False, first_only: bool = False,
            record: str | None = None) -> dict:
    table = TABLES[table_name](rows, columns)
    load_before = os.getloadavg()[0]
    store = Store(workspace)
    # with the table's schema, as the Sweep page's Start and the command line give it (issue 57; before, the worker
    # inferred it again from the rows, a few tenths of a second of the first look at 120 columns)
    schema = infer_schema(table).with_roles(RESPONSE, list(SENSITIVE)).to_dict()
    config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick", schema=schema)
    if standby:  # as the dashboard keeps one: imports done before Start
        start_standby(store)
        while (found := waiting(store)) is None or found.state != "ready":
            time.sleep(0.1)
    start, start_wall = time.perf_counter(), time.time()
    job_id = submit(store, table, config)
    process = start_worker(store, job_id, n_jobs=2, backend=backend)
    first, peak = None, 0.0
    while True:
        now = time.perf_counter() - start
        pid = process
        if pid:
            peak = max(peak, tree_rss_mb(pid))
        if first is None and store.done_tasks(job_id):
            first = now
            if first_only:
                store.request_cancel(job_id)
        job = store.job(job_id)
        if job.status in ("done", "failed", "cancelled"):
            break
        if now > timeout:  # stopped: what finished stays in the entry, with the status it had
            os.killpg(process, signal.SIGTERM)
            break
        time.sleep(0.1)
    wall = time.perf_counter() - start
    kinds: dict[str, dict] = {}
    for result in store.results(job_id):
        entry = kinds.setdefault(result.kind, {"tasks": 0, "seconds": 0.0, "peak_mb": 0.0})
        entry["tasks"] += 1
        entry["seconds"] += result.seconds
        entry["peak_mb"] = max(entry["peak_mb"], result.peak_mb or 0.0)
    first_kind = min(store.results(job_id), key=lambda r: r.created).kind if kinds else None
    job = store.job(job_id)
    status = job.status if job.status in ("done", "failed", "cancelled") else f"stopped at {timeout / 60:.0f} min"
    if first_only and status == "cancelled":
        status = "stopped at its first result"
    if record and job.status == "done":
        from bench.cores import keep_schedule

        keep_schedule(record, store, job_id, start_wall, sweep=f"{table_name} {rows} x {columns}", backend=backend,
                      loads=[load_before, os.getloadavg()[0]])
    return {"rows": rows, "columns": columns, "backend": backend, "status": status, "error": job.error,
            "table": table_name, "worker": "standby" if standby else "fresh",
            "imports_after_start": imports_after_start(store, job_id),
            "wall_s": wall,
            "first_s": first, "first_kind": first_kind, "peak_rss_mb": peak, "kinds": kinds, "label": label,
            "levels_s": _levels_done_s(store, job, start_wall), "shown_s": _shown_s(store, job, start_wall),
            "tasks_done": len(store.done_tasks(job_id)),
            "tasks_total": job.total,
            "levels": job.details.get("levels"), "date": datetime.date.today().isoformat(),
            "code": _commit(), "load": [load_before, os.getloadavg()[0]]}


def _commit() -> str:
    """The commit measured (with '+' when the working tree had changes)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    # "+": files differ from HEAD -- bench/scale.json itself, once an earlier size of the same run has been saved
    return git("rev-parse", "--short", "HEAD") + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def _key(entry: dict) -> tuple:
    return (entry["rows"], entry["columns"], entry.get("backend", "loky"), entry.get("label", ""),
            entry.get("table", "wide"), entry.get("worker", "fresh"))


def _load(entry: dict) -> str:
    load = entry.get("load")
    return "—" if not load else f"{load[0]:.1f} / {load[1]:.1f}"


def report(entries: list[dict]) -> str:
    entries = sorted(entries, key=lambda e: (e["columns"], e["rows"], e.get("table", "wide"), e.get("label", "")))
    lines = ["| rows | columns | table | backend | run | worker (imports after Start) | levels | status | wall "
             "| peak RSS | first result | every level shown | every level's own first numbers "
             "(before 60c75cb: quick numbers) "
             "| share of task time (top 4) | code | load avg before/after |",
             "|---:|---:|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---|---|"]
    for e in entries:
        total = sum(k["seconds"] for k in e["kinds"].values()) or 1.0
        shares = sorted(e["kinds"].items(), key=lambda kv: -kv[1]["seconds"])[:4]
        share = ", ".join(f"{kind} {100 * k['seconds'] / total:.0f} %" for kind, k in shares)
        first = "—" if e["first_s"] is None else f"{e['first_s']:.1f} s ({e['first_kind']})"
        levels = "—" if e.get("levels_s") is None else f"{e['levels_s']:.0f} s"
        shown = "—" if e.get("shown_s") is None else f"{e['shown_s']:.0f} s"
        status = e["status"] + (f" ({e['tasks_done']} of {e['tasks_total']} tasks)"
                                if e["status"] != "done" and e.get("tasks_total") else "")
        imports = e.get("imports_after_start")
        worker = e.get("worker", "fresh") + ("" if imports is None else f" ({imports:.1f} s)")
        lines.append(f"| {e['rows']:,} | {e['columns']} | {e.get('table', 'wide')} | {e.get('backend', 'loky')} | "
                     f"{e.get('label') or '—'} | {worker} | {len(e['levels'] or [])} | {status} | "
                     f"{e['wall_s']:.0f} s | {e['peak_rss_mb'] / 1024:.2f} GB | {first} | {shown} | {levels} | "
                     f"{share} | "
                     f"{e.get('code', UNRECORDED_CODE)} | {_load(e)} |")
    growth = []
    for columns in sorted({e["columns"] for e in entries}):
        done = {e["rows"]: e for e in entries if e["columns"] == columns and e["status"] == "done"
                and e.get("backend", "loky") == "loky"}
        pairs = [(a, b) for a, b in zip(sorted(done), sorted(done)[1:], strict=False) if a >= 5_000]
        growth += [f"{columns} columns, {a:,} → {b:,} rows ({b / a:.0f}× the rows): "
                   f"{done[b]['wall_s'] / done[a]['wall_s']:.2f}× the time{_mixed(done[a], done[b])}" for a, b in pairs]
    per_kind = ["| rows | columns | backend | kind | tasks | total s | mean s | peak MB (one task) |",
                "|---:|---:|---|---|---:|---:|---:|---:|"]
    for e in entries:
        for kind, k in sorted(e["kinds"].items(), key=lambda kv: -kv[1]["seconds"]):
            peak = f"{k['peak_mb']:.0f}" if k["peak_mb"] else "— (worker's main process)"
            per_kind.append(f"| {e['rows']:,} | {e['columns']} | {e.get('backend', 'loky')} | {kind} | {k['tasks']} | "
                            f"{k['seconds']:.1f} | {k['seconds'] / k['tasks']:.2f} | {peak} |")
    return f"""# Scale: the default quick sweep from 1 000 to 1 000 000 rows

Reproduce: `python -m bench.scale [--rows 1000,5000,20000,100000] [--columns 10,30,60] [--backend loky|dask]
[--timeout-min 45]` (from the repo root).

- Machine: nproc={os.cpu_count()}, CPU: {cpu_model()}; Python {platform.python_version()},
  pyvinecopulib {pv.__version__}
- Table: `bench/tables.wide_table(rows, columns)` (SUPPORT2-like margins and factor dependence, binary
  `hospdead`), sensitive totcst, crea; `SweepConfig(preset="quick")`: default levels, families
  (Gaussian), baselines (7) and games; a worker process with `n_jobs=2`, timed from `submit`.
- Peak RSS: the worker and its children summed, sampled every 0.1 s. First result: the first stored
  task (the first look at the lowest level on tables of more than 500 training rows, else the holder's fit).
- The machine is shared with other work while measuring: read times as indications (one run each).
- Code: the commit measured; "+" = files differ from it (bench/scale.json itself, once an earlier size of
  the same run is saved); "{UNRECORDED_CODE}": measured before issue 12's second session, not re-run since.

Targets: 100 000 × 30 in ≤ 10 min and ≤ 4 GB; first result ≤ 5 s; time at most linear in rows from 5 000.

{chr(10).join(lines)}

Growth in rows (wall time): {'; '.join(growth) or 'not measured yet'}.

Task time and memory per kind (seconds summed over both worker processes; peak = the largest one task held):

{chr(10).join(per_kind)}
"""


def _mixed(a: dict, b: dict) -> str:
    """Cells measured on different code do not measure growth alone: say so beside their ratio."""
    code_a, code_b = (e.get("code", UNRECORDED_CODE).rstrip("+") for e in (a, b))
    return "" if code_a == code_b else f" (different code: {code_a} / {code_b})"


HAND_WRITTEN = "<!-- Below: written by hand (the readings of the runs); bench/scale.py keeps it. -->"


def _write_report(entries: list[dict]) -> None:
    """scale.md from scale.json, keeping the hand-written part after ``HAND_WRITTEN``."""
    path = ROOT / "bench" / "scale.md"
    old = path.read_text() if path.exists() else ""
    kept = old[old.index(HAND_WRITTEN):] if HAND_WRITTEN in old else ""
    path.write_text(report(entries) + ("\n" + kept if kept else ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="1000,5000,20000,100000")
    parser.add_argument("--columns", default="10,30,60")
    parser.add_argument("--report-only", action="store_true", help="rewrite scale.md from scale.json")
    parser.add_argument("--backend", default="loky", choices=["loky", "dask"])
    parser.add_argument("--timeout-min", type=float, default=TIMEOUT / 60, help="stop a size after this long")
    parser.add_argument("--label", default="", help="kept beside the size's other runs, e.g. 'before' / 'after'")
    parser.add_argument("--tables", default="wide", help="wide (the bench's table), dependent, or both: wide,dependent")
    parser.add_argument("--standby", action="store_true", help="Start with the standby worker ready")
    parser.add_argument("--first-only", action="store_true", help="stop each sweep at its first stored result")
    parser.add_argument("--record", help="keep each sweep's schedule in bench/cores_schedules.json as NAME-TABLE")
    args = parser.parse_args()
    entries = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    if args.report_only:
        _write_report(entries)
        return
    sizes = [(table, columns, rows) for table in args.tables.split(",") for columns in map(int, args.columns.split(","))
             for rows in map(int, args.rows.split(","))]
    for table, columns, rows in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            entry = measure(rows, columns, Path(tmp), args.backend, args.timeout_min * 60, args.label, table,
                            args.standby, args.first_only, args.record and f"{args.record}-{table}")
        print(json.dumps({k: v for k, v in entry.items() if k != "kinds"}), flush=True)
        entries = [e for e in entries if _key(e) != _key(entry)] + [entry]
        RESULTS.write_text(json.dumps(entries, indent=1))
        _write_report(entries)


if __name__ == "__main__":
    main()
