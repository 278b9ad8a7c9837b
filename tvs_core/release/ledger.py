"""The release ledger: every file that left the workspace, per table, so later releases can be judged
together (an attacker may hold all of them) and the ε of differentially private releases adds up.

The ledger lives in the workspace's SQLite store (``storage/store.py``, table ``releases``): one row per
export — the table's fingerprint (``data/fingerprint.py``), the level, the generator and its settings,
the seed, rows, the SHA-256 of the released file, the time, who chose the level, the user's note, the level's
verdicts (``choice.verdicts``) and why it was released despite those that warn (``confirmation``) or despite a
blocking guardrail (``override``) — and a copy of the
released rows in the workspace (``Workspace.release_path``), since the user's file may be moved.
Wiping the workspace removes both. Rows are only added."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pandas as pd

from ..errors import TVSError
from ..evaluation.records import model_label
from ..model.generator import SyntheticGenerator
from ..storage.store import Store


@dataclass(frozen=True)
class LedgerEntry:
    """One row of the ledger."""

    id: int
    fingerprint: str  # of the table the release was made from
    table_name: str | None
    job_id: str | None
    level: int | None
    generator: str
    settings: dict
    seed: int | None
    rows: int
    sha256: str
    bytes: int
    epsilon: float | None  # the release's ε when its generator is differentially private, else None
    note: str | None
    copy: str  # the kept copy, relative to the workspace
    created: float
    choice: str | None = None  # who chose the level and why ("chosen by the user; …" or "recommended at …")
    verdicts: tuple[dict, ...] = ()  # the level's verdicts when it was released (``Verdict.to_dict``), in order
    confirmation: str | None = None  # why the user released it although its verdicts warn, as confirmed on Export
    override: str | None = None  # why the user released it despite a blocking guardrail

    @classmethod
    def from_row(cls, row: dict) -> LedgerEntry:
        return cls(**{**row, "settings": json.loads(row["settings"]),
                      "verdicts": tuple(json.loads(row.get("verdicts") or "[]"))})

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.created))

    def table(self, store: Store) -> pd.DataFrame:
        """The released rows as they were exported (the workspace's copy)."""
        if not store.space.inside(self.copy).exists():
            raise TVSError(f"The copy of release {self.id} ({self.copy}) is no longer in the workspace "
                           f"{store.workspace}.")
        return store.space.load_release_copy(self.copy)


def epsilon_of(model: SyntheticGenerator) -> float | None:
    """The ε a differentially private generator promises (its declared claim: ``dp_vine:EPS``), None for the
    others."""
    claim = model.privacy_claim()
    return None if claim is None else claim[0]


def record_release(store: Store, fingerprint: str, table: pd.DataFrame, file_bytes: bytes, sha256: str,
                   model: SyntheticGenerator, level: int | None, seed: int | None, note: str | None = None,
                   job_id: str | None = None, table_name: str | None = None, choice: str | None = None,
                   verdicts: list[dict] | None = None, confirmation: str | None = None,
                   override: str | None = None) -> LedgerEntry:
    """Add an export to the ledger and keep a copy of its rows in the workspace (written to a temporary
    file and renamed, so a crash never leaves half a copy behind)."""
    if store.read_only:
        raise TVSError(f"The workspace {store.workspace} is read-only: the release cannot be recorded in its ledger.")
    created = time.time()
    copy = store.space.save_release_copy(fingerprint, f"{int(created * 1000)}-{sha256[:12]}", table)
    entry = {"fingerprint": fingerprint, "table_name": table_name, "job_id": job_id, "level": level,
             "generator": model.name, "settings": json.dumps(model.get_config(), sort_keys=True, default=str),
             "seed": seed, "rows": len(table), "sha256": sha256, "bytes": len(file_bytes), "epsilon": epsilon_of(model),
             "note": (note or "").strip() or None, "copy": copy, "created": created,
             "choice": choice, "verdicts": json.dumps(verdicts or []), "confirmation": confirmation,
             "override": override}
    try:
        release_id = store.add_release(entry)
    except BaseException:
        store.space.remove(copy)
        raise
    return LedgerEntry.from_row({**entry, "id": release_id})


def releases(store: Store, fingerprint: str | None = None) -> list[LedgerEntry]:
    """The releases of one table, oldest first (every table's without a fingerprint)."""
    return [LedgerEntry.from_row(r) for r in store.releases(fingerprint)]


def distinct(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """One entry per released file: exporting the same bytes twice publishes nothing new."""
    seen, out = set(), []
    for entry in entries:
        if entry.sha256 not in seen:
            seen.add(entry.sha256)
            out.append(entry)
    return out


@dataclass(frozen=True)
class Budget:
    """The privacy budget a table has spent: ε adds up over differentially private releases (sequential
    composition); a release without a DP guarantee has no ε at all, so the total is then unbounded."""

    epsilon: float  # sum over the distinct DP releases
    dp_releases: int
    other_releases: int  # releases without a DP guarantee

    @property
    def text(self) -> str:
        if not self.dp_releases and not self.other_releases:
            return "no releases"
        total = f"ε = {self.epsilon:g} over {self.dp_releases} differentially private release(s)" \
            if self.dp_releases else "no differentially private release"
        if self.other_releases:
            total += f"; {self.other_releases} release(s) without a DP guarantee (their ε is unbounded)"
        return total


def budget(entries: list[LedgerEntry]) -> Budget:
    unique = distinct(entries)
    dp = [e for e in unique if e.epsilon is not None]
    return Budget(float(sum(e.epsilon for e in dp)), len(dp), len(unique) - len(dp))


def numbers(entries: list[LedgerEntry]) -> dict[int, int]:
    """Each release's number among its own table's releases (1: the table's first), by its ledger id: the ids run
    over every table of the workspace, so a table's first release may have id 2 while Export said it would be the
    table's first."""
    seen: dict[str, int] = {}
    out = {}
    for entry in sorted(entries, key=lambda e: e.id):
        seen[entry.fingerprint] = seen.get(entry.fingerprint, 0) + 1
        out[entry.id] = seen[entry.fingerprint]
    return out


def release_number(store: Store, entry: LedgerEntry) -> int:
    """``entry``'s number among its table's releases (``numbers``)."""
    return numbers(releases(store, entry.fingerprint))[entry.id]


LEDGER_COLUMNS = ["release", "time", "level", "who chose the level", "note", "released despite", "generator", "ε",
                  "rows", "seed", "table", "fingerprint", "sweep", "sha256"]


def despite(entry: LedgerEntry) -> str:
    """Why the release went out despite its warnings or a blocking guardrail, as the user gave it ("" if neither)."""
    parts = ([f"its warnings: {entry.confirmation}"] if entry.confirmation else []) + (
        [f"a blocking guardrail: {entry.override}"] if entry.override else [])
    return "; ".join(parts)


def ledger_frame(entries: list[LedgerEntry]) -> pd.DataFrame:
    """The ledger as a person reads it (pages, the report, the command line): each release numbered within its table,
    who chose the level, the note and why it went out despite warnings beside the level, before the long identifiers
    a screen shows only after a scroll."""
    number = numbers(entries)
    return pd.DataFrame([{"release": number[e.id], "time": e.when, "level": e.level,
                          "who chose the level": e.choice or "", "note": e.note or "", "released despite": despite(e),
                          "generator": model_label(e.generator), "ε": e.epsilon, "rows": e.rows, "seed": e.seed,
                          "table": e.table_name or e.fingerprint[:12], "fingerprint": e.fingerprint[:12],
                          "sweep": e.job_id, "sha256": e.sha256}
                         for e in entries], columns=LEDGER_COLUMNS)
