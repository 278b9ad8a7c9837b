"""A task's key and a stored plan read back exactly as they were written (``tvs_core/jobs/tasks.py``): the key names
a task in the results table, the plan and the worker's set of finished tasks, so a key read wrongly would run a
task twice after a resume, or never."""

from __future__ import annotations

import json

import pytest

from tvs_core.evaluation.records import HOLDER
from tvs_core.jobs.tasks import Task, TaskKey, TaskKind, plan_from_json, plan_json

# players as a plan names them: the holder, a baseline whose label holds ':' (and digits after it), an uploaded set
PLAYERS = (HOLDER, "rvine", "dp_vine:0.1", "privbayes:5", "external:cohort:2024.csv")


def indices(kind: TaskKind) -> tuple:
    """Indices of the kinds' shapes: whole numbers, and a release chunk written as text."""
    return tuple((7, "0-10", 3)[: kind.indices]) if kind is TaskKind.RELEASE else tuple(range(3, 3 + kind.indices))


@pytest.mark.parametrize("kind", list(TaskKind))
@pytest.mark.parametrize("player", PLAYERS)
def test_every_key_reads_back_as_the_key_that_wrote_it(kind, player):
    key = TaskKey(kind, player, indices(kind))
    assert TaskKey.parse(str(key)) == key
    assert str(key).startswith(kind.value)
    assert (player in str(key)) == (player != HOLDER)  # the holder's tasks are named by their kind and indices only


def test_a_key_without_its_indices_is_refused_in_words():
    with pytest.raises(ValueError, match="lacks the 2 indices of a release task"):
        TaskKey.parse("release:5")
    with pytest.raises(ValueError):
        TaskKey.parse("not_a_kind:1")


def test_a_plan_reads_back_with_every_key_and_stage():
    tasks = [Task(TaskKey(kind, player, indices(kind)), ("params only the worker needs",), stage)
             for stage, kind in enumerate(TaskKind) for player in PLAYERS[:3]]
    read = plan_from_json(json.loads(plan_json(tasks)))
    assert [(t.key, t.stage) for t in read] == [(t.key, t.stage) for t in tasks]
    assert all(t.params == () for t in read)  # the params are not stored: the worker builds them again


def test_a_plan_stored_by_an_earlier_version_is_read_with_its_stages():
    stored = [["release:5:0-10", "release", 1], ["aia:dp_vine:0.1:2", "aia"], ["mia_eval:1", "mia_eval"]]
    read = plan_from_json(stored)
    assert [t.key for t in read] == [TaskKey(TaskKind.RELEASE, HOLDER, (5, "0-10")),
                                     TaskKey(TaskKind.AIA, "dp_vine:0.1", (2,)),
                                     TaskKey(TaskKind.MIA_EVAL, HOLDER, (1,))]
    assert [t.stage for t in read] == [1, TaskKind.AIA.legacy_stage, TaskKind.MIA_EVAL.legacy_stage]


def test_every_kind_a_plan_holds_has_a_handler_and_reads_only_from_an_earlier_stage():
    """Stages stored by an earlier version (its plans have no game models) keep what a task reads before it."""
    for kind in TaskKind:
        if kind in (TaskKind.HOLDER, TaskKind.FIRST_LOOK):  # the worker runs these itself, before the plan
            assert kind.handler is None
            continue
        if kind in (TaskKind.AIA, TaskKind.BASELINE_AIA, TaskKind.MIA_SHADOW, TaskKind.MIA_EVAL):
            assert kind.handler is None  # only an earlier version planned these (whole)
            assert kind.gives_records == (kind != TaskKind.MIA_SHADOW)
            continue
        assert callable(kind.handler), kind
        if kind.reads is not None and kind.reads not in (TaskKind.AIA_MODEL, TaskKind.MIA_SHADOW_MODEL,
                                                         TaskKind.MIA_EVAL_MODEL, TaskKind.BASELINE_FIT):
            assert kind.reads.legacy_stage < kind.legacy_stage, kind
