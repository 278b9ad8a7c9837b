"""The report's first page, what the officer signs: what was released and what it was tested on, the level and who
chose it and why, the level's verdicts (``choice.verdicts``: the card's, the manifest's and the ledger's, warnings
included, in their order, each with what to do about it), the user's note, and what must be seen before signing.
Numbers and methods come after it."""

from __future__ import annotations

from ..choice.selection import Normalisation
from ..release.pooled import verdict
from ..storage.store import JobStatus
from ..version import __version__
from .context import ReportContext
from .html import e, items, kv


def _released(c: ReportContext) -> str:
    r = c.release
    made = f"TVineSynth at truncation level {c.level}, release seed {r.seed}, from sweep {c.view.id}"
    if c.exported:
        pairs = [("File", e(r.file_name)), ("Rows", f"{r.rows} synthetic rows of {e(c.name)}"),
                 ("SHA-256 of the file", f"<code>{e(r.sha256)}</code>"), ("Made by", e(made))]
    else:
        pairs = [("File", "none with this report: it describes the file the Export page (or <code>release --job "
                          f"{e(c.view.id)} --level {c.level}</code>) makes with this level, seed and rows"),
                 ("Rows", f"{r.rows} synthetic rows of {e(c.name)}, drawn for the checks below"),
                 ("SHA-256 of those rows as a file", f"<code>{e(r.sha256)}</code>"), ("Made by", e(made))]
    pairs.append(("Tested on", e(c.view.holdout_words())))  # every attack and utility figure below
    return '<div class="box"><h3>What was released</h3>' + kv(pairs, raw=True) + "</div>"


def _level(c: ReportContext) -> str:
    """Who chose the level and why, as the manifest and the ledger record it (``Release.choice``)."""
    why = c.release.choice()["why"]
    s = c.settings
    weighed = (f"How the levels were weighed: privacy weight α = {s.alpha:g}; privacy measured by "
               f"{s.privacy.title}; utility: "
               f"{s.utility.describe(c.summary.metrics())}; {Normalisation(s.method).phrase}.")
    note = (f"<p><b>The user's note:</b> {e(c.note)}</p>" if c.note else
            "<p><b>The user's note:</b> <i>none given</i></p>")
    override = (f"<p><b>Released despite a blocking guardrail, because:</b> {e(c.release.override_reason)}</p>"
                if c.release.override_reason else "")
    return (f'<div class="box"><h3>The level and who chose it</h3><p><b>Level {c.level}</b>: {e(why)}.</p>'
            f'<p class="muted">{e(weighed)}</p>{note}{override}</div>')


def _before_signing(c: ReportContext) -> str:
    """What must be seen before signing: a sweep still running, blocking guardrails, the pooled check."""
    job = c.view.job
    warn, block, ok = [], [g.message for g in c.release.checks if g.severity == "block"], []
    if job["status"] != JobStatus.DONE:
        warn.append(f"The sweep is {job['status']} ({job['done']} of {job['total']} tasks): the attack games may not "
                    "have reported for every level; its privacy numbers are provisional.")
    pooled = c.release.pooled
    if pooled is not None:
        (warn if pooled.raised or pooled.warnings else ok).append(verdict(pooled))
        warn += pooled.warnings
    if not (warn or block or ok):
        return ""
    return "<h3>Before signing</h3>" + items(block, "block") + items(warn, "warn") + items(ok, "ok")


def render(c: ReportContext) -> str:
    """Page 1, alone on its page in print (the stylesheet breaks after it): a verdict first, the numbers after."""
    verdicts = "".join(items([v.text], str(v.severity)) for v in c.card.verdicts)
    return (f"<h1>Release report: {e(c.name)}</h1>"
            f'<p class="muted">Made {e(c.made)} by TVineSynth Studio {e(__version__)}. This page is what is signed; '
            "the numbers and methods behind it follow from page 2.</p>"
            + _released(c) + _level(c)
            + f"<h3>Verdicts at level {c.level}</h3>" + verdicts + _before_signing(c))
