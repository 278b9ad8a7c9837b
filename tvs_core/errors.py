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


class ChoiceRefused(DataError):
    """A value that is none of a setting's choices, in the one wording every choice has (``text.read_choice``): the
    setting by its screen name, the value, and the choices."""

    def __init__(self, setting: str, value: str, choices: list[str]):
        self.value, self.choices = value, list(choices)
        super().__init__(f"The setting '{setting}' cannot be '{value}'.", fix=f"Choose one of: {', '.join(choices)}.")

    def named(self, setting: str) -> ChoiceRefused:
        """The same refusal under the name ``setting`` has where it was set (e.g. a sweep's, ``SETTING_NAMES``)."""
        return ChoiceRefused(setting, self.value, self.choices)


class DataErrors(DataError):
    """Several independent problems found in one validation pass."""

    def __init__(self, problems: list[DataError]):
        self.problems = problems
        super().__init__(
            "; ".join(str(p) for p in problems),
            column=problems[0].column if len(problems) == 1 else None,
        )


# what a failed write says when it failed for want of room (errno, in a sentence)
_NO_ROOM = {28: "the disk is full", 122: "the disk quota is used up", 27: "a file-size limit was reached"}
_SQLITE_NO_ROOM = ("SQLITE_FULL", "SQLITE_IOERR")  # SQLite reports a file-size limit as an I/O error


def out_of_room(exc: BaseException, what: str = "the workspace") -> TVSError | None:
    """A write that failed for want of room — a full disk (ENOSPC), a used-up quota (EDQUOT), a file-size limit
    (EFBIG; SQLite reports it as an I/O error) — as one sentence naming it; None for any other failure, or for an
    exception that carries no such cause. Nothing is called damaged that is not: the files were not changed."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        reason = _NO_ROOM.get(getattr(exc, "errno", None)) if isinstance(exc, OSError) else None
        name = getattr(exc, "sqlite_errorname", "") or ""
        if reason is None and name.startswith(_SQLITE_NO_ROOM):
            reason = ("the disk is full" if name == "SQLITE_FULL" else
                      "a write failed (the disk may be full, a file-size limit reached, or the disk failing)")
        if reason is not None:
            return TVSError(f"Could not write to {what}: {reason}. Nothing already kept was changed or lost. Free some "
                            "space on the disk (or raise the file-size limit, ulimit -f), then do it again.")
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return None
