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


@pytest.fixture
def two_levels():
    """Two levels of the holder with every anchor measured, sensitive column a, scores by hand (default choice:
    MAB on a, the default utility mix):

    ======  ========  ========  ==============  ==========  =====  ===============  ======
    level   MAB a     P         TSTR AUC (U)    pair (U)    CI     U                PU(½)
    ======  ========  ========  ==============  ==========  =====  ===============  ======
    1       0.1       0.75      0.7 (0.5)       0.1         0.4    1/3              0.5417
    2       0.3       0.25      0.9 (1.0)       0.8         0.6    0.8              0.525
    ======  ========  ========  ==============  ==========  =====  ===============  ======

    P = (0.4 - MAB) / (0.4 - 0), the game on the real rows and the release attack on shuffled columns; TSTR
    (AUC - 0.5) / (0.9 - 0.5); pair structure and CI overlap from 0 (shuffled) to 1. Every interval is its median
    alone, so the best level wins every resample."""
    from tvs_core.evaluation.records import HOLDER, RAW, REAL, SHUFFLED

    rows = [(RAW, None, "mab", "a", 0.4), (SHUFFLED, None, "release_mab", "a", 0.0),
            (REAL, None, "auc_trtr", None, 0.9),
            (SHUFFLED, None, "pair_structure", None, 0.0), (SHUFFLED, None, "ci_overlap", None, 0.0)]
    for level, (mab, auc, pair, ci) in {1: (0.1, 0.7, 0.1, 0.4), 2: (0.3, 0.9, 0.8, 0.6)}.items():
        rows += [(HOLDER, level, "mab", "a", mab), (HOLDER, level, "auc_tstr", None, auc),
                 (HOLDER, level, "pair_structure", None, pair), (HOLDER, level, "ci_overlap", None, ci)]
    return _summary_of(rows)
