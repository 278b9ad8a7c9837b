"""What a table decodes to, against the memory a read may use.

A file small on disk can hold a table far larger in memory: a 0.45 MB Parquet file of 2 × 50 million numbers, a
12 KB one of 2 million copies of a 1 MB string, a 24 MB workbook of 255 MB of shared strings. Tables are read in a
child process whose address space is capped (``Limits.read_mb``, ``reader``); the checks here compare the least a
table takes once read with what is left under that cap, from what the file declares, before the table is built, so
that such a file is refused at once and in words. The cap itself stops what no check foresees.
"""

from __future__ import annotations

import io
import math
import resource
import zipfile

from ..errors import DataError
from .limits import ENV, MB, Limits

VALUE = 8  # bytes of one value in a frame's column: a number, a date, or the pointer to a text
TEXT = 49 + VALUE  # the smallest Python str (49 bytes) and its pointer: the least a text value costs in a list
# openpyxl 3.1 (pinned) reads shared strings with ElementTree's iterparse and clears each <si> element without taking
# it off the root, so every string also keeps an empty Element (72 bytes, sys.getsizeof) and the root's pointer to it
KEPT_ELEMENT = 72 + VALUE
SHARED_STRING = TEXT + KEPT_ELEMENT  # the least one shared string costs while openpyxl reads a workbook
_SHARED_STRING = (b"<si>", b"<si ", b"<si/>", b"<si\n", b"<si\r", b"<si\t")  # one string each
_TAIL = max(map(len, _SHARED_STRING)) - 1
_CHUNK = 1 << 20


def memory_cap(limits: Limits) -> tuple[int, bool]:
    """(the address space a read may use in bytes, whether that is ``read_mb`` rather than a lower limit this
    process was given from outside, e.g. ``ulimit -v``)."""
    own = int(limits.read_mb * MB)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft < own:
        return int(soft), False
    return own, True


def address_space() -> int:
    """This process's address space now (VmSize), which the cap bounds."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def check_decoded(need: float, what: str, limits: Limits) -> None:
    """Refuse ``what`` (e.g. "'cohort.parquet' decodes to") when ``need`` bytes do not fit in what is left: of the
    cap, in a capped process (the reading child); of ``read_mb``, in a process without a cap."""
    cap, ours = memory_cap(limits)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    used = address_space() if soft != resource.RLIM_INFINITY else 0
    if used + need > cap:
        left = max(cap - used, 0)
        raise DataError(f"{what} at least {_mb(need)} once read, more than the {_mb(left)} left of the "
                        f"{_mb(cap)} a read may use.", fix=_raise_memory(math.ceil((used + need) / MB), ours, cap))


def check_table(need: float, what: str, limits: Limits) -> None:
    """Refuse a table that takes more than ``table_mb`` once read: the budget of the process that keeps it (the
    dashboard's server, which holds about twice that while it opens it; the command line), checked from what the file
    declares before parsing and from the table itself before it is handed over."""
    if need > limits.table_mb * MB:
        suggested = math.ceil(need / MB * 1.1)
        raise DataError(f"{what} {_mb(need)} once read, more than the {_mb(limits.table_mb * MB)} a table may take "
                        "in the dashboard or the command line.",
                        fix=f"If the file is what you meant to load, and this computer has the memory to spare (about "
                            f"twice the table's size while it opens), raise the limit: {ENV['table_mb']}={suggested} "
                            f"in the environment (on the command line, --limit table_mb={suggested}).")


def memory_exhausted(name: str, limits: Limits, cap: int | None = None, ours: bool | None = None,
                     here: bool = False) -> DataError:
    """The cap was reached while reading (MemoryError, a failed allocation, or the reading process killed); ``here``:
    in the process that keeps the table, once the child had read it (only a limit set outside the tool, e.g.
    ``ulimit -v``, or a full machine, stops it there: the table was weighed against ``table_mb`` first)."""
    if here:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        outside = (f"the {_mb(soft)} this process may use (an address-space limit set outside this tool, e.g. by "
                   "ulimit -v)" if soft != resource.RLIM_INFINITY else "the memory this computer has free")
        return DataError(f"'{name}' was read, but there was no room for the table in {outside}.",
                         fix=f"Read the file where more memory is allowed, or lower the table's size: "
                             f"{ENV['table_mb']} (on the command line, --limit table_mb) sets the largest table that "
                             "is read at all.")
    if cap is None or ours is None:
        cap, ours = memory_cap(limits)
    return DataError(f"Reading '{name}' took all the {_mb(cap)} of memory a read may use.",
                     fix=_raise_memory(2 * math.ceil(cap / MB), ours, cap))


HOLD = 2  # a table decoded beside what it is decoded from: at its peak, about twice its size (measured, bench/bombs.md)


def room_here(need: float, name: str) -> None:
    """Refuse, before decoding, a table that the address-space limit of this process (set outside the tool, e.g.
    ``ulimit -v``) has no room for: the sentence names that limit, instead of an allocation failing mid-decode."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return
    left = soft - address_space()
    if HOLD * need > left:
        raise DataError(f"'{name}' was read, but the table needs about {_mb(HOLD * need)} to be opened here, more than "
                        f"the {_mb(max(left, 0))} left of the {_mb(soft)} this process may use (an address-space "
                        "limit set outside this tool, e.g. by ulimit -v).",
                        fix="Read the file where more memory is allowed, or with fewer rows or columns.")


def _raise_memory(suggested: int, ours: bool, cap: int) -> str:
    if not ours:
        return (f"This process may use only {_mb(cap)} (an address-space limit set outside this tool, e.g. by "
                "ulimit -v); read the file where more memory is allowed.")
    return (f"If the file is what you meant to load, raise the limit: {ENV['read_mb']}={suggested} in the environment "
            f"(on the command line, --limit read_mb={suggested}).")


def _mb(size: float) -> str:
    if size >= 10 * MB:
        return f"{size / MB:,.0f} MB"
    return f"{size / MB:,.1f} MB" if size >= MB / 10 else f"{size / 1024:,.0f} KB"


# -- what a file declares it decodes to --------------------------------------------------------------------------


def check_csv_decoded(cells: int, name: str, limits: Limits) -> None:
    """A CSV's cells (lines × header fields, counted before parsing) each take one value in the frame, twice at
    the parse's end: pandas parses in chunks and then joins them into the columns."""
    check_table(cells * VALUE, f"'{name}' ({cells:,} cells) takes at least", limits)
    check_decoded(2 * cells * VALUE, f"'{name}' ({cells:,} cells) decodes to", limits)


def check_parquet_decoded(raw: bytes, name: str, limits: Limits) -> None:
    """Fixed-width columns from the footer (rows × width) before any page is read; then text columns read with
    their dictionaries kept (a value of a million rows is one entry and a million indices), so that their decoded
    size is counted, not made."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(io.BytesIO(raw)).schema_arrow
    rows = pq.ParquetFile(io.BytesIO(raw)).metadata.num_rows
    texts = [field.name for field in schema if _is_text(field.type)]
    need = sum(rows * _width(field.type) for field in schema if field.name not in texts) + len(texts) * rows * VALUE
    what = f"'{name}' ({rows:,} rows × {len(schema)} columns) decodes to"
    table = f"'{name}' ({rows:,} rows × {len(schema)} columns) takes at least"
    check_table(need, table, limits)
    check_decoded(need, what, limits)
    if not texts:
        return
    columns = pq.ParquetFile(io.BytesIO(raw), read_dictionary=texts).read(columns=texts, use_pandas_metadata=False)
    for column in columns.columns:
        for chunk in column.chunks:
            if hasattr(chunk, "dictionary"):
                lengths = pc.binary_length(chunk.dictionary)
                need += (pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0) if len(chunk.dictionary) else 0
            else:
                need += pc.sum(pc.binary_length(chunk)).as_py() or 0
    del columns
    check_table(need, table, limits)
    check_decoded(need, what, limits)


UNUSED_STRINGS = 10_000  # shared strings a workbook may hold beyond its cells (left over from deleted cells)


def check_xlsx_decoded(raw: bytes, name: str, limits: Limits, cells: int | None = None) -> None:
    """openpyxl keeps every shared string of a workbook as a Python string, whether a cell uses it or not, and the
    emptied element it was parsed from (``SHARED_STRING``, measured: 161 bytes at the peak for 10-character
    strings): counted in the part, in chunks, before anything is parsed (a string written with a namespace prefix
    is not counted, so the count stays a least). ``cells``: what the sheets reach (``limits.check_xlsx``); a cell
    uses one text at most, so far more strings than cells is no spreadsheet program's work, and openpyxl would spend
    minutes reading them for nothing: refused at once."""
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for info in archive.infolist():
            if info.filename.rsplit("/", 1)[-1].lower() != "sharedstrings.xml":
                continue
            strings, tail = 0, b""
            with archive.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    data = tail + chunk  # a tag cut by the chunk is whole here; one wholly in the tail counted before
                    strings += sum(data.count(tag) - tail.count(tag) for tag in _SHARED_STRING)
                    tail = data[-_TAIL:]
            if cells is not None and strings > 2 * cells + UNUSED_STRINGS:
                plural = "" if cells == 1 else "s"
                raise DataError(f"'{name}' holds {strings:,} shared strings (the texts its cells use) for sheets of "
                                f"at most {cells:,} cell{plural}; a spreadsheet program keeps a text only where a cell "
                                "uses it.", fix="Open the file in your spreadsheet program and save it again (or save "
                                                "it as CSV), then load that.")
            check_decoded(strings * SHARED_STRING, f"The {strings:,} shared strings of '{name}' decode to", limits)


def _is_text(kind) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind) or \
        pa.types.is_large_binary(kind)


def _width(kind) -> int:
    """Bytes of one value once read: a fixed-width type's own, at least one pointer for the others."""
    try:
        return max(kind.bit_width // 8, 1)
    except ValueError:  # not fixed-width: nested, null
        return VALUE
