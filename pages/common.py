"""What every page shares: the session's dataset, schema and job, and the local store.

Pages are thin views: they read this state, call tvs_core, and draw. Keys live here, once."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tvs_core import Schema, infer_schema, load_demo
from tvs_core.data.demo import DEFAULT_DEMO, DEMOS
from tvs_core.jobs import JobView, Store, default_workspace

# session-state keys, one place
TABLE, NAME, SCHEMA = "table", "dataset_name", "schema"
MISSING, HOLDOUT = "missing_policy", "holdout_fraction"
RESPONSE, SENSITIVE, MEASURE, RHO, RHO_OVERRIDES = "response", "sensitive", "measure", "rho_star", "rho_overrides"
RHO_MEASURE, ORDER = "rho_measure", "order_result"
JOB, LEVEL, LEVEL_DRAWN = "job_id", "selected_level", "level_drawn"
ALPHA, NORMALISATION, PRIVACY = "alpha", "normalisation", "privacy_metric"
OPENED_DEMO, OPENED_UPLOAD, DEMO_CHOICE = "opened_demo", "opened_upload", "demo_choice"
RELEASE, MANIFEST = "release", "manifest"
PROTOCOL_OVERRIDES = "protocol_overrides"  # tests: smaller games
INLINE_WORKER = "inline_worker"  # tests: run the sweep in the page's process


@st.cache_resource
def store() -> Store:
    return Store(default_workspace())


@st.cache_resource
def resume_orphaned_jobs() -> list[str]:
    """Once per server start: jobs whose worker died (crash, reboot) continue where they stopped."""
    from tvs_core.jobs.process import resume_orphans

    return resume_orphans(store())


@st.cache_data(show_spinner=False)
def demo_table(name: str) -> pd.DataFrame:
    return load_demo(name)


def set_dataset(table: pd.DataFrame, name: str, response: str | None = None, sensitive=()) -> None:
    """A new table resets everything that depended on the old one."""
    st.session_state[TABLE] = table
    st.session_state[NAME] = name
    schema = infer_schema(table)
    if response is not None:
        schema = schema.with_roles(response, list(sensitive))
    st.session_state[SCHEMA] = schema
    st.session_state[RESPONSE] = response
    st.session_state[SENSITIVE] = list(sensitive)
    st.session_state[RHO_OVERRIDES] = {}
    for key in (JOB, LEVEL):
        st.session_state.pop(key, None)


def ensure_dataset() -> None:
    """The simulated clinical demo is loaded on first start."""
    if TABLE not in st.session_state:
        demo = DEMOS[DEFAULT_DEMO]
        set_dataset(demo_table(demo.name), demo.title, demo.response, demo.sensitive)
    st.session_state.setdefault(MISSING, "drop_rows")
    st.session_state.setdefault(HOLDOUT, 0.2)
    st.session_state.setdefault(MEASURE, "kendall")


def table() -> pd.DataFrame:
    ensure_dataset()
    return st.session_state[TABLE]


def schema() -> Schema:
    ensure_dataset()
    schema = st.session_state[SCHEMA]
    response, sensitive = st.session_state.get(RESPONSE), st.session_state.get(SENSITIVE) or []
    if response is not None and response in schema.names:
        schema = schema.with_roles(response, [s for s in sensitive if s in schema.names and s != response])
    return schema


def select_level_from(key: str) -> None:
    """on_select callback of a privacy-utility scatter: the clicked level goes to session state,
    where it survives figure updates (a plotly chart's own selection resets when the figure changes)."""
    state = st.session_state.get(key)
    for point in (state.selection.points if state else []):
        level = point.get("customdata")
        level = level[0] if isinstance(level, list) else level
        if level is not None:
            st.session_state[LEVEL] = int(level)


def job() -> JobView | None:
    """The session's sweep, if one was started or opened."""
    job_id = st.session_state.get(JOB)
    return None if job_id is None else JobView(store(), job_id)
