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


COLUMNS_AT_ONCE = 64  # columns decoded together: a table is never held twice, as Arrow's and as pandas' (issue 54)


def table_from_bytes(data: bytes) -> pd.DataFrame:
    """The table ``table_bytes`` wrote, every dtype back. Decoded a few columns at a time, each batch handed to
    pandas and its Arrow memory given back before the next: at its peak the process holds the table about once
    (a table of 1,999 empty columns took 2.2 times its size when decoded whole, measured in bench/bombs.md)."""
    # one file read by one thread, without the dataset scanner of ``pq.read_table`` (its readahead runs on Arrow's IO
    # pool even without threads): a pool alive at exit can abort the process ("terminate called without an active
    # exception", apache/arrow#34314), as the command line did after reading a table its child handed back
    source = pq.ParquetFile(io.BytesIO(data), pre_buffer=False)
    schema = source.schema_arrow
    mixed = json.loads((schema.metadata or {}).get(_MIXED_KEY, b"[]"))
    stored_index = {name for name in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(name, str)}
    names = [name for name in schema.names if name not in stored_index]
    pool = pa.default_memory_pool()
    parts = []
    for begin in range(0, len(names), COLUMNS_AT_ONCE) if names else [0]:
        batch = source.read(columns=names[begin:begin + COLUMNS_AT_ONCE] if names else None, use_threads=False,
                            use_pandas_metadata=True)
        parts.append(batch.to_pandas(use_threads=False, split_blocks=True, self_destruct=True))
        del batch
        pool.release_unused()
    table = parts[0] if len(parts) == 1 else pd.concat(parts, axis=1)
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
