"""Reading an uploaded file on a page: what is being read, for how long, and a Cancel that ends it.

A table is parsed in a child process (``tvs_core.data.reader``) that may take minutes on a large file; the page says
so while it waits and draws a Cancel button. A click on it makes Streamlit stop this run at the next element the page
draws (the waiting line, redrawn every half second), which ends the child with the read."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import plain
from tvs_core import read_table

CANCELLED = "read_cancelled"  # the upload whose reading the user cancelled: it is not read again on its own
SHOW_AFTER = 1.0  # seconds: a read that ends sooner shows nothing


def read_upload(data: bytes | memoryview, name: str, key: str) -> pd.DataFrame | None:
    """The table in an uploaded file, read as ``read_table`` reads it (DataError raised); None when the user
    cancelled this very upload (``key``: the upload's own id, so the file is not read again until the user chooses
    it again)."""
    if st.session_state.get(CANCELLED) == key:
        st.info(f"Reading {plain.md(name)} was cancelled. Choose the file again to read it.")
        return None
    line = st.empty()
    cancel = st.empty()
    cancel_drawn: list[bool] = []

    def waiting(seconds: float) -> None:
        if seconds < SHOW_AFTER:
            return
        line.info(f"Reading {plain.md(name)}… {seconds:.0f} s so far. A large file takes a while; it is read within "
                  "the memory and time a read may use, and refused in words if it needs more.")
        if not cancel_drawn:
            cancel.button("Cancel reading", key=f"cancel.{key}", on_click=_cancelled, args=(key,))
            cancel_drawn.append(True)

    try:
        return read_table(data, name=name, waiting=waiting)
    finally:
        line.empty()
        cancel.empty()


def _cancelled(key: str) -> None:
    st.session_state[CANCELLED] = key
