"""The security reviews' bombs, each read by a fresh process under RLIMIT_AS = 1 GB with the default limits but a
read's memory at that 1 GB (``TVS_MAX_READ_MB``): each is refused before it is parsed, naming its limit — from
the command line (a path) and, for the second review's, as the dashboard reads an upload (its bytes). The hang
guard stops a read still running after 15 minutes: a guard against a hang, not a speed assertion (bench/bombs.md
has the times). (Only bench/hostile_files.py is imported here, so these tests run, and fail, against code without
limits too.)"""

from __future__ import annotations

import pytest

from bench.hostile_files import BOMBS, MB, TEST_GUARD, categorical_parquet, honest_xlsx, read_capped

SECOND_REVIEW = [b for b in BOMBS if b.review >= 2]


def cases(bombs):
    """The third review's files take tens of seconds to build: in the whole suite only (their limits have fast tests
    of their own in test_limits.py)."""
    return [pytest.param(b, id=b.name, marks=[pytest.mark.slow] if b.review >= 3 else []) for b in bombs]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("bombs")


def built(bomb, folder):
    """Each bomb is built once per module (the largest takes a while)."""
    target = folder / bomb.name
    if not target.exists():
        target.mkdir()
        bomb.build(target)
    return next(target.iterdir())


def test_the_hand_written_workbook_reads_in_the_capped_process(folder):
    """The control: the bombs' workbook layout and the capped reader work, so their refusals are real."""
    outcome = read_capped(honest_xlsx(folder), timeout=TEST_GUARD)
    assert (outcome.status, outcome.message) == ("READ", "(10, 1)"), outcome


@pytest.mark.parametrize("bomb", cases(BOMBS))
@pytest.mark.slow
def test_a_bomb_is_refused_before_parsing_under_a_memory_cap(bomb, folder):
    path = built(bomb, folder)
    assert path.stat().st_size <= bomb.disk_mb * MB, f"{bomb.name} is {path.stat().st_size / MB:.2f} MB on disk"
    outcome = read_capped(path, timeout=TEST_GUARD)
    _refused(outcome, bomb, path)


@pytest.mark.parametrize("bomb", cases(SECOND_REVIEW))
@pytest.mark.slow
def test_a_bomb_uploaded_to_the_dashboard_is_refused_under_a_memory_cap(bomb, folder):
    """The dashboard's upload reads the file's bytes (pages/data.py: ``read_table(upload.getvalue(), name)``)."""
    path = built(bomb, folder)
    _refused(read_capped(path, timeout=TEST_GUARD, upload=True), bomb, path)


def _refused(outcome, bomb, path) -> None:
    assert outcome.status == "REFUSED", outcome
    assert path.name in outcome.message and bomb.refused_by in outcome.message, outcome.message
    assert "unexpected" not in outcome.message
    assert "--limit " in outcome.message or not bomb.refused_by.startswith("TVS_MAX_")  # a limit says how to raise it
    assert outcome.message.count(". ") <= 2, outcome.message  # what was found, and how to raise the limit


def test_a_parquet_file_with_a_categorical_column_reads(folder):
    """The second review's small Parquet file with a categorical column gave "unexpected TypeError"."""
    outcome = read_capped(categorical_parquet(folder), timeout=TEST_GUARD)
    assert (outcome.status, outcome.message) == ("READ", "(120, 2)"), outcome


THIRD_REVIEW = [b for b in BOMBS if b.review >= 3]


@pytest.mark.slow
@pytest.mark.parametrize("bomb", THIRD_REVIEW, ids=[b.name for b in THIRD_REVIEW])
def test_under_an_administrators_own_memory_cap_the_command_line_names_a_limit(bomb, folder):
    """The third review ran the command line under ``ulimit -v 1048576`` with the tool's default limits: the
    Parquet file of zeros failed after 49 s as "something unexpected went wrong (ArrowMemoryError)". Each of its files
    is now refused in a sentence that names the limit reached (the tool's, or the address space set outside)."""
    path = built(bomb, folder)
    outcome = read_capped(path, timeout=TEST_GUARD, defaults=True)
    assert outcome.status == "REFUSED", outcome
    assert "TVS_MAX_" in outcome.message or "ulimit -v" in outcome.message, outcome.message
    assert "unexpected" not in outcome.message
