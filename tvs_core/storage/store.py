"""The single source of truth for sweeps: SQLite in WAL mode in the user's workspace.

Tables: jobs (configuration, data fingerprint, status, progress, worker pid and start time,
heartbeat, cancel flag, timestamps), results (one row per finished task: tidy records and an
optional binary payload), models (fitted models as JSON) and events (a log a user can read).
Every process opens its own connection; writes are short transactions, so several workers and
the dashboard can share the file without "database is locked".
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path

from ..errors import TVSError, out_of_room
from . import private
from .migrate import convert_pickles
from .workspace import Workspace

SCHEMA_VERSION = 4  # 2: jobs.details (levels, caps and targets as planned); 3: projects; 4: results.peak_mb
# the releases table (the ledger) is only added, never changed: it needed no version of its own

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL DEFAULT 0, pid INTEGER, pid_started REAL,
    heartbeat REAL, cancel INTEGER NOT NULL DEFAULT 0, error TEXT, plan TEXT, workers INTEGER,
    created REAL NOT NULL, started REAL, finished REAL, details TEXT);
CREATE TABLE IF NOT EXISTS results (
    job_id TEXT NOT NULL, task TEXT NOT NULL, kind TEXT NOT NULL, records TEXT NOT NULL, payload BLOB,
    seconds REAL NOT NULL, created REAL NOT NULL, peak_mb REAL, PRIMARY KEY (job_id, task));
CREATE TABLE IF NOT EXISTS models (
    job_id TEXT NOT NULL, name TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (job_id, name));
CREATE TABLE IF NOT EXISTS projects (id TEXT PRIMARY KEY, json TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, job_id TEXT, time REAL NOT NULL, kind TEXT NOT NULL, message TEXT);
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fingerprint TEXT NOT NULL, table_name TEXT, job_id TEXT, level INTEGER,
    generator TEXT NOT NULL, settings TEXT NOT NULL, seed INTEGER, rows INTEGER NOT NULL, sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL, epsilon REAL, note TEXT, copy TEXT NOT NULL, created REAL NOT NULL, choice TEXT,
    verdicts TEXT, confirmation TEXT, override TEXT);
CREATE INDEX IF NOT EXISTS releases_by_table ON releases (fingerprint, id);
"""

class JobStatus(StrEnum):
    """Where a job stands; stored as its text, so that earlier workspaces read the same."""

    QUEUED = "queued"  # planned, its worker to come
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"  # stopped by the user; Resume continues it
    INTERRUPTED = "interrupted"  # its worker was stopped by a signal; Resume continues it
    FAILED = "failed"


ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)  # a job that still has a worker to come or running


@dataclass(frozen=True)
class JobRow:
    """One sweep as the ``jobs`` table keeps it, its JSON columns read: what every reader of a job gets, a snapshot
    (read the store again for what changed since)."""

    id: str | None  # None: a sweep not started yet, shaped for an estimate (``progress.planned_time_left``)
    fingerprint: str = ""  # of the training table, kept in the workspace
    config: dict = field(default_factory=dict)  # the ``SweepConfig`` as stored (``SweepConfig.from_dict``)
    status: JobStatus = JobStatus.QUEUED
    done: int = 0  # finished tasks stored
    total: int = 0  # tasks planned (0 until planned)
    pid: int | None = None  # the worker's process, and when it started (a pid is reused)
    pid_started: float | None = None
    heartbeat: float | None = None
    cancel: bool = False  # the user asked it to stop
    error: str | None = None
    plan: list | None = None  # the stored plan (``tasks.plan_from_json``), None until planned
    workers: int | None = None
    created: float = 0.0
    started: float | None = None
    finished: float | None = None
    details: dict = field(default_factory=dict)  # levels, shape, protocol, targets and machine as planned ({} before)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", JobStatus(self.status))

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> JobRow:
        known = {f.name for f in fields(cls)}
        values = {key: row[key] for key in row.keys() if key in known}
        return cls(**values | {"config": json.loads(row["config"]),
                               "cancel": bool(row["cancel"]),
                               "plan": json.loads(row["plan"]) if row["plan"] else None,
                               "details": json.loads(row["details"]) if row["details"] else {}})


@dataclass(frozen=True)
class StoredResult:
    """One finished task as the ``results`` table keeps it (without its payload): its records are the stored JSON
    objects, read into ``Record``s by ``jobs.tasks.task_results``."""

    task: str  # its ``TaskKey``, as text
    kind: str  # its ``TaskKind``'s value
    records: list[dict]
    seconds: float  # of work
    created: float  # when it was stored
    peak_mb: float | None  # its process's peak memory, where measured


@dataclass(frozen=True)
class Finished:
    """A finished task as the ``results`` table times it (``Store.task_times``): what the time left is computed from,
    its records not read."""

    key: str  # its ``TaskKey``, as text
    kind: str  # its ``TaskKind``'s value
    seconds: float  # of work
    at: float  # when it was stored


class _Connection:
    """A weak-referenceable holder of one thread's sqlite connection (the thread's end frees it)."""

    def __init__(self, sqlite: sqlite3.Connection):
        self.sqlite = sqlite


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file itself is damaged (corrupt, or not a database at all): only then is it set
    aside. A full disk, a file-size limit, a lock or a permission says nothing about the file."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    return any(words in str(exc).lower() for words in ("malformed", "not a database", "corrupt"))


class Store:
    """``read_only`` is True when the workspace folder cannot be written: finished results can still be
    read, nothing can be run. A damaged database file is set aside (renamed, never deleted)."""

    def __init__(self, workspace: str | Path | Workspace | None = None):
        self.space = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.workspace = self.space.root
        self.path = self.space.database
        # one connection per thread (and process): the dashboard shares one Store between its script runs, and a
        # rerun that starts while the previous run is inside a transaction must not join that transaction
        self._local = threading.local()
        self._connections: weakref.WeakSet = weakref.WeakSet()
        self.read_only = not os.access(self.workspace, os.W_OK)
        if self.read_only and not self.path.exists():
            raise TVSError(f"The workspace {self.workspace} is read-only and holds no results yet; it must be "
                           "writable (or pass --workspace with a writable folder).")
        self.converted: list[Path] = []  # the earlier version's pickles, converted on this open
        if not self.read_only:
            private.create_private(self.path)
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self.close()
            full = out_of_room(exc, f"the workspace database {self.path}")
            if full is not None:  # a full disk or a file-size limit: the file is sound, and stays where it is
                raise full from exc
            if self.read_only or not self.path.exists() or not damaged(exc):
                raise TVSError(f"The workspace database {self.path} cannot be read ({exc}).") from exc
            aside = self._set_aside()
            raise TVSError(f"The workspace database {self.path} is damaged ({exc}); it was set aside as "
                           f"{aside.name} (nothing deleted). Run again to start a new one; finished results "
                           "in the damaged file are not lost but need repair to be read.") from exc

    def _open(self) -> None:
        if self.read_only:
            self.db.execute("SELECT COUNT(*) FROM jobs").fetchone()  # fails here if it is not our database
            return
        self.db.executescript(_SCHEMA)  # idempotent; executescript manages its own transaction
        with self.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) > SCHEMA_VERSION:
                raise TVSError(f"The workspace {self.workspace} was written by a newer version "
                               f"(schema {row[0]}); update TVineSynth Studio or choose another workspace.")
            elif int(row[0]) < SCHEMA_VERSION:  # 1 -> 2: jobs.details (older jobs have none); 3: projects
                if "details" not in {r[1] for r in db.execute("PRAGMA table_info(jobs)")}:
                    db.execute("ALTER TABLE jobs ADD COLUMN details TEXT")
                if "peak_mb" not in {r[1] for r in db.execute("PRAGMA table_info(results)")}:  # 4
                    db.execute("ALTER TABLE results ADD COLUMN peak_mb REAL")
                db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
        with self.transaction() as db:  # columns the ledger gained: who chose the level and why; the level's verdicts;
            # why the user released despite warning verdicts, or despite a blocking guardrail
            present = {r[1] for r in db.execute("PRAGMA table_info(releases)")}
            for column in ("choice", "verdicts", "confirmation", "override"):
                if column not in present:
                    db.execute(f"ALTER TABLE releases ADD COLUMN {column} TEXT")
        self.db.execute("PRAGMA quick_check(1)").fetchone()  # a truncated or overwritten file shows here
        self.converted = convert_pickles(self)

    def _set_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            extra = self.path.with_name(self.path.name + suffix)
            if extra.exists():
                extra.rename(aside.with_name(aside.name + suffix))
        return aside

    @property
    def db(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork: a connection is never shared across processes)."""
        local = self._local
        if getattr(local, "connection", None) is None or local.pid != os.getpid():
            if self.read_only:  # no -wal/-shm files can be made: read the file as it is
                connection = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True,
                                             isolation_level=None, check_same_thread=False)
            else:
                connection = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("PRAGMA busy_timeout=60000")
            connection.row_factory = sqlite3.Row
            local.connection, local.pid = _Connection(connection), os.getpid()
            self._connections.add(local.connection)
        return local.connection.sqlite

    @contextmanager
    def transaction(self):
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        """Close every thread's connection (the workspace is about to be wiped or set aside)."""
        for connection in list(self._connections):
            connection.sqlite.close()
        self._connections = weakref.WeakSet()
        self._local = threading.local()

    # -- jobs ------------------------------------------------------------------------------------
    def create_job(self, job_id: str, fingerprint: str, config: dict) -> bool:
        """Insert a job unless it exists; True when it was created."""
        with self.transaction() as db:
            exists = db.execute("SELECT 1 FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if exists:
                return False
            db.execute("INSERT INTO jobs (id, fingerprint, config, status, created) VALUES (?, ?, ?, ?, ?)",
                       (job_id, fingerprint, json.dumps(config, sort_keys=True), JobStatus.QUEUED.value, time.time()))
        self.log(job_id, "created", "job created")
        return True

    def job(self, job_id: str) -> JobRow | None:
        row = self.db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else JobRow.from_row(row)

    def jobs(self) -> list[JobRow]:
        rows = self.db.execute("SELECT id FROM jobs ORDER BY created DESC").fetchall()
        return [self.job(r["id"]) for r in rows]

    def update_job(self, job_id: str, **fields) -> None:
        if not fields:
            return
        columns = ", ".join(f"{k} = ?" for k in fields)
        with self.transaction() as db:
            db.execute(f"UPDATE jobs SET {columns} WHERE id = ?", (*fields.values(), job_id))

    def request_cancel(self, job_id: str) -> None:
        self.update_job(job_id, cancel=1)
        self.log(job_id, "cancel", "cancel requested")

    def cancel_requested(self, job_id: str) -> bool:
        row = self.db.execute("SELECT cancel FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return bool(row and row["cancel"])

    # -- results ---------------------------------------------------------------------------------
    def done_tasks(self, job_id: str) -> set[str]:
        return {r["task"] for r in self.db.execute("SELECT task FROM results WHERE job_id = ?", (job_id,))}

    def add_result(self, job_id: str, task: str, kind: str, records: list[dict], seconds: float,
                   payload: bytes | None = None, total: int | None = None, peak_mb: float | None = None) -> bool:
        """Store one finished task and advance the progress in the same transaction.

        Returns False (and stores nothing) when the task is already stored: every task exactly once."""
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM results WHERE job_id = ? AND task = ?", (job_id, task)).fetchone():
                return False
            db.execute("INSERT INTO results (job_id, task, kind, records, payload, seconds, created, peak_mb) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (job_id, task, kind, json.dumps(records), payload, seconds, time.time(), peak_mb))
            done = db.execute("SELECT COUNT(*) FROM results WHERE job_id = ?", (job_id,)).fetchone()[0]
            db.execute("UPDATE jobs SET done = ?, heartbeat = ? WHERE id = ?", (done, time.time(), job_id))
        return True

    def results(self, job_id: str) -> list[StoredResult]:
        rows = self.db.execute("SELECT task, kind, records, seconds, created, peak_mb FROM results WHERE job_id = ? "
                               "ORDER BY created", (job_id,)).fetchall()
        return [StoredResult(r["task"], r["kind"], json.loads(r["records"]), r["seconds"], r["created"], r["peak_mb"])
                for r in rows]

    def payload(self, job_id: str, task: str) -> bytes | None:
        row = self.db.execute("SELECT payload FROM results WHERE job_id = ? AND task = ?", (job_id, task)).fetchone()
        return None if row is None else row["payload"]

    def payload_heads(self, job_id: str, size: int) -> dict[str, bytes]:
        """The first ``size`` bytes of each stored payload of the job, by task: enough to tell its format without
        reading it."""
        rows = self.db.execute("SELECT task, substr(payload, 1, ?) AS head FROM results WHERE job_id = ? AND "
                               "payload IS NOT NULL", (size, job_id)).fetchall()
        return {r["task"]: bytes(r["head"]) for r in rows}

    def forget_results(self, job_id: str, tasks: list[str]) -> None:
        """Finished tasks removed, so that the job runs them again (its progress recounted)."""
        with self.transaction() as db:
            db.executemany("DELETE FROM results WHERE job_id = ? AND task = ?", [(job_id, t) for t in tasks])
            done = db.execute("SELECT COUNT(*) FROM results WHERE job_id = ?", (job_id,)).fetchone()[0]
            db.execute("UPDATE jobs SET done = ? WHERE id = ?", (done, job_id))

    def last_result_time(self, job_id: str) -> float | None:
        row = self.db.execute("SELECT MAX(created) AS last FROM results WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None or row["last"] is None else float(row["last"])

    def task_times(self, job_id: str) -> list[Finished]:
        """Each finished task of a job, oldest first."""
        return [Finished(r["task"], r["kind"], float(r["seconds"]), float(r["created"])) for r in self.db.execute(
            "SELECT task, kind, seconds, created FROM results WHERE job_id = ? ORDER BY created", (job_id,))]

    def task_seconds(self, job_id: str) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for r in self.db.execute("SELECT kind, seconds FROM results WHERE job_id = ?", (job_id,)):
            out.setdefault(r["kind"], []).append(r["seconds"])
        return out

    def task_peaks(self, job_id: str) -> dict[str, float]:
        """The largest peak memory (MB) measured per task kind of a job."""
        return {r["kind"]: r["peak"] for r in self.db.execute(
            "SELECT kind, MAX(peak_mb) AS peak FROM results WHERE job_id = ? AND peak_mb IS NOT NULL GROUP BY kind",
            (job_id,))}

    # -- projects and settings -------------------------------------------------------------------
    def save_project(self, project_id: str, project_json: str, updated: float) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO projects VALUES (?, ?, ?)", (project_id, project_json, updated))

    def project_json(self, project_id: str) -> str | None:
        row = self.db.execute("SELECT json FROM projects WHERE id = ?", (project_id,)).fetchone()
        return None if row is None else row["json"]

    def project_jsons(self) -> list[str]:
        return [r["json"] for r in self.db.execute("SELECT json FROM projects ORDER BY updated DESC")]

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row["value"]

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def swap_meta(self, key: str, expected: str | None, value: str | None) -> bool:
        """Set ``key`` to ``value`` (None: remove it) only if it holds ``expected`` now (None: absent), in one
        transaction: of two processes swapping from the same value, one wins (the standby worker's handoff)."""
        with self.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            if (None if row is None else row["value"]) != expected:
                return False
            if value is None:
                db.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            return True

    # -- the release ledger (tvs_core/release/ledger.py reads and writes it) ----------------------
    def add_release(self, entry: dict) -> int:
        """Append one release; returns its id. Rows are never changed or deleted (wiping the workspace does)."""
        columns = ("fingerprint", "table_name", "job_id", "level", "generator", "settings", "seed", "rows", "sha256",
                   "bytes", "epsilon", "note", "copy", "created", "choice", "verdicts", "confirmation", "override")
        with self.transaction() as db:
            cursor = db.execute(f"INSERT INTO releases ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                                tuple(entry.get(c) for c in columns))
            return int(cursor.lastrowid)

    def releases(self, fingerprint: str | None = None) -> list[dict]:
        """The releases of one table (by its fingerprint), or of every table, oldest first."""
        where, args = ("", ()) if fingerprint is None else (" WHERE fingerprint = ?", (fingerprint,))
        try:
            rows = self.db.execute(f"SELECT * FROM releases{where} ORDER BY id", args).fetchall()
        except sqlite3.OperationalError:  # a read-only workspace written before the ledger existed
            return []
        return [dict(r) for r in rows]

    # -- models and events -----------------------------------------------------------------------
    def save_model(self, job_id: str, name: str, model_json: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO models VALUES (?, ?, ?)", (job_id, name, model_json))

    def model_json(self, job_id: str, name: str) -> str | None:
        row = self.db.execute("SELECT json FROM models WHERE job_id = ? AND name = ?", (job_id, name)).fetchone()
        return None if row is None else row["json"]

    def log(self, job_id: str | None, kind: str, message: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO events (job_id, time, kind, message) VALUES (?, ?, ?, ?)",
                       (job_id, time.time(), kind, message))

    def events(self, job_id: str) -> list[dict]:
        return [dict(r) for r in self.db.execute("SELECT * FROM events WHERE job_id = ? ORDER BY id", (job_id,))]
