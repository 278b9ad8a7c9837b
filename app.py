"""TVineSynth Studio — entry point. Run: streamlit run app.py (binds to 127.0.0.1:8501)."""

import streamlit as st

from pages import common

st.set_page_config(page_title="TVineSynth Studio", layout="wide")

pages = [
    st.Page("pages/data.py", title="1 · Data", default=True),
    st.Page("pages/sensitive.py", title="2 · Sensitive features"),
    st.Page("pages/sweep.py", title="3 · Sweep"),
    st.Page("pages/choose.py", title="4 · Choose"),
    st.Page("pages/export.py", title="5 · Export"),
]
navigation = st.navigation(pages)
common.ensure_dataset()
common.resume_orphaned_jobs()

with st.sidebar:
    st.caption("TVineSynth Studio — synthetic data with a privacy-utility balance you choose.")
    st.markdown(f"**Dataset:** {st.session_state[common.NAME]}  \n"
                f"{len(st.session_state[common.TABLE])} rows × {st.session_state[common.TABLE].shape[1]} columns")
    view = common.job()
    if view is not None:

        @st.fragment(run_every=2 if view.active else None)
        def sweep_status() -> None:
            """Redrawn on its own every 2 s while the sweep runs, whatever page is open."""
            info = view.progress()
            st.markdown(f"**Sweep:** {info['status']} — {info['done']}/{info['total']} tasks")
            if info["total"]:
                st.progress(info["done"] / info["total"])

        sweep_status()
    else:
        st.markdown("**Sweep:** not started")
    level = st.session_state.get(common.LEVEL)
    st.markdown(f"**Selected level:** {level if level is not None else '—'}")

navigation.run()
