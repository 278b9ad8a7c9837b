"""tvs_core/jobs/evaluate.py: ``evaluate()`` evaluates a fitted model in one call, in memory — the same context and
plan as a stored sweep, run by the same engine — and hands back the records with what they were computed under (the
levels, the targets, the protocol after capping and its caps), the seconds per phase, the Kendall-tau matrices of one
release per level and the column names. Its settings are checked before any task runs. One evaluation at tiny sizes
(one level, a 120-row table) is run for real; where only the bookkeeping matters the engine is replaced. That
evaluate() reproduces a sweep's numbers is tested in tests/jobs/test_engine.py, its numbers in
tests/evaluation/test_evaluation.py."""

from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY
from tvs_core import IndependentMargins, TVineSynth
from tvs_core.errors import DataError
from tvs_core.evaluation.metrics.membership.game import FeatureSet
from tvs_core.evaluation.protocol import QUICK, Game
from tvs_core.evaluation.records import COLUMNS, HOLDER, Record, RecordRole, record, to_frame
from tvs_core.evaluation.summary import summarise
from tvs_core.jobs.context import split_tables
from tvs_core.jobs.engine import TaskResult
from tvs_core.jobs.evaluate import evaluate, run_in_memory
from tvs_core.model.ordering import default_levels

Y = "y"
PRESET = replace(QUICK, **TINY)
NAMES = ["age", "income", "sex", "color", Y]
module = importlib.import_module("tvs_core.jobs.evaluate")  # tvs_core.jobs.evaluate is also the function


@pytest.fixture(scope="module")
def split():
    from tvs_core.jobs import SweepConfig

    return split_tables(SweepConfig(response=Y, sensitive=["income"]), make_small_table(n=120), None)


@pytest.fixture(scope="module")
def model(split):
    return TVineSynth(response=Y, sensitive=["income"], t_max=3, seed=0).fit(split[0])


@pytest.fixture(scope="module")
def result(model, split):
    """The one real evaluation: the attribute game at level 1, on one core (with the reference rows' metrics, which
    every evaluation scores: most of its seconds)."""
    return evaluate(model, *split, levels=[1], preset=PRESET, seed=2, n_jobs=1, games=("aia",))


@pytest.fixture
def engine(monkeypatch):
    """The engine replaced: each call's context recorded, no task run, no record made."""
    contexts = []

    def fake(context, n_jobs=2, backend="loky"):
        contexts.append(context)
        return to_frame([]), {"fitting": 0.0, "sampling": 0.0, "metrics": 0.0, "total": 0.0}

    monkeypatch.setattr(module, "run_in_memory", fake)
    return contexts


# -- the real evaluation -------------------------------------------------------------------------------------------
def test_the_records_are_of_the_levels_asked_for_and_in_canonical_order(result):
    records = result.records
    assert list(records.columns) == COLUMNS and len(records) > 0
    assert set(records.loc[records["model"] == HOLDER, "level"].dropna()) == {1} and result.levels == [1]
    pd.testing.assert_frame_equal(records, to_frame([Record.from_stored(r) for r in records.to_dict("records")]))
    holder = records[records["model"] == HOLDER]
    assert set(holder["role"]) == {"game"} and "mab" in set(holder["metric"])  # the attribute game, no release
    assert not {"pg", "mia_tp"} & set(records["metric"])  # nor the membership game
    assert "auc_trtr" in set(records.loc[records["role"] == "reference", "metric"])  # the anchors, always scored


def test_the_result_says_which_targets_and_capped_sizes_the_numbers_were_computed_under(result, split):
    pool = len(split[0]) - len({t.row for t in result.targets})
    assert {t.attribute for t in result.targets} == {"income"}
    assert set(result.records.dropna(subset=["target"])["target"].astype(int)) <= {t.row for t in result.targets}
    assert result.protocol.aia_size_raw == min(PRESET.aia_size_raw, pool)
    assert {c["parameter"] for c in result.caps} >= {"aia_size_raw"}
    assert all(getattr(result.protocol, c["parameter"]) == c["used"] < c["requested"] for c in result.caps)


def test_the_kendall_matrices_are_the_real_rows_and_one_release_per_level(model, split, engine):
    """Drawn by evaluate() itself, beside the engine (here replaced)."""
    result = evaluate(model, *split, levels=[1, 3], preset=PRESET, games=("release",))
    assert result.names == NAMES
    assert set(result.kendall) == {("real", None), (HOLDER, 1), (HOLDER, 3)}
    for matrix in result.kendall.values():
        assert matrix.shape == (len(NAMES), len(NAMES))
        np.testing.assert_allclose(matrix, matrix.T)
        np.testing.assert_allclose(np.diag(matrix), 1.0)
        assert np.all(np.abs(matrix) <= 1.0)


def test_the_seconds_of_every_phase_and_the_whole_call_are_reported(result):
    assert set(result.timings) == {"fitting", "sampling", "metrics", "total", "wall"}
    assert all(seconds >= 0 for seconds in result.timings.values())
    assert result.timings["metrics"] > 0  # the game's and the reference's metrics were computed: they took some time


def test_the_summary_is_the_summary_of_the_records(result):
    pd.testing.assert_frame_equal(result.summary().frame, summarise(result.records).frame)


# -- settings, checked before any task runs ------------------------------------------------------------------------
def test_without_levels_every_fifth_level_plus_one_and_the_top_are_evaluated(model, split, engine):
    result = evaluate(model, *split, preset=PRESET, games=("aia",))
    assert result.levels == engine[0].levels == default_levels(model.fitted_level_) == [1, 3]


def test_levels_are_evaluated_once_each_in_order(model, split, engine):
    assert evaluate(model, *split, levels=[3, 1, 3], preset=PRESET, games=("aia",)).levels == [1, 3]


def test_a_level_above_the_models_top_level_is_refused_before_any_task_runs(model, split, engine):
    with pytest.raises(DataError, match="Level 4 is above the model's top level 3") as refused:
        evaluate(model, *split, levels=[1, 4], preset=PRESET)
    assert refused.value.fix == "Choose levels from 0 to 3." and engine == []


@pytest.mark.parametrize("changes", [dict(preset="thorough"), dict(analysis=["weight"]), dict(analysis=[Y]),
                                     dict(externals={"mine": make_small_table(n=40).drop(columns="age")})])
def test_settings_that_cannot_be_evaluated_are_refused_before_any_task_runs(model, split, engine, changes):
    with pytest.raises(DataError):
        evaluate(model, *split, levels=[1], **{"preset": PRESET, **changes})
    assert engine == []


def test_chosen_targets_replace_the_outliers_and_random_rows(model, split, engine):
    result = evaluate(model, *split, levels=[1], preset=PRESET, targets={"income": [5, 0]})
    assert [(t.row, t.attribute, t.kind) for t in result.targets] == [(5, "income", "chosen"), (0, "income", "chosen")]


def test_the_settings_reach_the_engine_as_given(model, split, engine):
    from tvs_core.evaluation.context import GeneratorSpec

    independent = GeneratorSpec("independent", {"response": Y, "sensitive": ["income"]})
    evaluate(model, *split, levels=[1], preset=PRESET, seed=9, games=("aia", "mia"), baselines=[independent],
             baseline_games=("mia",), feature_set="naive", analysis=["age"], dp_audit_trials=3)
    context = engine[0]
    assert (context.seed, context.games, context.baseline_games, context.feature_set) == (
        9, [Game.AIA, Game.MIA], [Game.MIA], FeatureSet.NAIVE)
    assert context.baselines == [independent] and context.data.analysis == ["age"]
    assert context.config.dp_audit_trials == 3 and context.attacker_rows is not None


def test_no_kendall_matrix_is_drawn_when_the_release_is_not_evaluated(model, split, engine):
    assert evaluate(model, *split, levels=[1], preset=PRESET, games=("aia", "mia")).kendall == {}


def test_a_model_without_levels_is_evaluated_at_the_one_level_none(split, engine):
    margins = IndependentMargins(response=Y, sensitive=["income"]).fit(split[0])
    result = evaluate(margins, *split, preset=PRESET, games=("release",))
    assert result.levels == [None] and set(result.kendall) == {("real", None), ("independent", None)}


# -- run_in_memory -------------------------------------------------------------------------------------------------
def test_the_in_memory_run_skips_the_holders_fit_and_sums_each_phase_over_the_tasks(model, split, monkeypatch):
    """The holder was fitted by the caller: its task is done before the engine starts. Records come back in
    canonical order, whatever order the tasks finished in."""
    from tvs_core.jobs import SweepConfig
    from tvs_core.jobs.context import JobContext

    context = JobContext.from_config(SweepConfig.for_model(model, levels=[1], preset=PRESET, games=["aia"],
                                                           baselines=[]), model, *split)
    started_with = []

    def fake_execute(context, tasks, sink, n_jobs=2, backend="loky"):
        started_with.append(set(sink.done()))
        for name, level, seconds in (("aia:1", 1, (1.0, 0.5, 2.0)), ("aia:0", 0, (0.25, 0.0, 1.0))):
            one = record(HOLDER, level, "pg", 1.0, role=RecordRole.GAME)
            sink.add(TaskResult(name, "aia", [one], None, dict(zip(("fitting", "sampling", "metrics"), seconds,
                                                                       strict=True)) | {"total": sum(seconds)}))
        return "done"

    monkeypatch.setattr(module, "execute", fake_execute)
    records, timings = run_in_memory(context, n_jobs=1)
    assert started_with == [{"holder"}]
    assert timings == {"fitting": 1.25, "sampling": 0.5, "metrics": 3.0, "total": 4.75}
    assert list(records["level"]) == [0, 1]
