"""The released file: the synthetic table for the chosen level, written as a spreadsheet-safe CSV."""

from __future__ import annotations

import io
import os
import re
import stat
import tempfile
from pathlib import Path

import pandas as pd

from ..errors import DataError
from ..model.generator import SyntheticGenerator

# Cells starting with these run as formulas in spreadsheet programs (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "|", "%")
# Control characters a terminal obeys (ESC and the sequences it starts, BEL, a carriage return that rewrites the
# line, the C1 codes): ``cat`` of a CSV must not recolour, retitle or clear the screen. Each is written as its
# visible picture (U+2400 + code: ␛ for ESC, ␇ for BEL; ␡ for DEL), a C1 code as U+FFFD; tab and newline stay.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(match: re.Match) -> str:
    code = ord(match.group(0))
    return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else "\ufffd"


def inert(text: str) -> str:
    """``text`` with every control character a terminal obeys replaced by its visible picture."""
    return _CONTROL.sub(_picture, text)


def _safe_text(value) -> str:
    text = inert(str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def neutralise_formulas(table: pd.DataFrame) -> pd.DataFrame:
    """Prefix text cells — and header cells — that a spreadsheet would run as a formula with a single
    quote, and write the control characters a terminal obeys as their pictures (``inert``). Numbers stay numbers
    (a negative number is written as a number, not as text)."""
    out = table.copy()
    out.columns = [_safe_text(c) for c in out.columns]
    for column in out.columns:
        col = out[column]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col):
            continue
        text = col.astype("string")
        risky = (text.str.startswith(FORMULA_STARTS) | text.str.contains(_CONTROL)).fillna(False).to_numpy(dtype=bool)
        if risky.any():
            values = col.astype(object).to_numpy(copy=True)
            values[risky] = [_safe_text(v) for v in values[risky]]
            out[column] = values
    return out


def to_csv_bytes(table: pd.DataFrame) -> bytes:
    return neutralise_formulas(table).to_csv(index=False, lineterminator="\n").encode("utf-8")


def write_csv(table: pd.DataFrame, out: str | Path, inputs: tuple = ()) -> Path:
    """Write a table as a spreadsheet-safe CSV (``write_file``'s guarantees)."""
    return write_file(to_csv_bytes(table), out, inputs)


def write_file(data: bytes, out: str | Path, inputs: tuple = ()) -> Path:
    """``data`` at ``out`` (``write_files``)."""
    return write_files([(data, out)], inputs)[0]


def write_files(files: list[tuple[bytes, str | Path]], inputs: tuple = ()) -> list[Path]:
    """Each file written whole or not at all: never over one of the ``inputs`` (same path or same file through a
    link), only to a new path or over a regular file (a device, pipe, socket or folder — or a link to one — is
    refused by name: renaming over it would replace it), each through a temporary file in the target folder that
    is renamed only once every file is complete. A full disk or a file-size limit is one sentence, and no partial
    file stays behind."""
    targets = [_target(Path(out), inputs) for _, out in files]
    temporaries: list[Path] = []
    try:
        for (data, _), target in zip(files, targets, strict=True):
            handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
            temporaries.append(Path(name))
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
        for temporary, target in zip(temporaries, targets, strict=True):
            os.replace(temporary, target)
    except OSError as exc:
        raise DataError(f"Could not write {targets[len(temporaries) - 1] if temporaries else targets[0]}: "
                        f"{exc.strerror or exc}; nothing was written.",
                        fix="Free some space (or raise the file-size limit), or write to another folder.") from None
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
    return targets


def _target(out: Path, inputs: tuple) -> Path:
    """Where ``out`` is really written: itself, or the regular file a link points to; refused when it would
    replace an input or anything but a regular file."""
    refuse_overwriting_inputs(out, inputs)
    if out.is_symlink() or out.exists():
        try:
            mode = out.stat().st_mode  # follows links
        except FileNotFoundError:  # a link to nothing: the file it names is new
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "not a regular file")
            link = " (through a link)" if out.is_symlink() else ""
            fix = "Give a file name, e.g. synthetic.csv." if stat.S_ISDIR(mode) else \
                "Give a new file name or an existing regular file; a release never replaces a special file."
            raise DataError(f"--out {out} is {kind}{link}.", fix=fix)
        out = Path(os.path.realpath(out))
    if not out.parent.is_dir():
        raise DataError(f"The folder of --out {out} does not exist.", fix="Create it first, or choose another path.")
    return out


def refuse_overwriting_inputs(out: str | Path, inputs: tuple = ()) -> None:
    """An output must never replace a file the user gave us, by name or by inode (a link)."""
    out = Path(out)
    for given in inputs:
        if given is None or not Path(given).exists():
            continue
        same = out.resolve() == Path(given).resolve() or (out.exists() and os.path.samefile(out, given))
        if same:
            raise DataError(f"--out: writing {out} would replace the input file {given}.",
                            fix="Choose another output path.")


MIN_RELEASE_ROWS = 2  # the checks compare the released rows with each other and with the data
MAX_RELEASE_ROWS = 1_000_000  # the dashboard's bound (the command line checks the memory a number of rows needs)


def release_table(model: SyntheticGenerator, level: int | None, rows: int, seed: int) -> pd.DataFrame:
    if rows < MIN_RELEASE_ROWS:
        raise DataError(f"A release of {rows} row(s) cannot be checked.",
                        fix=f"Ask for at least {MIN_RELEASE_ROWS} rows.")
    return model.sample(rows, truncation_level=level, seed=seed)


def read_back(csv_bytes: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv_bytes))
