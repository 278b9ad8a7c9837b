"""What every page shares: the session keys, the local store, the open project (every choice the user made, changed
one at a time) and its sweep.

Pages are thin views: they read the project, call tvs_core, and draw. Session keys live here, once (the sign-in's
in ``signin``). The other shared concerns are in ``pages/shared/``: widgets bound to the project's settings
(``widgets``), opening tables (``tables``), the library's cached answers (``library``), the scatter and its
selection (``scatter``), notices and severity marks (``notices``). Signing in is ``signin``'s concern, user text as
literal markdown ``plain``'s."""

from __future__ import annotations

import functools
import threading
from dataclasses import fields, replace

import streamlit as st

from pages import plain
from tvs_core import Schema
from tvs_core.choice import ChoiceSettings
from tvs_core.data.demo import DEFAULT_DEMO
from tvs_core.jobs import JobView
from tvs_core.projects import Project, Projects
from tvs_core.storage import Store, default_workspace

# session-state keys, one place
PROJECT = "project"  # the open Project
LEVEL_DRAWN = "level_drawn"  # the level the scatter's highlight was last drawn for
RELEASE = "release"  # the generated release (large: kept for the session only)
RECORDED = "recorded_release"  # (SHA-256, ledger id) of the release last recorded by a download
OPENED_UPLOAD, UPLOAD_NOTE = "opened_upload", "upload_note"  # the file in the uploader, and what reading it said
WIDGET = "w."  # prefix of the widget keys bound to project fields (``shared.widgets``)
NOTICE = "notice"  # one sentence for the next run of the page (a change the user should know the page made)


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


# -- the open project ---------------------------------------------------------------------------------
def project() -> Project:
    """This session's project; on a new session (a reload, a restart) the workspace's current one; on
    the very first start the clinical demo."""
    current = st.session_state.get(PROJECT)
    if current is None:
        from pages.shared.tables import open_demo  # it opens the project this module holds

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


def update_choice(**changes) -> Project:
    """Change the project's choice settings (its ``ChoiceSettings``: α, normalisation, privacy axis, utility mix) and
    save it."""
    with _CHANGES:
        return update(choice=replace(project().choice, **changes))


# the choice settings a widget binds by their own names (``bound("alpha")``), held by the project's ChoiceSettings
CHOICE = {f.name for f in fields(ChoiceSettings)}


def schema() -> Schema:
    return project().table_schema()


def job() -> JobView | None:
    """The project's sweep, if one was started or opened."""
    job_id = project().job_id
    return None if job_id is None or store().job(job_id) is None else JobView(store(), job_id)
