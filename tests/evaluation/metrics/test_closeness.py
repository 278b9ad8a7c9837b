"""The closeness family (evaluation/metrics/closeness.py): DCR against known answers — a copying generator, fresh
draws from the same distribution, and train and hold-out sets of different sizes. Its invariants on hand-sized inputs
(widths, missing values) are in tests/evaluation/test_distance.py and test_fidelity_distance.py; that ``closeness``
computes the metrics the catalogue declares, in tests/evaluation/test_catalogue.py."""

from __future__ import annotations

import pytest

from tests.evaluation.conftest import a_set
from tests.evaluation.test_fidelity_distance import draws
from tvs_core.evaluation.metrics.closeness import closeness, dcr


def test_dcr_copy_generator():
    train, holdout = draws(300, 6, 4), draws(300, 6, 5)
    out = dcr(train, train, holdout)
    assert out["closer_to_train_share"] == 1.0
    assert out["exact_copies"] == out["n"] == 300
    assert out["median_distance_train"] == 0.0 < out["median_distance_holdout"]


def test_dcr_fresh_draws_are_half_closer_to_train():
    train, holdout, synthetic = draws(500, 6, 6), draws(500, 6, 7), draws(500, 6, 8)
    out = dcr(synthetic, train, holdout)
    assert abs(out["closer_to_train_share"] - 0.5) < 0.1
    assert out["exact_copies"] == 0
    assert out["n_closer"] == pytest.approx(out["closer_to_train_share"] * out["n"])


def test_dcr_balances_train_and_holdout_sizes():
    train, holdout, synthetic = draws(1200, 4, 9), draws(300, 4, 10), draws(500, 4, 11)
    balanced = dcr(synthetic, train, holdout)
    assert balanced["n_train_used"] == balanced["n_holdout_used"] == 300
    assert abs(balanced["closer_to_train_share"] - 0.5) < 0.1
    # unbalanced, a perfect generator looks like memorisation: ~1200 / 1500 = 0.8
    assert dcr(synthetic, train, holdout, balance=False)["closer_to_train_share"] > 0.7


# -- on one published set whose answer is known (moved from tests/evaluation/test_set_metrics.py) --------------
def test_a_copy_of_the_training_rows_is_all_exact_copies_and_closer_to_them(data):
    found = closeness(a_set(data.train, data))
    assert found["exact_copies"] == len(data.train)
    assert found["dcr_closer_to_train"] > 0.5  # memorised: nearer the training rows than the hold-out rows


def test_a_copy_of_the_hold_out_rows_has_no_copy_and_is_never_closer_to_the_training_rows(data):
    assert closeness(a_set(data.test, data)) == {"dcr_closer_to_train": 0.0, "exact_copies": 0}
