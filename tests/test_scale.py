"""Scale (issue 12, first part): per-set metrics on bounded subsamples, no dense n × n matrices."""

import numpy as np
import pytest

from tvs_core.evaluation.catalogue import CATALOGUE, SET_ROWS
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.distance import mcmia
from tvs_core.evaluation.set_metrics import SyntheticSet, bounded


def synthetic_set(rows: int, seed: int = 0) -> SyntheticSet:
    rng = np.random.default_rng(seed)
    data = EvaluationData(encoder=None, schema=None, train=rng.normal(size=(rows, 4)),
                          test=rng.normal(size=(rows // 4, 4)), names=list("abcd"))
    return SyntheticSet(rng.normal(size=(rows, 4)), data, master_seed=7, label="tvinesynth", level=3, index=1)


def test_a_small_set_is_left_whole_and_a_large_one_is_capped_reproducibly():
    small = synthetic_set(400)
    assert bounded(small, rows=500) is small  # every demo is below the cap: numbers unchanged
    large = synthetic_set(2_000)
    one, again = bounded(large, rows=500), bounded(large, rows=500)
    assert len(one.values) == len(one.data.train) == len(one.data.test) == 500
    np.testing.assert_array_equal(one.values, again.values)  # seeded by the set's own key
    other = bounded(SyntheticSet(large.values, large.data, 7, "tvinesynth", 3, 2), rows=500)
    assert not np.array_equal(one.values, other.values)  # a subsample per set: its noise enters the interval
    rows = {tuple(r) for r in large.data.train}
    assert all(tuple(r) in rows for r in one.data.train)  # rows are drawn, not altered


def test_the_catalogue_says_which_metrics_are_subsampled():
    assert CATALOGUE["mia_auc"].rows_cap == SET_ROWS and CATALOGUE["pair_structure"].rows_cap == SET_ROWS
    assert CATALOGUE["auc_tstr"].rows_cap is None and CATALOGUE["mab"].rows_cap is None


def test_mcmia_streams_its_distances_and_gives_the_same_score(monkeypatch):
    """Two passes over bounded chunks instead of keeping the 2m × n matrix: the same numbers."""
    import tvs_core.evaluation.distance as distance

    rng = np.random.default_rng(3)
    train, control, synthetic = rng.normal(size=(300, 5)), rng.normal(size=(300, 5)), rng.normal(size=(800, 5))
    whole = mcmia(train, control, synthetic)
    monkeypatch.setattr(distance, "_CHUNK_CELLS", 800 * 7)  # 7 records per chunk
    chunked = mcmia(train, control, synthetic)
    assert chunked == pytest.approx(whole)
