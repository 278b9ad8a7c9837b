"""Data page: open the demo or upload a table; see how each column was read and why."""

import pandas as pd
import streamlit as st

from tvs_core import DataError, infer_schema, load_demo, read_table
from tvs_core.demo import DEFAULT_DEMO, DEMOS


@st.cache_data(show_spinner=False)
def _demo(name: str) -> pd.DataFrame:
    return load_demo(name)


st.title("Data")
source = st.radio("Source", ["Demo", "Upload"], horizontal=True)
table = None
if source == "Demo":
    name = st.selectbox("Demo table", list(DEMOS), index=list(DEMOS).index(DEFAULT_DEMO),
                        format_func=lambda key: DEMOS[key].title)
    st.caption(DEMOS[name].description)
    table = _demo(name)
    st.session_state["dataset_name"] = DEMOS[name].title
else:
    upload = st.file_uploader("CSV or Parquet file", type=["csv", "txt", "tsv", "parquet", "pq"])
    if upload is not None:
        try:
            table = read_table(upload.getvalue(), name=upload.name)
            st.session_state["dataset_name"] = upload.name
        except DataError as exc:
            st.error(str(exc))

if table is not None:
    st.session_state["table"] = table
    st.subheader(f"{len(table)} rows × {table.shape[1]} columns")
    st.dataframe(table.head(50), width="stretch")
    schema = infer_schema(table)
    st.subheader("How each column was read")
    st.dataframe(schema.to_frame()[["name", "type", "role", "reason", "drop_reason", "n_missing", "n_unique"]],
                 width="stretch", hide_index=True)
