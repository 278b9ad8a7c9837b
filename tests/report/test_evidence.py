"""report/evidence.py: the evidence behind page 1 — PU per level, every metric at every level in one table (a metric
of many columns summarised), the GDPR criteria and the DP audit — laid out from what the summary and the selection
hold, every number written the same way. (The figures of each section, on a real sweep: tests/test_report.py.)"""

import html
import math
import re
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tests.choice.conftest import _summary_of
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.metrics.audit import AuditResult
from tvs_core.evaluation.records import HOLDER
from tvs_core.evaluation.summary import MANY_COLUMNS
from tvs_core.report import evidence
from tvs_core.report.evidence import _cell, _ns, _num, _summarised

HOSTILE = "<script>x</script> & co"


def row(name: str, column: str, cells: dict, group: str = "fidelity") -> dict:
    """One row of the table of every metric as ``_rows`` makes it: cells {level: (median, low, high, n)}."""
    return {"group": group, "name": name, "family": name, "label": name, "column": column, "targets": "",
            "part": None, "unit": "", "better": "lower", "cells": cells}


# -- numbers and cells --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, shown", [
    (0.12345, "0.123"), (-0.5, "-0.500"),  # three decimals, as the card writes them
    (3.0, "3"), (np.int64(12), "12"), (0.0, "0"),  # a whole number has none
    (12.345, "12.3"), (-45.67, "-45.7"),  # fewer where the integer part is long
    (123.4, "123"), (2500.5, "2500"),
    (None, "—"), (math.nan, "—"), (pd.NA, "—"),
])
def test_a_number_has_three_decimals_fewer_when_its_integer_part_is_long(value, shown):
    assert _num(value) == shown


def test_a_cell_is_the_median_over_its_range_or_as_much_of_it_as_there_is():
    assert _cell(0.5, 0.25, 0.75) == "0.500<br>0.250–0.750"
    assert _cell(0.5, math.nan, 0.75) == _cell(0.5, 0.25, math.nan) == "0.500"  # no range: the median alone
    assert _cell(math.nan, 0.25, 0.75) == "—"


def test_the_replicate_counts_of_a_row_are_those_of_its_cells():
    assert _ns(row("m", "", {1: (0.1, 0.0, 0.2, 20), 2: (0.2, 0.1, 0.3, 20)})) == {20}
    assert _ns(row("m", "", {1: (0.1, 0.0, 0.2, 20), 2: (0.2, 0.1, 0.3, 3)})) == {20, 3}


# -- a metric of many columns -------------------------------------------------------------------------------------
def many_columns(count: int, at: dict | None = None) -> list[dict]:
    """``count`` columns c0, c1, ... of column_distance at levels 1 and 2: column i is i / 10 at level 1, i / 100
    at level 2 (``at`` {column index: {level: median}} overrides)."""
    rows = []
    for i in range(count):
        cells = {1: i / 10, 2: i / 100} | (at or {}).get(i, {})
        rows.append(row("column_distance", f"c{i}", {v: (m, m, m, 5) for v, m in cells.items()}))
    return rows


def test_a_metric_of_few_columns_keeps_a_row_per_column():
    rows = [row("pair_structure", "", {1: (0.5, 0.4, 0.6, 20)}, "utility"), *many_columns(MANY_COLUMNS)]
    kept, apart = _summarised(rows, [1, 2])
    assert kept == rows and apart == {}


def test_a_metric_of_many_columns_becomes_one_row_of_their_median_and_their_largest():
    assert MANY_COLUMNS < 9
    rows = [row("pair_structure", "", {1: (0.5, 0.4, 0.6, 20)}, "utility"), *many_columns(9)]
    kept, apart = _summarised(rows, [1, 2])
    assert len(kept) == 2 and kept[0] is rows[0]
    summary = kept[1]
    assert summary["name"] == "column_distance" and summary["column"] == ""
    count, median, largest = summary["summary"]
    assert count == 9 == len(apart[("column_distance", "")])  # every column listed apart
    assert median == pytest.approx({1: 0.4, 2: 0.04})  # of 0, 0.1, ..., 0.8 and of 0, 0.01, ..., 0.08
    assert largest[1] == pytest.approx((0.8, "c8")) and largest[2][1] == "c8"
    assert all("summary" not in r for r in apart[("column_distance", "")])  # the columns' own rows: as they were


def test_a_level_without_the_metric_has_no_median_and_no_largest():
    rows = many_columns(MANY_COLUMNS + 1)
    _, median, largest = _summarised(rows, [1, 2, 3])[0][0]["summary"]
    assert set(median) == set(largest) == {1, 2}


def test_the_largest_column_is_found_past_a_column_without_a_value():
    """A column whose median is missing (every replicate NaN) must not stand for the largest: NaN compares false,
    so taking the maximum with it first kept the NaN and named its column."""
    rows = many_columns(9, at={0: {1: math.nan}})
    _, median, largest = _summarised(rows, [1, 2])[0][0]["summary"]
    assert largest[1] == pytest.approx((0.8, "c8"))
    assert median[1] == pytest.approx(0.45)  # of 0.1, ..., 0.8: the missing one left out


def test_the_table_of_every_metric_summarises_many_columns_and_names_the_largest(context_of):
    columns = [f"col_{i}" for i in range(9)]
    summary = _summary_of([(HOLDER, level, "column_distance", col, (i + 1) / (10 * level), None, None, 5)
                          for level in (1, 2) for i, col in enumerate(columns)])
    shown = evidence.metrics(context_of(summary=summary, levels=[1, 2]))
    assert "worst of 9 columns" in shown
    assert "<td>0.500<br>0.900 col_8</td>" in shown and '<td class="cell">0.250<br>0.450 col_8</td>' in shown
    assert "col_3" not in shown  # a column that is not the largest is left to the list beside the margins


def test_an_attack_on_three_sensitive_columns_is_one_row_naming_the_worst_column_at_each_level(context_of):
    """MAB is lower-is-better: the worst column is the largest, and it may differ from level to level; each column's
    value at the released level is left to the appendix."""
    values = {("a", 1): 0.2, ("b", 1): 0.5, ("c", 1): 0.1, ("a", 2): 0.6, ("b", 2): 0.3, ("c", 2): 0.2}
    summary = _summary_of([(HOLDER, level, "mab", col, v, None, None, 5) for (col, level), v in values.items()])
    c = context_of(summary=summary, levels=[1, 2], level=2)
    shown = evidence.metrics(c)
    assert "worst of 3 columns" in shown and "the largest where lower is better" in shown
    assert "<td>0.200<br>0.500 b</td>" in shown and '<td class="cell">0.300<br>0.600 a</td>' in shown
    _, left = evidence.table_rows(c)
    assert [(r["name"], r["column"]) for r in left] == [("mab", "a"), ("mab", "b"), ("mab", "c")]


def test_the_gdpr_criteria_are_left_to_the_attack_section_and_the_appendix(context_of):
    """Each criterion's residual risk is in the attack section's table at every level and reference; its records at
    the released level (the risk, the attacks' success rates, their number) in the appendix."""
    from tvs_core.evaluation.metrics.gdpr import Part, criterion_record

    risk, rate = criterion_record("linkability", Part.RISK), criterion_record("linkability", Part.MAIN_RATE)
    summary = _summary_of([(HOLDER, level, name, None, v) for level in (1, 2) for name, v in ((risk, 0.1),
                                                                                              (rate, 0.4))]
                          + [(HOLDER, level, "pair_structure", None, 0.5) for level in (1, 2)])
    c = context_of(summary=summary, levels=[1, 2])
    shown, left = evidence.table_rows(c)
    assert [r["name"] for r in shown] == ["pair_structure"] and [r["name"] for r in left] == [risk, rate]
    assert "Linkability" not in evidence.metrics(c)


@pytest.mark.parametrize("count, sizes", [(0, []), (7, [7]), (10, [10]), (11, [6, 5]), (25, [9, 8, 8])])
def test_levels_are_split_into_as_few_and_as_even_tables_as_the_width_allows(count, sizes):
    blocks = evidence.table_blocks(list(range(1, count + 1)))
    assert [len(b) for b in blocks] == sizes and sum(blocks, []) == list(range(1, count + 1))
    assert all(len(b) <= evidence.LEVELS_PER_TABLE for b in blocks)


# -- the table of every metric ------------------------------------------------------------------------------------
def test_the_table_of_every_metric_shades_the_released_level_only(context_of):
    shown = evidence.metrics(context_of(level=2))
    assert re.findall(r"<th[^>]*>(level \d[^<]*)</th>", shown) == ["level 1", "level 2 (released)"]
    assert shown.count('<th class="shown">') == 1
    released = re.findall(r'<td class="cell">([^<]*)<br>', shown)
    assert released == ["0.900", "0.800", "0.600", "0.300"]  # TSTR AUC, pair structure, CI overlap, MAB at level 2


def test_the_table_of_every_metric_follows_the_catalogue_groups_and_names_each_range(context_of):
    shown = evidence.metrics(context_of())
    groups = re.findall(r'<tr class="group"><td colspan="4">([^<]+)</td>', shown)
    assert groups == ["Utility", "Attribute risk"]  # the holder's rows only: no reference's
    labels = re.findall(r'<td rowspan="1">([^<]+)<br>', shown)
    assert labels == [CATALOGUE[m].short for m in ("auc_tstr", "pair_structure", "ci_overlap", "mab")]
    assert shown.count("Every range in this table: 95 % interval (bootstrap over 20 values).") == 1  # said once
    assert "the range:" not in shown


def test_several_kinds_of_range_are_named_once_above_the_table_and_marked_beside_each_metric(context_of):
    summary = _summary_of([(HOLDER, v, "pair_structure", None, 0.5, 0.4, 0.6, 20) for v in (1, 2)]
                          + [(HOLDER, v, "ci_overlap", None, 0.7, 0.6, 0.8, 3) for v in (1, 2)])
    shown = evidence.metrics(context_of(summary=summary, levels=[1, 2]))
    assert ('<p class="muted">The ranges: (a) 95 % interval (bootstrap over 20 values); (b) spread of only 3 '
            "values (too few for a 95 % interval).</p>") in shown
    marks = re.findall(r'<td rowspan="1">([^<]+)<br><span class="muted">[^<]* \((\w)\)</span>', shown)
    assert marks == [(CATALOGUE["pair_structure"].short, "a"), (CATALOGUE["ci_overlap"].short, "b")]


def test_a_range_of_few_values_is_named_as_a_spread_in_the_cell_it_is_in(context_of):
    """When the levels have different numbers of replicates, each cell says what its own range is."""
    summary = _summary_of([(HOLDER, 1, "pair_structure", None, 0.5, 0.4, 0.6, 20),
                          (HOLDER, 2, "pair_structure", None, 0.7, 0.6, 0.8, 3)])
    shown = evidence.metrics(context_of(summary=summary, levels=[1, 2]))
    assert "the range:" not in shown
    assert ("<td>0.500<br>0.400–0.600<br><span class=\"muted\">95 % interval (bootstrap over 20 values)</span></td>"
            in shown)
    assert ('0.700<br>0.600–0.800<br><span class="muted">spread of only 3 values (too few for a 95 % interval)'
            '</span>') in shown


def test_a_level_that_has_not_reported_a_metric_shows_a_dash(context_of):
    summary = _summary_of([(HOLDER, 1, "pair_structure", None, 0.5)])
    shown = evidence.metrics(context_of(level=1, summary=summary, levels=[1, 2]))
    assert shown.endswith("<td>—</td></tr></tbody></table>")


def test_more_levels_than_fit_the_page_continue_in_a_second_table(context_of):
    levels = list(range(1, evidence.LEVELS_PER_TABLE + 2))
    summary = _summary_of([(HOLDER, v, "pair_structure", None, v / 10) for v in levels])
    shown = evidence.metrics(context_of(level=1, summary=summary, levels=levels))
    tables = re.findall(r"<table.*?</table>", shown, flags=re.S)
    assert len(tables) == 2 and "level 8" in tables[1] and "level 8" not in tables[0]


def test_a_summary_without_the_holder_says_no_level_has_reported(context_of):
    c = context_of(summary=_summary_of([("independent", None, "pair_structure", None, 0.5)]), levels=[1, 2])
    assert evidence.metrics(c) == '<p class="muted">No level has reported a metric yet.</p>'


# -- PU per level -------------------------------------------------------------------------------------------------
def test_pu_per_level_gives_the_scores_their_range_the_wins_and_the_pareto_front(context_of):
    """The two-level summary (tests/choice/conftest.py): P 0.75 and 0.25, U 1/3 and 0.8, PU ½(P + U)."""
    table = evidence._pu_table(context_of())
    assert table["level"].tolist() == [1, 2]
    assert table["privacy P"].tolist() == [0.75, 0.25] and table["utility U"].tolist() == [0.333, 0.8]
    assert table["PU"].tolist() == [0.542, 0.525]
    assert table["PU range over redraws"].tolist() == ["0.54–0.54", "0.53–0.53"]  # every interval is its median
    assert table["best in (share of redraws)"].tolist() == ["100 %", "0 %"]
    assert table["Pareto-optimal"].tolist() == ["yes", "yes"]
    parts = [c for c in table.columns if c.startswith("U: ")]
    assert parts == [f"U: {CATALOGUE[m].short}" for m in ("auc_tstr", "pair_structure", "ci_overlap")]
    assert table[parts[0]].tolist() == [0.5, 1.0]


def test_levels_beyond_the_anchors_are_listed_except_the_released_one(context_of):
    table = pd.DataFrame({"level": [1, 2, 3], "beyond": ["MAB worse than the real data", "", "TSTR above TRTR"]})
    c = replace(context_of(level=3, levels=[1, 2, 3]), selection=SimpleNamespace(table=table))
    assert evidence._beyond(c) == ["Level 1 beyond the anchors: MAB worse than the real data."]
    no_column = replace(c, selection=SimpleNamespace(table=table.drop(columns="beyond")))
    assert evidence._beyond(no_column) == []  # a selection of an earlier version


# -- the GDPR criteria and the DP audit ---------------------------------------------------------------------------
def test_a_sweep_without_the_gdpr_criteria_says_so(context_of):
    assert "Not measured in this sweep" in evidence._gdpr(context_of())


def audit(model: str, empirical: float) -> AuditResult:
    return AuditResult(model, 1.0, 0.0, empirical, "corner/margins", 0.5, 0.2, 80, 1.41)


def test_no_dp_claim_is_no_audit_section(context_of):
    assert evidence._audit(context_of(claims={})) == ""


def test_claims_without_an_audit_are_named_with_their_epsilon_and_escaped(context_of):
    shown = evidence._audit(context_of(claims={HOSTILE: 1.0, "privbayes:0.5": 0.5}, audits=[]))
    assert "<script>" not in shown  # each by the legend's name (issue 56)
    assert f"The references {html.escape(HOSTILE)} (ε = 1), PrivBayes (ε = 0.5) claim differential privacy" in shown
    assert "did not audit them" in shown


def test_each_audit_is_a_red_box_when_it_refutes_its_claim_and_a_green_one_otherwise(context_of):
    audits = [audit("privbayes:1", 1.3), audit("dp_vine:1", 0.2)]
    shown = evidence._audit(context_of(claims={"privbayes:1": 1.0, "dp_vine:1": 1.0}, audits=audits))
    boxes = re.findall(r'<div class="(\w+)">([^<]*)</div>', shown)
    named = [(kind, words.split(":")[0]) for kind, words in boxes]
    assert named == [("block", "PrivBayes (ε = 1)"), ("ok", "DP vine (ε = 1)")]
    assert "VIOLATION" in boxes[0][1] and "VIOLATION" not in boxes[1][1]
