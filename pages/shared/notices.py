"""What a page tells the user besides its content: the notice a change left for the next run, and a verdict's
severity as a mark."""

from __future__ import annotations

import streamlit as st

from pages import common


def show_notice() -> None:
    notice = st.session_state.pop(common.NOTICE, None)
    if notice:
        st.info(notice)


SEVERITY_MARKS = {"ok": ("green", "check_circle"), "info": ("blue", "info"), "warn": ("orange", "warning"),
                  "block": ("red", "block")}


def severity_mark(severity) -> str:
    """A verdict's severity as markdown: a Material icon (Streamlit's own font: no emoji font needed), its colour and
    its word, so that it reads in black and white and on any machine."""
    from tvs_core.choice.verdicts import Severity

    colour, icon = SEVERITY_MARKS[str(severity)]
    return f":{colour}[:material/{icon}: **{Severity(severity).word}**]"
