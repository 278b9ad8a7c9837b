"""tvs_core/jobs/handlers.py: each task kind's handler reads its task's params and player as the plan writes them, and
hands the right rows, levels and payloads on. The computations behind them (release metrics, games, forests) are
replaced by recorders here; their numbers are tested in tests/evaluation/ and by the sweeps in this folder."""

from types import SimpleNamespace

import numpy as np
import pytest

from tests.helpers import TINY
from tvs_core.evaluation.forests import RandomForestClassifier
from tvs_core.evaluation.records import HOLDER, RAW, record
from tvs_core.evaluation.release import DETAILS, DISTANCE_SETS, SCATTER
from tvs_core.jobs import SweepConfig, handlers
from tvs_core.jobs.payloads import attackers_from_payload, attackers_payload, shadows_from_payload, shadows_payload
from tvs_core.jobs.plan import planned_tasks
from tvs_core.jobs.tasks import Task, TaskKey, TaskKind, run_task

ROWS = (11, 3, 7)  # the targets' training rows, not in order


def fake_context():
    specs = {name: SimpleNamespace(label=name) for name in ("independent", "dp_vine:1")}
    return SimpleNamespace(spec=SimpleNamespace(label=HOLDER), levels=[1, 2], baseline=specs.__getitem__,
                           holder="holder model", data="data", protocol="protocol", sensitive=["income"], seed=7,
                           externals={"mine": np.zeros((4, 3))}, attacker_rows="attacker rows",
                           feature_set="correlations",
                           targets=[SimpleNamespace(row=r, attribute=a) for r in ROWS for a in ("income", "age")])


@pytest.fixture
def calls(monkeypatch):
    """Every computation a handler calls, replaced by one that records its arguments and returns a raw and a
    holder record."""
    seen = []

    def recorder(name):
        def call(*args, **kwargs):
            seen.append((name, args, kwargs))
            return [record(RAW, None, "mab", 0.0), record(HOLDER, None, "mab", 0.0)]
        return call

    for name in ("reference_records", "release_records", "published_records", "trial_records", "aia_iteration"):
        monkeypatch.setattr(handlers, name, recorder(name))
    monkeypatch.setattr(handlers, "fit_baseline", lambda spec, data, seed: f"fitted {spec.label}")
    monkeypatch.setattr(handlers.membership, "mia_shadow_task",  # features that say which shadow made them
                        lambda spec, data, targets, levels, protocol, seed, shadow, *rest: {
                            (row, level): (np.full((2, 3), float(shadow)), np.array([0, 1]))
                            for row in ROWS for level in levels})
    monkeypatch.setattr(handlers.membership, "train_attackers",  # a forest per (row, level) of the shadows given
                        lambda shadows, seed: {key: forest(key[0]) for shadow in shadows for key in shadow})
    monkeypatch.setattr(handlers.membership, "mia_evaluation_task",
                        lambda *args: seen.append(("mia_evaluation_task", args, {})) or [])
    return seen


def forest(seed):
    """A small fitted forest; its seed tells it apart."""
    rng = np.random.default_rng(seed)
    return RandomForestClassifier(n_estimators=2, n_jobs=1, random_state=seed).fit(rng.random((6, 4)),
                                                                                   np.r_[[0] * 3, [1] * 3])


def task(key, *params):
    return Task(TaskKey.parse(key), params)


def test_the_holder_plays_its_levels_and_a_baseline_plays_once_without_a_level():
    context = fake_context()
    assert handlers._player(task("aia:0", 0), context) == (context.spec, [1, 2])
    spec, levels = handlers._player(task("aia:dp_vine:1:0", 0), context)
    assert (spec.label, levels) == ("dp_vine:1", [None])


def test_a_reference_task_scores_its_part_and_one_planned_without_a_part_scores_everything(calls):
    context = fake_context()
    handlers.reference(task("reference", SCATTER), context, [])
    handlers.reference(task("reference"), context, [])  # a plan stored before the details tasks existed
    handlers.reference_details(task("reference_details"), context, [])
    assert [kwargs["part"] for _, _, kwargs in calls] == [SCATTER, None, DETAILS]


def test_a_release_task_scores_its_level_on_its_chunk_of_sets(calls):
    context = fake_context()
    handlers.release(task("release:2:10-30", 2, 10, 30, SCATTER), context, [])
    handlers.release(task("release:2:0-10", 2, 0, 10), context, [])
    handlers.release_details(task("release_details:2", 2), context, [])
    assert [(args[0], args[2], kwargs["chunk"], kwargs["part"]) for _, args, kwargs in calls] == [
        ("holder model", 2, (10, 30), SCATTER), ("holder model", 2, (0, 10), None),
        ("holder model", 2, (0, DISTANCE_SETS), DETAILS)]  # the details: on the sets the distance metrics score


def test_a_baseline_is_fitted_and_its_release_scored_without_a_level_under_its_own_name(calls):
    handlers.baseline(task("baseline:dp_vine:1"), fake_context(), [])
    (_, args, _), = calls
    assert args[0] == "fitted dp_vine:1" and args[2] is None and args[-1] == "dp_vine:1"


def test_an_external_set_is_scored_as_one_published_set_under_its_name(calls):
    handlers.external(task("external:mine"), fake_context(), [])
    (_, args, _), = calls
    assert args[0].shape == (1, 4, 3)  # one set of its rows
    assert args[2] is None and args[-1] == "mine"


def test_a_dp_audit_task_is_one_trial_of_its_baseline(calls):
    handlers.dp_audit(task("dp_audit:dp_vine:1:3", 3, 80), fake_context(), [])
    (_, args, _), = calls
    assert args[0].label == "dp_vine:1" and args[-2:] == (3, 80)


def test_the_raw_reference_of_the_attribute_game_comes_with_the_holders_task_only(calls):
    """A baseline plays on the holder's subsets and targets: the raw attack on the real rows would be a second copy
    of the holder's, counted twice in its interval."""
    context = fake_context()
    holder, _ = handlers.aia(task("aia:1", 1), context, [])
    baseline, _ = handlers.aia(task("baseline_aia:independent:1", 1), context, [])
    assert {r.model for r in holder} == {RAW, HOLDER}
    assert {r.model for r in baseline} == {HOLDER}
    assert [args[-2] for _, args, _ in calls] == [1, 1]  # the iteration


def test_a_shadow_task_stores_no_record_and_its_shadows_as_payload(calls):
    records, payload = handlers.mia_shadow(task("mia_shadow:dp_vine:1:3", 3), fake_context(), [])
    assert records == []
    shadows = shadows_from_payload(payload)
    assert list(shadows) == [(row, None) for row in ROWS]  # a baseline's shadows, without a level
    assert all((features == 3).all() for features, _ in shadows.values())


def shadows(seed):
    rng = np.random.default_rng(seed)
    labels = np.r_[np.zeros(3, int), np.ones(3, int)]
    return shadows_payload({(row, level): (rng.random((6, 4)), labels) for row in ROWS for level in (1, 2)})


@pytest.mark.parametrize(("part", "parts", "rows"), [(0, 2, {3, 11}), (1, 2, {7}), (0, 1, {3, 7, 11})])
def test_an_attackers_part_trains_every_parts_th_target_row_in_row_order(calls, part, parts, rows):
    """Rows sorted, then every ``parts``-th: the parts share out the target rows, each exactly once."""
    _, payload = handlers.mia_attackers(task(f"mia_attackers:{part}", part, parts), fake_context(),
                                        [shadows(0), shadows(1)])
    assert {row for row, _ in attackers_from_payload(payload)} == rows


def test_attackers_planned_without_parts_are_trained_in_one_task(calls):
    _, payload = handlers.mia_attackers(task("mia_attackers:0"), fake_context(), [shadows(0)])
    assert {row for row, _ in attackers_from_payload(payload)} == set(ROWS)


def test_an_evaluation_reads_every_attackers_part_merged(calls):
    forests = {key: forest(key[0]) for key in ((3, 1), (7, 1), (11, 1))}
    parts = [attackers_payload({(3, 1): forests[3, 1]}), attackers_payload({(7, 1): forests[7, 1],
                                                                            (11, 1): forests[11, 1]})]
    handlers.mia_eval(task("mia_eval:0", 0), fake_context(), parts)
    (_, args, _), = calls
    assert args[2] is not None and args[4] == "protocol" and args[6] == 0
    assert list(args[7]) == [(3, 1), (7, 1), (11, 1)]
    x_new = np.random.default_rng(0).random((5, 4))
    for key, read in args[7].items():
        np.testing.assert_array_equal(read.predict_proba(x_new), forests[key].predict_proba(x_new))


def test_every_planned_task_is_read_by_its_handler(calls):
    """Every kind the plan writes, with the params it writes them with, is run by its handler (the holder's fit
    aside: the worker does it)."""
    config = SweepConfig(response="y", sensitive=["income"], baselines=["independent", "dp_vine:1"],
                         baseline_games=["aia", "mia"], externals={"mine": "f" * 64}, dp_audit_trials=2,
                         protocol_overrides={**TINY, "release_sets": 30})
    tasks = planned_tasks(config, [1, 2])
    context = fake_context()
    ran = set()
    for planned in tasks:
        if planned.kind.handler is None:
            with pytest.raises(ValueError, match="run by the worker itself"):
                run_task(planned, context)
            continue
        payloads = [shadows(0)] if planned.kind == TaskKind.MIA_ATTACKERS else []
        records, payload = run_task(planned, context, payloads)
        assert isinstance(records, list) and (payload is None or isinstance(payload, bytes))
        ran.add(planned.kind)
    assert ran == {kind for kind in TaskKind if kind.handler is not None}
