"""A release, made once: the rows, the guardrails, the pooled-release check, the manifest and the ledger record.

The one place a release happens. The Export page, ``python -m tvs_core release`` and the report all take a
``Release``: the page shows it and records it when the file is downloaded, the command line writes it (the CSV
and its manifest next to it) and records it, the report renders it. A release comes from a stored sweep and a
level (``Release.from_sweep``: the sweep's model, its split, its intervals for the pooled check, the choice that
led to the level), or from a model fitted on the spot (``Release.from_model``: the command line without a sweep).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import pandas as pd

from ..choice.selection import Selection
from ..choice.summary import ChoiceSettings
from ..choice.verdicts import Verdicts, sweep_verdicts
from ..errors import DataError
from ..evaluation.context import EvaluationData
from ..evaluation.preview import LevelPreview
from ..evaluation.summary import summarise
from ..model.generator import SyntheticGenerator, all_cores
from ..storage.store import Store
from .export import release_table, to_csv_bytes, write_file
from .guardrails import Guardrail, blocked, guardrails
from .ledger import LedgerEntry, record_release, releases
from .manifest import manifest, manifest_bytes
from .pooled import PooledCheck, pooled_check, sha256_of


class SweepSettings(Protocol):
    """What a release reads of a sweep's settings (``jobs.SweepConfig`` has them)."""

    seed: int
    sensitive: list[str]


class SweepView(Protocol):
    """What a release reads of the sweep it comes from (``jobs.JobView`` is one): a release never imports the jobs,
    which hand it their sweep."""

    @property
    def id(self) -> str: ...
    @property
    def config(self) -> SweepSettings: ...
    @property
    def store(self) -> Store: ...
    @property
    def fingerprint(self) -> str: ...  # the sweep's data (table and hold-out file)
    @property
    def table_fingerprint(self) -> str: ...
    @property
    def levels(self) -> list[int]: ...
    @property
    def caps(self) -> list[dict]: ...
    def holder(self) -> SyntheticGenerator | None: ...
    def tables(self) -> tuple[pd.DataFrame, pd.DataFrame]: ...
    def records(self, first_look: bool = False) -> pd.DataFrame: ...
    def complete_levels(self) -> set[int] | None: ...
    def evaluation_data(self, holder: SyntheticGenerator | None = None) -> EvaluationData | None: ...
    def preview(self) -> LevelPreview | None: ...
    def claims(self) -> dict[str, float]: ...
    def settings_record(self) -> dict: ...


@dataclass
class Release:
    model: SyntheticGenerator
    level: int | None
    seed: int
    table: pd.DataFrame  # the released rows
    csv: bytes  # exactly the file's bytes
    checks: list[Guardrail]
    pooled: PooledCheck | None  # None: the table had no earlier release
    table_fingerprint: str  # the ledger's key (the table's, not the sweep's data + hold-out)
    table_name: str
    train: pd.DataFrame  # the rows the model was fitted on
    data_fingerprint: str  # the sweep's data (table and hold-out file), or the table's without a sweep
    view: SweepView | None = None  # the JobView of the sweep it came from (None: a fitted-on-the-spot model)
    settings: ChoiceSettings | None = None  # how the level was weighed (a sweep's release)
    selection: Selection | None = None
    metrics: list[dict] = field(default_factory=list)  # the sweep's summary rows at this level
    override_reason: str | None = None  # why the user released despite a blocking guardrail
    chosen_by_user: bool = True  # False: the level is the recommendation at ``settings``; nobody chose it
    verdicts: Verdicts = field(default_factory=Verdicts)  # the level's verdicts (``choice.verdicts``); none off a sweep
    confirmation: str | None = None  # why the user releases the level although its verdicts warn (``to_confirm``)

    # -- made once ----------------------------------------------------------------------------------------------
    @classmethod
    def from_sweep(cls, view: SweepView, level: int, rows: int | None = None, seed: int | None = None,
                   settings: ChoiceSettings | None = None, table_name: str | None = None,
                   store: Store | None = None, chosen_by_user: bool = True) -> Release:
        """The release of ``level`` of a stored sweep (``view``: a ``JobView``): ``rows`` default to the training
        split's size, ``seed`` to the sweep's master seed; the pooled check runs when the table has earlier
        releases in ``store``'s ledger (the sweep's own store by default). ``chosen_by_user`` False: the level is
        the recommendation at ``settings``, recorded as such."""
        model = view.holder()
        if model is None:
            raise DataError(f"Sweep {view.id} has no fitted model yet.", fix="Let the sweep start, then release.")
        if level not in view.levels:
            raise DataError(f"Level {level} was not evaluated by sweep {view.id}.",
                            fix=f"Choose one of: {', '.join(map(str, view.levels))}.")
        train, _ = view.tables()
        model.threads = all_cores()  # a release runs alone: its draw uses every core (the same bytes at any count)
        settings = settings or ChoiceSettings()
        records = view.records()
        summary = summarise(records)
        at_level = summary.point(level) if len(summary) else None
        rows = len(train) if rows is None else int(rows)
        seed = view.config.seed if seed is None else int(seed)
        synthetic = release_table(model, int(level), rows, seed)
        csv = to_csv_bytes(synthetic)
        store = store or view.store
        earlier = releases(store, view.table_fingerprint)
        pooled = pooled_check(model, view.evaluation_data(model), train, synthetic, sha256_of(csv),
                              [(e, e.table(store)) for e in earlier], view.config.sensitive, int(level),
                              view.config.seed, summary) if earlier else None
        selection = settings.select(summary, view.config.sensitive, view.complete_levels())
        verdicts = (sweep_verdicts(view, int(level), selection, records, summary)
                    if selection is not None and int(level) in set(selection.table["level"]) else Verdicts())
        return cls(model, int(level), seed, synthetic, csv, guardrails(synthetic, train, model, at_level, view.caps),
                   pooled, view.table_fingerprint, table_name or f"table {view.table_fingerprint[:12]}", train,
                   view.fingerprint, view, settings, selection,
                   [] if at_level is None else at_level.frame.to_dict("records"), chosen_by_user=chosen_by_user,
                   verdicts=verdicts)

    @classmethod
    def from_model(cls, model: SyntheticGenerator, train: pd.DataFrame, level: int | None, rows: int, seed: int,
                   table_fingerprint: str, table_name: str, store: Store | None = None) -> Release:
        """The release of a model fitted on ``train`` without a sweep (the command line's own fit): the same
        guardrails; pooled with the table's earlier releases in ``store`` for copies and the privacy budget (the
        attacks need a sweep's hold-out rows)."""
        synthetic = release_table(model, level, rows, seed)
        csv = to_csv_bytes(synthetic)
        earlier = releases(store, table_fingerprint) if store is not None else []
        pooled = pooled_check(model, None, train, synthetic, sha256_of(csv), [(e, e.table(store)) for e in earlier],
                              list(model.schema_.sensitive), level, seed) if earlier else None
        return cls(model, level, int(seed), synthetic, csv, guardrails(synthetic, train, model), pooled,
                   table_fingerprint, table_name, train, table_fingerprint)

    # -- what it is -----------------------------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        return len(self.table)

    @property
    def sha256(self) -> str:
        return sha256_of(self.csv)

    @property
    def blocked(self) -> list[Guardrail]:
        """Blocking guardrails not overridden with a reason."""
        return [] if self.override_reason else blocked(self.checks)

    def overridden(self, reason: str | None) -> Release:
        """The same release, released despite its blocking guardrails for ``reason`` (kept in the manifest)."""
        reason = (reason or "").strip() or None
        return replace(self, override_reason=reason)

    @property
    def to_confirm(self) -> Verdicts:
        """The level's verdicts that warn or block: Export repeats them and asks the user to confirm the release."""
        return self.verdicts.warned

    def confirmed(self, reason: str | None) -> Release:
        """The same release, confirmed by the user despite the verdicts ``to_confirm``, for ``reason`` (kept in the
        manifest and the ledger, as an override is); an empty reason confirms nothing."""
        return replace(self, confirmation=(reason or "").strip() or None)

    @property
    def file_name(self) -> str:
        return f"synthetic_level{self.level}.csv" if self.level is not None else "synthetic.csv"

    def choice(self) -> dict | None:
        if self.view is None or self.settings is None:
            return None
        return self.settings.to_json(self.selection, int(self.level), [m["metric"] for m in self.metrics],
                                     self.chosen_by_user)

    def manifest(self) -> dict:
        """How the file was made and what was checked (``manifest.manifest``)."""
        return manifest(self.model, self.csv, self.level, self.rows, self.seed, self.data_fingerprint,
                        metrics=self.metrics, checks=self.checks, override_reason=self.override_reason,
                        job_id=None if self.view is None else self.view.id,
                        sweep=None if self.view is None else self.view.settings_record(), choice=self.choice(),
                        verdicts=self.verdicts.to_json(),
                        confirmation=None if self.confirmation is None else {
                            "reason": self.confirmation, "verdicts": [v.text for v in self.to_confirm]})

    def manifest_bytes(self) -> bytes:
        return manifest_bytes(self.manifest())

    # -- what happens to it ---------------------------------------------------------------------------------------
    def refuse_if_blocked(self, fix: str = "Fix the problem, or release anyway with a reason (it goes into the "
                                           "manifest).") -> None:
        """The one refusal of a release a guardrail blocks (and no reason overrides): its first block, in words;
        nothing is written or recorded."""
        if self.blocked:
            raise DataError(f"The release is blocked: {self.blocked[0].message} Nothing was written.", fix=fix)

    def record(self, store: Store, note: str | None = None) -> LedgerEntry:
        """Into the ledger of ``store``'s workspace, with a copy of the rows (the download, the command line)."""
        self.refuse_if_blocked()
        choice = self.choice()
        return record_release(store, self.table_fingerprint, self.table, self.csv, self.sha256, self.model,
                              self.level, self.seed, note=note, job_id=None if self.view is None else self.view.id,
                              table_name=self.table_name,
                              choice=choice["why"] if choice else f"level {self.level} given on the command line",
                              verdicts=self.verdicts.to_json(), confirmation=self.confirmation,
                              override=self.override_reason)

    def write(self, out: str | Path, inputs: tuple = ()) -> tuple[Path, Path]:
        """The CSV at ``out`` and its manifest next to it (``<name>.manifest.json``), each written whole or not at
        all and never over an input; returns both paths."""
        self.refuse_if_blocked()
        out = Path(out)
        manifest_path = manifest_path_for(out)
        csv_path = write_file(self.csv, out, inputs)
        write_file(self.manifest_bytes(), manifest_path, inputs)
        return csv_path, manifest_path


def manifest_path_for(out: str | Path) -> Path:
    """Where a release's manifest goes: next to its file, ``<name without .csv>.manifest.json``."""
    out = Path(out)
    stem = out.name[:-4] if out.name.lower().endswith(".csv") else out.name
    return out.with_name(f"{stem}.manifest.json")
