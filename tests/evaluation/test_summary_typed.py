"""The typed summary (issue 24): its selectors keep the rows a reader relies on — the holder's levels without the
baselines and references, a baseline's rows, one point, several metrics — the same rows as the string filters they
replaced, on a real sweep's summary; and no consumer compares model names itself."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tvs_core.evaluation.records import HOLDER, REAL, REFERENCE_MODELS, SHUFFLED
from tvs_core.evaluation.summary import SUMMARY_COLUMNS, Summary, summarise
from tvs_core.jobs import JobView

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ("independent", "dp_vine:1")  # the shared stored sweep's (tests/conftest.py)


@pytest.fixture(scope="module")
def summary(stored_sweep) -> Summary:
    store, job_id, _ = stored_sweep
    return JobView(store, job_id).summary()


def row(model, level, metric, median, attribute=None, target_kind=None, n=5) -> dict:
    return {"model": model, "level": level, "role": "release", "metric": metric, "attribute": attribute,
            "target_kind": target_kind, "median": median, "ci_low": median - 0.1, "ci_high": median + 0.1, "n": n}


def test_a_sweep_summary_is_a_summary_of_every_model(summary):
    assert isinstance(summary, Summary) and list(summary.frame.columns) == SUMMARY_COLUMNS
    assert {HOLDER, REAL, SHUFFLED, *BASELINES} <= set(summary.models())
    assert summary.levels() == [1, 2, 3] and summary.has_levels()


def test_the_holder_has_its_levels_and_no_baseline_or_reference(summary):
    holder = summary.holder()
    assert len(holder) and holder.models() == [HOLDER]
    assert not set(holder.frame["model"]) & {*REFERENCE_MODELS, *BASELINES}
    assert holder.levels() == [1, 2, 3] and holder.level(None).empty
    assert len(holder) == int((summary.frame["model"] == HOLDER).sum())


def test_level_none_is_every_baselines_and_references_rows(summary):
    without = summary.level(None)
    frame = summary.frame
    pd.testing.assert_frame_equal(without.frame, frame[frame["level"].isna()])
    assert set(without.models()) == set(summary.models()) - {HOLDER}
    for model in (*BASELINES, REAL, SHUFFLED):
        point = summary.point(None, model)
        assert len(point) and len(point) == len(summary.model(model))
    assert not without.has_levels()


def test_a_point_is_the_rows_the_string_filter_selected(summary):
    frame = summary.frame
    for level in (1, 2, 3):
        old = frame[frame["model"] == HOLDER]
        old = old[old["level"] == level]
        assert len(old)
        pd.testing.assert_frame_equal(summary.point(level).frame, old)
        pd.testing.assert_frame_equal(summary.holder().level(level).frame, old)  # selectors chain, in any order
        pd.testing.assert_frame_equal(summary.level(level).holder().frame, old)
    old = frame[(frame["model"] == "independent") & frame["level"].isna()]
    pd.testing.assert_frame_equal(summary.point(None, "independent").frame, old)
    assert summary.point(4).empty  # a level the sweep did not evaluate


def test_several_metrics_keep_every_one_of_them(summary):
    both = summary.metric(["auc_tstr", "auc_trtr"])
    assert set(both.metrics()) == {"auc_tstr", "auc_trtr"}
    assert len(both) == len(summary.metric("auc_tstr")) + len(summary.metric("auc_trtr"))
    assert REAL in both.models() and HOLDER in both.models()  # TRTR is the real rows', TSTR every generator's
    pd.testing.assert_frame_equal(summary.metric(("auc_tstr",)).frame, summary.metric("auc_tstr").frame)
    assert summary.metric([]).empty


def test_selecting_changes_nothing_and_summarise_gives_the_same_rows(summary, stored_sweep):
    before = summary.frame.copy()
    summary.holder().level(2).metric("auc_tstr").attribute(None).role("release")
    pd.testing.assert_frame_equal(summary.frame, before)
    store, job_id, _ = stored_sweep
    pd.testing.assert_frame_equal(summarise(JobView(store, job_id).records()).frame, before)


def test_an_interval_pools_several_rows_by_their_medians():
    summary = Summary(pd.DataFrame([
        row(HOLDER, 1, "pg", 0.9, "a", "outlier"), row(HOLDER, 1, "pg", 1.1, "a", "random"),
        row(HOLDER, 1, "pg", 0.5, "b", "outlier", n=3), row("independent", None, "pg", 0.7),
        row(HOLDER, 2, "mab", 0.2, "a")]))
    found = summary.point(1).metric("pg").interval()
    assert found.value == pytest.approx(0.9) and found.low == pytest.approx(0.8) and found.n == 3
    assert summary.point(1).metric("pg").attribute("a").interval().value == pytest.approx(1.0)
    assert summary.point(None, "independent").interval().value == pytest.approx(0.7)
    assert summary.point(1).metric("mab").interval() is None  # not measured at this point
    assert summary.attribute(None).models() == ["independent"]  # the rows without a column
    assert summary.levels() == [1, 2] and summary.holder().levels() == [1, 2]
    assert np.isnan(Summary(pd.DataFrame([row(HOLDER, 1, "pg", np.nan)])).interval().value)


def test_an_empty_summary_reads_as_nothing_yet():
    for empty in (Summary(), Summary(pd.DataFrame()), summarise(pd.DataFrame(columns=[
            "model", "level", "metric", "attribute", "target", "target_kind", "iteration", "value", "role"]))):
        assert empty.empty and len(empty) == 0 and not empty.has_levels()
        assert empty.levels() == [] and empty.models() == [] and empty.metrics() == []
        assert empty.holder().point(1).metric(["mab", "pg"]).interval() is None
    with pytest.raises(ValueError, match="median"):
        Summary(pd.DataFrame([{"model": HOLDER, "level": 1}]))


def test_no_consumer_compares_model_names_itself():
    """Summaries are read through ``Summary``, records through ``evaluation.records``; nowhere else is a frame's
    ``model`` column compared with a name."""
    allowed = {ROOT / "tvs_core/evaluation/records.py", ROOT / "tvs_core/evaluation/summary.py"}
    pattern = re.compile(r"""\[["']model["']\]\s*==|\[["']model["']\]\.isin|\.model\s*==""")
    paths = [p for folder in ("tvs_core", "pages") for p in (ROOT / folder).rglob("*.py") if p not in allowed]
    found = [f"{path.relative_to(ROOT)}:{i}" for path in paths
             for i, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert not found, found
