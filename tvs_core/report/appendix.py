"""The appendix: the per-column details the sections above summarise, so that a table of 120 columns reads in a
few pages and still lists every column — each column's type, role and the distance of its margin at the released
level (the data section counts the types and roles, the fidelity section gives the distances' median and the
largest); at that level each column of the metrics the table of every level summarises, and the GDPR criteria's
attacks; behind a click (printed when opened), every other column's margin, real against synthetic (the fidelity
section shows those that matter most); and the levels beyond the anchors, when they are too many to list there."""

from __future__ import annotations

import pandas as pd

from ..data.schema import Role
from ..evaluation.catalogue import CATALOGUE
from ..evaluation.intervals import interval_name, interval_rule
from .context import ReportContext
from .evidence import (
    BEYOND_LISTED,
    _num,
    beyond_levels,
    column_distances,
    margin_figures,
    margins_in_body,
    modelled_columns,
    table_rows,
)
from .html import e, side_by_side, table

# the schema's columns as the appendix lists them: a short reason (the inferred type's), a dropped column's why
SCHEMA = {"name": "column", "type": "type", "role": "role", "n_missing": "missing", "n_unique": "distinct",
          "reason": "why this type", "drop_reason": "why dropped"}


def schema_frame(c: ReportContext) -> pd.DataFrame:
    """Every column of the table as the model used it."""
    return c.release.model.schema_.to_frame()[list(SCHEMA)].rename(columns=SCHEMA)


def columns_frame(c: ReportContext) -> tuple[pd.DataFrame, str]:
    """Every column: its type and role (its missing values, where a column has any), and the distance of its margin
    at the released level, median and range; and what that range is."""
    schema = schema_frame(c)
    distance = column_distances(c).set_index("column")
    ns = sorted(set(distance["n"]))
    named = (interval_name(ns[0]) if len(ns) == 1 else interval_rule() if ns else
             "none yet: the sweep had not scored this level's distances when the report was written")
    found = distance.reindex(schema["column"])
    shown = schema[["column", "type", "role"] + (["missing"] if schema["missing"].any() else [])].copy()
    shown[f"distance at level {c.level}"] = [
        "—" if pd.isna(m) else f"{_num(m)} ({_num(lo)}–{_num(hi)})" + ("" if len(ns) == 1 else f", n {int(n)}")
        for m, lo, hi, n in zip(found["median"], found["low"], found["high"], found["n"].fillna(0), strict=True)]
    return shown, named


def render(c: ReportContext) -> str:
    columns, named = columns_frame(c)
    schema = schema_frame(c)
    why = e("; ".join(f"{reason} ({n} columns)" for reason, n in
                      schema["why this type"].str.replace(r"\d+", "N", regex=True).value_counts().items()))
    dropped = schema[schema["role"] == Role.DROPPED]
    out = (f"<h3>A. Every column ({len(columns)}): type, role, and the {e(CATALOGUE['column_distance'].short)} of its "
           f"margin at level {c.level}</h3>"
           f"<p class=\"muted\">{e(CATALOGUE['column_distance'].explanation)} The distance: median over the sets, in "
           f"brackets its range ({e(named)}); a dropped column has none. Why each type was read as it was (N: the "
           f"column's own count): {why}.</p>"
           + side_by_side(columns, 2 if len(columns) > 30 else 1, nowrap=True, small=True)
           + ("" if dropped.empty else "<p>Dropped, and why: " + e("; ".join(
               f"{name}: {reason}" for name, reason in zip(dropped["column"], dropped["why dropped"], strict=True)))
              + ".</p>"))
    _, left = table_rows(c)
    left = [r for r in left if r["name"] != "column_distance"]  # each column's distance: in A
    if left:
        out += (f"<h3>B. Level {c.level}: each column of the metrics summarised in the table of every level, and each "
                "GDPR criterion's attacks</h3>" + side_by_side(released_values(left, c.level), 2, small=True))
    others = [col for col in modelled_columns(c) if col not in margins_in_body(c)]
    if others:
        out += (f"<h3>C. The margins of the other {len(others)} columns, real against synthetic</h3>"
                f"<details><summary>Show the {len(others)} margins (on paper only when shown: each column's distance "
                "is in A)</summary>" + margin_figures(c, others) + "</details>")
    return out + beyond_table(c)


def beyond_table(c: ReportContext) -> str:
    """The levels beyond the anchors, when the section on the choice only counts them: one row each (a list of
    sentences took twice the paper)."""
    later = beyond_levels(c)
    if len(later) <= BEYOND_LISTED:
        return ""
    return ("<h3>D. The levels beyond the anchors</h3>"
            + table(pd.DataFrame(later, columns=["level", "beyond the anchors"]), dense=True))


def released_values(rows: list[dict], level: int) -> pd.DataFrame:
    """Rows of the table of every level (``table_rows``) at one level: metric, where, median and range."""
    found = []
    for r in rows:
        median, low, high, n = r["cells"].get(level, (None, None, None, 0))
        found.append({"metric": r["family"] if r["part"] else r["label"],
                      "column, targets": ", ".join(x for x in (r["part"], r["column"],
                                                               r["targets"].removesuffix(" targets")) if x),
                      "median": _num(median), "range": "" if pd.isna(low) or pd.isna(high) else
                      f"{_num(low)}–{_num(high)}", "n": n})
    return pd.DataFrame(found)
