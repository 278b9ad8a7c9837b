"""tvs_core/data/reader.py: every table is parsed in a child process within a memory and a time limit, and comes
back as the parse made it; whatever ends the child is one sentence naming the limit and how to raise it, never
"unexpected" (the second review: MemoryError shown as "unexpected", a reader's TypeError, a malloc failure)."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from bench.hostile_files import honest_xlsx, minimal_xlsx, sheet
from tests.helpers import ROOT, ctrl_c_as_in_a_terminal
from tvs_core.data import reader
from tvs_core.data.io import parse_table, read_table
from tvs_core.data.limits import Limits
from tvs_core.errors import DataError


@pytest.fixture
def parser(monkeypatch):
    """Set the child's parser to one of bench/hostile_files.py's (the child imports it from the project folder)."""
    monkeypatch.chdir(ROOT)

    def use(name: str) -> None:
        monkeypatch.setattr(reader, "PARSER", f"bench.hostile_files:{name}")
    return use


def test_a_table_comes_back_from_the_child_as_the_parse_made_it(tmp_path):
    frame = pd.DataFrame({"age": [61.5, 70.25, None], "ward": ["A", None, "B"], "n": pd.array([1, None, 3], "Int64"),
                          "seen": pd.to_datetime(["2024-01-02", "2024-02-03", None]),
                          "grade": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True)})
    parquet = tmp_path / "t.parquet"
    frame.to_parquet(parquet)
    mixed = minimal_xlsx(tmp_path / "mixed.xlsx", sheet(  # numbers and words in one column: Python objects
        '<row r="1"><c r="A1" t="inlineStr"><is><t>m</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>'
        '<row r="3"><c r="A3" t="inlineStr"><is><t>two</t></is></c></row><row r="4"><c r="A4"><v>3.5</v></c></row>'))
    sources = [parquet, parquet.read_bytes(), io.BytesIO(b"a;b\n1,5;x\n2,5;y\n"), honest_xlsx(tmp_path), mixed,
               b"a,b\n1,2\n3,4\n"]
    for source in sources:
        here = parse_table(source.getvalue() if isinstance(source, io.BytesIO) else source)
        there = read_table(io.BytesIO(source.getvalue()) if isinstance(source, io.BytesIO) else source)
        pd.testing.assert_frame_equal(there, here)
        assert there.attrs.get("note") == here.attrs.get("note")


def test_the_parses_own_refusal_comes_back_whole():
    with pytest.raises(DataError) as info:
        read_table(b"a,a\n1,2\n", name="t.csv")
    here = pytest.raises(DataError, parse_table, b"a,a\n1,2\n", "t.csv").value
    assert (info.value.message, info.value.column, info.value.fix) == (here.message, here.column, here.fix)


def test_a_read_past_its_time_limit_is_ended_and_named():
    """No Python process starts and parses within a millisecond, however fast the machine."""
    with pytest.raises(DataError) as info:
        read_table(b"a,b\n1,2\n", name="t.csv", limits=Limits(read_seconds=0.001))
    assert str(info.value).startswith("Reading 't.csv' took longer than the 0.001 s a read may take.")
    assert "TVS_MAX_READ_SECONDS=0.002" in str(info.value) and "--limit read_seconds=0.002" in str(info.value)


@pytest.mark.parametrize("name", ["parse_by_allocating", "parse_by_dying"])
def test_a_parse_that_runs_out_of_memory_names_the_memory_limit(parser, name):
    parser(name)
    with pytest.raises(DataError) as info:
        read_table(b"a,b\n1,2\n", name="t.csv", limits=Limits(read_mb=2048))
    text = str(info.value)
    assert text.startswith("Reading 't.csv' took all the 2,048 MB of memory a read may use.")
    assert "TVS_MAX_READ_MB=4096" in text and "--limit read_mb=4096" in text and "unexpected" not in text


def test_a_cap_below_what_the_reader_itself_takes_names_the_memory_limit():
    with pytest.raises(DataError, match=r"of the 32 MB a read may use\. .*TVS_MAX_READ_MB=\d+ in the environment"):
        read_table(b"a,b\n1,2\n", name="t.csv", limits=Limits(read_mb=32))


def test_a_readers_own_error_is_one_sentence_naming_the_file_and_what_to_do(parser):
    parser("parse_by_type_error")
    with pytest.raises(DataError) as info:
        read_table(b"a,b\n1,2\n", name="t.parquet")
    text = str(info.value)
    assert text.startswith("Could not read 't.parquet': its reader failed (TypeError: Cannot setitem")
    assert "unexpected" not in text and "save it as CSV" in text


def test_a_path_too_large_is_refused_before_a_process_starts(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_bytes(b"a\n" + b"1\n" * 1000)
    monkeypatch.setattr(reader.subprocess, "Popen", lambda *a, **k: pytest.fail("a process was started"))
    with pytest.raises(DataError, match="TVS_MAX_FILE_MB"):
        read_table(path, limits=Limits(file_mb=1000 / 2**20))


def test_the_child_runs_with_its_address_space_capped(tmp_path, monkeypatch):
    """The cap is the child's own (RLIMIT_AS), not a promise: a parser reports it back."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(reader, "PARSER", "bench.hostile_files:parse_by_reporting_the_cap")
    table = read_table(b"a\n1\n", name="t.csv", limits=Limits(read_mb=3000))
    assert table["cap"].tolist() == [3000 * 2**20]


def _gone(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waiting to be reaped has ended too
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_read_says_it_is_waiting_and_ends_its_child_when_the_wait_is_cancelled(parser, tmp_path, monkeypatch):
    """The dashboard's Cancel: ``waiting`` is called while the child reads; what it raises ends the child at once
    and the read with it."""
    from tests.helpers import wait_until

    parser("parse_by_sleeping")
    monkeypatch.setenv("TVS_TEST_READER_PID", str(tmp_path / "pid"))
    seen = []

    class Cancelled(BaseException):  # as Streamlit's own stop of a script run is no Exception
        pass

    def waiting(seconds: float) -> None:
        seen.append(seconds)
        if (tmp_path / "pid").exists():
            raise Cancelled

    with pytest.raises(Cancelled):
        read_table(b"a,b\n1,2\n", name="t.csv", waiting=waiting)
    assert seen == sorted(seen) and seen[0] > 0
    child = int((tmp_path / "pid").read_text())
    wait_until(lambda: _gone(child), "the reading child has ended", 60)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL", "SIGINT"])
@pytest.mark.slow
def test_the_reading_child_ends_with_the_process_that_started_it(parser, tmp_path, how):
    """Ctrl-C or SIGTERM to a dashboard reading an upload: the child (a session of its own, so the terminal's
    Ctrl-C does not reach it) ran on with PPID 1 until its time or memory cap. Now the kernel ends it with its
    parent (PR_SET_PDEATHSIG), whatever ends the parent."""
    import os
    import signal
    import subprocess
    import sys

    from tests.helpers import wait_until

    marker = tmp_path / "pid"
    script = ("from tvs_core.data import reader\nreader.PARSER = 'bench.hostile_files:parse_by_sleeping'\n"
              "from tvs_core.data.io import read_table\nread_table(b'a,b\\n1,2\\n', name='t.csv')\n")
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, start_new_session=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TVS_TEST_READER_PID": str(marker)},
                              preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        wait_until(marker.exists, "the child is parsing", 600)
        child = int(marker.read_text())
        parent.send_signal(getattr(signal, how))
        parent.wait(timeout=600)
        wait_until(lambda: _gone(child), "the reading child has ended with its parent", 60)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_table_beyond_the_keepers_budget_is_refused_before_it_is_decoded(parser):
    """The third review's 0.44 MB Parquet file grew the server to 6.9 GB: the child could read it under its cap,
    then handed it back whole. What the child reads is weighed (its size in memory) before it is handed over."""
    parser("parse_by_returning_a_large_table")
    with pytest.raises(DataError) as info:
        read_table(b"a,b\n1,2\n", name="t.csv", limits=Limits(table_mb=15))
    assert str(info.value).startswith("'t.csv' takes 15 MB once read, more than the 15 MB a table may take")
    assert "TVS_MAX_TABLE_MB=17" in str(info.value) and "--limit table_mb=17" in str(info.value)
    assert read_table(b"a,b\n1,2\n", name="t.csv", limits=Limits(table_mb=16)).shape == (1_000_000, 2)


def test_an_upload_larger_than_a_pipe_is_read_while_the_page_waits():
    """The dashboard reads an upload's bytes while it says "Reading…": the bytes must all reach the child, which is
    still importing when the first wait ends (a pipe holds 64 KB; the rest used never to be sent, and the read waited
    for ever)."""
    data = b"a,b\n" + b"".join(f"{i},{i % 7}\n".encode() for i in range(300_000))
    assert len(data) > 1 << 20
    seen = []
    table = read_table(data, name="t.csv", limits=Limits(read_seconds=600), waiting=seen.append)
    assert table.shape == (300_000, 2) and table["a"].iloc[-1] == 299_999
