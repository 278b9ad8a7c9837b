"""How the cost of a fit grows with the columns d and the truncation level t: the holder's fit (all training rows)
and one model of the attack games (500 rows), pyvinecopulib's Gaussian preset, one thread and two.

Why: a level-t C-vine has t*d - t(t+1)/2 pair copulas, not d^2/2: truncation is what should make wide tables cheap
(issue 47). This measures it, so that bench/scale.md can say how a sweep's parts grow in d and in t.

Usage (from the repo root): ``python -m bench.width [--rows 5000] [--columns 30,60,120,200] [--repeats 3]``;
writes bench/width.md. Each cell is the median of ``--repeats`` fits, timed in this process (wall seconds).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from pathlib import Path

import pyvinecopulib as pv

from bench.machine import cpu_model
from bench.tables import RESPONSE, SENSITIVE, wide_table
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.context import fit_holder, split_tables

ROOT = Path(__file__).resolve().parents[1]

GAME_ROWS = 500  # the quick preset's sizeRawT: every model of the attack games is fitted on this many rows


def median_seconds(repeats: int, config: SweepConfig, train, threads: int = 1) -> float:
    """The median wall time of ``repeats`` fits of the holder's recipe."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit_holder(config, train, threads=threads)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pair_copulas(d: int, t: int) -> int:
    """Pair copulas of a C-vine on d variables truncated at t trees: tree k has d - k."""
    return sum(d - k for k in range(1, t + 1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--columns", default="30,60,120,200")
    parser.add_argument("--levels", default="1,10,30,60", help="levels timed at --level-columns (plus its full vine)")
    parser.add_argument("--level-columns", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    columns = [int(c) for c in args.columns.split(",")]
    load_before = os.getloadavg()[0]
    rows_d = ["| columns d | pair copulas (full vine) | holder, 1 thread | holder, 2 threads | speed-up | "
              "one game model (500 rows) |", "|---:|---:|---:|---:|---:|---:|"]
    for d in columns:
        config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), levels=[d - 1])
        train, _ = split_tables(config, wide_table(args.rows, d), None)
        one = median_seconds(args.repeats, config, train)
        two = median_seconds(args.repeats, config, train, threads=2)
        game = median_seconds(args.repeats, config, train.iloc[:GAME_ROWS])
        rows_d.append(f"| {d} | {pair_copulas(d, d - 1):,} | {one:.1f} s | {two:.1f} s | {one / two:.2f}x | "
                      f"{game:.2f} s |")
        print(rows_d[-1], flush=True)
    d = args.level_columns
    rows_t = ["| level t | pair copulas | holder, 1 thread | one game model (500 rows) |", "|---:|---:|---:|---:|"]
    train, _ = split_tables(SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE)), wide_table(args.rows, d), None)
    for t in [int(t) for t in args.levels.split(",") if int(t) < d - 1] + [d - 1]:
        config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), levels=[t])
        one = median_seconds(args.repeats, config, train)
        game = median_seconds(args.repeats, config, train.iloc[:GAME_ROWS])
        rows_t.append(f"| {t} | {pair_copulas(d, t):,} | {one:.1f} s | {game:.2f} s |")
        print(rows_t[-1], flush=True)
    text = f"""# Width: how a fit's cost grows with the columns d and the level t

Reproduce: `python -m bench.width --rows {args.rows} --columns {args.columns} --levels {args.levels} --level-columns \
{d} --repeats {args.repeats}` (from the repo root).

- Date: {datetime.date.today().isoformat()}; machine: nproc={os.cpu_count()}, CPU: {cpu_model()}; Python \
{platform.python_version()}, pyvinecopulib {pv.__version__}; load average before: {load_before:.1f}, after: \
{os.getloadavg()[0]:.1f} (other work on the machine ran at nice 19).
- Table: `bench/tables.wide_table({args.rows}, d)`, {len(train)} training rows (80 %); the holder's recipe
  (`jobs.context.fit_holder`: Algorithm 1's order, empirical margins, Gaussian pair copulas by maximum likelihood,
  AIC against independence); medians of {args.repeats} fits in one process.

By width, the full vine (t = d - 1):

{chr(10).join(rows_d)}

By level, at d = {d}:

{chr(10).join(rows_t)}
"""
    (ROOT / "bench" / "width.md").write_text(text)


if __name__ == "__main__":
    main()
