"""Does a random forest that grows each tree on 10 000 instead of 20 000 rows score synthetic sets differently?

Why: TSTR's forests were the largest share of a release task on a 100 000-row table (issue 12: five forests of
100 trees on 20 000-row sets per level and baseline). ``utility.FOREST_ROWS`` caps the bootstrap sample each tree
grows on (scikit-learn's ``max_samples``); TRTR and TSTR share the cap. This fits the holder on
``bench/tables.wide_table(100 000, 30)``, draws five 20 000-row release sets at the lowest and the full level,
and scores each set with both caps (same forest seed per set): the paired differences and their bootstrap
interval, beside the spread over sets, and the seconds of the five forests per cap.

Usage (from the repo root): ``python -m bench.forest_rows`` — writes bench/forest_rows.md.
"""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path

import numpy as np

from bench.common import exit_with_usage_if_asked
from bench.machine import cpu_model
from bench.tables import RESPONSE, SENSITIVE, wide_table
from tvs_core.evaluation.intervals import bootstrap_interval
from tvs_core.evaluation.metrics import utility
from tvs_core.evaluation.metrics.utility import score_classifier, split_xy
from tvs_core.evaluation.release import release_sets, set_size
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.context import context_for_job, fit_holder, split_tables

ROOT = Path(__file__).resolve().parents[1]

CAPS = (20_000, 10_000)


def main() -> None:
    table = wide_table(100_000, 30)
    config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick")
    train, _ = split_tables(config, table, None)
    context = context_for_job(config, table, None, fit_holder(config, train, threads=2))
    data, j = context.data, context.data.response_index
    x_test, y_test = split_xy(data.test, j)
    lines = ["# Forests on 10 000 vs 20 000 rows per tree (TSTR AUC)", "",
             f"Run {datetime.date.today()} on {cpu_model()} ({os.cpu_count()} cores), `python -m bench.forest_rows`: "
             f"100 000 × 30 (`bench/tables.wide_table`), {len(train)} training rows, five release sets of "
             f"{set_size(data)} rows per level, random forest (100 trees) per set with each cap, same seed.", "",
             "| level | cap | AUC per set | seconds (5 forests) |", "|---:|---:|---|---:|"]
    summary = []
    for level in (context.levels[0], context.levels[-1]):
        sets = release_sets(context.holder, level, range(5), set_size(data), 0, "tvinesynth")
        scores = {}
        for cap in CAPS:
            utility.FOREST_ROWS = cap
            start = time.perf_counter()
            scores[cap] = np.array([score_classifier(*split_xy(s, j), x_test, y_test, data.discrete[j],
                                                     "random_forest", 100 + i) for i, s in enumerate(sets)])
            lines.append(f"| {level} | {cap} | {', '.join(f'{v:.4f}' for v in scores[cap])} | "
                         f"{time.perf_counter() - start:.1f} |")
            print(lines[-1], flush=True)
        diff = scores[CAPS[1]] - scores[CAPS[0]]
        median, low, high = bootstrap_interval(diff)
        summary.append(f"- level {level}: difference (10 000 − 20 000) median {median:+.4f} [{low:+.4f}, {high:+.4f}]; "
                       f"range of the 20 000-row AUCs over the sets {np.ptp(scores[CAPS[0]]):.4f}")
    lines += ["", "Paired differences, median [95 % bootstrap interval]:", "", *summary, ""]
    print("\n".join(summary))
    (ROOT / "bench" / "forest_rows.md").write_text("\n".join(lines))


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    main()
