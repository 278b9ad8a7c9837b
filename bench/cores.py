"""The cores of a real server (issue 57): a recorded sweep's task costs replayed on 4 to 64 workers, the way the engine
schedules them.

Why: a hospital server has 16-64 cores and this machine two; nothing showed how the sweep uses them. Target, by this
replay: the 5,000 x 120 quick sweep in <= 2 min on 16 workers and <= 1 min on 64.

A recording is one real sweep in a worker process (``record``): every task's key, stage and seconds (the results
table keeps each task's cost), the plan's order, the worker's start-up (submit to the job's start: the process and
its imports) and the load average. The replay (``replay``) runs that plan again on W workers as the engine does:

- the worker's start-up, then the first look and the holder's fit in the worker's own process, one after the other,
  with the threads the worker gives them (``n_jobs`` = W): pyvinecopulib selects each tree's pair copulas in parallel,
  so a fit's recorded seconds are split into a serial part and a part spread over each tree's edges
  (``fit_seconds``: the serial share measured by ``threads``, the CPU seconds outside pyvinecopulib's selection; the
  selection taken as perfectly parallel over a tree's edges, an upper bound on what threads give);
- the gap from the holder's fit to the first task (the context, the pool's start), as recorded;
- then every task on W workers: whenever a worker is free it starts the first task, in plan order, whose inputs are
  stored (``tvs_core.jobs.tasks.waits_for``: what it reads and, after the first stage, every level's quick numbers) —
  or, for a recording of an engine that ran stage after stage (``engine: stages``), the first task of the stage under
  way, each stage waiting for the one before. A baseline's fit gets ``plan.fit_threads(W)`` threads (its serial share
  measured like the holder's); when the tasks' threads outnumber the cores, every task slows down in proportion.

Each task costs what it cost in the recording (2 workers on this 2-core machine, at the load noted): the replay says
what a server with W cores as fast as this one's would take, memory and disk aside. Printed per W: the predicted
wall time, the parallel efficiency (the replay on 1 worker / (W x the replay on W)) and the task that ended last;
and per recording the critical path (the longest chain of tasks that wait for each other, which no number of
workers shortens), with its tasks.

Usage (from the repo root, on a shared machine under ``nice -n 19``):
  ``python -m bench.cores record NAME --sweep support|competitors|wide|wide2 [--backend loky|dask] [--n-jobs 2]``
  ``python -m bench.cores threads`` (the fits' serial shares, on one thread: kept in bench/cores_schedules.json)
  ``python -m bench.cores replay`` (writes the replay's section of bench/cores.md)
Recordings are kept in bench/cores_schedules.json (bench/wide_schedules.json's ``wide_*`` are replayed too).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import exit_with_usage_if_asked
from bench.machine import cpu_model

ROOT = Path(__file__).resolve().parents[1]
SCHEDULES = ROOT / "bench" / "cores_schedules.json"
WIDE = ROOT / "bench" / "wide_schedules.json"
REPORT = ROOT / "bench" / "cores.md"
WORKERS = (4, 8, 16, 32, 64)
TARGETS = {16: 120.0, 64: 60.0}  # seconds, 5,000 x 120 (issue 57)


# -- what is recorded -------------------------------------------------------------------------------------------------
def sweep_case(name: str):
    """(table, config) of the sweeps issue 57 asks about."""
    from bench.tables import RESPONSE, SENSITIVE, dependent_wide_table, support_like, wide_table
    from tvs_core import load_demo
    from tvs_core.data.demo import DEMOS
    from tvs_core.jobs import COMPETITORS, SweepConfig

    if name == "competitors":  # bench/competitors.py's sweep: the clinical demo, the competitors at paper epochs
        spec = DEMOS["clinical"]
        return load_demo("clinical"), SweepConfig(response=spec.response, sensitive=list(spec.sensitive),
                                                  games=["release"], baselines=list(COMPETITORS))
    table = {"support": lambda: support_like(), "wide": lambda: wide_table(5000, 120),
             "wide2": lambda: dependent_wide_table(5000, 120)}[name]()
    return table, SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick")


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD") + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def record(name: str, sweep: str, backend: str = "loky", n_jobs: int = 2) -> dict:
    """One sweep in a worker process, as the dashboard starts it; its schedule kept under ``name``."""
    from tvs_core.jobs import submit
    from tvs_core.jobs.process import start_worker
    from tvs_core.storage import Store

    table, config = sweep_case(sweep)
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as folder:
        store = Store(folder)
        submitted = time.time()
        job_id = submit(store, table, config)
        start_worker(store, job_id, n_jobs=n_jobs, backend=backend)
        while store.job(job_id).status not in ("done", "failed", "cancelled"):
            time.sleep(1.0)
            loads.append(os.getloadavg()[0])
        job = store.job(job_id)
        if job.status != "done":
            raise SystemExit(f"the sweep ended {job.status}: {job.error}")
        return keep_schedule(name, store, job_id, submitted, sweep, backend, loads)


def keep_schedule(name: str, store, job_id: str, submitted: float, sweep: str, backend: str, loads: list[float]
                  ) -> dict:
    """A finished sweep's schedule kept under ``name`` (what ``record`` keeps; bench/scale.py's ``--record``)."""
    from bench.eta import schedule_of

    job = store.job(job_id)
    out = schedule_of(store, job_id) | {
        "startup": round(job.started - submitted, 3), "summary": summary_bytes(store, job_id), "sweep": sweep,
        "backend": backend, "engine": "ready", "load": [round(min(loads), 2), round(max(loads), 2)],
        "date": str(datetime.date.today()), "cpu": cpu_model(), "code": commit()}
    save(name, out)
    print(f"{name}: {out['end']:.0f} s after the job's start ({out['startup']:.1f} s start-up), {len(out['tasks'])} "
          f"tasks, load {out['load'][0]}-{out['load'][1]}", flush=True)
    return out


def cpu_costs(name: str, sweep: str) -> dict:
    """Every task of a sweep run one after the other in this process, on one thread, its CPU seconds kept: what each
    costs a quiet core, whatever the machine's load (``replay`` reads them as a recording; the worker's own first
    look and holder fit as measured on one thread). Run from another checkout's folder, it costs that checkout's
    plan (``tvs_core`` is the current folder's)."""
    from dataclasses import replace

    from tvs_core.jobs import tasks as kinds
    from tvs_core.jobs.context import context_for_job, fit_holder, split_tables, sweep_levels
    from tvs_core.jobs.first_look import first_look
    from tvs_core.jobs.plan import plan

    table, config = sweep_case(sweep)
    loads = [os.getloadavg()[0]]
    train, test = split_tables(config, table, None)
    own, cpu = [], {}
    clock = time.process_time()
    for level, _, _ in first_look(config, train, test, threads=1, levels=lambda: sweep_levels(config, train)):
        own.append(f"first_look:{level}")
        cpu[own[-1]], clock = time.process_time() - clock, time.process_time()
    config = replace(config, levels=sweep_levels(config, train))
    holder = fit_holder(config, train, threads=1)
    cpu["holder"], clock = time.process_time() - clock, time.process_time()
    context = context_for_job(config, table, None, holder)
    try:
        tasks = plan(context, workers=1)
    except TypeError:  # a checkout whose plan does not take the workers
        tasks = plan(context)
    tasks = [t for t in tasks if t.stage > 0]
    context_cpu = time.process_time() - clock
    payloads: dict[str, bytes | None] = {}
    for task in sorted(tasks, key=lambda t: t.stage):
        if hasattr(kinds, "reads_from"):
            given = [payloads[t.name] for t in kinds.reads_from(task, tasks)]
        else:  # an engine that ran stage after stage: a task read its kind's payloads of its player
            given = kinds.task_payloads(task, kinds.stage_payloads(tasks, [task], payloads.get))
        clock = time.process_time()
        _, payloads[task.name] = kinds.run_task(task, context, given)
        cpu[task.name] = time.process_time() - clock
        print(task.name, round(cpu[task.name], 2), flush=True)
        loads.append(os.getloadavg()[0])
    out = {"sweep": sweep, "cost": "CPU seconds, one thread, one task at a time", "workers": 1,
           "engine": "ready" if hasattr(kinds, "waits_for") else "stages",
           "levels": config.levels, "n_columns": int(context.data.train.shape[1]), "n_train": len(train),
           "plan": [[key, 0] for key in own] + [["holder", 0]] + [[t.name, t.stage] for t in tasks],
           "tasks": [[key, key.split(":")[0], round(seconds, 3), None] for key, seconds in cpu.items()],
           "load": [round(min(loads), 2), round(max(loads), 2)], "date": str(datetime.date.today()),
           "cpu": cpu_model(), "code": commit(), "startup": import_cpu(), "context": round(context_cpu, 3)}
    out["gap"] = round(out["context"] + out["startup"], 3)  # the context, then the pool's workers' imports
    save(name, out)
    print(f"{name}: {sum(cpu.values()):.0f} CPU seconds in {len(cpu)} tasks", flush=True)
    return out


def import_cpu() -> float:
    """CPU seconds a fresh worker process spends on its imports (what a standby pays before Start)."""
    code = ("import time\ntry:\n    from tvs_core.jobs.standby import warm\n    warm()\nexcept ImportError:\n"
            "    import tvs_core.jobs.worker, pyvinecopulib, sklearn.ensemble\nprint(time.process_time())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=os.getcwd(),
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    return round(float(done.stdout.strip().splitlines()[-1]), 3)


def summary_bytes(store, job_id: str) -> str:
    """SHA-256 of the job's summary as the command line writes summary.json's numbers (every key's median and
    interval), to compare two backends' runs of one sweep."""
    import hashlib

    from tvs_core.jobs.view import JobView

    frame = JobView(store, job_id).summary().frame
    return hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()


def save(name: str, entry: dict) -> None:
    saved = json.loads(SCHEDULES.read_text()) if SCHEDULES.exists() else {}
    saved[name] = entry
    SCHEDULES.write_text(json.dumps(saved, indent=None, separators=(",", ":")).replace("],[", "],\n["))


def selection_share(fit) -> tuple[float, float]:
    """(CPU seconds of ``fit()`` on one thread, the share of them spent in pyvinecopulib's selection of the pair
    copulas): the selection is what a fit's threads share out (each tree's edges in parallel); the rest — margins,
    pseudo-observations, the structure's set-up — runs on one thread whatever their number. The selection is timed
    at pyvinecopulib's public entry points every vine generator selects through (``Vinecop.from_data``,
    ``Vinecop.select``)."""
    import pyvinecopulib as pv

    inside = [0.0]
    from_data, select = pv.Vinecop.from_data, pv.Vinecop.select

    def timed(call):
        def run(*args, **kwargs):
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                inside[0] += time.process_time() - start
        return run

    pv.Vinecop.from_data, pv.Vinecop.select = staticmethod(timed(from_data)), timed(select)
    try:
        start = time.process_time()
        fit()
        total = time.process_time() - start
    finally:
        pv.Vinecop.from_data, pv.Vinecop.select = from_data, select
    return total, inside[0] / total


def measure_threads() -> dict:
    """The serial share of the holder's fit on the 5,000 x 120 table and of its longest baseline fits (R-vine, star
    R-vine), each on one thread: everything outside pyvinecopulib's selection (``selection_share``)."""
    from dataclasses import replace

    from tvs_core.evaluation.context import EvaluationData
    from tvs_core.jobs.config import baseline_spec
    from tvs_core.jobs.context import fit_holder, split_tables, sweep_levels
    from tvs_core.jobs.handlers import fit_baseline

    table, config = sweep_case("wide")
    train, test = split_tables(config, table, None)
    config = replace(config, levels=sweep_levels(config, train))
    out, holder = {}, []
    total, share = selection_share(lambda: holder.append(fit_holder(config, train, threads=1)))
    out["holder"] = {"serial": round(1 - share, 3), "cpu": round(total, 1)}
    print(json.dumps(out), flush=True)
    data = EvaluationData.from_model(holder[0], train, test)
    for name in ("rvine", "rvine_star1"):
        spec = baseline_spec(next(b for b in config.baselines if str(b) == name), config)
        total, share = selection_share(lambda spec=spec: fit_baseline(spec, data, config.seed, 1))
        out[f"baseline_fit:{name}"] = {"serial": round(1 - share, 3), "cpu": round(total, 1)}
        print(json.dumps(out), flush=True)
    out |= {"load": round(os.getloadavg()[0], 2), "date": str(datetime.date.today()), "code": commit(),
            "levels": config.levels, "columns": int(train.shape[1])}
    save("threads", out)
    return out


# -- the replay ------------------------------------------------------------------------------------------------------
def tree_edges(columns: int, top: int) -> list[int]:
    """Edges of each tree of a vine on ``columns`` variables fitted up to tree ``top``."""
    return [columns - k for k in range(1, min(top, columns - 1) + 1)]


def fit_seconds(seconds: float, recorded_threads: int, threads: int, serial: float, edges: list[int]) -> float:
    """A fit's seconds on ``threads`` threads from its seconds on ``recorded_threads``: its serial share runs alone,
    the rest is spread over each tree's edges (a tree's edges are selected in parallel, equal work each)."""
    def relative(k: int) -> float:
        return serial + (1 - serial) * sum(math.ceil(e / k) for e in edges) / sum(edges)
    return seconds * relative(threads) / relative(recorded_threads)


class Task:
    def __init__(self, key: str, kind: str, stage: int, seconds: float, threads: int = 1):
        self.key, self.kind, self.stage, self.seconds, self.threads = key, kind, stage, seconds, threads
        self.waits: list[str] = []


def replay_tasks(case: dict, workers: int, threads_info: dict) -> tuple[list[Task], list[Task]]:
    """(the worker's own tasks, in order; the pool's tasks in plan order with what each waits for) of a recording,
    costed for ``workers`` workers."""
    from tvs_core.jobs.plan import fit_threads
    from tvs_core.jobs.tasks import Task as PlanTask
    from tvs_core.jobs.tasks import TaskKey, waits_for
    from tvs_core.model.registry import generator_class

    seconds = {key: s for key, _, s, _ in case["tasks"]}
    recorded = case["workers"]
    columns = case["n_columns"]
    top = max(lv for lv in case["levels"] if lv is not None)
    own, pool = [], []
    for key, stage in case["plan"]:
        kind = TaskKey.parse(key).kind.value
        if stage == 0:
            info = threads_info.get("holder", {"serial": 1.0})
            edges = tree_edges(columns, top if kind == "holder" else int(key.split(":")[1]))
            own.append(Task(key, kind, 0, fit_seconds(seconds[key], recorded, workers, info["serial"], edges)))
            continue
        task = Task(key, kind, stage, seconds[key])
        if kind == "baseline_fit" and generator_class(TaskKey.parse(key).player.split(":")[0]).threads_keep_the_fit:
            info = threads_info.get(key) or threads_info.get("baseline_fit:rvine_star1", {"serial": 1.0})
            task.threads = fit_threads(workers)
            task.seconds = fit_seconds(seconds[key], 1, task.threads, info["serial"], tree_edges(columns, columns))
        pool.append(task)
    plan = [PlanTask(TaskKey.parse(t.key), (), t.stage) for t in pool]
    if case.get("engine", "stages") == "ready":
        by_name = {t.key: t for t in pool}
        for task, planned in zip(pool, plan, strict=True):
            task.waits = [w.name for w in waits_for(planned, plan) if w.name in by_name]
    else:  # stage after stage: every task of the stages before
        for task in pool:
            task.waits = [t.key for t in pool if t.stage < task.stage]
    return own, pool


def simulate(pool: list[Task], workers: int, start: float) -> tuple[float, dict[str, tuple[float, float]]]:
    """Greedy list scheduling in plan order with waits, processor sharing when threads outnumber cores: (end,
    {key: (start, end)})."""
    pending = list(pool)
    done: dict[str, float] = {}
    running: dict[str, list] = {}  # key -> [remaining seconds at full speed, threads, started]
    times: dict[str, tuple[float, float]] = {}
    now = start
    while pending or running:
        for task in list(pending):
            if len(running) >= workers:
                break
            if all(w in done for w in task.waits):
                pending.remove(task)
                running[task.key] = [task.seconds, task.threads, now]
        if not running:
            raise RuntimeError("the replay is stuck: a task waits for one that never runs")
        demand = sum(threads for _, threads, _ in running.values())
        rate = min(1.0, workers / demand)
        key, (left, _, _) = min(running.items(), key=lambda item: item[1][0])
        step = left / rate
        now += step
        for other in running.values():
            other[0] -= step * rate
        finished = [k for k, (remaining, _, _) in running.items() if remaining <= 1e-9]
        for k in finished:
            times[k] = (running[k][2], now)
            done[k] = now
            del running[k]
    return now, times


def critical_path(own: list[Task], pool: list[Task], gap: float, startup: float) -> tuple[float, list[str]]:
    """The longest chain of waiting tasks (infinite workers): its length and its tasks, first to last."""
    begin = startup + sum(t.seconds for t in own) + gap
    finish, before = {}, {}
    for task in sorted(pool, key=lambda t: t.stage):  # what a task waits for is in an earlier stage
        ready = max((finish[w] for w in task.waits), default=begin)
        before[task.key] = max(task.waits, key=lambda w: finish[w]) if task.waits else None
        finish[task.key] = ready + task.seconds
    last = max(finish, key=finish.get)
    chain = [last]
    while before[chain[-1]] is not None:
        chain.append(before[chain[-1]])
    return finish[last], [t.key for t in own] + chain[::-1]


def replay_case(case: dict, threads_info: dict) -> dict:
    """Per W: the predicted wall time (from the worker's start), efficiency, the last task; and the critical path."""
    seconds = {key: s for key, _, s, _ in case["tasks"]}
    ends = {key: e for key, _, _, e in case["tasks"]}
    timed = ends["holder"] is not None  # a run's schedule, not CPU seconds one task at a time
    if "gap" in case:
        gap = case["gap"]
    else:  # the holder's end to the first task's start, as it ran
        gap = max(0.0, min(ends[key] - seconds[key] for key, stage in case["plan"] if stage > 0) - ends["holder"])
    startup = case.get("startup", 0.0)
    rows = {}
    for workers in (1, *WORKERS):
        own, pool = replay_tasks(case, workers, threads_info)
        begin = startup + sum(t.seconds for t in own) + gap
        end, times = simulate(pool, workers, begin)
        rows[workers] = {"wall": end, "last": max(times, key=lambda k: times[k][1]), "begin": begin}
    for workers in WORKERS:
        rows[workers]["efficiency"] = rows[1]["wall"] / (workers * rows[workers]["wall"])
    own, pool = replay_tasks(case, 64, threads_info)
    length, chain = critical_path(own, pool, gap, startup)
    check = real = None
    if timed:  # the replay on the recording's own workers, against how long it really took
        recorded = replay_tasks(case, case["workers"], threads_info)
        check, _ = simulate(recorded[1], case["workers"], startup + sum(t.seconds for t in recorded[0]) + gap)
        real = startup + case["end"]
    return {"rows": rows, "critical": (length, chain), "check": check, "real": real, "seconds": seconds}


def as_scheduled(case: dict) -> dict:
    """How a recorded run of the engine scheduled its tasks, against what the replay assumes: no task started before
    what it waits for had ended; never more tasks at once than workers; and how often a worker, when it started a
    task, passed over a task earlier in plan order that was ready then (the replay never does; joblib's dispatch
    runs in its own thread, so a task may start a moment before the engine has seen a result come in)."""
    from tvs_core.jobs.tasks import Task as PlanTask
    from tvs_core.jobs.tasks import TaskKey, waits_for

    ends = {key: end for key, _, _, end in case["tasks"]}
    starts = {key: end - seconds for key, _, seconds, end in case["tasks"]}
    plan = [PlanTask(TaskKey.parse(key), (), stage) for key, stage in case["plan"] if stage > 0]
    slack = 0.05  # the store's timestamps and the workers' clocks: a task's seconds are measured in its worker
    early = [t.name for t in plan if any(starts[t.name] < ends[w.name] - slack for w in waits_for(t, plan))]
    events = sorted([(starts[t.name], 1) for t in plan] + [(ends[t.name], -1) for t in plan])
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    passed = 0
    for i, task in enumerate(plan):
        at = starts[task.name]
        passed += any(starts[o.name] > at + 1.0 and all(ends[w.name] <= at for w in waits_for(o, plan))
                      for o in plan[:i])
    return {"tasks": len(plan), "started before their inputs": early, "most at once": peak, "passed over": passed}


def as_whole(case: dict) -> dict:
    """A recording of the split plan as the plan of 7f83bc4 (before issue 57) would have run the same work: each
    baseline one task (its fit and every set), each game iteration and shadow one task (every model), in that plan's
    order and stages, on the engine that ran stage after stage. Every part runs the same computation as the whole
    task did (the same bytes), so a whole task costs its parts' seconds summed: the replay then compares the two
    plans and engines on the same measured work."""
    from tvs_core.jobs.tasks import TaskKey, TaskKind
    from tvs_core.model.competitors import fit_cost

    seconds: dict[str, float] = {}
    stage_of: dict[str, int] = {}
    order: dict[str, list[str]] = {"own": [], "levels": [], "refine": [], "competitors": [], "aia": [],
                                   "shadows": [], "baseline_aia": [], "baselines": [], "other": [], "details": [],
                                   "attackers": [], "evaluations": []}
    costs = {key: cost for key, _, cost, _ in case["tasks"]}
    for key, stage in case["plan"]:
        task = TaskKey.parse(key)
        kind, player, index = task.kind, task.player, task.index
        if stage == 0:
            whole, group, new_stage = key, "own", 0
        elif kind == TaskKind.BASELINE_FIT or kind == TaskKind.BASELINE_SETS:
            whole = str(TaskKey(TaskKind.BASELINE, player))
            competitor = fit_cost(player.split(":")[0], None, 1000, case["n_columns"]) is not None
            group, new_stage = ("competitors" if competitor else "baselines"), 2
        elif kind in (TaskKind.AIA_MODEL, TaskKind.AIA_RECORDS):
            holder = player == "tvinesynth"
            whole = str(TaskKey(TaskKind.AIA if holder else TaskKind.BASELINE_AIA, player, index[:1]))
            group, new_stage = ("aia" if holder else "baseline_aia"), 2
        elif kind == TaskKind.MIA_SHADOW_MODEL:
            whole, group, new_stage = str(TaskKey(TaskKind.MIA_SHADOW, player, index[:1])), "shadows", 2
        elif kind in (TaskKind.MIA_EVAL_MODEL, TaskKind.MIA_EVAL_RECORDS):
            whole, group, new_stage = str(TaskKey(TaskKind.MIA_EVAL, player, index[:1])), "evaluations", 4
        elif kind == TaskKind.MIA_ATTACKERS:
            whole, group, new_stage = key, "attackers", 3
        elif kind in (TaskKind.RELEASE_DETAILS, TaskKind.REFERENCE_DETAILS):
            whole, group, new_stage = key, "details", 2
        elif stage == 1:
            whole, group, new_stage = key, "levels", 1
        elif kind == TaskKind.RELEASE:
            whole, group, new_stage = key, "refine", 2
        else:
            whole, group, new_stage = key, "other", 2
        if whole not in seconds:
            order[group].append(whole)
            seconds[whole], stage_of[whole] = 0.0, new_stage
        seconds[whole] += costs[key]
    plan = [key for group in order.values() for key in group]
    return {**case, "engine": "stages", "plan": [[key, stage_of[key]] for key in plan],
            "tasks": [[key, TaskKey.parse(key).kind.value, seconds[key], None] for key in plan], "workers": 1,
            "code": "7f83bc4's plan and engine, " + str(case.get("code"))}


HAND_WRITTEN = "<!-- Below: written by hand (the readings); bench/cores.py replay keeps it. -->"
REPLAYED = ("support-cpu", "competitors-cpu", "wide-cpu")  # the sweeps of issue 57, costed on a quiet core


def replay() -> str:
    """bench/cores.md's replay table from the recordings; returns the table."""
    cases = json.loads(WIDE.read_text()) if WIDE.exists() else {}
    cases |= json.loads(SCHEDULES.read_text()) if SCHEDULES.exists() else {}
    threads_info = cases.pop("threads", {})
    order = [name for name in REPLAYED if name in cases] + [name for name in cases if name not in REPLAYED]
    rows, paths = [], []
    for name in order:
        case = cases[name]
        for label, variant in ((name, case), *(((f"{name}, as 7f83bc4 planned it", as_whole(case)),)
                                               if case.get("engine") == "ready" and case["tasks"][0][3] is None
                                               else ())):
            found = replay_case(variant, threads_info)
            cells = " | ".join(f"{found['rows'][w]['wall']:.0f} s ({100 * found['rows'][w]['efficiency']:.0f} %)"
                               for w in WORKERS)
            said = "—" if found["real"] is None else f"{found['real']:.0f} / {found['check']:.0f}"
            length, chain = found["critical"]
            costs = "CPU, 1 thread" if variant["tasks"][0][3] is None else f"run on {variant['workers']} workers"
            rows.append(f"| {label} | {variant.get('sweep', 'wide')} | {variant.get('engine', 'stages')} | {costs} "
                        f"(load {variant['load'][0]}-{variant['load'][1]}) | {said} | {cells} | {length:.0f} s |")
            paths.append(f"- **{label}** ({length:.0f} s): " + " → ".join(
                f"`{key}` {found['seconds'][key]:.1f}" for key in chain))
            print(rows[-1], flush=True)
    table = "\n".join(["| recording | sweep | engine | task costs | real / replayed on its own workers "
                       "| 4 workers | 8 | 16 | 32 | 64 | critical path |",
                       "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|", *rows])
    shares = ", ".join(f"{key} {info['serial']:.1%} of {info['cpu']:.0f} CPU s"
                       for key, info in threads_info.items() if isinstance(info, dict) and "serial" in info)
    text = f"""# The cores of a real server: a recorded sweep replayed on 4 to 64 workers (issue 57)

Reproduce (from the repo root; on a shared machine under `nice -n 19`):
`python -m bench.cores cpu support-cpu --sweep support`, `... cpu competitors-cpu --sweep competitors`,
`... cpu wide-cpu --sweep wide` (each task's CPU seconds, one thread, one task at a time: what it costs a quiet
core, whatever the load), `python -m bench.cores threads` (the fits' serial shares), then
`python -m bench.cores replay` (this table). A real run's schedule: `python -m bench.cores record NAME --sweep
wide [--backend dask --n-jobs 4]` or `python -m bench.scale ... --record NAME`.

- Machine of the recordings: {os.cpu_count()} cores, {cpu_model()}; the load average during each recording is in its
  row (the machine was shared with other sessions' work throughout).
- Sweeps: `support` the 884 x 27 default quick sweep (bench/tables.support_like); `competitors` bench/competitors.py's
  sweep (the clinical demo, release metrics, the paper's competitors at paper epochs); `wide` the 5,000 x 120 quick
  sweep (bench/tables.wide_table, default levels, baselines and games).
- Each cell: the predicted wall time from the worker's start (its imports included: a worker started at Start) and,
  in brackets, the parallel efficiency (the replay on 1 worker / (W x the replay on W)). "As 7f83bc4 planned it":
  the same measured work summed into the tasks the earlier plan had (a baseline one task, a game iteration one task)
  and run stage after stage, as that engine did.
- Serial shares of the fits (the rest spread over each tree's edges, an upper bound on what threads give):
  {shares or "not measured"}.
- Targets (issue 57): the 5,000 x 120 sweep on 16 workers <= 120 s, on 64 workers <= 60 s.

{table}

Critical paths (the longest chain of tasks that wait for each other; seconds each, as costed above):

{chr(10).join(paths)}
"""
    old = REPORT.read_text() if REPORT.exists() else ""
    kept = old[old.index(HAND_WRITTEN):] if HAND_WRITTEN in old else HAND_WRITTEN + "\n"
    REPORT.write_text(text + "\n" + kept)
    return table


def main() -> None:
    exit_with_usage_if_asked(__doc__)
    command = sys.argv[1] if len(sys.argv) > 1 else "replay"
    if command == "record":
        args = sys.argv[2:]
        option = dict(zip(args[1::2], args[2::2], strict=False))
        record(args[0], option["--sweep"], option.get("--backend", "loky"), int(option.get("--n-jobs", 2)))
    elif command == "threads":
        measure_threads()
    elif command == "cpu":
        cpu_costs(sys.argv[2], sys.argv[sys.argv.index("--sweep") + 1])
    else:
        replay()


if __name__ == "__main__":
    main()
