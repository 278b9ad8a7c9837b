"""What the words mean: every term the screens use and every metric of the catalogue, in plain words
(``tvs_core.glossary``), with a search; and the guide for stewards and officers (docs/guide.md), shown here so that
it opens without leaving the dashboard."""

import streamlit as st

from pages import common, plain
from tvs_core import glossary

common.under_navigation()

st.title("What the words mean")
words, guide = st.tabs(["The words", "The guide: choosing and releasing a level"])

with words:
    st.caption("Every term the screens use, and every measure the dashboard reports, in plain words. Search by a "
               "word as a screen shows it (MAB, τ_block, first look) or by what you want to know (membership, "
               "hold-out). The guide (second tab; docs/guide.md in the project folder) explains how to use them to "
               "choose a level and release it.")
    query = st.text_input("Search the words", key="glossary_search", placeholder="a word from a screen, e.g. MAB")
    found = glossary.search(query)
    if not found:
        st.info(f"No entry mentions “{plain.md(query)}”. Try a shorter word, or browse with an empty search.")
    topics = [*glossary.TOPICS, *dict.fromkeys(term.topic for term in found if term.topic not in glossary.TOPICS)]
    for topic in topics:
        entries = [term for term in found if term.topic == topic]
        if not entries:
            continue
        with st.expander(f"{topic} ({len(entries)})", expanded=bool(query.strip()) or topic == topics[0]):
            for term in entries:
                st.markdown(f"**{plain.md(term.name)}** — {plain.md(term.explanation)}")
                shown = f"Shown as {term.shown_as[0]}" if term.metric else "On screen: " + ", ".join(term.shown_as)
                details = [d for d in (shown if term.shown_as else "", term.more) if d]
                if details:
                    st.caption(plain.md(" · ".join(details)))

with guide:
    text = glossary.guide_text()
    if text is None:
        st.info("The guide is docs/guide.md in the project folder, which this installation does not have.")
    else:
        st.markdown(text)
