"""tvs_core/jobs/context.py: a sweep's context fixes everything its tasks' numbers depend on — the hold-out split
taken before any fit (or the user's own hold-out file), the holder fitted once up to its top level, the levels,
the protocol's sizes capped to the rows there are, the targets, the attacker's reference rows and the baselines —
so that it is built the same way wherever and whenever it is built, and ``details()`` hands a job view what it needs
without rebuilding it. The numbers the tasks compute from it are tested by the sweeps in this folder."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tests.helpers import TINY
from tvs_core import IndependentMargins
from tvs_core.errors import DataError
from tvs_core.evaluation.protocol import Game
from tvs_core.jobs import SweepConfig
from tvs_core.jobs.context import context_for_job, fit_holder, split_tables

Y = "y"
CAPPED = ("aia_size_raw", "aia_bootstrap_size", "mia_size_attacker", "mia_size_raw")


def config(**changes) -> SweepConfig:
    base = dict(response=Y, sensitive=["income"], levels=[1, 2], baselines=["independent"], protocol_overrides=TINY)
    return SweepConfig(**{**base, **changes})


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return make_small_table(n=120)


@pytest.fixture(scope="module")
def holder(table):
    """The holder of ``config()``, fitted once for the module (fitted up to level 2)."""
    return fit_holder(config(), split_tables(config(), table, None)[0])


@pytest.fixture(scope="module")
def context(table, holder):
    return context_for_job(config(), table, None, holder)


# -- split_tables --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fraction", [0.2, 0.35])
def test_the_split_sets_aside_the_configured_share_of_rows_and_every_row_lands_on_one_side(table, fraction):
    train, test = split_tables(config(holdout_fraction=fraction), table, None)
    assert len(test) == math.ceil(fraction * len(table)) and len(train) + len(test) == len(table)
    both = pd.concat([train, test]).sort_values(["age", "income"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(both, table.sort_values(["age", "income"]).reset_index(drop=True))


def test_the_same_settings_split_the_same_way_and_the_seed_decides_which_rows_are_held_out(table):
    first, again = split_tables(config(seed=3), table, None), split_tables(config(seed=3), table, None)
    pd.testing.assert_frame_equal(first[1], again[1])
    seeds = [tuple(sorted(split_tables(config(seed=s), table, None)[1]["income"])) for s in range(4)]
    assert len(set(seeds)) > 1  # four seeds, at least two different hold-outs


def test_a_hold_out_file_is_used_as_given_instead_of_a_split(table):
    """The whole table trains; the hold-out keeps its rows, with its columns put in the table's order."""
    kept_aside = make_small_table(n=30, seed=7)[["y", "color", "sex", "income", "age"]]
    train, test = split_tables(config(holdout_fraction=0.5), table, kept_aside)
    pd.testing.assert_frame_equal(train, table)
    assert list(test.columns) == list(table.columns) and len(test) == 30
    pd.testing.assert_frame_equal(test, kept_aside[list(table.columns)])


def test_a_hold_out_file_that_repeats_the_training_rows_is_refused(table):
    with pytest.raises(DataError, match="also training rows"):
        split_tables(config(), table, table.head(40))


# -- fit_holder ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("changes", "top"), [
    (dict(levels=[1, 2]), 2),  # no t_max: the highest level asked for
    (dict(levels=[1], t_max=3), 3),  # t_max wins over the levels
    (dict(levels=None, t_max=3), 3),
])
def test_the_holder_is_fitted_up_to_the_top_level_the_sweep_needs(table, changes, top):
    train, _ = split_tables(config(**changes), table, None)
    model = fit_holder(config(**changes), train, threads=2)
    assert model.fitted_level_ == top
    assert model.response == Y and list(model.sensitive_) == ["income"]
    assert model.threads == 1  # fitted with the threads given, samples with one (its tasks run in parallel)


def test_the_holder_follows_the_users_schema_when_the_sweep_has_one(table):
    """Without a schema the codes of ``color`` would be inferred as nominal; the user's schema says ordinal."""
    from tvs_core.data.schema import infer_schema

    schema = infer_schema(table).to_dict()
    for column in schema["columns"]:
        if column["name"] == "color":
            column.update(type="ordinal", levels=["red", "green", "blue"])
    train, _ = split_tables(config(), table, None)
    assert fit_holder(config(), train).schema_["color"].type != "ordinal"
    assert fit_holder(config(schema=schema), train).schema_["color"].type == "ordinal"


# -- context_for_job -----------------------------------------------------------------------------------------------
def test_a_holder_handed_in_is_used_as_it_is_and_its_training_rows_are_the_splits(context, holder, table):
    train, test = split_tables(config(), table, None)
    assert context.holder is holder
    assert len(context.data.train) == len(train) and len(context.data.test) == len(test)
    assert context.levels == [1, 2] and context.seed == config().seed and context.sensitive == ["income"]


def test_the_context_is_the_same_whenever_it_is_built(context, holder, table):
    """A resumed job rebuilds its context: the same targets, attacker rows, sizes and encoded rows."""
    again = context_for_job(config(), table, None, holder)
    assert again.targets == context.targets and again.caps == context.caps and again.protocol == context.protocol
    np.testing.assert_array_equal(again.attacker_rows, context.attacker_rows)
    np.testing.assert_array_equal(again.data.train, context.data.train)


def test_every_size_the_attacker_draws_is_capped_to_the_rows_outside_the_targets_and_each_cap_is_recorded(context):
    pool = len(context.data.train) - len({t.row for t in context.targets})
    for field in CAPPED:
        assert getattr(context.protocol, field) <= pool
    assert context.protocol.mia_size_raw <= 0.8 * context.protocol.mia_size_attacker
    requested = config().protocol()
    for cap in context.caps:
        assert cap["used"] < cap["requested"] == getattr(requested, cap["parameter"])
        assert getattr(context.protocol, cap["parameter"]) == cap["used"]
    lowered = {f for f in CAPPED if getattr(context.protocol, f) < getattr(requested, f)}
    assert {cap["parameter"] for cap in context.caps} == lowered


def test_targets_are_training_rows_of_the_sensitive_columns_with_outliers_and_random_rows(context):
    protocol = config().protocol()
    assert {t.attribute for t in context.targets} == {"income"}
    kinds = [t.kind for t in context.targets]
    assert kinds.count("outlier") == len(protocol.outlier_quantiles)
    assert kinds.count("random") == protocol.random_targets
    rows = [t.row for t in context.targets]
    assert len(set(rows)) == len(rows) and all(0 <= r < len(context.data.train) for r in rows)


def test_the_attackers_reference_rows_exist_only_when_the_membership_game_is_played(table, holder, context):
    assert context.attacker_rows is not None and len(context.attacker_rows) == context.protocol.mia_size_attacker
    assert not {t.row for t in context.targets} & set(np.asarray(context.attacker_rows).tolist())
    without = context_for_job(config(games=["release", "aia"]), table, None, holder)
    assert without.attacker_rows is None and without.games == [Game.RELEASE, Game.AIA]


def test_baselines_are_named_as_the_sweep_names_them(table, holder):
    context = context_for_job(config(baselines=["independent", "dp_vine:1"]), table, None, holder)
    assert [b.label for b in context.baselines] == ["independent", "dp_vine:1"]
    assert context.baseline("dp_vine:1").config["epsilon"] == 1.0
    assert context.baseline("independent").name == "independent"
    with pytest.raises(KeyError, match="no baseline 'rvine' in this job; its baselines: independent, dp_vine:1"):
        context.baseline("rvine")


def test_an_unknown_baseline_is_refused_with_the_names_to_choose_from(table, holder):
    with pytest.raises(DataError, match="Unknown baseline 'nonsense'") as refused:
        context_for_job(config(baselines=["nonsense"]), table, None, holder)
    assert "independent" in refused.value.fix


def test_a_level_above_the_holders_top_level_is_refused(table, holder):
    with pytest.raises(DataError, match="above the model's top level 2"):
        context_for_job(config(levels=[1, 3]), table, None, holder)


def test_a_holder_without_levels_has_the_one_level_none(table):
    train, _ = split_tables(config(), table, None)
    margins = IndependentMargins(response=Y, sensitive=["income"]).fit(train)
    context = context_for_job(config(), table, None, margins)
    assert context.levels == [None] and context.details()["levels"] == [None]


def test_analysis_covariates_must_be_modelled_covariates(table, holder):
    assert context_for_job(config(analysis=["age", "sex"]), table, None, holder).data.analysis == ["age", "sex"]
    for wrong in (["weight"], [Y]):  # not a column; the response itself
        with pytest.raises(DataError, match="not modelled covariates"):
            context_for_job(config(analysis=wrong), table, None, holder)


def test_an_external_table_is_encoded_like_the_training_rows_and_must_have_their_columns(table, holder):
    mine = make_small_table(n=40, seed=5)
    context = context_for_job(config(), table, None, holder, externals={"mine": mine})
    assert context.externals["mine"].shape == (40, context.data.train.shape[1])
    with pytest.raises(DataError, match="lacks column 'age'"):
        context_for_job(config(), table, None, holder, externals={"mine": mine.drop(columns="age")})


# -- details -------------------------------------------------------------------------------------------------------
def test_details_are_what_a_job_view_reads_back_and_survive_json(table, holder):
    context = context_for_job(config(baselines=["independent", "dp_vine:1"]), table, None, holder,
                              externals={"mine": make_small_table(n=40, seed=5)})
    details = json.loads(json.dumps(context.details()))  # stored with the job as JSON
    assert details["levels"] == [1, 2] and all(type(lv) is int for lv in details["levels"])
    assert details["caps"] == context.caps and details["protocol"] == json.loads(json.dumps(context.protocol.to_dict()))
    assert details["targets"] == [{"row": t.row, "attribute": t.attribute, "kind": t.kind} for t in context.targets]
    assert details["baselines"] == ["independent", "dp_vine:1"]
    assert details["n_train"] == len(context.data.train) and details["n_columns"] == 5
    assert details["externals"] == {"mine": 40}


def test_details_hold_numpy_levels_as_plain_integers(table, holder):
    """A level read from an array (np.int64) is written as a plain int: JSON refuses NumPy integers."""
    context = context_for_job(config(levels=list(np.array([1, 2]))), table, None, holder)
    assert json.dumps(context.details()["levels"]) == "[1, 2]"
