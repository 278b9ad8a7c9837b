"""What every page shares: the open project (every choice the user made), the local store, the job.

Pages are thin views: they read the project, call tvs_core, and draw. A widget never owns a choice:
its value is restored from the project before it is drawn (``bound``) and written back to the
project, which is saved in the workspace, when the user changes it (``keep``). So nothing is reset by
changing page, reloading or restarting the server. Session keys live here, once (the sign-in's in ``signin``).
Signing in is ``signin``'s concern, user text as literal markdown ``plain``'s."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from enum import Enum

import pandas as pd
import streamlit as st

from pages import plain
from tvs_core import Schema, load_demo
from tvs_core.choice import Axis, ChoiceSettings, Normalisation, UtilityMix
from tvs_core.data.demo import DEFAULT_DEMO, DEMOS
from tvs_core.data.margins import MarginKind
from tvs_core.data.missing import MissingPolicy
from tvs_core.evaluation.protocol import ProtocolName
from tvs_core.jobs import JobView
from tvs_core.jobs.backends import Backend
from tvs_core.model.families import FamilySet
from tvs_core.model.ordering import Measure
from tvs_core.model.registry import BaselineName
from tvs_core.projects import Project, Projects
from tvs_core.storage import Store, default_workspace
from tvs_core.text import read_choice

# session-state keys, one place
PROJECT = "project"  # the open Project
LEVEL_DRAWN = "level_drawn"  # the level the scatter's highlight was last drawn for
RELEASE = "release"  # the generated release (large: kept for the session only)
RECORDED = "recorded_release"  # (SHA-256, ledger id) of the release last recorded by a download
OPENED_UPLOAD, UPLOAD_NOTE = "opened_upload", "upload_note"  # the file in the uploader, and what reading it said
WIDGET = "w."  # prefix of the widget keys bound to project fields


def under_navigation() -> None:
    """First line of every page. After a server restart, a reload of /choose reaches the page before app.py has
    declared the navigation, and Streamlit then falls back to its old multipage mode (a raw list of the files in
    pages/, common.py included, and no sidebar of ours). Then app.py runs here, in this same run (a rerun would
    drop the click that started it): its navigation opens this page, and this first pass stops."""
    import runpy
    from pathlib import Path

    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(Path(__file__).resolve().parent.parent / "app.py"), run_name="__main__")
        st.stop()


def unexpected_error() -> None:
    """What a page shows for a bug: one sentence, nothing lost, the traceback in the workspace's errors.log."""
    import sys

    from tvs_core.errors import out_of_room

    kind, exc = sys.exc_info()[:2]
    full = out_of_room(exc) if exc is not None else None
    if full is not None:  # a full disk or a file-size limit: named as such, nothing called damaged or lost
        st.error(plain.md(full))
        return
    log = store().space.log_unexpected("the dashboard")
    where = f"where it happened is in {log}" if log else "where it happened could not be written to the workspace"
    st.error(f"Something unexpected went wrong ({kind.__name__}; its message is not shown, as it may quote your "
             f"data). Everything you chose is saved; {plain.md(where)}. Reload the page to go on, and send that file "
             "to the team if it happens again.")


@st.cache_resource
def store() -> Store:
    return Store(default_workspace())


def projects() -> Projects:
    return Projects(store())


@st.cache_resource
def resume_orphaned_jobs() -> list[str]:
    """Once per server start: jobs whose worker died (crash, reboot) continue where they stopped."""
    from tvs_core.jobs.process import resume_orphans

    return resume_orphans(store())


@st.cache_data(show_spinner=False)
def demo_table(name: str) -> pd.DataFrame:
    return load_demo(name)


TABLES_HELD = 2  # the open project's table and the one before it


@st.cache_resource
def _tables() -> tuple[OrderedDict, threading.Lock]:
    return OrderedDict(), threading.Lock()


def _table(fingerprint: str, workspace: str, opened: pd.DataFrame | None = None) -> pd.DataFrame:
    """A project's table, held once by the server and handed to every page as that one object: st.cache_data kept a
    pickled copy and gave each call another, and a table just read from an upload was decoded again from the
    workspace (a table of 400 MB grew the server by 1.6 GB, issue 54). ``opened``: the table just read, held as it
    is. Pages never change it in place (pandas' copy-on-write keeps what they derive from it apart)."""
    held, lock = _tables()
    with lock:
        key = (fingerprint, workspace)
        if opened is not None:
            held[key] = opened
        elif key not in held:
            held[key] = projects().table(fingerprint)
        held.move_to_end(key)
        while len(held) > TABLES_HELD:
            held.popitem(last=False)
        return held[key]


# -- the open project ---------------------------------------------------------------------------------
def project() -> Project:
    """This session's project; on a new session (a reload, a restart) the workspace's current one; on
    the very first start the clinical demo."""
    current = st.session_state.get(PROJECT)
    if current is None:
        current = projects().current() or open_demo(DEFAULT_DEMO)
        st.session_state[PROJECT] = current
    return current


_CHANGES = threading.RLock()  # one change of the project at a time, in whatever script thread it runs


def callback(function):
    """A widget's callback, run under the one lock that every change of the project takes. Streamlit's fast
    reruns start a new script thread before the old one has stopped, so two callbacks of one session can run at
    once: after a burst of arrow keys on a loaded machine an older thread saved 0.38 after a newer one saved
    0.41, and the slider said 0.41 while the project and the sweep kept 0.38. Under the lock, each callback reads
    the widget's newest value, changes the project and saves it before the next one starts."""

    @functools.wraps(function)
    def locked(*args, **kwargs):
        with _CHANGES:
            return function(*args, **kwargs)

    return locked


def update(**changes) -> Project:
    """Change the project and save it at once."""
    with _CHANGES:
        current = project()
        for name, value in changes.items():
            setattr(current, name, value)
        projects().save(current)
        return current


def update_sweep(**changes) -> Project:
    """Change the project's sweep settings (its ``SweepConfig``) and save it. The sweep shown stays shown, running
    or finished: the Sweep page says how the settings now differ from it."""
    with _CHANGES:
        current = project()
        for name, value in changes.items():
            setattr(current.sweep, name, value)
        return update()


NOTICE = "notice"  # one sentence for the next run of the page (a change the user should know the page made)


@callback
def set_response(key: str) -> None:
    """on_change of a response selectbox: the response cannot also be sensitive, and the user is told so."""
    value = st.session_state[key]
    current = project()
    sensitive = [s for s in current.sweep.sensitive if s != value]
    if len(sensitive) < len(current.sweep.sensitive):
        st.session_state[NOTICE] = (f"{value} is now the response Y, so it is no longer a sensitive column"
                                    + (f"; the sensitive columns are {', '.join(sensitive)}." if sensitive else
                                       "; choose the sensitive columns again."))
    update_sweep(response=value, sensitive=sensitive)


def show_notice() -> None:
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.info(notice)


def open_project(project_id: str) -> None:
    opened = projects().open(project_id)
    if opened is not None:
        st.session_state[PROJECT] = opened
        st.session_state.pop(RELEASE, None)


def _open_table(table: pd.DataFrame, name: str, source: str, response: str | None = None, sensitive=()) -> Project:
    """The table's latest project from the same source (its choices intact), or a new one."""
    from tvs_core.data.fingerprint import fingerprint_table

    fingerprint = fingerprint_table(table)
    _table(fingerprint, str(store().workspace), opened=table)  # the table just read is the one the pages show
    earlier = [p for p in projects().all() if p.fingerprint == fingerprint and p.source == source]
    opened = projects().open(earlier[0].id) if earlier else projects().create(table, name, source, response,
                                                                                 sensitive)
    st.session_state[PROJECT] = opened
    st.session_state.pop(RELEASE, None)
    return opened


def open_demo(name: str) -> Project:
    demo = DEMOS[name]
    return _open_table(demo_table(name), demo.title, f"demo:{name}", demo.response, demo.sensitive)


def open_upload(table: pd.DataFrame, file_name: str) -> Project:
    from tvs_core.data.schema import infer_schema, suggest_response

    opened = _open_table(table, file_name, f"upload:{file_name}")
    if opened.sweep.response is None:  # a fresh upload: suggest the response the user most likely means
        suggestion = suggest_response(infer_schema(table))
        if suggestion is not None:
            opened.sweep.response = suggestion
            update(schema=opened.table_schema().to_dict())
    return opened


@st.cache_data(show_spinner="Computing associations…", max_entries=16)
def _associations(fingerprint: str, schema_dict: dict, missing: str, measure: str):
    from tvs_core.evaluation.preview import table_dependence

    return table_dependence(projects().table(fingerprint), Schema.from_dict(schema_dict), missing, measure)


def associations():
    """(|association| matrix in the chosen measure, normal-scores correlation) of the project's table."""
    current = project()
    return _associations(current.fingerprint, schema().to_dict(), current.sweep.missing, current.sweep.measure)


def threshold() -> float:
    """The project's ρ*, or the paper's Pearson 0.6 expressed in its measure."""
    from tvs_core.model.ordering import default_rho_star

    current = project()
    return float(current.rho_star) if current.rho_star is not None else default_rho_star(current.sweep.measure)


def order():
    """Algorithm 1 on the project's choices (raises DataError when they cannot be ordered); None until
    the response and a sensitive column are chosen."""
    from tvs_core.model.ordering import algorithm1

    current = project()
    sensitive = [s for s in current.sweep.sensitive if s != current.sweep.response]
    if current.sweep.response is None or not sensitive:
        return None
    thresholds = {s: current.rho_overrides.get(s, threshold()) for s in sensitive}
    return algorithm1(associations()[0], current.sweep.response, sensitive, thresholds, current.sweep.measure)


@st.cache_data(show_spinner=False, max_entries=16)
def _problems(fingerprint: str, schema_dict: dict, measure: str, holdout: str | None) -> list[str]:
    from tvs_core.jobs.submission import start_problems

    return start_problems(projects().table(fingerprint), Schema.from_dict(schema_dict), measure,
                          None if holdout is None else projects().table(holdout, "holdout"))


def problems() -> list[str]:
    """What stops the project's table from being modelled with its roles (validation.validate), as sentences:
    the later pages refuse to compute on such a table and say why, instead of failing inside the numbers."""
    current = project()
    return _problems(current.fingerprint, schema().to_dict(), current.sweep.measure, current.holdout)


def table() -> pd.DataFrame:
    current = project()
    return _table(current.fingerprint, str(store().workspace))


@st.cache_resource(show_spinner=False, max_entries=2)
def _holdout(fingerprint: str, workspace: str) -> pd.DataFrame:
    return projects().table(fingerprint, "holdout")


def holdout_table() -> pd.DataFrame | None:
    """The hold-out file the user gave for this project (None: a random split of the table)."""
    current = project()
    return None if current.holdout is None else _holdout(current.holdout, str(store().workspace))


def schema() -> Schema:
    return project().table_schema()


# -- widgets bound to project fields --------------------------------------------------------------------
def _owner(name: str):
    """The object that holds setting ``name``: the project, or its sweep for ``sweep.FIELD``."""
    return project().sweep if name.startswith("sweep.") else project()


def bound(name: str) -> str:
    """The widget key of project setting ``name`` (a project field, or ``sweep.FIELD``), holding the project's value
    before the widget is drawn."""
    key = WIDGET + name
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


# the project settings a widget shows as text, read back typed here, at the edge
PARSED = {"privacy": Axis.parse, "sweep.baselines": lambda names: [BaselineName.parse(name) for name in names],
          **{name: functools.partial(read_choice, kind) for name, kind in [
              ("normalisation", Normalisation), ("backend", Backend), ("sweep.measure", Measure),
              ("sweep.margins", MarginKind), ("sweep.missing", MissingPolicy), ("sweep.preset", ProtocolName),
              ("sweep.families", FamilySet)]}}


@callback
def keep(name: str) -> None:
    """on_change: the widget's new value goes into the project (and the workspace)."""
    value = st.session_state[WIDGET + name]
    if name in PARSED:
        value = PARSED[name](value)
    if name.startswith("sweep."):
        update_sweep(**{name.removeprefix("sweep."): value})
        return
    update(**{name: value})


def whole_number_field(label: str, name: str, low: int, high: int | None, what: str, default: int | None = None,
                       where=st, **kwargs) -> int | None:
    """A text field for a whole-number setting (``name`` as in ``bound``): the text stays as typed, a valid number
    goes into the project, and anything else ("1e9", "12.7", out of range) is refused in words under the field and
    returns None, so the page can block the action. Streamlit's number field rounded or clipped what was typed."""
    from tvs_core.errors import DataError
    from tvs_core.text import whole_number

    key = f"{WIDGET}{name}#typed"
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


@callback
def _keep_whole_number(key: str, name: str, low: int, high: int | None, what: str) -> None:
    from tvs_core.errors import DataError
    from tvs_core.text import whole_number

    try:
        value = whole_number(st.session_state[key], low, high, what)
    except DataError:
        return  # refused under the field; the project keeps its last valid value
    if name.startswith("sweep."):
        update_sweep(**{name.removeprefix("sweep."): value})
    else:
        update(**{name: value})


def select_level_from(key: str) -> None:
    """on_select callback of a privacy-utility scatter: the clicked level goes into the project, where
    it survives figure updates (a plotly chart's own selection resets when the figure changes)."""
    state = st.session_state.get(key)
    for point in (state.selection.points if state else []):
        level = point.get("customdata")
        level = level[0] if isinstance(level, list) else level
        if level is not None:
            update(selected_level=int(level))


def level_scatter(view: JobView, summary, selection, selected: int | None, utility: Axis | None = None):
    """The privacy-utility scatter of the shown sweep as the Sweep and Choose pages both draw it, so that at any
    moment they show the same point for a level: ``summary`` drawn (the Sweep page's keeps a level's first look
    until its own numbers report), ``selection`` made from the sweep's own numbers only (its scaling decides each
    level's column); the project's privacy axis and ``utility`` (default: the Choose page's choice among the utility
    mix's parts); each level's colour from the sweep's levels; the levels on their first numbers marked as such."""
    from tvs_core import figures

    settings, config = ChoiceSettings.of(project()), view.config
    parts = {axis.metric.name: axis for axis, _ in settings.utility.axes(summary.metrics())}
    utility = utility or parts.get(project().scatter_utility) or next(iter(parts.values()), None)
    return figures.privacy_utility_scatter(summary, settings.privacy, config.sensitive, selected, view.levels,
                                           utility=utility, externals=list(config.externals or {}),
                                           selection=selection, sets_scored=view.sets_scored())


@st.cache_data(show_spinner=False, max_entries=16)
def _recommended(job_id: str, done: int, alpha: float, normalisation: str, privacy: str, utility: str,
                 status: str = "") -> int | None:
    view = JobView(store(), job_id)
    settings = ChoiceSettings.parse(alpha, normalisation, privacy, utility)
    selection = settings.select(view.summary(), view.config.sensitive, view.complete_levels())
    return None if selection is None else selection.best_level


def recommended_level() -> int | None:
    """The level the Choose page recommends for the shown sweep at the project's α, normalisation, privacy axis and
    utility mix (None before any level has both a privacy and a utility value)."""
    view, current = job(), project()
    if view is None:
        return None
    return _recommended(view.id, int(view.job.done), float(current.alpha), current.normalisation,
                        current.privacy.text, current.utility.text, str(view.job.status))


SEVERITY_MARKS = {"ok": ("green", "check_circle"), "info": ("blue", "info"), "warn": ("orange", "warning"),
                  "block": ("red", "block")}


def severity_mark(severity) -> str:
    """A verdict's severity as markdown: a Material icon (Streamlit's own font: no emoji font needed), its colour and
    its word, so that it reads in black and white and on any machine."""
    from tvs_core.choice.verdicts import Severity

    colour, icon = SEVERITY_MARKS[str(severity)]
    return f":{colour}[:material/{icon}: **{Severity(severity).word}**]"


def job() -> JobView | None:
    """The project's sweep, if one was started or opened."""
    job_id = project().job_id
    return None if job_id is None or store().job(job_id) is None else JobView(store(), job_id)
