"""The report's provenance sections lay out what the release, its model and its sweep hold: where the guardrails were
checked, the table's ledger, the data and its split, the roles and the C-vine order, and the versions — every name a
user typed escaped."""

import html
import re
from dataclasses import replace
from types import SimpleNamespace

import pytest

from tests.conftest import SWEEP_COLUMNS, SWEEP_RESPONSE
from tvs_core.jobs import JobView
from tvs_core.release.release import Release
from tvs_core.report import provenance
from tvs_core.report.context import ReportContext
from tvs_core.storage.store import Store

NAME = "<b>ward</b> & co"  # a table name a user typed: shown as text, never markup


@pytest.fixture(scope="module")
def made(stored_sweep):
    """The release of level 2 of the shared sweep, 120 rows at seed 5, not written to any ledger."""
    store, job_id, _ = stored_sweep
    return Release.from_sweep(JobView(store, job_id), 2, rows=120, seed=5, table_name=NAME)


def text(markup: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def test_the_guardrails_say_which_rows_were_checked_and_show_each_check_once(made):
    drawn = provenance.guardrails(ReportContext.of(made, exported=False))
    assert text(drawn).startswith("Checked on 120 rows drawn at level 2 (seed 5).")
    assert drawn.count("<div class=") == len(made.checks) > 0
    for check in made.checks:
        assert html.escape(check.message) in drawn
    assert "Checked on the released file." in provenance.guardrails(ReportContext.of(made))


def test_an_empty_ledger_is_said_and_a_recorded_release_is_listed_with_its_escaped_note(made, tmp_path):
    context = ReportContext.of(made)
    assert "No release of this table is in the ledger yet." in provenance.releases(context)
    entry = made.record(Store(tmp_path), note="<i>for the registry</i>")  # a ledger of its own
    listed = provenance.releases(replace(context, entries=[entry]))
    assert "No release of this table" not in listed and "&lt;i&gt;for the registry&lt;/i&gt;" in listed
    headers = re.findall(r"<th>([^<]*)</th>", listed)
    assert "who chose the level" in headers and "fingerprint" not in headers and "table" not in headers
    assert entry.sha256[:12] + "…" in listed  # whole on page 1 and in the manifest


def test_the_data_section_escapes_the_name_and_counts_the_split(made, stored_sweep):
    _, _, table = stored_sweep
    shown = provenance.data(ReportContext.of(made))
    assert html.escape(NAME) in shown and NAME not in shown
    words = text(shown)
    assert f"Rows, columns {len(table)}, {len(SWEEP_COLUMNS)}" in words
    train, test = map(int, re.search(r"Training, hold-out rows (\d+) \(the model's\), (\d+)", words).groups())
    assert train == len(made.train) and train + test == len(table)
    assert "Each column's type and role: appendix A." in words  # each column listed there
    total = re.search(r"<td>all</td>((?:\s*<td>\d+</td>)+)\s*</tr>", shown)
    assert total and int(re.findall(r"\d+", total.group(1))[-1]) == len(SWEEP_COLUMNS)  # counted: every column once
    assert "No column was dropped: every one is modelled." in words


def test_the_model_section_gives_the_roles_and_the_order_with_the_response_last(made):
    shown = provenance.model(ReportContext.of(made))
    words = text(shown)
    assert f"Response Y {SWEEP_RESPONSE}" in words and "Sensitive columns S total_cost_eur" in words
    order = html.unescape(re.search(r"root of tree 1\): ([^<]+)</p>", shown).group(1))
    assert order.endswith(f"→ {SWEEP_RESPONSE}") and set(order.split(" → ")) == set(SWEEP_COLUMNS)


def test_a_model_without_an_order_has_its_roles_and_no_preview():
    """A baseline-like model (no Algorithm-1 order) must not break the report: the sections say what is missing."""
    context = SimpleNamespace(release=SimpleNamespace(model=object()), config=SimpleNamespace(response="y"),
                              sensitive=["a", "b"], preview=None)
    words = text(provenance.model(context))
    assert "Response Y y" in words and "Sensitive columns S a, b" in words and "has no Algorithm-1 order" in words
    assert "No preview: the model has no order." in provenance.preview(context)


def test_the_versions_give_the_sweep_its_status_and_the_settings_but_not_the_schema(made):
    context = ReportContext.of(made)
    words = text(provenance.versions(context))
    job = context.view.job
    assert f"Sweep {context.view.id}" in words and f"done ({job.total} of {job.total} tasks)" in words
    assert "Master seed 0" in words and "families selected again in every refit (the paper's way)" in words
    assert "pyvinecopulib" in words and "Sizes capped by the data" in words
    settings = re.findall(r"<tr>\s*<td>([^<]+)</td>", provenance.versions(context))
    # by the Sweep page's names, never a raw key or dict (issue 56); the schema is in the report's own sections
    assert "master seed" in settings and "column types and roles" not in settings and "seed" not in settings
    assert "{'" not in words and "drop_rows" not in words
