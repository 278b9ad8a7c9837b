"""The empirical audit of the DP baselines' claims (issue 25): claimed ε next to the ε their releases demonstrably
spend, on both demos, with what each audit cost.

Each audit is ``evaluation.metrics.audit.run_audit`` with the default 80 fits on at most 1 000 training rows (split as a
sweep splits them, seed 0): the same trials a sweep run with ``--audit-dp`` stores as its ``dp_audit`` tasks.
MST is not audited here (80 fits of about 9 s each on the clinical demo); one fit is timed, and the sweep's
estimate of the audit (``jobs.progress.competitor_fits``, from the competitors' measured fit costs) is shown next
to it. Usage, at low priority on a shared machine:

    nice -n 19 .venv/bin/python -m bench.dp_audit

writes bench/dp_audit.md.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.common import exit_with_usage_if_asked
from bench.machine import cpu_model
from tvs_core import load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.data.schema import infer_schema
from tvs_core.data.split import holdout_split
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.metrics.audit import AUDIT_ROWS, DEFAULT_TRIALS, audit_base, run_audit
from tvs_core.jobs.config import SweepConfig, baseline_spec
from tvs_core.model.competitors import fit_cost
from tvs_core.model.registry import BaselineName

ROOT = Path(__file__).resolve().parents[1]

AUDITS = {"clinical": ("dp_vine:0.1", "dp_vine:1", "dp_vine:10", "privbayes:0.1", "privbayes:1", "privbayes:5"),
          "breast_cancer": ("dp_vine:1", "privbayes:1")}


def main() -> None:
    lines = ["# DP audit: claimed ε against the ε the releases demonstrably spend (issue 25)", "",
             f"Machine: {cpu_model()}, 2 cores, run at nice 19 beside other work. `python -m bench.dp_audit`: "
             f"{DEFAULT_TRIALS} fits per generator on at most {AUDIT_ROWS} training rows, two canaries (beyond the "
             "range; at its corner), two membership scores, the first half of the fits choosing score and "
             "threshold, the second half measured; ε_lb at 95 % confidence (Clopper-Pearson, Bonferroni over "
             "canaries and rates). A perfect test proves at most the 'most provable' column.", "",
             "| demo | generator | claimed ε | δ | ε_lb (95 %) | verdict | canary/score | TPR | FPR | most provable |"
             " seconds |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for demo, names in AUDITS.items():
        spec = DEMOS[demo]
        table = load_demo(demo)
        schema = infer_schema(table).with_roles(spec.response, list(spec.sensitive))
        data = EvaluationData.from_tables(*holdout_split(table, spec.response, 0.2, 0), schema)
        config = SweepConfig(response=spec.response, sensitive=list(spec.sensitive))
        for name in names:
            started = time.perf_counter()
            result = run_audit(baseline_spec(BaselineName.parse(name), config), data, 0, DEFAULT_TRIALS)
            seconds = time.perf_counter() - started
            verdict = "**REFUTED**" if result.flagged else "not refuted"
            lines.append(f"| {demo} | {name} | {result.claimed_epsilon:g} | {result.delta:g} | "
                         f"{result.empirical_epsilon:.2f} | {verdict} | {result.canary} | {result.tpr:.2f} | "
                         f"{result.fpr:.2f} | {result.most_provable:.2f} | {seconds:.0f} |")
            print(lines[-1], flush=True)
        rows = min(len(data.train), AUDIT_ROWS)
        estimate = fit_cost("mst", None, rows, len(data.names)) * DEFAULT_TRIALS
        started = time.perf_counter()
        mst = baseline_spec(BaselineName.parse("mst:2.5"), config).build(0)
        mst.fit_encoded(audit_base(data, 0), data.encoder, data.schema)
        one = time.perf_counter() - started
        lines.append(f"| {demo} | mst:2.5 | 2.5 | 1e-05 | not run | — | — | — | — | — | one fit {one:.0f} s: "
                     f"{one * DEFAULT_TRIALS / 60:.0f} min for {DEFAULT_TRIALS} (the estimate's prior: "
                     f"{estimate / 60:.0f} min) |")
    (ROOT / "bench" / "dp_audit.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    main()
