"""The evidence behind page 1: why this level (the card, PU per level, the scatters), every metric at every level in
one table, the attack games and the GDPR criteria per level, and real against synthetic data.

Each renderer lays out what the summary, the selection and the figures already hold; none computes a number."""

from __future__ import annotations

import re

import pandas as pd

from .. import figures
from ..choice.axes import attribute_game_metrics, membership_metrics
from ..choice.gdpr import gdpr_table
from ..choice.selection import HIGH, LOW, REDRAWS, Column, level_column, level_column_names
from ..choice.verdicts import claimed_words
from ..evaluation.catalogue import (
    CATALOGUE,
    GDPR_CRITERIA,
    GDPR_PARTS,
    GDPR_RECORDS,
    GROUPS,
    SOURCES,
    Group,
    Source,
    described,
)
from ..evaluation.intervals import IntervalKind, interval_name, interval_rule
from ..evaluation.metrics.base import Direction
from ..evaluation.metrics.gdpr import Part
from ..evaluation.summary import MANY_COLUMNS, column_spread, readable
from ..text import first_capital, percent
from .context import ReportContext
from .html import HALF, e, figure, figure_row, fmt, items, table

# the ends of each set's interval of a GDPR criterion's risk: the brackets of the criteria table, not rows of their own
INTERVAL_ENDS = (Part.RISK_LOW, Part.RISK_HIGH)
LEVELS_PER_TABLE = 10  # more levels than fit the printed width: the table continues below
BEYOND_LISTED = 5  # more levels beyond the anchors than this are counted here, each listed in the appendix
# a GDPR criterion's records (its risk, the three attacks' success rates, the number of attacks) as one metric whose
# rows are its parts: record name -> (the criterion's name, the part's)
_CRITERIA = {prefix: label.replace(" risk", "") for prefix, label, _ in GDPR_CRITERIA}
CRITERION_PARTS = {name: (_CRITERIA[criterion], GDPR_PARTS[part][0].removeprefix(": ") or "residual risk")
                   for name, (criterion, part) in GDPR_RECORDS.items()}
# the catalogue's SOURCES, in a word
SOURCE_WORDS = {Source.RELEASE: "release", Source.GAME: "game", Source.REFERENCE: "real data"}
BOX = {"margin": {"t": 30, "b": 40, "l": 50, "r": 8}, "title": {"font": {"size": 11}},
       "legend": {"orientation": "h", "x": 0, "y": -0.45, "yanchor": "top", "font": {"size": 9}}}


def _part(name: str) -> Part | None:
    """The GDPR part a record is (None: not a criterion's)."""
    return GDPR_RECORDS.get(name, (None, None))[1]


# -- why this level -----------------------------------------------------------------------------------------------
def _pu_table(c: ReportContext) -> pd.DataFrame:
    t = c.selection.table
    out = pd.DataFrame({"level": t["level"].astype(int), "privacy P": t["P"], "utility U": t["U"]})
    for name in level_column_names(t.columns, Column.SCALED):
        out[f"U: {CATALOGUE[name].short}"] = t[level_column(Column.SCALED, name)]
    out["PU"] = t["PU"]
    out["PU range over redraws"] = [f"{fmt(lo, 2)}–{fmt(hi, 2)}" for lo, hi in zip(
        t[level_column(Column.PU, end=LOW)], t[level_column(Column.PU, end=HIGH)], strict=True)]
    out["best in (share of redraws)"] = [percent(w) for w in t["wins"]]
    out["Pareto-optimal"] = ["yes" if p else "" for p in t["pareto"]]
    return out.round(3)


def beyond_levels(c: ReportContext) -> list[tuple[int, str]]:
    """Each level beyond the anchors and what is beyond them (the released level's: in the card)."""
    t = c.selection.table
    return [(int(level), text) for level, text in zip(t["level"], t.get("beyond", []), strict=False)
            if text and level != c.level]


def beyond(c: ReportContext) -> list[str]:
    """Each level beyond the anchors, in a sentence."""
    return [f"Level {level} beyond the anchors: {text}." for level, text in beyond_levels(c)]


def _beyond(c: ReportContext) -> list[str]:
    """The levels beyond the anchors, each with why; beyond ``BEYOND_LISTED`` of them, counted (each in the
    appendix)."""
    found = beyond(c)
    if len(found) <= BEYOND_LISTED:
        return found
    levels = [line.split(" ", 2)[1] for line in found]
    return [f"{len(found)} levels are beyond the anchors: {', '.join(levels)}; why, level by level: "
            "in the appendix."]


def choice(c: ReportContext) -> str:
    """The recommendation card of the level, PU per level, and the privacy-utility scatter per utility part."""
    card = c.card
    axes = c.settings.utility.axes(c.summary.metrics())
    scatters = []
    for i, (axis, _) in enumerate(axes):  # the first with its legend, the others beside each other without
        fig = figures.privacy_utility_scatter(c.summary, c.settings.privacy, c.sensitive, c.level, c.levels,
                                              utility=axis, externals=list(c.config.externals or {}),
                                              selection=c.selection)
        if i == 0:  # room below for the axis's two lines and the notes under it, beside for the y title's three
            scatters.append(figure(fig, 420, margin={"t": 30, "b": 150, "l": 80, "r": 10},
                                 legend={"font": {"size": 9}, "tracegroupgap": 0, "title": {"text": ""}}))
        else:  # half the width: the privacy axis by its short name (the first panel gives its question)
            fig.update_xaxes(title_text=c.settings.privacy.metric.short, title_font={"size": 9})
            fig.update_yaxes(title_text=axis.metric.unit, title_font={"size": 9})  # the panel's title names it
            scatters.append(figure(fig, 270, HALF, showlegend=False, title={"text": axis.metric.short, "font":
                                                                           {"size": 11}},
                                 margin={"t": 40, "b": 70, "l": 55, "r": 12}))
    return (f"<h3>{e(card.headline)}</h3><p><b>Privacy: what it protects</b></p>{items(card.protects)}"
            f"<p><b>Utility: what it costs</b></p>{items(card.costs)}{items(card.notes)}"
            + items(card.warnings, "warn")
            + "<h3>PU per level</h3>"
            + figure(figures.pu_curve(c.selection.table, c.selection.best_level, c.level), 280,
                     margin={"t": 36, "b": 90, "l": 60, "r": 60})
            + "<p class=\"muted\">P and U are the scaled privacy and utility (0–1, higher is better), PU = α·P + "
              f"(1 − α)·U. PU's {interval_name(REDRAWS, IntervalKind.REDRAWS)} "
              "is as wide as those ranges allow, no wider; the same redraws count how often each "
              "level is best.</p>"
            + table(_pu_table(c), dense=True) + items(_beyond(c))
            + f"<p>The privacy-utility scatter, one per part of the utility mix: level {c.level} is ringed; baselines "
              "are reference points; the legend of the first holds for all.</p>" + scatters[0]
            + figure_row(scatters[1:]))


# -- every metric at every level ----------------------------------------------------------------------------------
def _num(value) -> str:
    """Three decimals, as the card and the tables elsewhere; fewer where the integer part is long."""
    if value is None or pd.isna(value):
        return "—"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{3 if abs(value) < 10 else 1 if abs(value) < 100 else 0}f}"


def _cell(median, low, high) -> str:
    if pd.isna(median):
        return "—"
    if pd.isna(low) or pd.isna(high):
        return _num(median)
    return f"{_num(median)}<br>{_num(low)}–{_num(high)}"


def _rows(c: ReportContext) -> list[dict]:
    """One row per metric (and column, and target kind), its cells by level, in the catalogue's order."""
    rows: dict[tuple, dict] = {}
    for level in c.levels:
        for r in readable(c.summary.point(level), raw=True).itertuples():
            if _part(r.name) in INTERVAL_ENDS:
                continue
            criterion, part = CRITERION_PARTS.get(r.name, (None, None))
            row = rows.setdefault((r.group, r.name, r.column, r.targets), {
                "group": r.group, "name": r.name, "family": criterion or r.name, "label": r.metric,
                "column": r.column, "targets": r.targets, "part": part, "unit": r.unit, "better": r.better,
                "cells": {}})
            row["cells"][level] = (r.median, r.low, r.high, int(r.n))
    order = {name: i for i, name in enumerate(described())}
    groups = {g: i for i, g in enumerate(GROUPS)}
    return sorted(rows.values(), key=lambda r: (groups.get(r["group"], len(GROUPS)), order.get(r["name"], 999),
                                                r["column"], r["targets"]))


def _summarised(rows: list[dict], levels: list[int]) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """Rows of a metric with more than ``MANY_COLUMNS`` columns (the distance of every column's margin, an attack's
    numbers for three sensitive columns) become one per target kind: per level the median and the worst of its
    columns' medians (``column_spread``, as the Choose page's table), the column named; its rows are returned apart,
    keyed by (metric, target kind), for the appendix's list at the released level."""
    counts: dict[tuple, int] = {}
    for r in rows:
        if r["column"]:
            counts[r["name"], r["targets"]] = counts.get((r["name"], r["targets"]), 0) + 1
    many = {key for key, count in counts.items() if count > MANY_COLUMNS}
    out, apart = [], {}
    for r in rows:
        key = (r["name"], r["targets"])
        if key not in many:
            out.append(r)
            continue
        if key in apart:
            apart[key].append(r)
            continue
        apart[key] = [r]
        out.append({**r, "column": "", "summary": key})  # stands for the metric's columns; filled below
    for r in out:
        key = r.pop("summary", None)
        if key is None:
            continue
        columns = apart[key]
        median, worst = {}, {}
        for level in levels:
            spread = column_spread({x["column"]: x["cells"][level][0] for x in columns if level in x["cells"]},
                                   r["better"] == Direction.LOWER)
            if spread is not None:
                median[level], worst[level] = spread.median, (spread.worst, spread.worst_column)
        r["summary"] = (len(columns), median, worst)
    return out, apart


def table_rows(c: ReportContext) -> tuple[list[dict], list[dict]]:
    """The rows of the table of every level, and those it leaves to the appendix, listed there at the released
    level only: each column of a metric summarised (``_summarised``), and the GDPR criteria's records (the attack
    section's table gives each criterion's residual risk at every level and reference, with its interval)."""
    rows = _rows(c)
    kept = [r for r in rows if r["part"] is None]
    shown, apart = _summarised(kept, c.levels)
    left = {id(r) for columns in apart.values() for r in columns} | {id(r) for r in rows if r not in kept}
    return shown, [r for r in rows if id(r) in left]


def table_blocks(levels: list[int]) -> list[list[int]]:
    """The levels split into as few tables as the printed width allows, of sizes as even as they can be."""
    count = -(-len(levels) // LEVELS_PER_TABLE)
    sizes = [len(levels) // count + (i < len(levels) % count) for i in range(count)]
    return [levels[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(count)]


def _ns(row: dict) -> set[int]:
    return {cell[3] for cell in row["cells"].values()}


def metric_table(rows: list[dict], levels: list[int], shown: int) -> str:
    """One row per value, the metric's name, unit, direction and what its ranges are once beside its rows."""
    head = "".join(f'<th class="shown">level {v} (released)</th>' if v == shown else f"<th>level {v}</th>"
                   for v in levels)
    cls = lambda v: ' class="cell"' if v == shown else ""  # noqa: E731
    every = set().union(*(_ns(r) for r in rows if "summary" not in r))  # one kind of range in the whole table: said
    said = interval_name(next(iter(every))) if len(every) == 1 else ""  # once, above it, not beside each metric
    marks: dict[str, str] = {}  # else each kind of range a letter, named once above the table, beside each metric
    body, group = [], None
    metrics: list[list[dict]] = []
    for r in rows:  # consecutive rows of one metric (its columns, target kinds) share its first cell
        if metrics and metrics[-1][0]["family"] == r["family"] and "summary" not in r:
            metrics[-1].append(r)
        else:
            metrics.append([r])
    for part in metrics:
        first = part[0]
        if first["group"] != group:
            group = first["group"]
            body.append(f'<tr class="group"><td colspan="{len(levels) + 2}">{e(first_capital(str(group)))}</td></tr>')
        common = set.union(*(_ns(r) for r in part)) if "summary" not in first else set()
        named = interval_name(next(iter(common))) if len(common) == 1 and not said else ""
        mark = f"({marks.setdefault(named, 'abcdefghij'[len(marks)])})" if named else ""
        criterion = first["part"] is not None  # its parts name their own meaning (rates, number of attacks)
        head_cell = (f'<td rowspan="{len(part)}">{e(first["family"] if criterion else first["label"])}<br>'
                     f'<span class="muted">{"" if criterion else e(first["unit"]) + ", " + e(first["better"])}'
                     f'{"" if criterion else " is better"} {mark}</span></td>')
        for i, r in enumerate(part):
            where = e(", ".join(x for x in (r["part"], r["column"], r["targets"].removesuffix(" targets")) if x))
            lead = head_cell if i == 0 else ""
            if "summary" in r:
                count, median, worst = r["summary"]
                cells = "".join(f"<td{cls(v)}>{_num(median.get(v))}<br>"
                                f"{_num(worst[v][0]) + ' ' + e(worst[v][1]) if v in worst else '—'}</td>"
                                for v in levels)
                body.append(f"<tr>{lead}<td>{where + ': ' if where else ''}worst of {count} columns</td>{cells}</tr>")
                continue
            ns = _ns(r)
            if len(ns) == 1:
                if not named and not said:
                    where += f'<br><span class="muted">{e(interval_name(next(iter(ns))))}</span>'
                cells = "".join(f"<td{cls(v)}>{_cell(*r['cells'][v][:3])}</td>" if v in r["cells"] else
                                f"<td{cls(v)}>—</td>" for v in levels)
            else:  # the replicates differ between levels: each cell names its own range
                cells = "".join(f"<td{cls(v)}>{_cell(*r['cells'][v][:3])}<br>"
                                f'<span class="muted">{e(interval_name(r["cells"][v][3]))}</span></td>'
                                if v in r["cells"] else f"<td{cls(v)}>—</td>" for v in levels)
            body.append(f"<tr>{lead}<td>{where}</td>{cells}</tr>")
    label = 23 if len(levels) <= 7 else 18  # the metric's name: narrower where the levels need the room
    columns = (f'<colgroup><col style="width:{label}%"><col style="width:{label - 10}%">'
               + f'<col style="width:{(110 - 2 * label) / len(levels):.2f}%">' * len(levels) + "</colgroup>")
    legend = "; ".join(f"({mark}) {e(name)}" for name, mark in marks.items())
    return ((f'<p class="muted">Every range in this table: {e(said)}.</p>' if said else
             f'<p class="muted">The ranges: {legend}.</p>' if legend else "")
            + f'<table class="dense fixed levels">{columns}<thead><tr><th>metric</th><th>column, targets</th>'
            f"{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def metrics(c: ReportContext) -> str:
    """Every metric of the holder at every level in one table: median, its range, and what that range is."""
    rows, _ = table_rows(c)
    if not rows:
        return '<p class="muted">No level has reported a metric yet.</p>'
    blocks = table_blocks(c.levels)
    return (f"<p>Each cell: the median over the replicates (synthetic sets, game iterations or targets), below it "
            f"its range; above each table, what those ranges are: {interval_rule()}. Labels, units and directions "
            f"are the metric catalogue's; the released level is shaded. A metric of more than {MANY_COLUMNS} columns "
            "shows, without a range, its columns' median and below it the worst of them (the largest where lower is "
            "better, else the smallest), named. Each column, and the GDPR criteria's attacks, at the released level: "
            "in the appendix (each criterion's residual risk at every level: in the next section).</p>"
            + "".join(metric_table(rows, block, c.level) for block in blocks))


# -- the attack games ---------------------------------------------------------------------------------------------
def _gdpr(c: ReportContext) -> str:
    """Every level's and reference's residual risk per criterion (the verdicts at the released level: page 1)."""
    found = gdpr_table(c.summary, c.sensitive, c.levels, figures.model_label)
    if found.empty:
        return ("<h3>Anonymisation criteria (GDPR)</h3><p class=\"muted\">Not measured in this sweep (it was run by an "
                "earlier version).</p>")
    return ("<h3>Anonymisation criteria (GDPR, Article 29 Working Party Opinion 05/2014) per level and reference</h3>"
            "<p>Each attack's success on the training rows against the same attack on hold-out rows it never saw: "
            "residual risk = (main − control)/(1 − control) (Giomi et al. 2023); in brackets each published set's "
            f"{interval_name(None, IntervalKind.WILSON)} over that set's attacks, both as medians over the sets; the "
            "success rates and numbers of attacks at the released level are in the appendix, each criterion's verdict "
            "at that level on page 1 and its attack under \"What each attack metric is\".</p>"
            + table(found, dense=True, nowrap=True))


def _audit(c: ReportContext) -> str:
    if not c.claims:
        return ""
    head = "<h3>Audit of the differential-privacy claims</h3>"
    if not c.audits:
        return head + ("<p>The references " + e(", ".join(claimed_words(k, v) for k, v in c.claims.items()))
                       + " claim differential privacy; the sweep did not audit them (the Sweep page's DP audit, or "
                         "<code>--audit-dp</code>).</p>")
    return head + ("<p>Canary records inserted into the training rows, each generator fitted many times with and "
                   "without them, a membership test on its releases; the empirical lower bound on ε at 95 % "
                   "confidence (Clopper-Pearson) against the claim.</p>"
                   + "".join(items([a.sentence()], "block" if a.flagged else "ok") for a in c.audits))


def first_sentence(text: str) -> str:
    """An explanation's plain first sentence (the glossary has them whole): a stop followed by a capital."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip(), maxsplit=1)[0]


def attacks(c: ReportContext) -> str:
    """Every replicate of the attack games per level (boxes, two to a row), the GDPR criteria per level, the DP
    audit, and what each attack metric is."""
    boxes = []

    def box(metric, column: str | None, title: str, **kwargs) -> str:
        fig = figures.metric_boxes(c.records, metric.name, column, title, **kwargs)
        fig.update_yaxes(title_text=metric.unit, title_font={"size": 9})  # the title names the metric
        game = kwargs.get("by_target_kind", False)
        layout = BOX | ({"margin": BOX["margin"] | {"b": 95}} if game else {})  # the targets' legend under the axis
        return figure(fig, 250 if game else 190, HALF, **layout)

    for column in c.sensitive:
        for metric in attribute_game_metrics(c.summary.holder()):
            boxes.append(box(metric, column, f"{metric.short} — {column}"))
    for metric in membership_metrics(c.records["metric"].unique()):
        game = metric.source is Source.GAME
        boxes.append(box(metric, None, metric.short, reference=metric.ideal if game else None, by_target_kind=game))
    explained = pd.DataFrame([{"metric": m.short, "from": SOURCE_WORDS[m.source], "better": m.better,
                               "what it is": first_sentence(m.explanation)} for m in CATALOGUE.values()
                              if (m.group in (Group.ATTRIBUTE_RISK, Group.MEMBERSHIP_RISK)
                                  or _part(m.name) is Part.RISK)
                              and (c.records["metric"] == m.name).any()])
    return ("<p>The attribute-inference game (MAB, WCAB; paper Section 2.4) and the membership attacks (PG: the "
            "shadow-model game; AUC and TPR: today's shadow-free attacks): every replicate per level, so the noise of "
            "the evaluation can be told from a difference between levels.</p>"
            + '<div class="figures">' + "".join(boxes) + "</div>" + _gdpr(c) + _audit(c)
            + "<h3>What each attack metric is</h3><p class=\"muted\">In a sentence (the page \"What the words mean\" "
              "says more). From: "
            + e("; ".join(f"{SOURCE_WORDS[k]} = {v}" for k, v in SOURCES.items() if k is not Source.REFERENCE))
            + ".</p>"
            + table(explained, dense=True))


# -- real against synthetic ---------------------------------------------------------------------------------------
MARGINS_IN_BODY = 24  # a table of more modelled columns shows MARGINS_PICKED margins here, every one in the appendix
MARGINS_PICKED = 12  # one figure: the sensitive columns, Y, and the margins that differ most


def margin_figures(c: ReportContext, columns: list[str]) -> str:
    """Real against synthetic margins of ``columns``, twelve small panels to a figure beyond nine columns."""
    train, synthetic = c.release.train, c.release.table
    small = len(columns) > 9  # six small panels to a row, two rows to a figure, so the figures fill the pages
    chunk = 12 if small else len(columns)
    out = []
    for start in range(0, len(columns), chunk):
        fig = figures.marginal_histograms(train, synthetic, columns[start:start + chunk], per_row=6 if small else 3,
                                          panel_height=110 if small else 180)
        if start:
            fig.update_layout(title=None, showlegend=False)
        out.append(figure(fig, int(fig.layout.height) - (40 if start else 0),
                          margin={"t": 10 if start else 50, "b": 20, "l": 30, "r": 10}))
    return "".join(out)


def modelled_columns(c: ReportContext) -> list[str]:
    train, synthetic = c.release.train, c.release.table
    return [col for col in c.release.model.schema_.modelled if col in train.columns and col in synthetic.columns]


def column_distances(c: ReportContext) -> pd.DataFrame:
    """The distance of each column's margin at the released level (``readable`` rows, raw); no rows while the
    sweep has not scored it yet (a level exported mid-sweep, before its details task), never a frame without the
    columns the report reads."""
    frame = readable(c.summary.point(c.level).metric("column_distance"), raw=True)
    return frame if not frame.empty else pd.DataFrame(columns=["column", "median", "low", "high", "n"])


def margins_in_body(c: ReportContext) -> list[str]:
    """Every modelled column up to ``MARGINS_IN_BODY``; beyond, the sensitive columns, Y, and the columns whose
    margins differ most at this level (by their distance), in the table's order."""
    modelled = modelled_columns(c)
    if len(modelled) <= MARGINS_IN_BODY:
        return modelled
    first = [col for col in (*c.sensitive, c.config.response) if col in modelled]
    distance = column_distances(c)
    worst = distance.sort_values("median", ascending=False, kind="stable")["column"].tolist()
    picked = [col for col in worst if col in modelled and col not in first][:MARGINS_PICKED - len(first)]
    kept = set(first) | set(picked)
    return [col for col in modelled if col in kept]


def fidelity(c: ReportContext) -> str:
    """Each margin and the correlations, real training rows against the report's rows (beyond ``MARGINS_IN_BODY``
    columns, the margins that matter most; each column's distance and margin in the appendix)."""
    train, synthetic = c.release.train, c.release.table
    modelled, shown = modelled_columns(c), margins_in_body(c)
    distance = column_distances(c)
    spread = column_spread(dict(zip(distance["column"], distance["median"], strict=True)), lower_is_better=True)
    summary = ("" if spread is None else
               f"<p>{e(CATALOGUE['column_distance'].short)} at level {c.level}: median {_num(spread.median)} over "
               f"the {spread.count} columns, the largest {_num(spread.worst)} ({e(spread.worst_column)}); each "
               "column's is in the appendix.</p>")
    which = ("" if len(shown) == len(modelled) else
             f"<p>The margins of {len(shown)} of the {len(modelled)} columns: the sensitive ones, Y, and those whose "
             "margins differ most at this level; every column's is in the appendix.</p>")
    return (f"<p>The training rows against {e(c.drawn)}.</p>" + summary + which + margin_figures(c, shown)
            + figure(figures.correlation_pair(train[modelled], synthetic[modelled]), 360,
                     margin={"t": 50, "b": 90, "l": 90, "r": 10}))
