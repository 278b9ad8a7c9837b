"""Tables on disk as Parquet: reading one can never run code (a pickle can), and every dtype comes back — pandas'
own Parquet metadata keeps categories and their order, nullable integers, dates and the table's note.

A column of Python objects (an Excel column of numbers and words) has no Parquet type, and Arrow would give a
column of Python ints back as int64: each such cell is kept as a tagged JSON string and turned back into the same
value, type included, on reading."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError

_MIXED_KEY = b"tvs.mixed_columns"


def table_bytes(table: pd.DataFrame, metadata: dict[str, str] | None = None) -> bytes:
    """The table as Parquet bytes; ``metadata``: more text kept in the file's key-value metadata."""
    mixed = [column for column in table.columns if table[column].dtype == object]
    frame = table
    if mixed:
        frame = table.copy()
        for column in mixed:
            frame[column] = pd.array([_tag(value, column) for value in table[column]], dtype="string")
    arrow = pa.Table.from_pandas(frame, nthreads=1)
    extra = {key.encode(): value.encode() for key, value in (metadata or {}).items()}
    if mixed:
        extra[_MIXED_KEY] = json.dumps([str(c) for c in mixed]).encode()
    if extra:
        arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), **extra})
    buffer = io.BytesIO()
    pq.write_table(arrow, buffer)
    return buffer.getvalue()


def table_metadata(data: bytes) -> dict[str, str]:
    """The key-value metadata ``table_bytes`` kept, read from the footer alone."""
    metadata = pq.read_schema(io.BytesIO(data)).metadata or {}
    return {key.decode(): value.decode() for key, value in metadata.items()}


def table_from_bytes(data: bytes) -> pd.DataFrame:
    # one file read by one thread, without the dataset scanner of ``pq.read_table`` (its readahead runs on Arrow's IO
    # pool even without threads): a pool alive at exit can abort the process ("terminate called without an active
    # exception", apache/arrow#34314), as the command line did after reading a table its child handed back
    arrow = pq.ParquetFile(io.BytesIO(data), pre_buffer=False).read(use_threads=False)
    mixed = json.loads((arrow.schema.metadata or {}).get(_MIXED_KEY, b"[]"))
    table = arrow.to_pandas(use_threads=False)
    for column in table.columns:
        if str(column) in mixed:
            table[column] = pd.Series([_untag(text) for text in table[column]], index=table.index, dtype=object)
    return table


def _tag(value, column) -> str:
    if value is None:
        return '["none"]'
    if value is pd.NaT:  # before the dates: NaT is a datetime, and "NaT" no date format reads back
        return '["nat"]'
    if isinstance(value, (bool, np.bool_)):
        return json.dumps(["bool", bool(value)])
    if isinstance(value, (int, np.integer)):
        return json.dumps(["int", str(int(value))])
    if isinstance(value, (float, np.floating)):
        return json.dumps(["float", repr(float(value))])
    if isinstance(value, str):
        return json.dumps(["str", value])
    if isinstance(value, pd.Timestamp):
        return json.dumps(["timestamp", value.isoformat()])
    if isinstance(value, dt.datetime):
        return json.dumps(["datetime", value.isoformat()])
    if isinstance(value, dt.date):
        return json.dumps(["date", value.isoformat()])
    if isinstance(value, dt.time):
        return json.dumps(["time", value.isoformat()])
    if isinstance(value, pd.Timedelta):
        return json.dumps(["timedelta", str(value.value)])
    if isinstance(value, dt.timedelta):
        return json.dumps(["pytimedelta", [value.days, value.seconds, value.microseconds]])
    if isinstance(value, decimal.Decimal):
        return json.dumps(["decimal", str(value)])
    if value is pd.NA:
        return '["na"]'
    raise DataError(f"Column '{column}' holds a value of type {type(value).__name__}, which cannot be kept in the "
                    "workspace.", column=str(column), fix="Convert the column to numbers, text or dates first.")


def _untag(text: str):
    kind, *rest = json.loads(text)
    value = rest[0] if rest else None
    return {
        "none": lambda: None, "nat": lambda: pd.NaT, "na": lambda: pd.NA,
        "bool": lambda: bool(value), "int": lambda: int(value), "float": lambda: float(value),
        "str": lambda: value, "timestamp": lambda: pd.Timestamp(value),
        "datetime": lambda: dt.datetime.fromisoformat(value), "date": lambda: dt.date.fromisoformat(value),
        "time": lambda: dt.time.fromisoformat(value), "timedelta": lambda: pd.Timedelta(int(value)),
        "pytimedelta": lambda: dt.timedelta(days=value[0], seconds=value[1], microseconds=value[2]),
        "decimal": lambda: decimal.Decimal(value),
    }[kind]()
