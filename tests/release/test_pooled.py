"""tvs_core/release/pooled.py: the pooled-release check's parts on small hand-made inputs — when a pooled value is
beyond the single release's interval, the sentences and verdict quoting it, the table in words, and the check itself
with and without a sweep's hold-out rows. The check on a stored sweep is in tests/release/test_ledger.py."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tests.helpers import CopyRows
from tvs_core.data.schema import infer_schema
from tvs_core.evaluation.catalogue import CATALOGUE
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.intervals import SMALL_N, interval_words
from tvs_core.model.baselines import DPVine, IndependentMargins
from tvs_core.release import release_table
from tvs_core.release.ledger import Budget, LedgerEntry
from tvs_core.release.pooled import (
    COLUMNS,
    DISPLAY_COLUMNS,
    TOLERANCE,
    PooledCheck,
    display_table,
    pooled_check,
    raised,
    raised_sentences,
    sha256_of,
    verdict,
)

LOWER = "mia_auc"  # lower is more private
HIGHER = next(name for name, metric in CATALOGUE.items() if not metric.lower_is_better)


def row(metric=LOWER, column=None, single=0.5, low=0.4, high=0.6, n=50, pooled=0.55, flag=None):
    entry = CATALOGUE[metric]
    return {"metric": metric, "label": entry.short, "column": column, "better": entry.better, "single": single,
            "single_low": low, "single_high": high, "n": n, "pooled": pooled, "raised": flag}


def check_of(rows, copies=0, earlier=2) -> PooledCheck:
    return PooledCheck(earlier, 300, pd.DataFrame(rows, columns=COLUMNS), copies, Budget(0.0, 0, earlier + 1))


def entry(sha, epsilon=None, rows=80) -> LedgerEntry:
    return LedgerEntry(id=1, fingerprint="ab", table_name=None, job_id=None, level=None, generator="g", settings={},
                       seed=0, rows=rows, sha256=sha, bytes=0, epsilon=epsilon, note=None, copy="releases/x.parquet",
                       created=0.0)


# -- raised ----------------------------------------------------------------------------------------------------------
def test_a_lower_is_better_attack_is_raised_only_above_the_interval():
    assert raised(LOWER, 0.61, 0.4, 0.6) is True
    assert raised(LOWER, 0.6, 0.4, 0.6) is False  # on the edge: inside
    assert raised(LOWER, 0.1, 0.4, 0.6) is False  # below is more private, not less


def test_a_higher_is_better_metric_is_raised_only_below_the_interval():
    assert raised(HIGHER, 0.39, 0.4, 0.6) is True
    assert raised(HIGHER, 0.4, 0.4, 0.6) is False
    assert raised(HIGHER, 0.9, 0.4, 0.6) is False


def test_a_value_equal_to_the_interval_end_up_to_rounding_is_not_raised():
    """Shares such as TPRs are ratios of small counts: 0.1 computed two ways must not count as beyond 0.1."""
    assert raised(LOWER, 0.1 + TOLERANCE / 2, 0.0, 0.1) is False
    assert raised(LOWER, 0.1 + 10 * TOLERANCE, 0.0, 0.1) is True
    assert raised(HIGHER, 0.4 - TOLERANCE / 2, 0.4, 0.6) is False


@pytest.mark.parametrize("pooled, low, high", [(np.nan, 0.4, 0.6), (0.9, np.nan, 0.6), (0.9, 0.4, np.nan)])
def test_nothing_to_compare_is_neither_raised_nor_not(pooled, low, high):
    assert raised(LOWER, pooled, low, high) is None


# -- sentences, verdict, table ---------------------------------------------------------------------------------------
def test_one_warning_per_raised_row_quoting_its_own_numbers():
    risks = pd.DataFrame([row(pooled=0.7, flag=True), row(metric="release_mab", column="income", flag=False),
                          row(metric=HIGHER, single=0.5, low=0.45, high=0.6, pooled=0.3, flag=True, n=SMALL_N - 1),
                          row(flag=None)], columns=COLUMNS)
    first, second = raised_sentences(risks, 3)
    # the single release's interval worded by the one wording: a 95 % interval of enough sets, a spread of few
    assert first.startswith(f"Pooled with the 3 earlier release(s), {CATALOGUE[LOWER].short} is 0.7000: above "
                            f"the single release's {interval_words(0.4, 0.6, risks['n'][0], 4)} (this release alone: "
                            "0.5000).")
    assert interval_words(0.4, 0.6, risks["n"][0], 4).startswith("95 % interval")
    assert (f"{CATALOGUE[HIGHER].short} is 0.3000: below the single release's spread 0.4500–0.6000 of only "
            f"{SMALL_N - 1} values") in second


def test_a_warning_names_the_column_of_a_per_column_attack():
    risks = pd.DataFrame([row(metric="release_mab", column="income", pooled=0.9, flag=True)], columns=COLUMNS)
    assert f"{CATALOGUE['release_mab'].short} for income is 0.9000" in raised_sentences(risks, 1)[0]


def test_the_verdict_counts_the_raised_rows_among_those_compared():
    check = check_of([row(flag=True), row(flag=False), row(flag=None)])
    assert verdict(check) == ("Pooled with the 2 earlier release(s), 1 of 2 attack value(s) go beyond a single "
                              "release's interval; no pooled row copies a training row.")
    assert check.raised


def test_the_verdict_when_nothing_is_beyond_says_how_many_were_compared_and_the_copies():
    check = check_of([row(flag=False), row(flag=False)], copies=4)
    assert verdict(check) == ("Pooled with the 2 earlier release(s), none of the 2 attack value(s) goes beyond a "
                              "single release's interval; 4 pooled row(s) copy a training row.")
    assert check.raised  # copies of training rows alone raise the check


def test_the_verdict_without_intervals_or_without_attacks():
    no_interval = check_of([row(low=np.nan, high=np.nan, flag=None)])
    assert "the sweep has no interval for a single release at this level" in verdict(no_interval)
    assert not no_interval.raised
    no_attack = check_of([], earlier=1)
    assert verdict(no_attack).startswith("Pooled with the 1 earlier release(s): no attack was run")
    assert not no_attack.raised


def test_the_table_in_words_has_readable_headers_and_values():
    shown = display_table(pd.DataFrame([row(flag=True), row(metric="release_mab", column="income", flag=False),
                                        row(flag=None), row(flag=np.nan)], columns=COLUMNS))
    assert list(shown.columns) == list(DISPLAY_COLUMNS.values())
    assert list(shown["Column"]) == ["all columns", "income", "all columns", "all columns"]
    assert list(shown["Pooled beyond the interval"]) == ["yes", "no", "—", "—"]
    assert set(shown["More private when"]) == {"lower values"}


def test_sha256_of_is_the_files_hex_digest():
    assert sha256_of(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert sha256_of(b"a,b\n1,2\n") == hashlib.sha256(b"a,b\n1,2\n").hexdigest()


# -- the check -------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def split():
    table = make_small_table(120)
    schema = infer_schema(table).with_roles("y", ["income"])
    return table.iloc[:80].reset_index(drop=True), table.iloc[80:].reset_index(drop=True), schema


def test_without_a_sweep_no_attack_runs_but_copies_and_the_budget_are_counted(split):
    train, _, schema = split
    copier = CopyRows(seed=0).fit(train, schema)
    new = release_table(copier, None, 30, 1)
    earlier = [(entry("a"), release_table(copier, None, 20, 2)), (entry("b", epsilon=1.0), train.head(10))]
    check = pooled_check(copier, None, train, new, "new", earlier, ["income"], None, 0)
    assert check.risks.empty and list(check.risks.columns) == COLUMNS
    assert (check.earlier, check.rows, check.copies) == (2, 60, 60)  # every pooled row is a training row
    assert check.budget == Budget(1.0, 1, 2)  # the new release has no ε: one more release without a bound
    assert check.raised and any("60 of the 60 pooled rows are exact copies" in w for w in check.warnings)
    assert any("The attacks were not run" in n for n in check.notes)
    assert "no attack was run" in verdict(check)


def test_the_same_file_exported_again_counts_once_in_the_pool_and_the_budget(split):
    train, _, schema = split
    dp = DPVine(epsilon=0.5, seed=0).fit(train, schema)
    new = release_table(dp, None, 30, 1)
    old = release_table(dp, None, 30, 2)
    earlier = [(entry("old", 0.5), old), (entry("old", 0.5), old), (entry("new", 0.5), new)]
    check = pooled_check(dp, None, train, new, "new", earlier, ["income"], None, 0)
    assert (check.earlier, check.rows) == (1, 60)
    assert check.budget == Budget(1.0, 2, 0)
    assert any("2 earlier export(s) are the same file as another (or as this one) and count once" in n
               for n in check.notes)


def test_with_hold_out_rows_every_attack_runs_and_a_release_alone_is_its_own_pool(split):
    train, test, schema = split
    model = IndependentMargins(seed=0).fit(train, schema)
    data = EvaluationData.from_tables(train, test, model.schema_)
    new = release_table(model, None, 80, 1)
    check = pooled_check(model, data, train, new, "x", [], ["income"], None, 0)
    risks = check.risks.set_index("metric")
    assert {"release_mab", "release_wcab", "mia_auc", "mia_tpr_at_1pct_fpr", "mia_tpr_at_10pct_fpr"} <= set(risks.index)
    assert risks.loc["release_mab", "column"] == "income"
    assert (check.risks["pooled"] == check.risks["single"]).all()  # nothing earlier: the pool is this release
    assert check.risks["raised"].isna().all() and (check.risks["n"] == 0).all()  # no sweep summary: no interval
    assert any("no interval for these attacks" in n for n in check.notes) and not check.warnings
    assert not check.raised and check.rows == 80


def test_a_pool_of_releases_is_attacked_as_one_larger_set(split):
    """The pool's attack differs from the single release's (more rows); what does not change is the single
    release's own value, whatever was released before it."""
    train, test, schema = split
    model = IndependentMargins(seed=0).fit(train, schema)
    data = EvaluationData.from_tables(train, test, model.schema_)
    new = release_table(model, None, 80, 1)
    earlier = [(entry(str(seed)), release_table(model, None, 80, seed)) for seed in (2, 3)]
    alone = pooled_check(model, data, train, new, "x", [], ["income"], None, 0).risks
    pooled = pooled_check(model, data, train, new, "x", earlier, ["income"], None, 0)
    assert pooled.rows == 240 and pooled.earlier == 2
    pd.testing.assert_series_equal(pooled.risks["single"], alone["single"])
    assert not np.allclose(pooled.risks["pooled"], pooled.risks["single"])
