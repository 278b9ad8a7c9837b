"""The store under the dashboard's use: one Store shared by every script run of the server, and a rerun that
starts while the previous run is inside a save (a burst of arrow keys on a slider)."""

from __future__ import annotations

import threading
import time

from tvs_core.projects import Projects
from tvs_core.storage.store import Store
from tvs_core.storage.workspace import Workspace


def test_a_save_while_another_thread_is_inside_a_save_waits_for_it_and_the_last_write_wins(tmp_path):
    """A save interrupted between its start and its commit: another thread's save neither joins its transaction
    ("cannot start a transaction within a transaction" with one shared connection) nor fails; it waits for the
    commit, and what it wrote is what stays."""
    store = Store(tmp_path)
    inside, release = threading.Event(), threading.Event()

    def first_save():
        with store.transaction() as db:
            db.execute("INSERT OR REPLACE INTO projects VALUES ('p', '{\"rho_star\": 0.41}', 1.0)")
            inside.set()
            release.wait(10)  # paused between its start and its commit

    first = threading.Thread(target=first_save)
    first.start()
    assert inside.wait(10)
    errors, done = [], threading.Event()

    def second_save():
        try:
            store.save_project("p", '{"rho_star": 0.61}', 2.0)
        except Exception as exc:  # noqa: BLE001 - the failure is what the test looks for
            errors.append(exc)
        finally:
            done.set()

    second = threading.Thread(target=second_save)
    second.start()
    time.sleep(0.3)
    assert not errors, errors  # it did not fail on the other thread's open transaction ...
    assert not done.is_set()  # ... it waits for that transaction's commit
    release.set()
    first.join(10)
    second.join(10)
    assert not errors and store.project_json("p") == '{"rho_star": 0.61}'  # the last write wins


def test_projects_saved_from_many_threads_at_once_keep_the_last_value(tmp_path):
    """Rapid reruns, each saving the project from its own thread: no error, and the project holds one of the
    written values (the last committed), never a mix."""
    store = Store(Workspace(tmp_path))
    projects = Projects(store)
    from tests.helpers import make_small_table_for_store

    project = projects.create(make_small_table_for_store(), "t", "upload:t.csv")
    errors = []

    def save(value: float):
        try:
            project_copy = projects.load(project.id)
            project_copy.rho_star = value
            projects.save(project_copy)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(0.01 * k,)) for k in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[:3]
    assert projects.load(project.id).rho_star in {0.01 * k for k in range(30)}
    store.close()


def test_forgotten_results_run_again_and_the_progress_counts_what_is_left(tmp_path):
    """``forget_results`` is how a resumed job redoes tasks whose payload this version does not read: their rows
    go, the progress is recounted, and the heads of the payloads left tell their format without reading them."""
    store = Store(tmp_path)
    job_id = "job1"
    with store.transaction() as db:
        db.execute("INSERT INTO jobs (id, config, fingerprint, status, created, done, total) "
                   "VALUES (?, '{}', 'f', 'interrupted', 0, 0, 3)", (job_id,))
    store.add_result(job_id, "a", "mia_shadow", [], 1.0, payload=b"PK\x03\x04rest")
    store.add_result(job_id, "b", "mia_shadow", [], 1.0, payload=b"\x80\x04old")
    store.add_result(job_id, "c", "release", [{"metric": "x"}], 1.0)
    assert store.payload_heads(job_id, 4) == {"a": b"PK\x03\x04", "b": b"\x80\x04ol"}
    store.forget_results(job_id, ["b"])
    assert store.done_tasks(job_id) == {"a", "c"} and store.job(job_id).done == 2
    assert store.add_result(job_id, "b", "mia_shadow", [], 1.0, payload=b"PK\x03\x04new") is True


def test_a_jobs_status_reads_back_as_a_job_status(tmp_path):
    """Stored as its text (earlier workspaces read the same), read back as the enum every caller compares with."""
    from tvs_core.storage.store import JobStatus

    store = Store(tmp_path / "ws")
    store.create_job("j", "f", {"a": 1})
    assert store.job("j").status is JobStatus.QUEUED
    store.update_job("j", status=JobStatus.DONE.value)
    assert store.job("j").status is JobStatus.DONE and store.job("j").status == "done"


# -- a full disk is not a damaged database (the third review: a 2 kB file-size limit read as "damaged") -------------

_UNDER_A_FILE_SIZE_LIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
from tvs_core.errors import TVSError, out_of_room
from tvs_core.storage.store import Store
try:
    store = Store(sys.argv[1])
    with store.transaction() as db:
        db.execute("INSERT INTO meta VALUES ('padding', ?)", ("x" * 100_000,))
except TVSError as exc:
    print("opening:", exc)
except Exception as exc:  # a write inside the work: what the command line and the pages say of it
    print("writing:", out_of_room(exc) or repr(exc))
"""


def test_a_file_size_limit_or_a_full_disk_is_named_and_the_database_stays_where_it_is(tmp_path):
    """A write that fails for want of room (SQLite: an I/O error or SQLITE_FULL) said the database was damaged and
    renamed it aside. The database is sound: it stays, untouched, and the sentence names the cause."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    Store(tmp_path / "space").close()
    before = sorted(p.name for p in (tmp_path / "space").iterdir())
    content = (tmp_path / "space" / "studio.sqlite").read_bytes()
    for limit, when in ((2048, "opening"), (len(content) + 8192, "writing")):
        said = subprocess.run([sys.executable, "-c", _UNDER_A_FILE_SIZE_LIMIT.format(limit=limit),
                               str(tmp_path / "space")], cwd=ROOT, capture_output=True, text=True, timeout=600,
                              env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}).stdout
        assert said.startswith(f"{when}: Could not write to") and "damaged" not in said, said
        assert "file-size limit" in said, said
    assert sorted(p.name for p in (tmp_path / "space").iterdir() if "-" not in p.name) == \
        [n for n in before if "-" not in n]
    store = Store(tmp_path / "space")  # opens as before: nothing was set aside
    assert store.jobs() == []


def test_a_damaged_database_file_is_set_aside_and_a_new_one_begun(tmp_path):
    space = tmp_path / "space"
    Store(space).close()
    (space / "studio.sqlite").write_bytes(b"this is not a database" * 400)
    import pytest

    from tvs_core.errors import TVSError

    with pytest.raises(TVSError, match="is damaged .* set aside as studio.sqlite.damaged-"):
        Store(space)
    assert [p for p in space.iterdir() if p.name.startswith("studio.sqlite.damaged-")]
    assert Store(space).jobs() == []
