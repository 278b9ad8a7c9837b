"""The generated reference pages under docs/reference/: the metrics (from the catalogue), the glossary (from
``tvs_core.glossary``) and the command line (from its own ``--help``), so that they never say something the code
does not. ``python -m tvs_core.reference`` writes them; ``--check`` only says which are out of date (exit 1);
``tests/test_reference_docs.py`` fails when a committed page differs from what this module generates."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from . import glossary
from .evaluation.catalogue import CATALOGUE, GROUPS

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference"
HELP_WIDTH = 100  # the help text's line width, fixed so the page does not depend on the terminal that wrote it


def _generated(source: str) -> str:
    return f"<!-- Generated from {source} by `python -m tvs_core.reference`; edit the source, not this file. -->\n\n"


def _code(words: tuple[str, ...]) -> str:
    return ", ".join(f"`{w}`" for w in words)


def metrics_markdown() -> str:
    """Every metric of the catalogue, by group: its label, short label, explanation, unit, direction, source and
    anchors."""
    out = [_generated("tvs_core/evaluation/metrics/ (the metric families)"), "# Metrics\n\n",
           "Every number the dashboard, the command line, `summary.json`, the manifest and the report show is one of "
           "these, declared once in the metric catalogue. A per-column metric is written `name:COLUMN`. The glossary "
           "([glossary.md](glossary.md)) explains the words used here; the guide ([../guide.md](../guide.md)) how to "
           "read them for a release decision.\n"]
    for group in GROUPS:
        members = [m for m in CATALOGUE.values() if m.group == group]
        if not members:
            continue
        out.append(f"\n## {group[0].upper() + group[1:]}\n")
        for metric in members:
            out.append(f"\n### {metric.label}\n\n")
            out.append(f"Shown as **{metric.short}**. {metric.explanation}\n\n")
            out.append(f"{glossary.metric_details(metric, code='`')}\n")
            if metric.risk is not None:  # what its interval and count are, recorded beside it
                out.append("\n" + "".join(f"- **{m.short}** (`{m.name}`): {m.explanation.split(' Attack: ')[0]}\n"
                                            for m in metric.records()[1:]))
    return "".join(out)


def glossary_markdown() -> str:
    """The glossary's terms by topic, as the dashboard's "What the words mean" page shows them (the metrics are in
    metrics.md)."""
    out = [_generated("tvs_core/glossary.py"), "# What the words mean\n\n",
           "Every term the screens use, in plain words — the same entries as the dashboard's page **What the words "
           "mean**, which also searches them. The metrics are in [metrics.md](metrics.md); how to use them for a "
           "release decision is in the guide, [../guide.md](../guide.md).\n"]
    for topic in glossary.TOPICS:
        out.append(f"\n## {topic}\n")
        for term in (t for t in glossary.TERMS if t.topic == topic):
            out.append(f"\n### {term.name}\n\n{term.explanation}\n")
            if term.shown_as:
                out.append(f"\nOn screen: {_code(term.shown_as)}.\n")
            if term.more:
                out.append(f"\nMore: {term.more}\n")
    return "".join(out)


def _parsers() -> list[argparse.ArgumentParser]:
    """The command line's parser and each listed command's, in the order ``--help`` lists them."""
    from .cli import build_parser

    parser = build_parser()
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {choice.dest for choice in action._choices_actions}  # the commands --help lists
            found += [sub for name, sub in action.choices.items() if name in listed]
    return found


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=HELP_WIDTH)
    # argparse prints a command hidden with help=SUPPRESS as "==SUPPRESS==" in the list of commands (Python 3.11):
    # the internal ``worker`` command is left out here as it is from the commands' own sections
    return "\n".join(line for line in parser.format_help().splitlines() if "==SUPPRESS==" not in line)


def cli_markdown() -> str:
    """``python -m tvs_core --help`` and each command's ``--help``, as they print."""
    out = [_generated("tvs_core/cli.py"), "# Command line\n\n",
           "What `python -m tvs_core --help` and each command's `--help` print (run them from the project folder "
           "with `.venv/bin/python`). Every refusal is one line on stderr and exit status 2; the options are checked "
           "before any work starts.\n"]
    for parser in _parsers():
        out.append(f"\n## {parser.prog}\n\n```text\n{_help(parser)}\n```\n")
    return "".join(out)


PAGES: dict[str, Callable[[], str]] = {"metrics.md": metrics_markdown, "glossary.md": glossary_markdown,
                                       "cli.md": cli_markdown}


def stale(folder: Path = REFERENCE) -> list[str]:
    """The pages in ``folder`` that differ from what the code generates (or are missing)."""
    out = []
    for name, build in PAGES.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != build():
            out.append(name)
    return out


def write(folder: Path = REFERENCE) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in PAGES.items():
        path = folder / name
        path.write_text(build(), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tvs_core.reference",
                                     description="Write the generated reference pages (docs/reference/).")
    parser.add_argument("--check", action="store_true", help="only say which pages are out of date (exit 1)")
    parser.add_argument("folder", nargs="?", type=Path, default=REFERENCE)
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale(args.folder)
        for name in out_of_date:
            print(f"{args.folder / name} is out of date: run python -m tvs_core.reference")
        return 1 if out_of_date else 0
    for path in write(args.folder):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
