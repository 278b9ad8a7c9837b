"""The manifest beside a released file (``tvs_core/release/manifest.py``): strict JSON any parser reads, and the facts
a reviewer checks the file against."""

from __future__ import annotations

import calendar
import importlib
import json
import math
import platform
import time

import numpy as np
import pandas as pd
import pytest

from tests.helpers import CopyRows
from tvs_core.release import manifest, manifest_bytes
from tvs_core.release.guardrails import Guardrail
from tvs_core.version import __version__

manifest_module = importlib.import_module("tvs_core.release.manifest")  # the package's name is the function


def strict_json(data: bytes):
    """What a strict parser (jq, a JavaScript viewer) accepts: no NaN or Infinity tokens."""
    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")
    return json.loads(data, parse_constant=refuse)


@pytest.fixture
def far_time_zone(monkeypatch):
    """A local clock 12 hours from UTC, so a local time written as UTC shows."""
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_values_a_parser_cannot_read_become_null_and_numpy_values_plain():
    """An interval that could not be computed (NaN, inf) is null, never a bare NaN that strict parsers reject."""
    raw = {"low": float("nan"), "high": np.float64(np.inf), "n": np.int64(7), "ok": np.bool_(True), "na": pd.NA,
           "when": pd.Timestamp("2024-05-06 07:08:09"), 3: (1.5, -math.inf), "nat": pd.NaT}
    assert strict_json(manifest_bytes(raw)) == {"low": None, "high": None, "n": 7, "ok": True, "na": None,
                                                "when": "2024-05-06T07:08:09", "3": [1.5, None], "nat": None}


def test_a_manifest_describes_what_was_passed_and_when(small_table, far_time_zone):
    """A generator without a vine order (a baseline) has a null order; absent metrics and checks are empty lists;
    the file's size, the job, the override reason and the creation time (UTC) are recorded as given."""
    model = CopyRows(response="y", seed=5).fit(small_table)
    check = Guardrail("exact_copies", "block", "3 of 10 rows copy a training row")
    before = time.time()
    info = strict_json(manifest_bytes(manifest(model, b"a,b\n1,2\n", None, 10, 9, "fp", checks=[check],
                                               override_reason="reviewed by the steward", job_id="j1",
                                               sweep={"levels": [1, 2]}, choice={"alpha": 0.5})))
    created = calendar.timegm(time.strptime(info["created"], "%Y-%m-%dT%H:%M:%SZ"))
    assert int(before) - 1 <= created <= time.time() + 1
    assert info["order"] is None and info["generator"] == "copy_rows_test" and info["metrics"] == []
    assert {k: v for k, v in info["file"].items() if k != "sha256"} == {"rows": 10, "bytes": 8,
                                                                     "formula_cells_neutralised": True}
    assert info["guardrails"] == [{"name": "exact_copies", "severity": "block",
                                   "message": "3 of 10 rows copy a training row"}]
    assert (info["override_reason"], info["job_id"], info["data_fingerprint"]) == \
        ("reviewed by the steward", "j1", "fp")
    assert info["sweep"] == {"levels": [1, 2]} and info["choice"] == {"alpha": 0.5}
    assert info["seeds"] == {"model": 5, "release": 9}
    assert info["missing_values"]["rows_before"] == len(small_table)


def test_package_versions_name_this_build_and_skip_what_is_not_installed(monkeypatch):
    """A release made where an optional package is absent still gets its manifest, naming what was there."""
    monkeypatch.setattr(manifest_module, "PACKAGES", ("numpy", "no-such-package-tvs"))
    versions = manifest_module.package_versions()
    assert versions == {"python": platform.python_version(), "tvinesynth-studio": __version__,
                        "numpy": np.__version__}


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_metric_that_is_not_a_number_is_null_in_the_manifest(small_table, bad):
    """A metric whose interval failed still leaves a manifest that strict parsers read."""
    model = CopyRows(response="y").fit(small_table)
    info = strict_json(manifest_bytes(manifest(model, b"x", 1, 1, 0, "fp", metrics=[{"metric": "auc", "low": bad}])))
    assert info["metrics"] == [{"metric": "auc", "low": None}]
