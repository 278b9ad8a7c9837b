"""User text shown back to the user: file names, column names and notes are the user's, and may hold anything."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline are kept: they lay text out
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    """``text`` without control characters: a terminal's escape codes (colours, a cursor moved, a title set) or a
    carriage return that rewrites the line would otherwise reach the screen from a column name."""
    return _CONTROL.sub("", str(text))


def one_line(text: object) -> str:
    """``text`` without any control character, tab and newline included (a name on one line)."""
    return _ANY_CONTROL.sub("", str(text))
