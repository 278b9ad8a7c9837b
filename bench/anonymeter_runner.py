"""Runs the independent judges — anonymeter itself, and for bench/judges.py SDMetrics' DisclosureProtection — on sets
written by bench/anonymity.py or bench/judges.py; executed ONLY by the interpreter of a separate virtual environment
that has them installed (anonymeter pins numpy < 1.27 and sdmetrics 0.32 pandas < 3, so they can never share the
project's). bench/judges.py makes that environment from requirements-judges.lock; by hand:

    python3.11 -m venv /tmp/judges && /tmp/judges/bin/pip install --require-hashes --no-deps -r requirements-judges.lock
    /tmp/judges/bin/python bench/anonymeter_runner.py JOBS.json RESULTS.json

JOBS.json: {"train": CSV, "control": CSV, "sets": [{"key": ..., "synthetic": CSV}], "secrets": [[column, numeric], ...],
"n_attacks": n, "groups": [[...], [...]], "seed": s} and, optionally, "judges": the criteria to run (default: every
anonymeter criterion, as bench/anonymity.py wants: "singling_out", "linkability", "inference"; bench/judges.py adds
"disclosure_protection" and leaves singling out out), "deciles": true to code every numeric secret in the deciles of
its training column before the inference (anonymeter 1.1.0 divides a numeric guess's error by the signed guess, so a
negative guess always counts as a hit: coded in deciles, the secret is guessed as a category) and "continuous": the
columns DisclosureProtection discretises, "dp_targets": the training rows (a seeded sample) whose secrets it guesses
(its generalised CAP compares each with every synthetic row in Python: all of them cost minutes a set). Imports
nothing from tvs_core; writes per set and criterion anonymeter's risk, its interval, the three success rates and the
number of attacks, and DisclosureProtection's score per secret.
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import numpy as np
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

ANONYMETER = ("singling_out", "linkability", "inference")
DECILES = 10


def outcome(evaluator) -> dict:
    results = evaluator.results()
    risk = evaluator.risk()
    return {"risk": risk.value, "risk_low": risk.ci[0], "risk_high": risk.ci[1],
            "main_rate": results.attack_rate.value, "control_rate": results.control_rate.value,
            "baseline_rate": results.baseline_rate.value, "attacks": results.n_attacks_ori}


def decile_coded(train: pd.DataFrame, tables: list[pd.DataFrame], column: str) -> list[pd.DataFrame]:
    """``tables`` with ``column`` replaced by its decile of the training column (0-9; values beyond the training
    range fall in the outer deciles), as text, so that anonymeter guesses it as a category."""
    edges = np.unique(np.quantile(train[column].dropna(), np.linspace(0, 1, DECILES + 1))[1:-1])
    out = []
    for table in tables:
        table = table.copy()
        table[column] = np.searchsorted(edges, table[column].to_numpy(), side="right").astype(str)
        out.append(table)
    return out


def disclosure_protection(train: pd.DataFrame, syn: pd.DataFrame, secret: str, continuous: list[str],
                          targets: int | None = None, seed: int = 0) -> dict:
    """SDMetrics' DisclosureProtection of one secret, every other column known: the generalised CAP attacker (the
    synthetic rows nearest in Hamming distance on the known columns, each numeric column cut in SDMetrics' 10 bins,
    vote for the secret's bin), scored against random guessing (1: no better, 0: always right)."""
    from sdmetrics.single_table import DisclosureProtection

    known = [c for c in train.columns if c != secret]
    if targets is not None and targets < len(train):
        train = train.sample(n=targets, random_state=seed)
    found = DisclosureProtection.compute_breakdown(train, syn, known_column_names=known,
                                                   sensitive_column_names=[secret],
                                                   computation_method="generalized_cap",
                                                   continuous_column_names=continuous)
    return {"score": float(found["score"]), "cap_protection": float(found["cap_protection"]),
            "baseline_protection": float(found["baseline_protection"])}


def main(jobs_path: str, out_path: str) -> None:
    jobs = json.load(open(jobs_path))
    train, control = pd.read_csv(jobs["train"]), pd.read_csv(jobs["control"])
    n = jobs["n_attacks"]
    judges = jobs.get("judges", ANONYMETER)
    found = {}
    for entry in jobs["sets"]:
        syn = pd.read_csv(entry["synthetic"])
        started = time.perf_counter()
        row = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if "singling_out" in judges:
                for mode, name in (("multivariate", "singling_out"), ("univariate", "singling_out_univariate")):
                    row[name] = outcome(SinglingOutEvaluator(train, syn, n_attacks=500, n_cols=3, control=control,
                                                             seed=jobs["seed"]).evaluate(mode=mode))
            if "linkability" in judges:
                row["linkability"] = outcome(LinkabilityEvaluator(train, syn, aux_cols=tuple(jobs["groups"]),
                                                                  n_attacks=n, n_neighbors=1,
                                                                  control=control).evaluate(n_jobs=1))
            for secret, numeric in jobs["secrets"] if "inference" in judges else []:
                aux = [c for c in train.columns if c != secret]
                tables = [train, syn, control]
                coded = jobs.get("deciles", False) and numeric
                if coded:  # as a category: anonymeter 1.1's numeric rule counts every negative guess as a hit
                    tables = decile_coded(train, tables, secret)
                # numeric, not coded: within 5 % (anonymeter 1.1 defaults to exact)
                row[f"inference:{secret}"] = outcome(InferenceEvaluator(
                    tables[0], tables[1], aux_cols=aux, secret=secret, regression=numeric and not coded,
                    n_attacks=n, control=tables[2]).evaluate(n_jobs=1))
            for secret, _ in jobs["secrets"] if "disclosure_protection" in judges else []:
                row[f"disclosure_protection:{secret}"] = disclosure_protection(
                    train, syn, secret, jobs.get("continuous", []), jobs.get("dp_targets"), jobs["seed"])
        row["seconds"] = time.perf_counter() - started
        found[entry["key"]] = row
        print(entry["key"], f"{row['seconds']:.1f} s", flush=True)
    json.dump(found, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
