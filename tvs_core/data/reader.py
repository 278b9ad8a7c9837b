"""A table is parsed in a child process under an address-space limit and a time limit, and handed back as Parquet.

The checks before parsing (``limits``) and of what a file decodes to (``decoded``) refuse what a file declares; but
a parser can still meet what no file declares, and a shared server must not be exhausted by one upload. So the
parse runs in a fresh Python process whose address space is capped (``Limits.read_mb``, ``TVS_MAX_READ_MB``) and
which is ended after ``Limits.read_seconds`` (``TVS_MAX_READ_SECONDS``). Whatever ends it — a MemoryError, a failed
allocation, the time limit, a signal — becomes one sentence naming the limit and how to raise it.

The child imports only what parsing needs (not the whole library) and writes a JSON line, then the table as
Parquet (``storage.tables``: every dtype back), to its standard output. The JSON line says what the table takes once
read, so that the process that keeps it (the dashboard's server, the command line) weighs it against its own budget
(``Limits.table_mb``) and its own memory before it decodes a byte: a file the child could read within its cap must
not grow the server past a bound. The child ends with the process that started it, whatever ends that one (the
kernel kills it: ``PR_SET_PDEATHSIG``), so a dashboard stopped mid-read leaves nothing running.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from ..errors import DataError
from ..storage.tables import table_bytes, table_from_bytes
from .decoded import check_table, memory_cap, memory_exhausted, room_here
from .limits import ENV, MB, Limits, check_size

WAIT_STEP = 0.5  # seconds between two calls of a read's ``waiting`` (the dashboard's "reading…" and its Cancel)

ROOT = Path(__file__).resolve().parents[2]
PARSER = "tvs_core.data.io:parse_table"  # named, not imported: io reads every table through this module
# the child: the tvs_core package made without running its __init__ (which imports the whole library), then the
# parse, its address space capped once the reader's modules are imported (what they take counts in the cap)
_BOOT = """
import ctypes, os, signal, sys, types
try:  # ended by the kernel when the process that started it ends (Linux); else it would run on to its limits
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[3]):  # that process ended before the line above ran
    os._exit(1)
package = types.ModuleType("tvs_core")
package.__path__ = [sys.argv[1] + "/tvs_core"]
sys.modules["tvs_core"] = package
from tvs_core.data.reader import child
child(int(sys.argv[2]))
"""
# one thread each for the libraries that start a pool (their stacks and arenas count in the address space)
_CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2",
              "ARROW_DEFAULT_MEMORY_POOL": "system", "PYTHONDONTWRITEBYTECODE": "1"}


def read_in_child(source: str | Path | bytes | memoryview | BinaryIO, name: str | None, limits: Limits,
                  waiting: Callable[[float], None] | None = None) -> pd.DataFrame:
    """The table in ``source`` (a path, bytes, or a binary stream), parsed by ``PARSER`` in a capped child.
    ``waiting(seconds)`` is called every ``WAIT_STEP`` while the child reads; whatever it raises (the dashboard's
    Cancel) ends the child and the read."""
    path, data, name = resolve_source(source, name, limits)
    cap, ours = memory_cap(limits)
    request = json.dumps({"path": path, "name": name, "limits": asdict(limits), "parser": PARSER})
    process = subprocess.Popen([sys.executable, "-c", _BOOT, str(ROOT), str(cap), str(os.getpid())],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, **_CHILD_ENV}, start_new_session=True)
    try:  # the request, then the bytes as they are (an upload is not copied again to be sent)
        out, err = _wait(process, [request.encode() + b"\n", data or b""], limits.read_seconds, waiting)
    except subprocess.TimeoutExpired:
        _end(process)
        raise too_slow(name, limits) from None
    except BaseException:  # Ctrl-C, SIGTERM, Cancel: the child ends with the read
        _end(process)
        raise
    head, _, table = out.partition(b"\n")
    try:
        answer = json.loads(head)
    except ValueError:  # killed (the cap reached in C code, or by the system) before it answered
        if (process.returncode or 0) < 0 or _is_allocation_text(err.decode(errors="replace")):
            raise memory_exhausted(name, limits, cap, ours) from None
        raise DataError(f"Could not read '{name}': the process that reads it stopped ({_said(err)}).",
                        fix="Check that the file is a complete table file.") from None
    if answer.get("memory"):
        raise memory_exhausted(name, limits, cap, ours)
    if "error" in answer:
        raise DataError(answer["error"], column=answer.get("column"), fix=answer.get("fix"))
    size = float(answer.get("bytes", 0))
    check_table(size, f"'{name}' takes", limits)  # the child weighed it; its word is checked again here
    room_here(size + len(table), name)  # decoding: the table, beside the bytes it comes from
    try:
        frame = table_from_bytes(table)
    except MemoryError:
        raise memory_exhausted(name, limits, here=True) from None
    except Exception as exc:  # pyarrow's ArrowMemoryError, numpy's allocation failures: the same sentence
        if _is_allocation(exc):
            raise memory_exhausted(name, limits, here=True) from None
        raise
    if answer.get("note"):
        frame.attrs["note"] = answer["note"]
    return frame


def _wait(process: subprocess.Popen, given: list, seconds: float,
          waiting: Callable[[float], None] | None) -> tuple[bytes, bytes]:
    """The child's output, its input given; ``TimeoutExpired`` after ``seconds``. The input is fed and the output
    drained by threads while this one waits in steps of ``WAIT_STEP``, calling ``waiting`` between them
    (``communicate`` cannot be resumed with input left to send: a child still importing when the first step ends
    would wait for the rest of an upload for ever)."""
    out: list[bytes] = []
    err: list[bytes] = []

    def feed() -> None:
        try:
            for piece in given:
                process.stdin.write(piece)
        except (BrokenPipeError, OSError, ValueError):  # the child ended (or was ended) before it read it all
            pass
        finally:
            with contextlib.suppress(OSError, ValueError):
                process.stdin.close()

    def drain(stream, into: list[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            into.append(stream.read())

    threads = [threading.Thread(target=feed, daemon=True),
               threading.Thread(target=drain, args=(process.stdout, out), daemon=True),
               threading.Thread(target=drain, args=(process.stderr, err), daemon=True)]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    while True:
        elapsed = time.monotonic() - started
        if elapsed >= seconds:
            raise subprocess.TimeoutExpired(process.args, seconds)
        try:
            process.wait(timeout=min(WAIT_STEP, seconds - elapsed))
            break
        except subprocess.TimeoutExpired:
            if waiting is not None:
                waiting(time.monotonic() - started)
    for thread in threads:
        thread.join()
    return b"".join(out), b"".join(err)


def too_slow(name: str, limits: Limits) -> DataError:
    doubled = f"{2 * limits.read_seconds:g}"
    return DataError(f"Reading '{name}' took longer than the {limits.read_seconds:g} s a read may take.",
                     fix=f"If the file is what you meant to load, raise the limit: {ENV['read_seconds']}={doubled} in "
                         f"the environment (on the command line, --limit read_seconds={doubled}).")


def resolve_source(source, name: str | None, limits: Limits) -> tuple[str | None, bytes | memoryview | None, str]:
    """(a path for the child to open, or the bytes to hand it; the name for messages). A path's size is checked
    here, before a process starts; a stream is read to one byte over the limit, no further."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"File '{path}' does not exist.", fix="Check the path.")
        if path.is_dir():
            raise DataError(f"'{path}' is a folder, not a file.", fix="Give the table's file.")
        name = name or path.name
        check_size(path.stat().st_size, name, limits)
        return str(path.resolve()), None, name
    if isinstance(source, (bytes, bytearray, memoryview)):  # an upload's buffer is used as it is, not copied
        data, name = source, name or "upload"
    else:
        name = name or getattr(source, "name", "upload")
        data = read_at_most(source, int(limits.file_mb * MB))
    check_size(len(data), name, limits)
    return None, data, name


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Up to one byte over ``limit``, in chunks: a pipe, a device or a growing file is never read further, and
    nothing is allocated ahead (``read(limit)`` would reserve the whole limit at once)."""
    buffer = io.BytesIO()
    while buffer.tell() <= limit:
        chunk = handle.read(min(16 * MB, limit + 1 - buffer.tell()))
        if not chunk:
            break
        buffer.write(chunk)
    return buffer.getvalue()


def _end(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.wait()


def _said(err: bytes) -> str:
    lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no message"


# -- the child ------------------------------------------------------------------------------------------------


def child(cap: int) -> None:
    """Read the request (a JSON line), import the parser, cap the address space, read the file's bytes (unless a
    path is given), parse, answer, and leave without the interpreter's clean-up."""
    import resource

    import openpyxl  # noqa: F401  (what the parse needs is imported before the cap, whose room is then the parse's)
    import pyarrow.parquet  # noqa: F401

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    request = json.loads(stdin.readline())
    module, function = request["parser"].split(":")
    parse = getattr(importlib.import_module(module), function)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or cap < soft:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        answer, table = _parse(parse, request, stdin)
    except MemoryError:
        answer, table = {"memory": True}, b""
    stdout.write(json.dumps(answer).encode() + b"\n" + table)
    stdout.flush()
    os._exit(0)


def _parse(parse, request: dict, stdin) -> tuple[dict, bytes]:
    limits = Limits(**request["limits"])
    name = request["name"]
    try:
        frame = parse(request["path"] if request["path"] is not None else stdin.read(), name, limits)
        size = int(frame.memory_usage(index=True, deep=True).sum())
        check_table(size, f"'{name}' takes", limits)  # weighed here, before a byte of it is handed over
        return {"note": frame.attrs.get("note"), "bytes": size}, table_bytes(frame)
    except DataError as exc:
        return {"error": exc.message, "column": exc.column, "fix": exc.fix}, b""
    except MemoryError:
        raise
    except Exception as exc:  # an allocation failure that is not a MemoryError (pyarrow's, numpy's), or a bug
        if _is_allocation(exc):
            raise MemoryError from exc
        return {"error": f"Could not read '{name}': its reader failed ({type(exc).__name__}: {_one_line(exc)}).",
                "fix": "Check that the file is a complete table file; if it is, save it as CSV and read that."}, b""


def _is_allocation(exc: BaseException) -> bool:
    return _is_allocation_text(f"{type(exc).__name__} {exc}")


def _is_allocation_text(text: str) -> bool:
    text = text.lower()
    return any(word in text for word in ("memoryerror", "bad_alloc", "unable to allocate", "cannot allocate",
                                          "out of memory", "failed to allocate", "realloc of size",
                                          "malloc of size"))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
