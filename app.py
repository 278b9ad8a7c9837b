"""TVineSynth Studio — entry point. Run: streamlit run app.py (binds to 127.0.0.1:8501)."""

import streamlit as st

st.set_page_config(page_title="TVineSynth Studio", layout="wide")

pages = [st.Page("pages/data.py", title="1 · Data", default=True)]
navigation = st.navigation(pages)

with st.sidebar:
    st.caption("TVineSynth Studio — synthetic data with a privacy-utility balance you choose.")
    dataset = st.session_state.get("dataset_name")
    if dataset:
        st.markdown(f"**Dataset:** {dataset}")

navigation.run()
