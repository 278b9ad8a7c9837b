"""tvs_core/evaluation/set_metrics.py: one published set and the work its metrics share — each family's function
gives the same numbers when computed again, the subsampling of a large set, work kept once. Each family's numbers on
the sets whose answers are known (a copy of the training rows, a copy of the hold-out rows) are in
tests/evaluation/metrics/test_<family>.py; that shared work gives each metric's own numbers, in
tests/evaluation/test_set_metrics_shared.py; that each function computes the metrics the catalogue declares for it,
in tests/evaluation/test_catalogue.py."""

from __future__ import annotations

import numpy as np

from tests.evaluation.conftest import a_set
from tvs_core.evaluation.metrics.closeness import closeness
from tvs_core.evaluation.metrics.fidelity import fidelity
from tvs_core.evaluation.metrics.membership import membership_attacks, monte_carlo_membership
from tvs_core.evaluation.metrics.structure import structure
from tvs_core.evaluation.set_metrics import bounded, once


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

