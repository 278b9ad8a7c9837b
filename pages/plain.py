"""User text shown as text: a file, column or project name, a note, is literal in the pages' markdown."""

from __future__ import annotations

import re

from tvs_core.text import one_line


def md(text: object) -> str:
    """User text (a file, column or project name, a note) as literal text in markdown, so a name such as
    ``![x](http://…)`` is shown, never drawn or fetched; on one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text))


# what makes markup in Streamlit's markdown: links and images ([ ]), HTML and autolinks (< >), code, emphasis,
# headings, tables, strike-through, LaTeX ($) and the backslash itself; each is escaped with a backslash
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")
