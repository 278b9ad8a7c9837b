"""The three GDPR criteria per truncation level on both demos, their cost per set, and the agreement with
anonymeter itself (issue 25).

For each demo (split as a sweep splits it: 20 % hold-out, seed 0) it fits TVineSynth with the default settings
and draws ``SETS`` published sets per default level exactly as a sweep does (``release_sets``), plus the same
number from the ``independent`` baseline (empirical margins, and with KDE margins), one verbatim copy of the
training rows (``copy``) and the real rows shuffled column by column (``shuffled``). Each set is scored by
``metrics.gdpr.gdpr_criteria`` (timed: the seconds the criteria add to every published set of a sweep) and, in a
throw-away virtual environment outside the project, by anonymeter itself (bench/anonymeter_runner.py, run by
``--anonvenv``'s interpreter through a subprocess) on the same sets written as CSV files: the decoded tables a
release writes. anonymeter pins numpy < 1.27 and is never a dependency of the project.

Usage (from the repo root, at low priority on a shared machine):

    python3 -m venv /tmp/anonvenv && /tmp/anonvenv/bin/pip install anonymeter
    nice -n 19 .venv/bin/python -m bench.anonymity [--anonvenv /tmp/anonvenv] [--sets 3]

writes bench/anonymity.md and bench/anonymity.json (every set's figures from both tools).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.machine import cpu_model
from tvs_core import TVineSynth, load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.data.schema import CATEGORICAL_TYPES, ColumnType
from tvs_core.data.split import holdout_split
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.metrics.gdpr import N_ATTACKS, column_groups, gdpr_criteria
from tvs_core.evaluation.release import release_sets, set_size, shuffled_sets
from tvs_core.evaluation.set_metrics import SyntheticSet
from tvs_core.model.baselines import IndependentMargins
from tvs_core.model.ordering import default_levels

ROOT = Path(__file__).resolve().parents[1]

SEED = 0
CRITERIA = ("singling_out", "singling_out_univariate", "linkability")


def criteria_of(found: dict, sensitive: list[str]) -> dict[str, dict]:
    """{criterion or inference:COLUMN: {risk, risk_low, risk_high, main_rate, control_rate, baseline_rate,
    attacks}} from one set's records."""
    parts = ("risk", "risk_low", "risk_high", "main_rate", "control_rate", "baseline_rate", "attacks")
    out = {c: {p: found[f"{c}_{p}"] for p in parts} for c in CRITERIA}
    for column in sensitive:
        out[f"inference:{column}"] = {p: found[f"inference_{p}"][column] for p in parts}
    return out


# (demo, hold-out fraction): each demo as a sweep splits it, and the clinical demo halved, where the hold-out is as
# large as the training rows and neither tool corrects singling out's control for size
CASES = (("clinical", 0.2), ("breast_cancer", 0.2), ("clinical", 0.5))


def sets_of(demo: str, n_sets: int, fraction: float = 0.2):
    """(data, [(label, level, index, encoded rows)]): the published sets a sweep draws, and the references."""
    spec = DEMOS[demo]
    train, test = holdout_split(load_demo(demo), spec.response, fraction, SEED)
    model = TVineSynth(response=spec.response, sensitive=list(spec.sensitive), seed=SEED).fit(train)
    data = EvaluationData.from_model(model, train, test)
    size = set_size(data)
    found = []
    for level in default_levels(model.fitted_level_):
        for i, values in enumerate(release_sets(model, level, range(n_sets), size, SEED, "tvinesynth")):
            found.append(("tvinesynth", level, i, values))
    for margins in ("empirical", "kde"):
        independent = IndependentMargins(margins=margins, seed=SEED).fit_encoded(data.train, data.encoder,
                                                                                 data.schema)
        label = "independent" if margins == "empirical" else "independent (KDE margins)"
        found += [(label, None, i, independent.sample_values(size, None, 1000 + i)) for i in range(n_sets)]
    copy = data.train[np.random.default_rng(SEED).permutation(len(data.train))]
    found.append(("copy", None, 0, copy))
    found += [("shuffled", None, i, values) for i, values in enumerate(shuffled_sets(data.train, SEED, n_sets))]
    return data, found


def ours(data: EvaluationData, sets: list) -> tuple[dict, list[float]]:
    results, seconds = {}, []
    for label, level, index, values in sets:
        started = time.perf_counter()
        found = gdpr_criteria(SyntheticSet(values, data, SEED, label, level, index))
        seconds.append(time.perf_counter() - started)
        results[f"{label}|{level}|{index}"] = criteria_of(found, list(data.schema.sensitive))
    return results, seconds


def theirs(data: EvaluationData, sets: list, venv: Path) -> dict:
    """anonymeter on the same sets, decoded as a release writes them, in the throw-away environment."""
    decode = data.encoder.inverse_transform
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        decode(data.train).to_csv(folder / "train.csv", index=False)
        decode(data.test).to_csv(folder / "control.csv", index=False)
        entries = []
        for number, (label, level, index, values) in enumerate(sets):
            decode(values).to_csv(folder / f"set{number}.csv", index=False)
            entries.append({"key": f"{label}|{level}|{index}", "synthetic": str(folder / f"set{number}.csv")})
        first, second = column_groups(len(data.names))
        secrets = [[c, data.schema[c].type not in (*CATEGORICAL_TYPES, ColumnType.DATETIME)]
                   for c in data.schema.sensitive]
        jobs = {"train": str(folder / "train.csv"), "control": str(folder / "control.csv"), "sets": entries,
                "secrets": secrets, "n_attacks": min(N_ATTACKS, len(data.train), len(data.test)),
                "groups": [[data.names[j] for j in first], [data.names[j] for j in second]], "seed": SEED}
        (folder / "jobs.json").write_text(json.dumps(jobs))
        subprocess.run([str(venv / "bin" / "python"), str(ROOT / "bench" / "anonymeter_runner.py"),
                        str(folder / "jobs.json"), str(folder / "out.json")], check=True)
        return json.loads((folder / "out.json").read_text())


def per_level_table(results: dict, other: dict | None, criteria: list[str]) -> str:
    """Median over a point's sets of each criterion's risk [median interval] (ours), and anonymeter's median."""
    points = {}
    for key in results:
        label, level, _ = key.split("|")
        points.setdefault((label, level), []).append(key)
    head = "| model | level | " + " | ".join(criteria) + " |"
    lines = [head, "|" + "---|" * (len(criteria) + 2)]
    for (label, level), keys in points.items():
        cells = []
        for c in criteria:
            risk = np.median([results[k][c]["risk"] for k in keys])
            low = np.median([results[k][c]["risk_low"] for k in keys])
            high = np.median([results[k][c]["risk_high"] for k in keys])
            cell = f"{risk:.2f} [{low:.2f}, {high:.2f}]"
            if other:
                cell += f" / {np.median([other[k][c]['risk'] for k in keys]):.2f}"
            cells.append(cell)
        lines.append(f"| {label} | {'—' if level == 'None' else level} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def agreement(results: dict, other: dict, criteria: list[str]) -> str:
    """Per criterion over every set: mean |ours - anonymeter| of the risk, how often the two 95 % intervals
    overlap, and the same for the three success rates."""
    lines = ["| criterion | sets | mean abs. risk difference | intervals overlap | main rate diff. | "
             "control rate diff. | baseline rate diff. |", "|---|---|---|---|---|---|---|"]
    for c in criteria:
        keys = [k for k in results if k in other]
        diff = [abs(results[k][c]["risk"] - other[k][c]["risk"]) for k in keys]
        overlap = [results[k][c]["risk_low"] <= other[k][c]["risk_high"] and
                   other[k][c]["risk_low"] <= results[k][c]["risk_high"] for k in keys]
        rates = [np.mean([abs(results[k][c][r] - other[k][c][r]) for k in keys])
                 for r in ("main_rate", "control_rate", "baseline_rate")]
        lines.append(f"| {c} | {len(keys)} | {np.mean(diff):.3f} (max {np.max(diff):.3f}) | "
                     f"{np.mean(overlap):.0%} | " + " | ".join(f"{r:.3f}" for r in rates) + " |")
    return "\n".join(lines)


READING = """## Reading

* **Known answers.** The verbatim copy scores about 1 on every criterion with both tools; the real rows shuffled
  column by column score about 0 except univariate singling out, which is 1 with both tools: shuffling keeps every
  training value, and a value that occurs once in the release and once in the training rows singles a person out.
* **Where the two tools agree.** Linkability and inference: the same attacks, distances and success rules, and the
  same risks within their intervals (table "Agreement"). Singling out on the halved clinical demo, where the
  hold-out is as large as the training rows, is the like-for-like comparison of the singling-out attacks.
* **Where they differ, and why.**
  * Singling out's control when the hold-out is smaller than the training rows (every 20 % split). Whether a
    predicate isolates one row depends on how many rows it is checked on; anonymeter corrects the control's count
    by a fitted model of that dependence. As we read anonymeter 1.1.0's code, the points it fits are the numbers
    of queries rather than of successes (`len(_evaluate_queries(...))`), and with fewer than 1 000 control rows
    every point is at the control's own size, so the fit is degenerate and the correction comes out as the size
    ratio (n_control + 1) / (n_train + 1): 0.2507 for 250 / 1 000 rows, checked by calling its
    `fit_correction_term` on random data in the throw-away environment. The control's count is thus divided by
    about 4, and its singling-out risks are above 0 even for releases that know nothing of the training rows
    (independent KDE margins, shuffled rows); with an equal hold-out (the halved clinical demo) no correction is
    applied and the two tools agree. Ours measures the control at the
    training set's size by exchangeability (evaluation/metrics/gdpr.py) and reads about 0 there, as a release that
    knows nothing must.
  * Inference's naive baseline: anonymeter 1.1.0 re-indexes its random guesses to the targets' row labels
    (`guesses.reindex_like(targets)`), so only targets whose label was among the sampled synthetic rows get a guess
    and its baseline rate is lower. The baseline is a sanity check and enters no risk.
  * anonymeter's linkability and inference draw their targets unseeded: its figures differ from run to run within
    their intervals; ours are seeded from the sweep's master seed.
* **What the levels show.** Multivariate singling out, linkability and inference stay near 0 at every level of
  both demos (the lead's anonymeter run on SUPPORT2 found the same), so the criteria do not choose the level.
  Univariate singling out is measurably above 0 for TVineSynth and for the independent baseline alike on the
  clinical demo: empirical margins republish training values (and the extremes), and a value that occurs once in
  both singles a person out; the same baseline with KDE margins reads about 0.
"""


def render(everything: dict, n_sets: int) -> str:
    """bench/anonymity.md from the figures of every case (recomputed, or read back with --from-json)."""
    report = ["# The three GDPR criteria per level, and anonymeter's own figures (issue 25)", "",
              f"Machine: {cpu_model()}, 2 cores, run at nice 19 beside other work. `python -m bench.anonymity` "
              f"({n_sets} published sets per point, drawn as a sweep draws them; seed {SEED}; anonymeter 1.1.0 in "
              "a throw-away environment, never a dependency). anonymeter's own example data (the adult census "
              "files of its repository's notebooks) is not in its package, and only the package index is reachable "
              "here, so the comparison runs on both demos (and the clinical demo halved) instead.", ""]
    for demo, fraction in CASES:
        found = everything[f"{demo} {fraction}"]
        results, other, seconds = found["ours"], found["anonymeter"], found["seconds"]
        spec = DEMOS[demo]
        train, test = holdout_split(load_demo(demo), spec.response, fraction, SEED)
        criteria = [*CRITERIA, *(f"inference:{c}" for c in spec.sensitive)]
        report += [f"## {demo}, {fraction:.0%} hold-out: {len(train)} training rows, {len(test)} hold-out rows, "
                   f"{train.shape[1]} columns", "",
                   f"Cost: the criteria add {np.median(seconds):.2f} s per published set (median of {len(seconds)} "
                   f"sets, range {min(seconds):.2f}-{max(seconds):.2f} s); a sweep scores 5 sets per level and "
                   "baseline and 6 reference sets.", "",
                   "Risk per point: median over its sets of the residual risk [median of the sets' 95 % intervals]"
                   + (" / anonymeter's median risk on the same sets." if other else "."), "",
                   per_level_table(results, other, criteria), ""]
        if other:
            their_seconds = np.median([v["seconds"] for v in other.values()])
            report += ["Agreement with anonymeter over every set of this case (risk: mean and largest absolute "
                       "difference; share of sets whose two 95 % intervals overlap; mean absolute difference of "
                       "each success rate):", "", agreement(results, other, criteria), "",
                       f"anonymeter's seconds per set: median {their_seconds:.1f}.", ""]
    return "\n".join(report) + "\n" + READING


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--anonvenv", type=Path, default=Path("/tmp/anonvenv"),
                        help="a virtual environment with anonymeter installed (none: ours only)")
    parser.add_argument("--sets", type=int, default=3)
    parser.add_argument("--from-json", action="store_true", help="render bench/anonymity.json again, no run")
    args = parser.parse_args()
    figures = ROOT / "bench" / "anonymity.json"
    if args.from_json:
        everything = json.loads(figures.read_text())
        n_sets = max(int(k.rsplit("|", 1)[1]) for k in everything["clinical 0.2"]["ours"]) + 1
    else:
        compare = (args.anonvenv / "bin" / "python").exists()
        everything, n_sets = {}, args.sets
        for demo, fraction in CASES:
            data, sets = sets_of(demo, args.sets, fraction)
            results, seconds = ours(data, sets)
            other = theirs(data, sets, args.anonvenv) if compare else None
            everything[f"{demo} {fraction}"] = {"ours": results, "anonymeter": other, "seconds": seconds}
        figures.write_text(json.dumps(everything, indent=1, default=float))
    text = render(everything, n_sets)
    (ROOT / "bench" / "anonymity.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
