"""What the bench scripts that read their own arguments share: ``--help`` prints their usage instead of starting
a benchmark that may run for hours."""

from __future__ import annotations

import sys


def exit_with_usage_if_asked(usage: str) -> None:
    """Print ``usage`` (the script's docstring) and stop, when the command line asks for help."""
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        print(usage)
        raise SystemExit(0)
