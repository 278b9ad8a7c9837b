"""How the report looks: its stylesheet (screen and A4 print), escaping, tables, lists and figures sized for paper.

Figures have a fixed size that fits the A4 page's printable width (``FULL``, or ``HALF`` two to a row), so what
the screen shows is what prints: a plotly figure keeps the width it was drawn at, and a wider one would shrink the
whole printout or be cut.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

PLOT_CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": False}
# A4 is 210 mm wide; with 12 mm margins 186 mm ≈ 703 CSS pixels are printable
FULL, HALF = 700, 345

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#222;
  line-height:1.4;background:#fff;font-size:15px}
main{max-width:1000px;margin:0 auto;padding:1.2rem 2rem 4rem}
nav{position:sticky;top:0;background:#f6f6f8;border-bottom:1px solid #ddd;padding:.4rem 2rem;font-size:.85rem;z-index:5;
  display:flex;flex-wrap:wrap;gap:.1rem .9rem}
nav a{color:#334;text-decoration:none;white-space:nowrap}
section{border-top:2px solid #e4e4ea;padding-top:.4rem;margin-top:1.6rem}
section#summary{border-top:none;margin-top:0}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin:.3rem 0 .4rem}
h3{font-size:1.02rem;margin:.7rem 0 .25rem}
p{margin:.3rem 0}
ul{margin:.2rem 0;padding-left:1.3rem}
table{border-collapse:collapse;font-size:.8rem;margin:.3rem 0 .7rem;max-width:100%}
th,td{border:1px solid #d8d8de;padding:.12rem .35rem;text-align:left;vertical-align:top}
th{background:#f1f1f5}
td{overflow-wrap:break-word;hyphens:manual}
table.dense{font-size:.7rem}
table.fixed{table-layout:fixed;width:100%}
table.dense td,table.dense th{padding:.05rem .25rem}
td.n{white-space:nowrap}
tr.group td{background:#f1f1f5;font-weight:600}
td.cell,th.shown{background:#fff6d8}
.side{display:flex;gap:10px;align-items:flex-start;flex-wrap:wrap}
.side>table{flex:1 1 0;min-width:0}
.side.nowrap td,table.nowrap td{white-space:nowrap}
.box{border:1px solid #ccd;border-radius:6px;padding:.35rem .8rem;margin:.45rem 0;background:#fafaff}
.box h3{margin-top:.2rem}
.warn{border-left:5px solid #e0a100;background:#fff8e6}
.block{border-left:5px solid #d62728;background:#fdecec}
.ok{border-left:5px solid #2ca02c;background:#eef8ee}
.info{border-left:5px solid #8a8fa8;background:#f4f5f9}
.warn,.block,.ok,.info{padding:.2rem .55rem;margin:.2rem 0}
.muted{color:#666;font-size:.85em}
.severity{font-weight:700;margin-right:.45em;text-transform:uppercase;font-size:.8em;letter-spacing:.03em}
table.sign{width:100%;border:none;font-size:.9em;margin:.2rem 0}
table.sign td{border:none;padding:.35rem .3rem 0;white-space:nowrap;width:1%}
table.sign td.line,span.line{border-bottom:1px solid #444;width:45%}
span.line{display:inline-block;width:70%;height:1em}
p.decision{margin:.35rem 0 0}
span.choice{margin-right:1.6em;white-space:nowrap}
span.tick{display:inline-block;width:.8em;height:.8em;border:1px solid #333;margin-right:.35em;vertical-align:-.1em}
.kv td:first-child{font-weight:600;white-space:nowrap}
.figure{break-inside:avoid;page-break-inside:avoid;margin:.3rem 0}
.figures{display:flex;flex-wrap:wrap;gap:6px 10px}
code{font-size:.85em;overflow-wrap:anywhere}
details>summary{cursor:pointer;color:#334;margin:.3rem 0}
p.order{font-size:.8em;overflow-wrap:anywhere}
@page{size:A4;margin:12mm}
@media print{
  body{font-size:9.5pt;line-height:1.3}
  nav,.modebar,.modebar-container{display:none!important}
  main{max-width:none;padding:0}
  section{margin-top:.9rem}
  section#summary{break-after:page;page-break-after:always}
  section#summary{font-size:8.5pt;line-height:1.22}
  section#summary h1{font-size:14pt;margin:0}section#summary h3{font-size:9.5pt;margin:.25rem 0 .1rem}
  section#summary .box{padding:.1rem .5rem;margin:.2rem 0}
  section#summary table.kv{font-size:7.6pt;margin:.1rem 0}section#summary table.kv td{padding:0 .3rem}
  section#summary p{margin:.1rem 0}
  section#summary .ok,section#summary .warn,section#summary .block,section#summary .info{font-size:7.4pt;
    line-height:1.18;margin:.08rem 0;padding:.05rem .4rem}
  section#summary table.sign td{padding-top:.25rem}
  section#summary+section{break-before:page;page-break-before:always;border-top:none;margin-top:0}
  h2,h3{break-after:avoid;page-break-after:avoid}
  tr,li,.figure,.box,.warn,.block,.ok,.info{break-inside:avoid;page-break-inside:avoid}
  table.dense{font-size:7pt}
  table.levels{font-size:6.8pt}
  .side.small table.dense{font-size:6.2pt}
  .side.small td,.side.small th{padding:0 2px}
  table.levels td,table.levels th{padding:1px 2px}
  a{color:inherit;text-decoration:none}
}
"""


def e(value) -> str:
    """Escaped text: every name, note and value a user typed goes through here."""
    return html.escape("" if value is None else str(value))


def fmt(value, digits: int = 3) -> str:
    """A number with ``digits`` decimals (a numpy float too), an integer or text as it is, a missing value (None,
    NaN, ``pd.NA``, ``NaT``) as a dash."""
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return "—"
    if isinstance(value, float | np.floating):
        return f"{value:.{digits}f}"
    return str(value)


def table(frame: pd.DataFrame, dense: bool = False, nowrap: bool = False) -> str:
    """``nowrap``: no cell breaks across lines (short values that read badly broken, such as an interval)."""
    if frame is None or frame.empty:
        return '<p class="muted">Nothing to show.</p>'
    frame = frame.copy()
    for column in frame.select_dtypes(include=["object", "str"]).columns:  # None in a text column: a dash
        frame[column] = frame[column].where(frame[column].notna(), "—")
    classes = [name for name, on in (("dense", dense), ("nowrap", nowrap)) if on]
    return frame.to_html(index=False, escape=True, na_rep="—", border=0, float_format=lambda v: f"{v:.4g}",
                         classes=classes or None)


def side_by_side(frame: pd.DataFrame, parts: int, nowrap: bool = False, small: bool = False) -> str:
    """A long, narrow table as ``parts`` tables next to each other (read down, then across); ``nowrap``: no cell
    breaks across lines (short values, as many parts as their width allows); ``small``: printed smaller (an
    appendix's lists of every column)."""
    if frame is None or frame.empty:
        return table(frame)
    size = -(-len(frame) // parts)
    classes = "side" + " nowrap" * nowrap + " small" * small
    return (f'<div class="{classes}">' + "".join(
        table(frame.iloc[i:i + size], dense=True) for i in range(0, len(frame), size)) + "</div>")


def kv(pairs: list[tuple[str, object]], raw: bool = False) -> str:
    """A two-column table of names and values (``raw``: the values are HTML already)."""
    rows = "".join(f"<tr><td>{e(k)}</td><td>{v if raw else e(v)}</td></tr>" for k, v in pairs)
    return f'<table class="kv">{rows}</table>'


def items(lines: list[str], kind: str | None = None) -> str:
    """Lines as a bulleted list, or each in a coloured box (``kind``: ok, warn, block, info)."""
    if not lines:
        return ""
    if kind:
        return "".join(f'<div class="{kind}">{e(line)}</div>' for line in lines)
    return "<ul>" + "".join(f"<li>{e(line)}</li>" for line in lines) + "</ul>"


def figure(fig: go.Figure, height: int, width: int = FULL, **layout) -> str:
    """A figure at a fixed size that prints as it shows (its builder's layout otherwise kept)."""
    fig.update_layout(width=width, height=height, autosize=False, font={"size": 10}, **layout)
    body = pio.to_html(fig, full_html=False, include_plotlyjs=False, config=PLOT_CONFIG,
                       default_width=f"{width}px", default_height=f"{height}px")
    return f'<div class="figure">{body}</div>'


def figure_row(parts: list[str]) -> str:
    """Figures side by side, as many as fit the width (two ``HALF`` ones to a printed row)."""
    return '<div class="figures">' + "".join(parts) + "</div>"
