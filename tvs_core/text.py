"""User text shown back to the user: file names, column names and notes are the user's, and may hold anything."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline are kept: they lay text out
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_WHOLE = re.compile(r"^[+-]?[0-9]+$")


def printable(text: object) -> str:
    """``text`` without control characters: a terminal's escape codes (colours, a cursor moved, a title set) or a
    carriage return that rewrites the line would otherwise reach the screen from a column name."""
    return _CONTROL.sub("", str(text))


def percent(share: float) -> str:
    """A share as every screen, card and manifest writes it: "50 %", with the space the SI and ISO 80000 put
    before the sign (one way, so that the card's verdicts and its costs do not disagree)."""
    return f"{100 * float(share):.0f} %"


def way_words(share: float, start: str, end: str) -> str:
    """Where a scaled value lies between its two anchors, as the card and the verdicts say it: "50 % of the way from
    'nothing kept' to 'as the real data'"; outside them, on which side and how the score counts it — never "-16 % of
    the way"."""
    if share < 0:
        return f"below {start} (counted as 0)"
    if share > 1:
        return f"beyond {end} (counted as 1)"
    return f"{percent(share)} of the way from {start} to {end}"


def decimal(value: float, digits: int = 2) -> str:
    """``value`` to ``digits`` decimals, never "-0.00": a value that rounds to zero is written as zero."""
    text = f"{float(value):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def signed(value: float, digits: int = 2) -> str:
    """``value`` with its sign, "+0.46" or "-0.12", and a value that rounds to zero as "0.00" (never "-0.00")."""
    text = decimal(value, digits)
    return text if float(text) == 0 or text.startswith("-") else "+" + text


def first_capital(text: str) -> str:
    """``text`` with its first letter a capital and the rest as it is: "Anonymisation (GDPR)", where ``capitalize``
    would write "Anonymisation (gdpr)"."""
    return text[:1].upper() + text[1:]


def one_line(text: object) -> str:
    """``text`` without any control character, tab and newline included (a name on one line)."""
    return _ANY_CONTROL.sub("", str(text))


def whole_number(text: object, low: int, high: int | None = None, what: str = "the value") -> int:
    """A whole number as typed, or a ``DataError`` that says why not: "1e9" or "12.7" is refused, never read as 1
    or 12, and a number outside [low, high] is refused, never clipped."""
    from .errors import DataError

    typed = str(text).strip()
    upper = "" if high is None else f" to {high}"
    if not _WHOLE.match(typed):
        raise DataError(f"'{one_line(text)}' is not a whole number.", fix=f"Give {what} as a whole number from "
                        f"{low}{upper}, digits only.")
    digits = typed.lstrip("+-").lstrip("0")
    if len(digits) > 100:  # no setting needs more; int() itself refuses past 4 300 digits with a bare ValueError
        raise DataError(f"'{one_line(typed[:20])}…' ({len(digits)} digits) is out of range for {what}.",
                        fix=f"Give a whole number from {low}{upper}.")
    value = int(typed)
    if value < low or (high is not None and value > high):
        raise DataError(f"{value} is out of range for {what}.", fix=f"Give a whole number from {low}{upper}.")
    return value


def choice_named(screen_name: str):
    """Class decorator of an Enum of the project's choices: the name its setting has on the screens, which the
    refusal of ``read_choice`` (and the sweep's settings, ``jobs.config.SETTING_NAMES``) use."""
    def named(kind):
        kind.screen_name = screen_name
        return kind
    return named


def read_choice(kind, value, setting: str | None = None):
    """``value`` as a member of the Enum ``kind``: the member itself, or its text as it comes in from outside the
    library (a command line, a widget, a stored setting, a saved model). Anything else is refused in the one wording
    every choice has: the setting by its screen name (``setting``, else the one ``choice_named`` gave ``kind``), the
    value, and the choices."""
    from .errors import ChoiceRefused

    if isinstance(value, kind):
        return value
    try:
        return kind(value)
    except (ValueError, TypeError):
        raise ChoiceRefused(setting or getattr(kind, "screen_name", kind.__name__), one_line(value),
                            [member.value for member in kind]) from None


# -- a setting's text as typed (a command-line flag): each refuses by naming the value and what to write -------------
def unit_number(text: str) -> float:
    """A number from 0 to 1, as typed."""
    import math

    from .errors import DataError

    try:
        value = float(text)
    except ValueError:
        raise DataError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise DataError(f"{text} is out of range: give a number from 0 to 1")
    return value


def comma_separated(text: str, entry: str = "name", example: str = "names like A,B") -> list[str]:
    """Comma-separated entries, each stripped; an empty one is refused."""
    from .errors import DataError

    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        raise DataError(f"{text!r} has an empty {entry}: write {example}")
    return parts


def level_list(text: str) -> list[int]:
    """Comma-separated truncation levels, 1 or more, sorted, each once."""
    return sorted({whole_number(part, 1) for part in comma_separated(text, "entry", "levels like 1,5,10")})
