"""The appendix: the per-column details the sections above summarise, so that a table of 120 columns reads in a
few pages and still lists every column — each column's type, role and why (the data section counts them), each
column's margin distance at the released level (the fidelity section gives their median and the largest) and every
column's margin, real against synthetic (the fidelity section shows those that matter most)."""

from __future__ import annotations

import pandas as pd

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.intervals import interval_name
from .context import ReportContext
from .evidence import column_distances, margin_figures, margins_in_body, modelled_columns
from .html import e, side_by_side

# the schema's columns as the appendix lists them: a short reason (the inferred type's), a dropped column's why
SCHEMA = {"name": "column", "type": "type", "role": "role", "n_missing": "missing", "n_unique": "distinct",
          "reason": "why this type", "drop_reason": "why dropped"}


def schema_frame(c: ReportContext) -> pd.DataFrame:
    """Every column of the table as the model used it."""
    return c.release.model.schema_.to_frame()[list(SCHEMA)].rename(columns=SCHEMA)


def distances_frame(c: ReportContext) -> tuple[pd.DataFrame, str]:
    """Each column's distance at the released level: median and range, and what the range is."""
    distance = column_distances(c)
    ns = sorted(set(distance["n"]))
    named = interval_name(ns[0]) if len(ns) == 1 else "see each row"
    shown = pd.DataFrame({"column": distance["column"], "median": distance["median"].round(3),
                          "range": [f"{lo:.3f}–{hi:.3f}" for lo, hi in zip(distance["low"], distance["high"],
                                                                           strict=True)]})
    if len(ns) > 1:
        shown["the range is"] = [interval_name(n) for n in distance["n"]]
    return shown, named


def render(c: ReportContext) -> str:
    schema = schema_frame(c)
    if not (schema["role"] == "dropped").any():
        schema = schema.drop(columns="why dropped")
    out = (f"<h3>A. Every column: type, role and why ({len(schema)})</h3>"
           + side_by_side(schema.drop(columns="why this type"), 3 if len(schema) > 30 else 1)
           + '<p class="muted">Why each type was read as it was (N: the column\'s own count): ' + e("; ".join(
               f"{reason} ({n} columns)" for reason, n in
               schema["why this type"].str.replace(r"\d+", "N", regex=True).value_counts().items())) + ".</p>")
    distance, named = distances_frame(c)
    if len(distance):
        out += (f"<h3>B. {e(CATALOGUE['column_distance'].short)} of each column at level {c.level}</h3>"
                f"<p class=\"muted\">{e(CATALOGUE['column_distance'].explanation)} The median over the sets and "
                f"its range: {e(named)}.</p>" + side_by_side(distance, 3 if len(distance) > 8 else 1))
    others = [col for col in modelled_columns(c) if col not in margins_in_body(c)]
    if others:
        out += (f"<h3>C. The margins of the other {len(others)} columns, real against synthetic</h3>"
                + margin_figures(c, others))
    return out
