"""A common check that any generator can be run through, as scikit-learn's ``check_estimator`` is for estimators:
whoever registers a generator of their own can learn, before a sweep depends on it, whether it keeps what every
generator here promises.

``check_generator(generator, table)`` fits copies of the generator on ``table`` and checks, in this order:

* **the table comes back as it went in**: the sampled table has the training table's columns, in order, with the
  same dtypes, and a categorical column keeps its categories and their order;
* **the same seed gives the same table**: two fits with the same settings and seed, sampled with the same seed, give
  the same bytes; a sample drawn again from one fit too; another sampling seed gives another table;
* **saving and loading keep the samples**: ``from_json(to_json())`` samples exactly what the fitted model samples
  (a generator that cannot be saved must refuse in words: a ``TVSError``, never a crash);
* **bad settings are refused in words**: each setting of ``BAD_SETTINGS`` the generator takes, set to a value that
  cannot work (a negative ε, an unknown family set as text, no epochs, ...), and a truncation level outside the fitted
  ones, must raise a ``TVSError`` (the library's error for what the user can fix, with a message), not a
  ``TypeError`` or ``ValueError`` from deep inside, and not succeed.

The first failure raises ``GeneratorCheckFailed`` (an ``AssertionError``) naming the generator, the check and what
was seen; a generator that passes gets the list of what was checked.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ..errors import TVSError
from .generator import SyntheticGenerator

# a setting name -> a value no generator taking it can work with, and why; a check applies those the generator takes
BAD_SETTINGS: dict[str, tuple[object, str]] = {
    "epsilon": (-1.0, "a negative privacy budget ε"),
    "delta": (1.5, "a δ above 1"),
    "families": ("no_such_set", "a family set named in text, and unknown"),
    "parametric_method": ("no_such_method", "an unknown estimation method"),
    "margins": ("no_such_margins", "an unknown kind of margins"),
    "missing": ("no_such_policy", "an unknown missing-value policy"),
    "measure": ("no_such_measure", "an unknown association measure"),
    "seed": (-1, "a negative seed"),
    "epochs": (0, "no training epochs"),
    "batch_size": (0, "an empty batch"),
    "embedding_dim": (0, "a latent space without dimensions"),
    "bins": (0, "no bins"),
    "split": (1.5, "a share of the rows above 1"),
    "rho_star": (2.0, "a threshold ρ* above 1"),
    "t_max": (-1, "a negative top level"),
    "iterations": (0, "no iterations"),
    "particles": (0, "no particles"),
}


class GeneratorCheckFailed(AssertionError):
    """A generator broke a promise every generator keeps; the message names the generator and the check."""


def _fail(name: str, check: str, what: str) -> GeneratorCheckFailed:
    return GeneratorCheckFailed(f"{name} fails '{check}': {what}")


def check_generator(generator: type[SyntheticGenerator] | SyntheticGenerator, table: pd.DataFrame, *,
                    rows: int = 60, seed: int = 7, bad_settings: dict[str, tuple[object, str]] | None = None
                    ) -> list[str]:
    """Run every check of the module docstring on ``generator`` (a class, built with its defaults, or an instance
    whose settings are copied: give small ones, every check fits it again) fitted on ``table`` (its roles, the
    response and sensitive columns, come from the generator's settings or are inferred). ``rows``: rows sampled per
    check; ``seed``: the fits' seed; ``bad_settings``: more (or other) refused values, as ``BAD_SETTINGS``.
    Returns what was checked; raises ``GeneratorCheckFailed`` at the first failure."""
    config = {} if isinstance(generator, type) else generator.get_config()
    cls = generator if isinstance(generator, type) else type(generator)
    name = cls.name

    def fitted(**changes) -> SyntheticGenerator:
        return cls(**{**config, "seed": seed, **changes}).fit(table)

    model = _step(name, "fits the table", fitted)
    level = getattr(model, "fitted_level_", None) if cls.has_levels else None
    done = [_step(name, "the table comes back as it went in", _round_trip, model, table, rows, level),
            _step(name, "the same seed gives the same table", _same_seed, model, fitted, rows, level, seed),
            _step(name, "saving and loading keep the samples", _save_and_load, model, rows, level, seed)]
    if level is not None:
        done.append(_levels_refused(name, model, level))
    refused = {**BAD_SETTINGS, **(bad_settings or {})}
    for setting in [s for s in cls.parameter_names() if s in refused]:
        value, why = refused[setting]
        done.append(_refused(name, f"{setting}={value!r} ({why})", lambda s=setting, v=value: fitted(**{s: v})))
    return done


def _step(name: str, check: str, run: Callable, *args):
    """``run(*args)``; an error on the way (not a failed check) fails ``check`` with the error named."""
    try:
        return run(*args)
    except GeneratorCheckFailed:
        raise
    except Exception as error:
        raise _fail(name, check, f"{type(error).__name__}: {error}") from error


def _round_trip(model: SyntheticGenerator, table: pd.DataFrame, rows: int, level) -> str:
    check, name = "the table comes back as it went in", model.name
    sample = model.sample(rows, truncation_level=level, seed=1)
    if list(sample.columns) != list(table.columns):
        raise _fail(name, check, f"columns {list(sample.columns)}, trained on {list(table.columns)}")
    if len(sample) != rows:
        raise _fail(name, check, f"asked for {rows} rows, got {len(sample)}")
    for column in table.columns:
        wanted, got = table[column].dtype, sample[column].dtype
        if str(got) != str(wanted):
            raise _fail(name, check, f"column '{column}' comes back as {got}, trained as {wanted}")
        if isinstance(wanted, pd.CategoricalDtype) and (list(got.categories) != list(wanted.categories)
                                                        or got.ordered != wanted.ordered):
            raise _fail(name, check, f"column '{column}' has categories {list(got.categories)} "
                                     f"(ordered: {got.ordered}), trained with {list(wanted.categories)} "
                                     f"(ordered: {wanted.ordered})")
    return f"{check}: {len(table.columns)} columns, their dtypes and categories"


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """The same table, value for value (NaN equal to NaN), with the same dtypes: what a release's bytes follow."""
    return (list(a.columns) == list(b.columns) and list(a.dtypes.astype(str)) == list(b.dtypes.astype(str))
            and np.array_equal(pd.util.hash_pandas_object(a).to_numpy(), pd.util.hash_pandas_object(b).to_numpy()))


def _same_seed(model: SyntheticGenerator, fitted: Callable[[], SyntheticGenerator], rows: int, level, seed: int
               ) -> str:
    check, name = "the same seed gives the same table", model.name
    first = model.sample(rows, truncation_level=level, seed=seed)
    if not _same(first, model.sample(rows, truncation_level=level, seed=seed)):
        raise _fail(name, check, "sampling one fitted model twice with one seed gave two tables")
    if not _same(first, fitted().sample(rows, truncation_level=level, seed=seed)):
        raise _fail(name, check, "two fits with the same settings and seed sampled different tables")
    if _same(first, model.sample(rows, truncation_level=level, seed=seed + 1)):
        raise _fail(name, check, "another sampling seed gave the same table: the seed is ignored")
    return f"{check}: one fit sampled twice, two fits, and another seed"


def _save_and_load(model: SyntheticGenerator, rows: int, level, seed: int) -> str:
    check, name = "saving and loading keep the samples", model.name
    try:
        text = model.to_json()
    except TVSError as error:
        if model.can_be_saved:  # a sweep hands a saved baseline's model from its fit's task to its sets' (jobs/plan.py)
            raise _fail(name, check, "it says it can be saved (can_be_saved) but refuses to be") from None
        return f"{check}: saving is refused in words ({error})"
    loaded = SyntheticGenerator.from_json(text)
    if type(loaded) is not type(model):
        raise _fail(name, check, f"it loads back as {type(loaded).__name__}")
    if not _same(model.sample(rows, truncation_level=level, seed=seed),
                 loaded.sample(rows, truncation_level=level, seed=seed)):
        raise _fail(name, check, "the loaded model samples another table with the same seed")
    return f"{check}: the loaded model samples the same table"


def _levels_refused(name: str, model: SyntheticGenerator, level: int) -> str:
    for wrong in (level + 1, -1):
        _refused(name, f"truncation level {wrong} (fitted up to {level})",
                 lambda w=wrong: model.sample(5, truncation_level=w, seed=0))
    return f"a truncation level outside 0-{level} is refused in words"


def _refused(name: str, what: str, attempt: Callable[[], object]) -> str:
    """``attempt`` must raise a ``TVSError`` with a message: a bad value neither works nor crashes."""
    check = "bad settings are refused in words"
    try:
        attempt()
    except TVSError as error:
        if not str(error).strip():
            raise _fail(name, check, f"{what} is refused without a message") from error
        return f"{check}: {what}"
    except Exception as error:
        raise _fail(name, check, f"{what} raised {type(error).__name__} ({error}), not a TVSError naming "
                                 "what to fix") from error
    raise _fail(name, check, f"{what} was accepted")
