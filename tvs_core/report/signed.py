"""The report's first page, what the officer signs: what was released and what it was tested on, the columns it
protects and the response it must predict, the level and who chose it and why, the level's verdicts
(``choice.verdicts``: the card's, the manifest's and the ledger's, warnings included, in their order, each with what
to do about it and its severity in a word as well as a colour), the user's note, what must be seen before signing, and
a block for the officer's name, role, date and decision. Numbers and methods come after it."""

from __future__ import annotations

from ..choice.explain import officer_words
from ..choice.verdicts import Severity, Verdict
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
    pairs.append(("Sensitive columns", e(", ".join(c.sensitive)) + " — an attacker must not infer them"))
    pairs.append(("Response Y", e(c.config.response) + " — what the release must still predict"))
    return '<div class="box"><h3>What was released</h3>' + kv(pairs, raw=True) + "</div>"


def _level(c: ReportContext) -> str:
    """Who chose the level and why, as the manifest and the ledger record it (``Release.choice``)."""
    why = c.release.choice()["why"]
    s = c.settings
    weighed = (f"How the levels were weighed: privacy weight α = {s.alpha:g}; privacy measured by "
               f"{s.privacy.title}; utility: "
               f"{s.utility.describe(c.summary.metrics())}; {s.normalisation.phrase}.")
    note = (f"<p><b>The user's note:</b> {e(c.note)}</p>" if c.note else
            "<p><b>The user's note:</b> <i>none given</i></p>")
    override = (f"<p><b>Released despite a blocking guardrail, because:</b> {e(c.release.override_reason)}</p>"
                if c.release.override_reason else "")
    confirmation = getattr(c.release, "confirmation", None)
    if confirmation:
        override += f"<p><b>Released although its verdicts warn, because:</b> {e(confirmation)}</p>"
    weighed = (f'<p class="muted">{e(weighed)}</p>' if c.release.choice().get("chosen_by", "user") == "user"
               else "")  # a recommendation's why names the settings already
    return (f'<div class="box"><h3>The level and who chose it</h3><p><b>Level {c.level}</b>: {e(why)}.</p>'
            f'{weighed}{note}{override}</div>')


def _before_signing(c: ReportContext) -> str:
    """What must be seen before signing: a sweep still running, blocking guardrails, the pooled check."""
    job = c.view.job
    warn, block, ok = [], [g.message for g in c.release.checks if g.severity == Severity.BLOCK], []
    if job.status != JobStatus.DONE:
        warn.append(f"The sweep is {job.status} ({job.done} of {job.total} tasks): the attack games may not "
                    "have reported for every level; its privacy numbers are provisional.")
    officer = officer_words(c.card.verdicts)
    if officer:
        chosen = (" It was recommended as the best balance of privacy and utility at the chosen weights, which is not "
                  "a judgement that it is fit to release." if not getattr(c.release, "chosen_by_user", True) else "")
        warn.append(officer + chosen)
    pooled = c.release.pooled
    if pooled is not None:
        (warn if pooled.raised or pooled.warnings else ok).append(verdict(pooled))
        warn += pooled.warnings
    if not (warn or block or ok):
        return ""
    return "<h3>Before signing</h3>" + items(block, "block") + items(warn, "warn") + items(ok, "ok")


def verdict_box(v: Verdict) -> str:
    """A verdict in its coloured box, its severity in a word first: read in black and white too."""
    return f'<div class="{e(v.severity)}"><span class="severity">{e(v.severity.word)}</span>{e(v.text)}</div>'


DECISIONS = ("Release this file", "Release after the changes noted", "Do not release")


def _signature() -> str:
    """Where the officer signs: name, role, date, the decision and a line for the signature."""
    ticks = "".join(f'<span class="choice"><span class="tick"></span>{e(d)}</span>' for d in DECISIONS)
    return ('<div class="box sign"><h3>Decision</h3><table class="sign"><tr><td>Name</td><td class="line"></td>'
            '<td>Role</td><td class="line"></td></tr><tr><td>Date</td><td class="line"></td><td>Signature</td>'
            f'<td class="line"></td></tr></table><p class="decision">{ticks}</p>'
            '<p class="decision">Changes or conditions: <span class="line wide"></span></p></div>')


def render(c: ReportContext) -> str:
    """Page 1, alone on its page in print (the stylesheet breaks after it): a verdict first, the numbers after, the
    officer's decision last."""
    verdicts = "".join(verdict_box(v) for v in c.card.verdicts)
    return (f"<h1>Release report: {e(c.name)}</h1>"
            f'<p class="muted">Made {e(c.made)} by TVineSynth Studio {e(__version__)}. This page is what is signed; '
            "the numbers and methods behind it follow from page 2.</p>"
            + _released(c) + _level(c)
            + f"<h3>Verdicts at level {c.level}</h3>" + verdicts + _before_signing(c) + _signature())
