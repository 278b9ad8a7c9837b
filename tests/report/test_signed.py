"""report/signed.py: page 1, what the officer signs — the released file, the level and who chose it, one verdict per
question, the user's note and what must be seen before signing; everything a user typed shown as text."""

import html
import re
from dataclasses import replace

import pandas as pd
import pytest

from tests.report.conftest import SHA
from tvs_core.release.guardrails import Guardrail
from tvs_core.release.pooled import PooledCheck
from tvs_core.report import signed
from tvs_core.version import __version__

HOSTILE = "<script>alert('x')</script> & \"co\""


def text(markup: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def pooled(raised: list, copies: int = 0, warnings: tuple = ()) -> PooledCheck:
    """A pooled check whose attack values went (True) or did not go (False) beyond a single release's interval."""
    return PooledCheck(earlier=1, rows=240, risks=pd.DataFrame({"raised": raised}, dtype=object), copies=copies,
                       budget=None, warnings=list(warnings))


# -- what was released --------------------------------------------------------------------------------------------
def test_an_exported_release_names_its_file_rows_hash_and_how_it_was_made(context_of):
    words = text(signed._released(context_of(level=2, release={"table_name": "ward"})))
    assert "File release.csv" in words and "Rows 120 synthetic rows of ward" in words
    assert f"SHA-256 of the file {SHA}" in words
    assert "Made by TVineSynth at truncation level 2, release seed 5, from sweep job-1" in words


def test_rows_drawn_only_for_the_report_say_which_command_makes_the_file(context_of):
    words = text(signed._released(context_of(exported=False)))
    assert "File none with this report" in words and "release --job job-1 --level 2" in words
    assert "drawn for the checks below" in words and f"SHA-256 of those rows as a file {SHA}" in words
    assert "release.csv" not in words  # no file was written: its name would mislead


def test_the_released_box_escapes_the_file_and_table_names(context_of):
    shown = signed._released(context_of(release={"file_name": HOSTILE, "table_name": HOSTILE}))
    assert "<script>" not in shown and shown.count(html.escape(HOSTILE)) == 2


# -- the level and who chose it -----------------------------------------------------------------------------------
def test_the_level_box_says_who_chose_it_how_levels_were_weighed_and_the_note(context_of):
    c = context_of(reason="  as agreed with the DPO  ", release={"choice": lambda: {"why": "chosen by the user"}})
    shown = signed._level(c)
    assert "<b>Level 2</b>: chosen by the user." in shown
    words = text(shown)
    assert "privacy weight α = 0.5" in words and "anchored normalisation" in words
    assert "The user's note: as agreed with the DPO" in words
    assert "Released despite" not in words  # no override, no line


def test_without_a_note_the_page_says_none_was_given(context_of):
    assert "The user's note: none given" in text(signed._level(context_of(reason="   ")))


def test_the_why_the_note_and_the_override_reason_are_escaped(context_of):
    c = context_of(reason=HOSTILE, release={"override_reason": HOSTILE, "choice": lambda: {"why": HOSTILE}})
    shown = signed._level(c)
    assert "<script>" not in shown and shown.count(html.escape(HOSTILE)) == 3
    assert f"Released despite a blocking guardrail, because: {HOSTILE}" in text(shown)


# -- before signing (level 1: its privacy verdicts ask nothing of the officer) ----------------------------------
def test_nothing_to_see_before_signing_is_no_heading(context_of):
    assert signed._before_signing(context_of(level=1)) == ""


def test_a_running_sweep_is_a_warning_with_its_progress(context_of):
    shown = signed._before_signing(context_of(level=1, job={"status": "running", "done": 3, "total": 9}))
    assert shown.startswith("<h3>Before signing</h3>")
    assert re.findall(r'<div class="(\w+)">', shown) == ["warn"]
    assert "The sweep is running (3 of 9 tasks)" in shown and "provisional" in shown


def test_only_blocking_guardrails_are_shown_each_in_a_red_box_and_escaped(context_of):
    checks = [Guardrail("copies", "block", HOSTILE), Guardrail("capped", "warn", "computed on capped sizes")]
    shown = signed._before_signing(context_of(level=1, release={"checks": checks}))
    assert re.findall(r'<div class="(\w+)">', shown) == ["block"]
    assert html.escape(HOSTILE) in shown and "<script>" not in shown and "capped sizes" not in shown


@pytest.mark.parametrize("check, kinds", [
    (pooled([False, False]), ["ok"]),  # nothing beyond a single release: a green verdict
    (pooled([True, False]), ["warn"]),
    (pooled([False], copies=2), ["warn"]),  # a pooled row copies a training row
    (pooled([False], warnings=("the ε budget is spent",)), ["warn", "warn"]),  # the verdict, then each warning
])
def test_the_pooled_check_is_a_verdict_that_warns_when_it_raised_anything(context_of, check, kinds):
    shown = signed._before_signing(context_of(level=1, release={"pooled": check}))
    assert re.findall(r'<div class="(\w+)">', shown) == kinds
    assert "Pooled with the 1 earlier release(s)" in shown


def test_blocks_come_before_warnings_and_warnings_before_what_is_fine(context_of):
    c = context_of(level=1, job={"status": "running"}, release={"checks": [Guardrail("copies", "block", "copies")]})
    assert re.findall(r'<div class="(\w+)">', signed._before_signing(c)) == ["block", "warn"]


# -- page 1 -------------------------------------------------------------------------------------------------------
def test_page_1_has_the_escaped_name_the_version_and_one_verdict_per_question(context_of):
    c = context_of(release={"table_name": HOSTILE})
    shown = signed.render(c)
    assert shown.startswith(f"<h1>Release report: {html.escape(HOSTILE)}</h1>") and "<script>" not in shown
    words = text(shown)
    assert f"Made 2024-03-03 10:00:00 UTC by TVineSynth Studio {__version__}." in words
    verdicts = shown.split("<h3>Verdicts at level 2</h3>")[1]
    boxes = re.findall(r'<div class="(\w+)"><span class="severity">(\w+)</span>([^<]*)</div>', verdicts)
    assert [html.unescape(t) for _, _, t in boxes] == [v.text for v in c.card.verdicts]  # the card's, in its order
    assert [kind for kind, _, _ in boxes] == [str(v.severity) for v in c.card.verdicts]
    assert [word for _, word, _ in boxes] == [v.severity.word for v in c.card.verdicts]  # not by colour alone
    assert shown.index("What was released") < shown.index("The level and who chose it") < shown.index("Verdicts")


def test_page_1_lists_every_warning_of_the_card(context_of):
    """Finding 3 (issue 45): page 1 left out the card's warnings (little pair structure kept, the block assumption,
    only spreads); the guide says the summary lists every warning."""
    c = context_of(level=1)
    assert c.card.warnings  # level 1 keeps 10 % of the pair structure
    page = html.unescape(signed.render(c))
    for warning in c.card.warnings:
        assert warning in page


def test_page_1_says_what_the_release_was_tested_on(context_of):
    """Finding 7 (issue 45): the hold-out file's name, rows and SHA-256 were nowhere in the report."""
    words = text(signed.render(context_of()))
    assert "Tested on the user's own hold-out file (30 rows), named ward7.csv, SHA-256 " + "cd" * 32 in words


def test_page_1_puts_what_must_be_seen_before_signing_last(context_of):
    shown = signed.render(context_of(job={"status": "cancelled", "done": 4, "total": 9}))
    assert shown.index("Verdicts at level") < shown.index("Before signing")
    assert "The sweep is cancelled (4 of 9 tasks)" in shown


def test_page_1_names_every_sensitive_column_and_y_and_has_a_block_to_sign(context_of):
    """Finding 11 (issue 56): page 1 named only the least protected column, and had no place for a name, a date and
    a decision although it says it is what is signed."""
    c = context_of()
    c = replace(c, view=replace_view(c.view, sensitive=["a", "b"], response="death"))
    words = text(signed.render(c))
    assert "Sensitive columns a, b — an attacker must not infer them" in words
    assert "Response Y death — what the release must still predict" in words
    tail = words[words.index("Decision"):]
    for field in ("Name", "Role", "Date", "Signature", "Release this file", "Do not release"):
        assert field in tail


def test_page_1_says_when_the_verdicts_ask_for_the_officer_and_that_best_is_not_fit(context_of):
    """Finding 12: "best in 100 %" beside two large costs: best at the chosen weights is not fit to release; a level
    whose privacy verdicts warn says, before the signature, that they ask for the officer's agreement."""
    c = context_of(level=2, release={"chosen_by_user": False})  # level 2: a large attribute risk on a
    before = text(signed._before_signing(c))
    assert "Its verdict on attribute inference asks for the privacy officer's agreement before release." in before
    assert "not a judgement that it is fit to release" in before
    assert "officer" not in text(signed._before_signing(context_of(level=1)))  # level 1: a small risk, no warning


def replace_view(view, **config):
    from types import SimpleNamespace

    return SimpleNamespace(**{**vars(view), "config": SimpleNamespace(**{**vars(view.config), **config})})
