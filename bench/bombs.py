"""Hostile files that expand when parsed: how long each takes to be refused, and the peak memory of the reading.

Each bomb of the security reviews (tests/data/bombs.py builds them) is read by ``read_table`` in a fresh process
capped at 1 GB of address space (RLIMIT_AS), with the default limits but a read's memory limit at that cap
(TVS_MAX_READ_MB=1024), twice: as the command line reads a file (its path) and as the dashboard reads an upload (its
bytes, and its name). With ``--before COMMIT`` the path is also read with that commit's code (unpacked by ``git
archive`` into a temporary folder). A read still running after 60 s is stopped there. Time is the read's own
(imports excluded, the reading child's start included); peak memory is the largest resident size of the reading
process and of the child that parses (``getrusage``), imports included — the control rows show that floor.

Usage (from the repo root): ``python -m bench.bombs [--before COMMIT]``; writes bench/bombs.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import tempfile
from pathlib import Path

from bench.machine import cpu_model
from tests.data.bombs import (
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


def cell(outcome: Outcome) -> str:
    if outcome.status == "REFUSED":
        verdict = "refused" if "TVS_MAX_" in outcome.message else f"error “{outcome.message[:72]}…”"
    else:
        verdict = {"READ": "read", "TIMEOUT": f"still running at {HANG_GUARD} s",
                   "CRASHED": f"crashed ({outcome.message[:60]})"}[outcome.status]
    return f"{verdict} | {outcome.seconds:.2f} | {outcome.peak_mb:.0f}"


def load() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="also measure the code of this commit (e.g. a commit of main)")
    args = parser.parse_args()
    started, rows, said = load(), [], []
    with tempfile.TemporaryDirectory() as temporary:
        before = unpack(args.before, Path(temporary) / "before") if args.before else None
        for bomb in [*CONTROLS, *BOMBS]:
            folder = Path(temporary) / bomb.name
            folder.mkdir()
            path = bomb.build(folder)
            now, upload = read_capped(path), read_capped(path, upload=True)
            line = f"| {bomb.name} | {bomb.what} | {path.stat().st_size / MB:,.3f} | {cell(now)} | {cell(upload)} |"
            if before is not None:
                line += f" {cell(read_capped(path, root=before))} |"
            print(line, flush=True)
            rows.append(line)
            if bomb.refused_by:
                print(f"    {now.message}", flush=True)
                said.append(f"- {bomb.name}: {now.message}")
            path.unlink()
    head = "| bomb | what | MB on disk | command line | s | peak MB | dashboard upload | s | peak MB |"
    rule = "|---|---|---:|---|---:|---:|---|---:|---:|"
    if args.before:
        head += f" before ({args.before}) | s | peak MB |"
        rule += "---|---:|---:|"
    command = "nice -n 19 python -m bench.bombs" + (f" --before {args.before}" if args.before else "")
    text = f"""# Hostile files: refused before they are parsed, or within the memory a read may use

Reproduce: `{command}` (from the repo root; the bombs are built by `tests/data/bombs.py`, as
`tests/data/test_bombs.py` reads them).

- Date: {datetime.date.today()}; machine: {os.cpu_count()} cores **shared with other engineers' jobs** (load average
  1 / 5 / 15 min: {started} at the start, {load()} at the end), CPU: {cpu_model()}; Python {platform.python_version()}.
  On a busy machine the seconds are mostly waiting for a core: compare rows, not machines.
- Each file is read by `read_table` in a fresh process under RLIMIT_AS = {MEMORY_CAP // MB} MB, with the default \
limits but `TVS_MAX_READ_MB={MEMORY_CAP // MB}`; a read still running after {HANG_GUARD} s is stopped. "command line": \
`read_table(path)`; "dashboard upload": `read_table(bytes, name)`, as the Data page reads an upload. Seconds: the \
read's own (imports excluded; the start of the child process that parses is included). Peak MB: the largest \
resident size of the reading process and of its child (imports included; the control rows are that floor).

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
Parquet file gave "unexpected TypeError".
"""
    (ROOT / "bench" / "bombs.md").write_text(text)


if __name__ == "__main__":
    main()
