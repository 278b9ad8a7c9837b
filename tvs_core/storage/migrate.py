"""Workspaces written before tables were kept as Parquet held pickles, which can run code when read. They are
converted once, then never read again: after the store records the conversion, a ``.pkl`` file in the workspace is
ignored, whoever put it there."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from . import private
from .tables import table_bytes

MIGRATED = "pickles_converted"


def convert_pickles(store) -> list[Path]:
    """The earlier version's tables and released copies as Parquet; returns the files converted. Each pickle must
    pass the same checks as every file read here (ours, written by no other account, not a link) before it is
    read; the ledger's paths follow the copies."""
    if store.meta(MIGRATED) is not None:
        return []
    converted = []
    for folder in ("data", "releases"):
        for old in sorted((store.workspace / folder).glob("*.pkl")) if (store.workspace / folder).is_dir() else ():
            table = pd.read_pickle(io.BytesIO(private.read_private(old)))  # the owner's own earlier file, checked
            private.write_private(old.with_suffix(".parquet"), table_bytes(table))
            converted.append(old)
    with store.transaction() as db:
        for old in converted:
            relative = str(old.relative_to(store.workspace))
            db.execute("UPDATE releases SET copy = ? WHERE copy = ?", (relative[:-4] + ".parquet", relative))
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (MIGRATED,))
    for old in converted:
        old.unlink()
    return converted
