"""A table's identity: same values, names and dtypes give the same fingerprint."""

from __future__ import annotations

import hashlib
import json

import pandas as pd


def fingerprint_table(table: pd.DataFrame) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps([[str(c), str(t)] for c, t in table.dtypes.items()]).encode())
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return digest.hexdigest()
