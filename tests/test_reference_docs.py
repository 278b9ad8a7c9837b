"""The generated reference pages (docs/reference/metrics.md, glossary.md, cli.md) are what the code says today:
a metric, a glossary term or a command-line option changed without `python -m tvs_core.reference` fails here."""

import argparse

import pytest

from tvs_core import reference


@pytest.mark.parametrize("name", list(reference.PAGES))
def test_the_committed_reference_page_is_the_generated_one(name):
    path = reference.REFERENCE / name
    assert path.is_file(), f"docs/reference/{name} is missing: run python -m tvs_core.reference"
    assert path.read_text(encoding="utf-8") == reference.PAGES[name](), \
        f"docs/reference/{name} is out of date: run python -m tvs_core.reference and commit it"


def test_the_command_line_page_has_every_command_and_option():
    page = reference.cli_markdown()
    for parser in reference._parsers():
        assert f"## {parser.prog}\n" in page
        for action in (a for a in parser._actions if a.help != argparse.SUPPRESS):  # hidden options stay hidden
            for flag in action.option_strings:
                assert flag in page, f"{parser.prog} {flag} is not on the command-line page"
    assert "==SUPPRESS==" not in page


def test_the_check_mode_names_a_stale_page(tmp_path, capsys):
    reference.write(tmp_path)
    assert reference.main(["--check", str(tmp_path)]) == 0
    (tmp_path / "metrics.md").write_text("an old page\n", encoding="utf-8")
    assert reference.main(["--check", str(tmp_path)]) == 1
    assert "metrics.md is out of date" in capsys.readouterr().out
