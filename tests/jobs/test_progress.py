"""tvs_core/jobs/progress.py: how far a stored job is and how long it will take, on stores written by hand (no worker,
no sweep). The estimate against recorded sweeps is in test_progress_estimate.py."""

import json
import os

import pytest

from tvs_core.evaluation.records import FIRST_LOOK_ROWS
from tvs_core.evaluation.sizes import BASELINE_ROWS
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.progress import (
    PRIOR_SHAPE,
    STARTUP_SECONDS,
    UNMEASURED_SPREAD,
    Finished,
    _size,
    as_niceness,
    audit_seconds,
    autogroup_enabled,
    before_start,
    busy_factor,
    calibrated,
    chunk_share,
    competitor_fits,
    competitors,
    duration_text,
    estimate,
    first_look_tasks,
    fit_seconds_by_baseline,
    in_flight,
    kind_costs,
    kind_priors,
    machine_slowdown,
    nice_weight,
    planned_targets,
    progress,
    progress_text,
    runnable_others,
    runnable_threads,
    seconds_left,
    session_niceness,
    slowdown,
    task_total,
    time_left,
)
from tvs_core.jobs.tasks import GAMES, LEVELS, Growth, Task, TaskKey, TaskKind, plan_from_json
from tvs_core.storage import JobRow, Store

ROWS, COLUMNS, TARGETS = PRIOR_SHAPE


def config(**changes):
    return SweepConfig(**{"response": "y", "sensitive": ["income"], "baselines": ["independent"], **changes})


def shaped(rows=ROWS, columns=COLUMNS, targets=TARGETS, job_id=None):
    return JobRow(job_id, details={"n_train": rows, "n_columns": columns, "n_targets": targets})


def stored_job(store, job_id="job", status="queued", plan=None, details=None, **fields):
    store.create_job(job_id, "fingerprint", config().to_dict())
    store.update_job(job_id, status=status, plan=None if plan is None else json.dumps(plan),
                     details=json.dumps(details if details is not None else shaped().details), **fields)
    return job_id


def task(key, stage):
    return Task(TaskKey.parse(key), (), stage)


# -- what a task's cost grows with -----------------------------------------------------------------------------------
def test_each_growth_rescales_by_its_own_measure_of_the_table():
    shape = (100.0, 10.0, 4.0)
    assert TaskKind.RELEASE.growth == Growth.DATA and _size("release", shape) == 1000.0  # rows x columns
    assert TaskKind.AIA.growth == Growth.GAMES and _size("aia", shape) == 500.0  # (1 + targets) x columns²
    assert TaskKind.FIRST_LOOK.growth == Growth.COLUMNS and _size("first_look", shape) == 100.0  # columns²


def test_a_kind_this_version_no_longer_plans_is_costed_by_columns_not_refused():
    assert _size("a_kind_of_an_older_version", (100.0, 10.0, 4.0)) == 100.0


def test_planned_targets_count_outliers_and_random_rows_per_sensitive_column():
    assert planned_targets(config(sensitive=["income", "age"])) == 2 * (2 + 2)  # quick: 2 quantiles, 2 random rows
    assert planned_targets(config(sensitive=[])) == 0


# -- kind_costs ------------------------------------------------------------------------------------------------------
def test_on_a_first_sweep_the_costs_are_the_measured_priors_on_the_priors_own_table(tmp_path):
    costs, source = kind_costs(Store(tmp_path), shaped())
    assert source == "the costs measured on a quiet 2-core machine"  # no developer file on a page (issue 56)
    for kind in TaskKind:
        if kind.prior_seconds is None:
            assert kind.value not in costs  # an external set: no prior, no made-up number
        else:
            assert costs[kind.value] == pytest.approx(kind.prior_seconds)


def test_twice_the_rows_doubles_the_data_tasks_only(tmp_path):
    store = Store(tmp_path)
    base, _ = kind_costs(store, shaped())
    doubled, _ = kind_costs(store, shaped(rows=2 * ROWS))
    assert doubled["release"] == pytest.approx(2 * base["release"])
    assert doubled["aia"] == pytest.approx(base["aia"])  # the games refit on fixed-size subsets
    assert doubled["first_look"] == pytest.approx(base["first_look"])


def test_a_sweeps_own_measured_tasks_calibrate_the_kinds_it_has_not_run(tmp_path):
    """Release tasks that took twice their prior on this machine: the games not run yet are expected to take twice
    theirs; the holder's fit (alone, before the plan) does not calibrate, and keeps its own measured time."""
    store = Store(tmp_path)
    job_id = stored_job(store)
    for level, seconds in ((1, 3.0), (2, 5.0)):  # the mean, 4 s, is twice the release prior of 2 s
        store.add_result(job_id, f"release:{level}:0-10", "release", [], seconds)
    store.add_result(job_id, "holder", "holder", [], 70.0)  # a hundred times its prior
    costs, source = kind_costs(store, store.job(job_id))
    assert source == "this sweep's measured tasks and the costs measured on a quiet 2-core machine"
    assert costs["release"] == pytest.approx(4.0)
    assert costs["holder"] == pytest.approx(70.0)
    assert costs["aia"] == pytest.approx(2 * TaskKind.AIA.prior_seconds)
    assert costs["mia_eval"] == pytest.approx(2 * TaskKind.MIA_EVAL.prior_seconds)


def test_earlier_finished_sweeps_are_rescaled_to_this_tables_shape(tmp_path):
    """A finished sweep on a table of twice the rows: its data tasks take half as long on this one. A failed
    sweep's times are not learnt from."""
    store = Store(tmp_path)
    done = stored_job(store, "earlier", status="done", details=shaped(rows=2 * ROWS).details)
    store.add_result(done, "reference", "reference", [], 10.0)
    failed = stored_job(store, "failed", status="failed")
    store.add_result(failed, "reference", "reference", [], 1000.0)
    costs, source = kind_costs(store, shaped(job_id="new"))
    assert source == "earlier sweeps in this workspace"
    assert costs["reference"] == pytest.approx(5.0)


def test_an_earlier_sweep_on_a_busy_machine_is_not_counted_busy_twice(tmp_path):
    """Issue 56: a 5-minute sweep read "about 92-138 min left" at its start beside the test suite. An earlier sweep of
    the workspace had run four times slower on the busy machine, and the new sweep's own slowdown multiplied those
    times again. The earlier times are taken back to a quiet machine by the slowdown they were planned under (the
    niceness-weighed one, else the load average over the cores); a sweep that recorded neither is taken as it ran."""
    prior = TaskKind.REFERENCE.prior_seconds
    store = Store(tmp_path)
    weighed = stored_job(store, "weighed", status="done", details=shaped().details | {"slowdown_at_plan": 4.0})
    store.add_result(weighed, "reference", "reference", [], 4 * prior)
    load = 4.0 * (os.cpu_count() or 1)  # four runnable processes a core: four times slower, by its load average
    loaded = stored_job(store, "loaded", status="done", details=shaped().details | {"load_at_plan": load})
    store.add_result(loaded, "reference", "reference", [], 4 * prior)
    priors, source = kind_priors(store, shaped(job_id="new"))
    assert source == "earlier sweeps in this workspace"
    assert priors["reference"] == pytest.approx(prior)
    plan = [task("reference", LEVELS)]
    left = time_left(plan, [], {"reference": prior}, {}, 1, slowdown=4.0)
    assert left.low == pytest.approx(4 * prior) and left.seconds <= 4 * prior * UNMEASURED_SPREAD + 1e-9
    left = time_left(plan, [], priors, {}, 1, slowdown=4.0)  # the same sweep again, as busy: 4 times, not 16
    assert left.low == pytest.approx(4 * priors["reference"])


def test_an_earlier_sweep_that_recorded_no_load_is_taken_as_it_ran(tmp_path):
    store = Store(tmp_path)
    unknown = stored_job(store, "unknown", status="done")
    store.add_result(unknown, "reference", "reference", [], 3.0)
    assert kind_priors(store, shaped(job_id="new"))[0]["reference"] == pytest.approx(3.0)


# -- competitors' fits -----------------------------------------------------------------------------------------------
def test_only_a_competitors_fit_is_costed_by_its_task_key():
    fits = competitor_fits(config(baselines=["independent", "dp_vine:1", "ctgan:quick", "privbayes:1"]), 700, 27)
    assert set(fits) == {"baseline:ctgan:quick", "baseline:privbayes:1"}
    assert all(seconds > 0 for seconds in fits.values())


def test_a_competitors_fit_cost_stops_growing_at_the_baseline_row_cap():
    def seconds(rows):
        return competitor_fits(config(baselines=["ctgan:quick"]), rows, 27)["baseline:ctgan:quick"]

    assert seconds(BASELINE_ROWS // 2) < seconds(BASELINE_ROWS) == pytest.approx(seconds(10 * BASELINE_ROWS))


def test_a_baseline_name_this_version_does_not_know_gives_no_estimate_not_an_error():
    """A sweep stored by another version may name a baseline this one lacks: its page still opens."""
    assert competitor_fits(config(baselines=["no_such_generator", "ctgan:quick"]), 700, 27).keys() == {
        "baseline:ctgan:quick"}


def test_each_dp_audit_fit_of_a_competitor_is_costed_once_per_trial():
    fits = competitor_fits(config(baselines=["privbayes:1"], dp_audit_trials=3), 700, 27)
    assert {key for key in fits if key.startswith("dp_audit")} == {f"dp_audit:privbayes:1:{t}" for t in range(3)}


def test_fit_seconds_are_named_by_the_baseline_even_when_its_name_holds_a_colon():
    fits = fit_seconds_by_baseline(config(baselines=["ctgan:quick", "privbayes:1", "independent"],
                                          dp_audit_trials=2), 700, 27)
    assert set(fits) == {"ctgan:quick", "privbayes:1"}  # the audit's fits are not the baseline's own


# -- seconds_left ----------------------------------------------------------------------------------------------------
def test_the_holders_stage_runs_its_tasks_one_after_the_other():
    plan = [task("holder", 0), task("first_look:1", 0)]
    assert seconds_left(plan, set(), {"holder": 3.0, "first_look": 1.0}, workers=4) == pytest.approx(4.0)


def test_a_stage_on_two_workers_lasts_half_its_work_or_its_longest_task():
    plan = [task("release:1:0-10", LEVELS), task("release:2:0-10", LEVELS), task("aia:0", GAMES)]
    costs = {"release": 2.0, "aia": 6.0}
    assert seconds_left(plan, set(), costs, workers=2) == pytest.approx(2.0 + 6.0)
    assert seconds_left(plan, set(), costs, workers=1) == pytest.approx(4.0 + 6.0)
    assert seconds_left(plan, set(), costs, workers=0) == seconds_left(plan, set(), costs, workers=1)


def test_a_kind_without_a_cost_takes_the_median_cost_and_extra_seconds_are_added_to_their_task():
    plan = [task("holder", 0), task("external:mine", GAMES), task("baseline:ctgan", GAMES)]
    costs = {"holder": 1.0, "baseline": 3.0, "aia": 10.0}  # no cost for an external set: the median, 3 s
    assert seconds_left(plan, {"holder"}, costs, workers=1) == pytest.approx(6.0)
    assert seconds_left(plan, {"holder"}, costs, workers=1, extra={"baseline:ctgan": 100.0}) == pytest.approx(106.0)


def test_a_running_task_keeps_its_worker_for_what_is_left_of_its_cost_and_never_less_than_nothing():
    plan = [task("release:1:0-10", LEVELS), task("aia:0", GAMES)]
    costs = {"release": 2.0, "aia": 6.0}
    assert seconds_left(plan, set(), costs, 2, spent={"release:1:0-10": 1.5}) == pytest.approx(0.5 + 6.0)
    assert seconds_left(plan, set(), costs, 2, spent={"release:1:0-10": 5.0}) == pytest.approx(6.0)  # overran
    assert seconds_left(plan, {"release:1:0-10"}, costs, 2, spent={"aia:0": 4.0}) == pytest.approx(2.0)


def test_a_long_fit_half_done_holds_one_worker_while_the_other_runs_the_rest():
    """A competitor's 180 s fit has run 90 s: the other worker runs the six 10 s tasks meanwhile; the stage ends
    with the fit, 90 s from now — not (90 + 60) / 2, nor 180."""
    plan = [task("baseline:privpgd:2.5", GAMES)] + [task(f"aia:{i}", GAMES) for i in range(6)]
    costs = {"baseline": 0.0, "aia": 10.0}
    fit = {"baseline:privpgd:2.5": 180.0}
    left = seconds_left(plan, set(), costs, 2, extra=fit, spent={"baseline:privpgd:2.5": 90.0, "aia:0": 0.0})
    assert left == pytest.approx(90.0)


def finished(key, seconds, at):
    return Finished(key, TaskKey.parse(key).kind.value, seconds, at)


def test_the_running_tasks_and_their_work_are_read_from_the_finished_ones():
    """Two workers from t = 100: aia:0 (a long one) and aia:1 start; aia:1 ends at 110, aia:2 starts; aia:2 ends at
    125, aia:3 starts. At 130 aia:0 has worked 30 s, aia:3 5 s."""
    plan = [task("release:1:0-10", LEVELS)] + [task(f"aia:{i}", GAMES) for i in range(5)]
    done = {"release:1:0-10": finished("release:1:0-10", 2.0, 100.0), "aia:1": finished("aia:1", 10.0, 110.0),
            "aia:2": finished("aia:2", 15.0, 125.0)}
    assert in_flight(plan, done, 2, 130.0, 90.0) == {"aia:0": pytest.approx(30.0), "aia:3": pytest.approx(5.0)}
    one = {"release:1:0-10": done["release:1:0-10"], "aia:0": finished("aia:0", 10.0, 110.0),
           "aia:1": finished("aia:1", 15.0, 125.0)}
    assert in_flight(plan, one, 1, 130.0, 100.0) == {"aia:2": pytest.approx(5.0)}  # one worker: one task at a time
    everything = done | {f"aia:{i}": finished(f"aia:{i}", 1.0, 140.0) for i in (0, 3, 4)}
    assert in_flight(plan, everything, 2, 150.0, 90.0) == {}


def test_a_competitors_fit_is_kept_out_of_its_kinds_mean_and_scaled_by_the_machines_load():
    """A CTGAN task that took 296 s does not make the independent baseline cost 150 s. A competitor's fit is one
    process among the machine's: its measured quiet cost times the load's share of the cores (the machine's speed
    where the load is unknown) — not times another competitor's overrun, which says little of its own; a DP audit's
    trials of the same generator do learn from each other."""
    priors = {"baseline": 2.0, "release": 2.0, "dp_audit": 1.0}
    fits = {"baseline:ctgan": 98.0, "baseline:privpgd:2.5": 50.0, "dp_audit:privbayes:1:0": 1.0,
            "dp_audit:privbayes:1:1": 1.0}
    done = [finished("baseline:independent", 2.0, 10.0), finished("baseline:ctgan", 296.0, 310.0),
            finished("release:1:0-10", 4.0, 5.0), finished("dp_audit:privbayes:1:0", 4.0, 320.0)]
    costs = calibrated(priors, done, fits, share=5.0)
    assert costs.kinds["baseline"] == pytest.approx(2.0)
    assert costs.speed == pytest.approx(1.5)  # the median of baseline's 1 and release's 2
    assert costs.fits["baseline:privpgd:2.5"] == pytest.approx(50.0 * 5.0)  # the load's share, not CTGAN's 3
    assert costs.fits["dp_audit:privbayes:1:1"] == pytest.approx(2.5)  # its first trial: (4 - the kind's 1.5) / 1
    assert calibrated(priors, done[:1], fits).fits["baseline:ctgan"] == pytest.approx(98.0)  # load unknown: speed 1
    assert calibrated(priors, [], fits, unmeasured_speed=3.0).kinds["release"] == pytest.approx(6.0)  # a busy machine
    assert calibrated({"aia": 1.0, "release": 1.0}, [finished("release:1:0-10", 13.0, 20.0)], share=7.0).kinds[
        "aia"] == pytest.approx(7.0)  # a kind not measured yet: no slower than its fair share of the cores


def test_a_release_chunk_costs_by_its_position_not_only_by_its_sets():
    """Issue 57: a first chunk also scores the per-set metrics (and their work on the real rows, once a task), so it
    costs more per set than a refining one: measured on the first chunks alone, the quick preset's refining chunk (8
    sets) is expected to take about 1.45 times a first chunk (2 sets), not 4 times; a measured refining chunk tells the
    kind's cost in the same unit (the quick preset's ten sets in one task, 1)."""
    assert chunk_share("release:1:0-10") == 1.0 and chunk_share("aia:0") == 1.0
    first, refining = chunk_share("release:1:0-2"), chunk_share("release:1:2-10")
    assert 0.38 <= first <= 0.48 and 0.6 <= refining <= 0.7  # measured: 0.38-0.48 and 0.63-0.65 (bench/eta.md)
    plan = [Task(TaskKey(TaskKind.RELEASE, index=(level, "2-10")), (), GAMES) for level in (1, 2)]
    firsts = [finished(f"release:{level}:0-2", 4.5, 10.0 * level) for level in (1, 2)]
    costs = calibrated({"release": 1.0}, firsts)
    assert costs.kinds["release"] == pytest.approx(4.5 / first)
    assert seconds_left(plan, set(), costs.kinds, 1) == pytest.approx(2 * 4.5 * refining / first)
    assert seconds_left(plan, set(), costs.kinds, 2) == pytest.approx(4.5 * refining / first)
    refined = calibrated({"release": 1.0}, [*firsts, finished("release:1:2-10", 4.5 * refining / first, 40.0)])
    assert refined.kinds["release"] == pytest.approx(4.5 / first)
    # the paper's sizes (TSTR on all 50 sets): the last 40 sets cost 40 TSTR sets
    paper = (50, 50)
    assert chunk_share("release:1:10-50", paper) == pytest.approx(4.0)
    assert chunk_share("release:1:10-50", paper) / chunk_share("release:1:0-10", paper) == pytest.approx(42 / 15.5)
    assert seconds_left([Task(TaskKey(TaskKind.AIA, index=(0,)), (0,), GAMES)], set(), {"aia": 3.0}, 1) == 3.0


# -- a busy machine ------------------------------------------------------------------------------------------------
def test_a_busy_machine_shares_its_cores_and_the_estimate_says_so(tmp_path):
    assert busy_factor(None, 2, 2) == busy_factor(0.0, 2, 2) == 1.0
    assert busy_factor(2.0, 2, 2) == pytest.approx(2.0)  # two CPU-bound processes beside two workers: half a core
    assert busy_factor(33.0, 2, 2) == pytest.approx(17.5)
    store, plan = Store(tmp_path), plan_with_levels(3)
    quiet = before_start(store, plan, 700, 27, 2, load=(0.3, 2))
    busy = before_start(store, plan, 700, 27, 2, load=(4.0, 2))
    assert busy.seconds == pytest.approx(3.0 * estimate(store, plan, 700, 27, 2)[0])
    assert "The machine is busy (load average 4.0 on 2 cores): the estimate assumes it stays so" in busy.sentence
    assert "busy" not in quiet.sentence and "load average 0.3 on 2 cores" in quiet.sentence
    for said in (quiet, busy):
        assert said.sentence.startswith(f"Start runs {task_total(plan, 700)} tasks on 2 worker processes; estimated "
                                        f"duration about {duration_text(said.seconds)}, each task costed from ")


def test_other_processes_slow_the_workers_by_their_niceness_and_their_share_of_the_cores():
    """Issue 56: the estimate before Start scaled by the load average, which counted niced processes as full
    competitors (4.9 times too long at load 12.6). The kernel shares the cores by weight (1024 at niceness 0, 15 at
    19), no thread getting more than a core."""
    assert slowdown([], 0, 2, 2) == 1.0 and slowdown([0, 0], 0, 2, 4) == 1.0  # cores to spare
    assert slowdown([0, 0], 0, 2, 2) == pytest.approx(2.0)  # two CPU-bound threads as eager as the workers
    niced = slowdown([19] * 10, 0, 2, 2)
    assert 1.0 < niced < 1.1 and busy_factor(10.0, 2, 2) == pytest.approx(6.0)  # what the load average said
    assert slowdown([19] * 10, 19, 2, 2) == pytest.approx(6.0)  # workers niced as much: equal shares again
    assert slowdown([-5, 0, 0], 0, 1, 2) == pytest.approx(3.0)  # the heavy one takes a whole core, 3 share the other
    assert nice_weight(0) == 1024.0 and round(nice_weight(19)) == 15 and round(nice_weight(-5)) == 3125


def test_where_the_kernel_groups_sessions_a_thread_competes_with_its_sessions_share():
    """Issue 56: beside two busy loops at niceness 19 the estimate before Start said 55 s for a sweep that took 81 s.
    With autogroups (on in most kernels) the cores are shared between sessions first, whatever the niceness inside:
    the loops' session weighs as much as the sweep's, and the two workers share their own session's weight."""
    found = [(10, 10, 19), (11, 11, 19), (12, 12, 19), (13, 13, 0), (14, 14, 5)]
    groups = {10: ("/autogroup-1", 0), 11: ("/autogroup-1", 0), 12: ("/autogroup-2", 0), 13: None,
              14: ("/autogroup-3", 19)}
    assert session_niceness(found, None) == [19, 19, 19, 0, 5]  # no groups: each its own niceness
    two, alone, kernel, niced_session = session_niceness(found, groups)[1:]
    assert session_niceness(found, groups)[0] == pytest.approx(two) == pytest.approx(as_niceness(512.0))
    assert alone == pytest.approx(0.0) and kernel == 0.0  # a loop at 19 alone in its session weighs as one at 0
    assert niced_session == pytest.approx(19.0)  # the session's own niceness counts
    assert nice_weight(as_niceness(512.0)) == pytest.approx(512.0)
    # the two loops at 19 in another session against a sweep's two workers in their own: twice as slow, not 1.03 times
    workers = as_niceness(1024.0 / 2)
    assert slowdown(session_niceness(found[:2], groups), workers, 2, 2) == pytest.approx(2.0)
    assert slowdown([19, 19], 0, 2, 2) < 1.05


def test_the_competitors_are_as_many_as_the_load_says_at_the_niceness_proc_shows():
    """One look at /proc catches a thread that mostly waits only now and then: how many compete comes from the load
    average (a minute's), their niceness from the threads seen wanting a core."""
    assert competitors([19, 19, 0], 6.2) == [0, 0, 19, 19, 19, 19]
    assert competitors([], 2.4) == [0, 0]  # none seen: as eager as anyone
    assert competitors([19], 0.3) == [] and competitors([5, 19], None) == [5, 19]


def test_before_start_weighs_the_processes_that_want_a_core_by_their_niceness(tmp_path):
    store, plan = Store(tmp_path), plan_with_levels(3)
    quiet = estimate(store, plan, 700, 27, 2)[0]
    niced = before_start(store, plan, 700, 27, 2, competing=([19] * 10, 0, 2))
    assert niced.seconds == pytest.approx(quiet * slowdown([19] * 10, 0, 2, 2)) and not niced.busy
    assert "10 other processes wanting a core, weighed by their priority, on 2 cores" in niced.sentence
    eager = before_start(store, plan, 700, 27, 2, competing=([0] * 4, 0, 2))
    assert eager.seconds == pytest.approx(3.0 * quiet) and eager.busy
    assert "The machine is busy (4 other processes wanting a core" in eager.sentence


def test_the_threads_that_want_a_core_are_read_with_their_niceness(tmp_path):
    """A CPU-bound loop at niceness 19 is found among the runnable threads, as 19; its process group can be left
    out (a sweep's worker leaves its own pool out)."""
    import subprocess
    import sys

    from tests.helpers import wait_until

    loop = subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        wait_until(lambda: (runnable_threads() or {}).get(loop.pid) == 19, "the loop is seen wanting a core", 600)
        assert loop.pid not in runnable_threads(exclude_group=loop.pid)  # its own session: its process group
        assert (0.0 if autogroup_enabled() else 19) in runnable_others()  # alone in its session: as eager as 0
        slowed, cores = machine_slowdown(2)
        assert slowed >= 1.0 and cores >= 1
    finally:
        loop.kill()
        loop.wait()


# -- first look's tasks ----------------------------------------------------------------------------------------------
def plan_with_levels(levels=6):
    keys = [{"key": f"release:{lv}:0-10", "stage": LEVELS} for lv in range(1, levels + 1)]
    keys += [{"key": "release:1:10-30", "stage": GAMES}, {"key": "aia:0", "stage": GAMES}]
    return plan_from_json(keys)


@pytest.mark.parametrize(("rows", "looks"), [(FIRST_LOOK_ROWS, 0), (2 * FIRST_LOOK_ROWS, 1),
                                             (2 * FIRST_LOOK_ROWS + 1, 6)])
def test_the_first_look_runs_a_task_per_level_shown_on_top_of_the_plan(rows, looks):
    """Six levels (a level's refining chunk is not a level): none, the lowest, or all of them (first_look.py)."""
    plan = plan_with_levels(6)
    assert first_look_tasks(plan, rows) == looks
    assert task_total(plan, rows) == len(plan) + looks


# -- estimate before Start, and the DP audit's cost --------------------------------------------------------------------
def test_an_estimate_is_at_least_the_workers_start_and_more_workers_never_take_longer(tmp_path):
    store, plan = Store(tmp_path), plan_with_levels(3)
    times = [estimate(store, plan, 700, 27, workers)[0] for workers in (1, 2, 4)]
    assert times == sorted(times, reverse=True)
    assert times[-1] > STARTUP_SECONDS
    assert estimate(store, [], 700, 27)[0] == pytest.approx(STARTUP_SECONDS)


def test_an_estimate_with_competitors_adds_their_fits_and_says_so(tmp_path):
    store = Store(tmp_path)
    sweep = config(baselines=["ctgan:quick"])
    plan = [task("baseline:ctgan:quick", GAMES)]
    without, _ = estimate(store, plan, 700, 27, 2)
    with_fits, source = estimate(store, plan, 700, 27, 2, sweep)
    fit = competitor_fits(sweep, 700, 27)["baseline:ctgan:quick"]
    assert with_fits == pytest.approx(without + fit)
    assert source.endswith("and the competitors' measured fit costs")


def test_the_dp_audit_costs_nothing_without_trials_or_a_baseline_that_claims_an_epsilon(tmp_path):
    store = Store(tmp_path)
    assert audit_seconds(store, config(baselines=["dp_vine:1"]), 700, 27) == 0.0
    assert audit_seconds(store, config(baselines=["independent"], dp_audit_trials=10), 700, 27) == 0.0


def test_the_dp_audit_costs_more_with_more_trials_and_more_for_a_competitor(tmp_path):
    store = Store(tmp_path)

    def seconds(baselines, trials):
        return audit_seconds(store, config(baselines=baselines, dp_audit_trials=trials), 700, 27)

    assert 0 < seconds(["dp_vine:1"], 4) < seconds(["dp_vine:1"], 40)
    assert seconds(["dp_vine:1"], 4) < seconds(["privbayes:1"], 4)  # plus the competitor's measured fit


# -- progress of a stored job ------------------------------------------------------------------------------------------
def test_a_job_not_planned_yet_counts_its_first_looks(tmp_path):
    store = Store(tmp_path)
    job_id = stored_job(store, status="running", details={"first_look_levels": 4})
    for level in (1, 2):
        store.add_result(job_id, f"first_look:{level}", "first_look", [], 0.5)
    info = progress(store, job_id)
    # the bar counts the whole sweep: after the looks at least the holder's fit is left, so it is never full here
    assert (info["phase"], info["done"], info["total"], info["fraction"]) == ("first look", 2, 4, 2 / 5)
    assert info["eta_seconds"] is None  # the sweep's levels and shape not recorded yet
    assert info["text"] == "running — first look: level 2 of 4"


def test_a_first_look_count_never_falls_below_the_looks_done(tmp_path):
    store = Store(tmp_path)
    job_id = stored_job(store, status="running", details={})  # the count not written yet
    store.add_result(job_id, "first_look:1", "first_look", [], 0.5)
    info = progress(store, job_id)
    assert (info["done"], info["total"], info["fraction"]) == (1, 1, 0.5)  # never a full bar: the holder is left


def test_a_planned_job_counts_its_planned_tasks_only(tmp_path):
    """The holder's fit is stored as a result but is no task of the plan: 'k of n' counts the plan's tasks."""
    store = Store(tmp_path)
    plan = [{"key": "release:1:0-10", "stage": LEVELS}, {"key": "release:2:0-10", "stage": LEVELS},
            {"key": "aia:0", "stage": GAMES}, {"key": "aia:1", "stage": GAMES}]
    job_id = stored_job(store, status="interrupted", plan=plan, total=4, workers=2)
    store.add_result(job_id, "holder", "holder", [], 1.0)
    store.add_result(job_id, "release:1:0-10", "release", [], 2.0)
    info = progress(store, job_id)
    assert (info["phase"], info["done"], info["total"], info["fraction"]) == ("sweep", 1, 4, 0.25)
    # what is left: release 2 s (measured), then two aia tasks of 6.2 s each on 2 workers (calibrated by 1); the aia
    # tasks are not measured yet: the slow end, what is said, has them at half again their expected cost
    assert info["eta_low"] == pytest.approx(2.0 + TaskKind.AIA.prior_seconds)
    assert info["eta_seconds"] == pytest.approx(2.0 + UNMEASURED_SPREAD * TaskKind.AIA.prior_seconds)
    assert info["eta_unmeasured"] == ["aia"]
    assert info["text"] == "interrupted — 1 of 4 tasks"  # no time left shown for a job nobody runs


def test_a_finished_job_has_nothing_left(tmp_path):
    store = Store(tmp_path)
    job_id = stored_job(store, status="done", plan=[{"key": "aia:0", "stage": GAMES}], total=1, workers=2)
    store.add_result(job_id, "aia:0", "aia", [], 3.0)
    info = progress(store, job_id)
    assert (info["fraction"], info["eta_seconds"], info["text"]) == (1.0, 0.0, "done — 1 of 1 tasks")


def test_a_running_jobs_time_left_counts_down_while_its_tasks_run(tmp_path, monkeypatch):
    """Between two finished tasks the time left falls as the clock runs: the running tasks' work is counted."""
    from tvs_core.jobs import progress as module

    store = Store(tmp_path)
    plan = [{"key": "aia:0", "stage": GAMES}, {"key": "aia:1", "stage": GAMES}]
    job_id = stored_job(store, status="running", plan=plan, total=2, workers=1, started=1000.0)
    monkeypatch.setattr(module.time, "time", lambda: 1002.0)
    first = progress(store, job_id)["eta_seconds"]
    monkeypatch.setattr(module.time, "time", lambda: 1004.0)
    assert progress(store, job_id)["eta_seconds"] == pytest.approx(first - 2.0)


# -- the line every view shows -----------------------------------------------------------------------------------------
def info(status, phase="sweep", done=0, total=0, eta=None):
    return {"status": status, "phase": phase, "done": done, "total": total, "eta_seconds": eta}


@pytest.mark.parametrize(("given", "text"), [
    (info("queued", "first look"), "queued — starting (fitting on a sample for a first look)"),
    (info("running", "first look"), "running — starting (fitting on a sample for a first look)"),
    (info("failed", "first look"), "failed — nothing finished yet"),
    (info("running", "first look", 3, 6), "running — first look: level 3 of 6"),
    (info("running", "first look", 2, 0), "running — first look: level 2"),
    (info("running", "sweep", 12, 35, 40.0), "running — 12 of 35 tasks, about 40 s left"),
    (info("running", "sweep", 12, 35, 600.0), "running — 12 of 35 tasks, about 10 min left"),
    (info("running", "sweep", 12, 35), "running — 12 of 35 tasks"),
    (info("cancelled", "sweep", 12, 35, 40.0), "cancelled — 12 of 35 tasks"),
])
def test_the_progress_line_in_each_phase_and_status(given, text):
    assert progress_text(given) == text
    assert "of 0" not in progress_text(given)


def test_durations_are_seconds_below_a_minute_and_a_half_then_minutes():
    assert [duration_text(s) for s in (0.0, 42.4, 89.0, 90.0, 600.0, 3600.0)] == [
        "0 s", "42 s", "89 s", "2 min", "10 min", "60 min"]


def test_a_task_on_the_training_rows_stops_growing_at_its_kinds_row_cap():
    """At 100 000 rows and more the release and baseline tasks work on capped rows (evaluation/sizes.py): rows x
    columns had them 3 to 30 times too long (bench/scale.json). The holder's fit takes every row."""
    from tvs_core.evaluation.sizes import BASELINE_ROWS, RELEASE_ROWS

    big, capped = (1_000_000.0, 27.0, 8.0), (float(RELEASE_ROWS), 27.0, 8.0)
    assert _size("release", big) == _size("release", capped) == RELEASE_ROWS * 27
    assert _size("baseline", big) == BASELINE_ROWS * 27
    assert _size("holder", big) == 1_000_000 * 27
    assert _size("release", (1000.0, 27.0, 8.0)) == 1000 * 27  # below the cap: rows x columns as before
