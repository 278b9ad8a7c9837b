"""Errors a user can act on: each names what is wrong, where, and what to do."""

from __future__ import annotations


class TVSError(Exception):
    """Base class for problems caused by the user's input, not by a bug."""


class DataError(TVSError):
    """A table, schema or configuration that cannot be modelled as given.

    ``column`` names the column concerned (None for table-wide problems) so the UI can show the
    message next to it; ``fix`` says what the user can do.
    """

    def __init__(self, message: str, column: str | None = None, fix: str | None = None):
        self.message = message
        self.column = column
        self.fix = fix
        text = message if fix is None else f"{message} {fix}"
        super().__init__(text)


class DataErrors(DataError):
    """Several independent problems found in one validation pass."""

    def __init__(self, problems: list[DataError]):
        self.problems = problems
        super().__init__(
            "; ".join(str(p) for p in problems),
            column=problems[0].column if len(problems) == 1 else None,
        )
