"""The release report: one self-contained HTML file a privacy officer can read, print on A4 and sign.

Page 1 is what is signed (``signed``): what was released, the level, who chose it and why, one plain verdict per
question, the user's note. The numbers and methods follow, one section each (``evidence``, ``provenance``), in the
order of ``SECTIONS``, and last the per-column details they summarise (``appendix``); each section is one renderer
over the ``ReportContext`` built once from the release. Every number and sentence comes from the code that computes
it elsewhere (the selection and the card in ``choice/``, the preview, the catalogue's labels, ``figures/``, the
guardrails, the ledger and the pooled check in ``release/``); nothing here computes one. plotly.js is embedded once,
so the file opens without a network.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from plotly.offline import get_plotlyjs

from ..jobs import JobView
from ..release.export import write_file
from ..release.release import Release
from . import appendix, evidence, provenance, signed
from .context import ReportContext
from .html import CSS, e


class Section(NamedTuple):
    key: str  # the HTML id
    title: str
    render: Callable[[ReportContext], str]


SECTIONS: tuple[Section, ...] = (
    Section("summary", "What is signed", signed.render),
    Section("choice", "Why this level", evidence.choice),
    Section("guardrails", "Guardrails", provenance.guardrails),
    Section("releases", "Releases of this table", provenance.releases),
    Section("metrics", "Every metric at every level", evidence.metrics),
    Section("attacks", "Attack games and the GDPR criteria", evidence.attacks),
    Section("fidelity", "Fidelity: real against synthetic", evidence.fidelity),
    Section("data", "The data: fingerprint and schema", provenance.data),
    Section("model", "Roles, ρ* and the Algorithm-1 order", provenance.model),
    Section("preview", "Risk preview and what the level cuts", provenance.preview),
    Section("versions", "Protocol and versions", provenance.versions),
    Section("appendix", "Appendix: every column", appendix.render),
)


def build_report(release: Release, reason: str | None = None, exported: bool = True) -> str:
    """The report of a release of a stored sweep (``Release.from_sweep``) as one HTML page. It renders what the
    release, its sweep and its choice hold and computes nothing of its own (``release.chosen_by_user``: the user
    chose the level, else it is the recommendation, and the report says so); ``exported``: the release's rows left
    as a file (else they were drawn only for the figures and checks); ``reason``: the user's note."""
    context = ReportContext.of(release, reason, exported)
    nav = "".join(f'<a href="#{s.key}">{e(s.title)}</a>' for s in SECTIONS)
    body = "".join(f'<section id="{s.key}">' + ("" if s.key == "summary" else f"<h2>{e(s.title)}</h2>")
                   + s.render(context) + "</section>" for s in SECTIONS)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Release report — {e(context.name)}</title><meta name=\"viewport\" content=\"width=device-width\">"
            f"<style>{CSS}</style><script type=\"text/javascript\">{get_plotlyjs()}</script></head>"
            f"<body><nav>{nav}</nav><main>{body}</main></body></html>")


def table_name(view: JobView) -> str | None:
    """What the user calls the sweep's table: the name of the project that opened it (a demo's title or the
    uploaded file's name), None when no project holds it (a sweep started from the command line)."""
    from ..projects import Projects

    fingerprint = view.table_fingerprint
    for project in Projects(view.store).all():
        if project.fingerprint == fingerprint:
            return project.name
    return None


def write_report(text: str, out: str | Path, inputs: tuple = ()) -> Path:
    """Never over one of the inputs, never half-written (``write_file``)."""
    return write_file(text.encode("utf-8"), out, inputs)


__all__ = ["SECTIONS", "ReportContext", "Section", "build_report", "table_name", "write_report"]
