"""Opening a table: a demo, an upload or an earlier project, each held once by the server (``held_table``), and the
open project's table and hold-out file."""

from __future__ import annotations

import threading
from collections import OrderedDict

import pandas as pd
import streamlit as st

from pages import common
from tvs_core import load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.projects import Project


@st.cache_data(show_spinner=False)
def demo_table(name: str) -> pd.DataFrame:
    return load_demo(name)


TABLES_HELD = 2  # the open project's table and the one before it


@st.cache_resource
def _tables() -> tuple[OrderedDict, threading.Lock]:
    return OrderedDict(), threading.Lock()


def held_table(fingerprint: str, workspace: str, opened: pd.DataFrame | None = None) -> pd.DataFrame:
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
            held[key] = common.projects().table(fingerprint)
        held.move_to_end(key)
        while len(held) > TABLES_HELD:
            held.popitem(last=False)
        return held[key]


def open_project(project_id: str) -> None:
    opened = common.projects().open(project_id)
    if opened is not None:
        st.session_state[common.PROJECT] = opened
        st.session_state.pop(common.RELEASE, None)


def _open_table(table: pd.DataFrame, name: str, source: str, response: str | None = None, sensitive=()) -> Project:
    """The table's latest project from the same source (its choices intact), or a new one."""
    from tvs_core.data.fingerprint import fingerprint_table

    fingerprint = fingerprint_table(table)
    held_table(fingerprint, str(common.store().workspace), opened=table)  # the table just read: the one pages show
    projects = common.projects()
    earlier = [p for p in projects.all() if p.fingerprint == fingerprint and p.source == source]
    opened = projects.open(earlier[0].id) if earlier else projects.create(table, name, source, response, sensitive)
    st.session_state[common.PROJECT] = opened
    st.session_state.pop(common.RELEASE, None)
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
            common.update(schema=opened.table_schema().to_dict())
    return opened


def table() -> pd.DataFrame:
    current = common.project()
    return held_table(current.fingerprint, str(common.store().workspace))


@st.cache_resource(show_spinner=False, max_entries=2)
def _holdout(fingerprint: str, workspace: str) -> pd.DataFrame:
    return common.projects().table(fingerprint, "holdout")


def holdout_table() -> pd.DataFrame | None:
    """The hold-out file the user gave for this project (None: a random split of the table)."""
    current = common.project()
    return None if current.holdout is None else _holdout(current.holdout, str(common.store().workspace))
