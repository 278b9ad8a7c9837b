"""Data: open a demo or upload a table; check and fix how each column was read."""

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from pages import common, plain
from pages.reading import read_upload
from pages.shared import notices, tables, widgets
from tvs_core import ColumnType, DataError, Role, validate
from tvs_core.data.demo import DEMOS
from tvs_core.data.missing import MISSING_POLICIES
from tvs_core.data.split import explicit_holdout, missing_response_rows

common.under_navigation()

FIND_FROM = 15  # a table with more columns than this gets a box that filters its columns' table

st.title("TVineSynth Studio")
st.markdown(
    "Publish a synthetic copy of a sensitive table with a privacy-utility balance **you** choose, by looking at "
    "evidence. Five steps, one page each (left): **1 · Data** — open a table and check how each column was read; "
    "**2 · Sensitive features** — the response Y and the columns an attacker must not infer; **3 · Sweep** — "
    "evaluate the truncation levels in the background; **4 · Choose** — weigh privacy against utility and pick a "
    "level; **5 · Export** — the synthetic CSV with its manifest. Everything stays on this computer, and every "
    "choice is saved as you make it (the **Projects** page reopens earlier work).")
st.header("1 · Data")
notices.show_notice()
project = common.project()

source, upload_col = st.columns([1, 2])
with source:
    names = list(DEMOS)
    opened_demo = project.source.split(":", 1)[1] if project.source.startswith("demo:") else None
    choice = st.selectbox("Open a demo table", names, format_func=lambda key: DEMOS[key].title,
                          index=names.index(opened_demo) if opened_demo in names else None,
                          placeholder="Choose a demo…", key=f"demo_choice.{project.id}")
    if choice is not None and choice != opened_demo:
        tables.open_demo(choice)
        st.rerun()
with upload_col:
    upload = st.file_uploader("…or upload a CSV, Parquet or Excel (.xlsx) file",
                              type=["csv", "txt", "tsv", "parquet", "pq", "xlsx", "xlsm", "xls"],
                              help="The file stays on this computer, in the local workspace.")
    if upload is not None and st.session_state.get(common.OPENED_UPLOAD) != upload.file_id:
        uploaded = None
        try:  # read in a process of its own, within the memory and time a read may take; kept as Parquet
            uploaded = read_upload(upload.getbuffer(), upload.name, upload.file_id)  # the upload's bytes, not a copy
            if uploaded is not None:
                common.store().space.save_upload(upload.name, uploaded, upload.getbuffer())
        except DataError as exc:
            st.error(f"Could not open {plain.md(upload.name)}: {plain.md(exc)}")
        st.session_state[common.OPENED_UPLOAD] = upload.file_id  # read, refused or cancelled: not again
        if uploaded is not None:
            tables.open_upload(uploaded, upload.name)
            if uploaded.attrs.get("note"):
                st.session_state[common.UPLOAD_NOTE] = uploaded.attrs["note"]
            st.rerun()
if st.session_state.get(common.UPLOAD_NOTE):
    st.info(plain.md(st.session_state[common.UPLOAD_NOTE]))

table = tables.table()
schema = common.schema()
st.subheader(f"{plain.md(project.name)} — {len(table)} rows × {table.shape[1]} columns")
st.dataframe(table.head(50), width="stretch", height=240)

candidates = [c.name for c in schema.columns if c.modelled or c.name == project.sweep.response]
st.selectbox("Response Y — what the synthetic data must predict", candidates,
             index=candidates.index(project.sweep.response) if project.sweep.response in candidates else None,
             placeholder="Choose the response…", key=f"{common.WIDGET}response.data",
             on_change=widgets.set_response, args=(f"{common.WIDGET}response.data",),
             help="Suggested from the column names when the table was opened; the table below shows it as role "
                  "'response'. Step 2 sets the sensitive columns. Type in the box to filter the list.")

st.subheader("Columns: type and role")
st.caption("Every inference can be changed here. Dropped columns are not modelled; the release still has "
           "them (fresh IDs, empty text, the constant).")
problems = validate(table, schema, measure=project.sweep.measure)
by_column: dict[str, list[str]] = {}
for problem in problems:
    by_column.setdefault(problem.column or "", []).append(str(problem))


def histogram(col: pd.Series) -> list[float]:
    values = pd.to_numeric(col, errors="coerce")
    values = values[np.isfinite(values)]  # infinite values are reported as a problem, not drawn
    if values.empty:
        counts = col.astype(str).value_counts().head(12).to_numpy()
    else:
        counts, _ = np.histogram(values, bins=12)
    return [float(c) for c in counts]


frame = pd.DataFrame({
    "column": [c.name for c in schema.columns],
    "type": [c.type.value for c in schema.columns],
    "role": [c.role.value for c in schema.columns],
    "why": [c.reason + (f" — {c.drop_reason}" if c.drop_reason else "") for c in schema.columns],
    "missing": [c.n_missing for c in schema.columns],
    "distinct": [c.n_unique for c in schema.columns],
    "distribution": [histogram(table[c.name]) for c in schema.columns],
    "problem": [" ".join(by_column.get(c.name, [])) for c in schema.columns],
})
if len(frame) > FIND_FROM:
    find = st.text_input("Find columns", key="find_column", placeholder="Type to filter…",
                         help="Typing filters the table below to the columns whose name, type or role contains what "
                              "you type (case does not matter); clear the box to see every column again.").strip()
    if find:
        frame = frame[frame[["column", "type", "role"]].apply(
            lambda values: values.str.contains(find, case=False, regex=False)).any(axis=1)]
        st.caption(f"{len(frame)} of {len(schema.columns)} columns contain “{plain.md(find)}”.")
else:
    find = ""
edited = st.data_editor(  # a filtered table is another editor: its rows are counted from its own first row
    frame, hide_index=True, width="stretch", key="schema_editor" + (f":{find}" if find else ""),
    disabled=["column", "why", "missing", "distinct", "distribution", "problem"],
    column_config={
        "type": st.column_config.SelectboxColumn("type", options=[t.value for t in ColumnType], required=True),
        "role": st.column_config.SelectboxColumn("role", options=[r.value for r in Role], required=True),
        "distribution": st.column_config.BarChartColumn("distribution"),
        "problem": st.column_config.TextColumn("problem", width="large"),
    })
changes: dict = {}
new_schema = schema
response, sensitive = project.sweep.response, list(project.sweep.sensitive)
for row, before in zip(edited.itertuples(index=False), frame.itertuples(index=False), strict=True):
    if row.type != before.type:
        new_schema = new_schema.override(row.column, type=row.type)
    if row.role != before.role:
        if row.role == Role.RESPONSE.value:
            response, sensitive = row.column, [s for s in sensitive if s != row.column]
        elif row.role == Role.SENSITIVE.value:
            sensitive = [*sensitive, row.column]
            response = None if response == row.column else response
        else:
            response = None if response == row.column else response
            sensitive = [s for s in sensitive if s != row.column]
            new_schema = new_schema.override(row.column, role=row.role)
if new_schema is not schema or (response, sensitive) != (project.sweep.response, list(project.sweep.sensitive)):
    common.project().schema = new_schema.to_dict()
    common.update_sweep(response=response, sensitive=sensitive)
    st.rerun()


def text_ordinals() -> list:
    """Ordinal columns whose labels are text: without the user's order they sort alphabetically."""
    def needs_order(spec) -> bool:
        col = table[spec.name]
        ordered = isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.ordered
        return spec.modelled and spec.type == ColumnType.ORDINAL and not ordered and not \
            pd.api.types.is_numeric_dtype(col)
    return [spec for spec in schema.columns if needs_order(spec)]


ordinals = text_ordinals()
if ordinals:
    with st.expander("Order of ordinal categories", expanded=any(spec.levels is None for spec in ordinals)):
        st.caption("Text labels would otherwise be ordered alphabetically (high < low < medium). Pick each "
                   "column's labels from lowest to highest.")
        for spec in ordinals:
            labels = sorted({str(v) for v in table[spec.name].dropna().unique()})
            current = [v for v in (spec.levels or labels) if v in labels]
            chosen = st.multiselect(plain.md(spec.name), labels, default=current, key=f"levels_{spec.name}")
            if len(chosen) < len(labels):
                st.caption(f"{len(labels) - len(chosen)} label(s) of {plain.md(spec.name)} still to place.")
            elif tuple(chosen) != tuple(spec.levels or labels):
                common.update(schema=schema.override(spec.name, levels=chosen).to_dict())
                st.rerun()

for column, messages in by_column.items():
    for message in messages:
        st.error(f"**{plain.md(column or 'Table')}**: {plain.md(message)}")
if not problems:
    st.success("The table can be modelled.")

left, right = st.columns(2)
with left:
    st.radio("Missing values", widgets.texts(MISSING_POLICIES), key=widgets.bound("sweep.missing"), horizontal=True,
             on_change=widgets.keep, args=("sweep.missing",),
             format_func=lambda v: {"drop_rows": "Drop rows with a missing value (paper)",
                                    "impute": "Impute and model a missingness indicator"}[v])
    missing_rows = int(table[schema.modelled].isna().any(axis=1).sum())
    st.caption(f"{missing_rows} of {len(table)} rows have a missing value in a modelled column.")
    no_response = missing_response_rows(table, project.sweep.response)
    if no_response:
        st.caption(f"{no_response} rows have no value of the response {plain.md(project.sweep.response)}: they are "
                   "dropped "
                   "before the hold-out split, whatever the policy.")
with right:
    st.slider("Hold-out fraction (never seen by any model)", 0.1, 0.4, key=widgets.bound("sweep.holdout_fraction"),
              step=0.05, on_change=widgets.keep, args=("sweep.holdout_fraction",), disabled=project.holdout is not None,
              help="A random, stratified part of the table set aside to test the models — unless you give your own "
                   "hold-out file below.")
    given = st.file_uploader("…or your own hold-out file: rows kept aside, never seen by any model (same columns)",
                             type=["csv", "txt", "tsv", "parquet", "pq", "xlsx", "xlsm"], key=f"holdout.{project.id}")
    if given is not None and st.session_state.get("opened_holdout") != (project.id, given.name, given.size):
        st.session_state["opened_holdout"] = (project.id, given.name, given.size)
        frame = None
        try:
            frame = read_upload(given.getbuffer(), given.name, given.file_id)
            if frame is not None:
                explicit_holdout(table, frame, project.sweep.response)
        except DataError as exc:
            frame = None
            st.error(f"{plain.md(given.name)} cannot be the hold-out: {plain.md(exc)}")
        if frame is not None:
            common.update(holdout=common.projects().keep_holdout(frame), holdout_name=given.name,
                          holdout_sha256=hashlib.sha256(given.getvalue()).hexdigest())
            st.rerun()
    if project.holdout is not None:
        st.caption(f"Hold-out: your file **{plain.md(project.holdout_name)}** ({len(tables.holdout_table())} rows), "
                   "instead of a random split; every model is tested on it and none is fitted on it.")
        if st.button("Use a random split instead"):
            common.update(holdout=None, holdout_name=None, holdout_sha256=None)
            st.session_state.pop("opened_holdout", None)
            st.rerun()

with st.expander("Workspace"):
    st.write(f"Uploads, sweeps and results are kept in `{common.store().workspace}` on this computer.")
    if st.button("Wipe the workspace", type="secondary"):
        common.store().close()
        common.store().space.wipe()
        common.store.clear()
        st.session_state.pop(common.PROJECT, None)
        st.success("Workspace wiped.")
