"""tvs_core.evaluation.release: the metrics of the data actually published. A release task draws the sets of its
chunk once, each set from a seed of its own (so two chunks are the data of one whole call), and writes for each set
the records the catalogue declares for the task's part: TSTR (sets below ``utility_sets``), the release attack (below
``release_sets``) and every per-set metric (below ``DISTANCE_SETS``); ``SCATTER`` holds the metrics that may be an
axis, ``DETAILS`` the others. The reference records (TRTR, the real rows and their column-shuffled copies scored
like a release) belong to no level. That the two parts together are the whole task, with the same numbers, is in
tests/evaluation/test_set_metrics_shared.py; that each per-set function computes what the catalogue declares for
it, in tests/evaluation/test_catalogue.py.

The data: the small table of tests/conftest.py, 100 training and 60 hold-out rows, ``y`` a binary response and
``income`` the (continuous) sensitive column; the protocol is the shared TINY one (2 TSTR sets, 3 attacked sets)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY, CopyRows
from tvs_core.evaluation.catalogue import CATALOGUE, described
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import REAL, SHUFFLED, Record
from tvs_core.evaluation.release import (
    DETAILS,
    DISTANCE_SETS,
    SCATTER,
    kendall_matrices,
    published_records,
    reference_records,
    release_records,
    release_sets,
    set_metric_functions,
    set_records,
    shuffled_sets,
)
from tvs_core.evaluation.set_metrics import SyntheticSet
from tvs_core.model.tvinesynth import TVineSynth

PRESET = replace(QUICK, **TINY)  # utility_sets=2, release_sets=3: every task draws DISTANCE_SETS = 5 sets
SENSITIVE = ["income"]
LABEL = "tvinesynth"
TSTR = {"auc_tstr", "auc_tstr_logistic"}  # a class response, the two default classifiers
ATTACK = {"release_mab", "release_wcab", "release_r2", "release_skill"}  # a continuous sensitive column


@pytest.fixture(scope="module")
def model_and_data() -> tuple[TVineSynth, EvaluationData]:
    table = make_small_table(160)
    train, test = table.iloc[:100].reset_index(drop=True), table.iloc[100:].reset_index(drop=True)
    model = TVineSynth(response="y", sensitive=SENSITIVE, seed=2).fit(train)
    return model, EvaluationData.from_model(model, train, test)


@pytest.fixture(scope="module")
def model(model_and_data) -> TVineSynth:
    return model_and_data[0]


@pytest.fixture
def data(model_and_data) -> EvaluationData:
    """A copy with nothing shared: each call computes its real-side work itself."""
    return replace(model_and_data[1])


def release(model, data, level=2, preset=PRESET, sensitive=SENSITIVE, **kwargs) -> list[Record]:
    return release_records(model, replace(data), level, preset, sensitive, 0, LABEL, **kwargs)


@pytest.fixture(scope="module")
def whole(model, model_and_data) -> list[Record]:
    return release(model, model_and_data[1])


def key(records: list[Record]) -> list[tuple]:
    """Records as sortable rows (NaN compares equal through its repr)."""
    return sorted((r.model, str(r.level), r.metric, str(r.attribute), str(r.iteration), r.role,
                   repr(r.value)) for r in records)


def declared(part: str | None) -> set[str]:
    """The catalogue's metrics computed on one published set, for ``part``."""
    functions = set_metric_functions(part)
    return {r.name for m in CATALOGUE.values() if m.compute in functions for r in m.records()}


def iterations(records: list[Record], names: set[str]) -> set:
    return {r.iteration for r in records if r.metric in names}


# -- what a release task writes ------------------------------------------------------------------------------------
def test_the_scatter_part_writes_exactly_the_axis_metrics_tstr_and_the_release_attack(model, data):
    names = {r.metric for r in release(model, data, chunk=(0, 1), part=SCATTER)}  # set 0 has every metric
    assert names == declared(SCATTER) | TSTR | ATTACK


def test_the_details_part_writes_exactly_the_other_per_set_metrics(model, data):
    names = {r.metric for r in release(model, data, chunk=(0, 1), part=DETAILS)}
    assert names == declared(DETAILS)
    assert not names & (TSTR | ATTACK) and not any(described()[name].axis for name in names)


def test_a_whole_task_writes_every_declared_metric_as_the_releases_records_of_its_level(whole):
    assert {r.metric for r in whole} == declared(None) | TSTR | ATTACK
    assert {(r.model, r.level, r.role) for r in whole} == {(LABEL, 2, "release")}


def test_each_metric_is_written_for_the_sets_the_protocol_gives_it(whole):
    assert iterations(whole, TSTR) == {0, 1}  # utility_sets = 2
    assert iterations(whole, ATTACK) == {0, 1, 2}  # release_sets = 3
    assert iterations(whole, declared(None)) == set(range(DISTANCE_SETS))
    per_set = [r for r in whole if r.metric == "auc_tstr_logistic"]
    assert len(per_set) == 2 and all(r.attribute is None for r in per_set)
    assert {(r.attribute, r.iteration) for r in whole if r.metric == "release_mab"} == \
        {("income", s) for s in range(3)}


def test_a_per_column_metric_is_one_record_per_encoded_column(whole, data):
    for s in range(DISTANCE_SETS):
        columns = [r.attribute for r in whole if r.metric == "column_distance" and r.iteration == s]
        assert sorted(columns) == sorted(data.names)


def test_the_attack_on_a_categorical_column_records_its_advantage_instead_of_coefficients(model, data):
    records = release(model, data, sensitive=["sex"], chunk=(0, 3), part=SCATTER, classifiers=("logistic",))
    names = {r.metric for r in records}
    # the attacker's skill on real people has a categorical form; the coefficients have none
    assert {"release_advantage", "release_skill"} <= names and not names & (ATTACK - {"release_skill"})
    assert {(r.attribute, r.iteration) for r in records if r.metric == "release_advantage"} == \
        {("sex", s) for s in range(3)}


# -- chunks --------------------------------------------------------------------------------------------------------
def test_two_chunks_together_are_one_whole_call(model, data, whole):
    first, rest = release(model, data, chunk=(0, 2)), release(model, data, chunk=(2, DISTANCE_SETS))
    assert iterations(first, {r.metric for r in first}) == {0, 1}
    assert iterations(rest, {r.metric for r in rest}) == {2, 3, 4}
    assert key(first + rest) == key(whole)


def test_a_chunk_beyond_the_distance_sets_holds_only_the_attack_on_its_own_sets(model, data):
    records = release(model, data, preset=replace(PRESET, release_sets=7), chunk=(5, 7))
    assert {r.metric for r in records} == ATTACK and iterations(records, ATTACK) == {5, 6}


def test_a_set_is_the_same_data_drawn_alone_or_with_the_others(model):
    together = release_sets(model, 2, range(0, 4), 50, 0, LABEL)
    assert together.shape == (4, 50, 5)
    assert np.array_equal(release_sets(model, 2, range(2, 4), 50, 0, LABEL), together[2:])
    assert not np.array_equal(together[0], together[1])


@pytest.mark.parametrize("other", [dict(level=3), dict(label="another"), dict(master_seed=1)])
def test_another_level_label_or_master_seed_draws_other_sets(model, other):
    mine = dict(level=2, label=LABEL, master_seed=0)
    drawn = [release_sets(model, args["level"], range(2), 50, args["master_seed"], args["label"])
             for args in (mine, {**mine, **other})]
    assert not np.array_equal(*drawn)


def test_a_table_made_elsewhere_is_scored_as_a_first_set(model, data, whole):
    one = release_sets(model, 2, range(1), 100, 0, LABEL)
    records = published_records(one, data, 2, PRESET, SENSITIVE, 0, LABEL)
    assert {r.metric for r in records} == {r.metric for r in whole}
    assert key(records) == key([r for r in whole if r.iteration == 0])


def test_sets_numbered_beyond_every_protocol_count_score_nothing(model, data):
    one = release_sets(model, 2, range(1), 100, 0, LABEL)
    assert published_records(one, data, 2, PRESET, SENSITIVE, 0, LABEL, first=DISTANCE_SETS) == []


# -- reference records ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference(model_and_data) -> list[Record]:
    return reference_records(replace(model_and_data[1]), 0, SENSITIVE, classifiers=("logistic",))


def test_reference_records_belong_to_no_level_and_name_the_real_rows_or_their_shuffled_copies(reference):
    assert {r.level for r in reference} == {None} and {r.role for r in reference} == {"reference"}
    assert {r.model for r in reference} == {REAL, SHUFFLED}
    for model in (REAL, SHUFFLED):
        names = {r.metric for r in reference if r.model == model}
        assert declared(None) | ATTACK <= names


def test_trtr_is_the_hold_out_and_199_bootstraps_of_it_on_the_real_rows_only(reference):
    trtr = [r for r in reference if r.metric == "auc_trtr_logistic"]
    assert {r.model for r in trtr} == {REAL} and sorted(r.iteration for r in trtr) == list(range(200))
    assert not any(r.metric.startswith("auc_tstr") for r in reference)


def test_the_real_rows_are_one_set_and_their_shuffled_copies_distance_sets(reference):
    assert iterations([r for r in reference if r.model == REAL], declared(None)) == {0}
    assert iterations([r for r in reference if r.model == SHUFFLED], declared(None)) == set(range(DISTANCE_SETS))


def test_the_real_rows_published_as_they_are_are_all_exact_copies(reference, data):
    copies = [r.value for r in reference if r.metric == "exact_copies" and r.model == REAL]
    assert copies == [len(data.train)]


def test_the_details_part_of_the_reference_is_the_same_after_releases_of_any_level_used_the_same_data(
        model, data, reference):
    """No TRTR and no attack in the details; and the real-side work a release leaves on the data (``shared``) is the
    same for every level, so the reference read from it is that of a fresh copy."""
    for level in (1, 4):
        release_records(model, data, level, PRESET, SENSITIVE, 0, LABEL, chunk=(0, 1), part=DETAILS)
    assert data.shared
    details = reference_records(data, 0, SENSITIVE, part=DETAILS)
    assert {r.metric for r in details} == declared(DETAILS)
    assert key(details) == key([r for r in reference if r.metric in declared(DETAILS)])


def test_shuffled_copies_keep_every_column_exactly_and_are_seeded(data):
    sets = shuffled_sets(data.train, 0, 3)
    assert sets.shape == (3, *data.train.shape)
    for one in sets:
        assert np.array_equal(np.sort(one, axis=0), np.sort(data.train, axis=0))
        assert not np.array_equal(one, data.train)
    assert not np.array_equal(sets[0], sets[1])
    assert np.array_equal(shuffled_sets(data.train, 0, 3), sets)
    assert not np.array_equal(shuffled_sets(data.train, 1, 3), sets)


# -- one set, and the heatmaps ---------------------------------------------------------------------------------------
def test_set_records_name_the_set_its_role_and_for_a_per_column_metric_the_column(data):
    records = set_records(SyntheticSet(data.test.copy(), data, 0, "external", None, 3), role="reference",
                          part=DETAILS)
    assert {(r.model, r.level, r.iteration, r.role) for r in records} == {("external", None, 3,
                                                                                     "reference")}
    assert {r.metric for r in records} == declared(DETAILS)
    assert sorted(r.attribute for r in records if r.metric == "column_distance") == sorted(data.names)
    assert [r.value for r in records if r.metric == "exact_copies"] == [0.0]  # hold-out rows: no copy


def test_kendall_matrices_of_a_generator_releasing_its_rows_are_the_real_one_at_every_level(model_and_data):
    data = model_and_data[1]
    copier = CopyRows(response="y", sensitive=SENSITIVE).fit_encoded(data.train, data.encoder, data.schema)
    matrices = kendall_matrices(copier, data, [1, 3], 0, "copy")
    assert set(matrices) == {("real", None), ("copy", 1), ("copy", 3)}
    real = matrices[("real", None)]
    assert real.shape == (5, 5) and np.allclose(np.diag(real), 1.0)
    for level in (1, 3):
        np.testing.assert_allclose(matrices[("copy", level)], real, rtol=0, atol=1e-12)
