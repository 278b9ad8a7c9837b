"""A sweep enters the store: its data is kept in the workspace, its settings and fingerprint in a job row."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum

import pandas as pd

from ..data.external import conform_external
from ..data.fingerprint import fingerprint_table
from ..data.schema import Schema
from ..data.split import MIN_HOLDOUT_ROWS, explicit_holdout
from ..data.validation import check, unseen_labels, validate
from ..errors import DataError, DataErrors
from ..model.ordering import Measure
from ..storage.store import ACTIVE, JobRow, JobStatus, Store
from .backends import Backend
from .config import SETTING_NAMES, SweepConfig, baseline_spec, check_external_name, job_id_for
from .context import schema_for, split_tables
from .plan import audited
from .process import start_worker, worker_alive


def _fingerprint(table: pd.DataFrame, holdout: pd.DataFrame | None) -> str:
    return data_fingerprint(fingerprint_table(table), None if holdout is None else fingerprint_table(holdout))


def data_fingerprint(table_fingerprint: str, holdout_fingerprint: str | None) -> str:
    """A sweep's data: its table and the hold-out file the user gave (if any), from their own fingerprints."""
    return hashlib.sha256((table_fingerprint + (holdout_fingerprint or "")).encode()).hexdigest()


def with_externals(config: SweepConfig, table: pd.DataFrame, holdout: pd.DataFrame | None,
                   externals: dict[str, pd.DataFrame] | None) -> tuple[SweepConfig, dict[str, pd.DataFrame]]:
    """The configuration naming each external set by the fingerprint of its rows, and the sets checked
    against the training split's schema now (a wrong column is refused before anything is stored)."""
    if not externals:
        return config, {}
    train, _ = split_tables(config, table, holdout)
    schema = schema_for(train, config)
    checked = {}
    for name, frame in externals.items():
        check_external_name(name, config)
        checked[name] = conform_external(frame, train, schema, name)
    fingerprints = {name: fingerprint_table(frame) for name, frame in checked.items()}
    return replace(config, externals={**(config.externals or {}), **fingerprints}), checked


def job_id_of(table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None,
              externals: dict[str, pd.DataFrame] | None = None) -> str:
    """The id a sweep of this data and configuration has (or will have) in any workspace."""
    return job_id_for(_fingerprint(table, holdout), with_externals(config, table, holdout, externals)[0])


def start_problems(table: pd.DataFrame, schema: Schema, measure: Measure = Measure.KENDALL,
                   holdout: pd.DataFrame | None = None) -> list[str]:
    """What stops a table (and a hold-out file the holder gave) from being modelled with the schema's roles, as the
    sentences the pages show before Start is offered: the later pages refuse to compute on such a table and say why,
    instead of failing inside the numbers."""
    found = [str(p) for p in validate(table, schema, measure=measure)]
    if holdout is not None and not found:
        config = SweepConfig(response=schema.response, sensitive=list(schema.sensitive), measure=measure,
                             schema=schema.to_dict())
        try:
            check_data(table, config, holdout)
        except DataErrors as exc:
            found += [str(p) for p in exc.problems]
        except DataError as exc:
            found.append(str(exc))
    return found


def check_data(table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None) -> None:
    """The table (and a hold-out file the holder kept aside) checked against the sweep's roles: every problem
    named (``DataErrors``), before any job exists — a sweep never fails later on what could be seen now."""
    schema = schema_for(table, config)
    check(table, schema, measure=config.measure)
    if holdout is not None:
        explicit_holdout(table, holdout, config.response)
        found = validate(holdout, schema, measure=config.measure, min_rows=MIN_HOLDOUT_ROWS)
        problems = [DataError(f"In the hold-out file: {p}", column=p.column)
                    for p in found + unseen_labels(holdout, table, schema)]
        if problems:
            raise problems[0] if len(problems) == 1 else DataErrors(problems)


def check_sweep(table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None) -> None:
    """Every check before a sweep, in one place — the command line's ``sweep`` and the Sweep page's Start (both
    through ``submit``) alike: the table and the hold-out file against the roles (``check_data``), then the settings
    against the modelled columns (``settings_refused``, which the Sweep page also runs before Start is pressed)."""
    from ..data.prepare import prepare_table

    check_data(table, config, holdout)
    refused = settings_refused(config, list(prepare_table(table, schema_for(table, config), config.missing).encoder
                                            .names))
    if refused:
        raise refused[0]


def settings_refused(config: SweepConfig, names: list[str]) -> list[DataError]:
    """What a sweep of ``config`` on the modelled (encoded) columns ``names`` cannot use, each in words naming the
    setting as the Sweep page does (``SETTING_NAMES``): truncation levels beyond the full vine, an explicit column
    order that is not one, analysis covariates that are not modelled covariates, a baseline this version lacks or
    whose parameter it cannot use, a DP audit with no ε claim to audit. Empty: the sweep can start."""
    from ..model.ordering import explicit_order

    refused = []
    full = len(names) - 1
    if config.levels and max(config.levels) > full:
        too_high = sorted(level for level in config.levels if level > full)
        refused.append(DataError(f"The {SETTING_NAMES['levels']} include {', '.join(map(str, too_high))}, above the "
                                 f"full vine's {full} trees for these columns.",
                                 fix=f"Choose levels from 1 to {full}."))
    if config.order:
        try:
            explicit_order(config.order, names, config.response, config.sensitive)
        except DataError as exc:
            refused.append(exc)
    covariates = [c for c in names if c != config.response]
    unknown = [c for c in config.analysis or [] if c not in covariates]
    if unknown:
        refused.append(DataError(f"The {SETTING_NAMES['analysis']} names {', '.join(map(repr, unknown))}, not a "
                                 "modelled covariate.", fix=f"Choose from: {', '.join(covariates)}."))
    specs = []
    for name in config.baselines:
        try:
            specs.append(baseline_spec(name, config))
        except DataError as exc:
            refused.append(exc)
    if config.dp_audit_trials and not audited(specs) and len(specs) == len(config.baselines):
        refused.append(DataError(f"The {SETTING_NAMES['dp_audit_trials']} is on, but none of the baselines claims an "
                                 "ε, so there is no claim to audit.",
                                 fix="Add a DP baseline (a DP vine, PrivBayes, MST or PrivPGD), e.g. --baselines "
                                     "dp_vine:1, or turn the audit off."))
    return refused


def submit(store: Store, table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None,
           externals: dict[str, pd.DataFrame] | None = None, holdout_origin: dict | None = None) -> str:
    """Register a sweep (or find the identical one) and keep its data in the workspace; returns the job id.
    ``externals``: synthetic tables made elsewhere (name -> table), copied into the workspace. A table that cannot
    be modelled with these roles is refused here, naming the problems (``DataErrors``), before any job exists.
    ``holdout_origin``: where the hold-out file came from ({"file": name, "sha256": of its bytes}), kept beside the
    data (not in the job's identity: the same rows under another name are the same sweep) for the manifest and the
    report."""
    check_sweep(table, config, holdout)
    config, externals = with_externals(config, table, holdout, externals)
    fingerprint = _fingerprint(table, holdout)
    job_id = job_id_for(fingerprint, config)
    frames = [(fingerprint, "table", table), (fingerprint, "holdout", holdout)]
    frames += [(config.externals[name], "external", frame) for name, frame in externals.items()]
    for key, name, frame in frames:
        if frame is not None:
            store.space.save_table(key, name, frame)
    if holdout is not None and holdout_origin:
        store.set_meta(HOLDOUT_ORIGIN + fingerprint, json.dumps({"file": holdout_origin.get("file"),
                                                                 "sha256": holdout_origin.get("sha256")}))
    store.create_job(job_id, fingerprint, config.to_dict())
    return job_id


HOLDOUT_ORIGIN = "holdout_origin:"  # + the data's fingerprint: the store's meta key of the hold-out file's origin


class Next(Enum):
    """What a started sweep needs next."""

    NOTHING = "answered from the store"  # this exact sweep finished before
    FOLLOW = "follow the worker that runs it"  # a live worker runs it already: one worker per job
    RUN = "run it"  # new, or stopped before its end (``resuming``): start a worker, or run it in this process


@dataclass(frozen=True)
class Started:
    job_id: str
    next: Next
    resuming: bool = False  # some of its tasks are stored already (a restart picks up from them)


def start_or_follow(store: Store, table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None,
                    externals: dict[str, pd.DataFrame] | None = None, holdout_origin: dict | None = None) -> Started:
    """The one decision behind every Start (the CLI's ``sweep``, the Sweep page): the sweep is submitted (or found,
    the same settings and data being the same job), then answered, followed or run."""
    job_id = submit(store, table, config, holdout, externals, holdout_origin)
    job = store.job(job_id)
    if job.status == JobStatus.DONE:
        return Started(job_id, Next.NOTHING)
    if job.status in ACTIVE and worker_alive(job):
        return Started(job_id, Next.FOLLOW)
    return Started(job_id, Next.RUN, resuming=bool(store.done_tasks(job_id)))


# what runs a job that needs running: (the store, the job's id) -> whatever the caller reads back (the command line:
# the job's status once it ended here; the dashboard: nothing, a background worker runs it). Tests pass their own.
Runner = Callable[[Store, str], object]


def background_worker(backend: Backend = Backend.LOKY, n_jobs: int = 2) -> Runner:
    """The dashboard's runner: a worker process of its own, which outlives the page and a server restart."""
    return lambda store, job_id: start_worker(store, job_id, n_jobs=n_jobs, backend=backend)


def run_sweep(store: Store, table: pd.DataFrame, config: SweepConfig, runner: Runner,
              holdout: pd.DataFrame | None = None, externals: dict[str, pd.DataFrame] | None = None,
              holdout_origin: dict | None = None) -> tuple[Started, object]:
    """Start a sweep, the one way the command line's ``sweep`` and the Sweep page's Start do: decided by
    ``start_or_follow``, and run by ``runner`` when it needs running (its answer is returned beside the decision)."""
    started = start_or_follow(store, table, config, holdout, externals, holdout_origin)
    return started, (runner(store, started.job_id) if started.next is Next.RUN else None)


def resume_sweep(store: Store, job_id: str, runner: Runner) -> object:
    """Resume a stopped sweep (the Sweep page's Resume, the command line's ``worker``): its stored tasks are kept;
    refused in words when it has finished or a live worker runs it."""
    job = store.job(job_id)
    if job is None:
        raise DataError(f"There is no sweep {job_id} in this workspace.", fix="Start it from the Sweep page.")
    if job.status == JobStatus.DONE:
        raise DataError(f"Sweep {job_id} has finished: there is nothing to resume.", fix="Open its results.")
    if job.status in ACTIVE and worker_alive(job):
        raise DataError(f"Sweep {job_id} is running already.", fix="Wait for it, or cancel it first.")
    return runner(store, job_id)


def job_tables(store: Store, job: JobRow) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The table (and hold-out file, if one was given) exactly as the job was submitted."""
    space, fingerprint = store.space, job.fingerprint
    if not space.has_table(fingerprint):
        raise DataError(f"The data of job {job.id} is no longer in the workspace.",
                        fix="Start the sweep again from the data.")
    return space.load_table(fingerprint), (space.load_table(fingerprint, "holdout")
                                           if space.has_table(fingerprint, "holdout") else None)


def job_externals(store: Store, config: SweepConfig) -> dict[str, pd.DataFrame]:
    """The external sets of a job, from their workspace copies."""
    out = {}
    for name, key in (config.externals or {}).items():
        if not store.space.has_table(key, "external"):
            raise DataError(f"The external set '{name}' is no longer in the workspace.",
                            fix="Start the sweep again with the file.")
        out[name] = store.space.load_table(key, "external")
    return out
