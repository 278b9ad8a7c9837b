"""The security review's bombs, each read by a fresh process under RLIMIT_AS = 1 GB with the default limits: each
is refused before parsing, naming its limit. (Only tests/data/bombs.py is imported here, so these tests run, and
fail, against code without limits too.)"""

from __future__ import annotations

import pytest

from tests.data.bombs import BOMBS, MB, honest_xlsx, read_capped

pytestmark = pytest.mark.slow  # a fresh, capped Python process per file


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("bombs")


def test_the_hand_written_workbook_reads_in_the_capped_process(folder):
    """The control: the bombs' workbook layout and the capped reader work, so their refusals are real."""
    outcome = read_capped(honest_xlsx(folder))
    assert (outcome.status, outcome.message) == ("READ", "(10, 1)"), outcome


@pytest.mark.parametrize("bomb", BOMBS, ids=[b.name for b in BOMBS])
def test_a_bomb_is_refused_before_parsing_under_a_memory_cap(bomb, folder):
    path = bomb.build(folder)
    assert path.stat().st_size <= bomb.disk_mb * MB, f"{bomb.name} is {path.stat().st_size / MB:.2f} MB on disk"
    outcome = read_capped(path)  # a read that used 60 s of CPU is stopped: a hang guard, not a speed assertion
    assert outcome.status == "REFUSED", outcome
    assert path.name in outcome.message and bomb.refused_by in outcome.message, outcome.message
    assert "above the limit of" in outcome.message and "--limit " in outcome.message
