"""Hostile files: how long each takes to be refused (or read), and how far the process that keeps the table grows.

Each bomb of the security reviews (bench/hostile_files.py builds them) is read three ways, with the **default limits**:

- **command line**: ``read_table(path)`` in a fresh process, as ``python -m tvs_core`` reads a file; its growth is the
  reading process's peak resident size beyond its imports (the child that parses is capped on its own);
- **under ulimit -v 1048576**: the same, in a process whose address space an administrator capped at 1 GB, as the
  third review ran it: the refusal must name a limit;
- **dashboard upload**: a real dashboard server (``streamlit run app.py``) and headless Chromium uploading the file on
  the Data page, as a steward does; the seconds from the upload to the page's verdict, and the server's growth (its
  peak resident size, reset just before the upload, less its size before).

A read still running after 60 s (command line) is stopped there. With ``--before COMMIT`` the command-line read is
also measured with that commit's code (unpacked by ``git archive`` into a temporary folder).

Usage (from the repo root, as root for the server's peak reset): ``python -m bench.bombs [--before COMMIT]``;
writes bench/bombs.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import tempfile
from pathlib import Path

from bench.hostile_files import (
    BOMBS,
    HANG_GUARD,
    MB,
    MEMORY_CAP,
    Bomb,
    Outcome,
    categorical_parquet,
    honest_xlsx,
    read_capped,
)
from bench.machine import cpu_model

REFUSE_WITHIN = 10.0  # seconds (issue 54): a bomb is refused within this on a quiet machine
GROW_AT_MOST = 300.0  # MB the server may grow by while it refuses one

ROOT = Path(__file__).resolve().parents[1]

CONTROLS = [Bomb("control", "an 11-row workbook that reads (the reading process's floor)", honest_xlsx, "", 0.01),
            Bomb("parquet_categorical", "a small Parquet file with a categorical column (reads)", categorical_parquet,
                 "", 0.01)]


def unpack(commit: str, into: Path) -> Path:
    """The tree of ``commit``, as ``git archive`` gives it."""
    into.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def verdict(outcome: Outcome) -> str:
    if outcome.status == "REFUSED":
        named = [word for word in outcome.message.split() if word.startswith("TVS_MAX_")]
        return f"refused ({named[0].split('=')[0]})" if named else f"refused: “{outcome.message[:60]}…”"
    return {"READ": "read", "TIMEOUT": f"still running at {HANG_GUARD} s",
            "CRASHED": f"crashed ({outcome.message[:60]})"}.get(outcome.status, outcome.status)


def cell(outcome: Outcome) -> str:
    return f"{verdict(outcome)} | {outcome.seconds:.2f} | {outcome.grown_mb:.0f}"


def dashboard_cell(said: str, seconds: float, grown: float) -> str:
    if "Could not open" in said:
        named = [word for word in said.split() if word.startswith("TVS_MAX_")]
        what = f"refused ({named[0].split('=')[0]})" if named else f"refused: “{said[:60]}…”"
    else:
        what = "read: " + said.split(" — ")[-1][:40]
    return f"{what} | {seconds:.2f} | {grown:.0f}"


def load() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="also measure the code of this commit (e.g. a commit of main)")
    args = parser.parse_args()
    from bench.browser import browser_page, go_to, running_server, upload_and_weigh

    started, rows, said = load(), [], []
    with tempfile.TemporaryDirectory() as temporary, running_server(Path(temporary) / "workspace") as server, \
            browser_page() as page:
        page.goto(server.url)
        page.get_by_text("1250 rows").first.wait_for()
        before = unpack(args.before, Path(temporary) / "before") if args.before else None
        for bomb in [*CONTROLS, *BOMBS]:
            folder = Path(temporary) / bomb.name
            folder.mkdir()
            path = bomb.build(folder)
            now = read_capped(path, cap=None)
            capped = read_capped(path, cap=MEMORY_CAP, defaults=True)
            go_to(page, "1 · Data")  # a fresh Data page for each upload
            uploaded = upload_and_weigh(server, page, path)
            line = (f"| {bomb.name} | {bomb.what} | {path.stat().st_size / MB:,.3f} | {cell(now)} | "
                    f"{verdict(capped)} | {dashboard_cell(*uploaded)} |")
            if before is not None:
                line += f" {cell(read_capped(path, root=before, cap=None))} |"
            print(line, flush=True)
            rows.append(line)
            if bomb.refused_by:
                print(f"    {now.message}", flush=True)
                said.append(f"- {bomb.name}: {now.message}" + ("" if capped.message == now.message else
                                                               f" — under ulimit -v: {capped.message}"))
            path.unlink()
    head = ("| bomb | what | MB on disk | command line | s | grew MB | under ulimit -v 1048576 | dashboard upload | s "
            "| server grew MB |")
    rule = "|---|---|---:|---|---:|---:|---|---|---:|---:|"
    if args.before:
        head += f" before ({args.before}) | s | grew MB |"
        rule += "---|---:|---:|"
    niceness = os.nice(0)  # the command as it was run: niced on a shared machine, or not
    command = (f"nice -n {niceness} " if niceness else "") + "python -m bench.bombs" + (
        f" --before {args.before}" if args.before else "")
    text = f"""# Hostile files: refused before they are parsed, or read within the budget of the process that keeps them

Reproduce: `{command}` (from the repo root, as root; the bombs are built by `bench/hostile_files.py`, as
`tests/data/test_bombs.py` reads them).

- Date: {datetime.date.today()}; machine: {os.cpu_count()} cores (load average 1 / 5 / 15 min: {started} at the start,
  {load()} at the end), CPU: {cpu_model()}; Python {platform.python_version()}. On a busy machine the seconds are mostly
  waiting for a core: compare rows, not machines.
- Every read with the **default limits** (a table may take {_default_table_mb():,.0f} MB once read: `TVS_MAX_TABLE_MB`).
  "command line": `read_table(path)` in a fresh process; seconds are the read's own (imports excluded, the child that
  parses included); "grew MB" is that process's peak resident size beyond its imports (the child is capped on its
  own). "under ulimit -v 1048576": the same in a process whose address space is capped at 1 GB from outside.
  "dashboard upload": a running dashboard and headless Chromium upload the file on the Data page; seconds from the
  upload to the page's verdict; "server grew MB": the server's peak resident size during the upload (reset before it)
  less its size before. The target (issue 54): a bomb refused within {REFUSE_WITHIN:.0f} s on a quiet machine with the
  server growing by at most {GROW_AT_MOST:.0f} MB, or, where the budget admits it, read with the server growing by at
  most twice the table's size once read.

{head}
{rule}
""" + "\n".join(rows) + """

What each refusal says (command line):

""" + "\n".join(said) + """

The first review measured its files under a larger cap: the 5 KB workbook grew to 2.6 GB in 15 s; the 3.3 MB
workbook of 322 MB of XML was still parsing after 150 s; the 10 MB CSV of 10^6 columns ran for more than 150 s at
1.7 GB; the 1.4 MB Parquet file of 150 M rows grew to 2.4 GB; the 50 MB line was refused after 13 s and 605 MB. The
second review, under 1 GB: the 24 MB workbook of 255 MB of shared strings ended in a MemoryError after 71 s (the
dashboard accepted it after about 4 min, its server growing from 333 to 974 MB); the Parquet file of 2 × 50 M rows
failed an allocation after 14 s, the one of a 1 MB dictionary string after 47 s; the CSV of 50 M short lines ended in
a MemoryError shown as "unexpected"; the 50 MB quoted field was refused after 16 s and 561 MB; the categorical
Parquet file gave "unexpected TypeError". The third review, with the default limits: the 0.44 MB Parquet file of
2 × 50 M zeros grew the dashboard's server from 337 MB to 6.9 GB with no message within 90 s (and failed after 49 s
as "something unexpected went wrong (ArrowMemoryError)" from the command line under ulimit -v 1048576); the 100 MB
CSV of 50 M lines and the 103 MB Parquet file of 300 k one-row row groups gave no verdict within 60 s.
"""
    (ROOT / "bench" / "bombs.md").write_text(text)


def _default_table_mb() -> float:
    from tvs_core.data.limits import Limits

    return Limits().table_mb


if __name__ == "__main__":
    main()
