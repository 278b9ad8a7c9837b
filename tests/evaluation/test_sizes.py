"""The row caps (evaluation/sizes.py): they bound the cost of a large table and leave every demo's numbers alone."""

import numpy as np
import pytest

from tvs_core import DEMOS, holdout_split, load_demo
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.release import set_size
from tvs_core.evaluation.set_metrics import SyntheticSet, bounded
from tvs_core.evaluation.sizes import BASELINE_ROWS, PMSE_ROWS, RELEASE_ROWS, SET_ROWS
from tvs_core.jobs import SweepConfig


@pytest.mark.parametrize("name", list(DEMOS))
def test_every_demo_is_below_every_cap(name):
    """The module's promise: on a demo split as a sweep splits it, no metric, release set or baseline is computed
    on a subsample (the published set has as many rows as the training part)."""
    demo = DEMOS[name]
    config = SweepConfig(response=demo.response, sensitive=list(demo.sensitive))
    train, test = holdout_split(load_demo(name), demo.response, config.holdout_fraction, config.seed)
    assert max(len(train), len(test)) <= min(SET_ROWS, RELEASE_ROWS, BASELINE_ROWS, PMSE_ROWS)


def rows(n: int) -> EvaluationData:
    """Encoded real rows as a release task and a per-set metric see them (only their number matters here)."""
    return EvaluationData(encoder=None, schema=None, train=np.zeros((n, 2)), test=np.ones((n, 2)), names=["a", "b"])


def test_a_release_set_has_the_training_rows_up_to_the_cap():
    """A published set is as long as the training part; above RELEASE_ROWS sampling stops growing."""
    assert set_size(rows(300)) == 300
    assert set_size(rows(RELEASE_ROWS)) == RELEASE_ROWS
    assert set_size(rows(RELEASE_ROWS + 1)) == set_size(rows(5 * RELEASE_ROWS)) == RELEASE_ROWS


def test_a_set_metric_sees_at_most_set_rows_of_each_kind():
    """At the cap a set is scored whole (the same object: no draw, the same numbers); one row more and each of
    its synthetic, training and hold-out parts is cut to SET_ROWS rows."""
    whole = SyntheticSet(np.zeros((SET_ROWS, 2)), rows(SET_ROWS), master_seed=0, label="tvinesynth", level=1, index=0)
    assert bounded(whole) is whole
    above = SyntheticSet(np.zeros((SET_ROWS + 1, 2)), rows(SET_ROWS + 1), 0, "tvinesynth", 1, 0)
    cut = bounded(above)
    assert len(cut.values) == len(cut.data.train) == len(cut.data.test) == SET_ROWS
