"""What the tests of evaluation/ and of each metric family (tests/evaluation/metrics/) share: the small table's
evaluation data and one published set of given rows."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import make_small_table
from tvs_core.data.schema import infer_schema
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.set_metrics import SyntheticSet


@pytest.fixture(scope="module")
def data() -> EvaluationData:
    """80 training and 40 hold-out rows of the small table: two continuous columns, three categorical ones."""
    table = make_small_table(120)
    schema = infer_schema(table).with_roles("y", ["income"])
    return EvaluationData.from_tables(table.iloc[:80], table.iloc[80:], schema)


def a_set(values, data, index=0) -> SyntheticSet:
    return SyntheticSet(np.array(values), replace(data), master_seed=0, label="test", level=1, index=index)
