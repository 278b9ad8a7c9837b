"""The release ledger (every export, per table, surviving restarts) and the pooled-release check."""

import json

import pandas as pd
import pytest

from tests.helpers import CopyRows, run
from tvs_core.jobs import JobView
from tvs_core.model.baselines import DPVine
from tvs_core.release import release_table, to_csv_bytes
from tvs_core.release.ledger import budget, record_release, releases
from tvs_core.release.pooled import pooled_check, sha256_of
from tvs_core.storage.store import Store


@pytest.fixture(scope="module")
def sweep(stored_sweep):
    store, job_id, table = stored_sweep
    view = JobView(store, job_id)
    model = view.holder()
    train, _ = view.tables()
    return view, model, train, view.evaluation_data(model)


def export(store, view, model, level, seed, note=None, rows=None):
    """What the Export page's download does: the CSV bytes, then the ledger entry."""
    train, _ = view.tables()
    table = release_table(model, level, rows or len(train), seed)
    data = to_csv_bytes(table)
    entry = record_release(store, view.table_fingerprint, table, data, sha256_of(data), model, level, seed, note=note,
                           job_id=view.id, table_name="clinical (300 rows)")
    return entry, table, data


def test_two_exports_are_two_rows_that_survive_a_restart(sweep, tmp_path):
    view, model, _, _ = sweep
    store = Store(tmp_path)
    first, table, data = export(store, view, model, 2, seed=1, note="for the registry team")
    second, _, _ = export(store, view, model, 2, seed=2)
    store.close()
    reopened = Store(tmp_path)  # a restart: nothing but the files on disk
    found = releases(reopened, view.table_fingerprint)
    assert [e.id for e in found] == [first.id, second.id]
    assert found[0].note == "for the registry team" and found[1].note is None
    assert found[0].sha256 == sha256_of(data) and found[0].bytes == len(data)
    assert found[0].level == 2 and found[0].seed == 1 and found[0].rows == len(table)
    assert found[0].generator == "tvinesynth" and found[0].settings["families"] == model.get_config()["families"]
    assert found[0].sha256 != found[1].sha256
    kept = found[0].table(reopened)  # the workspace's copy, even if the exported file is moved
    pd.testing.assert_frame_equal(kept, table)
    assert to_csv_bytes(kept) == data
    assert budget(found).other_releases == 2 and budget(found).dp_releases == 0


@pytest.mark.slow
def test_different_tables_do_not_mix(sweep, tmp_path):
    view, model, _, _ = sweep
    store = Store(tmp_path)
    export(store, view, model, 1, seed=3)
    other = pd.DataFrame({"a": [1.0, 2.0]})
    record_release(store, "f" * 64, other, b"a\n1\n2\n", sha256_of(b"a\n1\n2\n"), model, 1, 0, table_name="other")
    mine = releases(store, view.table_fingerprint)
    assert len(mine) == 1 and mine[0].fingerprint == view.table_fingerprint
    assert [e.table_name for e in releases(store, "f" * 64)] == ["other"]
    assert len(releases(store)) == 2


def test_pooled_check_attacks_the_union_of_the_releases(sweep, tmp_path):
    view, model, train, data = sweep
    store = Store(tmp_path)
    export(store, view, model, 3, seed=11)
    export(store, view, model, 3, seed=12)
    new = release_table(model, 3, len(train), 13)
    earlier = [(e, e.table(store)) for e in releases(store, view.table_fingerprint)]
    check = pooled_check(model, data, train, new, sha256_of(to_csv_bytes(new)), earlier, view.config.sensitive, 3,
                         view.config.seed, view.summary())
    assert check.earlier == 2 and check.rows == 3 * len(new)
    risks = check.risks.set_index("metric")
    assert {"release_mab", "release_wcab", "mia_auc", "mia_tpr_at_1pct_fpr"} <= set(risks.index)
    assert risks[["single", "pooled", "single_low", "single_high"]].notna().all().all()
    assert risks.loc["mia_auc", "label"] == "Membership attack AUC"  # the catalogue's label
    # the pool is one attacker's data: its membership AUC is not below the single release's by more than noise
    assert risks.loc["mia_auc", "pooled"] >= risks.loc["mia_auc", "single"] - 0.05
    assert check.copies == 0
    # a single release alone (nothing earlier) is its own pool
    alone = pooled_check(model, data, train, new, "x", [], view.config.sensitive, 3, view.config.seed)
    assert (alone.risks["pooled"] == alone.risks["single"]).all() and not alone.warnings


@pytest.mark.kernels
def test_pooled_releases_of_a_copy_generator_are_flagged(sweep, tmp_path):
    view, model, train, data = sweep
    copier = CopyRows(seed=0).fit(train, model.schema_)
    store = Store(tmp_path)
    for seed in (1, 2):
        table = release_table(copier, None, len(train), seed)
        csv = to_csv_bytes(table)
        record_release(store, view.table_fingerprint, table, csv, sha256_of(csv), copier, None, seed)
    new = release_table(copier, None, len(train), 3)
    earlier = [(e, e.table(store)) for e in releases(store, view.table_fingerprint)]
    check = pooled_check(copier, data, train, new, sha256_of(to_csv_bytes(new)), earlier, view.config.sensitive,
                         None, view.config.seed, view.summary())
    assert check.copies == 3 * len(train) and check.raised
    assert any("exact copies of training rows" in w for w in check.warnings)
    risks = check.risks.set_index("metric")
    # the pool holds the training rows themselves: more exposed than any release of the honest model the sweep
    # measured (its intervals' upper ends, from the same table)
    summary = view.summary()
    honest = summary.holder().metric("mia_auc").frame["ci_high"]
    assert len(honest) and risks.loc["mia_auc", "pooled"] > honest.max()


def test_epsilon_adds_up_over_dp_releases(sweep, tmp_path):
    view, model, train, data = sweep
    store = Store(tmp_path)
    for epsilon in (1.0, 0.5):
        dp = DPVine(epsilon=epsilon, seed=0).fit(train, model.schema_)
        table = release_table(dp, None, 100, 0)
        csv = to_csv_bytes(table)
        record_release(store, view.table_fingerprint, table, csv, sha256_of(csv), dp, None, 0)
        if epsilon == 1.0:  # the same file exported twice publishes nothing new: its ε counts once
            record_release(store, view.table_fingerprint, table, csv, sha256_of(csv), dp, None, 0)
    entries = releases(store, view.table_fingerprint)
    assert [e.epsilon for e in entries] == [1.0, 1.0, 0.5]
    spent = budget(entries)
    assert spent.epsilon == pytest.approx(1.5) and spent.dp_releases == 2 and spent.other_releases == 0
    dp = DPVine(epsilon=2.0, seed=0).fit(train, model.schema_)
    new = release_table(dp, None, 100, 1)
    check = pooled_check(dp, data, train, new, sha256_of(to_csv_bytes(new)), [(e, e.table(store)) for e in entries],
                         view.config.sensitive, None, view.config.seed)
    assert check.budget.epsilon == pytest.approx(3.5) and check.budget.dp_releases == 3
    assert any("count once" in n for n in check.notes)




@pytest.mark.slow
def test_cli_release_records_and_ledger_lists_per_table(tmp_path, stored_sweep):
    _, _, table = stored_sweep
    data = tmp_path / "cohort.csv"
    table.to_csv(data, index=False)
    workspace = tmp_path / "ws"
    common = ["release", data, "--response", "in_hospital_death", "--sensitive", "total_cost_eur", "--level", "2",
              "--rows", "50", "--ledger", "--workspace", workspace]
    for seed in (1, 2):
        result = run(*common, "--seed", seed, "--note", f"seed {seed}", "--out", tmp_path / f"s{seed}.csv")
        assert result.returncode == 0, result.stderr
    listed = run("ledger", data, "--workspace", workspace)
    assert listed.returncode == 0, listed.stderr
    tables = json.loads(listed.stdout)["tables"]
    assert len(tables) == 1 and [r["note"] for r in tables[0]["releases"]] == ["seed 1", "seed 2"]
    assert tables[0]["releases"][0]["sha256"] == sha256_of((tmp_path / "s1.csv").read_bytes())
    assert tables[0]["releases_without_dp"] == 2 and tables[0]["epsilon_total"] == 0
    everything = json.loads(run("ledger", "--workspace", workspace).stdout)["tables"]
    assert [t["fingerprint"] for t in everything] == [tables[0]["fingerprint"]]


@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["ledger", "missing.csv"], "does not exist"),
    (["ledger", "x.csv", "--demo", "clinical"], "Both DATA and --demo"),
    (["ledger", "--demo", "nope"], "invalid choice"),
    (["ledger", "--workspace", "{file}"], "is a file"),
])
def test_cli_ledger_refuses_bad_input_in_one_line(args, words, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    args = [str(a).replace("{file}", str(tmp_path / "file")) for a in args]
    result = run(*args) if "--workspace" in args else run(*args, "--workspace", tmp_path / "space")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr


def test_the_ledger_table_shows_who_chose_and_the_note_beside_the_level():
    """Finding 8 (issue 45): the Export page's ledger table showed no "who chose" or "note" — they were its last
    columns, behind the 64-character hash a screen shows only after a scroll."""
    from tvs_core.release.ledger import LedgerEntry, ledger_frame

    entry = LedgerEntry(1, "f" * 64, "ward", "job", 3, "tvinesynth", {}, 0, 100, "ab" * 32, 1000, None,
                        "for the registry", "copy", 0.0, "chosen by the user; the recommended level is 3 (the same)")
    frame = ledger_frame([entry])
    columns = list(frame.columns)
    assert columns[:5] == ["release", "time", "level", "who chose the level", "note"]
    assert columns.index("note") < columns.index("sha256") and columns.index("note") < columns.index("fingerprint")
    assert frame.loc[0, "who chose the level"].startswith("chosen by the user") and frame.loc[0, "note"] == \
        "for the registry"
