"""The release a data holder downloads: safe CSV, guardrails, manifest."""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from tvs_core import TVineSynth, load_demo
from tvs_core.release import (
    blocked,
    guardrails,
    manifest,
    manifest_bytes,
    neutralise_formulas,
    read_back,
    release_table,
    to_csv_bytes,
)
from tvs_core.release.guardrails import copies_of_training_rows

Y = "in_hospital_death"


def test_formula_cells_are_neutralised_and_numbers_untouched():
    table = pd.DataFrame({"note": ["=HYPERLINK(\"x\")", "+1", "-2 text", "@SUM(A1)", "fine", None],
                          "value": [-1.5, 2.0, -3.0, 4.0, 5.0, 6.0]})
    safe = neutralise_formulas(table)
    assert safe["note"].tolist()[:5] == ["'=HYPERLINK(\"x\")", "'+1", "'-2 text", "'@SUM(A1)", "fine"]
    assert pd.isna(safe["note"].iloc[5])
    assert safe["value"].tolist() == table["value"].tolist()
    text = to_csv_bytes(table).decode()
    assert text.splitlines()[1].endswith(",-1.5") and "'-1.5" not in text  # numbers are written as numbers
    assert read_back(to_csv_bytes(table))["value"].tolist() == table["value"].tolist()


def test_exact_copies_are_counted_on_modelled_columns():
    train = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"], "id": [10, 11, 12]})
    synthetic = pd.DataFrame({"a": [1, 2, 9], "b": ["x", "q", "z"], "id": [1, 2, 3]})
    assert copies_of_training_rows(synthetic, train, ["a", "b"]) == 1


def test_guardrails_block_copies_and_manifest_describes_the_file():
    table = load_demo("clinical")[["total_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]].head(200)
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=0).fit(table)
    synthetic = release_table(model, 2, 300, seed=4)
    checks = guardrails(synthetic, table, model)
    assert not blocked(checks)  # continuous margins interpolate: no row is copied whole
    copied = pd.concat([synthetic.head(250), table.head(50)], ignore_index=True)
    assert blocked(guardrails(copied, table, model))[0].message.startswith("50 of 300")
    caps = [{"parameter": "aia_size_raw", "requested": 500, "used": 150, "reason": "only 150 rows"}]
    checks = guardrails(synthetic, table, model, caps=caps)
    assert any(c.severity == "warn" and "real rows per attacker (sizeRawT)" in c.message for c in checks)
    data = to_csv_bytes(synthetic)
    info = json.loads(manifest_bytes(manifest(model, data, 2, 300, 4, "abc", metrics=[{"metric": "auc_tstr"}],
                                              checks=checks)))
    assert info["file"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert info["truncation_level"] == 2 and info["seeds"] == {"model": 0, "release": 4}
    assert info["order"]["order"][-1] == Y and info["families"] == "gaussian"
    assert {"pyvinecopulib", "numpy", "pandas"} <= set(info["packages"])
    assert info["schema"]["columns"][0]["name"] == "total_cost_eur"
    again = to_csv_bytes(release_table(model, 2, 300, seed=4))
    assert again == data  # same inputs, same bytes
    assert not np.array_equal(read_back(data).to_numpy(), table.head(1).to_numpy())


ESCAPES = "ansi\x1b[31mRED\x1b]0;title\x07\x1b[2J\x9b1m\r"  # colour, a window title (OSC … BEL), clear, C1 CSI, CR


def _inert(data: bytes) -> None:
    text = data.decode("utf-8")
    assert not any(ch in text for ch in "\x1b\x07\x9b\r"), repr(text[:200])
    assert "␛[31mRED␛]0;title␇␛[2J" in text  # visible, as the pictures of the characters


def test_control_characters_in_a_header_and_a_cell_come_out_inert_in_every_csv(tmp_path):
    """The third review: a column named with ESC, BEL and OSC sequences was written raw into the released CSV's
    header and the sweep's results.csv; ``cat`` of either recoloured, retitled and cleared the terminal."""
    table = pd.DataFrame({ESCAPES: ["a", ESCAPES, "=1+1"], "n": [1, 2, 3]})
    data = to_csv_bytes(table)
    _inert(data)
    back = read_back(data)
    assert list(back.columns)[0].startswith("ansi␛[31mRED") and back.iloc[2, 0] == "'=1+1"


@pytest.mark.slow  # a sweep in a fresh process
def test_a_released_csv_and_the_sweeps_results_are_inert_end_to_end(tmp_path, monkeypatch):
    """The command line's release and sweep on a table with such a column name (it is modelled: its name reaches
    the records' attribute cells in results.csv)."""
    from tests.helpers import run
    from tvs_core.evaluation.protocol import TEST_PROTOCOL_ENV

    monkeypatch.setenv(TEST_PROTOCOL_ENV, "tiny")
    name = ESCAPES.rstrip()  # the command line strips white space around a column's name
    table = load_demo("clinical").rename(columns={"creatinine_mg_dl": name})
    path = tmp_path / "t.parquet"
    table.to_parquet(path)
    out = tmp_path / "out"
    common = [path, "--response", Y, "--sensitive", name, "--workspace", tmp_path / "space"]
    swept = run("sweep", *common, "--levels", "1", "--baselines", "none", "--out", out)
    assert swept.returncode == 0, swept.stderr
    _inert((out / "results.csv").read_bytes())
    made = run("release", *common, "--level", "1", "--rows", "50", "--out", out / "s.csv")
    assert made.returncode == 0, made.stderr
    _inert((out / "s.csv").read_bytes())
    assert "\x1b" not in swept.stdout + swept.stderr + made.stdout + made.stderr  # what the terminal printed
