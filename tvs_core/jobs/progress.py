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

import math
import os
import time
from dataclasses import dataclass, field, replace
from statistics import median

from ..errors import DataError
from ..evaluation.metrics.audit import AUDIT_ROWS
from ..evaluation.protocol import QUICK
from ..evaluation.release import DISTANCE_SETS
from ..evaluation.sizes import BASELINE_ROWS, RELEASE_ROWS
from ..model.competitors import fit_cost
from ..storage.store import ACTIVE, Finished, JobRow, JobStatus, Store
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


# What a release task's parts cost, relative to one set's TSTR (its random forests): the per-set metrics on the first
# DISTANCE_SETS sets, and their work on the real rows, done once per task that scores any of them; drawing a set and
# the release attack's regression on it. Measured in CPU seconds on the quick preset at 884 x 27 and 5,000 x 120
# (bench/eta.md, "what a chunk costs"): TSTR 0.19 / 1.9 s a set, the per-set metrics 0.12 / 1.9 s a set and 0 / 3 s a
# task, drawing and regressing 0.005 / 0.14 s a set; a first chunk of 2 sets took 0.38-0.48 of the ten sets in one
# task, the refining chunk of 8 sets 0.63-0.65.
CHUNK_PARTS = {"tstr": 1.0, "set_metrics": 0.8, "per_task": 1.0, "drawn": 0.05}
QUICK_SIZES = (QUICK.utility_sets, QUICK.release_sets)


def _chunk_weight(first: int, stop: int, sizes: tuple[int, int]) -> float:
    utility_sets, release_sets = sizes
    sets = range(first, stop)
    scored = [s for s in sets if s < DISTANCE_SETS]
    return (CHUNK_PARTS["per_task"] * bool(scored) + CHUNK_PARTS["set_metrics"] * len(scored)
            + CHUNK_PARTS["tstr"] * sum(s < utility_sets for s in sets) + CHUNK_PARTS["drawn"] * len(sets))


def chunk_share(name: str, sizes: tuple[int, int] | None = None) -> float:
    """A release task scores a chunk of a level's published sets (``plan.release_chunks``): its cost is kept in shares
    of the quick preset's ten sets scored in one task, what the kind's measured cost (``prior_seconds``) and the
    release tasks of earlier sweeps are. A chunk costs by its position: a first chunk also scores the per-set metrics
    and their work on the real rows, so it costs more per set than a refining one (the first 2 sets 0.45 of the ten,
    the other 8 0.65). ``sizes``: the sweep's (utility sets, release sets), default the quick preset's. Any other task
    is one share of its kind."""
    key = TaskKey.parse(name)
    if key.kind != TaskKind.RELEASE or len(key.index) < 2 or str(key.index[1]).count("-") != 1:
        return 1.0
    first, stop = (int(part) for part in str(key.index[1]).split("-"))
    whole = _chunk_weight(0, max(*QUICK_SIZES, DISTANCE_SETS), QUICK_SIZES)
    return _chunk_weight(first, stop, sizes or QUICK_SIZES) / whole


def protocol_sizes(job: JobRow) -> tuple[int, int] | None:
    """The (utility sets, release sets) a job was planned with (None before it is planned: the quick preset's)."""
    protocol = job.details.get("protocol") or {}
    if "utility_sets" not in protocol or "release_sets" not in protocol:
        return None
    return int(protocol["utility_sets"]), int(protocol["release_sets"])


def _shape(job: JobRow) -> tuple[float, float, float]:
    details = job.details
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


def share_at_plan(details: dict, cores: int | None = None) -> float | None:
    """How much slower than on a quiet machine a job's tasks were expected to run when it was planned: the other
    processes weighed by their niceness (``slowdown_at_plan``), or, for a job that did not record it, its load
    average (its own workers among it) over the ``cores``; None where neither was recorded."""
    if details.get("slowdown_at_plan") is not None:
        return float(details["slowdown_at_plan"])
    load = details.get("load_at_plan")
    return None if load is None else max(1.0, float(load) / (cores or machine_load()[1]))


def kind_priors(store: Store, job: JobRow) -> tuple[dict[str, float], str]:
    """Expected seconds per task kind for ``job`` before any of its own tasks is measured — earlier finished sweeps
    of this workspace, else the costs measured in bench/sweep.md, rescaled to the job's shape — and their source.
    An earlier sweep's times are taken back to a quiet machine by the slowdown it was planned under: the job's own
    slowdown multiplies the priors again (``calibrated``), and counting a busy afternoon twice made a 5-minute sweep
    read "92-138 min left" at its start (issue 56)."""
    earlier: dict[str, list[float]] = {}
    shape = _shape(job)
    for other in store.jobs():
        if other.id == job.id or other.status != JobStatus.DONE:
            continue
        fits = competitor_fits(SweepConfig.from_dict(other.config), int(_shape(other)[0]), int(_shape(other)[1]))
        sizes = protocol_sizes(other)
        then = share_at_plan(other.details) or 1.0
        for done in store.task_times(other.id):
            if done.key in fits:  # a competitor's fit is costed by its own measure, not as its kind's
                continue
            scale = _size(done.kind, shape) / _size(done.kind, _shape(other))
            earlier.setdefault(done.kind, []).append(done.seconds * scale / chunk_share(done.key, sizes) / then)
    base = {kind: median(values) for kind, values in earlier.items() if values}
    source = "earlier sweeps in this workspace" if base else "the costs measured on a quiet 2-core machine"
    for kind in TaskKind:
        if kind.prior_seconds is not None:
            base.setdefault(kind.value, kind.prior_seconds * _size(kind, shape) / _size(kind, PRIOR_SHAPE))
    return base, source


@dataclass(frozen=True)
class Costs:
    """What each task of a plan is expected to cost now: per kind, and the competitors' fits by task key; and the
    same at the slow end (``high``, ``fits_high``) that the time left's range reaches to."""

    kinds: dict[str, float]
    fits: dict[str, float] = field(default_factory=dict)
    speed: float = 1.0  # this machine now against the priors (2: every task takes twice its prior)
    high: dict[str, float] = field(default_factory=dict)  # per kind: its slowest measured task, or a kind not
    # measured yet as slow as the slowest measured kind ran against its prior
    fits_high: dict[str, float] = field(default_factory=dict)
    measured: frozenset[str] = frozenset()  # the kinds this job's own finished tasks measured

    def __post_init__(self):  # the slow end defaults to the expected costs (built by hand, as tests do)
        object.__setattr__(self, "high", {**self.kinds, **self.high})
        object.__setattr__(self, "fits_high", {**self.fits, **self.fits_high})


# The slow end of a kind no task of the sweep has measured yet, in times what is expected of it (and no faster than
# the load's fair share of the cores), and of a competitor's fit not measured yet, in times the load's share of its
# quiet cost. On the recorded loaded machines kinds slowed down unequally (the games 2-4 times their priors where the
# levels' tasks ran 13 times), and a competitor's fit ran 0.7-1.5 times the load's share of its quiet cost (CTGAN
# once 4.5 times, beside a longer PrivPGD). With these the replay of every recorded schedule never read below 0.8
# times the time truly left (tests/jobs/test_progress_estimate.py, bench/eta.md): chosen on those recordings.
UNMEASURED_SPREAD = 1.5
COMPETITOR_SPREAD = 1.5


def calibrated(priors: dict[str, float], finished: list[Finished], fits: dict[str, float] | None = None,
               unmeasured_speed: float = 1.0, share: float | None = None, sizes: tuple[int, int] | None = None
               ) -> Costs:
    """The priors corrected by the job's own finished tasks: a kind it has measured costs its measured mean; the
    others their prior times the median ratio of measured to prior (the machine's speed now: a busy machine makes
    every kind slower), but no slower than the load's fair ``share`` of the cores would make CPU-bound work (a
    worker's first tasks also pay its start: on a loaded machine they ran 13 times their prior where the games ran 4
    times); before any task is measured, ``unmeasured_speed``. A competitor's fit (``fits``: its
    measured quiet cost by task key; kept out of its kind's mean, which it would swamp) is one process of its own
    among the machine's: it costs that times the load's ``share`` of the cores (``busy_factor``; the machine's speed
    where the load is unknown), or times what the same generator's finished fits (a DP audit's trials) showed.
    Another competitor's overrun says little of this one's: on a loaded machine CTGAN ran 40 times its quiet cost
    where PrivPGD ran 11 times and our own tasks 5 times (tests/jobs/recorded_schedules.json).

    The slow end (``Costs.high``, ``fits_high``): a measured kind at its slowest task; a kind not measured yet
    ``UNMEASURED_SPREAD`` times what is expected of it and no faster than the load's share; a competitor's fit not
    measured yet ``COMPETITOR_SPREAD`` times the load's share of its quiet cost, one measured at its generator's
    slowest. ``sizes``: as ``chunk_share``."""
    fits = fits or {}
    measured: dict[str, list[float]] = {}
    for done in finished:
        if done.key not in fits:
            measured.setdefault(done.kind, []).append(done.seconds / chunk_share(done.key, sizes))
    own = {kind: sum(v) / len(v) for kind, v in measured.items()}
    slowest_task = {kind: max(v) for kind, v in measured.items()}
    counted = [k for k in own if k in priors and priors[k] > 0 and k not in ALONE]
    speed = median(own[k] / priors[k] for k in counted) if counted else unmeasured_speed
    unmeasured = speed if share is None else min(speed, share)  # CPU-bound work gets at least its fair share
    kinds = {kind: seconds * unmeasured for kind, seconds in priors.items()} | own
    # the slow end: a measured kind at its slowest task; one not measured yet half again what is expected of it, and no
    # faster than the load's fair share of the cores (what the expected cost already is on a machine quiet so far)
    slow = max(unmeasured * UNMEASURED_SPREAD, 1.0 if share is None else share)
    high = {kind: seconds * slow for kind, seconds in priors.items()} | slowest_task
    by_generator: dict[str, list[float]] = {}
    for done in finished:
        if fits.get(done.key, 0) > 0:
            ratio = max(0.0, done.seconds - kinds.get(done.kind, 0.0)) / fits[done.key]
            by_generator.setdefault(TaskKey.parse(done.key).player, []).append(ratio)
    factor = speed if share is None else share

    def fit(key: str, seconds: float, pick, spread: float) -> float:
        ratios = by_generator.get(TaskKey.parse(key).player)
        return seconds * (pick(ratios) if ratios else factor * spread)

    return Costs(kinds, {key: fit(key, seconds, median, 1.0) for key, seconds in fits.items()}, speed, high,
                 {key: fit(key, seconds, max, COMPETITOR_SPREAD) for key, seconds in fits.items()},
                 frozenset(k for k in own if k not in ALONE))


def kind_costs(store: Store, job: JobRow) -> tuple[dict[str, float], str]:
    """Expected seconds per task kind for ``job`` (``calibrated`` by its finished tasks), and where they come
    from."""
    priors, source = kind_priors(store, job)
    finished = [] if job.id is None else store.task_times(job.id)
    fits = competitor_fits(SweepConfig.from_dict(job.config), *map(int, _shape(job)[:2])) if job.config \
        else {}
    costs = calibrated(priors, finished, fits, sizes=protocol_sizes(job))
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
                 extra: dict[str, float] | None = None, spent: dict[str, float] | None = None,
                 sizes: tuple[int, int] | None = None) -> float:
    """Remaining time of ``plan`` if each kind costs ``costs[kind]`` (a release chunk its ``chunk_share`` of it, by
    ``sizes``), plus ``extra[key]`` for the tasks named there; ``spent``: the seconds each running task has already
    worked (``in_flight``), which it keeps its worker for, less. Each stage is scheduled as the engine runs it: its
    tasks in plan order, each on the first worker free, the stage ending with its last task."""
    fallback = median(costs.values()) if costs else 1.0
    extra, spent = extra or {}, spent or {}

    def cost(task: Task) -> float:
        return costs.get(task.kind.value, fallback) * chunk_share(task.name, sizes) + extra.get(task.name, 0.0)

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


BUSY_FROM = 1.2  # a slowdown (``slowdown``) from which the machine is said to be busy
ALMOST_FULL = 0.99  # the most a progress bar shows while work remains


@dataclass(frozen=True)
class TimeLeft:
    """The time left of a sweep: ``seconds``, what is said (its slow end: the estimate errs long rather than short),
    ``low`` its fast end, and why they differ: a busy machine, kinds of the tasks left that no task of the sweep has
    measured yet (a competitor's fit by its name)."""

    seconds: float
    low: float
    busy: bool = False
    unmeasured: tuple[str, ...] = ()

    @property
    def ranged(self) -> bool:
        """Said as a range, with why: the machine is busy or a kind left is unmeasured."""
        return self.busy or bool(self.unmeasured)

    def words(self) -> str:
        """'about 40 s left', or 'about 12–25 min left; the machine is busy' (one number where both ends round
        alike)."""
        if not self.ranged:
            return f"about {duration_text(self.seconds)} left"
        why = "the machine is busy" if self.busy else "some kinds of task have not run yet"
        return f"about {range_text(self.low, self.seconds)} left; {why}"


def time_left(plan: list[Task], finished: list[Finished], priors: dict[str, float], fits: dict[str, float],
              workers: int, now: float | None = None, began: float | None = None, load: float | None = None,
              cores: int = 1, slowdown: float | None = None, sizes: tuple[int, int] | None = None,
              running: dict[str, float] | None = None) -> TimeLeft:
    """The time left of ``plan`` at ``now`` (None: nothing is running), its ``finished`` tasks known: the costs
    ``calibrated`` by them, the running tasks' work counted (``in_flight``; ``began``: when the plan's first stage
    started); until a task is measured, the machine's ``slowdown`` when the plan was made (``slowdown``: the other
    processes by their niceness), or, for a job that did not record it, its ``load`` average (the sweep's own
    workers among it) on its ``cores``, slows the priors. Both ends of the range; ``sizes``: as ``chunk_share``;
    ``running``: seconds worked by tasks known to run (the holder's fit before the plan). The dashboard, the command
    line and the replay of recorded sweeps all read it."""
    names = {task.name for task in plan}
    done = {f.key: f for f in finished if f.key in names}
    share = share_at_plan({"slowdown_at_plan": slowdown, "load_at_plan": load}, cores)
    costs = calibrated(priors, list(done.values()), fits, 1.0 if share is None else share, share, sizes)
    spent = {} if now is None else in_flight(plan, done, workers, now, began if began is not None else now)
    spent |= running or {}
    expected = seconds_left(plan, set(done), costs.kinds, workers, costs.fits, spent, sizes)
    slow = seconds_left(plan, set(done), costs.high, workers, costs.fits_high, spent, sizes)
    left = [task for task in plan if task.name not in done]
    unmeasured = {TaskKey.parse(task.name).player if task.name in fits else task.kind.value for task in left
                  if task.name in fits or task.kind.value not in costs.measured}
    return TimeLeft(max(slow, expected), expected, share is not None and share > BUSY_FROM,
                    tuple(sorted(unmeasured)))


def progress(store: Store, job_id: str) -> dict:
    """How far a job is: ``done`` of ``total`` in its current ``phase`` ('first look' while the first look runs
    and the sweep is not planned yet, then 'sweep'), ``fraction`` in [0, 1] of all the work (never 1 while work
    remains), the time left (``eta_seconds``, its slow end, and ``eta_low``; None before the sweep's shape is known),
    whether a cancel is under way (``stopping``) and ``text``, the one line every view shows (``progress_text``)."""
    job = store.job(job_id)
    done = store.done_tasks(job_id)
    details = job.details
    active = job.status in ACTIVE
    left, source = None, None
    if job.plan:
        planned = plan_from_json(job.plan)
        priors, source = kind_priors(store, job)
        finished = store.task_times(job_id)
        if finished:
            source = "this sweep's measured tasks and " + source
        n_train, n_columns, _ = _shape(job)
        fits = competitor_fits(SweepConfig.from_dict(job.config), int(n_train), int(n_columns))
        running = job.status == JobStatus.RUNNING
        holder = next((f.at for f in finished if f.key == str(TaskKey(TaskKind.HOLDER))), None)
        began = max(moment for moment in (holder, job.started, 0.0) if moment is not None)
        # fixed when the plan was made, so that the time left only counts down between tasks
        left = time_left(planned, finished, priors, fits, job.workers or 1, time.time() if running else None,
                         began, details.get("load_at_plan"), machine_load()[1], details.get("slowdown_at_plan"),
                         protocol_sizes(job))
        names = {task.name for task in planned}  # the holder's fit is stored as a result but is no task
        phase, count, total = "sweep", len(done & names), job.total or 0
        whole = total
    else:
        looks = sum(1 for name in done if TaskKey.parse(name).kind == TaskKind.FIRST_LOOK)
        phase, count = "first look", looks
        total = max(int(details.get("first_look_levels") or 0), looks)
        left, whole = _before_the_plan(store, job, looks)
        source = "the costs measured in bench/sweep.md" if left is not None else None
        whole = whole or total + 1  # the holder's fit at least is left after the looks
    stopping = bool(job.cancel) and active
    fraction = min(count / whole, 1.0) if whole else 0.0
    info = {"status": job.status, "phase": phase, "done": count, "total": total,
            "fraction": min(fraction, ALMOST_FULL) if active else fraction,
            "eta_seconds": None if left is None else left.seconds, "eta_low": None if left is None else left.low,
            "eta_busy": bool(left and left.busy), "eta_unmeasured": list(left.unmeasured) if left else [],
            "eta_source": source, "stopping": stopping, "error": job.error}
    info["text"] = progress_text(info)
    return info


def _before_the_plan(store: Store, job: JobRow, looks: int) -> tuple[TimeLeft | None, int | None]:
    """While the first look runs and the holder is fitted (minutes at 120 columns), the plan is not stored yet: the
    time left of the sweep as planned from its settings, levels and shape (which the worker records as soon as it
    knows them), nothing of it measured; and how many tasks the whole sweep has. (None, None) before they are known."""
    from .plan import planned_tasks

    details = job.details
    if not details.get("levels") or not details.get("n_train") or not details.get("n_columns"):
        return None, None
    config = SweepConfig.from_dict(job.config)
    planned = planned_tasks(config, [int(level) for level in details["levels"] if level is not None])
    n_train, n_columns = int(details["n_train"]), int(details["n_columns"])
    shaped = JobRow(job.id, details={"n_train": n_train, "n_columns": n_columns,
                                     "n_targets": planned_targets(config)})
    priors, _ = kind_priors(store, shaped)
    looks_left = max(int(details.get("first_look_levels") or 0) - looks, 0)
    fitting = {}  # every first look stored, the job running: the holder is being fitted since the last one
    if not looks_left and looks and job.status == JobStatus.RUNNING:
        last = max(f.at for f in store.task_times(job.id) if f.kind == TaskKind.FIRST_LOOK)
        fitting = {str(TaskKey(TaskKind.HOLDER)): max(time.time() - last, 0.0)}
    left = time_left(planned, [], priors, competitor_fits(config, n_train, n_columns), job.workers or 1,
                     load=details.get("load_at_plan"), cores=machine_load()[1],
                     slowdown=details.get("slowdown_at_plan"), sizes=(config.protocol().utility_sets,
                                                                      config.protocol().release_sets),
                     running=fitting)
    looks_left *= priors.get(TaskKind.FIRST_LOOK, 0.0)
    return replace(left, seconds=left.seconds + looks_left, low=left.low + looks_left), task_total(planned, n_train)


def duration_text(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def range_text(low: float, high: float) -> str:
    """'40–70 s', '12–25 min': both ends in the unit of the slow one; one number where they round alike."""
    if high < 90:
        ends = (f"{low:.0f}", f"{high:.0f}")
        unit = "s"
    else:
        ends = (f"{max(low / 60, 1):.0f}", f"{high / 60:.0f}")
        unit = "min"
    return f"{ends[1]} {unit}" if ends[0] == ends[1] else f"{ends[0]}–{ends[1]} {unit}"


def progress_text(info: dict) -> str:
    """'running — first look: level 3 of 6', 'running — 12 of 35 tasks, about 40 s left', 'running — 12 of 35 tasks,
    about 12–25 min left; the machine is busy', 'stopping — …': counted in the units the job is in, never 'k of 0'."""
    status = info["status"]
    eta = info.get("eta_seconds")
    left = None if eta is None else TimeLeft(eta, info.get("eta_low", eta) if info.get("eta_low") is not None
                                             else eta, bool(info.get("eta_busy")),
                                             tuple(info.get("eta_unmeasured") or ()))
    if info.get("stopping"):
        unit = "tasks" if info["phase"] == "sweep" else "first looks"
        kept = (f"{info['done']} of {info['total']} {unit} finished, kept" if info["done"] and info["total"] else
                "nothing finished yet")
        return f"stopping — Cancel was pressed: the tasks under way are being ended; {kept}"
    if info["phase"] == "first look":
        if not info["done"]:
            where = "starting (fitting on a sample for a first look)" if status in ACTIVE else \
                "nothing finished yet"
        else:
            of = f" of {info['total']}" if info["total"] else ""
            where = f"first look: level {info['done']}{of}"
        whole = f"; the whole sweep: {left.words()}" if left is not None and status == JobStatus.RUNNING else ""
        return f"{status} — {where}{whole}"
    said = f", {left.words()}" if left is not None and status == JobStatus.RUNNING else ""
    return f"{status} — {info['done']} of {info['total']} tasks{said}"


def estimate(store: Store, plan: list[Task], n_train: int, n_columns: int, workers: int = 2,
             config: SweepConfig | None = None) -> tuple[float, str]:
    """Expected seconds of a job not started yet (with ``config``: its attack targets counted, its competitors'
    fits included and its release chunks costed by its protocol), and where the costs come from: the worker's
    start, the first look (a table larger than its sample), the plan."""
    targets = planned_targets(config) if config is not None else None
    job = JobRow(None, details={"n_train": n_train, "n_columns": n_columns, "n_targets": targets})
    costs, source = kind_costs(store, job)
    fits = competitor_fits(config, n_train, n_columns) if config is not None else {}
    if fits:
        source += " and the competitors' measured fit costs"
    sizes = None if config is None else (config.protocol().utility_sets, config.protocol().release_sets)
    look = first_look_tasks(plan, n_train) * costs.get(TaskKind.FIRST_LOOK, 0.0)
    return STARTUP_SECONDS + look + seconds_left(plan, set(), costs, workers, extra=fits, sizes=sizes), source


def machine_load() -> tuple[float | None, int]:
    """The load average over the last minute (None where the system does not say) and the cores."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return load, os.cpu_count() or 1


def busy_factor(load: float | None, cores: int, workers: int) -> float:
    """How much slower the sweep's workers run among the processes already running, when all that is known is the
    load average: each of the ``load`` runnable processes and of the workers gets an equal share of the cores (1: a
    share of a core each, or more). It counts a process at niceness 19 as a full competitor (``slowdown`` does not)."""
    if load is None:
        return 1.0
    return max(1.0, (load + min(workers, cores)) / cores)


def nice_weight(nice: int) -> float:
    """The Linux scheduler's weight of a niceness (``sched_prio_to_weight``: 1024 at 0, 1.25 times less a step; 15 at
    19): the share of the cores it gets against the others that want one."""
    return 1024.0 / 1.25 ** nice


def slowdown(others: list[float], own_nice: float, workers: int, cores: int) -> float:
    """How much slower each of the sweep's ``workers`` (at niceness ``own_nice``) runs than on an idle machine, among
    ``others`` (the niceness of every other thread that wants a core): the kernel's fair scheduler shares the cores
    in proportion to the weights, no thread getting more than one core (the shares filled as water fills a vessel).
    Ten CPU-bound threads at niceness 19 leave two workers at niceness 0 about 93 % of two cores (1.08 times
    slower), where the load average said (10 + 2) / 2 = 6 times."""
    weights = [nice_weight(n) for n in others] + [nice_weight(own_nice)] * workers
    if len(weights) <= cores:
        return 1.0
    left, capacity, saturated = sorted(weights), float(cores), 0
    while left:
        per_weight = capacity / sum(left)
        if left[-1] * per_weight <= 1.0:
            break
        left.pop()  # the heaviest gets a whole core
        capacity -= 1.0
        saturated += 1
    share = 1.0 if not left else min(1.0, nice_weight(own_nice) * capacity / sum(left))
    return 1.0 / max(share, 1e-9)


def _runnable(exclude_group: int | None) -> list[tuple[int, int, int]] | None:
    """(process id, thread id, niceness) of every thread that wants a core now (state R in /proc), this process and
    the process group ``exclude_group`` left out; None where /proc cannot say."""
    own = os.getpid()
    found: list[tuple[int, int, int]] = []
    try:
        pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return None
    for pid in pids:
        if pid == own:
            continue
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                if exclude_group is not None and int(fields[2]) == exclude_group:
                    break
                if fields[0] == "R":
                    found.append((pid, int(tid), int(fields[16])))
        except (OSError, IndexError, ValueError):  # gone meanwhile, or not ours to read
            continue
    return found


def runnable_threads(exclude_group: int | None = None) -> dict[int, int] | None:
    """Every thread that wants a core now (state R in /proc) with its niceness, by thread id: this process's own and
    those of the process group ``exclude_group`` left out (a sweep's worker and its pool); None where /proc cannot
    say. One look: a CPU-bound thread is always found, one that mostly waits seldom."""
    found = _runnable(exclude_group)
    return None if found is None else {tid: nice for _, tid, nice in found}


AUTOGROUP = "/proc/sys/kernel/sched_autogroup_enabled"


def autogroup_enabled() -> bool:
    """Whether the kernel shares the cores between sessions first (``CONFIG_SCHED_AUTOGROUP``, on by default in most
    distributions' kernels): each session's group gets the weight of its own niceness, whatever the niceness of its
    threads, which share that weight among themselves (sched(7), "The autogroup feature")."""
    try:
        with open(AUTOGROUP) as flag:
            return flag.read().strip() == "1"
    except OSError:
        return False


def autogroup(pid: int | str = "self") -> tuple[str, int] | None:
    """The scheduling group of a process's session and the group's niceness ('/autogroup-25 nice 0'); None where the
    process has none (the kernel's own threads) or it cannot be read."""
    try:
        with open(f"/proc/{pid}/autogroup") as found:
            name, _, nice = found.read().split()
        return name, int(nice)
    except (OSError, ValueError):
        return None


def as_niceness(weight: float) -> float:
    """The niceness whose weight is ``weight`` (``nice_weight`` inverted; not a whole number in general)."""
    return math.log(1024.0 / weight, 1.25)


def session_niceness(found: list[tuple[int, int, int]], groups: dict[int, tuple[str, int] | None] | None
                     ) -> list[float]:
    """The niceness each runnable thread of ``found`` competes with. Without autogroups (``groups`` None), its own.
    With them (``groups``: each process's ``autogroup``), its session group's weight shared among the group's
    runnable threads by their own niceness: a loop at niceness 19 alone in its session competes as a thread at 0
    would, and two loops at 0 in one session as two threads at 3.1 — beside two busy loops at niceness 19, a sweep
    ran 1.5 times slower, not the 1.04 times their niceness said (bench/eta.md)."""
    if groups is None:
        return [nice for _, _, nice in found]
    members: dict[str, float] = {}
    for pid, _, nice in found:
        if groups[pid] is not None:
            members[groups[pid][0]] = members.get(groups[pid][0], 0.0) + nice_weight(nice)
    out = []
    for pid, _, nice in found:
        group = groups[pid]
        out.append(float(nice) if group is None else
                   as_niceness(nice_weight(group[1]) * nice_weight(nice) / members[group[0]]))
    return out


def runnable_others(exclude_group: int | None = None) -> list[float] | None:
    """The niceness every other thread that wants a core now competes with (``runnable_threads``, weighed by their
    sessions where the kernel groups them: ``session_niceness``)."""
    found = _runnable(exclude_group)
    if found is None:
        return None
    groups = {pid: autogroup(pid) for pid, _, _ in found} if autogroup_enabled() else None
    return session_niceness(found, groups)


def workers_niceness(workers: int, own_nice: int, in_new_session: bool) -> float:
    """The niceness each of a sweep's ``workers`` (threads at ``own_nice``) competes with: its own, or, where the
    kernel groups sessions, its share of its session group's weight — a worker started from the page runs in a
    session of its own (``in_new_session``: a new group, at niceness 0), a worker deciding its plan in the one it
    leads."""
    if not autogroup_enabled():
        return own_nice
    group = None if in_new_session else autogroup()
    return as_niceness(nice_weight(0 if group is None else group[1]) / max(1, workers))


def competitors(seen: list[float], load: float | None) -> list[float]:
    """The niceness of each process that competes for a core over the last minute: as many as the ``load`` average
    says (smoothed, where one look at /proc catches a thread that mostly waits only now and then), at the niceness
    mix of the threads ``seen`` wanting a core now (niceness 0 for all, where none was seen); ``seen`` itself where
    the load is unknown."""
    if load is None:
        return list(seen)
    count = int(round(load))
    mix = sorted(seen) or [0]
    return [mix[(i * len(mix)) // count] for i in range(count)] if count else []


def machine_slowdown(workers: int, exclude_group: int | None = None, less: int = 0) -> tuple[float | None, int]:
    """``slowdown`` of ``workers`` at this process's niceness among the processes that compete for a core
    (``competitors``: the load average less ``less`` of its own, at the niceness of the threads /proc shows wanting
    a core, ``exclude_group``'s left out); None where /proc cannot say; and the cores."""
    cores = os.cpu_count() or 1
    seen = runnable_others(exclude_group)
    if seen is None:
        return None, cores
    load, _ = machine_load()
    others = competitors(seen, None if load is None else max(load - less, 0.0))
    own = workers_niceness(workers, os.getpriority(os.PRIO_PROCESS, 0), in_new_session=False)
    return slowdown(others, own, workers, cores), cores


@dataclass(frozen=True)
class StartEstimate:
    """The duration of a sweep not started yet, and what it assumes."""

    seconds: float
    source: str  # where the task costs come from
    tasks: int
    workers: int
    load: float | None  # the load average when estimated
    cores: int
    factor: float  # the slowdown the other processes imply (1: a quiet machine)
    competing: int | None = None  # the other threads wanting a core (None: only the load average was known)

    @property
    def busy(self) -> bool:
        return self.factor > BUSY_FROM

    @property
    def sentence(self) -> str:
        """The estimate and its assumptions, as the Sweep page says them before Start."""
        said = (f"Start runs {self.tasks} tasks on {self.workers} worker processes; estimated duration about "
                f"{duration_text(self.seconds)}, each task costed from {self.source}")
        refined = "; refined from the sweep's own tasks once it runs."
        if self.load is None and self.competing is None:
            return said + ", assuming the machine stays as busy as it is now" + refined
        machine = (f"{self.competing} other process{'es' if self.competing != 1 else ''} wanting a core, weighed "
                   f"by their priority, on {self.cores} cores" if self.competing is not None else
                   f"load average {self.load:.1f} on {self.cores} cores")
        if self.busy:
            return (said + f". The machine is busy ({machine}): the estimate assumes it stays so, and is "
                    f"{self.factor:.1f} times what the same machine quiet would take" + refined)
        slower = f", which slows the workers {self.factor:.1f} times" if self.factor > 1.05 else ""
        return said + f", on a machine as quiet as now ({machine}{slower})" + refined


def before_start(store: Store, plan: list[Task], n_train: int, n_columns: int, workers: int = 2,
                 config: SweepConfig | None = None, load: tuple[float | None, int] | None = None,
                 competing: tuple[list[float], float, int] | None = None) -> StartEstimate:
    """``estimate`` on this machine as it is now: the other processes that want a core, each weighed by its niceness
    against the sweep's workers (``slowdown``; ``competing``: their niceness values, the workers' own and the cores,
    default ``competitors``: as many as the load average, at the niceness /proc shows, weighed by their sessions
    where the kernel groups them: ``session_niceness``, ``workers_niceness``), scale it; where only a load
    average is known (``load``: its value and the cores, as a recorded sweep has it), each runnable process counts as a
    full competitor (``busy_factor``)."""
    seconds, source = estimate(store, plan, n_train, n_columns, workers, config)
    if load is not None:
        average, cores = load
        factor, others = busy_factor(average, cores, workers), None
    else:
        average, cores = machine_load()
        if competing is None:
            found = runnable_others()
            own = workers_niceness(workers, os.getpriority(os.PRIO_PROCESS, 0), in_new_session=True)
            competing = None if found is None else (competitors(found, average), own, cores)
        if competing is None:
            factor, others = busy_factor(average, cores, workers), None
        else:
            others, own, cores = competing
            factor, others = slowdown(others, own, workers, cores), len(others)
    return StartEstimate(seconds * factor, source, task_total(plan, n_train), workers, average, cores, factor, others)


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
    costs, _ = kind_costs(store, JobRow(None, details={"n_train": n_train, "n_columns": n_columns}))
    extra = {name: seconds for name, seconds in competitor_fits(config, n_train, n_columns).items()
             if TaskKey.parse(name).kind == TaskKind.DP_AUDIT}
    return seconds_left(plan, set(), costs, workers, extra=extra)
