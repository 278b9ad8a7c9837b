"""A project: one table and every choice the user made about it, saved in the workspace after each change.

The dashboard keeps nothing of value only in the browser session: a reload, a new tab or a server
restart opens the current project again — the same data, schema edits, roles, thresholds, sweep
settings, the running or finished sweep and the selected level — and the Projects page reopens any
earlier one. What the screen shows is read from here, so it is what a sweep or a release will use.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field, fields

import pandas as pd

from ..data.fingerprint import fingerprint_table
from ..data.schema import Schema, infer_schema
from ..evaluation.catalogue import DEFAULT_PRIVACY_AXIS, DEFAULT_UTILITY
from ..evaluation.dp_audit import DEFAULT_TRIALS
from ..model.families import DEFAULT_PRESET
from .config import DEFAULT_BASELINES, SweepConfig
from .store import Store


@dataclass
class Project:
    id: str
    name: str  # what the user calls the data: a demo's title or the uploaded file's name
    source: str  # "demo:<name>" or "upload:<file name>"
    fingerprint: str  # of the table, kept in the workspace
    rows: int
    columns: int
    schema: dict  # types, ordinal orders and roles as the user left them
    # roles and Algorithm 1
    response: str | None = None
    sensitive: list[str] = field(default_factory=list)
    missing: str = "drop_rows"
    holdout_fraction: float = 0.2
    holdout: str | None = None  # fingerprint of a hold-out file the user gave (kept in the workspace): no split
    holdout_name: str | None = None  # that file's name, for the screen
    measure: str = "kendall"
    rho_star: float | None = None  # None: the paper's Pearson 0.6 in the chosen measure
    rho_overrides: dict = field(default_factory=dict)
    preview_level: int | None = None  # the level whose cuts the Sensitive page shows
    # the sweep
    levels: list[int] | None = None  # None: every 5th, 1 and t_max
    preset: str = "quick"
    families: str = DEFAULT_PRESET
    margins: str = "empirical"
    baselines: list[str] = field(default_factory=lambda: list(DEFAULT_BASELINES))
    baseline_games: bool = False
    per_target_shadows: bool = False
    reuse_families: bool = False  # the games refit the holder's families' parameters only
    dp_audit: bool = False  # audit the ε claims of the DP references (DEFAULT_TRIALS fits each)
    analysis: list[str] = field(default_factory=list)  # covariates of the CI-overlap analysis; empty: all
    seed: int = 0
    backend: str = "loky"
    job_id: str | None = None  # the sweep shown on the Sweep, Choose and Export pages
    jobs: list[str] = field(default_factory=list)  # every sweep started from this project
    # the choice
    alpha: float = 0.5
    normalisation: str = "anchored"
    privacy: str = DEFAULT_PRIVACY_AXIS
    utility: str = DEFAULT_UTILITY  # the utility mix U_t (choice/mix.py)
    scatter_utility: str | None = None  # the mix part on the scatter's vertical axis (None: the first)
    selected_level: int | None = None
    # the release
    release_rows: int | None = None  # None: as many rows as the training split
    release_seed: int | None = None  # None: the sweep's master seed
    created: float = 0.0
    updated: float = 0.0

    def table_schema(self) -> Schema:
        """The schema with the chosen roles (a sensitive column that became the response is dropped from S)."""
        schema = Schema.from_dict(self.schema)
        response = self.response if self.response in schema.names else None
        return schema.with_roles(response, [s for s in self.sensitive if s in schema.names and s != response])

    def sweep_config(self, rho_star: float | dict | None = None) -> SweepConfig:
        """The sweep these choices define; ``rho_star`` as Algorithm 1 resolved it (per column)."""
        overrides = {"mia_shared_shadows": False} if self.per_target_shadows else None
        return SweepConfig(response=self.response, sensitive=list(self.sensitive), rho_star=rho_star,
                           measure=self.measure, levels=sorted(self.levels) if self.levels else None,
                           preset=self.preset, families=self.families, margins=self.margins, missing=self.missing,
                           seed=int(self.seed), holdout_fraction=float(self.holdout_fraction),
                           baselines=list(self.baselines), analysis=list(self.analysis) or None,
                           baseline_games=["aia", "mia"] if self.baseline_games else [],
                           protocol_overrides=overrides, schema=self.table_schema().to_dict(),
                           reuse_families=bool(self.reuse_families),
                           dp_audit_trials=DEFAULT_TRIALS if self.dp_audit else 0)

    def adopt(self, config: SweepConfig) -> None:
        """Show a sweep's own settings, so that the screen says what produced the sweep that is open."""
        rho = config.rho_star
        if isinstance(rho, dict) and len(set(rho.values())) == 1:
            rho = next(iter(rho.values()))
        self.rho_star, self.rho_overrides = (None, dict(rho)) if isinstance(rho, dict) else (rho, {})
        self.response, self.sensitive, self.measure = config.response, list(config.sensitive), config.measure
        self.missing, self.holdout_fraction, self.seed = config.missing, config.holdout_fraction, config.seed
        self.levels, self.preset, self.families = config.levels, config.preset, config.families
        self.margins, self.baselines = config.margins, list(config.baselines)
        self.baseline_games = bool(config.baseline_games)
        self.per_target_shadows = (config.protocol_overrides or {}).get("mia_shared_shadows") is False
        self.reuse_families = bool(config.reuse_families)
        self.dp_audit = bool(config.dp_audit_trials)
        if config.schema:
            self.schema = config.schema

    @classmethod
    def from_dict(cls, d: dict) -> Project:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})  # settings added later get their defaults


class Projects:
    """The projects of a workspace, and which one is open."""

    def __init__(self, store: Store):
        self.store = store

    def create(self, table: pd.DataFrame, name: str, source: str, response: str | None = None,
               sensitive=(), schema: Schema | None = None) -> Project:
        fingerprint = fingerprint_table(table)
        path = self.store.space.table_path(fingerprint, "table")
        if not path.exists():
            table.to_pickle(path)
        schema = schema or infer_schema(table)
        if response is not None:
            schema = schema.with_roles(response, list(sensitive))
        now = time.time()
        project = Project(uuid.uuid4().hex[:12], name, source, fingerprint, len(table), table.shape[1],
                          schema.to_dict(), response, list(sensitive), created=now, updated=now)
        self.save(project)
        return project

    def save(self, project: Project) -> None:
        project.updated = time.time()
        self.store.save_project(project.id, json.dumps(asdict(project), default=str), project.updated)
        self.store.set_meta("current_project", project.id)

    def load(self, project_id: str) -> Project | None:
        text = self.store.project_json(project_id)
        return None if text is None else Project.from_dict(json.loads(text))

    def current(self) -> Project | None:
        project_id = self.store.meta("current_project")
        return None if project_id is None else self.load(project_id)

    def open(self, project_id: str) -> Project | None:
        project = self.load(project_id)
        if project is not None:
            self.store.set_meta("current_project", project.id)
        return project

    def all(self) -> list[Project]:
        return [Project.from_dict(json.loads(text)) for text in self.store.project_jsons()]

    def table(self, fingerprint: str, name: str = "table") -> pd.DataFrame:
        """A project's table (by its fingerprint), exactly as it was opened; ``name='holdout'``: its hold-out file."""
        return pd.read_pickle(self.store.space.table_path(fingerprint, name))

    def keep_holdout(self, holdout: pd.DataFrame) -> str:
        """A hold-out file kept in the workspace as it was read; returns its fingerprint (the project's key to it)."""
        fingerprint = fingerprint_table(holdout)
        path = self.store.space.table_path(fingerprint, "holdout")
        if not path.exists():
            holdout.to_pickle(path)
        return fingerprint
