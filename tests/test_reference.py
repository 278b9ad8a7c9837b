"""tvs_core/reference.py: the generated reference pages hold every metric and every term once, the command-line page
does not depend on the terminal that wrote it, and ``write``/``stale``/``main`` keep a folder of pages up to date.
That the committed pages are today's is tests/test_reference_docs.py."""

from __future__ import annotations

import re

from tvs_core import glossary, reference
from tvs_core.evaluation.catalogue import CATALOGUE, GROUPS


def headings(page: str, level: str) -> list[str]:
    return re.findall(rf"^{level} (.+)$", page, flags=re.MULTILINE)


def test_every_page_starts_by_saying_it_is_generated_and_from_what():
    for name, build in reference.PAGES.items():
        first = build().splitlines()[0]
        assert first.startswith("<!-- Generated from ") and "edit the source, not this file" in first, name


def test_the_metrics_page_has_every_metric_once_under_its_group():
    page = reference.metrics_markdown()
    assert sorted(headings(page, "###")) == sorted(m.label for m in CATALOGUE.values())
    groups = headings(page, "##")
    assert groups == [g[0].upper() + g[1:] for g in GROUPS if any(m.group == g for m in CATALOGUE.values())]
    for metric in CATALOGUE.values():  # each metric comes after its own group's heading
        section = page.split(f"\n### {metric.label}\n")[0].rsplit("\n## ", 1)[1].split("\n")[0]
        assert section == metric.group[0].upper() + metric.group[1:], metric.name
        assert f"Shown as **{metric.short}**." in page


def test_the_glossary_page_has_every_term_of_a_topic_once_and_leaves_the_metrics_to_their_page():
    page = reference.glossary_markdown()
    assert headings(page, "##") == list(glossary.TOPICS)
    assert headings(page, "###") == [t.name for topic in glossary.TOPICS for t in glossary.TERMS if t.topic == topic]
    for term in glossary.TERMS:
        if term.topic in glossary.TOPICS and term.shown_as:
            assert f"On screen: {', '.join(f'`{w}`' for w in term.shown_as)}." in page, term.name


def test_every_glossary_term_is_on_one_of_the_pages():
    """A term whose topic is neither a glossary topic nor a metric group would be on no page at all."""
    for term in glossary.TERMS:
        assert term.topic in glossary.TOPICS or term.topic.startswith("Metrics: "), term.name


def test_the_command_line_page_is_the_same_whatever_the_terminals_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = reference.cli_markdown()
    monkeypatch.setenv("COLUMNS", "250")
    assert reference.cli_markdown() == narrow


def test_the_internal_worker_command_is_not_on_the_command_line_page():
    """``worker`` is what a job's processes run, not a user's command: it has no section, and the list of commands
    does not name it (argparse would print it as "==SUPPRESS==")."""
    progs = [parser.prog for parser in reference._parsers()]
    assert len(progs) == len(set(progs)) > 1 and not any(prog.endswith(" worker") for prog in progs)
    page = reference.cli_markdown()
    assert not re.search(r"\bworker\b", page) and "SUPPRESS" not in page


def test_writing_makes_the_folder_and_every_page_and_then_none_is_stale(tmp_path, capsys):
    folder = tmp_path / "new" / "reference"
    assert reference.stale(folder) == list(reference.PAGES)  # nothing there: every page is missing
    assert reference.main([str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(reference.PAGES)
    assert capsys.readouterr().out.count("wrote ") == len(reference.PAGES)
    assert reference.stale(folder) == []


def test_a_missing_page_is_stale_and_check_mode_writes_nothing(tmp_path, capsys):
    reference.write(tmp_path)
    (tmp_path / "glossary.md").unlink()
    assert reference.stale(tmp_path) == ["glossary.md"]
    assert reference.main(["--check", str(tmp_path)]) == 1
    assert "glossary.md is out of date" in capsys.readouterr().out
    assert not (tmp_path / "glossary.md").exists()
