"""What every page shares: the session's dataset, schema and job, and the local store.

Pages are thin views: they read this state, call tvs_core, and draw. Keys live here, once."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tvs_core import Schema, infer_schema, load_demo
from tvs_core.demo import DEFAULT_DEMO, DEMOS
from tvs_core.store import Store, default_workspace

TABLE, NAME, SCHEMA = "table", "dataset_name", "schema"
MISSING, HOLDOUT = "missing_policy", "holdout_fraction"
RESPONSE, SENSITIVE, MEASURE, RHO, RHO_OVERRIDES = "response", "sensitive", "measure", "rho_star", "rho_overrides"
JOB, LEVEL = "job_id", "selected_level"


@st.cache_resource
def store() -> Store:
    return Store(default_workspace())


@st.cache_resource
def resume_orphaned_jobs() -> list[str]:
    """Once per server start: jobs whose worker died (crash, reboot) continue where they stopped."""
    from tvs_core.worker import resume_orphans

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


def pretty(name: str) -> str:
    """Readable labels for metric codes in tables and menus."""
    return {
        "auc_tstr": "TSTR AUC (synthetic-trained)", "auc_trtr": "TRTR AUC (real-trained)",
        "auc_tstr_logistic": "TSTR AUC, logistic", "auc_trtr_logistic": "TRTR AUC, logistic",
        "r2_tstr": "TSTR R² (synthetic-trained)", "r2_trtr": "TRTR R² (real-trained)",
        "r2_tstr_linear": "TSTR R², linear", "r2_trtr_linear": "TRTR R², linear",
        "mab": "Attack game MAB", "wcab": "Attack game WCAB", "mr2": "Attacker R²", "mse_in": "Guess error (IN)",
        "mse_out": "Guess error (OUT)", "release_mab": "Release MAB", "release_wcab": "Release WCAB",
        "release_r2": "Release attacker R²", "pg": "Privacy gain (MIA)", "mcmia": "MC membership score",
        "dcr_closer_to_train": "Share closer to training rows", "exact_copies": "Exact copies",
        "alpha_precision": "α-precision (fidelity)", "beta_recall": "β-recall (diversity)",
        "authenticity": "Authenticity", "spearman_difference": "Spearman matrix difference",
        "column_distance": "Column distance (KS / TV)", "advantage": "Attacker advantage (categorical)",
        "release_advantage": "Release attacker advantage", "mia_tp": "MIA true positives",
        "mia_fp": "MIA false positives",
    }.get(name, name)
