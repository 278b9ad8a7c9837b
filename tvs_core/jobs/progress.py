"""How far a stored job is, and how long it will take.

Time left is predicted from what each kind of task costs: this job's own measured tasks where it has
them; for kinds it has not run yet, what those kinds cost in earlier sweeps of this workspace (or,
on a first sweep, the costs measured in ``bench/sweep.md``), rescaled by how this job's measured
tasks compare with those. The plan is then scheduled as the worker runs it: the holder's fit alone, then each
stage of the plan (``plan.py``: levels, games and baselines, attackers, evaluations) on the worker processes in
parallel, each stage waiting for the one before.
"""

from __future__ import annotations

import json
import time
from statistics import median

from ..errors import DataError
from ..evaluation.dp_audit import AUDIT_ROWS
from ..evaluation.sizes import BASELINE_ROWS
from ..model.competitors import fit_cost
from ..storage.store import Store
from .config import SweepConfig, baseline_spec
from .first_look import looked_levels
from .tasks import LEVELS, Growth, Task, TaskKey, TaskKind, plan_from_json

STARTUP_SECONDS = 2.0  # a worker process: imports, the table read and split, the pool of workers started
# training rows (80 % of 884), encoded columns and attack targets (2 sensitive columns x 4, quick) of the table the
# kinds' ``prior_seconds`` were measured on. The breast cancer demo (1 sensitive column, 4 targets) plays its games
# in a third of this table's time, where columns alone said 1.3x: hence ``Growth.GAMES`` counts the targets
PRIOR_SHAPE = (707.0, 27.0, 8.0)
SEQUENTIAL_STAGES = (0,)


def _shape(job: dict) -> tuple[float, float, float]:
    details = job.get("details") or {}
    targets = details.get("n_targets") or len({t["row"] for t in details.get("targets") or ()}) or PRIOR_SHAPE[2]
    return (float(details.get("n_train") or PRIOR_SHAPE[0]), float(details.get("n_columns") or PRIOR_SHAPE[1]),
            float(targets))


def planned_targets(config: SweepConfig) -> int:
    """The attack targets a sweep will pick, before its data is split: per sensitive column, its outliers and
    random rows (a row picked for two columns is counted twice)."""
    protocol = config.protocol()
    return len(config.sensitive) * (len(protocol.outlier_quantiles) + protocol.random_targets)


def _size(kind: str, shape: tuple[float, float, float]) -> float:
    rows, columns, targets = shape
    try:
        growth = TaskKind(kind).growth
    except ValueError:  # a kind this version no longer plans
        growth = Growth.COLUMNS
    if growth == Growth.DATA:
        return rows * columns
    return (1 + targets) * columns ** 2 if growth == Growth.GAMES else columns ** 2


def kind_costs(store: Store, job: dict) -> tuple[dict[str, float], str]:
    """Expected seconds per task kind for ``job``, and where they come from."""
    own = {kind: sum(v) / len(v) for kind, v in store.task_seconds(job["id"]).items() if v}
    earlier: dict[str, list[float]] = {}
    shape = _shape(job)
    for other in store.jobs():
        if other["id"] == job["id"] or other["status"] != "done":
            continue
        for kind, values in store.task_seconds(other["id"]).items():
            scale = _size(kind, shape) / _size(kind, _shape(other))
            earlier.setdefault(kind, []).extend(v * scale for v in values)
    base = {kind: median(values) for kind, values in earlier.items() if values}
    source = "earlier sweeps in this workspace" if base else "the costs measured in bench/sweep.md"
    for kind in TaskKind:
        if kind.prior_seconds is not None:
            base.setdefault(kind.value, kind.prior_seconds * _size(kind, shape) / _size(kind, PRIOR_SHAPE))
    ratios = [own[k] / base[k] for k in own if k in base and base[k] > 0 and k != TaskKind.HOLDER]
    calibration = median(ratios) if ratios else 1.0  # this machine and table against the reference
    costs = {kind: own.get(kind, seconds * calibration) for kind, seconds in base.items()}
    return costs, ("this sweep's measured tasks and " + source) if own else source


def competitor_fits(config: SweepConfig, n_train: int, n_columns: int) -> dict[str, float]:
    """Expected fit seconds of each competitor baseline, by task key: a CTGAN fit costs minutes where a vine
    baseline's costs a second, so the kind's typical cost would hide it; likewise each fit of a competitor's DP
    audit (``--audit-dp``: 80 MST fits are minutes). (Their attack games, when asked for, refit on the
    games' subsets and are not included.)"""
    rows = min(n_train, BASELINE_ROWS)
    fits = {}
    for name in config.baselines:
        try:
            spec = baseline_spec(name, config)
        except DataError:  # a sweep stored by a version that knew this name: no estimate, not a broken page
            continue
        seconds = fit_cost(spec.name, spec.config.get("epochs"), rows, n_columns)
        if seconds is not None:
            fits[str(TaskKey(TaskKind.BASELINE, name))] = seconds
            audit = fit_cost(spec.name, spec.config.get("epochs"), min(n_train, AUDIT_ROWS), n_columns)
            fits |= {str(TaskKey(TaskKind.DP_AUDIT, name, (t,))): audit for t in range(config.dp_audit_trials)}
    return fits


def seconds_left(plan: list[Task], done: set[str], costs: dict[str, float], workers: int,
                 running_for: float = 0.0, extra: dict[str, float] | None = None) -> float:
    """Remaining time of ``plan`` if each kind costs ``costs[kind]``, plus
    ``extra[key]`` for the tasks named there; ``running_for``: seconds since the last task finished, work
    the running tasks have already done."""
    fallback = median(costs.values()) if costs else 1.0
    extra = extra or {}
    total, current = 0.0, True
    for stage in sorted({task.stage for task in plan}):
        left = [costs.get(task.kind.value, fallback) + extra.get(task.name, 0.0) for task in plan
                if task.stage == stage and task.name not in done]
        if not left:
            continue
        slots = 1 if stage in SEQUENTIAL_STAGES else max(1, workers)
        stage_time = max(sum(left) / slots, max(left))
        if current:  # the stage under way: its running tasks are part done
            stage_time = max(stage_time - running_for, 0.0)
            current = False
        total += stage_time
    return total


def progress(store: Store, job_id: str) -> dict:
    """How far a job is: ``done`` of ``total`` in its current ``phase`` ('first look' while the first look runs
    and the sweep is not planned yet, then 'sweep'), ``fraction`` in [0, 1], the expected seconds left (None
    before the job is planned) and ``text``, the one line every view shows (``progress_text``)."""
    job = store.job(job_id)
    done = store.done_tasks(job_id)
    eta, source = None, None
    if job["plan"]:
        planned = plan_from_json(job["plan"])
        costs, source = kind_costs(store, job)
        last = store.last_result_time(job_id)
        running_for = max(0.0, time.time() - last) if last is not None and job["status"] == "running" else 0.0
        n_train, n_columns, _ = _shape(job)
        fits = competitor_fits(SweepConfig.from_dict(job["config"]), int(n_train), int(n_columns))
        eta = seconds_left(planned, done, costs, job["workers"] or 1, running_for, fits)
        if job["status"] == "running":
            eta = _steady(store, job_id, eta)
        names = {task.name for task in planned}  # the holder's fit is stored as a result but is no task
        phase, count, total = "sweep", len(done & names), job["total"] or 0
    else:
        looks = sum(1 for name in done if TaskKey.parse(name).kind == TaskKind.FIRST_LOOK)
        phase, count = "first look", looks
        total = max(int((job.get("details") or {}).get("first_look_levels") or 0), looks)
    info = {"status": job["status"], "phase": phase, "done": count, "total": total,
            "fraction": min(count / total, 1.0) if total else 0.0, "eta_seconds": eta, "eta_source": source,
            "error": job["error"]}
    info["text"] = progress_text(info)
    return info


def steady_countdown(computed: float, previous: tuple[float, float] | None, now: float) -> float:
    """The time left as a countdown that never rises while the work goes on: the new estimate, or the last one shown
    counted down since, whichever is lower. (Each finished task restarts the estimate's clock for the running
    ones, which made the shown time jump up as work was done.) A countdown that has run out with work left gives
    way to the new estimate."""
    if previous is None:
        return computed
    shown, at = previous
    counted = shown - max(0.0, now - at)
    return computed if counted <= 0 else min(computed, counted)


def _steady(store: Store, job_id: str, computed: float) -> float:
    key = f"eta:{job_id}"
    saved = store.meta(key)
    now = time.time()
    steady = steady_countdown(computed, tuple(json.loads(saved)) if saved else None, now)
    if not store.read_only:
        store.set_meta(key, json.dumps([steady, now]))
    return steady


def duration_text(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def progress_text(info: dict) -> str:
    """'running — first look: level 3 of 6', 'running — 12 of 35 tasks, about 40 s left', 'done — 35 of 35
    tasks': counted in the units the job is in, never 'k of 0'."""
    status = info["status"]
    if info["phase"] == "first look":
        if not info["done"]:
            where = "starting (fitting on a sample for a first look)" if status in ("queued", "running") else \
                "nothing finished yet"
        else:
            of = f" of {info['total']}" if info["total"] else ""
            where = f"first look: level {info['done']}{of}"
        return f"{status} — {where}"
    eta = info["eta_seconds"]
    left = f", about {duration_text(eta)} left" if eta is not None and status == "running" else ""
    return f"{status} — {info['done']} of {info['total']} tasks{left}"


def estimate(store: Store, plan: list[Task], n_train: int, n_columns: int, workers: int = 2,
             config: SweepConfig | None = None) -> tuple[float, str]:
    """Expected seconds of a job not started yet (with ``config``: its attack targets counted and its competitors'
    fits included), and where the costs come from: the worker's start, the first look (a table larger than its
    sample), the plan."""
    targets = planned_targets(config) if config is not None else None
    job = {"id": None, "details": {"n_train": n_train, "n_columns": n_columns, "n_targets": targets}}
    costs, source = kind_costs(store, job)
    fits = competitor_fits(config, n_train, n_columns) if config is not None else {}
    if fits:
        source += " and the competitors' measured fit costs"
    look = first_look_tasks(plan, n_train) * costs.get(TaskKind.FIRST_LOOK, 0.0)
    return STARTUP_SECONDS + look + seconds_left(plan, set(), costs, workers, extra=fits), source


def first_look_tasks(plan: list[Task], n_train: int) -> int:
    """How many first-look tasks a sweep of ``plan`` on ``n_train`` training rows runs before its plan."""
    return looked_levels(n_train, sum(1 for task in plan if task.kind == TaskKind.RELEASE and task.stage == LEVELS))


def task_total(plan: list[Task], n_train: int) -> int:
    """Every task Start runs, the first look's included: the number the progress bar will count to."""
    return len(plan) + first_look_tasks(plan, n_train)


def fit_seconds_by_baseline(config: SweepConfig, n_train: int, n_columns: int) -> dict[str, float]:
    """Expected seconds of one fit of each competitor, by baseline name (the Sweep page's line before Start)."""
    fits = {TaskKey.parse(name): seconds for name, seconds in competitor_fits(config, n_train, n_columns).items()}
    return {key.player: seconds for key, seconds in fits.items() if key.kind == TaskKind.BASELINE}


def audit_seconds(store: Store, config: SweepConfig, n_train: int, n_columns: int, workers: int = 2) -> float:
    """Expected seconds the DP audit (``config.dp_audit_trials`` fits of each baseline that claims an ε) adds to a
    sweep, before it starts: what ``--audit-dp`` and the Sweep page's option say it will cost."""
    from .plan import planned_tasks

    plan = [t for t in planned_tasks(config, [1]) if t.kind == TaskKind.DP_AUDIT]
    if not plan:
        return 0.0
    costs, _ = kind_costs(store, {"id": None, "details": {"n_train": n_train, "n_columns": n_columns}})
    extra = {name: seconds for name, seconds in competitor_fits(config, n_train, n_columns).items()
             if TaskKey.parse(name).kind == TaskKind.DP_AUDIT}
    return seconds_left(plan, set(), costs, workers, extra=extra)
