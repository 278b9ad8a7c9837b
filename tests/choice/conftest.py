"""The choice package's tests read a sweep's summary, never a sweep: ``summary_of`` writes its rows by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from tvs_core.evaluation.summary import SUMMARY_COLUMNS, Summary


def _summary_of(rows) -> Summary:
    """A ``Summary`` from (model, level, metric, attribute, median[, ci_low, ci_high[, n]]) tuples: a missing
    interval is the median itself, a missing n is 20 (enough replicates for a 95 % interval)."""
    frame = []
    for row in rows:
        model, level, metric, attribute, median, *rest = row
        low, high, n = (rest + [None, None, None])[:3]
        frame.append({"model": model, "level": level, "role": "release", "metric": metric, "attribute": attribute,
                      "target_kind": None, "median": median, "ci_low": median if low is None else low,
                      "ci_high": median if high is None else high, "n": 20 if n is None else n})
    table = pd.DataFrame(frame, columns=SUMMARY_COLUMNS)
    table["level"] = table["level"].astype("Int64")
    return Summary(table)


@pytest.fixture
def summary_of():
    return _summary_of
