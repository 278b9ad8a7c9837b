"""Where the whole suite's CPU goes, by kind of process: the test workers themselves, the sweeps' loky workers,
headless Chromium, the Streamlit servers, the reading children, the command line's runs.

The suite keeps both cores busy (vmstat: 96 % user and system through a run), so more test workers cannot make it
faster: only less work can. This samples every process's CPU time from /proc twice a second while the command runs
(a process that lives less than half a second is missed) and sums it by kind.

    python -m bench.suite_cpu OUT.json -- .venv/bin/python -m pytest -q -n 2 --dist loadgroup
    python -m bench.suite_cpu OUT.json            # print the summary of an earlier run

Linux only. Results: bench/suite.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import defaultdict

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

# the first pattern a command line holds names its kind
KINDS = (
    ("installing the test lock (pip, venv)", "pip install"),
    ("installing the test lock (pip, venv)", "setuptools"),
    ("test worker (pytest-xdist)", "exec(eval(sys.stdin.readline()))"),
    ("multiprocessing child (Dask's worker processes)", "multiprocessing.spawn"),
    ("a test's own pytest run (the other BLAS kernels)", "-m pytest -q -m kernels"),
    ("sweep task worker (loky)", "popen_loky_posix"),
    ("loky's resource tracker", "resource_tracker"),
    ("headless Chromium", "chrom"),
    ("Playwright's driver", "playwright"),
    ("Streamlit server (the dashboard)", "streamlit"),
    ("Streamlit server (the dashboard)", "-m tvs_core dashboard"),
    ("sweep worker or standby", "-m tvs_core worker"),
    ("sweep worker or standby", "-m tvs_core standby"),
    ("command line (sweep, release, report, ...)", "-m tvs_core"),
    ("reading child (a file read in a process of its own)", "import ctypes, os, signal, sys, types"),
    ("memory-capped child (hostile files)", "resource.setrlimit"),
    ("Ray", "ray"),
    ("Dask", "distributed"),
    ("pytest (the run itself)", "pytest"),
)


def kind_of(command: str) -> str:
    return next((kind for kind, pattern in KINDS if pattern in command), "other")


def _processes() -> set[str]:
    return {pid for pid in os.listdir("/proc") if pid.isdigit()}


def _sample(seen: dict, root: str, first: int, before: set[str], stop: threading.Event) -> None:
    """Every process the command started (by ancestry, or by its folder or command line naming ``root``); none
    that ran ``before`` it."""
    ours = {first}
    while not stop.is_set():
        for pid in _processes() - before:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
                fields = stat[stat.rindex(")") + 2:].split()
                cpu = (int(fields[11]) + int(fields[12])) / TICK
                key = f"{pid}:{fields[19]}"  # a pid is reused: with its start time
                if key not in seen:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        command = f.read().replace(b"\0", b" ").decode(errors="replace")[:400]
                    if not (int(fields[1]) in ours or int(pid) in ours or root in command
                            or os.readlink(f"/proc/{pid}/cwd").startswith(root)):
                        continue  # another user of the machine
                    ours.add(int(pid))
                    seen[key] = {"command": command, "cpu": cpu}
                seen[key]["cpu"] = cpu
            except (OSError, ValueError, IndexError):
                continue
        stop.wait(0.5)


def summary(processes: list[dict]) -> list[tuple[str, int, float]]:
    by_kind: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for process in processes:
        entry = by_kind[kind_of(process["command"])]
        entry[0] += 1
        entry[1] += process["cpu"]
    return sorted(((kind, n, cpu) for kind, (n, cpu) in by_kind.items()), key=lambda row: -row[2])


def print_summary(run: dict) -> None:
    rows = summary(run["processes"])
    total = sum(cpu for _, _, cpu in rows)
    print(f"{run['command']}\nwall {run['wall']:.0f} s, exit {run['exit']}, CPU seen {total:.0f} s "
          f"({total / run['wall']:.2f} cores on average)\n")
    print("| kind of process | processes | CPU s | share |\n|---|---:|---:|---:|")
    for kind, n, cpu in rows:
        print(f"| {kind} | {n} | {cpu:.0f} | {cpu / total:.0%} |")


def main(argv: list[str]) -> int:
    out, command = argv[0], argv[2:] if len(argv) > 1 and argv[1] == "--" else []
    if not command:
        with open(out) as f:
            print_summary(json.load(f))
        return 0
    seen: dict = {}
    stop = threading.Event()
    before = _processes()
    began = time.monotonic()
    running = subprocess.Popen(command)
    sampler = threading.Thread(target=_sample, args=(seen, os.getcwd(), running.pid, before, stop), daemon=True)
    sampler.start()
    running.wait()
    wall = time.monotonic() - began
    stop.set()
    sampler.join()
    run = {"command": " ".join(command), "wall": wall, "exit": running.returncode, "processes": list(seen.values())}
    with open(out + ".tmp", "w") as f:
        json.dump(run, f)
    os.replace(out + ".tmp", out)
    print_summary(run)
    return running.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
