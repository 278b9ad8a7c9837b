"""Golden outputs: the numbers of a quick sweep and of ``evaluate()`` on both demos with fixed seeds.

Recorded once, before the two evaluation engines became one (issue 8), with
``python -m tests.golden.cases record``; ``python -m tests.golden.cases check`` recomputes every case
and ``tests/test_golden.py`` the small ones in CI: both entry points must give the same numbers.
Re-recorded for issue 11, which only added metrics (pair structure, CI overlap, pMSE, the shadow-free
membership attacks, the shuffled-columns anchors) and the utility mix of PU_t: every summary median
recorded before was checked unchanged first (/tmp-free: compare ``medians`` of the old and new file).
Re-recorded for issue 12 (Gaussian vines sampled through their normal-score matrix, Newton steps of the
logistic fits by Cholesky): every summary median, best level and PU_t unchanged; only the records' 12-digit
hash moved on some cases (values agree to ~1e-12 relative).
Re-recorded for issue 12 again (the attacker's regressions and correlation features by matmul instead of
einsum): every case's summary medians, record count, best level and PU_t unchanged; the record hash moved on the
four breast-cancer cases only (values agree to ~1e-11 relative).
A case's fingerprint is a SHA-256 of its records (values written to 12 significant digits, so a
change in the last bit of a float does not count, any real change does) plus every summary median.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent
COLUMNS = ["model", "level", "metric", "attribute", "target", "target_kind", "iteration", "value", "role"]

# name -> (entry point, demo, options). "small" cases run in CI; "full" ones are the default quick sweep.
CASES = {
    "sweep_clinical_small": ("sweep", "clinical", ["--levels", "1,5", "--baselines", "independent,dp_vine:1",
                                                   "--baseline-games"]),
    "sweep_breast_cancer_small": ("sweep", "breast_cancer", ["--levels", "2,8", "--baselines", "gaussian_copula"]),
    "evaluate_clinical_small": ("evaluate", "clinical", {"levels": [1, 5], "baselines": ["independent"]}),
    "evaluate_breast_cancer_small": ("evaluate", "breast_cancer", {"levels": [2, 8], "baselines": []}),
    "sweep_clinical_full": ("sweep", "clinical", []),
    "sweep_breast_cancer_full": ("sweep", "breast_cancer", []),
    "evaluate_clinical_full": ("evaluate", "clinical", {"levels": None, "baselines": ["independent",
                                                                                      "gaussian_copula"]}),
    "evaluate_breast_cancer_full": ("evaluate", "breast_cancer", {"levels": None, "baselines": ["independent"]}),
}


def fingerprint(records: pd.DataFrame) -> str:
    frame = records[COLUMNS].copy()
    frame["value"] = [f"{v:.12g}" for v in frame["value"]]
    frame = frame.astype(str).sort_values(COLUMNS, kind="stable")
    return hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()


def medians(summary: pd.DataFrame) -> dict[str, float]:
    keys = ["model", "level", "role", "metric", "attribute", "target_kind"]
    return {"|".join(str(v) for v in row[keys]): round(float(row["median"]), 10) for _, row in summary.iterrows()
            if pd.notna(row["median"])}


def choice(summary: dict) -> dict[str, list]:
    """PU_t, wins and the Pareto flag per TVineSynth level of a sweep's summary.json."""
    return {str(e["level"]): [None if e.get("pu") is None else round(e["pu"], 10), round(e["wins"], 10), e["pareto"]]
            for e in summary["levels"] if e["model"] == "tvinesynth" and "wins" in e}


def run_sweep(demo: str, options: list[str]) -> tuple[pd.DataFrame, dict]:
    from tvs_core.cli import main

    with tempfile.TemporaryDirectory() as folder:
        code = main(["sweep", "--demo", demo, "--workspace", f"{folder}/ws", "--out", f"{folder}/out",
                     "--n-jobs", "2", *options])
        assert code == 0, f"sweep exited with {code}"
        records = pd.read_csv(f"{folder}/out/results.csv", dtype={"attribute": object, "target_kind": object,
                                                                  "role": object})
        summary = json.loads(Path(f"{folder}/out/summary.json").read_text())
    records["level"] = records["level"].astype("Int64")
    records["target"] = records["target"].astype("Int64")
    records["iteration"] = records["iteration"].astype("Int64")
    return records, summary


def run_evaluate(demo: str, options: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    from tvs_core import TVineSynth, evaluate, holdout_split, load_demo
    from tvs_core.data.demo import DEMOS

    spec = DEMOS[demo]
    table = load_demo(demo)
    train, test = holdout_split(table, spec.response, 0.2, 0)
    model = TVineSynth(response=spec.response, sensitive=list(spec.sensitive), seed=0).fit(train)
    result = evaluate(model, train, test, levels=options["levels"], preset="quick", seed=0, n_jobs=2,
                      baselines=_baseline_specs(options["baselines"], spec))
    records = result.records.copy()
    for column in ("target", "iteration"):
        records[column] = pd.array(records[column], dtype="Int64")
    return records, result.summary()


def _baseline_specs(names: list[str], spec):
    from tvs_core.evaluation import GeneratorSpec

    base = {"response": spec.response, "sensitive": list(spec.sensitive), "margins": "empirical",
            "missing": "drop_rows", "measure": "kendall"}
    return [GeneratorSpec(name, dict(base), name) for name in names]


def compute(case: str) -> dict:
    entry, demo, options = CASES[case]
    if entry == "sweep":
        records, summary = run_sweep(demo, options)
        from tvs_core.evaluation.summary import summarise

        return {"records": fingerprint(records), "n_records": len(records), "best_level": summary["best_level"],
                "medians": medians(summarise(records)), "choice": choice(summary)}
    records, summary = run_evaluate(demo, options)
    return {"records": fingerprint(records), "n_records": len(records), "medians": medians(summary)}


def path(case: str) -> Path:
    return HERE / f"{case}.json"


if __name__ == "__main__":  # python -m tests.golden.cases record [CASE ...]
    wanted = sys.argv[2:] or list(CASES)
    for name in wanted:
        result = compute(name)
        if sys.argv[1] == "record":
            path(name).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        else:
            old = json.loads(path(name).read_text())
            print(name, "same" if old == result else "DIFFERENT")
        print(name, result["records"], result["n_records"], flush=True)
