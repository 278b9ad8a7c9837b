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
from tvs_core.jobs.payloads import (
    attackers_from_payload,
    attackers_payload,
    model_from_payload,
    shadow_model_from_payload,
    shadow_model_payload,
    statistics_from_payload,
)
from tvs_core.jobs.plan import planned_tasks
from tvs_core.jobs.tasks import Task, TaskKey, TaskKind, reads_from, run_task

ROWS = (11, 3, 7)  # the targets' training rows, not in order


def fake_context():
    specs = {name: SimpleNamespace(label=name) for name in ("independent", "dp_vine:1", "privbayes:1")}
    return SimpleNamespace(spec=SimpleNamespace(label=HOLDER), levels=[1, 2], baseline=specs.__getitem__,
                           holder="holder model", data="data", protocol="protocol", sensitive=["income"], seed=7,
                           externals={"mine": np.zeros((4, 3))}, attacker_rows="attacker rows",
                           feature_set="correlations",
                           targets=[SimpleNamespace(row=r, attribute=a) for r in ROWS for a in ("income", "age")])


@pytest.fixture
def calls(monkeypatch):
    """Every computation a handler calls, replaced by one that records its arguments and returns a raw and a
    holder record (a game model's: statistics, features or rates that say which model made them)."""
    seen = []

    def recorder(name):
        def call(*args, **kwargs):
            seen.append((name, args, kwargs))
            return [record(RAW, None, "mab", 0.0), record(HOLDER, None, "mab", 0.0)]
        return call

    for name in ("reference_records", "release_records", "published_records", "trial_records"):
        monkeypatch.setattr(handlers, name, recorder(name))
    monkeypatch.setattr(handlers.attribute_game, "aia_records", recorder("aia_records"))
    monkeypatch.setattr(handlers, "fit_baseline", lambda spec, data, seed, threads=1: SimpleNamespace(
        to_json=lambda: f"fitted {spec.label} on {threads} threads"))
    monkeypatch.setattr(handlers, "SyntheticGenerator", SimpleNamespace(from_json=lambda text: f"read {text}"))

    def statistics(spec, data, targets, levels, protocol, seed, iteration, sensitive, row=None):
        seen.append(("statistics", (spec.label, levels, iteration, row), {}))
        return {level: {("fit", "income", None): (np.full((2, 3), float(iteration)), np.zeros(2))}
                for level in levels}

    monkeypatch.setattr(handlers.attribute_game, "aia_out_statistics", statistics)
    monkeypatch.setattr(handlers.attribute_game, "aia_in_statistics", statistics)
    monkeypatch.setattr(handlers.membership, "shadow_model_features",  # features that say which model made them
                        lambda spec, data, levels, protocol, seed, shadow, rows, row, *rest: {
                            (which, level): np.full((2, 3), float(shadow)) for level in levels
                            for which in (("out",) if row is None else ("in",))})
    monkeypatch.setattr(handlers.membership, "train_attackers",  # a forest per (row, level) of the shadows given
                        lambda shadows, seed: {key: forest(key[0]) for shadow in shadows for key in shadow})
    monkeypatch.setattr(handlers.membership, "eval_out_rates",
                        lambda spec, data, targets, levels, protocol, seed, iteration, attackers, *rest: {
                            (row, level): 0.25 for row, level in attackers})
    monkeypatch.setattr(handlers.membership, "eval_in_rates",
                        lambda spec, data, targets, levels, protocol, seed, iteration, attackers, row, *rest: {
                            level: 0.75 for level in levels})
    monkeypatch.setattr(handlers.membership, "eval_records",
                        lambda *args: seen.append(("eval_records", args, {})) or [])
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
    assert handlers._player(task("aia_records:0", 0), context) == (context.spec, [1, 2])
    spec, levels = handlers._player(task("aia_records:dp_vine:1:0", 0), context)
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


def test_a_baseline_that_cannot_be_saved_is_fitted_and_its_release_scored_without_a_level_in_one_task(calls,
                                                                                                     monkeypatch):
    monkeypatch.setattr(handlers, "fit_baseline", lambda spec, data, seed: f"fitted {spec.label}")
    handlers.baseline(task("baseline:dp_vine:1"), fake_context(), [])
    (_, args, _), = calls
    assert args[0] == "fitted dp_vine:1" and args[2] is None and args[-1] == "dp_vine:1"


def test_a_baseline_is_fitted_on_its_threads_and_its_sets_scored_from_the_fitted_model(calls):
    records, fitted = handlers.baseline_fit(task("baseline_fit:dp_vine:1", 4), fake_context(), [])
    assert records == [] and model_from_payload(fitted) == "fitted dp_vine:1 on 4 threads"
    handlers.baseline_sets(task("baseline_sets:dp_vine:1:2-3", 2, 3), fake_context(), [fitted])
    (_, args, kwargs), = calls
    assert args[0] == "read fitted dp_vine:1 on 4 threads" and args[2] is None and args[-1] == "dp_vine:1"
    assert kwargs["chunk"] == (2, 3)  # without a part: every metric of those sets


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
    models = [handlers.aia_model(task(f"aia_model:1:{model}", 1, model), context, [])[1] for model in ("out", 11)]
    handlers.aia_records(task("aia_records:1", 1), context, models)
    handlers.aia_records(task("aia_records:independent:1", 1), context, models)
    holder, baseline = [(args, kwargs) for name, args, kwargs in calls if name == "aia_records"]
    assert holder[1]["raw"] and not baseline[1]["raw"]
    assert holder[0][6] == baseline[0][6] == 1  # the iteration


def test_an_attribute_game_model_is_its_out_model_or_a_target_rows_in_model(calls):
    context = fake_context()
    for model in ("out", 11):
        records, payload = handlers.aia_model(task(f"aia_model:dp_vine:1:2:{model}", 2, model), context, [])
        assert records == []
        row, statistics = statistics_from_payload(payload, context.sensitive)
        assert row == (None if model == "out" else 11)
        assert list(statistics) == [None]  # a baseline's models, without a level
    assert [args for name, args, _ in calls if name == "statistics"] == [("dp_vine:1", [None], 2, None),
                                                                         ("dp_vine:1", [None], 2, 11)]


def test_an_iteration_puts_its_out_model_and_its_in_models_by_row_together(calls):
    context = fake_context()
    models = [handlers.aia_model(task(f"aia_model:0:{model}", 0, model), context, [])[1] for model in (3, "out", 7)]
    handlers.aia_records(task("aia_records:0", 0), context, models)
    (_, args, _), = [call for call in calls if call[0] == "aia_records"]
    out, in_by_row = args[-2:]
    assert set(out) == {1, 2} and sorted(in_by_row) == [3, 7]


def test_a_shadow_model_stores_no_record_and_its_features_as_payload(calls):
    records, payload = handlers.mia_shadow_model(task("mia_shadow_model:dp_vine:1:3:out", 3, "out"), fake_context(),
                                                 [])
    assert records == []
    shadow, row, features = shadow_model_from_payload(payload)
    assert (shadow, row, list(features)) == (3, None, [("out", None)])  # a baseline's shadow, without a level
    assert (features[("out", None)] == 3).all()


def shadows(seed):
    """Shadow ``seed``'s models: its OUT model and each target row's IN model, at levels 1 and 2."""
    rng = np.random.default_rng(seed)
    return [shadow_model_payload(seed, row, {(which, level): rng.random((3, 4)) for level in (1, 2)
                                             for which in (("out",) if row is None else ("in",))})
            for row in (None, *ROWS)]


@pytest.mark.parametrize(("part", "parts", "rows"), [(0, 2, {3, 11}), (1, 2, {7}), (0, 1, {3, 7, 11})])
def test_an_attackers_part_trains_every_parts_th_target_row_in_row_order(calls, part, parts, rows):
    """Rows sorted, then every ``parts``-th: the parts share out the target rows, each exactly once."""
    _, payload = handlers.mia_attackers(task(f"mia_attackers:{part}", part, parts), fake_context(),
                                        shadows(0) + shadows(1))
    assert {row for row, _ in attackers_from_payload(payload)} == rows


def test_attackers_planned_without_parts_are_trained_in_one_task(calls):
    _, payload = handlers.mia_attackers(task("mia_attackers:0"), fake_context(), shadows(0))
    assert {row for row, _ in attackers_from_payload(payload)} == set(ROWS)


def test_an_attacker_learns_each_shadows_out_sets_as_0_and_in_sets_as_1_in_shadow_order(calls, monkeypatch):
    given = []
    monkeypatch.setattr(handlers.membership, "train_attackers", lambda shadows, seed: given.extend(shadows) or {})
    handlers.mia_attackers(task("mia_attackers:0", 0, 1), fake_context(), shadows(1) + shadows(0))
    assert len(given) == 2
    for shadow, labelled in zip((0, 1), given, strict=True):
        expected = dict(zip([None, *ROWS], shadows(shadow), strict=True))
        _, _, out = shadow_model_from_payload(expected[None])
        x, y = labelled[(7, 2)]
        _, _, inside = shadow_model_from_payload(expected[7])
        np.testing.assert_array_equal(x, np.vstack([out[("out", 2)], inside[("in", 2)]]))
        assert list(y) == [0, 0, 0, 1, 1, 1]


def test_an_evaluation_model_reads_every_attackers_part_merged(calls, monkeypatch):
    forests = {key: forest(key[0]) for key in ((3, 1), (7, 1), (11, 1))}
    parts = [attackers_payload({(3, 1): forests[3, 1]}), attackers_payload({(7, 1): forests[7, 1],
                                                                            (11, 1): forests[11, 1]})]
    seen = []
    monkeypatch.setattr(handlers.membership, "eval_out_rates", lambda *args: seen.append(args) or {})
    handlers.mia_eval_model(task("mia_eval_model:0:out", 0, "out"), fake_context(), parts)
    (args,) = seen
    assert args[2] is not None and args[4] == "protocol" and args[6] == 0
    assert list(args[7]) == [(3, 1), (7, 1), (11, 1)]
    x_new = np.random.default_rng(0).random((5, 4))
    for key, read in args[7].items():
        np.testing.assert_array_equal(read.predict_proba(x_new), forests[key].predict_proba(x_new))


def test_an_evaluation_puts_its_out_rates_and_each_rows_in_rates_together(calls):
    context = fake_context()
    attackers = [attackers_payload({(row, level): forest(row) for row in ROWS for level in (1, 2)})]
    models = [handlers.mia_eval_model(task(f"mia_eval_model:0:{model}", 0, model), context, attackers)[1]
              for model in ("out", *ROWS)]
    handlers.mia_eval_records(task("mia_eval_records:0", 0), context, models)
    (_, args, _), = [call for call in calls if call[0] == "eval_records"]
    label, _, levels, iteration, out, in_rates = args
    assert (label, levels, iteration) == (HOLDER, [1, 2], 0)
    assert out == {(row, level): 0.25 for row in ROWS for level in (1, 2)}
    assert in_rates == {row: {1: 0.75, 2: 0.75} for row in ROWS}


def test_every_planned_task_is_read_by_its_handler(calls):
    """Every kind the plan writes, with the params it writes them with, is run by its handler (the holder's fit
    aside: the worker does it)."""
    config = SweepConfig(response="y", sensitive=["income"], baselines=["independent", "dp_vine:1", "privbayes:1"],
                         baseline_games=["aia", "mia"], externals={"mine": "f" * 64}, dp_audit_trials=2,
                         protocol_overrides={**TINY, "release_sets": 30})
    tasks = planned_tasks(config, [1, 2])
    context = fake_context()
    rows = sorted({t.key.index[1] for t in tasks if t.kind == TaskKind.AIA_MODEL and t.key.index[1] != "out"})
    context.targets = [SimpleNamespace(row=row, attribute="income") for row in rows]  # the rows the plan counts on
    ran = set()
    given: dict[str, bytes] = {}
    for planned in sorted(tasks, key=lambda t: t.stage):  # what a task reads is given to it, as the engine does
        if planned.kind.handler is None:
            with pytest.raises(ValueError, match="the worker runs it itself"):
                run_task(planned, context)
            continue
        records, payload = run_task(planned, context, [given[t.name] for t in reads_from(planned, tasks)])
        assert isinstance(records, list) and (payload is None or isinstance(payload, bytes))
        assert (payload is None) == planned.kind.gives_records  # a task gives records or a payload
        given[planned.name] = payload
        ran.add(planned.kind)
    assert ran == {kind for kind in TaskKind if kind.handler is not None}
