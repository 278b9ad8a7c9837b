"""The "What the words mean" page: built from tvs_core.glossary and the catalogue, searchable, with the guide."""

import pytest

from tests.helpers import dashboard
from tvs_core import glossary


@pytest.fixture(autouse=True)
def workspace(page_workspace):
    return page_workspace


def glossary_page():
    at = dashboard().run()
    at.switch_page("pages/glossary.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_the_page_shows_every_entry_and_the_guide():
    at = glossary_page()
    assert at.title[0].value == "What the words mean"
    from pages.plain import md

    text = shown(at)
    for term in glossary.entries():
        assert f"**{md(term.name)}** — {md(term.explanation)}" in text, term.name
    assert "# Choosing and releasing a level" in text  # the guide, rendered from docs/guide.md


def test_search_keeps_only_the_entries_that_mention_the_word():
    at = glossary_page()
    at.text_input(key="glossary_search").set_value("shadow").run()
    assert not at.exception
    text = shown(at)
    assert "Shadow models" in text
    assert "Pareto front" not in text
    at.text_input(key="glossary_search").set_value("<b>no such word</b>").run()
    assert any("No entry mentions" in i.value and "\\<b\\>" in i.value for i in at.info)  # typed text escaped
