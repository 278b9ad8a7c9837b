"""Runs anonymeter itself on sets written by bench/anonymity.py; executed ONLY by the interpreter of a throw-away
virtual environment that has anonymeter installed (it pins numpy < 1.27, so it can never share the project's):

    python3 -m venv /tmp/anonvenv && /tmp/anonvenv/bin/pip install anonymeter
    /tmp/anonvenv/bin/python bench/anonymeter_runner.py JOBS.json RESULTS.json

JOBS.json: {"train": CSV, "control": CSV, "sets": [{"key": ..., "synthetic": CSV}], "secrets": [[column, numeric], ...],
"n_attacks": n, "groups": [[...], [...]], "seed": s}. Imports nothing from tvs_core; writes per set and criterion
anonymeter's risk, its interval, the three success rates and the number of attacks.
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator


def outcome(evaluator) -> dict:
    results = evaluator.results()
    risk = evaluator.risk()
    return {"risk": risk.value, "risk_low": risk.ci[0], "risk_high": risk.ci[1],
            "main_rate": results.attack_rate.value, "control_rate": results.control_rate.value,
            "baseline_rate": results.baseline_rate.value, "attacks": results.n_attacks_ori}


def main(jobs_path: str, out_path: str) -> None:
    jobs = json.load(open(jobs_path))
    train, control = pd.read_csv(jobs["train"]), pd.read_csv(jobs["control"])
    n = jobs["n_attacks"]
    found = {}
    for entry in jobs["sets"]:
        syn = pd.read_csv(entry["synthetic"])
        started = time.perf_counter()
        row = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for mode, name in (("multivariate", "singling_out"), ("univariate", "singling_out_univariate")):
                row[name] = outcome(SinglingOutEvaluator(train, syn, n_attacks=500, n_cols=3, control=control,
                                                         seed=jobs["seed"]).evaluate(mode=mode))
            row["linkability"] = outcome(LinkabilityEvaluator(train, syn, aux_cols=tuple(jobs["groups"]),
                                                              n_attacks=n, n_neighbors=1,
                                                              control=control).evaluate(n_jobs=1))
            for secret, numeric in jobs["secrets"]:  # numeric: within 5 % (anonymeter 1.1 defaults to exact)
                aux = [c for c in train.columns if c != secret]
                row[f"inference:{secret}"] = outcome(InferenceEvaluator(train, syn, aux_cols=aux, secret=secret,
                                                                        regression=numeric, n_attacks=n,
                                                                        control=control).evaluate(n_jobs=1))
        row["seconds"] = time.perf_counter() - started
        found[entry["key"]] = row
        print(entry["key"], f"{row['seconds']:.1f} s", flush=True)
    json.dump(found, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
