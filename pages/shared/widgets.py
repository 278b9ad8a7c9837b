"""Widgets bound to the project's settings: a widget never owns a choice. Its value is restored from the project
before it is drawn (``bound``: keys ``common.WIDGET + <field>``) and written back to the project, saved in the
workspace, when the user changes it (``keep``; a typed setting read back through ``PARSED``). So nothing is reset by
changing page, reloading or restarting the server."""

from __future__ import annotations

import functools
from enum import Enum

import streamlit as st

from pages import common, plain
from tvs_core.choice import Axis, UtilityMix
from tvs_core.data.margins import MarginKind
from tvs_core.data.missing import MissingPolicy
from tvs_core.evaluation.protocol import ProtocolName
from tvs_core.jobs.backends import Backend
from tvs_core.model.families import FamilySet
from tvs_core.model.ordering import Measure
from tvs_core.model.registry import BaselineName
from tvs_core.text import read_choice


def _owner(name: str):
    """The object that holds setting ``name``: the project, its sweep for ``sweep.FIELD``, its choice for one of the
    choice settings (``common.CHOICE``)."""
    if name.startswith("sweep."):
        return common.project().sweep
    return common.project().choice if name in common.CHOICE else common.project()


def bound(name: str) -> str:
    """The widget key of project setting ``name`` (a project field, or ``sweep.FIELD``), holding the project's value
    before the widget is drawn."""
    key = common.WIDGET + name
    value = getattr(_owner(name), name.removeprefix("sweep."))
    show(key, value.text if isinstance(value, (Axis, UtilityMix)) else shown(value))  # a widget holds what it shows
    return key


def show(key: str, value) -> None:
    """Put the project's value into a widget only when the widget says something else (a reload, another page,
    a change made elsewhere). Writing it on every run, while the user is still moving the widget, raced with the
    browser: after a burst of arrow keys on a loaded machine the slider showed 0.52 and the project kept 0.42."""
    if key not in st.session_state or st.session_state[key] != value:
        st.session_state[key] = value


def texts(choices) -> list:
    """A widget's options as plain text: Streamlit refuses an Enum member it did not offer (its enum coercion)."""
    return [shown(choice) for choice in choices]


def shown(value):
    """A setting as its widget holds it: an Enum member or a baseline's name as its text, a list of them as texts."""
    if isinstance(value, list):
        return [shown(item) for item in value]
    if isinstance(value, BaselineName):
        return str(value)
    return value.value if isinstance(value, Enum) else value


# the project settings a widget shows as text, read back typed here, at the edge (the choice's, ``common.CHOICE``,
# are read by their declarations when the project's ``ChoiceSettings`` is made)
PARSED = {"sweep.baselines": lambda names: [BaselineName.parse(name) for name in names],
          **{name: functools.partial(read_choice, kind) for name, kind in [
              ("backend", Backend), ("sweep.measure", Measure),
              ("sweep.margins", MarginKind), ("sweep.missing", MissingPolicy), ("sweep.preset", ProtocolName),
              ("sweep.families", FamilySet)]}}


@common.callback
def keep(name: str) -> None:
    """on_change: the widget's new value goes into the project (and the workspace)."""
    value = st.session_state[common.WIDGET + name]
    if name in PARSED:
        value = PARSED[name](value)
    if name.startswith("sweep."):
        common.update_sweep(**{name.removeprefix("sweep."): value})
        return
    if name in common.CHOICE:
        common.update_choice(**{name: value})
        return
    common.update(**{name: value})


def whole_number_field(label: str, name: str, low: int, high: int | None, what: str, default: int | None = None,
                       where=st, **kwargs) -> int | None:
    """A text field for a whole-number setting (``name`` as in ``bound``): the text stays as typed, a valid number
    goes into the project, and anything else ("1e9", "12.7", out of range) is refused in words under the field and
    returns None, so the page can block the action. Streamlit's number field rounded or clipped what was typed."""
    from tvs_core.errors import DataError
    from tvs_core.text import whole_number

    key = f"{common.WIDGET}{name}#typed"
    stored = getattr(_owner(name), name.removeprefix("sweep."))
    shown = default if stored is None else stored
    typed = st.session_state.get(key)
    try:
        current = None if typed is None else whole_number(typed, low, high, what)
    except DataError:
        current = "refused"
    if typed is None or (current != "refused" and current != shown):  # first drawn, or changed elsewhere
        st.session_state[key] = "" if shown is None else str(shown)
    where.text_input(label, key=key, on_change=_keep_whole_number, args=(key, name, low, high, what), **kwargs)
    try:
        return whole_number(st.session_state[key], low, high, what)
    except DataError as exc:
        where.error(plain.md(exc))
        return None


@common.callback
def _keep_whole_number(key: str, name: str, low: int, high: int | None, what: str) -> None:
    from tvs_core.errors import DataError
    from tvs_core.text import whole_number

    try:
        value = whole_number(st.session_state[key], low, high, what)
    except DataError:
        return  # refused under the field; the project keeps its last valid value
    if name.startswith("sweep."):
        common.update_sweep(**{name.removeprefix("sweep."): value})
    else:
        common.update(**{name: value})


@common.callback
def set_response(key: str) -> None:
    """on_change of a response selectbox: the response cannot also be sensitive, and the user is told so."""
    value = st.session_state[key]
    current = common.project()
    sensitive = [s for s in current.sweep.sensitive if s != value]
    if len(sensitive) < len(current.sweep.sensitive):
        st.session_state[common.NOTICE] = (f"{plain.md(value)} is now the response Y, so it is no longer a sensitive "
                                    "column" + (f"; the sensitive columns are {', '.join(map(plain.md, sensitive))}."
                                                if sensitive else
                                       "; choose the sensitive columns again."))
    common.update_sweep(response=value, sensitive=sensitive)
