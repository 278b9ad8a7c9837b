"""The release report: one self-contained HTML file a privacy officer can read, print and keep.

It sits on top of the library, as the command line does: every number and sentence comes from the
code that computes it elsewhere (the selection and the recommendation card in ``choice/``, the
preview in ``evaluation/preview.py``, the catalogue's labels, ``figures/``, the guardrails, the
ledger and the pooled check in ``release/``). plotly.js is embedded once, so the file opens without a
network; a print stylesheet puts each section on its own page for the browser's "Save as PDF".
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import pandas as pd
import plotly.io as pio
from plotly.offline import get_plotlyjs

from . import figures
from .choice import Axis, UtilityMix, explain_level
from .choice.axes import attribute_game_metrics, membership_metrics
from .choice.gdpr import gdpr_table, officer_summary, point_verdicts
from .errors import DataError
from .evaluation.catalogue import CATALOGUE, GROUPS, SOURCES
from .evaluation.dp_audit import audits_from_records
from .evaluation.intervals import SMALL_N
from .evaluation.records import HOLDER
from .evaluation.summary import Summary, readable
from .jobs import JobView
from .jobs.plan import claimed_epsilons
from .jobs.submission import job_tables
from .release.export import write_file
from .release.ledger import budget, ledger_frame, releases
from .release.manifest import package_versions
from .release.pooled import display_table, verdict
from .release.release import Release
from .version import __version__

SECTIONS = (("summary", "Summary"), ("data", "The data: fingerprint and schema"), ("roles", "Roles and ρ*"),
            ("order", "Algorithm-1 order and block correlations"), ("preview", "Risk preview and what the level cuts"),
            ("choice", "Privacy against utility"), ("metrics", "Metrics per level"), ("attacks", "Attack games"),
            ("fidelity", "Fidelity: real against synthetic"), ("guardrails", "Guardrails"),
            ("releases", "Releases of this table"), ("versions", "Protocol and versions"))
PLOT_CONFIG = {"displaylogo": False, "displayModeBar": False, "responsive": True}

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#222;
  line-height:1.45;background:#fff}
main{max-width:1100px;margin:0 auto;padding:1.5rem 2rem 4rem}
nav{position:sticky;top:0;background:#f6f6f8;border-bottom:1px solid #ddd;padding:.4rem 2rem;font-size:.85rem;z-index:5;
  display:flex;flex-wrap:wrap;gap:.1rem .9rem}
nav a{color:#334;text-decoration:none;white-space:nowrap}
section{border-top:2px solid #e4e4ea;padding-top:.6rem;margin-top:2rem}
section#summary{border-top:none;margin-top:0}
h1{font-size:1.7rem;margin:.2rem 0}h2{font-size:1.3rem}h3{font-size:1.05rem;margin-bottom:.3rem}
table{border-collapse:collapse;font-size:.82rem;margin:.4rem 0 1rem;max-width:100%}
th,td{border:1px solid #d8d8de;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f1f1f5}
td{overflow-wrap:break-word;word-break:normal;hyphens:manual}
.box{border:1px solid #ccd;border-radius:6px;padding:.6rem 1rem;margin:.6rem 0;background:#fafaff}
.warn{border-left:5px solid #e0a100;background:#fff8e6;padding:.4rem .8rem;margin:.35rem 0}
.block{border-left:5px solid #d62728;background:#fdecec;padding:.4rem .8rem;margin:.35rem 0}
.ok{border-left:5px solid #2ca02c;background:#eef8ee;padding:.4rem .8rem;margin:.35rem 0}
.muted{color:#666;font-size:.85rem}
.kv td:first-child{font-weight:600;white-space:nowrap}
.figure{page-break-inside:avoid;break-inside:avoid;margin:.6rem 0}
code{font-size:.85em;overflow-wrap:anywhere}
@media print{
  nav,.modebar,.modebar-container{display:none!important}
  main{max-width:none;padding:0}
  section{break-before:page;page-break-before:always;border-top:none;margin-top:0}
  section#summary{break-before:auto;page-break-before:auto}
  table,.figure,.box,.warn,.block,.ok{break-inside:avoid;page-break-inside:avoid}
  a{color:inherit;text-decoration:none}
  body{font-size:11pt}
}
"""


def _e(value) -> str:
    return html.escape("" if value is None else str(value))


def _fmt(value, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(frame: pd.DataFrame) -> str:
    if frame is None or frame.empty:
        return '<p class="muted">Nothing to show.</p>'
    frame = frame.copy()
    for column in frame.select_dtypes(include=["object", "str"]).columns:  # None in a text column: a dash
        frame[column] = frame[column].where(frame[column].notna(), "—")
    return frame.to_html(index=False, escape=True, na_rep="—", border=0, float_format=lambda v: f"{v:.4g}")


def _kv(pairs: list[tuple[str, object]]) -> str:
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in pairs)
    return f'<table class="kv">{rows}</table>'


def _list(lines: list[str], kind: str | None = None) -> str:
    if not lines:
        return ""
    if kind:
        return "".join(f'<div class="{kind}">{_e(line)}</div>' for line in lines)
    return "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>"


def _figure(fig) -> str:
    body = pio.to_html(fig, full_html=False, include_plotlyjs=False, config=PLOT_CONFIG, default_width="100%")
    return f'<div class="figure">{body}</div>'


def level_metrics(summary: Summary, levels: list[int]) -> pd.DataFrame:
    """Every metric of the holder, one column per level: median [95 % interval] and n, labelled and ordered
    as the catalogue declares (``readable``)."""
    keys = ["group", "metric", "column", "targets", "unit", "better"]
    wide = None
    for level in levels:
        rows = readable(summary.point(level))
        if rows.empty:
            continue
        text = [("—" if pd.isna(m) else f"{m:.3f}") + ("" if i == "—" else f" {i}") + f" n={n}"
                for m, i, n in zip(rows["median"], rows["interval"], rows["n"], strict=True)]
        rows = rows[keys].assign(**{f"level {level}": text})
        wide = rows if wide is None else wide.merge(rows, on=keys, how="outer", sort=False)
    if wide is None:
        return pd.DataFrame()
    groups = {g: i for i, g in enumerate(GROUPS)}
    return wide.sort_values("group", key=lambda s: s.map(lambda g: groups.get(g, len(GROUPS))), kind="stable")


def _gdpr_html(summary: Summary, config, levels: list[int], shown: int) -> str:
    verdicts = point_verdicts(summary, config.sensitive, HOLDER, shown)
    if not verdicts:
        return ("<h3>Anonymisation criteria (GDPR)</h3><p class=\"muted\">Not measured in this sweep (it was run "
                "by an earlier version).</p>")
    kinds = {"none": "ok", "measurable": "warn", "high": "block"}
    return ("<h3>Anonymisation criteria (GDPR, Article 29 Working Party Opinion 05/2014)</h3>"
            f"<p>At level {shown}: each attack's success on the training rows against the same attack on hold-out "
            "rows it never saw (residual risk = (main − control)/(1 − control), Giomi et al. 2023), median over the "
            "published sets with the median of their 95 % intervals.</p>"
            + "".join(_list([v.sentence], kinds[v.verdict]) for v in verdicts)
            + "<p>Every level and reference point:</p>"
            + _table(gdpr_table(summary, config.sensitive, levels, figures.model_label)))


def _audit_html(audits: list, claims: dict[str, float]) -> str:
    if not claims:
        return ""
    head = "<h3>Audit of the differential-privacy claims</h3>"
    if not audits:
        return head + ("<p>The references " + _e(", ".join(f"{k} (ε = {v:g})" for k, v in claims.items()))
                       + " claim differential privacy; the sweep did not audit them (the Sweep page's DP audit, or "
                         "<code>--audit-dp</code>).</p>")
    return head + ("<p>Canary records inserted into the training rows, each generator fitted many times with and "
                   "without them, a membership test on its releases; the empirical lower bound on ε at 95 % "
                   "confidence (Clopper-Pearson) against the claim.</p>"
                   + "".join(_list([a.sentence()], "block" if a.flagged else "ok") for a in audits))


def build_report(release: Release, reason: str | None = None, exported: bool = True) -> str:
    """The report of a release of a stored sweep (``Release.from_sweep``) as one HTML page. It renders what the
    release, its sweep and its choice hold and computes nothing of its own (``release.chosen_by_user``: the user
    chose the level, else it is the recommendation); ``exported``: the release's rows left as a file (else they were
    drawn only for the figures and checks); ``reason``: the user's note."""
    view = release.view
    if view is None or release.selection is None or release.selection.best_level is None:
        raise DataError("A report needs a release of a sweep with results at every level it scores.",
                        fix="Let the sweep run (or resume it) before making its report.")
    config, selection, chosen = view.config, release.selection, release.chosen_by_user
    summary = view.summary()
    levels = [int(v) for v in selection.table["level"]]
    shown = int(release.level)
    holder, train, synthetic, checks = release.model, release.train, release.table, release.checks
    _, test = view.tables()
    table, _ = job_tables(view.store, view.job)
    fingerprint = release.table_fingerprint
    preview = view.preview()
    card = explain_level(selection, summary, shown, config.sensitive, preview)
    at_level = summary.point(shown)
    entries = releases(view.store, fingerprint)
    name = release.table_name
    job = view.job
    settings = release.settings
    method, privacy, utility, alpha = settings.method, settings.privacy, settings.utility, settings.alpha
    records = view.records()
    audits = audits_from_records(records)
    claims = claimed_epsilons(config)  # builds each baseline once: said in the summary and in the attacks
    in_short = officer_summary(summary, config.sensitive, shown, chosen, selection.best_level, reason,
                               claims, audits)

    parts = {}
    # -- summary ----------------------------------------------------------------------------------------------
    if exported:
        what = (f"{release.rows} synthetic rows of {_e(name)} from TVineSynth at truncation level {shown} "
                f"(release seed {release.seed}), file <code>{_e(release.file_name)}</code>. SHA-256 of the file: "
                f"<code>{_e(release.sha256)}</code>.")
    else:
        what = (f"No file accompanies this report: it describes sweep <code>{_e(view.id)}</code> of {_e(name)} "
                f"and level {shown}" + (" as chosen" if chosen else "") + f", with {release.rows} rows drawn at that "
                f"level (seed {release.seed}) for its figures and checks; as a file, those rows have the SHA-256 "
                f"<code>{_e(release.sha256)}</code> (the release the Export page or <code>release --job</code> makes "
                "with this level, seed and number of rows).")
    chosen_text = (f"Level <b>{shown}</b> was chosen." if chosen else
                   f"<b>No level was chosen.</b> The recommendation is level <b>{selection.best_level}</b>; the "
                   "numbers below are for it.")
    best_row = selection.table.set_index("level").loc[selection.best_level]
    mix = UtilityMix.parse(utility)
    recommendation = (f"Recommended: level {selection.best_level} (best PU_t = α·P_t + (1 − α)·U_t at α = {alpha:g}, "
                      f"{method} normalisation; privacy: {Axis.parse(privacy, sensitive=config.sensitive).title}; "
                      f"utility: {mix.describe(summary.metrics())}); it wins {float(best_row['wins']):.0%} of "
                      "resamples within the intervals.")
    warnings = list(card.warnings)
    if job["status"] != "done":
        warnings.insert(0, f"The sweep is {job['status']} ({job['done']} of {job['total']} tasks): the attack games "
                           "may not have reported for every level; its privacy numbers are provisional.")
    blocking = [c.message for c in checks if c.severity == "block"]
    pooled_warnings = release.pooled.warnings if release.pooled is not None else []
    parts["summary"] = (
        f"<h1>Release report: {_e(name)}</h1>"
        f'<p class="muted">Made {time.strftime("%Y-%m-%d %H:%M:%S %Z")} by TVineSynth Studio {__version__}. '
        "Every number below is a median with its 95 % interval and the number of replicates n.</p>"
        f'<div class="box"><h3>What was released</h3><p>{what}</p><p>{chosen_text}</p><p>{_e(recommendation)}</p>'
        f"<p><b>The user's reason:</b> {_e(reason) if reason and reason.strip() else '<i>none given</i>'}</p>"
        + (f"<p><b>Guardrail override:</b> {_e(release.override_reason)}</p>"
           if release.override_reason else "") + "</div>"
        f'<div class="box"><h3>In short, for the privacy officer</h3><p>{_e(in_short)}</p></div>'
        f"<h3>{_e(card.headline)}</h3><h3>Privacy: what it protects</h3>{_list(card.protects)}"
        f"<h3>Utility: what it costs</h3>{_list(card.costs)}{_list(card.notes)}"
        "<h3>Warnings</h3>" + (_list(blocking, "block") + _list(pooled_warnings + warnings, "warn")
                               or '<div class="ok">None.</div>'))

    # -- the data ---------------------------------------------------------------------------------------------
    schema = holder.schema_.to_frame()[["name", "type", "role", "reason", "drop_reason", "n_missing", "n_unique"]]
    parts["data"] = (
        _kv([("Table", name), ("Fingerprint of the table (SHA-256 of names, types and values)", fingerprint),
             ("Fingerprint of the sweep's data (table and hold-out file)", view.fingerprint),
             ("Rows, columns", f"{len(table)}, {table.shape[1]}"),
             ("Training rows (the model's), hold-out rows (tests only)", f"{len(train)}, {len(test)}"),
             ("Missing values", holder.missing), ("Modelled columns", len(holder.schema_.modelled))])
        + "<h3>Schema (types and roles as the model used them)</h3>" + _table(schema))

    # -- roles ------------------------------------------------------------------------------------------------
    order = getattr(holder, "order_", None)
    if order is not None:
        rho = pd.DataFrame([{"sensitive column": k, "ρ*": v} for k, v in order.rho_star.items()])
        parts["roles"] = (_kv([("Response Y", order.response), ("Sensitive columns S", ", ".join(order.sensitive)),
                               ("Association measure", order.measure),
                               ("K (linked to S above ρ*)", ", ".join(order.K) or "none"),
                               ("τ_block (Theorem 2.5)", order.tau_block), ("t_max (Appendix B)", order.t_max),
                               ("Why t_max", order.t_max_reason)]) + _table(rho))
        association = getattr(holder, "association_", None)
        parts["order"] = (f"<p>C-vine order (the response last, the root of tree 1): "
                          f"<code>{_e(' → '.join(order.order))}</code></p>"
                          + (_figure(figures.association_heatmap(association, order, order.measure))
                             if association is not None else
                             '<p class="muted">The associations are not stored with this sweep\'s model (it was '
                             "fitted by an earlier version, or from an explicit order).</p>"))
    else:
        parts["roles"] = _kv([("Response Y", config.response), ("Sensitive columns S", ", ".join(config.sensitive))])
        parts["order"] = '<p class="muted">The model has no Algorithm-1 order.</p>'

    # -- preview ----------------------------------------------------------------------------------------------
    if preview is not None:
        cut = preview.cut_at(shown)
        parts["preview"] = (_figure(figures.preview_curve(preview.risk, preview.tau_block)) + _list(preview.sentences())
                            + f"<h3>What level {shown} cuts (real associations kept at less than half)</h3>"
                            + _table(cut[["a", "b", "real", "kept", "where"]] if len(cut) else cut))
    else:
        parts["preview"] = '<p class="muted">No preview: the model has no order.</p>'

    # -- choice -----------------------------------------------------------------------------------------------
    axes = UtilityMix.parse(utility).axes(summary.metrics())
    scatters = "".join(_figure(figures.privacy_utility_scatter(summary, privacy, config.sensitive, shown, levels,
                                                               utility=axis, externals=list(config.externals or {}),
                                                               selection=selection))
                       for axis, _ in axes)
    columns = [c for c in ["level", "P", "U", "PU", "PU_low", "PU_high", "wins", "pareto", "beyond"]
               if c in selection.table.columns]
    parts["choice"] = (f"<p>The chosen (or recommended) level, {shown}, is marked. Baselines are reference points.</p>"
                       + scatters + _figure(figures.pu_curve(selection.table, selection.best_level, shown))
                       + _table(selection.table[columns]) + _list(selection.notes))

    # -- metrics ----------------------------------------------------------------------------------------------
    parts["metrics"] = (
        f"<p>Median [95 % interval] n=replicates, per level. With fewer than {SMALL_N} replicates the interval is "
        "only the spread of a few values. Labels, units and directions come from the metric catalogue.</p>"
        + _table(level_metrics(summary, levels))
        + f"<h3>Level {shown}, every metric</h3>" + _table(readable(at_level)))

    # -- attack games -----------------------------------------------------------------------------------------
    attack_parts = []
    attribute = attribute_game_metrics(summary.holder())
    for column in config.sensitive:
        for metric in attribute:
            attack_parts.append(_figure(figures.metric_boxes(records, metric.name, column,
                                                             f"{metric.short} — {column}")))
    for metric in membership_metrics(records["metric"].unique()):
        game = metric.source == "game"
        attack_parts.append(_figure(figures.metric_boxes(records, metric.name, None, f"{metric.label} per level",
                                                         reference=metric.ideal if game else None,
                                                         by_target_kind=game)))
    explained = pd.DataFrame([{"metric": m.short, "source": SOURCES[m.source], "better": m.better,
                               "what it is": m.explanation} for m in CATALOGUE.values()
                              if m.group in ("attribute risk", "membership risk")
                              and (records["metric"] == m.name).any()])
    parts["attacks"] = ("<p>The attribute-inference game (MAB, WCAB; paper Section 2.4) and the membership attacks "
                        "(PG: the shadow-model game; AUC and TPR: today's shadow-free attacks) per level.</p>"
                        + "".join(attack_parts) + _table(explained) + _gdpr_html(summary, config, levels, shown)
                        + _audit_html(audits, claims))

    # -- fidelity ---------------------------------------------------------------------------------------------
    modelled = [c for c in holder.schema_.modelled if c in train.columns and c in synthetic.columns]
    source = "the released rows" if exported else f"{len(synthetic)} rows drawn at level {shown} (seed {release.seed})"
    parts["fidelity"] = (f"<p>The training rows against {_e(source)}.</p>"
                         + _figure(figures.marginal_histograms(train, synthetic, modelled))
                         + _figure(figures.correlation_pair(train[modelled], synthetic[modelled])))

    # -- guardrails -------------------------------------------------------------------------------------------
    kinds = {"block": "block", "warn": "warn"}
    parts["guardrails"] = (("<p>Checked on the released file.</p>" if exported else
                            f"<p>Checked on {release.rows} rows drawn at level {shown} (seed {release.seed}).</p>")
                           + "".join(_list([c.message], kinds.get(c.severity, "ok")) for c in checks))

    # -- releases ---------------------------------------------------------------------------------------------
    pooled_html = ""
    if release.pooled is not None:
        p = release.pooled
        pooled_html = (f"<h3>Pooled-release check</h3><p>An attacker holding the {p.earlier} earlier release(s) and "
                       f"this one ({p.rows} rows): the pool's risk next to this release's, and the sweep's interval "
                       "for a single release.</p>" + f"<p><b>{_e(verdict(p))}</b></p>" + _table(display_table(p.risks))
                       + _list(p.warnings, "warn") + _list(p.notes))
    parts["releases"] = (f"<p>Privacy budget of this table: {_e(budget(entries).text)}.</p>"
                         + _table(ledger_frame(entries)) + pooled_html)

    # -- versions ---------------------------------------------------------------------------------------------
    settings = pd.DataFrame([{"setting": k, "value": _fmt(v)} for k, v in config.to_dict().items()
                             if k != "schema"])
    caps = pd.DataFrame(view.caps)
    versions = pd.DataFrame([{"package": k, "version": v} for k, v in package_versions().items()])
    parts["versions"] = (_kv([("Sweep", view.id), ("Status", f"{job['status']} ({job['done']} of {job['total']} "
                                                             "tasks)"),
                              ("Protocol preset", config.preset), ("Master seed", config.seed),
                              ("Generator", holder.name),
                              ("Attack games' refits", "the holder's pair-copula families kept, parameters refitted "
                               "(a deviation from the paper)" if config.reuse_families else
                               "families selected again in every refit (the paper's way)"),
                              ("Fitted level t_max", getattr(holder, "fitted_level_", None))])
                         + "<h3>Sweep settings</h3>" + _table(settings)
                         + "<h3>Sizes capped by the data</h3>" + _table(caps)
                         + "<h3>Packages</h3>" + _table(versions))

    nav = "".join(f'<a href="#{key}">{_e(title)}</a>' for key, title in SECTIONS)
    body = "".join(f'<section id="{key}">' + ("" if key == "summary" else f"<h2>{_e(title)}</h2>") + parts[key]
                   + "</section>" for key, title in SECTIONS)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Release report — {_e(name)}</title><meta name=\"viewport\" content=\"width=device-width\">"
            f"<style>{CSS}</style><script type=\"text/javascript\">{get_plotlyjs()}</script></head>"
            f"<body><nav>{nav}</nav><main>{body}</main></body></html>")


def table_name(view: JobView) -> str | None:
    """What the user calls the sweep's table: the name of the project that opened it (a demo's title or the
    uploaded file's name), None when no project holds it (a sweep started from the command line)."""
    from .jobs.projects import Projects

    fingerprint = view.table_fingerprint
    for project in Projects(view.store).all():
        if project.fingerprint == fingerprint:
            return project.name
    return None


def write_report(text: str, out: str | Path, inputs: tuple = ()) -> Path:
    """Never over one of the inputs, never half-written (``write_file``)."""
    return write_file(text.encode("utf-8"), out, inputs)
