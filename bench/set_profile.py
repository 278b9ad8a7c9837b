"""Where a release task's seconds go: each metric of one published set, timed alone, on the 884 x 27 table.

Why (issue 27): the sweep must get twice as fast; profile before changing anything. One process, one thread
(``OMP_NUM_THREADS=1`` etc. are set here), the holder fitted as a sweep fits it, sets drawn as a release task
draws them; every per-set function of the catalogue is timed on each of the ``DISTANCE_SETS`` sets of one level,
plus TSTR (per classifier) and the release attack on the level's sets; then one task of each kind is timed
through the handlers (``--tasks``), and the hottest functions of one release task are listed (``--cprofile``).

Usage (from the repo root): ``python -m bench.set_profile [--level 10] [--tasks] [--cprofile]``; prints
markdown tables (pasted into bench/sweep.md).
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

from bench.tables import RESPONSE, SENSITIVE, support_like  # noqa: E402
from tvs_core.evaluation.metrics.attribute import release_attribute_records  # noqa: E402
from tvs_core.evaluation.metrics.utility import CLASSIFIERS, score_classifier, split_xy  # noqa: E402
from tvs_core.evaluation.release import (  # noqa: E402
    DISTANCE_SETS,
    release_sets,
    set_metric_functions,
    set_size,
)
from tvs_core.evaluation.set_metrics import SyntheticSet, bounded  # noqa: E402
from tvs_core.jobs import SweepConfig  # noqa: E402
from tvs_core.jobs.context import context_for_job  # noqa: E402
from tvs_core.jobs.plan import plan  # noqa: E402
from tvs_core.jobs.tasks import run_task  # noqa: E402


def clock(function, *args, **kwargs):
    start = time.perf_counter()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - start


def per_metric(context, level) -> list[tuple[str, float, int]]:
    """(metric function, median seconds per set, calls per release task)."""
    data, protocol = context.data, context.protocol
    n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
    sets, sampling = clock(release_sets, context.holder, level, range(n_sets), set_size(data), context.seed,
                           context.spec.label)
    rows = [("sampling (all sets of the level)", sampling, 1)]
    j = data.response_index
    x_test, y_test = split_xy(data.test, j)
    for c in CLASSIFIERS:
        times = [clock(score_classifier, *split_xy(sets[s], j), x_test, y_test, data.discrete[j], c, 0)[1]
                 for s in range(protocol.utility_sets)]
        rows.append((f"tstr {c} (per set)", statistics.median(times), protocol.utility_sets))
    _, attack = clock(release_attribute_records, sets[:protocol.release_sets], data, context.sensitive,
                      context.spec.label, level)
    rows.append((f"release attack (all {protocol.release_sets} sets)", attack, 1))
    for function in set_metric_functions():
        times = [clock(function, bounded(SyntheticSet(sets[s], data, context.seed, "tvinesynth", level, s)))[1]
                 for s in range(DISTANCE_SETS)]
        rows.append((f"set_metrics.{function.__name__} (per set)", statistics.median(times), DISTANCE_SETS))
    return rows


def per_task(context) -> list[tuple[str, str, float]]:
    """One task of each kind (the first in plan order), through the handlers, in this process."""
    seen, out, payloads = set(), [], {}
    for task in plan(context):
        if task.stage == 0 or task.kind in seen or task.stage > 1:
            continue
        seen.add(task.kind)
        (_, payload), seconds = clock(run_task, task, context, [])
        payloads[task.name] = payload
        out.append((task.kind.value, task.name, seconds))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--level", type=int, default=10)
    parser.add_argument("--tasks", action="store_true")
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args()
    config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick")
    context, fit = clock(context_for_job, config, support_like(), None)
    print(f"context (holder fit included): {fit:.2f} s; levels {context.levels}\n")
    rows = per_metric(context, args.level)
    print("| step | seconds (median per call) | calls per release task | seconds per release task |")
    print("|---|---:|---:|---:|")
    for name, seconds, calls in rows:
        print(f"| {name} | {seconds:.3f} | {calls} | {seconds * calls:.2f} |")
    print(f"| total | | | {sum(s * c for _, s, c in rows):.2f} |\n")
    if args.tasks:
        print("| kind | task | seconds |\n|---|---|---:|")
        for kind, key, seconds in per_task(context):
            print(f"| {kind} | {key} | {seconds:.2f} |")
    if args.cprofile:
        task = next(t for t in plan(context) if t.kind == "release" and t.params[0] == args.level)
        profiler = cProfile.Profile()
        profiler.runcall(run_task, task, context, {})
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(45)
        print(text.getvalue())


if __name__ == "__main__":
    main()
