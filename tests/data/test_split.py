"""The hold-out (data/split.py): a split keeps every row once, by strata, reproducibly; a hold-out file is checked."""

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core.data.split import MIN_HOLDOUT_ROWS, explicit_holdout, holdout_split, missing_response_rows
from tvs_core.errors import DataError

SEEDS = [0, 1, 7, 2025]


def numbered(n: int = 200, seed: int = 0) -> pd.DataFrame:
    """The shared small table with a row number, so every row can be followed through a split."""
    return make_small_table(n, seed).assign(row=np.arange(n))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("response", ["y", "income"])  # a class label (strata) and a continuous one (none)
def test_every_row_lands_in_exactly_one_part(seed, response):
    """A row in both parts would be scored on data its model saw; a lost row is data silently dropped."""
    train, test = holdout_split(numbered(), response, 0.25, seed)
    assert sorted([*train["row"], *test["row"]]) == list(range(200))
    assert len(test) == 50  # the fraction asked for
    assert list(train.index) == list(range(150)) and list(test.index) == list(range(50))


@pytest.mark.parametrize("seed", SEEDS)
def test_each_class_keeps_its_share_in_the_holdout(seed):
    """Stratified: a rare class is not left out of the hold-out by chance (three classes here)."""
    table = numbered()
    train, test = holdout_split(table, "color", 0.25, seed)
    for colour, count in table["color"].value_counts().items():
        assert abs((test["color"] == colour).sum() - 0.25 * count) <= 1, colour


def test_the_same_seed_gives_the_same_split_and_another_seed_another():
    """A sweep rerun with its seed scores the same hold-out; a new seed draws a new one."""
    table = numbered()
    first, again, other = (holdout_split(table, "y", 0.2, seed)[1]["row"].tolist() for seed in (3, 3, 4))
    assert first == again
    assert sorted(first) != sorted(other)


def test_rows_without_a_response_are_dropped_before_the_split_and_counted():
    """Such rows can be neither stratified nor scored; the count is what the user is told was dropped."""
    table = numbered().astype({"y": float})
    table.loc[[2, 30, 31, 150], "y"] = np.nan
    assert missing_response_rows(table, "y") == 4
    assert missing_response_rows(table, None) == 0 and missing_response_rows(table, "no such column") == 0
    train, test = holdout_split(table, "y", 0.2, seed=5)
    kept = sorted([*train["row"], *test["row"]])
    assert kept == [r for r in range(200) if r not in (2, 30, 31, 150)]
    assert train["y"].notna().all() and test["y"].notna().all()


def test_a_holdout_file_is_aligned_to_the_data():
    """A file with its columns in another order, or an extra one, is read by the data's header; rows without a
    response are dropped from both; a missing column is named with what to do."""
    table, holdout = make_small_table(100, seed=0), make_small_table(30, seed=1)
    holdout = holdout[list(reversed(holdout.columns))].assign(extra=1.0).astype({"y": float})
    holdout.loc[[0, 1], "y"] = np.nan
    train, test = explicit_holdout(table, holdout, "y")
    assert list(test.columns) == list(table.columns) and len(test) == 28 and len(train) == 100
    with pytest.raises(DataError) as error:
        explicit_holdout(table, holdout.drop(columns="color"))
    assert error.value.column == "color" and "same header" in error.value.fix


def test_a_holdout_file_needs_enough_usable_rows():
    """Fewer usable rows than the utility and membership tests need is refused, saying how many are needed."""
    table, holdout = make_small_table(100, seed=0), make_small_table(MIN_HOLDOUT_ROWS, seed=1)
    assert len(explicit_holdout(table, holdout, "y")[1]) == MIN_HOLDOUT_ROWS
    holdout = holdout.astype({"y": float})
    holdout.loc[0, "y"] = np.nan  # one row without a response: no longer enough
    with pytest.raises(DataError, match=f"{MIN_HOLDOUT_ROWS - 1} usable rows.*at least {MIN_HOLDOUT_ROWS}") as error:
        explicit_holdout(table, holdout, "y")
    assert "Keep more rows aside" in error.value.fix


def test_a_holdout_file_that_repeats_training_rows_is_refused():
    """A hold-out of rows the models saw would make every membership test meaningless; a few duplicate rows
    (real data has them, at most 5 %) are accepted."""
    table, holdout = make_small_table(200, seed=0), make_small_table(40, seed=1)
    holdout.iloc[:2] = table.iloc[[10, 20]].to_numpy()  # 2 of 40: 5 %
    assert len(explicit_holdout(table, holdout)[1]) == 40
    holdout.iloc[2] = table.iloc[30].to_numpy()  # 3 of 40
    with pytest.raises(DataError, match="3 of the hold-out file's 40 rows are also training rows") as error:
        explicit_holdout(table, holdout)
    assert "never saw" in error.value.message and "kept aside" in error.value.fix


def test_training_rows_are_found_in_a_holdout_file_whatever_types_its_columns_were_read_as():
    """A blank cell makes a column of whole numbers floats, and a spreadsheet may give numbers as text: the rows are
    still the training rows, and a hold-out made of them is refused all the same."""
    table, holdout = make_small_table(200, seed=0), make_small_table(40, seed=1)
    holdout.iloc[:10] = table.iloc[:10].to_numpy()
    for read_as in ({"y": "float64"}, {"age": "string", "y": "string"}):
        with pytest.raises(DataError, match="10 of the hold-out file's 40 rows are also training rows"):
            explicit_holdout(table, holdout.astype(read_as))


def test_a_split_that_cannot_be_made_is_refused_in_words_and_many_classes_split_without_strata():
    """What a sweep of a user's table can meet: a response that is not a column, a fraction that leaves one side
    empty, and more classes than the hold-out has rows (sklearn's stratified split refused that)."""
    table = make_small_table(40, seed=0)
    with pytest.raises(DataError, match="'outcome' is not a column") as error:
        holdout_split(table, "outcome")
    assert error.value.column == "outcome"
    for fraction in (0, 1, 1.5):
        with pytest.raises(DataError, match="leaves no rows on one side"):
            holdout_split(table, "y", fraction)
    table["many"] = np.repeat(np.arange(20), 2)  # 20 classes of 2 rows, a hold-out of 8 rows
    train, test = holdout_split(table, "many", 0.2)
    assert len(train) + len(test) == 40 and len(test) == 8
