"""The command line others script against: JSON out, CSV out, one-line errors."""

import json

import pandas as pd
import pytest

from tests.helpers import run
from tvs_core import load_demo

Y = "in_hospital_death"




@pytest.fixture(scope="module")
def data_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "cohort.csv"
    table = load_demo("clinical")
    table = table[["total_cost_eur", "ward_cost_eur", "creatinine_mg_dl", "urea_mg_dl", "lactate_mmol_l",
                   "heart_rate_bpm", Y]].head(300)
    table.insert(0, "patient_id", range(1001, 1301))
    table.to_csv(path, index=False)
    return path


def test_inspect_prints_schema_json(data_csv):
    result = run("inspect", data_csv)
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    types = {c["name"]: c["type"] for c in schema["columns"]}
    assert types["patient_id"] == "identifier" and types[Y] == "binary"
    assert types["lactate_mmol_l"] == "continuous"


@pytest.mark.slow
def test_a_reader_that_stops_early_gets_no_traceback(data_csv):
    # ``inspect DATA | head -1``: the reader closes the pipe before the JSON is written
    import os
    import subprocess
    import sys

    from tests.helpers import ROOT

    process = subprocess.Popen([sys.executable, "-m", "tvs_core", "inspect", str(data_csv)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 0 and "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


@pytest.mark.slow
def test_order_prints_algorithm_1(data_csv):
    result = run("order", data_csv, "--response", Y, "--sensitive", "total_cost_eur,creatinine_mg_dl",
                 "--rho", "0.3")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert {"order", "K", "tau_block"} <= set(out)
    assert out["order"][:2] == ["total_cost_eur", "creatinine_mg_dl"] and out["order"][-1] == Y
    assert "ward_cost_eur" in out["K"] and "patient_id" not in out["order"]
    assert out["tau_block"] == 6 + 1 - len(out["K"]) - 2


@pytest.mark.slow
def test_release_writes_same_header_and_is_reproducible(data_csv, tmp_path):
    args = ["release", data_csv, "--response", Y, "--sensitive", "total_cost_eur", "--level", "3",
            "--rows", "120", "--seed", "5", "--families", "gaussian"]
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    assert run(*args, "--out", first).returncode == 0
    assert run(*args, "--out", second).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    header_in = data_csv.read_text().splitlines()[0]
    assert first.read_text().splitlines()[0] == header_in
    out = pd.read_csv(first)
    assert len(out) == 120 and not set(out["patient_id"]) & set(range(1001, 1301))


@pytest.mark.slow
def test_release_with_explicit_order_and_demo(tmp_path):
    order = ",".join(c for c in load_demo("clinical").columns if c != Y)
    out = tmp_path / "demo.csv"
    result = run("release", "--demo", "clinical", "--order", order, "--level", "2", "--rows", "50",
                 "--families", "gaussian", "--out", out)
    assert result.returncode == 0, result.stderr
    assert list(pd.read_csv(out).columns) == list(load_demo("clinical").columns)


@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["release", "missing.csv", "--response", Y, "--sensitive", "x", "--level", "1", "--out", "o.csv"],
     "does not exist"),
    (["order", "{data}", "--response", Y, "--sensitive", "nope"], "nope"),
    (["order", "{data}", "--response", "ghost", "--sensitive", "urea_mg_dl"], "ghost"),
    (["release", "{data}", "--response", Y, "--sensitive", "urea_mg_dl", "--level", "99", "--out", "o.csv"],
     "level"),
])
def test_errors_exit_non_zero_with_one_clear_line(data_csv, tmp_path, args, words):
    args = [a.replace("{data}", str(data_csv)) for a in args]
    result = run(*args, cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0]
    assert "Traceback" not in result.stderr
