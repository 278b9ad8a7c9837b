"""How far a stored job is, and how long it will take.

Time left is predicted from what each kind of task costs: this job's own measured tasks where it has
them; for kinds it has not run yet, what those kinds cost in earlier sweeps of this workspace (or,
on a first sweep, the costs measured in ``bench/sweep.md``), rescaled by how this job's measured
tasks compare with those (``calibrated``: the machine's speed now, a busy machine's included). A competitor's fit
(minutes where a vine baseline's is a second) is costed by its own measured cost, rescaled by that speed, or by how
the competitors already fitted compared with theirs. The plan is then scheduled as the worker runs it: the holder's
fit alone, then each stage of the plan (``plan.py``: levels, games and baselines, attackers, evaluations) on the
worker processes, each stage waiting for the one before; the tasks running now (``in_flight``) keep their worker for
what is left of their cost, so a long fit half done counts as half done. Between two finished tasks the time left
therefore only falls; when a task finishes it rises by no more than that task's own overrun explains (it took k
times its expected cost: what it recalibrates grows by at most k).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from statistics import median

from ..errors import DataError
from ..evaluation.dp_audit import AUDIT_ROWS
from ..evaluation.sizes import BASELINE_ROWS, RELEASE_ROWS
from ..model.competitors import fit_cost
from ..storage.store import ACTIVE, JobStatus, Store
from .config import SweepConfig, baseline_spec
from .first_look import looked_levels
from .tasks import LEVELS, Growth, Task, TaskKey, TaskKind, plan_from_json

STARTUP_SECONDS = 2.0  # a worker process: imports, the table read and split, the pool of workers started
# training rows (80 % of 884), encoded columns and attack targets (2 sensitive columns x 4, quick) of the table the
# kinds' ``prior_seconds`` were measured on. The breast cancer demo (1 sensitive column, 4 targets) plays its games
# in a third of this table's time, where columns alone said 1.3x: hence ``Growth.GAMES`` counts the targets
PRIOR_SHAPE = (707.0, 27.0, 8.0)
SEQUENTIAL_STAGES = (0,)
# run by the worker itself before the plan, with threads, on a sample or the whole table: their times say little
# about how fast the plan's tasks will run on the worker processes, so they never calibrate the others
ALONE = (TaskKind.HOLDER, TaskKind.FIRST_LOOK)


def chunk_share(name: str) -> float:
    """A release task scores a chunk of synthetic sets and costs about in proportion to them: the paper's preset has
    a first chunk of 10 sets and a refining one of 40 (``plan.release_chunks``: the refining chunk starts where the
    first one stops), which costs 4 times as much. A release kind's cost is kept per first chunk; any other task is
    one share of its kind."""
    key = TaskKey.parse(name)
    if key.kind != TaskKind.RELEASE or len(key.index) < 2 or str(key.index[1]).count("-") != 1:
        return 1.0
    first, stop = (int(part) for part in str(key.index[1]).split("-"))
    return 1.0 if first == 0 else (stop - first) / first


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


# the rows a task on the training rows works on at the most (evaluation/sizes.py): a release's sets and the references
# are drawn at RELEASE_ROWS, a baseline is fitted on BASELINE_ROWS; the holder's fit and the others take every row
ROW_CAPS = {TaskKind.RELEASE: RELEASE_ROWS, TaskKind.REFERENCE: RELEASE_ROWS, TaskKind.RELEASE_DETAILS: RELEASE_ROWS,
            TaskKind.REFERENCE_DETAILS: RELEASE_ROWS, TaskKind.EXTERNAL: RELEASE_ROWS, TaskKind.BASELINE: BASELINE_ROWS,
            TaskKind.BASELINE_FIT: BASELINE_ROWS, TaskKind.BASELINE_SETS: RELEASE_ROWS}


def _size(kind: str, shape: tuple[float, float, float]) -> float:
    """What a task's cost grows with on a table of ``shape`` (training rows, columns, attack targets). A task on the
    training rows stops growing at its kind's row cap: at 100 000 rows and more the release and baseline tasks took a
    third to a thirtieth of what rows x columns said (bench/scale.json)."""
    rows, columns, targets = shape
    try:
        growth = TaskKind(kind).growth
    except ValueError:  # a kind this version no longer plans
        growth = Growth.COLUMNS
    if growth == Growth.DATA:
        cap = ROW_CAPS.get(kind)
        return (rows if cap is None else min(rows, cap)) * columns
    return (1 + targets) * columns ** 2 if growth == Growth.GAMES else columns ** 2


def kind_priors(store: Store, job: dict) -> tuple[dict[str, float], str]:
    """Expected seconds per task kind for ``job`` before any of its own tasks is measured — earlier finished sweeps
    of this workspace, else the costs measured in bench/sweep.md, rescaled to the job's shape — and their source."""
    earlier: dict[str, list[float]] = {}
    shape = _shape(job)
    for other in store.jobs():
        if other["id"] == job["id"] or other["status"] != JobStatus.DONE:
            continue
        fits = competitor_fits(SweepConfig.from_dict(other["config"]), int(_shape(other)[0]), int(_shape(other)[1]))
        for done in finished_tasks(store, other["id"]):
            if done.key in fits:  # a competitor's fit is costed by its own measure, not as its kind's
                continue
            scale = _size(done.kind, shape) / _size(done.kind, _shape(other))
            earlier.setdefault(done.kind, []).append(done.seconds * scale / chunk_share(done.key))
    base = {kind: median(values) for kind, values in earlier.items() if values}
    source = "earlier sweeps in this workspace" if base else "the costs measured in bench/sweep.md"
    for kind in TaskKind:
        if kind.prior_seconds is not None:
            base.setdefault(kind.value, kind.prior_seconds * _size(kind, shape) / _size(kind, PRIOR_SHAPE))
    return base, source


@dataclass(frozen=True)
class Finished:
    """A finished task as the store holds it: its seconds of work and when it was stored."""

    key: str
    kind: str
    seconds: float
    at: float


@dataclass(frozen=True)
class Costs:
    """What each task of a plan is expected to cost now: per kind, and the competitors' fits by task key."""

    kinds: dict[str, float]
    fits: dict[str, float] = field(default_factory=dict)
    speed: float = 1.0  # this machine now against the priors (2: every task takes twice its prior)


def finished_tasks(store: Store, job_id: str) -> list[Finished]:
    return [Finished(r["task"], r["kind"], float(r["seconds"]), float(r["created"])) for r in store.task_times(job_id)]


def calibrated(priors: dict[str, float], finished: list[Finished], fits: dict[str, float] | None = None,
               unmeasured_speed: float = 1.0, share: float | None = None) -> Costs:
    """The priors corrected by the job's own finished tasks: a kind it has measured costs its measured mean; the
    others their prior times the median ratio of measured to prior (the machine's speed now: a busy machine makes
    every kind slower), but no slower than the load's fair ``share`` of the cores would make CPU-bound work (a
    worker's first tasks also pay its start: on a loaded machine they ran 13 times their prior where the games ran 4
    times); before any task is measured, ``unmeasured_speed``. A competitor's fit (``fits``: its
    measured quiet cost by task key; kept out of its kind's mean, which it would swamp) is one process of its own
    among the machine's: it costs that times the load's ``share`` of the cores (``busy_factor``; the machine's speed
    where the load is unknown), or times what the same generator's finished fits (a DP audit's trials) showed.
    Another competitor's overrun says little of this one's: on a loaded machine CTGAN ran 40 times its quiet cost
    where PrivPGD ran 11 times and our own tasks 5 times (tests/jobs/recorded_schedules.json)."""
    fits = fits or {}
    measured: dict[str, list[float]] = {}
    for done in finished:
        if done.key not in fits:
            measured.setdefault(done.kind, []).append(done.seconds / chunk_share(done.key))
    own = {kind: sum(v) / len(v) for kind, v in measured.items()}
    ratios = [own[k] / priors[k] for k in own if k in priors and priors[k] > 0 and k not in ALONE]
    speed = median(ratios) if ratios else unmeasured_speed
    unmeasured = speed if share is None else min(speed, share)  # CPU-bound work gets at least its fair share
    kinds = {kind: seconds * unmeasured for kind, seconds in priors.items()} | own
    by_generator: dict[str, list[float]] = {}
    for done in finished:
        if fits.get(done.key, 0) > 0:
            ratio = max(0.0, done.seconds - kinds.get(done.kind, 0.0)) / fits[done.key]
            by_generator.setdefault(TaskKey.parse(done.key).player, []).append(ratio)
    factor = speed if share is None else share
    return Costs(kinds, {key: seconds * median(by_generator.get(TaskKey.parse(key).player) or [factor])
                         for key, seconds in fits.items()}, speed)


def kind_costs(store: Store, job: dict) -> tuple[dict[str, float], str]:
    """Expected seconds per task kind for ``job`` (``calibrated`` by its finished tasks), and where they come
    from."""
    priors, source = kind_priors(store, job)
    finished = [] if job["id"] is None else finished_tasks(store, job["id"])
    fits = competitor_fits(SweepConfig.from_dict(job["config"]), *map(int, _shape(job)[:2])) if job.get("config") \
        else {}
    costs = calibrated(priors, finished, fits)
    return costs.kinds, ("this sweep's measured tasks and " + source) if finished else source


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
            fits[str(TaskKey(TaskKind.BASELINE, spec.label))] = seconds  # a competitor is never split (plan.py)
            audit = fit_cost(spec.name, spec.config.get("epochs"), min(n_train, AUDIT_ROWS), n_columns)
            fits |= {str(TaskKey(TaskKind.DP_AUDIT, spec.label, (t,))): audit for t in range(config.dp_audit_trials)}
    return fits


def seconds_left(plan: list[Task], done: set[str], costs: dict[str, float], workers: int,
                 extra: dict[str, float] | None = None, spent: dict[str, float] | None = None) -> float:
    """Remaining time of ``plan`` if each kind costs ``costs[kind]``, plus ``extra[key]`` for the tasks named there;
    ``spent``: the seconds each running task has already worked (``in_flight``), which it keeps its worker for, less.
    Each stage is scheduled as the engine runs it: its tasks in plan order, each on the first worker free, the stage
    ending with its last task."""
    fallback = median(costs.values()) if costs else 1.0
    extra, spent = extra or {}, spent or {}

    def cost(task: Task) -> float:
        return costs.get(task.kind.value, fallback) * chunk_share(task.name) + extra.get(task.name, 0.0)

    total = 0.0
    for stage in sorted({task.stage for task in plan}):
        left = [task for task in plan if task.stage == stage and task.name not in done]
        if not left:
            continue
        slots = 1 if stage in SEQUENTIAL_STAGES else max(1, workers)
        busy = sorted(max(cost(task) - spent[task.name], 0.0) for task in left if task.name in spent)[-slots:]
        free = busy + [0.0] * (slots - len(busy))
        for task in left:
            if task.name not in spent:
                free[free.index(min(free))] += cost(task)
        total += max(free)
    return total


def in_flight(plan: list[Task], finished: dict[str, Finished], workers: int, now: float, began: float
              ) -> dict[str, float]:
    """The tasks running at ``now`` and the seconds each has worked, from what the store knows: the stage under
    way runs its tasks in plan order on ``workers`` workers, each starting one when the stage began (``began``, or
    the last task of the stage before finished) or when a task of the stage finished. A finished task took the
    start nearest to when it started (its end less its seconds); the first unfinished tasks took the starts left,
    earliest first."""
    stages = sorted({task.stage for task in plan} - set(SEQUENTIAL_STAGES))
    current = next((stage for stage in stages
                    if any(task.name not in finished for task in plan if task.stage == stage)), None)
    if current is None:
        return {}
    slots = max(1, workers)
    before = [finished[task.name].at for task in plan if task.stage < current and task.name in finished]
    start = max([began, *before])
    here = [task for task in plan if task.stage == current]
    ended = [finished[task.name] for task in here if task.name in finished]
    running = [task for task in here if task.name not in finished][:slots]
    starts = sorted([start] * slots + [done.at for done in ended])
    for done in sorted(ended, key=lambda d: d.at - d.seconds):
        starts.remove(min(starts, key=lambda moment: abs(moment - (done.at - done.seconds))))
    return {task.name: max(0.0, now - moment) for task, moment in zip(running, sorted(starts), strict=False)}


def time_left(plan: list[Task], finished: list[Finished], priors: dict[str, float], fits: dict[str, float],
              workers: int, now: float | None = None, began: float | None = None, load: float | None = None,
              cores: int = 1) -> float:
    """Seconds left of ``plan`` at ``now`` (None: nothing is running), its ``finished`` tasks known: the costs
    ``calibrated`` by them, the running tasks' work counted (``in_flight``; ``began``: when the plan's first stage
    started); until a task is measured, the machine's ``load`` average (the sweep's own workers among it) on its
    ``cores`` slows the priors. The dashboard, the command line and the replay of recorded sweeps all read it."""
    names = {task.name for task in plan}
    done = {f.key: f for f in finished if f.key in names}
    share = None if load is None else max(1.0, load / cores)  # the sweep's workers among the load
    costs = calibrated(priors, list(done.values()), fits, 1.0 if share is None else share, share)
    spent = {} if now is None else in_flight(plan, done, workers, now, began if began is not None else now)
    return seconds_left(plan, set(done), costs.kinds, workers, costs.fits, spent)


def progress(store: Store, job_id: str) -> dict:
    """How far a job is: ``done`` of ``total`` in its current ``phase`` ('first look' while the first look runs
    and the sweep is not planned yet, then 'sweep'), ``fraction`` in [0, 1], the expected seconds left (None
    before the job is planned) and ``text``, the one line every view shows (``progress_text``)."""
    job = store.job(job_id)
    done = store.done_tasks(job_id)
    eta, source = None, None
    if job["plan"]:
        planned = plan_from_json(job["plan"])
        priors, source = kind_priors(store, job)
        finished = finished_tasks(store, job_id)
        if finished:
            source = "this sweep's measured tasks and " + source
        n_train, n_columns, _ = _shape(job)
        fits = competitor_fits(SweepConfig.from_dict(job["config"]), int(n_train), int(n_columns))
        running = job["status"] == JobStatus.RUNNING
        holder = next((f.at for f in finished if f.key == str(TaskKey(TaskKind.HOLDER))), None)
        began = max(moment for moment in (holder, job.get("started"), 0.0) if moment is not None)
        load = (job.get("details") or {}).get("load_at_plan")  # fixed, so that the time left only counts down
        eta = time_left(planned, finished, priors, fits, job["workers"] or 1, time.time() if running else None,
                        began, load, machine_load()[1])
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


def duration_text(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def progress_text(info: dict) -> str:
    """'running — first look: level 3 of 6', 'running — 12 of 35 tasks, about 40 s left', 'done — 35 of 35
    tasks': counted in the units the job is in, never 'k of 0'."""
    status = info["status"]
    if info["phase"] == "first look":
        if not info["done"]:
            where = "starting (fitting on a sample for a first look)" if status in ACTIVE else \
                "nothing finished yet"
        else:
            of = f" of {info['total']}" if info["total"] else ""
            where = f"first look: level {info['done']}{of}"
        return f"{status} — {where}"
    eta = info["eta_seconds"]
    left = f", about {duration_text(eta)} left" if eta is not None and status == JobStatus.RUNNING else ""
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


def machine_load() -> tuple[float | None, int]:
    """The load average over the last minute (None where the system does not say) and the cores."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return load, os.cpu_count() or 1


def busy_factor(load: float | None, cores: int, workers: int) -> float:
    """How much slower the sweep's workers run among the processes already running: each of the ``load`` runnable
    processes and of the workers gets an equal share of the cores (1: a share of a core each, or more)."""
    if load is None:
        return 1.0
    return max(1.0, (load + min(workers, cores)) / cores)


@dataclass(frozen=True)
class StartEstimate:
    """The duration of a sweep not started yet, and what it assumes."""

    seconds: float
    source: str  # where the task costs come from
    tasks: int
    workers: int
    load: float | None  # the load average when estimated
    cores: int
    factor: float  # the slowdown the load implies (1: a quiet machine)

    @property
    def busy(self) -> bool:
        return self.load is not None and self.load > self.cores

    @property
    def sentence(self) -> str:
        """The estimate and its assumptions, as the Sweep page says them before Start."""
        said = (f"Start runs {self.tasks} tasks on {self.workers} worker processes; estimated duration about "
                f"{duration_text(self.seconds)}, each task costed from {self.source}")
        refined = "; refined from the sweep's own tasks once it runs."
        if self.load is None:
            return said + ", assuming the machine stays as busy as it is now" + refined
        machine = f"load average {self.load:.1f} on {self.cores} cores"
        if self.busy:
            return (said + f". The machine is busy ({machine}): the estimate assumes it stays so, and is "
                    f"{self.factor:.1f} times what the same machine quiet would take" + refined)
        slower = f", which slows the workers {self.factor:.1f} times" if self.factor > 1.05 else ""
        return said + f", on a machine as quiet as now ({machine}{slower})" + refined


def before_start(store: Store, plan: list[Task], n_train: int, n_columns: int, workers: int = 2,
                 config: SweepConfig | None = None, load: tuple[float | None, int] | None = None) -> StartEstimate:
    """``estimate`` on this machine as it is now (``load``: its load average and cores, default measured): a busy
    machine's share of the cores (``busy_factor``) scales it, and the estimate says so."""
    seconds, source = estimate(store, plan, n_train, n_columns, workers, config)
    average, cores = machine_load() if load is None else load
    factor = busy_factor(average, cores, workers)
    return StartEstimate(seconds * factor, source, task_total(plan, n_train), workers, average, cores, factor)


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
