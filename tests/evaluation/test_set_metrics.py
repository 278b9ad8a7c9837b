"""tvs_core/evaluation/set_metrics.py: the metrics of one published set, on the two sets whose answers are known —
a verbatim copy of the training rows (memorised: every closeness and fidelity metric at its extreme) and a copy of
the hold-out rows (real, but never seen) — and the subsampling of a large set. That shared work gives each metric's
own numbers is in tests/evaluation/test_set_metrics_shared.py; the GDPR criteria in
tests/evaluation/metrics/test_gdpr.py; that each function computes the metrics the catalogue declares for it in
tests/evaluation/test_catalogue.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import make_small_table
from tvs_core.data.schema import infer_schema
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.metrics.closeness import closeness
from tvs_core.evaluation.metrics.fidelity import fidelity
from tvs_core.evaluation.metrics.membership import membership_attacks, monte_carlo_membership
from tvs_core.evaluation.metrics.structure import structure
from tvs_core.evaluation.set_metrics import SyntheticSet, bounded, once


@pytest.fixture(scope="module")
def data() -> EvaluationData:
    """80 training and 40 hold-out rows of the small table: two continuous columns, three categorical ones."""
    table = make_small_table(120)
    schema = infer_schema(table).with_roles("y", ["income"])
    return EvaluationData.from_tables(table.iloc[:80], table.iloc[80:], schema)


def a_set(values, data, index=0) -> SyntheticSet:
    return SyntheticSet(np.array(values), replace(data), master_seed=0, label="test", level=1, index=index)


def test_a_copy_of_the_training_rows_is_all_exact_copies_and_closer_to_them(data):
    found = closeness(a_set(data.train, data))
    assert found["exact_copies"] == len(data.train)
    assert found["dcr_closer_to_train"] > 0.5  # memorised: nearer the training rows than the hold-out rows


def test_a_copy_of_the_hold_out_rows_has_no_copy_and_is_never_closer_to_the_training_rows(data):
    assert closeness(a_set(data.test, data)) == {"dcr_closer_to_train": 0.0, "exact_copies": 0}


def test_monte_carlo_membership_recovers_every_member_of_a_copy_and_none_of_a_hold_out_copy(data):
    """1: every training record recovered; 0: the control records are the ones covered."""
    assert monte_carlo_membership(a_set(data.train, data)) == {"mcmia": 1.0}
    assert monte_carlo_membership(a_set(data.test, data)) == {"mcmia": 0.0}


def test_fidelity_of_a_copy_of_the_training_rows_is_perfect_and_never_authentic(data):
    found = fidelity(a_set(data.train, data))
    assert found["alpha_precision"] == 1.0 and found["beta_recall"] == 1.0
    assert found["authenticity"] == 0.0  # every row is a training row
    assert found["spearman_difference"] == pytest.approx(0.0, abs=1e-12)
    assert found["column_distance"] == dict.fromkeys(data.names, 0.0)


def test_fidelity_of_other_real_rows_is_below_perfect_and_within_bounds(data):
    found = fidelity(a_set(data.test, data))
    for name in ("alpha_precision", "beta_recall", "authenticity"):
        assert 0.0 <= found[name] <= 1.0
    assert found["spearman_difference"] > 0 and set(found["column_distance"]) == set(data.names)
    assert any(d > 0 for d in found["column_distance"].values())


def test_structure_of_a_copy_of_the_training_rows_is_kept_whole_and_indistinguishable(data):
    found = structure(a_set(data.train, data))
    assert found["pair_structure"] == pytest.approx(1.0) and found["ci_overlap"] == pytest.approx(1.0)
    assert found["pmse_ratio"] == pytest.approx(0.0, abs=1e-9)


def test_the_membership_headlines_are_the_strongest_attacks_numbers(data):
    found = membership_attacks(a_set(data.train, data))
    assert found["mia_auc"] == max(found["mia_attack_auc"].values())
    assert len(found["mia_attack_auc"]) == 3
    assert 0.0 <= found["mia_tpr_at_1pct_fpr"] <= found["mia_tpr_at_10pct_fpr"] <= 1.0
    assert found["mia_auc"] > 0.5  # a copy of the members: the strongest attack tells them apart


def test_a_sets_metrics_are_the_same_numbers_when_computed_again(data):
    values = data.test[::-1]
    for function in (closeness, monte_carlo_membership, fidelity, structure, membership_attacks):
        assert function(a_set(values, data)) == function(a_set(values, data)), function.__name__


# -- bounded ---------------------------------------------------------------------------------------------------------
def test_only_the_parts_above_the_cap_are_cut_to_a_subset_in_their_own_order(data):
    big = np.arange(300, dtype=float).reshape(-1, 5)  # 60 distinct rows
    s = a_set(big, data)
    s.shared["x"] = 1
    cut = bounded(s, rows=50)
    assert len(cut.values) == len(cut.data.train) == 50 and len(cut.data.test) == 40  # 40 hold-out rows: kept
    assert np.array_equal(cut.data.test, data.test)
    for part, whole in ((cut.values, big), (cut.data.train, data.train)):
        positions = [int(np.flatnonzero((whole == r).all(axis=1))[0]) for r in part]
        assert positions == sorted(set(positions))  # distinct rows of the whole, in the order they came
    assert cut.shared == {} and s.shared == {"x": 1}  # the cut set shares no work with the whole one
    assert cut.data.shared == {}


def test_the_cut_is_the_same_for_the_same_set_and_another_for_another_set(data):
    big = np.arange(300, dtype=float).reshape(-1, 5)
    first = bounded(a_set(big, data, index=0), rows=20).values
    assert np.array_equal(first, bounded(a_set(big, data, index=0), rows=20).values)
    assert not np.array_equal(first, bounded(a_set(big, data, index=1), rows=20).values)


# -- shared work -----------------------------------------------------------------------------------------------------
def test_work_kept_once_is_computed_once():
    calls = []
    memo = {}
    assert once(memo, "k", lambda: calls.append(1) or 7) == 7
    assert once(memo, "k", lambda: calls.append(1) or 8) == 7
    assert calls == [1] and memo == {"k": 7}

