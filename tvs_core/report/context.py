"""What every section of the report reads, gathered once from the release: its sweep, its choice and its checks.

Built by ``ReportContext.of`` and handed to each section's renderer, so no section fetches anything twice and none
computes a number: each reads what the release, its sweep (``JobView``) and its choice already hold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd

from ..choice import ChoiceSettings, LevelCard, Selection, explain_level
from ..errors import DataError
from ..evaluation.metrics.audit import AuditResult, audits_from_records
from ..evaluation.preview import LevelPreview
from ..evaluation.summary import Summary
from ..jobs import JobView
from ..jobs.submission import job_tables
from ..release.ledger import LedgerEntry, releases
from ..release.release import Release


@dataclass(frozen=True)
class ReportContext:
    release: Release
    reason: str | None  # the user's note, as typed
    exported: bool  # the release's rows left as a file (else they were drawn for the figures and checks only)
    view: JobView
    summary: Summary
    selection: Selection
    settings: ChoiceSettings
    card: LevelCard  # the recommendation card of the released level, led by its verdicts (the release's own)
    records: pd.DataFrame
    audits: list[AuditResult]
    claims: dict[str, float]  # the ε each DP reference of the sweep claims
    entries: list[LedgerEntry]  # every release of the table in the ledger
    table: pd.DataFrame  # the sweep's table as submitted
    test: pd.DataFrame  # its hold-out rows
    preview: LevelPreview | None  # the risk preview, None without an order
    made: str  # when the report was made

    @classmethod
    def of(cls, release: Release, reason: str | None = None, exported: bool = True) -> ReportContext:
        """Everything the sections read; refused in one sentence for a release without a scored sweep."""
        view = release.view
        if view is None or release.selection is None or int(release.level) not in set(release.selection.table["level"]):
            raise DataError("A report needs a release of a sweep with results at the level it releases.",
                            fix="Let the sweep run (or resume it) before making its report.")
        summary = view.summary()
        preview = view.preview()
        records = view.records()
        table, _ = job_tables(view.store, view.job)
        _, test = view.tables()
        audits, claims = audits_from_records(records), view.claims()
        card = explain_level(release.selection, summary, int(release.level), view.config.sensitive, preview,
                             response=view.config.response, claims=claims, audits=audits,
                             verdicts=release.verdicts or None)  # the verdicts the manifest and the ledger hold
        return cls(release, reason, exported, view, summary, release.selection, release.settings or ChoiceSettings(),
                   card, records, audits, claims,
                   releases(view.store, release.table_fingerprint), table, test, preview,
                   time.strftime("%Y-%m-%d %H:%M:%S %Z"))

    # -- read often ---------------------------------------------------------------------------------------------
    @property
    def level(self) -> int:
        return int(self.release.level)

    @property
    def levels(self) -> list[int]:
        return [int(v) for v in self.selection.table["level"]]

    @property
    def config(self):
        return self.view.config

    @property
    def sensitive(self) -> list[str]:
        return list(self.view.config.sensitive)

    @property
    def name(self) -> str:
        return self.release.table_name

    @property
    def note(self) -> str | None:
        return self.reason.strip() if self.reason and self.reason.strip() else None

    @property
    def drawn(self) -> str:
        """Where the report's rows come from, in words."""
        if self.exported:
            return "the released rows"
        return f"{self.release.rows} rows drawn at level {self.level} (seed {self.release.seed})"
