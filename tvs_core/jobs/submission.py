"""A sweep enters the store: its data is kept in the workspace, its settings and fingerprint in a job row."""

from __future__ import annotations

import hashlib

import pandas as pd

from ..data.fingerprint import fingerprint_table
from ..errors import DataError
from .config import SweepConfig, job_id_for
from .store import Store


def _fingerprint(table: pd.DataFrame, holdout: pd.DataFrame | None) -> str:
    fingerprint = fingerprint_table(table) + ("" if holdout is None else fingerprint_table(holdout))
    return hashlib.sha256(fingerprint.encode()).hexdigest()


def job_id_of(table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None) -> str:
    """The id a sweep of this data and configuration has (or will have) in any workspace."""
    return job_id_for(_fingerprint(table, holdout), config)


def submit(store: Store, table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None) -> str:
    """Register a sweep (or find the identical one) and keep its data in the workspace; returns the job id."""
    fingerprint = _fingerprint(table, holdout)
    job_id = job_id_for(fingerprint, config)
    for name, frame in (("table", table), ("holdout", holdout)):
        path = store.space.table_path(fingerprint, name)
        if frame is not None and not path.exists():
            frame.to_pickle(path)  # pickle keeps every dtype exactly; the workspace is local and ours
    store.create_job(job_id, fingerprint, config.to_dict())
    return job_id


def job_tables(store: Store, job: dict) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The table (and hold-out file, if one was given) exactly as the job was submitted."""
    table_path = store.space.table_path(job["fingerprint"], "table")
    if not table_path.exists():
        raise DataError(f"The data of job {job['id']} is no longer in the workspace.",
                        fix="Start the sweep again from the data.")
    holdout_path = store.space.table_path(job["fingerprint"], "holdout")
    return pd.read_pickle(table_path), (pd.read_pickle(holdout_path) if holdout_path.exists() else None)
