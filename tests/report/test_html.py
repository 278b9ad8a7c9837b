"""report/html.py: everything a user typed comes out as text, never markup; numbers, tables, lists and figures are laid
out the same way in every section."""

import html
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tvs_core.report.html import FULL, HALF, e, figure, figure_row, fmt, items, kv, side_by_side, table

HOSTILE = "<script>alert(\"x\")</script> & 'co'"  # a column name or note a user typed


def cells(markup: str, tag: str = "td") -> list[str]:
    """The text of every ``tag`` cell, entities left as written."""
    return [c.strip() for c in re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", markup, flags=re.S)]


# -- e ------------------------------------------------------------------------------------------------------------
def test_escaping_turns_markup_ampersands_and_quotes_into_entities():
    escaped = e(HOSTILE)
    assert escaped == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;co&#x27;"
    assert html.unescape(escaped) == HOSTILE  # nothing lost: the reader sees exactly what was typed


def test_escaping_nothing_gives_empty_text_and_a_number_its_digits():
    assert e(None) == ""
    assert e(0) == "0" and e(2.5) == "2.5"


# -- fmt ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, digits, shown", [
    (0.12345, 3, "0.123"),
    (2.0, 3, "2.000"),  # a float keeps its decimals: a column of them lines up
    (-1.5, 2, "-1.50"),
    (0.125, 1, "0.1"),
    (7, 3, "7"),  # an integer is never given decimals
    ("level 3", 3, "level 3"),
])
def test_a_number_is_written_with_the_digits_asked(value, digits, shown):
    assert fmt(value, digits) == shown


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan])
def test_a_missing_number_is_a_dash(missing):
    assert fmt(missing) == "—"


@pytest.mark.parametrize("value, shown", [(np.float64(0.5), "0.500"), (np.float32(0.5), "0.500")])
def test_a_numpy_float_is_written_like_a_python_float(value, shown):
    """Values read from a frame are numpy scalars; a float32 one must not print as "0.5" beside "0.500"."""
    assert fmt(value) == shown


@pytest.mark.parametrize("missing", [pd.NA, pd.NaT, np.float32("nan")])
def test_a_missing_pandas_or_numpy_value_is_a_dash_too(missing):
    """A nullable column's missing value must read "—", never "<NA>" or "NaT" (raw text that looks like a tag)."""
    assert fmt(missing) == "—"


# -- table --------------------------------------------------------------------------------------------------------
def test_a_table_escapes_its_column_names_and_text_cells():
    frame = pd.DataFrame({HOSTILE: ["<b>bold</b>", "a & b"], "value": [1.0, 2.0]})
    shown = table(frame)
    assert "<script>" not in shown and "<b>" not in shown
    assert [html.unescape(h) for h in cells(shown, "th")] == [HOSTILE, "value"]
    assert [html.unescape(c) for c in cells(shown)][::2] == ["<b>bold</b>", "a & b"]


def test_a_table_writes_floats_with_four_significant_digits_and_missing_values_as_dashes():
    frame = pd.DataFrame({"name": ["a", None, "c"], "value": [1.23456, np.nan, 0.000123456], "count": [1, 2, 3],
                          "nullable": pd.array(["x", pd.NA, "y"], dtype="string")})
    rows = np.array(cells(table(frame))).reshape(3, 4).tolist()
    assert rows == [["a", "1.235", "1", "x"], ["—", "—", "2", "—"], ["c", "0.0001235", "3", "y"]]


def test_a_table_has_no_index_and_is_dense_only_when_asked():
    frame = pd.DataFrame({"a": [10, 20]})
    plain, dense = table(frame), table(frame, dense=True)
    assert cells(plain) == ["10", "20"]  # no index column
    assert 'class="dataframe"' in plain and "dense" not in plain
    assert re.search(r'<table[^>]*class="[^"]*\bdense\b', dense)


def test_a_table_leaves_the_callers_frame_as_it_was():
    frame = pd.DataFrame({"name": ["a", None]})
    table(frame)
    assert frame["name"].isna().tolist() == [False, True]


@pytest.mark.parametrize("nothing", [None, pd.DataFrame(), pd.DataFrame(columns=["a", "b"])])
def test_an_empty_table_says_there_is_nothing_to_show(nothing):
    assert table(nothing) == '<p class="muted">Nothing to show.</p>'
    assert side_by_side(nothing, 3) == table(nothing)


# -- side_by_side -------------------------------------------------------------------------------------------------
def test_side_by_side_reads_down_then_across_and_keeps_every_row_once():
    frame = pd.DataFrame({"n": range(7)})
    shown = side_by_side(frame, 3)
    parts = re.findall(r"<table.*?</table>", shown, flags=re.S)
    assert shown.startswith('<div class="side">') and shown.endswith("</div>")
    assert [cells(p) for p in parts] == [["0", "1", "2"], ["3", "4", "5"], ["6"]]  # ceil(7 / 3) rows each
    assert all(re.search(r'class="[^"]*\bdense\b', p) for p in parts)


def test_side_by_side_of_fewer_rows_than_parts_makes_no_empty_table():
    parts = re.findall(r"<table.*?</table>", side_by_side(pd.DataFrame({"n": [1, 2]}), 5), flags=re.S)
    assert [cells(p) for p in parts] == [["1"], ["2"]]


# -- kv -----------------------------------------------------------------------------------------------------------
def test_kv_escapes_names_and_values_unless_the_values_are_html_already():
    pairs = [(HOSTILE, "<i>v</i> & w"), ("Rows", 120)]
    escaped = kv(pairs)
    assert escaped.startswith('<table class="kv">') and "<script>" not in escaped and "<i>" not in escaped
    assert [html.unescape(c) for c in cells(escaped)] == [HOSTILE, "<i>v</i> & w", "Rows", "120"]
    raw = kv(pairs, raw=True)
    assert "<td><i>v</i> & w</td>" in raw  # the caller's markup kept
    assert "<script>" not in raw  # the names are escaped even then


def test_kv_of_no_pairs_is_an_empty_table():
    assert kv([]) == '<table class="kv"></table>'


# -- items --------------------------------------------------------------------------------------------------------
def test_items_are_a_bulleted_list_of_escaped_lines():
    shown = items(["first", HOSTILE])
    assert shown.startswith("<ul>") and shown.endswith("</ul>")
    assert [html.unescape(li) for li in cells(shown, "li")] == ["first", HOSTILE]
    assert "<script>" not in shown


@pytest.mark.parametrize("kind", ["ok", "warn", "block", "info"])
def test_items_of_a_kind_are_one_coloured_box_each(kind):
    shown = items(["one", "<two>"], kind)
    assert shown == f'<div class="{kind}">one</div><div class="{kind}">&lt;two&gt;</div>'


@pytest.mark.parametrize("kind", [None, "warn"])
def test_no_items_are_no_markup(kind):
    assert items([], kind) == ""


# -- figure -------------------------------------------------------------------------------------------------------
def test_a_figure_has_the_fixed_size_it_is_given_and_no_plotly_js_of_its_own():
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    shown = figure(fig, 300, HALF, title={"text": "kept"})
    assert shown.startswith('<div class="figure">') and shown.endswith("</div>")
    assert fig.layout.width == HALF and fig.layout.height == 300 and fig.layout.autosize is False
    assert fig.layout.title.text == "kept"  # the caller's layout is applied too
    assert f"width:{HALF}px" in shown.replace(" ", "") and "height:300px" in shown.replace(" ", "")
    assert len(shown) < 100_000  # plotly.js (megabytes) is embedded once per report, not per figure
    assert '"displayModeBar": false' in shown or '"displayModeBar":false' in shown


def test_two_half_figures_fit_the_printable_width():
    assert 2 * HALF + 10 <= FULL  # two to a row, with the row's gap
    assert figure_row(["<a>", "<b>"]) == '<div class="figures"><a><b></div>'
