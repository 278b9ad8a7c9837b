"""Per-task CPU seconds of the default quick sweep on support_like, every task in this one process (one thread),
and the schedule of that code's own estimator on 2 workers: the load-independent comparison of bench/sweep.md.

Usage: ``cd CHECKOUT && PYTHONPATH=/path/to/repo python -m bench.sweep_cpu OUT.json`` — the tvs_core measured is
the current folder's (run it from an old checkout, or a folder with its ``git archive BASE tvs_core``, for "before";
from the repo root for "after")."""
import os

for n in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[n] = "1"
import json
import sys
import time

import tvs_core
from bench.common import exit_with_usage_if_asked
from bench.tables import RESPONSE, SENSITIVE, support_like
from tvs_core.jobs import SweepConfig, handlers
from tvs_core.jobs.context import context_for_job
from tvs_core.jobs.plan import plan
from tvs_core.jobs.progress import seconds_left

try:
    from tvs_core.jobs import tasks as tasks_module
except ImportError:  # a version before the task kinds were typed
    tasks_module = None



def main(out_path: str) -> None:
    """Every task of the quick sweep timed in this process; the estimator's schedule of those costs."""
    print(tvs_core.__file__, flush=True)
    config = SweepConfig(response=RESPONSE, sensitive=list(SENSITIVE), preset="quick")
    c0 = time.process_time()
    ctx = context_for_job(config, support_like(), None)
    holder_cpu = time.process_time() - c0
    tasks = plan(ctx)
    payload, cpu = {}, {}
    for stage in sorted({t.stage for t in tasks if t.stage > 0}):
        todo = [t for t in tasks if t.stage == stage]
        if tasks_module is not None and hasattr(tasks_module, "reads_from"):  # this version: what each task reads
            def pick(task):
                return [payload[t.name] for t in tasks_module.reads_from(task, tasks)]
        elif tasks_module is not None:  # task kinds typed, each task reads its own payloads (by kind and player)
            payloads = tasks_module.stage_payloads(tasks, todo, payload.get)

            def pick(task, payloads=payloads):
                return tasks_module.task_payloads(task, payloads)
        elif hasattr(handlers, "task_inputs"):  # each task gets its own inputs
            inputs = handlers.stage_inputs(tasks, todo, payload.get)

            def pick(task, inputs=inputs):
                return handlers.task_inputs(task, inputs)
        else:  # before issue 27: one input dict per stage
            inputs = handlers.stage_inputs(stage, tasks, payload.get)

            def pick(task, inputs=inputs):
                return inputs
        for t in todo:
            c = time.process_time()
            name, kind = str(t.key), str(getattr(t.kind, "value", t.kind))
            _, payload[name] = (tasks_module or handlers).run_task(t, ctx, pick(t))
            cpu.setdefault(kind, []).append(time.process_time() - c)
            print(name, round(cpu[kind][-1], 2), flush=True)
    cpu["holder"] = [holder_cpu]
    entries = tasks if tasks_module is not None else [[t.key, t.kind, t.stage] for t in tasks]
    costs = {k: sum(v) / len(v) for k, v in cpu.items()}
    model = seconds_left(entries, set(), costs, 2)
    levels_entries = [e for e in entries if (e.kind if tasks_module is not None else e[1])
                      in ("holder", "reference", "release")]
    out = {"cpu": cpu, "model_2_workers": model, "total_cpu": sum(map(sum, cpu.values())),
           "levels_model": seconds_left(levels_entries, set(), costs, 2)}
    json.dump(out, open(out_path, "w"), indent=1)
    print(json.dumps({k: v for k, v in out.items() if k != "cpu"}))


if __name__ == "__main__":
    exit_with_usage_if_asked(__doc__)
    main(sys.argv[1])
