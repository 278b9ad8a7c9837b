"""tvs_core/jobs/plan.py: the tasks of a sweep, their order and stages, known before any fit (``planned_tasks``)."""

from collections import Counter
from dataclasses import replace

import pytest

from tests.helpers import TINY
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import HOLDER, record
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.config import baseline_spec
from tvs_core.jobs.plan import (
    ATTACKER_PARTS,
    FIRST_SETS,
    audited,
    baseline_set_chunks,
    claimed_epsilons,
    fit_threads,
    plan,
    planned_tasks,
    release_chunks,
    release_tasks,
    scored_earlier,
    scored_whole,
)
from tvs_core.jobs.tasks import (
    ATTACKERS,
    EVALUATIONS,
    GAMES,
    LEVELS,
    StoredTask,
    TaskKind,
    reads_from,
    run_task,
    still_needed,
    waits_for,
)

Y = "y"


def config(**changes):
    base = dict(response=Y, sensitive=["income"], baselines=["independent"], protocol_overrides=TINY)
    return SweepConfig(**{**base, **changes})


def kinds(tasks):
    return Counter(task.kind for task in tasks)


def stored_task(key: str, kind: str, metrics=()) -> StoredTask:
    """A finished task as the store hands it back, its records holding ``metrics``."""
    return StoredTask(key, kind, tuple(record("tvinesynth", 1, m, 0.5) for m in metrics), 1.0, 0.0, None)


# -- release_chunks, release_tasks -----------------------------------------------------------------------------------
def test_the_quick_preset_scores_a_first_chunk_of_two_sets_then_refines_them():
    """Every level's first numbers rest on FIRST_SETS sets (the fewest with a spread); the rest of max(5 utility, 10
    release, 5 distance) sets refines them; together the chunks cover every set once."""
    assert FIRST_SETS == 2
    assert release_chunks(QUICK) == [(0, 2), (2, 10)]


def test_more_sets_than_the_quick_preset_are_first_numbers_then_the_quick_numbers_then_the_rest():
    assert release_chunks(replace(QUICK, release_sets=40, utility_sets=25)) == [(0, 2), (2, 10), (10, 40)]


def test_fewer_sets_than_the_distance_metrics_need_still_draw_those():
    assert release_chunks(replace(QUICK, release_sets=2, utility_sets=1)) == [(0, 2), (2, 5)]  # DISTANCE_SETS = 5
    assert release_chunks(replace(QUICK, **TINY)) == [(0, 2), (2, 5)]  # the test suite's sizes


def test_every_levels_first_chunk_comes_before_any_levels_refining_chunk_and_the_next_chunk_before_the_one_after():
    firsts, refining = release_tasks([1, 5, 9], replace(QUICK, release_sets=40))
    assert [t.name for t in firsts] == ["release:1:0-2", "release:5:0-2", "release:9:0-2"]
    assert [t.name for t in refining] == ["release:1:2-10", "release:5:2-10", "release:9:2-10",
                                          "release:1:10-40", "release:5:10-40", "release:9:10-40"]
    assert {t.stage for t in firsts} == {LEVELS} and {t.stage for t in refining} == {GAMES}


def test_a_job_stored_with_the_earlier_chunks_keeps_them_and_scores_only_the_sets_they_leave():
    """Before the first chunks, the quick preset scored a level's ten sets in one task and the paper preset ten, then
    forty: resumed now, a level with such a chunk stored scores no set twice; a level with nothing stored gets this
    version's chunks (the sets are seeded by index, so the numbers are the same)."""
    quick = [t.name for t in sum(release_tasks([1, 5], QUICK, {"holder", "release:1:0-10", "aia:0"}), [])]
    assert quick == ["release:1:0-10", "release:5:0-2", "release:5:2-10"]
    paper = [t.name for t in sum(release_tasks([1], replace(QUICK, release_sets=50, utility_sets=50),
                                               {"release:1:0-10"}), [])]
    assert paper == ["release:1:0-10", "release:1:10-50"]  # as the earlier plan had it
    assert [t.name for t in sum(release_tasks([1], QUICK, {"release:1:0-2"}), [])] == [
        "release:1:0-2", "release:1:2-10"]  # this version's own chunks: nothing changes


# -- plan (through planned_tasks, the plan known before the holder's fit) ------------------------------------------
def test_every_task_key_is_unique_and_the_holders_fit_is_stage_0():
    tasks = planned_tasks(config(baselines=["independent", "dp_vine:1"], baseline_games=["aia", "mia"],
                                 dp_audit_trials=3), [1, 2, 3])
    names = [task.name for task in tasks]
    assert len(names) == len(set(names))
    assert [task.name for task in tasks if task.stage == 0] == ["holder"]


def test_the_number_of_each_kind_follows_the_protocol_sizes():
    """TINY: 2 aia iterations, 2 shadows, 1 membership evaluation, 5 sets a level (two chunks: the first numbers, then
    the rest); 3 levels; one sensitive column of 4
    targets (2 outliers, 2 random: a game's iteration fits 5 models); one baseline that plays no game."""
    tasks = planned_tasks(config(), [1, 2, 3])
    assert kinds(tasks) == {TaskKind.HOLDER: 1, TaskKind.REFERENCE: 1, TaskKind.RELEASE: 6,
                            TaskKind.REFERENCE_DETAILS: 1, TaskKind.RELEASE_DETAILS: 3, TaskKind.BASELINE_FIT: 1,
                            TaskKind.BASELINE_SETS: 5, TaskKind.AIA_MODEL: 2 * 5, TaskKind.AIA_RECORDS: 2,
                            TaskKind.MIA_SHADOW_MODEL: 2 * 5, TaskKind.MIA_ATTACKERS: ATTACKER_PARTS,
                            TaskKind.MIA_EVAL_MODEL: 1 * 5, TaskKind.MIA_EVAL_RECORDS: 1}


def test_a_task_reads_only_from_an_earlier_stage_and_each_kind_has_its_stage():
    """A backend that runs stage after stage (Ray's) finds every input stored."""
    tasks = planned_tasks(config(baselines=["independent"], baseline_games=["aia", "mia"], dp_audit_trials=2), [1, 4])
    for task in tasks:
        assert all(read.stage < task.stage for read in reads_from(task, tasks)), task
        assert all(earlier.stage < task.stage for earlier in waits_for(task, tasks)), task
    stage_of = {task.kind: task.stage for task in tasks if task.kind != TaskKind.RELEASE}
    assert stage_of[TaskKind.REFERENCE] == LEVELS
    assert {(task.params[1], task.stage) for task in tasks if task.kind == TaskKind.RELEASE} == {(0, LEVELS),
                                                                                               (2, GAMES)}
    assert {stage_of[k] for k in (TaskKind.AIA_MODEL, TaskKind.MIA_SHADOW_MODEL, TaskKind.BASELINE_FIT,
                                  TaskKind.RELEASE_DETAILS)} == {GAMES}
    assert stage_of[TaskKind.MIA_ATTACKERS] == stage_of[TaskKind.AIA_RECORDS] == ATTACKERS
    assert stage_of[TaskKind.BASELINE_SETS] == ATTACKERS
    assert stage_of[TaskKind.MIA_EVAL_MODEL] == EVALUATIONS and stage_of[TaskKind.MIA_EVAL_RECORDS] == EVALUATIONS + 1


def test_every_level_comes_first_and_the_plan_ends_on_the_short_details_tasks():
    """Levels first; the details tasks are short: put last, no worker waits long for another at the end."""
    tasks = planned_tasks(config(baselines=["independent", "dp_vine:1"]), [1, 2])
    assert {t.stage for t in tasks[:4]} == {0, LEVELS} and all(t.stage > LEVELS for t in tasks[4:])
    assert [t.kind for t in tasks[-3:]] == [TaskKind.REFERENCE_DETAILS, TaskKind.RELEASE_DETAILS,
                                            TaskKind.RELEASE_DETAILS]


def test_what_a_chain_of_tasks_waits_on_comes_before_the_bulk_and_the_long_fits_before_the_games():
    """A free worker starts the first ready task in plan order: an iteration's records, the attackers and the
    evaluations' models go as soon as their inputs are stored; then the baselines' fits; then the games' models,
    the membership game's (the longest chain) first."""
    tasks = planned_tasks(config(baselines=["independent"]), [1, 2])
    order = list(dict.fromkeys(t.kind for t in tasks if t.stage > LEVELS))
    chain = {TaskKind.MIA_EVAL_RECORDS, TaskKind.MIA_EVAL_MODEL, TaskKind.MIA_ATTACKERS, TaskKind.AIA_RECORDS,
             TaskKind.BASELINE_SETS}
    assert set(order[:len(chain)]) == chain
    assert order[len(chain):len(chain) + 3] == [TaskKind.BASELINE_FIT, TaskKind.MIA_SHADOW_MODEL, TaskKind.AIA_MODEL]


def test_a_games_iteration_is_its_out_model_then_one_in_model_per_target_row():
    tasks = planned_tasks(config(), [1])  # placeholders for the 4 targets' rows before they are chosen
    assert [t.name for t in tasks if t.kind == TaskKind.AIA_MODEL and t.key.index[0] == 1] == [
        "aia_model:1:out", "aia_model:1:0", "aia_model:1:1", "aia_model:1:2", "aia_model:1:3"]
    iteration = next(t for t in tasks if t.name == "aia_records:1")
    assert [t.name for t in reads_from(iteration, tasks)] == [f"aia_model:1:{m}" for m in ("out", 0, 1, 2, 3)]
    evaluation = next(t for t in tasks if t.name == "mia_eval_records:0")
    assert [t.name for t in reads_from(evaluation, tasks)] == [f"mia_eval_model:0:{m}" for m in ("out", 0, 1, 2, 3)]


def test_the_plan_of_a_fitted_holder_has_one_in_model_per_distinct_target_row():
    from tvs_core.jobs.plan import PlanInputs, plan

    # three targets on two rows (row 9 a target for two columns): one IN model per row
    context = PlanInputs(config(games=["aia", "mia"], baselines=[]), [1],
                         replace(QUICK, aia_iterations=1, mia_iterations=1, mia_shadows=1), [], (), [2, 9])
    tasks = plan(context)
    assert [t.name for t in tasks if t.kind == TaskKind.AIA_MODEL] == ["aia_model:0:out", "aia_model:0:2",
                                                                       "aia_model:0:9"]
    assert [t.name for t in tasks if t.kind == TaskKind.MIA_SHADOW_MODEL] == [
        "mia_shadow_model:0:out", "mia_shadow_model:0:2", "mia_shadow_model:0:9"]
    unshared = plan(replace(context, protocol=replace(context.protocol, mia_shared_shadows=False)))
    assert [t.name for t in unshared if t.kind == TaskKind.MIA_SHADOW_MODEL] == [  # each row's part fits its OUT
        "mia_shadow_model:0:2", "mia_shadow_model:0:9"]


@pytest.mark.parametrize("part", [0, 1])
def test_an_attackers_part_reads_the_shadows_out_models_and_the_in_models_of_its_rows(part):
    tasks = planned_tasks(config(), [1])
    attackers = next(t for t in tasks if t.name == f"mia_attackers:{part}")
    read = [t.name for t in reads_from(attackers, tasks)]
    rows = [0, 2] if part == 0 else [1, 3]  # every ATTACKER_PARTS-th row, as handlers.mia_attackers trains them
    assert read == [f"mia_shadow_model:{s}:{m}" for s in range(TINY["mia_shadows"]) for m in ("out", *rows)]


def test_a_baselines_sets_are_scored_one_costly_set_a_chunk_then_five_at_a_time_each_set_once():
    assert baseline_set_chunks(QUICK) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 10)]
    paper = replace(QUICK, utility_sets=50, release_sets=50)
    chunks = baseline_set_chunks(paper)
    assert [s for a, b in chunks for s in range(a, b)] == list(range(50))
    assert chunks[4:6] == [(4, 5), (5, 10)]
    assert baseline_set_chunks(replace(QUICK, utility_sets=2, release_sets=3)) == [(0, 1), (1, 2), (2, 3), (3, 4),
                                                                                   (4, 5)]


def test_a_baselines_sets_wait_for_its_fit_which_uses_more_threads_on_more_workers():
    from tvs_core.jobs.plan import FIT_THREADS_PER, PlanInputs, plan

    tasks = planned_tasks(config(baselines=["independent", "rvine"]), [1])
    for task in (t for t in tasks if t.kind == TaskKind.BASELINE_SETS):
        assert [t.name for t in reads_from(task, tasks)] == [f"baseline_fit:{task.player}"]
    assert {t.params for t in tasks if t.kind == TaskKind.BASELINE_FIT} == {(1,)}
    assert fit_threads(2) == 1 and fit_threads(FIT_THREADS_PER * 8) == 8
    sweep = config(baselines=["rvine"])
    context = PlanInputs(replace(sweep, games=["release"]), [1], QUICK,
                         [baseline_spec(name, sweep) for name in sweep.baselines], (), list(range(4)))
    assert {t.params for t in plan(context, workers=64) if t.kind == TaskKind.BASELINE_FIT} == {(fit_threads(64),)}


def test_a_resumed_job_runs_no_model_whose_iteration_is_stored_and_no_set_of_a_whole_baseline():
    tasks = planned_tasks(config(baselines=["independent"], baseline_games=["aia"]), [1])
    done = {"aia_records:0", "mia_attackers:0", "mia_attackers:1"}
    left = {t.name for t in still_needed(tasks, done)}
    assert not any(name.startswith(("aia_model:0:", "mia_shadow_model:")) for name in left)
    assert {"aia_model:1:out", "aia_records:independent:0", "aia_model:independent:0:out"} <= left
    assert "mia_eval_model:0:out" in left  # the evaluations still read the stored attackers
    whole = [stored_task("baseline:independent", "baseline")]
    assert scored_whole(whole, tasks) == {t.name for t in tasks if t.player == "independent" and t.kind in (
        TaskKind.BASELINE_FIT, TaskKind.BASELINE_SETS)}


def test_a_job_begun_before_the_games_were_split_scores_no_stored_iteration_again():
    """Earlier versions stored a game's iteration whole (``aia:1``, ``baseline_aia:independent:0``, ``mia_eval:0``):
    resumed now, those iterations' records are not scored again, nor their models fitted."""
    tasks = planned_tasks(config(baselines=["independent"], baseline_games=["aia"]), [1])
    stored = [stored_task(key, key.split(":")[0])
              for key in ("aia:1", "baseline_aia:independent:0", "mia_eval:0")]
    skipped = scored_whole(stored, tasks)
    assert skipped == {"aia_records:1", "aia_records:independent:0", "mia_eval_records:0"}
    left = {t.name for t in still_needed([t for t in tasks if t.name not in skipped], set())}
    assert not any(name.startswith(("aia_model:1:", "aia_model:independent:0:", "mia_eval_model:0:"))
                   for name in left)
    assert "aia_records:0" in left and "aia_model:0:out" in left


def test_a_release_task_carries_its_level_and_its_chunk_of_sets():
    tasks = planned_tasks(config(protocol_overrides={**TINY, "release_sets": 30}), [2, 7])
    releases = [(t.name, t.stage, t.params[:3]) for t in tasks if t.kind == TaskKind.RELEASE]
    assert releases == [("release:2:0-2", LEVELS, (2, 0, 2)), ("release:7:0-2", LEVELS, (7, 0, 2)),
                        ("release:2:2-10", GAMES, (2, 2, 10)), ("release:7:2-10", GAMES, (7, 2, 10)),
                        ("release:2:10-30", GAMES, (2, 10, 30)), ("release:7:10-30", GAMES, (7, 10, 30))]


def test_without_the_release_game_no_level_is_scored_but_the_reference_is():
    tasks = planned_tasks(config(games=["aia", "mia"]), [1, 2])
    assert not {TaskKind.RELEASE, TaskKind.RELEASE_DETAILS, TaskKind.BASELINE_FIT} & set(kinds(tasks))
    assert {TaskKind.REFERENCE, TaskKind.REFERENCE_DETAILS, TaskKind.AIA_RECORDS, TaskKind.MIA_EVAL_RECORDS} <= set(
        kinds(tasks))


def test_release_only_plays_no_game():
    found = set(kinds(planned_tasks(config(games=["release"]), [1])))
    assert not found & {TaskKind.AIA_RECORDS, TaskKind.AIA_MODEL, TaskKind.MIA_SHADOW_MODEL, TaskKind.MIA_ATTACKERS,
                        TaskKind.MIA_EVAL_MODEL, TaskKind.MIA_EVAL_RECORDS}


def test_baselines_play_the_membership_game_with_their_own_shadows_attackers_and_evaluations():
    tasks = planned_tasks(config(baselines=["independent", "gaussian_copula"], baseline_games=["mia"]), [1])
    for kind, per_player in ((TaskKind.MIA_SHADOW_MODEL, TINY["mia_shadows"] * 5),
                             (TaskKind.MIA_ATTACKERS, ATTACKER_PARTS),
                             (TaskKind.MIA_EVAL_RECORDS, TINY["mia_iterations"])):
        players = Counter(task.player for task in tasks if task.kind == kind)
        assert players == {HOLDER: per_player, "independent": per_player, "gaussian_copula": per_player}
    assert not any(task.kind == TaskKind.AIA_MODEL and task.player != HOLDER for task in tasks)  # only "mia" asked


def test_baselines_play_the_attribute_game_once_per_iteration():
    tasks = planned_tasks(config(baselines=["independent"], baseline_games=["aia"]), [1])
    assert sorted(t.name for t in tasks if t.kind == TaskKind.AIA_RECORDS and t.player != HOLDER) == [
        "aia_records:independent:0", "aia_records:independent:1"]
    assert {t.player for t in tasks if t.kind == TaskKind.MIA_SHADOW_MODEL} == {HOLDER}
    assert {t.player for t in tasks if t.kind == TaskKind.AIA_MODEL} == {HOLDER, "independent"}


def test_an_external_set_is_one_task_named_by_its_set():
    tasks = planned_tasks(config(externals={"mine": "f" * 64}), [1])
    assert [(t.name, t.stage) for t in tasks if t.kind == TaskKind.EXTERNAL] == [("external:mine", GAMES)]


def test_the_dp_audit_fits_each_baseline_that_claims_an_epsilon_once_per_trial():
    tasks = planned_tasks(config(baselines=["independent", "dp_vine:1", "dp_vine:10"], dp_audit_trials=3), [1])
    audits = [t for t in tasks if t.kind == TaskKind.DP_AUDIT]
    assert {t.name for t in audits} == {f"dp_audit:dp_vine:{e}:{t}" for e in (1, 10) for t in range(3)}
    assert len(audits) == 6
    assert all(t.params[1] == 3 for t in audits)  # each fit knows how many the audit has
    no_audit = planned_tasks(config(baselines=["dp_vine:1"]), [1])
    assert not any(t.kind == TaskKind.DP_AUDIT for t in no_audit)


def test_competitors_are_planned_before_the_other_baselines_the_longest_fit_first():
    """A competitor's fit takes minutes: started last, it would leave one worker idle while it runs."""
    tasks = planned_tasks(config(baselines=["independent", "privbayes:1", "ctgan:quick", "ctgan"]), [1])
    baselines = [t.player for t in tasks if t.kind in (TaskKind.BASELINE, TaskKind.BASELINE_FIT)]
    assert baselines[-1] == "independent"
    assert baselines[:3] == ["ctgan", "ctgan:quick", "privbayes:1"]  # 300 epochs, a short epoch budget, no epochs
    first_game = min(i for i, t in enumerate(tasks) if t.kind == TaskKind.AIA_MODEL)
    assert max(i for i, t in enumerate(tasks) if t.player == "ctgan") < first_game
    # a competitor cannot be saved: fitted and scored in one task; a vine's fit hands its model to its sets' tasks
    assert {t.kind for t in tasks if t.player.startswith(("ctgan", "privbayes"))} == {TaskKind.BASELINE}
    assert {t.kind for t in tasks if t.player == "independent"} == {TaskKind.BASELINE_FIT, TaskKind.BASELINE_SETS}


def test_no_level_gives_a_plan_without_release_tasks_not_an_error():
    tasks = planned_tasks(config(), [])
    assert not any(t.kind in (TaskKind.RELEASE, TaskKind.RELEASE_DETAILS) for t in tasks)
    assert any(t.kind == TaskKind.REFERENCE for t in tasks)


# -- audited, claimed_epsilons -------------------------------------------------------------------------------------
def test_only_the_baselines_that_claim_an_epsilon_are_audited():
    sweep = config(baselines=["independent", "dp_vine:0.5", "gaussian_copula", "privbayes:2"])
    specs = [baseline_spec(name, sweep) for name in sweep.baselines]
    assert [spec.label for spec in audited(specs)] == ["dp_vine:0.5", "privbayes:2"]


def test_claimed_epsilons_read_each_dp_baselines_budget_by_name():
    sweep = config(baselines=["independent", "dp_vine:0.1", "dp_vine:10", "mst:2.5"])
    assert claimed_epsilons(sweep) == {"dp_vine:0.1": 0.1, "dp_vine:10": 10.0, "mst:2.5": 2.5}
    assert claimed_epsilons(config(baselines=[])) == {}


# -- scored_earlier ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["aia", "baseline", "release_details"])
def test_only_a_release_or_reference_result_can_have_scored_the_details_earlier(kind):
    """A game's or a baseline's records holding a details metric's name are no release task's details."""
    result = stored_task(f"{kind}:1" if kind != "baseline" else "baseline:independent", kind, ["singling_out_risk"])
    assert scored_earlier([result]) == set()
    assert scored_earlier([replace(result, task="reference", kind="reference")]) == {"reference_details"}  # control


# -- the refined numbers are those of one chunk per level --------------------------------------------------------------
@pytest.fixture(scope="module")
def small_context():
    from tvs_core import load_demo
    from tvs_core.jobs.context import context_for_job

    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm",
                                   "in_hospital_death"]].head(300)
    sweep = SweepConfig(response="in_hospital_death", sensitive=["total_cost_eur"], levels=[3], baselines=[])
    context = context_for_job(sweep, table, None)
    reference = next(t for t in plan(context) if t.kind == TaskKind.REFERENCE)
    return sweep, context, run_task(reference, context)[0]  # the scales' anchors, for the summary


@pytest.mark.parametrize("sizes", [pytest.param({}, id="quick: two chunks"),
                                   pytest.param({"utility_sets": 12, "release_sets": 13}, id="three chunks",
                                                marks=pytest.mark.slow)])
def test_the_refined_numbers_after_first_chunks_are_the_bytes_of_one_chunk_per_level(small_context, sizes):
    """Issue 57: every level's first numbers from its first FIRST_SETS sets, then the rest; the records and the
    summary (summary.json) once every chunk has reported are those of a plan that scores each level's sets in one
    task, byte for byte (the sets, TSTR's forests and every per-set metric are seeded by the set's index)."""
    import json

    from tvs_core.choice.summary import summary_json
    from tvs_core.evaluation.records import to_frame
    from tvs_core.evaluation.release import SCATTER
    from tvs_core.jobs.tasks import Task, TaskKey

    sweep, context, reference = small_context
    context = replace(context, protocol=replace(context.protocol, **sizes))
    chunked = [t for t in plan(context) if t.kind == TaskKind.RELEASE]
    n_sets = release_chunks(context.protocol)[-1][1]
    whole = [Task(TaskKey(TaskKind.RELEASE, index=(level, f"0-{n_sets}")), (level, 0, n_sets, SCATTER), LEVELS)
             for level in context.levels]
    assert len(chunked) == len(release_chunks(context.protocol)) * len(whole) > len(whole)

    def records(tasks):
        return to_frame(reference + [r for task in tasks for r in run_task(task, context)[0]])

    by_chunks, at_once = records(chunked), records(whole)
    assert by_chunks.to_csv() == at_once.to_csv()
    assert json.dumps(summary_json(by_chunks, sweep.sensitive)) == json.dumps(summary_json(at_once, sweep.sensitive))
