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
from dataclasses import dataclass, field, fields, replace

import pandas as pd

from .choice.summary import ChoiceSettings
from .data.fingerprint import fingerprint_table
from .data.schema import Schema, infer_schema
from .errors import DataError
from .jobs.backends import Backend
from .jobs.config import SweepConfig
from .settings import declarations
from .storage.store import Store
from .text import read_choice

# the settings of a sweep a project kept as separate fields in an earlier shape (saved projects still have them)
_FLAT_SWEEP_SETTINGS = ("response", "sensitive", "missing", "holdout_fraction", "measure", "levels", "preset",
                        "families", "margins", "baselines", "analysis", "seed", "reuse_families")


def _unset_sweep() -> SweepConfig:
    return SweepConfig(response=None, sensitive=[], analysis=[])


@dataclass
class Project:
    id: str
    name: str  # what the user calls the data: a demo's title or the uploaded file's name
    source: str  # "demo:<name>" or "upload:<file name>"
    fingerprint: str  # of the table, kept in the workspace
    rows: int
    columns: int
    schema: dict  # types, ordinal orders and roles as the user left them
    # the sweep the user set up, held once: its roles, missing-value policy, split, measure, levels, protocol,
    # families, margins, baselines, switches, analysis and seed. Two of its fields are filled at Start only
    # (``sweep_config``): ``rho_star``, resolved from the threshold inputs below by Algorithm 1, and ``schema``.
    sweep: SweepConfig = field(default_factory=_unset_sweep)
    # the Sensitive page's threshold inputs (what the user set, before Algorithm 1 resolves them per column)
    rho_star: float | None = None  # None: the paper's Pearson 0.6 in the chosen measure
    rho_overrides: dict = field(default_factory=dict)
    preview_level: int | None = None  # the level whose cuts the Sensitive page shows
    holdout: str | None = None  # fingerprint of a hold-out file the user gave (kept in the workspace): no split
    holdout_name: str | None = None  # that file's name, for the screen
    holdout_sha256: str | None = None  # the SHA-256 of that file's bytes: with its name, the hold-out's origin
    backend: Backend = Backend.LOKY  # where the sweep runs (the numbers do not depend on it)
    job_id: str | None = None  # the sweep shown on the Sweep, Choose and Export pages
    jobs: list[str] = field(default_factory=list)  # every sweep started from this project
    # the choice: α, the normalisation, the privacy axis and the utility mix U_t, held once (stored as four keys of
    # the project, as before it was one value)
    choice: ChoiceSettings = field(default_factory=ChoiceSettings)
    scatter_utility: str | None = None  # the mix part on the scatter's vertical axis (None: the first)
    selected_level: int | None = None
    # the release
    release_rows: int | None = None  # None: as many rows as the training split
    release_seed: int | None = None  # None: the sweep's master seed
    release_note: str = ""  # the note for the ledger, kept as it is typed until a download records it
    created: float = 0.0
    updated: float = 0.0

    def table_schema(self) -> Schema:
        """The schema with the chosen roles (a sensitive column that became the response is dropped from S)."""
        schema = Schema.from_dict(self.schema)
        response = self.sweep.response if self.sweep.response in schema.names else None
        return schema.with_roles(response, [s for s in self.sweep.sensitive if s in schema.names and s != response])

    def sweep_config(self, rho_star: float | dict | None = None) -> SweepConfig:
        """The sweep Start runs: the project's, with ``rho_star`` as Algorithm 1 resolved it (per column) and the
        schema with its roles."""
        return replace(self.sweep, sensitive=list(self.sweep.sensitive), rho_star=rho_star,
                       levels=sorted(self.sweep.levels) if self.sweep.levels else None,
                       baselines=list(self.sweep.baselines), analysis=list(self.sweep.analysis or []) or None,
                       schema=self.table_schema().to_dict())

    def adopt(self, config: SweepConfig) -> None:
        """Show a sweep's own settings, so that the screen says what produced the sweep that is open. What the
        screen cannot show is left out (an explicit order or t_max, uploaded sets, test-sized protocols), so that
        Start runs what the screen says."""
        rho = config.rho_star
        if isinstance(rho, dict) and len(set(rho.values())) == 1:
            rho = next(iter(rho.values()))
        self.rho_star, self.rho_overrides = (None, dict(rho)) if isinstance(rho, dict) else (rho, {})
        per_target = config.per_target_shadows
        self.sweep = replace(config, sensitive=list(config.sensitive), rho_star=None, order=None, t_max=None,
                             schema=None, externals=None, protocol_overrides=None, baselines=list(config.baselines),
                             analysis=list(config.analysis or []))
        self.sweep.per_target_shadows = per_target
        if config.schema:
            self.schema = config.schema

    def to_dict(self) -> dict:
        """The project as the workspace stores it: every setting as the text the screen and the manifest show."""
        out = {}
        for f in fields(self):
            if f.name == "choice":  # its four settings, in the place and the words they always had
                out |= {"alpha": self.choice.alpha, "normalisation": self.choice.normalisation,
                        "privacy": self.choice.privacy.text, "utility": self.choice.utility.text}
            else:
                out[f.name] = getattr(self, f.name)
        out["sweep"] = self.sweep.to_dict() | {"analysis": list(self.sweep.analysis or [])}
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Project:
        """A stored project (of this version or an earlier one), its settings read back typed; a stored value this
        version cannot read is refused in one sentence naming it."""
        d = dict(d)
        try:
            # the choice's four settings, each read by its declaration; one not stored: its default
            typed = {"choice": ChoiceSettings(**{name: d.pop(name) for name in declarations(ChoiceSettings)
                                                 if name in d}),
                     "backend": read_choice(Backend, d.pop("backend", Backend.LOKY))}
        except DataError as refused:
            raise DataError(f"A stored project setting cannot be read: {refused}",
                            fix="Open it with the version that saved it, or set the Choose page's settings again."
                            ) from None
        if "sweep" in d:
            sweep = SweepConfig.from_dict(d.pop("sweep"))
        else:  # saved before the project held a SweepConfig: its settings were fields of their own
            response = d.pop("response", None)
            sweep = SweepConfig(**{k: d.pop(k) for k in _FLAT_SWEEP_SETTINGS if k in d}, response=response)
            sweep.baselines_play_games = bool(d.pop("baseline_games", False))
            sweep.per_target_shadows = bool(d.pop("per_target_shadows", False))
            sweep.audits_dp = bool(d.pop("dp_audit", False))
        sweep.analysis = list(sweep.analysis or [])
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known}, **typed, sweep=sweep)  # later ones get defaults


class Projects:
    """The projects of a workspace, and which one is open."""

    def __init__(self, store: Store):
        self.store = store

    def create(self, table: pd.DataFrame, name: str, source: str, response: str | None = None,
               sensitive=(), schema: Schema | None = None) -> Project:
        fingerprint = fingerprint_table(table)
        self.store.space.save_table(fingerprint, "table", table)
        schema = schema or infer_schema(table)
        if response is not None:
            schema = schema.with_roles(response, list(sensitive))
        now = time.time()
        project = Project(uuid.uuid4().hex[:12], name, source, fingerprint, len(table), table.shape[1],
                          schema.to_dict(), created=now, updated=now)
        project.sweep.response, project.sweep.sensitive = response, list(sensitive)
        self.save(project)
        return project

    def save(self, project: Project) -> None:
        project.updated = time.time()
        self.store.save_project(project.id, json.dumps(project.to_dict(), default=str), project.updated)
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
        return self.store.space.load_table(fingerprint, name)

    def keep_holdout(self, holdout: pd.DataFrame) -> str:
        """A hold-out file kept in the workspace as it was read; returns its fingerprint (the project's key to it)."""
        fingerprint = fingerprint_table(holdout)
        self.store.space.save_table(fingerprint, "holdout", holdout)
        return fingerprint
