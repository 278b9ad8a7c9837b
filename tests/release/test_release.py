"""One release path (issue 24): the Export page, ``python -m tvs_core release`` and the report make the same
release; outputs never damage anything; a mostly-missing column is released empty; Parquet's nested and time-zoned
columns."""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.helpers import ROOT, dashboard, run
from tvs_core import TVineSynth, read_table
from tvs_core.data.schema import infer_schema
from tvs_core.errors import DataError
from tvs_core.jobs import JobView
from tvs_core.projects import Projects
from tvs_core.release.export import write_file
from tvs_core.release.ledger import releases
from tvs_core.release.release import Release
from tvs_core.storage.store import Store

LEVEL, ROWS, SEED = 2, 120, 5
VOLATILE = ("created", "packages")  # the time of day; the versions are the same within one run


def stable(manifest: dict) -> dict:
    return {k: v for k, v in manifest.items() if k not in VOLATILE}


def ledger_row(entry) -> dict:
    return {k: v for k, v in vars(entry).items() if k not in ("id", "created", "copy", "note", "table_name")}


@pytest.fixture
def workspace(stored_sweep, tmp_path):
    """A copy of the stored sweep's workspace: this test's ledger is its own."""
    store, job_id, _ = stored_sweep
    copy = tmp_path / "ws"
    shutil.copytree(store.workspace, copy)
    return copy, job_id


@pytest.mark.slow
def test_the_page_the_command_line_and_the_report_make_one_release(workspace, tmp_path, monkeypatch):
    space, job_id = workspace
    # the Export page, driven as a user does: the sweep open, the level selected, rows and seed set, Generate
    monkeypatch.setenv("TVS_WORKSPACE", str(space))
    from pages import common

    common.store.clear()
    at = dashboard().run()
    project = at.session_state["project"]
    project.job_id, project.selected_level, project.release_rows, project.release_seed = job_id, LEVEL, ROWS, SEED
    Projects(Store(space)).save(project)
    at.session_state["project"] = project
    at.switch_page("pages/export.py").run()
    next(b for b in at.button if b.label == "Generate release").click().run()
    assert not at.exception, [e.value for e in at.exception]
    page = at.session_state["release"]
    common.store.clear()
    page_entry = page.record(Store(tmp_path / "page-ledger"))  # what the CSV download's callback does

    # the command line, from the same sweep
    out = tmp_path / "cli.csv"
    done = run("release", "--job", job_id, "--level", LEVEL, "--rows", ROWS, "--seed", SEED, "--workspace", space,
               "--out", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == page.csv  # the same file, byte for byte
    cli_manifest = json.loads((tmp_path / "cli.manifest.json").read_text())
    assert stable(cli_manifest) == stable(json.loads(page.manifest_bytes()))
    (cli_entry,) = releases(Store(space))  # recorded by default
    assert ledger_row(cli_entry) == ledger_row(page_entry)

    # the report of that level renders the same release (the command line's report: not exported, same rows)
    report = tmp_path / "report.html"
    done = run("report", job_id, "--level", LEVEL, "--workspace", space, "--out", report)
    assert done.returncode == 0, done.stderr
    view = JobView(Store(space), job_id)
    default = Release.from_sweep(view, LEVEL)  # the report's rows: the training split's size, the sweep's seed
    assert default.sha256 in report.read_text()
    again = run("release", "--job", job_id, "--level", LEVEL, "--workspace", space, "--no-ledger",
                "--out", tmp_path / "default.csv")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "default.csv").read_bytes() == default.csv


@pytest.mark.slow
def test_the_command_line_release_checks_records_and_says_so(stored_sweep, tmp_path):
    _, _, table = stored_sweep
    data = tmp_path / "cohort.csv"
    table.to_csv(data, index=False)
    space = tmp_path / "ws"
    common = ["release", data, "--response", "in_hospital_death", "--sensitive", "total_cost_eur", "--level", "2",
              "--rows", "60", "--workspace", space]
    first = run(*common, "--seed", 1, "--out", tmp_path / "a.csv")
    assert first.returncode == 0, first.stderr
    assert "guardrail (ok): No synthetic row is an exact copy" in first.stderr
    assert "recorded in the release ledger as the table's release 1" in first.stderr
    manifest = json.loads((tmp_path / "a.manifest.json").read_text())
    assert manifest["file"]["sha256"] == __import__("hashlib").sha256((tmp_path / "a.csv").read_bytes()).hexdigest()
    second = run(*common, "--seed", 2, "--out", tmp_path / "b.csv")
    assert second.returncode == 0, second.stderr
    assert "pooled check: Pooled with the 1 earlier release(s)" in second.stderr  # the table has an earlier release
    assert "privacy budget with this release" in second.stderr
    third = run(*common, "--seed", 3, "--no-ledger", "--out", tmp_path / "c.csv")
    assert third.returncode == 0 and "not recorded in the ledger" in third.stderr
    assert [e.seed for e in releases(Store(space))] == [1, 2]


# -- outputs ----------------------------------------------------------------------------------------------------
def special_files(tmp_path) -> dict[str, Path]:
    out = {"a named pipe": tmp_path / "pipe.csv", "a socket": tmp_path / "sock.csv", "a folder": tmp_path / "dir.csv"}
    os.mkfifo(out["a named pipe"])
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(out["a socket"]))
    out["a folder"].mkdir()
    (tmp_path / "link.csv").symlink_to(out["a named pipe"])
    out["a named pipe (through a link)"] = tmp_path / "link.csv"
    if Path("/dev/full").exists():
        out["a device"] = Path("/dev/full")
    return out


@pytest.mark.slow
def test_a_release_never_replaces_a_device_pipe_socket_folder_or_a_link_to_one(stored_sweep, tmp_path):
    _, _, table = stored_sweep
    data = tmp_path / "cohort.csv"
    table.to_csv(data, index=False)
    for kind, target in special_files(tmp_path).items():
        before = os.lstat(target)
        done = run("release", data, "--response", "in_hospital_death", "--sensitive", "total_cost_eur", "--level",
                   "1", "--rows", "20", "--no-ledger", "--out", target)
        assert done.returncode == 2 and kind.split(" (")[0] in done.stderr, (kind, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        after = os.lstat(target)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino), kind  # untouched
    assert not list(tmp_path.glob(".*.part"))


def test_a_file_size_limit_is_one_sentence_and_leaves_no_partial_file(stored_sweep, tmp_path):
    _, _, table = stored_sweep
    data = tmp_path / "cohort.csv"
    table.to_csv(data, index=False)
    out = tmp_path / "release.csv"
    done = subprocess.run([sys.executable, "-m", "tvs_core", "release", str(data), "--response", "in_hospital_death",
                           "--sensitive", "total_cost_eur", "--level", "1", "--no-ledger", "--out", str(out)],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000)))
    assert done.returncode == 2 and "Could not write" in done.stderr and "nothing was written" in done.stderr, \
        done.stderr
    assert not out.exists() and not list(tmp_path.glob(".*.part"))


def test_a_full_disk_is_one_sentence_and_leaves_nothing(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    class Full(io.RawIOBase):
        def __init__(self, handle, mode):
            self.stream = real_fdopen(handle, mode)

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def fileno(self):
            return self.stream.fileno()

        def close(self):
            self.stream.close()
            super().close()

    monkeypatch.setattr(os, "fdopen", lambda handle, mode: Full(handle, mode))
    with pytest.raises(DataError, match="No space left on device; nothing was written"):
        write_file(b"a,b\n1,2\n", tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


# -- missing values ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("present, released", [
    ([24.5, 24.5], "empty"),  # 99 % missing, its two values equal (was released as 24.5 in every row)
    ([24.5, 30.1], "empty"),  # 99 % missing, two different values
    ([24.5] * 19, "empty"),  # 90.5 % missing: above the threshold
    ([24.5] * 20, "constant"),  # exactly 90 %: not above it, a constant column repeated
])
def test_a_column_above_the_missing_threshold_is_released_empty(present, released):
    rng = np.random.default_rng(0)
    n = 200
    x = rng.normal(size=n)
    table = pd.DataFrame({"a": x, "b": x + rng.normal(size=n), "y": (x > 0).astype(int)})
    bmi = np.full(n, np.nan)
    bmi[: len(present)] = present
    table["bmi"] = bmi
    spec = infer_schema(table)["bmi"]
    assert spec.role.value == "dropped"
    out = TVineSynth(response="y", sensitive=["a"]).fit(table).sample(50, truncation_level=1, seed=0)["bmi"]
    assert out.isna().all() if released == "empty" else (out == 24.5).all()


def test_a_mostly_missing_column_given_a_role_is_refused():
    rng = np.random.default_rng(1)
    n = 200
    table = pd.DataFrame({"a": rng.normal(size=n), "y": rng.integers(0, 2, n), "bmi": np.nan})
    table.loc[:1, "bmi"] = [24.5, 24.5]
    schema = infer_schema(table).override("bmi", type="continuous", role="covariate")
    with pytest.raises(DataError, match="missing in 99 %"):
        TVineSynth(response="y", sensitive=["a"]).fit(table, schema)


# -- Parquet ------------------------------------------------------------------------------------------------------
def parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("values", [[[1, 2]] * 60, [{"k": 1}] * 60])
def test_a_nested_parquet_column_is_refused_by_name(values):
    frame = pd.DataFrame({"a": np.arange(60.0), "y": np.arange(60) % 2, "tags": values})
    with pytest.raises(DataError, match="Column 'tags' of 'x.parquet' holds nested values"):
        read_table(parquet(frame), "x.parquet")


def test_time_zoned_parquet_dates_become_utc_as_in_a_csv():
    when = pd.date_range("2020-03-28", periods=60, freq="h", tz="Europe/Berlin")
    frame = pd.DataFrame({"a": np.arange(60.0), "y": np.arange(60) % 2, "when": when})
    from_parquet = read_table(parquet(frame), "x.parquet")
    from_csv = read_table(frame.to_csv(index=False).encode(), "x.csv")
    assert from_parquet["when"].dt.tz is None and "converted to UTC" in from_parquet.attrs["note"]
    csv_schema = infer_schema(from_csv)
    assert csv_schema["when"].type.value == infer_schema(from_parquet)["when"].type.value == "datetime"
    expected = when.tz_convert("UTC").tz_localize(None)
    assert (from_parquet["when"].to_numpy() == expected.to_numpy()).all()
