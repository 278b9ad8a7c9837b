"""Where the release comes from and what was checked: the guardrails, the table's releases and the pooled check, the
data and its schema, the roles and the Algorithm-1 order, the risk preview, the protocol and the versions.

Each renderer lays out what the release, its model and its sweep hold; none computes a number."""

from __future__ import annotations

import pandas as pd

from .. import figures
from ..data.schema import Role
from ..evaluation.protocol import SIZE_NAMES, size_words
from ..evaluation.records import model_label
from ..figures.ordering import FOCUS_NEIGHBOURS, SQUARE_UP_TO
from ..jobs.config import settings_words
from ..release.ledger import budget, ledger_frame
from ..release.manifest import package_versions
from ..release.pooled import display_table, verdict
from .appendix import schema_frame
from .context import ReportContext
from .html import FULL, e, figure, fmt, items, kv, side_by_side, table

STRONGEST_CUTS = 12  # the most important associations a level cuts, listed by name; the rest counted by where they lie
HEATMAP_PLOT, COLOUR_BAR = 420, 110  # the heatmap's matrix, and the colour bar beside it, in pixels
KINDS = {"block": "block", "warn": "warn"}


def guardrails(c: ReportContext) -> str:
    where = ("the released file" if c.exported else
             f"{c.release.rows} rows drawn at level {c.level} (seed {c.release.seed})")
    return (f"<p>Checked on {e(where)}.</p>"
            + "".join(items([g.message], KINDS.get(g.severity, "ok")) for g in c.release.checks))


def releases(c: ReportContext) -> str:
    """The ledger of the table (every export, who chose its level) and the pooled-release check."""
    ledger = ledger_frame(c.entries).drop(columns=["table", "fingerprint"])  # one table: said in the data section
    ledger["sha256"] = ledger["sha256"].str[:12] + "…"  # whole on page 1 and in the manifest; here it took the width
    # "who chose the level" needed
    pooled = ""
    p = c.release.pooled
    if p is not None:
        pooled = (f"<h3>Pooled-release check</h3><p>An attacker holding the {p.earlier} earlier release(s) and "
                  f"this one ({p.rows} rows): the pool's risk next to this release's, and the sweep's range for a "
                  "single release (the number of sets behind it in its own column).</p>"
                  f"<p><b>{e(verdict(p))}</b></p>" + table(display_table(p.risks), dense=True)
                  + items(p.warnings, "warn") + items(p.notes))
    return (f"<p>Privacy budget of this table: {e(budget(c.entries).text)}.</p>"
            + (table(ledger, dense=True) if len(ledger) else
               '<p class="muted">No release of this table is in the ledger yet.</p>') + pooled)


def data(c: ReportContext) -> str:
    holder, train = c.release.model, c.release.train
    schema = schema_frame(c)
    return (kv([("Table", e(c.name)),
                ("Fingerprint of the table", f"<code>{e(c.release.table_fingerprint)}</code> (SHA-256 of its names, "
                                             "types and values)"),
                ("Fingerprint of the sweep's data", f"<code>{e(c.view.fingerprint)}</code> (the table and the "
                                                    "hold-out file)"),
                ("Rows, columns", f"{len(c.table)}, {c.table.shape[1]}"),
                ("Training, hold-out rows", f"{len(train)} (the model's), {len(c.test)} (tests only)"),
                ("Missing values", e(holder.missing)), ("Modelled columns", len(holder.schema_.modelled))], raw=True)
            + "<h3>Schema (types and roles as the model used them)</h3>" + _schema_counts(schema))


def _schema_counts(schema: pd.DataFrame) -> str:
    """The columns counted by type and role, the dropped ones named with why; each column in the appendix."""
    counts = pd.crosstab(schema["type"], schema["role"], margins=True, margins_name="all").reset_index()
    counts = counts.rename(columns={"type": "type / role"}).rename_axis(columns=None)
    dropped = schema[schema["role"] == Role.DROPPED]
    named = items([f"{name}: {why}" for name, why in zip(dropped["column"], dropped["why dropped"], strict=True)])
    return (table(counts, dense=True) + (f"<p>Dropped, not modelled ({len(dropped)}):</p>{named}" if len(dropped)
                                         else "<p>No column was dropped: every one is modelled.</p>")
            + '<p class="muted">Each column\'s type and role: appendix A.</p>')


def model(c: ReportContext) -> str:
    """The roles, ρ* per sensitive column, the C-vine order and the association heatmap it was read from."""
    holder = c.release.model
    order = getattr(holder, "order_", None)
    if order is None:
        return (kv([("Response Y", c.config.response), ("Sensitive columns S", ", ".join(c.sensitive))])
                + '<p class="muted">The model has no Algorithm-1 order.</p>')
    rho = ", ".join(f"{k}: {fmt(v)}" for k, v in order.rho_star.items())
    association = getattr(holder, "association_", None)
    return (kv([("Response Y", order.response), ("Sensitive columns S", ", ".join(order.sensitive)),
                ("Association measure", order.measure or "none: the order was given explicitly"),
                ("ρ* per sensitive column", rho),
                ("K (linked to S above ρ*)", ", ".join(order.K) or "none"),
                ("Level that cuts the sensitive block's links (τ_block, Theorem 2.5)", order.tau_block),
                ("Recommended top level (t_max, Appendix B)", order.t_max), ("Why that top level", order.t_max_reason)])
            + f'<p class="order"><b>C-vine order</b> (the response last, the root of tree 1): '
              f'{e(" → ".join(order.order))}</p>'
            + (_heatmap(association, order) if association is not None else
               '<p class="muted">The associations are not stored with this sweep\'s model (it was fitted by an '
               "earlier version, or from an explicit order).</p>"))


def _heatmap(association: pd.DataFrame, order) -> str:
    """The association heatmap at the page's width, its labels whole (the builder's margins kept); a table wider
    than the page holds: the sensitive block and its closest neighbours (the Sensitive page scrolls through all)."""
    focus = FOCUS_NEIGHBOURS if len(order.order) > SQUARE_UP_TO else None
    fig = figures.association_heatmap(association, order, order.measure, focus=focus)
    margin = fig.layout.margin  # the labels' room, beside and below the matrix, and the title's and blocks' above
    note = ("" if focus is None else
            f'<p class="muted">{len(order.order)} columns are too many to label on paper: the sensitive block S, K, '
            f"the {FOCUS_NEIGHBOURS} other covariates most associated with them and Y. The Sensitive features page "
            "shows every column.</p>")
    return note + figure(fig, int(margin.t + HEATMAP_PLOT + margin.b),
                         min(FULL, int(margin.l + HEATMAP_PLOT + COLOUR_BAR)), title={"x": 0})


def preview(c: ReportContext) -> str:
    """Theorem 2.4's expected attacker strength per level, and what the released level cuts: counted by where the
    cut pairs lie, the strongest named (the correlations real against synthetic are with the margins)."""
    p = c.preview
    if p is None:
        return '<p class="muted">No preview: the model has no order.</p>'
    cut = p.cut_at(c.level)
    head = (figure(figures.preview_curve(p.risk, p.tau_block), 240, margin={"t": 36, "b": 40, "l": 60, "r": 10})
            + items(p.sentences()))
    if not len(cut):
        return head + f"<p>{e(p.cut_counts(c.level))}</p>"
    shown = cut[["a", "b", "real", "kept", "where"]].head(STRONGEST_CUTS).round(3)
    more = "" if len(cut) <= STRONGEST_CUTS else " The Sensitive features page lists them all."
    return (head + f"<h3>What level {c.level} cuts (real associations kept at less than half)</h3>"
            f"<p>{e(p.cut_counts(c.level))} {e(p.cut_list_words(c.level, STRONGEST_CUTS))}{more}</p>"
            + table(shown, dense=True))


def versions(c: ReportContext) -> str:
    config, job, holder = c.config, c.view.job, c.release.model
    record = c.view.settings_record()
    settings = pd.DataFrame(settings_words(record), columns=["setting", "value"])
    sizes = pd.DataFrame(size_words(record.get("protocol") or {}), columns=["size", "value"])
    packages = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    return (kv([("Sweep", c.view.id), ("Status", f"{job.status} ({job.done} of {job.total} tasks)"),
                ("Protocol preset", config.preset), ("Master seed", config.seed),
                ("Generator", model_label(holder.name)),
                ("Attack games' refits", "the holder's pair-copula families kept, parameters refitted (a deviation "
                 "from the paper)" if config.reuse_families else
                 "families selected again in every refit (the paper's way)"),
                ("Fitted up to level", getattr(holder, "fitted_level_", None)), ("Packages", packages)])
            + "<h3>Sweep settings</h3>" + side_by_side(settings, 2)
            + ("<h3>Game sizes the sweep ran with</h3>" + side_by_side(sizes, 2) if len(sizes) else "")
            + "<h3>Sizes capped by the data</h3>" + table(pd.DataFrame(
                [{"size": SIZE_NAMES.get(cap["parameter"], cap["parameter"]), "asked": cap["requested"],
                  "used": cap["used"], "why": cap["reason"]} for cap in c.view.caps]), dense=True))
