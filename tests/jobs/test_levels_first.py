"""Levels first (issue 27): every TVineSynth level has all its quick numbers stored before any baseline or game
result, so the scatter is complete for the levels while the games and baselines fill in."""

import pytest

from tests.helpers import TINY as TINY_PROTOCOL
from tvs_core import load_demo
from tvs_core.evaluation.records import HOLDER
from tvs_core.jobs import SweepConfig, submit
from tvs_core.jobs.plan import LEVELS, planned_tasks
from tvs_core.jobs.worker import run_job
from tvs_core.storage import Store

Y = "in_hospital_death"
TINY = {**TINY_PROTOCOL, "mia_iterations": 2}
QUICK_METRICS = {"auc_tstr", "pair_structure", "ci_overlap", "release_mab", "mia_auc"}
LATER_KINDS = {"baseline", "aia", "baseline_aia", "mia_shadow", "mia_attackers", "mia_eval", "external", "dp_audit",
               "baseline_fit", "baseline_sets", "aia_model", "aia_records", "mia_shadow_model", "mia_eval_model",
               "mia_eval_records",
               "reference_details", "release_details"}


def test_the_plan_puts_every_level_before_the_games_and_baselines():
    config = SweepConfig(response=Y, sensitive=["total_cost_eur"], baselines=["independent", "gaussian_copula"],
                         baseline_games=["aia", "mia"])
    tasks = planned_tasks(config, [1, 5, 10])
    first = [t for t in tasks if t.stage == LEVELS]
    assert {t.kind for t in first} == {"reference", "release"}
    assert {t.params[0] for t in first if t.kind == "release"} == {1, 5, 10}
    # what no scatter axis shows comes after, one task per level and one for the reference
    assert sorted(t.name for t in tasks if t.kind.endswith("_details")) == [
        "reference_details", "release_details:1", "release_details:10", "release_details:5"]
    assert all(t.stage > LEVELS for t in tasks if t.kind in LATER_KINDS)


@pytest.mark.slow
def test_every_level_has_its_quick_numbers_before_the_first_baseline_or_game_result(tmp_path):
    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]]
    store = Store(tmp_path)
    config = SweepConfig(response=Y, sensitive=["total_cost_eur"], levels=[1, 2, 3],
                         baselines=["independent", "gaussian_copula"], protocol_overrides=TINY)
    job_id = submit(store, table.head(300), config)
    assert run_job(store, job_id, n_jobs=2) == "done", store.job(job_id).error
    results = store.results(job_id)  # in the order they were stored
    kinds = [r.kind for r in results]
    first_later = min(i for i, kind in enumerate(kinds) if kind in LATER_KINDS)
    before = results[:first_later]
    refining = {r.task for r in results if r.kind == "release" and not r.task.split(":")[2].startswith("0-")}
    assert refining == {f"release:{level}:2-5" for level in (1, 2, 3)}  # issue 57: every level's first numbers,
    # then its other sets
    assert {r.kind for r in results[first_later:] if r.task not in refining} <= LATER_KINDS
    last_first = max(i for i, r in enumerate(results) if r.kind == "release" and r.task not in refining)
    assert last_first < min(i for i, r in enumerate(results) if r.task in refining)  # every first before any refined
    for level in (1, 2, 3):
        metrics = {rec["metric"] for r in before for rec in r.records
                   if rec["model"] == HOLDER and rec["level"] == level}
        assert QUICK_METRICS <= metrics, (level, QUICK_METRICS - metrics)
    assert any(r.kind == "reference" for r in before)  # the scales' anchors too
    assert before[-1].created <= results[first_later].created


@pytest.mark.slow
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_attackers_trained_in_parts_are_the_forests_of_one_task(parts):
    import numpy as np

    from tvs_core.evaluation.metrics.membership.game import train_attackers

    rng = np.random.default_rng(0)
    shadows = [{(row, level): (rng.random((6, 4)), np.r_[np.zeros(3, int), np.ones(3, int)])
                for row in (3, 7, 11) for level in (1, 2)} for _ in range(2)]
    whole = train_attackers(shadows, 5)
    x = rng.random((5, 4))
    merged = {}
    for part in range(parts):
        rows = [3, 7, 11][part::parts]
        merged |= train_attackers([{k: v for k, v in s.items() if k[0] in rows} for s in shadows], 5)
    assert set(merged) == set(whole)
    for key, forest in whole.items():
        assert (merged[key].predict_proba(x) == forest.predict_proba(x)).all()


def test_a_job_planned_before_the_details_tasks_does_not_score_its_details_twice():
    """Resumed after an upgrade, a job whose release task for level 5 (and reference) stored every metric runs no
    details task for them; level 10's release task had not run, so its details are still scored."""
    from tvs_core.evaluation.records import record
    from tvs_core.jobs.plan import scored_earlier
    from tvs_core.jobs.tasks import StoredTask

    def result(task, kind, metrics):
        return StoredTask(task, kind, tuple(record("tvinesynth", 5, m, 0.5) for m in metrics), 1.0, 0.0, None)

    results = [result("holder", "holder", []),
               result("reference", "reference", ["auc_trtr", "singling_out_risk"]),
               result("release:5:0-10", "release", ["auc_tstr", "pair_structure", "alpha_precision"]),
               # planned with the split: the scatter's part holds a membership attack's metric that is no axis
               result("release:1:0-10", "release", ["auc_tstr", "pair_structure", "mia_attack_auc"]),
               result("aia:0", "aia", ["mab"])]
    assert scored_earlier(results) == {"reference_details", "release_details:5"}
