"""PrivPGD's fit, faster and the same method (issue 38): CPU seconds per fit, a profile of a shortened fit, and
the equivalence of the old and new code's results over seeds.

Why: a PrivPGD fit took ~20 min on the 884 x 27 table (bench/competitors.md, "PrivPGD"); issue 38 rewrote its
generation step (tvs_core/model/particles.py) to be at least 8x cheaper. The numbers here show the cost before and
after, and that the rewrite is the same method: the two-way marginal error and TSTR of old and new fits over seeds
on both demos must fall within each other's spread.

Usage (from the repo root; one core, low priority, one torch thread — as a fit inside a sweep):

  ``taskset -c 1 nice -n 10 python -m bench.privpgd_speed fits --out new.json [--seeds 0,1,2,3,4]
  [--tables clinical,breast_cancer,support]``: per table and seed one fit at the defaults; its CPU seconds
  (``time.process_time``), the mean total-variation distance of the particles' two-way marginals to the training
  table's on the fit's own grid ("marginal error"), and TSTR (random-forest AUC, median over 3 published sets
  against the hold-out). Appends each fit to ``--out`` as it finishes (a stopped run keeps what finished).
  ``... profile [--epochs 20] [--projection 175]``: cProfile of a fit of the clinical demo at
  ``--epochs`` epochs and ``--projection`` projection-step iterations (a tenth of the defaults' 1000 and 1750),
  its top functions by own time.
  ``python -m bench.privpgd_speed report old.json new.json``: the section of bench/competitors.md, to stdout.
The old code's numbers: ``tvs_core`` is imported from the folder the command runs in, so extract it
(``git archive 87b7fcf tvs_core | tar -x -C DIR``) and run from there with this repository on the path:
``cd DIR && PYTHONPATH=/path/to/repo taskset -c 1 nice -n 10 python -m bench.privpgd_speed fits --out old.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import time
from itertools import combinations
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("clinical", "breast_cancer", "support")
TSTR_SETS = 3


def table(name: str):
    """(table, response, sensitive) of a demo or of the 884 x 27 SUPPORT2-shaped table."""
    from tvs_core import load_demo
    from tvs_core.data.demo import DEMOS

    if name == "support":
        from bench.tables import RESPONSE, SENSITIVE, support_like

        return support_like(), RESPONSE, list(SENSITIVE)
    return load_demo(name), DEMOS[name].response, list(DEMOS[name].sensitive)


def split(name: str):
    """The sweep's hold-out split of a table (its default seed and fraction): (train, test, response, sensitive)."""
    from tvs_core.jobs import SweepConfig
    from tvs_core.jobs.context import split_tables

    frame, response, sensitive = table(name)
    train, test = split_tables(SweepConfig(response=response, sensitive=sensitive), frame, None)
    return train, test, response, sensitive


def marginal_error(model, train) -> float:
    """Mean over all column pairs of the total-variation distance between the particles' two-way marginal and the
    training table's, on the fit's own grid (what PrivPGD's objective matches)."""
    import numpy as np

    from tvs_core.model.competitors import discretise, grid_sizes
    from tvs_core.model.mst import marginal_counts

    values = model.encoder_.transform(train)
    values = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values, dtype=float)
    cells, grids = discretise(values, model.encoder_.discrete, int(model.bins))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(grids, model.cells_, strict=True)), "not the fit's grid"
    sizes = grid_sizes(grids)
    distances = []
    for pair in combinations(range(cells.shape[1]), 2):
        real = marginal_counts(cells, sizes, pair)
        synthetic = marginal_counts(model.particles_, sizes, pair)
        distances.append(0.5 * float(np.abs(real / real.sum() - synthetic / synthetic.sum()).sum()))
    return float(np.mean(distances))


def tstr(model, train, test, response: str) -> float:
    """Median random-forest AUC over ``TSTR_SETS`` published sets of |train| rows against the hold-out."""
    from tvs_core.evaluation.metrics.utility import utility_score

    return median(utility_score(model.encoder_, model.sample(len(train), seed=s), test, response, "random_forest",
                                seed=s) for s in range(TSTR_SETS))


def fit(name: str, seed: int, **settings):
    """One PrivPGD fit at the defaults, one torch thread: (model, CPU seconds, wall seconds, train, test)."""
    import torch

    from tvs_core.model.privpgd import PrivPGD

    torch.set_num_threads(1)
    train, test, response, sensitive = split(name)
    model = PrivPGD(response=response, sensitive=sensitive, seed=seed, threads=1, **settings)
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(train)
    return model, time.process_time() - cpu, time.perf_counter() - wall, train, test, response


def run_fits(args) -> None:
    out = Path(args.out)
    done = json.loads(out.read_text()) if out.exists() else []
    for name in args.tables.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            if any(r["table"] == name and r["seed"] == seed for r in done):
                continue
            model, cpu, wall, train, test, response = fit(name, seed)
            row = {"table": name, "seed": seed, "rows": len(train), "columns": len(model.encoder_.names),
                   "cpu_seconds": cpu, "wall_seconds": wall, "marginal_error": marginal_error(model, train),
                   "tstr_auc": tstr(model, train, test, response), "source": _measured_source(),
                   "load_average": os.getloadavg()[0]}
            done.append(row)
            out.write_text(json.dumps(done, indent=1))
            print(json.dumps(row), flush=True)


def _measured_source() -> str:
    """The code a fit measured, for its record: this checkout's commit, or the folder another ``tvs_core`` came
    from."""
    import subprocess

    import tvs_core

    folder = Path(tvs_core.__file__).resolve().parents[1]
    if folder != ROOT:
        return str(folder)
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def run_profile(args) -> None:
    import torch  # noqa: F401  (imports outside the profile)

    import tvs_core.model.particles  # noqa: F401
    import tvs_core.model.privpgd  # noqa: F401

    split("clinical")
    profiler = cProfile.Profile()
    profiler.enable()
    _, cpu, *_ = fit("clinical", 0, iterations=int(args.epochs), projection_iterations=int(args.projection))
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    phases = {f[2]: v[3] for f, v in stats.stats.items() if f[2] in ("project_marginals", "particle_gradient_descent")}
    stream.write(f"phases (cumulative s, under the profiler): {phases}\n")
    stats.sort_stats("tottime").print_stats(int(args.top))
    print(f"clinical, {args.epochs} epochs, {args.projection} projection-step iterations: {cpu:.1f} CPU s\n"
          f"{stream.getvalue()}")


def _spread(values: list[float]) -> str:
    return f"{median(values):.4f} [{min(values):.4f}, {max(values):.4f}]"


def _within(a: list[float], b: list[float]) -> str:
    """Whether each side's median lies inside the other side's range (min to max over seeds)."""
    return "yes" if min(a) <= median(b) <= max(a) and min(b) <= median(a) <= max(b) else "**no**"


def report(args) -> None:
    """The tables of bench/competitors.md: CPU seconds per fit, then marginal error and TSTR, old against new."""
    from tvs_core.model.competitors import fit_cost

    old, new = (json.loads(Path(p).read_text()) for p in (args.old, args.new))
    lines = ["| table | K | fits old / new | old CPU s per fit: median [min, max] | new | old / new (medians) | "
             "`fit_cost` (new) |", "|---|---:|---|---|---|---:|---:|"]
    for name in TABLES:
        a = [r["cpu_seconds"] for r in old if r["table"] == name]
        b = [r["cpu_seconds"] for r in new if r["table"] == name]
        if a and b:
            d = next(r["columns"] for r in new if r["table"] == name)
            lines.append(f"| {name} | {d * (d - 1) // 2} | {len(a)} / {len(b)} | {median(a):.0f} [{min(a):.0f}, "
                         f"{max(a):.0f}] | {median(b):.0f} [{min(b):.0f}, {max(b):.0f}] | {median(a) / median(b):.1f} "
                         f"| {fit_cost('privpgd', None, 0, d):.0f} |")
    lines += ["", "| table | metric | old: median [min, max] | new: median [min, max] | each median in the other's "
              "range | old per seed | new per seed |", "|---|---|---|---|---|---|---|"]
    for name in TABLES:
        for metric in ("marginal_error", "tstr_auc"):
            a = {r["seed"]: r[metric] for r in old if r["table"] == name}
            b = {r["seed"]: r[metric] for r in new if r["table"] == name}
            if a and b:
                lines.append(f"| {name} | {metric} | {_spread(list(a.values()))} | {_spread(list(b.values()))} | "
                             f"{_within(list(a.values()), list(b.values()))} | "
                             + ", ".join(f"{a[s]:.3f}" for s in sorted(a)) + " | "
                             + ", ".join(f"{b[s]:.3f}" for s in sorted(b)) + " |")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fits = commands.add_parser("fits")
    fits.add_argument("--out", required=True)
    fits.add_argument("--seeds", default="0,1,2,3,4")
    fits.add_argument("--tables", default=",".join(TABLES))
    profile = commands.add_parser("profile")
    profile.add_argument("--epochs", default=20)
    profile.add_argument("--projection", default=175)
    profile.add_argument("--top", default=25)
    reported = commands.add_parser("report")
    reported.add_argument("old")
    reported.add_argument("new")
    args = parser.parse_args()
    {"fits": run_fits, "profile": run_profile, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
