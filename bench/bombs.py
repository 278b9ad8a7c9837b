"""Hostile files that expand when parsed: how long each takes to be refused, and the reading process's peak memory.

Each bomb of the security review (tests/data/bombs.py builds them) is read by ``read_table`` in a fresh process
capped at 1 GB of address space (RLIMIT_AS), with the default limits, once with this checkout's code and, with
``--before COMMIT``, once with that commit's (unpacked by ``git archive`` into a temporary folder). A read still
running after 60 s is stopped there. Time is the read's own (imports excluded); peak memory is the process's
maximum resident size (``getrusage``), imports included — the control row (an 11-row workbook) shows that floor.

Usage (from the repo root): ``python bench/bombs.py [--before 87b7fcf]``; writes bench/bombs.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from machine import cpu_model

from tests.data.bombs import BOMBS, HANG_GUARD, MB, MEMORY_CAP, Bomb, Outcome, honest_xlsx, read_capped

CONTROL = Bomb("control", "an 11-row workbook that reads (the reading process's floor)", honest_xlsx, "", 0.01)


def unpack(commit: str, into: Path) -> Path:
    """The tree of ``commit``, as ``git archive`` gives it."""
    into.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def cell(outcome: Outcome) -> str:
    if outcome.status == "REFUSED":
        verdict = "refused" if "above the limit of" in outcome.message else f"error “{outcome.message[:72]}…”"
    else:
        verdict = {"READ": "read", "TIMEOUT": f"still running after {HANG_GUARD} s of CPU",
                   "CRASHED": f"crashed ({outcome.message[:60]})"}[outcome.status]
    return f"{verdict} | {outcome.seconds:.2f} | {outcome.peak_mb:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="also measure the code of this commit (e.g. 87b7fcf)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "bombs"
        folder.mkdir()
        before = unpack(args.before, Path(temporary) / "before") if args.before else None
        rows = []
        for bomb in [CONTROL, *BOMBS]:
            path = bomb.build(folder)
            now = read_capped(path)
            line = f"| {bomb.name} | {bomb.what} | {path.stat().st_size / MB:,.3f} | {cell(now)} |"
            if before is not None:
                line += f" {cell(read_capped(path, root=before))} |"
            print(line, flush=True)
            rows.append(line)
            if bomb.refused_by:
                print(f"    {now.message}", flush=True)
            path.unlink()
    head = "| bomb | what | MB on disk | now | s to refusal | peak MB |"
    rule = "|---|---|---:|---|---:|---:|"
    if args.before:
        head += f" before ({args.before}) | s | peak MB |"
        rule += "---|---:|---:|"
    text = f"""# Hostile files: refused before parsing

Reproduce: `python bench/bombs.py{' --before ' + args.before if args.before else ''}` (from the repo root; the bombs are
built by `tests/data/bombs.py`, as `tests/data/test_bombs.py` reads them).

- Date: {datetime.date.today()}; machine: {os.cpu_count()} cores shared with other engineers' jobs, CPU: {cpu_model()};
  Python {platform.python_version()}.
- Each file is read by `read_table` in a fresh process with the default limits, under RLIMIT_AS = \
{MEMORY_CAP // MB} MB; a read still running after {HANG_GUARD} s of CPU is stopped. Seconds: the read's own (imports \
excluded). Peak MB: the process's maximum resident size, imports included (the control row is that floor).

{head}
{rule}
""" + "\n".join(rows) + """

Before, under the 1 GB cap, the reads end when the cap is reached (a MemoryError, whose empty message gave "Could
not read …: .") or at the hang guard. The security review measured the same files under a larger cap: the 5 KB
workbook grew to 2.6 GB in 15 s; the 3.3 MB workbook of 322 MB of XML was still parsing after 150 s; the 10 MB CSV
of 10^6 columns ran for more than 150 s at 1.7 GB; the 1.4 MB Parquet file of 150 M rows grew to 2.4 GB; the 50 MB
line was refused after 13 s and 605 MB.
"""
    (ROOT / "bench" / "bombs.md").write_text(text)


if __name__ == "__main__":
    main()
