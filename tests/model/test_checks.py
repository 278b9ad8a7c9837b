"""tvs_core.model.checks: every generator — each built-in one and a registered one — keeps the promises every
generator keeps (``check_generator``); and the check fails, naming the promise, on a generator that breaks one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_mixed_table
from tests.helpers import CopyRows, FailingFit
from tvs_core.errors import DataError
from tvs_core.model import registry
from tvs_core.model.checks import BAD_SETTINGS, GeneratorCheckFailed, check_generator
from tvs_core.model.registry import BUILT_IN, generator_class

# settings that keep a fit to seconds; every other setting is the generator's default
SMALL = {"ctgan": {"epochs": 1, "batch_size": 50}, "tvae": {"epochs": 1, "batch_size": 50}, "mst": {"iterations": 20},
         "privpgd": {"particles": 100, "iterations": 3, "projection_iterations": 3}}
ROLES = {"response": "outcome", "sensitive": ["weight"]}
NOT_SAVED = {"ctgan", "tvae", "privbayes", "mst", "privpgd"}  # evaluated, not released from: saving is refused


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return make_mixed_table()  # one column of every type the library knows


@pytest.mark.parametrize("name", [*sorted(BUILT_IN), CopyRows.name])
def test_every_generator_passes_the_common_check(name, table):
    done = check_generator(generator_class(name)(**ROLES, **SMALL.get(name, {})), table)
    assert any(line.startswith("the table comes back") for line in done)
    saved = [line for line in done if line.startswith("saving and loading")]
    kept = "the loaded model samples the same table"
    assert saved == [f"saving and loading keep the samples: {kept}"] or (name in NOT_SAVED and "refused" in saved[0])
    settings = set(generator_class(name).parameter_names()) & set(BAD_SETTINGS)
    assert sum(line.startswith("bad settings are refused") for line in done) == len(settings)


@pytest.fixture
def registered(monkeypatch) -> dict:
    """A registry of the test's own: the broken generators below are forgotten afterwards."""
    fresh = dict(registry._registered)
    monkeypatch.setattr(registry, "_registered", fresh)
    return fresh


def _fails(generator, table, check: str, seen: str, **options) -> None:
    with pytest.raises(GeneratorCheckFailed) as failed:
        check_generator(generator, table, **options)
    message = str(failed.value)
    assert message.startswith(f"{generator.name} fails '{check}'"), message
    assert seen in message, message


class IgnoresTheSeed(CopyRows):
    name = "ignores_the_seed_check_test"

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        return self.rows_[np.resize(np.arange(len(self.rows_)), n)]


class UnseededFit(CopyRows):
    name = "unseeded_fit_check_test"

    def _fit_values(self, values: np.ndarray) -> None:
        self.rows_ = np.random.default_rng().permutation(values)

    def _sample_values(self, n: int, level, rng: np.random.Generator) -> np.ndarray:
        return self.rows_[np.resize(np.arange(len(self.rows_)), n)][rng.permutation(n)]


class ForgetsItsRows(CopyRows):
    name = "forgets_its_rows_check_test"

    def _state(self) -> dict:
        return {}

    def _load_state(self, state: dict) -> None:
        pass


class LosesCategories(CopyRows):
    name = "loses_categories_check_test"

    def decode(self, values: np.ndarray) -> pd.DataFrame:
        table = super().decode(values)
        return table.assign(ward=table["ward"].astype(str))


class TakesEpochs(CopyRows):
    """A setting ``epochs`` that 0 breaks: accepted, or refused by a ValueError from deep inside."""

    name = "takes_epochs_check_test"

    def __init__(self, epochs: int = 5, width: int = 2, crash: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.epochs, self.width, self.crash = epochs, width, crash

    def _fit_values(self, values: np.ndarray) -> None:
        if self.crash and self.epochs < 1:
            raise ValueError("range() arg 3 must not be zero")
        super()._fit_values(values)


class ChecksItsSettings(TakesEpochs):
    name = "checks_its_settings_check_test"

    def _check_settings(self) -> None:
        super()._check_settings()
        self._require_counts("epochs", "width")


def test_a_generator_that_ignores_the_sampling_seed_fails(registered, table):
    _fails(IgnoresTheSeed(**ROLES), table, "the same seed gives the same table", "the seed is ignored")


def test_a_generator_whose_fit_is_not_seeded_fails(registered, table):
    _fails(UnseededFit(**ROLES), table, "the same seed gives the same table", "two fits with the same settings")


def test_a_generator_that_saves_without_its_state_fails_naming_the_error(registered, table):
    registry.register(ForgetsItsRows)
    _fails(ForgetsItsRows(**ROLES), table, "saving and loading keep the samples", "AttributeError")


def test_a_generator_that_loses_a_columns_categories_fails_naming_the_column(registered, table):
    _fails(LosesCategories(**ROLES), table, "the table comes back as it went in", "column 'ward'")


def test_a_bad_setting_accepted_or_refused_by_a_crash_fails_and_one_refused_in_words_passes(registered, table):
    registry.register(TakesEpochs)
    _fails(TakesEpochs(**ROLES), table, "bad settings are refused in words",
           "epochs=0 (no training epochs) was accepted")
    _fails(TakesEpochs(crash=True, **ROLES), table, "bad settings are refused in words", "raised ValueError")
    registry.register(ChecksItsSettings)
    done = check_generator(ChecksItsSettings(**ROLES), table)
    assert "bad settings are refused in words: epochs=0 (no training epochs)" in done
    with pytest.raises(DataError, match="'epochs' must be a whole number of at least 1") as refused:
        ChecksItsSettings(epochs=0, **ROLES).fit(table)
    assert "its default (5)" in refused.value.fix


class ChecksEpochsOnly(TakesEpochs):
    name = "checks_epochs_only_check_test"

    def _check_settings(self) -> None:
        super()._check_settings()
        self._require_counts("epochs")


def test_a_setting_of_the_generators_own_is_checked_when_the_caller_names_a_bad_value(registered, table):
    own = {"width": (0, "no width")}
    for generator in (ChecksEpochsOnly, ChecksItsSettings):
        registry.register(generator)
    assert not any("width" in line for line in check_generator(ChecksItsSettings(**ROLES), table))
    assert "bad settings are refused in words: width=0 (no width)" in \
        check_generator(ChecksItsSettings(**ROLES), table, bad_settings=own)
    _fails(ChecksEpochsOnly(**ROLES), table, "bad settings are refused in words", "width=0 (no width) was accepted",
           bad_settings=own)


def test_a_generator_whose_fit_crashes_fails_naming_the_error(table):
    _fails(FailingFit(**ROLES), table, "fits the table", "RuntimeError: planted failure")


class CopiesOutcome(CopyRows):
    """Its roles are its defaults, so the class itself can be checked."""

    name = "copies_outcome_check_test"

    def __init__(self, response: str = "outcome", **kwargs):
        super().__init__(response=response, **kwargs)


def test_a_class_is_checked_with_its_defaults(registered, table):
    registry.register(CopiesOutcome)
    assert "saving and loading keep the samples: the loaded model samples the same table" in \
        check_generator(CopiesOutcome, table)
