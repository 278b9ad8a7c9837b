"""A corpus of hostile and broken inputs for the command line, generated in code.

Every refusal case writes its files into pytest's ``tmp_path``, builds its options, and runs the CLI in-process
(``tvs_core.cli.main``). Each case asserts:

1. exit status 2 (``main`` returning 2, or argparse's ``SystemExit(2)``),
2. stderr is exactly one non-empty line, starting with ``error: ``, with no traceback and no Python exception
   class name at its start,
3. the line contains a case-specific fragment (the column, option or file it is about),
4. every input file the case used is byte-identical afterwards,
5. for cases that use a workspace: the sweep finished there before the hostile call is still ``done`` with the
   same number of results.

A second, smaller corpus holds awkward but valid inputs (encodings, delimiters, decimal commas, formula-like
cells) that must be accepted and released correctly, with no cell that a spreadsheet would run as a formula.
"""

from __future__ import annotations

import csv
import gc
import hashlib
import io
import os
import re
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tvs_core.cli import main
from tvs_core.storage import Store

# -- shared table builders -------------------------------------------------------------------------------------

N_ROWS = 150


def valid_table(n: int = N_ROWS, seed: int = 7) -> pd.DataFrame:
    """The valid baseline: two floats, a binary text column, a sensitive float and a 0/1 response."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({
        "age": np.round(45 + 12 * rng.normal(size=n), 1),
        "income": np.round(3000 + 600 * x + 150 * rng.normal(size=n), 2),
        "sex": rng.choice(["f", "m"], n),
        "cost": np.round(1000 + 300 * x + 200 * rng.normal(size=n), 2),
        "y": (x + rng.normal(size=n) > 0).astype("int64"),
    })


def outcome_table(n: int = N_ROWS) -> pd.DataFrame:
    """The baseline with the response named ``outcome`` (so a message naming it can be recognised)."""
    return valid_table(n).rename(columns={"y": "outcome"})


def write_csv(path: Path, table: pd.DataFrame, **kwargs) -> Path:
    table.to_csv(path, index=False, **kwargs)
    return path


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def write_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def junk_bytes(n: int, seed: int = 3) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def csv_text(table: pd.DataFrame) -> str:
    return table.to_csv(index=False)


def sentences(n: int, seed: int = 5) -> list[str]:
    words = ["the", "patient", "was", "seen", "by", "a", "doctor", "today", "and", "felt", "better", "after"]
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(words, rng.integers(5, 10))) for _ in range(n)]


# -- option sets -------------------------------------------------------------------------------------------------

RELEASE = {"--response": "y", "--sensitive": "cost", "--level": "1", "--rows": "60", "--out": "out.csv"}
ORDER = {"--response": "y", "--sensitive": "cost"}
SWEEP = {"--response": "y", "--sensitive": "cost", "--levels": "1", "--preset": "quick", "--baselines": "none",
         "--n-jobs": "1", "--workspace": "ws", "--out": "sweep-out"}
INSPECT: dict = {}
BASES = {"release": RELEASE, "order": ORDER, "sweep": SWEEP, "inspect": INSPECT}


def argv(command: str, data: Path | str | None, changes: dict | None = None, extra: tuple = ()) -> list[str]:
    """``command DATA`` with the command's valid options, ``changes`` applied (a None value drops an option)."""
    options = {**BASES[command], **(changes or {})}
    out = [command] + ([str(data)] if data is not None else [])
    for key, value in options.items():
        if value is not None:
            out += [key, str(value)]
    return out + list(extra)


# -- the case type and its factories ---------------------------------------------------------------------------

Fragment = str | tuple[str, ...]  # a tuple: any one of these words will do
Build = Callable[[Path], tuple[list[str], Fragment, list[Path]]]


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    store: bool = False  # the finished job of ``finished_job`` is copied to tmp_path/"ws" first and checked after
    check: Callable[[Path], None] | None = field(default=None, compare=False)  # extra assertions afterwards


def data_case(name: str, writer: Callable[[Path], Path], fragment: Fragment, command: str = "release",
              changes: dict | None = None) -> Case:
    """A hostile file given as DATA to ``command`` with otherwise valid options."""
    def build(tmp: Path):
        data = writer(tmp)
        return argv(command, data, changes), fragment, [data]
    return Case(name, build, store=command == "sweep")


def option_case(name: str, command: str, changes: dict, fragment: str, extra: tuple = ()) -> Case:
    """The valid table with one hostile option."""
    def build(tmp: Path):
        data = write_csv(tmp / "data.csv", valid_table())
        return argv(command, data, changes, extra), fragment, [data]
    return Case(name, build, store=command == "sweep")


def holdout_case(name: str, writer: Callable[[Path, Path], Path], fragment: str) -> Case:
    """A sweep on the valid table with a hostile hold-out file (``writer(tmp, data)`` returns its path)."""
    def build(tmp: Path):
        data = write_csv(tmp / "data.csv", valid_table())
        holdout = writer(tmp, data)
        return argv("sweep", data, {"--holdout": holdout}), fragment, [data, holdout]
    return Case(name, build, store=True)


def raw_case(name: str, builder: Build, store: bool = False, check: Callable[[Path], None] | None = None) -> Case:
    return Case(name, builder, store=store, check=check)


# -- hostile files ---------------------------------------------------------------------------------------------

def with_column(name: str, values, base: Callable[[], pd.DataFrame] = valid_table) -> Callable[[Path], Path]:
    def writer(tmp: Path) -> Path:
        table = base()
        table[name] = values(len(table)) if callable(values) else values
        return write_csv(tmp / "data.csv", table)
    return writer


def replaced(column: str, fn: Callable[[pd.Series], pd.Series], base: Callable[[], pd.DataFrame] = valid_table,
             file: str = "data.csv") -> Callable[[Path], Path]:
    def writer(tmp: Path) -> Path:
        table = base()
        table[column] = fn(table[column])
        return write_csv(tmp / file, table)
    return writer


def text_file(file: str, text: str, encoding: str = "utf-8") -> Callable[[Path], Path]:
    return lambda tmp: write_text(tmp / file, text, encoding)


def bytes_file(file: str, data: bytes) -> Callable[[Path], Path]:
    return lambda tmp: write_bytes(tmp / file, data)


def xlsx_bytes(table: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    table.to_excel(buffer, index=False, engine="openpyxl")
    return buffer.getvalue()


def parquet_bytes(table: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    table.to_parquet(buffer, engine="pyarrow", index=False)
    return buffer.getvalue()


def ragged(tmp: Path) -> Path:
    lines = csv_text(valid_table()).splitlines()
    lines[5] += ",7,8"
    lines[9] = ",".join(lines[9].split(",")[:3])
    return write_text(tmp / "ragged.csv", "\n".join(lines) + "\n")


def with_nul(tmp: Path) -> Path:
    lines = csv_text(valid_table()).splitlines()
    for i in (3, 20, 40):
        lines[i] = lines[i].replace(",f,", ",f\x00\x00,").replace(",m,", ",m\x00\x00,")
    return write_text(tmp / "nul.csv", "\n".join(lines) + "\n")


def unterminated_quote(tmp: Path) -> Path:
    lines = csv_text(valid_table()).splitlines()
    lines[4] = lines[4].replace(",f,", ',"f,').replace(",m,", ',"m,')
    return write_text(tmp / "quote.csv", "\n".join(lines) + "\n")


def quoted_rows(tmp: Path) -> Path:
    lines = csv_text(valid_table()).splitlines()
    return write_text(tmp / "data.csv", "\n".join(f'"{line}"' for line in lines) + "\n")


def thousands(tmp: Path) -> Path:
    table = valid_table()
    table["cost"] = [f"{v * 37:,.2f}" for v in table["cost"]]  # "37,012.34", quoted by the csv writer
    return write_csv(tmp / "data.csv", table, quoting=csv.QUOTE_NONNUMERIC)


def text_in_numbers(s: pd.Series) -> pd.Series:
    s = s.astype(object)
    s.iloc[10] = "n/a?"
    s.iloc[len(s) // 2 + 2] = "twelve"
    return s


def infinities(s: pd.Series) -> pd.Series:
    s = s.copy()
    s.iloc[4] = np.inf
    s.iloc[50] = -np.inf
    return s


def wide(tmp: Path) -> Path:
    table = valid_table(60)
    rng = np.random.default_rng(11)
    for i in range(70):
        table[f"extra_{i}"] = np.round(rng.normal(size=60), 3)
    return write_csv(tmp / "data.csv", table)


def mostly_missing(n: int) -> list:
    values = [np.nan] * n
    values[3], values[90] = 1.5, 2.5
    return values


def tz_datetimes(n: int) -> list[str]:
    stamps = pd.date_range("2021-01-01", periods=n, freq="7h")
    offsets = ["+02:00", "-05:00", "+00:00", "+09:30"]
    return [f"{t:%Y-%m-%dT%H:%M:%S}{offsets[i % 4]}" for i, t in enumerate(stamps)]


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


# -- hostile outputs -------------------------------------------------------------------------------------------

def out_is_input(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    return argv("release", data, {"--out": data}), "--out", [data]


def out_alias(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    (tmp / "sub").mkdir()
    return argv("release", "data.csv", {"--out": "./sub/../data.csv"}), "--out", [data]


def out_hardlink(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    os.link(data, tmp / "link.csv")
    return argv("release", data, {"--out": tmp / "link.csv"}), "--out", [data]


def out_parent_missing(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    return argv("release", data, {"--out": tmp / "nodir" / "x.csv"}), "nodir", [data]


def out_is_directory(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    (tmp / "outdir").mkdir()
    return argv("release", data, {"--out": tmp / "outdir"}), "outdir", [data]


def sweep_out_is_file(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    taken = write_text(tmp / "taken.txt", "an existing file, not a folder\n")
    return argv("sweep", data, {"--out": taken}), "taken.txt", [data, taken]


def sweep_out_holds_the_input(tmp: Path):
    """The data file is called results.csv and --out is its folder: the results must not replace it."""
    data = write_csv(tmp / "results.csv", valid_table())
    return argv("sweep", data, {"--out": tmp}), "results.csv", [data]


def out_empty(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    return argv("release", data, {"--out": ""}), "--out", [data]


# -- hostile workspaces ----------------------------------------------------------------------------------------

def workspace_is_file(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    fake = write_text(tmp / "notadir.txt", "not a folder\n")
    return argv("sweep", data, {"--workspace": fake}), "notadir.txt", [data, fake]


def workspace_under_file(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    blocker = write_text(tmp / "blocker.txt", "a file where a folder is expected\n")
    return argv("sweep", data, {"--workspace": blocker / "ws"}), "blocker.txt", [data, blocker]


CORRUPT_STORE = junk_bytes(4096, seed=99)


def corrupt_store(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    (tmp / "bad-ws").mkdir()
    write_bytes(tmp / "bad-ws" / "studio.sqlite", CORRUPT_STORE)
    return argv("sweep", data, {"--workspace": tmp / "bad-ws"}), "studio.sqlite", [data]


def kept_somewhere(folder: Path, original: bytes, what: str) -> None:
    kept = [p for p in folder.rglob("*") if p.is_file() and p.stat().st_size == len(original)
            and p.read_bytes() == original]
    assert kept, f"the {what} was deleted from {folder} (no file there holds its original bytes)"


def truncated_store(tmp: Path):
    data = write_csv(tmp / "data.csv", valid_table())
    space = tmp / "cut-ws"
    shutil.copytree(tmp / "ws", space)
    for suffix in ("-wal", "-shm"):
        (space / f"studio.sqlite{suffix}").unlink(missing_ok=True)
    database = space / "studio.sqlite"
    cut = truncated(database.read_bytes())
    database.write_bytes(cut)
    (tmp / "cut-store.bin").write_bytes(cut)
    return argv("sweep", data, {"--workspace": space}), "studio.sqlite", [data]


# -- the refusal corpus ----------------------------------------------------------------------------------------

def _holdout_same(tmp: Path, data: Path) -> Path:
    return data


CASES: list[Case] = [
    # files
    data_case("missing_file", lambda tmp: tmp / "nosuch.csv", "nosuch.csv"),
    data_case("inspect_missing_file", lambda tmp: tmp / "nosuch.csv", "nosuch.csv", command="inspect"),
    data_case("empty_file", bytes_file("empty.csv", b""), "empty.csv"),
    data_case("inspect_empty_file", bytes_file("empty.csv", b""), "empty.csv", command="inspect"),
    data_case("only_newlines", text_file("blank.csv", "\n\n\n\n"), "blank.csv"),
    data_case("header_only", text_file("headeronly.csv", "age,income,sex,cost,y\n"), "headeronly.csv"),
    data_case("inspect_header_only", text_file("headeronly.csv", "age,income,sex,cost,y\n"), "headeronly.csv",
              command="inspect"),
    data_case("binary_junk", bytes_file("junk.csv", junk_bytes(5000)), "junk.csv"),
    data_case("inspect_binary_junk", bytes_file("junk.csv", junk_bytes(5000)), "junk.csv", command="inspect"),
    data_case("xlsx_truncated_renamed_csv", lambda tmp: write_bytes(tmp / "book.csv", truncated(
        xlsx_bytes(valid_table()))), "book.csv"),
    data_case("not_a_table_prose", text_file("prose.csv", "This file is not a table at all, it is one long "
                                             "sentence that somebody saved with the wrong name and "
                                             "then chose by mistake in the file dialog.\n"), "prose.csv"),
    data_case("csv_named_parquet", lambda tmp: write_csv(tmp / "fake.parquet", valid_table()), "fake.parquet"),
    data_case("old_xls_magic", bytes_file("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + junk_bytes(600)),
              "old.xls"),
    data_case("directory_as_data", lambda tmp: (tmp / "datadir").mkdir() or tmp / "datadir", "datadir"),
    data_case("parquet_truncated", lambda tmp: write_bytes(tmp / "half.parquet", truncated(
        parquet_bytes(valid_table()))), "half.parquet"),
    data_case("nul_bytes", with_nul, "nul.csv"),
    data_case("unterminated_quote", unterminated_quote, "quote.csv"),
    data_case("ragged_rows", ragged, "ragged.csv"),
    data_case("whole_rows_quoted", quoted_rows, ("--response", "--sensitive", "one column", "single column")),
    data_case("duplicate_header", text_file("data.csv", csv_text(valid_table()).replace(
        "age,income,sex,cost,y", "age,income,age,cost,y", 1)), "age"),
    data_case("inspect_duplicate_header", text_file("data.csv", csv_text(valid_table()).replace(
        "age,income,sex,cost,y", "age,income,age,cost,y", 1)), "age", command="inspect"),
    data_case("empty_header_name", text_file("data.csv", csv_text(valid_table()).replace(
        "age,income,sex,cost,y", "age,,sex,cost,y", 1)), "column 2"),
    data_case("blank_header_name", text_file("data.csv", csv_text(valid_table()).replace(
        "age,income,sex,cost,y", "age,   ,sex,cost,y", 1)), "column 2"),
    data_case("only_commas", text_file("data.csv", ",,,,\n" * 80), "header"),
    data_case("index_column_exported", lambda tmp: (valid_table().to_csv(tmp / "data.csv"), tmp / "data.csv")[1],
              "column 1"),
    data_case("sensitive_all_nan", with_column("blank", np.nan), "blank", changes={"--sensitive": "blank"}),
    data_case("order_sensitive_all_nan", with_column("blank", np.nan), "blank", command="order",
              changes={"--sensitive": "blank"}),
    data_case("response_one_class", replaced("outcome", lambda s: s * 0, base=outcome_table), "outcome",
              changes={"--response": "outcome"}),
    data_case("response_all_nan", replaced("outcome", lambda s: s * np.nan, base=outcome_table), "outcome",
              changes={"--response": "outcome"}),
    data_case("response_free_text", replaced("outcome", lambda s: sentences(len(s)), base=outcome_table),
              "outcome", changes={"--response": "outcome"}),
    data_case("response_not_in_table", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "nosuchcol",
              changes={"--response": "nosuchcol"}),
    data_case("order_response_not_in_table", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "nosuchcol",
              command="order", changes={"--response": "nosuchcol"}),
    data_case("sensitive_not_in_table", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "ghost",
              changes={"--sensitive": "ghost"}),
    data_case("sensitive_wrong_case", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "cost",
              changes={"--sensitive": "COST"}),
    data_case("sensitive_is_response", lambda tmp: write_csv(tmp / "data.csv", outcome_table()), "outcome",
              changes={"--response": "outcome", "--sensitive": "outcome"}),
    data_case("sensitive_includes_response", lambda tmp: write_csv(tmp / "data.csv", outcome_table()), "outcome",
              changes={"--response": "outcome", "--sensitive": "cost,outcome"}),
    data_case("sensitive_twice", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "cost",
              changes={"--sensitive": "cost,cost"}),
    data_case("sensitive_empty_string", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "--sensitive",
              changes={"--sensitive": ""}),
    data_case("response_empty_string", lambda tmp: write_csv(tmp / "data.csv", valid_table()), "--response",
              changes={"--response": ""}),
    data_case("sensitive_inf", replaced("cost", infinities), "cost"),
    data_case("sensitive_text_cells", replaced("cost", text_in_numbers), "cost"),
    data_case("covariate_text_cells", replaced("income", text_in_numbers), "income"),
    data_case("sensitive_constant", with_column("site", 5.0), "site", changes={"--sensitive": "site"}),
    data_case("sensitive_identifier", with_column("patient_id", lambda n: np.arange(1001, 1001 + n)),
              "patient_id", changes={"--sensitive": "patient_id"}),
    data_case("sensitive_free_text", with_column("notes", sentences), "notes", changes={"--sensitive": "notes"}),
    data_case("sensitive_tz_datetimes", with_column("seen_at", tz_datetimes), "seen_at",
              changes={"--sensitive": "seen_at"}),
    data_case("sensitive_99pct_missing_impute", with_column("lab", mostly_missing), "lab",
              changes={"--sensitive": "lab", "--missing": "impute"}),
    data_case("fewer_than_50_rows", lambda tmp: write_csv(tmp / "data.csv", valid_table(30)), "rows"),
    data_case("more_columns_than_rows", wide, "columns"),
    # hold-out files
    holdout_case("holdout_same_file", _holdout_same, "hold"),
    holdout_case("holdout_one_row", lambda tmp, data: write_csv(tmp / "hold.csv", valid_table(1, seed=8)), "hold"),
    holdout_case("holdout_missing_column", lambda tmp, data: write_csv(
        tmp / "hold.csv", valid_table(60, seed=8).drop(columns="income")), "income"),
    holdout_case("holdout_text_cells", lambda tmp, data: write_csv(tmp / "hold.csv", valid_table(60, seed=8).assign(
        cost=lambda t: text_in_numbers(t["cost"]))), "cost"),
    holdout_case("holdout_nonexistent", lambda tmp, data: tmp / "nohold.csv", "nohold.csv"),
    holdout_case("holdout_empty", lambda tmp, data: write_bytes(tmp / "emptyhold.csv", b""), "emptyhold.csv"),
    holdout_case("holdout_binary_junk", lambda tmp, data: write_bytes(tmp / "junkhold.csv", junk_bytes(3000)),
                 "junkhold.csv"),
    # options of release
    option_case("rows_0", "release", {"--rows": "0"}, "--rows"),
    option_case("rows_negative", "release", {"--rows": "-5"}, "--rows"),
    option_case("rows_huge", "release", {"--rows": "100000000000"}, "--rows"),
    option_case("rows_abc", "release", {"--rows": "abc"}, "--rows"),
    option_case("rows_float", "release", {"--rows": "1.5"}, "--rows"),
    option_case("rows_exponent", "release", {"--rows": "1e3"}, "--rows"),
    option_case("level_negative", "release", {"--level": "-1"}, "--level"),
    option_case("level_float", "release", {"--level": "1.5"}, "--level"),
    option_case("level_abc", "release", {"--level": "abc"}, "--level"),
    option_case("level_999", "release", {"--level": "999"}, "--level"),
    option_case("level_empty", "release", {"--level": ""}, "--level"),
    option_case("level_missing", "release", {"--level": None}, "--level"),
    option_case("threads_0", "release", {"--threads": "0"}, "--threads"),
    option_case("threads_negative", "release", {"--threads": "-2"}, "--threads"),
    option_case("threads_abc", "release", {"--threads": "abc"}, "--threads"),
    option_case("seed_negative", "release", {"--seed": "-1"}, "--seed"),
    option_case("seed_float", "release", {"--seed": "1.5"}, "--seed"),
    option_case("seed_abc", "release", {"--seed": "abc"}, "--seed"),
    option_case("release_rho_2", "release", {"--rho": "2"}, "--rho"),
    option_case("families_bogus", "release", {"--families": "bogus"}, "--families"),
    option_case("margins_bogus", "release", {"--margins": "bogus"}, "--margins"),
    option_case("missing_bogus", "release", {"--missing": "bogus"}, "--missing"),
    option_case("order_unknown_column", "release", {"--order": "age,income,sex,cost,ghostcol"}, "ghostcol"),
    option_case("order_duplicate_column", "release", {"--order": "income,income,age,sex,cost"}, "income"),
    option_case("order_missing_covariate", "release", {"--order": "age,income,cost"}, "sex"),
    option_case("order_includes_response", "release", {"--order": "age,income,sex,cost,y"}, "order"),
    option_case("missing_out", "release", {"--out": None}, "--out"),
    option_case("demo_nosuch", "release", {}, "--demo", extra=("--demo", "nosuch")),
    option_case("data_and_demo", "release", {}, "--demo", extra=("--demo", "clinical")),
    # options of order
    option_case("rho_2", "order", {"--rho": "2"}, "--rho"),
    option_case("rho_negative", "order", {"--rho": "-0.1"}, "--rho"),
    option_case("rho_nan", "order", {"--rho": "nan"}, "--rho"),
    option_case("rho_inf", "order", {"--rho": "inf"}, "--rho"),
    option_case("rho_abc", "order", {"--rho": "abc"}, "--rho"),
    option_case("measure_bogus", "order", {"--measure": "bogus"}, "--measure"),
    # options of sweep
    option_case("levels_abc", "sweep", {"--levels": "abc"}, "--levels"),
    option_case("levels_0", "sweep", {"--levels": "0"}, "--levels"),
    option_case("levels_negative", "sweep", {"--levels": "-3"}, "--levels"),
    option_case("levels_empty_item", "sweep", {"--levels": "1,,2"}, "--levels"),
    option_case("levels_99", "sweep", {"--levels": "99"}, "level"),
    option_case("levels_float", "sweep", {"--levels": "1.5"}, "--levels"),
    option_case("preset_bogus", "sweep", {"--preset": "bogus"}, "--preset"),
    option_case("privacy_bogus", "sweep", {"--privacy": "bogus"}, "privacy"),
    option_case("privacy_unknown_column", "sweep", {"--privacy": "mab:nosuch"}, "nosuch"),
    option_case("alpha_5", "sweep", {"--alpha": "5"}, "--alpha"),
    option_case("alpha_negative", "sweep", {"--alpha": "-1"}, "--alpha"),
    option_case("alpha_abc", "sweep", {"--alpha": "abc"}, "--alpha"),
    option_case("alpha_nan", "sweep", {"--alpha": "nan"}, "--alpha"),
    option_case("normalisation_bogus", "sweep", {"--normalisation": "bogus"}, "--normalisation"),
    option_case("n_jobs_0", "sweep", {"--n-jobs": "0"}, "--n-jobs"),
    option_case("n_jobs_negative", "sweep", {"--n-jobs": "-1"}, "--n-jobs"),
    option_case("n_jobs_abc", "sweep", {"--n-jobs": "abc"}, "--n-jobs"),
    option_case("baselines_nosuch", "sweep", {"--baselines": "nosuch"}, "nosuch"),
    option_case("baselines_dp_vine_abc", "sweep", {"--baselines": "dp_vine:abc"}, "dp_vine:abc"),
    option_case("baselines_dp_vine_negative", "sweep", {"--baselines": "dp_vine:-1"}, "dp_vine:-1"),
    option_case("backend_bogus", "sweep", {"--backend": "bogus"}, "--backend"),
    option_case("sweep_seed_negative", "sweep", {"--seed": "-1"}, "--seed"),
    option_case("sweep_rho_2", "sweep", {"--rho": "2"}, "--rho"),
    option_case("sweep_order_unknown_column", "sweep", {"--order": "age,income,sex,cost,ghostcol"}, "ghostcol"),
    option_case("sweep_sensitive_not_in_table", "sweep", {"--sensitive": "ghost"}, "ghost"),
    option_case("sweep_missing_out", "sweep", {"--out": None}, "--out"),
    # the command itself
    raw_case("unknown_subcommand", lambda tmp: (["frobnicate", "x.csv"], "frobnicate", [])),
    raw_case("no_arguments", lambda tmp: ([], ("command", "inspect"), [])),
    raw_case("inspect_demo_nosuch", lambda tmp: (["inspect", "--demo", "nosuch"], "--demo", [])),
    # outputs
    raw_case("out_is_input", out_is_input),
    raw_case("out_is_input_via_relative_alias", out_alias),
    raw_case("out_is_hard_link_to_input", out_hardlink),
    raw_case("out_parent_missing", out_parent_missing),
    raw_case("out_is_directory", out_is_directory),
    raw_case("out_empty_string", out_empty),
    raw_case("sweep_out_is_file", sweep_out_is_file, store=True),
    raw_case("sweep_out_holds_the_input", sweep_out_holds_the_input, store=True),
    # workspaces
    raw_case("workspace_is_file", workspace_is_file),
    raw_case("workspace_under_file", workspace_under_file),
    raw_case("workspace_corrupt_store", corrupt_store,
             check=lambda tmp: kept_somewhere(tmp / "bad-ws", CORRUPT_STORE, "corrupt studio.sqlite")),
    raw_case("workspace_truncated_store", truncated_store, store=True,
             check=lambda tmp: kept_somewhere(tmp / "cut-ws", (tmp / "cut-store.bin").read_bytes(),
                                              "truncated studio.sqlite")),
]


# -- fixtures --------------------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """Relative paths land in tmp_path, and no case can reach the user's default workspace."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path / "default-workspace"))


def _checkpoint(database: Path) -> None:
    gc.collect()  # let the CLI's store connection go
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


@pytest.fixture(scope="module")
def finished_job(tmp_path_factory):
    """A workspace with one valid tiny sweep finished in it: (folder, job id, number of results)."""
    root = tmp_path_factory.mktemp("finished")
    data = write_csv(root / "data.csv", valid_table())
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = main(argv("sweep", data, {"--workspace": root / "ws", "--out": root / "sweep-out"}))
    finally:
        os.chdir(cwd)
    assert code == 0, "the valid baseline sweep must succeed"
    store = Store(root / "ws")
    try:
        (job,) = store.jobs()
        assert job.status == "done"
        count = len(store.results(job.id))
    finally:
        store.close()
    _checkpoint(root / "ws" / "studio.sqlite")
    return root / "ws", job.id, count


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _call(name: str, args: list[str]) -> int:
    """``main(args)``; argparse's SystemExit counts as its exit status, any other exception fails the case."""
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception as exc:  # re-raised with the case's name; pytest shows the original below
        raise AssertionError(f"[{name}] main() raised {type(exc).__name__}: {exc}") from exc
    return code


EXCEPTION_AT_START = re.compile(r"^\s*[\w.]*(Error|Exception|Warning|Interrupt|Exit)\b")


def assert_one_clear_line(name: str, stderr: str, fragment: Fragment) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"[{name}] stderr must be one line, got {len(lines)}:\n{stderr[:2000]}"
    line = lines[0]
    assert line.startswith("error: "), f"[{name}] the line must start with 'error: ': {line!r}"
    assert "Traceback" not in stderr and 'File "' not in stderr, f"[{name}] traceback on stderr: {line!r}"
    assert not EXCEPTION_AT_START.match(line[len("error: "):]), f"[{name}] exception class name: {line!r}"
    words = (fragment,) if isinstance(fragment, str) else fragment
    assert any(w.lower() in line.lower() for w in words), \
        f"[{name}] the message does not mention {' or '.join(map(repr, words))}: {line!r}"


def assert_job_kept(name: str, space: Path, job_id: str, count: int) -> None:
    store = Store(space)
    try:
        job = store.job(job_id)
        assert job is not None, f"[{name}] the finished job {job_id} is gone from {space}"
        assert job.status == "done", f"[{name}] the finished job is now {job.status!r}"
        assert len(store.results(job_id)) == count, f"[{name}] the finished job's results changed"
    finally:
        store.close()


# -- the tests -------------------------------------------------------------------------------------------------

def test_corpus_is_large_and_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) >= 90 and len(set(names)) == len(names)


def test_valid_release_is_accepted(tmp_path, capsys):
    """The harness's baseline: the valid table and options release today (so refusals below are real)."""
    data = write_csv(tmp_path / "data.csv", valid_table())
    assert _call("valid", argv("release", data)) == 0, capsys.readouterr().err
    released = pd.read_csv(tmp_path / "out.csv")
    assert list(released.columns) == list(valid_table().columns) and len(released) == 60


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.slow
def test_hostile_input_is_refused_with_one_clear_line(case: Case, tmp_path, capsys, request):
    job_id = count = None
    if case.store:
        space, job_id, count = request.getfixturevalue("finished_job")
        shutil.copytree(space, tmp_path / "ws")
    args, fragment, inputs = case.build(tmp_path)
    before = {path: _digest(path) for path in inputs}
    capsys.readouterr()
    code = _call(case.name, args)
    err = capsys.readouterr().err
    assert code == 2, f"[{case.name}] exit status {code}, expected 2; stderr: {err.strip()[-500:]!r}"
    assert_one_clear_line(case.name, err, fragment)
    for path, digest in before.items():
        assert _digest(path) == digest, f"[{case.name}] input {path.name} was changed or removed"
    if case.check is not None:
        case.check(tmp_path)
    if case.store:
        assert_job_kept(case.name, tmp_path / "ws", job_id, count)


def test_read_only_workspace_serves_or_refuses_and_keeps_the_job(tmp_path, capsys, finished_job):
    if os.geteuid() == 0:
        pytest.skip("running as root: chmod 0o555 does not stop writing")
    space, job_id, count = finished_job
    workspace = tmp_path / "ws"
    shutil.copytree(space, workspace)
    data = write_csv(tmp_path / "data.csv", valid_table())
    digest = _digest(data)
    out = tmp_path / "outside"
    os.chmod(workspace, 0o555)
    try:
        capsys.readouterr()
        code = _call("read_only_workspace", argv("sweep", data, {"--workspace": workspace, "--out": out}))
        err = capsys.readouterr().err
    finally:
        os.chmod(workspace, 0o755)
    assert code in (0, 2), f"exit status {code}; stderr: {err.strip()[-500:]!r}"
    if code == 0:
        assert (out / "summary.json").is_file() and (out / "results.csv").is_file()
    else:
        assert_one_clear_line("read_only_workspace", err, workspace.name)
    assert _digest(data) == digest
    assert_job_kept("read_only_workspace", workspace, job_id, count)


# -- accepted inputs -------------------------------------------------------------------------------------------

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
HYPERLINK = '=HYPERLINK("http://x","y")'
CITIES = ["Zürich", "Genève", "Málaga", "Kraków", "Besançon"]


def formula_table() -> pd.DataFrame:
    table = valid_table().rename(columns={"income": HYPERLINK, "sex": "@tag"})
    table["@tag"] = np.resize(["=1+1", "@cmd", "-x", "+y"], len(table))
    table["-note"] = np.resize(["=SUM(A1:A9)", "plain", "+41 79", "@home"], len(table))
    return table


def city_table() -> pd.DataFrame:
    return valid_table().assign(city=np.resize(CITIES, N_ROWS))


@dataclass(frozen=True)
class Accepted:
    name: str
    write: Callable[[Path], Path]
    table: Callable[[], pd.DataFrame] = valid_table
    text_values: dict = field(default_factory=dict)  # column -> the values the release may contain


ACCEPTED = [
    Accepted("utf16_bom", lambda tmp: write_csv(tmp / "in.csv", valid_table(), encoding="utf-16")),
    Accepted("utf8_bom", lambda tmp: write_csv(tmp / "in.csv", city_table(), encoding="utf-8-sig"), city_table,
             {"city": CITIES}),
    Accepted("latin1_accents", lambda tmp: write_csv(tmp / "in.csv", city_table(), encoding="latin-1"),
             city_table, {"city": CITIES}),
    Accepted("semicolon_decimal_comma", lambda tmp: write_csv(tmp / "in.csv", valid_table(), sep=";",
                                                              decimal=",")),
    Accepted("tab_delimited", lambda tmp: write_csv(tmp / "in.tsv", valid_table(), sep="\t")),
    Accepted("pipe_delimited", lambda tmp: write_csv(tmp / "in.csv", valid_table(), sep="|")),
    Accepted("crlf_line_endings", lambda tmp: write_csv(tmp / "in.csv", valid_table(), lineterminator="\r\n")),
    Accepted("xlsx_renamed_csv", lambda tmp: write_bytes(tmp / "in.csv", xlsx_bytes(valid_table()))),
    Accepted("formula_like_cells", lambda tmp: write_csv(tmp / "in.csv", formula_table()), formula_table),
    Accepted("thousands_separators", thousands),  # "37,012.34" read as a number (the CLI says so), released as one
]


def _unescaped(cell: str) -> str:
    """A cell as the user wrote it, if the release neutralised a formula by a leading apostrophe."""
    return cell[1:] if cell.startswith("'") and cell[1:2] in FORMULA_START else cell


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.name for c in ACCEPTED])
@pytest.mark.slow
def test_awkward_but_valid_input_is_released(case: Accepted, tmp_path, capsys):
    data = case.write(tmp_path)
    digest = _digest(data)
    out = tmp_path / "released.csv"
    capsys.readouterr()
    code = _call(case.name, argv("release", data, {"--rows": "80", "--out": out}))
    err = capsys.readouterr().err
    assert code == 0, f"[{case.name}] exit status {code}: {err.strip()[-500:]!r}"
    assert _digest(data) == digest, f"[{case.name}] the input was changed"
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8-sig"), newline="")))
    header, body = rows[0], [r for r in rows[1:] if r]
    expected = list(case.table().columns)
    assert [_unescaped(h) for h in header] == expected, f"[{case.name}] released columns {header}"
    assert len(body) == 80, f"[{case.name}] released {len(body)} rows, expected 80"
    for row_number, row in enumerate(rows, start=1):
        for cell in row:
            assert not cell.startswith(FORMULA_START) or PLAIN_NUMBER.match(cell), \
                f"[{case.name}] row {row_number} of the release has a formula-like cell {cell!r}"
    if case.name == "thousands_separators":
        assert "thousands separators" in err, f"[{case.name}] the reader's note was not shown: {err!r}"
        assert all(PLAIN_NUMBER.match(r[header.index("cost")]) for r in body if r[header.index("cost")]), \
            f"[{case.name}] cost was not released as numbers"
    for column, allowed in case.text_values.items():
        released = {r[header.index(column)] for r in body} - {""}
        assert released <= set(allowed), f"[{case.name}] {column} released as {sorted(released)[:5]}"


def test_read_only_workspace_as_seen_by_the_store(tmp_path, capsys, finished_job, monkeypatch):
    """The same as above where chmod cannot be used (tests run as root): the store is told the folder is not
    writable. A finished sweep is served from a read-only open (no -wal/-shm files are made); a sweep that
    has not run is refused naming the folder."""
    import tvs_core.storage.store as store_module

    space, job_id, count = finished_job
    workspace = tmp_path / "ws"
    shutil.copytree(space, workspace)
    for extra in workspace.glob("studio.sqlite-*"):
        extra.unlink()  # what a read-only copy of a closed store looks like
    data = write_csv(tmp_path / "data.csv", valid_table())
    real_access = os.access
    monkeypatch.setattr(store_module.os, "access", lambda path, mode: False if Path(path) == workspace
                        and mode == os.W_OK else real_access(path, mode))
    before = sorted(p.name for p in workspace.iterdir())
    out = tmp_path / "served"
    capsys.readouterr()
    assert _call("read_only_served", argv("sweep", data, {"--workspace": workspace, "--out": out})) == 0
    assert (out / "summary.json").is_file() and (out / "results.csv").is_file()
    capsys.readouterr()
    code = _call("read_only_not_run", argv("sweep", data, {"--workspace": workspace, "--out": out,
                                                          "--seed": "7"}))
    assert code == 2
    assert_one_clear_line("read_only_not_run", capsys.readouterr().err, "read-only")
    assert sorted(p.name for p in workspace.iterdir()) == before  # nothing written into the folder
    monkeypatch.undo()
    assert_job_kept("read_only_workspace", workspace, job_id, count)
