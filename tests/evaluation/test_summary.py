"""``tvs_core.evaluation.summary`` on hand-made records: what ``summarise`` groups, its medians, intervals and
counts (a percentile metric's interval computed by hand), its independence of the records' order, the
``Summary`` constructor, and ``readable``'s order and words. The selectors on a real sweep are in
``test_summary_typed.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tvs_core.evaluation.catalogue import CATALOGUE, GROUPS
from tvs_core.evaluation.intervals import Interval
from tvs_core.evaluation.records import HOLDER, REAL, record, to_frame
from tvs_core.evaluation.summary import (
    KEYS,
    MANY_COLUMNS,
    SUMMARY_COLUMNS,
    ColumnSpread,
    Summary,
    column_spread,
    readable,
    summarise,
    summarise_columns,
)


def records(rows) -> pd.DataFrame:
    return to_frame([record(*row[:4], **row[4]) if len(row) > 4 else record(*row) for row in rows])


def game(values, model=HOLDER, level=1, metric="mab", **keys):
    keys = {"attribute": "s", "target_kind": "outlier", "role": "game", **keys}
    return [(model, level, metric, v, {**keys, "target": i % 3, "iteration": i}) for i, v in enumerate(values)]


# --- summarise ----------------------------------------------------------------------------------------------------

def test_summarise_gives_the_median_its_interval_and_the_count_of_values():
    values = [0.1, 0.4, 0.2, 0.3, 5.0]  # one outlier: the median ignores it
    summary = summarise(records(game(values)))
    assert len(summary) == 1 and list(summary.frame.columns) == SUMMARY_COLUMNS
    row = summary.frame.iloc[0]
    assert (row["model"], row["level"], row["role"], row["metric"], row["attribute"], row["target_kind"]) == (
        HOLDER, 1, "game", "mab", "s", "outlier")
    assert row["median"] == pytest.approx(0.3) and row["n"] == 5
    assert min(values) <= row["ci_low"] <= row["median"] <= row["ci_high"] <= max(values)


def test_targets_and_iterations_are_pooled_every_other_key_is_kept_apart():
    rows = (game([1.0, 2.0, 3.0]) + game([10.0, 20.0], target_kind="random") + game([5.0], level=2)
            + game([7.0], attribute="t") + game([8.0], role="release") + game([9.0], metric="wcab")
            + game([4.0], model="independent", level=None))
    summary = summarise(records(rows))
    assert len(summary) == 7 and not summary.frame.duplicated(KEYS).any()
    medians = {tuple(r[k] for k in ("level", "attribute", "target_kind", "role", "metric", "model")): r["median"]
               for r in summary.frame.to_dict("records")}
    assert medians[(1, "s", "outlier", "game", "mab", HOLDER)] == 2.0
    assert medians[(1, "s", "random", "game", "mab", HOLDER)] == 15.0
    assert summary.level(None).models() == ["independent"] and summary.level(None).interval().value == 4.0
    assert str(summary.frame["level"].dtype) == "Int64"


def test_a_summary_does_not_depend_on_the_order_of_its_records():
    rng = np.random.default_rng(0)
    frame = records(game(list(rng.normal(size=12))) + game(list(rng.normal(size=7)), metric="wcab"))
    shuffled = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    pd.testing.assert_frame_equal(summarise(shuffled).frame, summarise(frame).frame)


def test_missing_values_are_left_out_of_the_median_and_the_count():
    summary = summarise(records(game([1.0, np.nan, 3.0, np.nan, 2.0])))
    row = summary.frame.iloc[0]
    assert row["median"] == 2.0 and row["n"] == 3
    nothing = summarise(records(game([np.nan, np.nan]))).frame.iloc[0]
    assert np.isnan(nothing["median"]) and np.isnan(nothing["ci_low"]) and nothing["n"] == 0


def test_a_single_value_has_no_spread():
    row = summarise(records(game([0.7]))).frame.iloc[0]
    assert row["median"] == row["ci_low"] == row["ci_high"] == 0.7 and row["n"] == 1


def test_a_percentile_metric_takes_the_percentiles_of_its_bootstrap_draws_as_its_interval():
    """TRTR's replicates are bootstrap draws already: 0, 1, ..., 100 give the 2.5 and 97.5 percentiles 2.5 and
    97.5, not the much narrower bootstrap interval of their median."""
    assert CATALOGUE["auc_trtr"].spread == "percentile"
    draws = [(REAL, None, "auc_trtr", float(v), {"iteration": v, "role": "reference"}) for v in range(101)]
    row = summarise(records(draws)).frame.iloc[0]
    assert row[["median", "ci_low", "ci_high", "n"]].tolist() == pytest.approx([50.0, 2.5, 97.5, 101])
    half = summarise(records(draws), confidence=0.5).frame.iloc[0]
    assert half[["ci_low", "ci_high"]].tolist() == pytest.approx([25.0, 75.0])
    bootstrapped = summarise(records([(HOLDER, 1, "auc_tstr", float(v), {"iteration": v}) for v in range(101)]))
    low, high = bootstrapped.frame.iloc[0][["ci_low", "ci_high"]]
    assert 2.5 < low < 50 < high < 97.5


def test_a_wider_confidence_gives_a_wider_interval():
    values = list(np.random.default_rng(1).normal(size=30))
    narrow = summarise(records(game(values)), confidence=0.5).frame.iloc[0]
    wide = summarise(records(game(values)), confidence=0.99).frame.iloc[0]
    assert wide["ci_low"] <= narrow["ci_low"] <= narrow["ci_high"] <= wide["ci_high"]
    assert wide["median"] == narrow["median"]


# --- Summary ------------------------------------------------------------------------------------------------------

def test_summary_puts_its_columns_in_order_and_drops_others():
    frame = summarise(records(game([1.0, 2.0]))).frame
    reordered = frame[SUMMARY_COLUMNS[::-1]].assign(extra=1)
    assert list(Summary(reordered).frame.columns) == SUMMARY_COLUMNS
    pd.testing.assert_frame_equal(Summary(reordered).frame, frame)


def test_models_metrics_and_roles_are_read_from_the_rows():
    summary = summarise(records(game([1.0]) + game([2.0], model="independent", level=None, role="release")
                                + game([3.0], metric="pg")))
    assert summary.models() == ["independent", HOLDER]  # summarise sorts its keys
    assert set(summary.metrics()) == {"mab", "pg"}
    assert summary.role("release").models() == ["independent"] and len(summary.role("game")) == 2
    assert summary.interval() == Interval(2.0, 2.0, 2.0, 1)
    assert "Summary(3 rows)" in repr(summary)


# --- readable -----------------------------------------------------------------------------------------------------

def test_readable_orders_rows_by_group_then_catalogue_and_unknown_metrics_last():
    rows = (game([0.5], metric="authenticity", attribute=None, target_kind=None)
            + game([0.1], metric="my_metric", attribute=None, target_kind=None)
            + game([0.2], metric="wcab") + game([0.3], metric="mab")
            + game([0.8], metric="auc_tstr", attribute=None, target_kind=None))
    table = readable(summarise(records(rows)))
    assert table["metric"].tolist() == [CATALOGUE[m].short for m in ("auc_tstr", "mab", "wcab", "authenticity")] + [
        "My metric"]
    assert table["group"].tolist()[:4] == [GROUPS[0], GROUPS[1], GROUPS[1], GROUPS[-1]]
    assert table["group"].iloc[-1] == "other" and table["unit"].iloc[-1] == "" and table["better"].iloc[-1] == ""


def test_readable_says_column_targets_median_and_interval_in_words():
    table = readable(summarise(records(game([0.123456, 0.2, 0.3]) + game([0.9], metric="auc_tstr", attribute=None,
                                                                              target_kind=None))))
    mab = table[table["metric"] == CATALOGUE["mab"].short].iloc[0]
    assert (mab["column"], mab["targets"], mab["median"], mab["n"]) == ("s", "outlier targets", 0.2, 3)
    assert mab["interval"].startswith("spread ") and "of only 3 values" in mab["interval"]
    assert mab["unit"] == CATALOGUE["mab"].unit and mab["better"] == CATALOGUE["mab"].better
    auc = table[table["metric"] == CATALOGUE["auc_tstr"].short].iloc[0]
    assert (auc["column"], auc["targets"], auc["interval"]) == ("", "", "a single value, no interval")
    assert "name" not in table.columns
    rounded = readable(summarise(records(game([0.123456])))).iloc[0]["median"]
    assert rounded == 0.1235


def test_readable_raw_adds_the_record_name_and_the_interval_ends():
    summary = summarise(records(game([1.0, 2.0, 3.0])))
    table = readable(summary, raw=True).iloc[0]
    row = summary.frame.iloc[0]
    assert (table["name"], table["low"], table["high"]) == ("mab", row["ci_low"], row["ci_high"])


def test_readable_of_a_missing_median_and_of_nothing():
    table = readable(summarise(records(game([np.nan, np.nan])))).iloc[0]
    assert table["median"] is None and table["interval"] == "no interval"
    assert readable(Summary()).empty


# --- a per-column metric of many columns ---------------------------------------------------------------------------

def distances(count: int) -> list:
    """column_distance of ``count`` columns c0, c1, ...: column i is i / 100 in each of its two sets."""
    return [(HOLDER, 1, "column_distance", i / 100, {"attribute": f"c{i}", "iteration": k})
            for i in range(count) for k in range(2)]


def test_column_spread_names_the_worst_column_by_the_metrics_direction_and_skips_a_missing_value():
    values = {"a": 0.2, "b": np.nan, "c": 0.5, "d": 0.1}
    assert column_spread(values, lower_is_better=True) == ColumnSpread(4, 0.2, 0.5, "c")  # the largest is worst
    assert column_spread(values, lower_is_better=False) == ColumnSpread(4, 0.2, 0.1, "d")  # the smallest
    assert column_spread({"a": None, "b": np.nan}, lower_is_better=True) is None


def test_a_metric_of_few_columns_keeps_its_rows():
    table = readable(summarise(records(distances(MANY_COLUMNS) + game([0.3]))))
    short, apart = summarise_columns(table)
    pd.testing.assert_frame_equal(short, table)
    assert apart.empty


@pytest.mark.parametrize("raw", [False, True])
def test_a_metric_of_many_columns_is_one_row_in_its_place_and_its_columns_apart(raw):
    count = MANY_COLUMNS + 4
    table = readable(summarise(records(game([0.3]) + distances(count)
                                       + game([0.7], metric="auc_tstr", attribute=None, target_kind=None))), raw=raw)
    short, apart = summarise_columns(table)
    assert short["metric"].tolist() == [CATALOGUE[m].short for m in ("auc_tstr", "mab", "column_distance")]
    row = short.iloc[2]
    assert row["column"] == f"all {count} columns: their median" and row["median"] == pytest.approx(
        np.median([i / 100 for i in range(count)]))
    assert row["interval"] == f"worst: {(count - 1) / 100:.3f} (c{count - 1})"  # lower is better: the largest
    assert row["n"] == 2 and list(short.columns) == list(table.columns)
    assert sorted(apart["column"]) == sorted(f"c{i}" for i in range(count))  # every column
    pd.testing.assert_frame_equal(apart, table[table["metric"] == CATALOGUE["column_distance"].short]
                                  .reset_index(drop=True))
    if raw:
        assert np.isnan(row["low"]) and np.isnan(row["high"])  # no interval: the spread is over columns
