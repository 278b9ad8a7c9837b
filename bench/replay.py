"""A recorded sweep's schedule (``python -m bench.eta record``: a real sweep's every task with its seconds and end)
replayed as the Sweep page reads it: what bench/eta.py measures the time left by, and
tests/jobs/test_progress_estimate.py holds it to."""

from __future__ import annotations

import json
from pathlib import Path

from tvs_core.jobs import SweepConfig
from tvs_core.jobs.progress import Finished, calibrated, chunk_share, competitor_fits, kind_priors, time_left
from tvs_core.jobs.tasks import Task, TaskKey
from tvs_core.storage import JobRow, Store


def load_at_plan(case: dict) -> float | None:
    """The load average the recording saw when its plan was stored (with the holder's fit); None for a job dumped
    afterwards."""
    began = next(end for key, _, _, end in case["tasks"] if key == "holder")
    return next((entry[3] for entry in reversed(sorted(case.get("shown", []))) if entry[0] <= began), None)


def store_as_done(store: Store, case: dict, job_id: str) -> None:
    """A recording in a workspace as a finished sweep (its tasks' seconds, shape and load at plan): an earlier sweep
    the time left of the next one learns its costs from."""
    config = SweepConfig(response=case["response"], sensitive=case["sensitive"], baselines=case["baselines"],
                         preset=case["preset"])
    store.create_job(job_id, job_id, config.to_dict())
    details = {key: case[key] for key in ("n_train", "n_columns", "n_targets")} | {"load_at_plan": load_at_plan(case)}
    store.update_job(job_id, status="done", details=json.dumps(details))
    for key, kind, seconds, _ in case["tasks"]:
        store.add_result(job_id, key, kind, [], seconds)


def polls(case: dict, tmp_path: Path, every: float = 5.0, earlier: dict | None = None):
    """Replay one recorded schedule (tests/jobs/recorded_schedules.json: ``python -m bench.eta record``, a real sweep's
    every task with its seconds and end) as the page reads it: at every task's end and every ``every`` seconds from
    the plan's start, the time left from what the store held then — its finished tasks, the running ones' work, the
    load average the recording saw (none for a job dumped afterwards); ``earlier``: a recording held in the workspace
    as a finished sweep, whose costs the replayed one starts from. Yields (time, time left — a ``TimeLeft``, both
    ends of its range —, time truly left, finished keys, expected seconds of each task then)."""
    plan = [Task(TaskKey.parse(key), (), stage) for key, stage in case["plan"]]
    names = {task.name for task in plan}
    config = SweepConfig(response=case["response"], sensitive=case["sensitive"], baselines=case["baselines"],
                         preset=case["preset"])
    job = JobRow(None, details={key: case[key] for key in ("n_train", "n_columns", "n_targets")})
    store = Store(tmp_path)
    if earlier is not None:
        store_as_done(store, earlier, "earlier")
    priors, _ = kind_priors(store, job)
    fits = competitor_fits(config, case["n_train"], case["n_columns"])
    began = next(end for key, _, _, end in case["tasks"] if key == "holder")  # the plan is stored with the holder
    load = load_at_plan(case)
    moments = sorted({end for *_, end in case["tasks"] if end >= began}
                     | {began + every * i for i in range(int((case["end"] - began) / every))})
    for now in moments:
        finished = [Finished(key, kind, seconds, end) for key, kind, seconds, end in case["tasks"] if end <= now]
        left = time_left(plan, finished, priors, fits, case["workers"], now, began, load, case["cores"])
        share = None if load is None else max(1.0, load / case["cores"])  # as time_left reads the load
        costs = calibrated(priors, [f for f in finished if f.key in names], fits, 1.0 if share is None else share,
                           share)
        expected = {task.name: costs.kinds.get(task.kind.value, 0.0) * chunk_share(task.name)
                    + costs.fits.get(task.name, 0.0) for task in plan}
        yield now, left, case["end"] - now, {f.key for f in finished}, expected
