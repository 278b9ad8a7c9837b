"""What the tasks of one evaluation share, built the same way for a stored sweep and for ``evaluate()``.

The context fixes everything a task's numbers depend on — encoded train/test rows, the holder and
its recipe, levels, protocol sizes after capping, targets, the attacker's reference rows, the
baselines — so that any task computes the same records whenever and wherever it runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.external import conform_external
from ..data.schema import Schema, infer_schema
from ..data.split import explicit_holdout, holdout_split
from ..errors import DataError
from ..evaluation.context import EvaluationData, GeneratorSpec, encode_rows
from ..evaluation.metrics.attribute import Target, choose_targets
from ..evaluation.metrics.membership.game import FeatureSet, attacker_reference_rows
from ..evaluation.preview import normal_scores_correlation, preview_levels, suggested_levels, table_dependence
from ..evaluation.protocol import Game, Protocol, capped
from ..model.generator import SyntheticGenerator
from ..model.ordering import algorithm1, default_levels, explicit_order
from ..model.tvinesynth import TVineSynth
from ..seeding import task_rng
from .config import SweepConfig, baseline_spec


@dataclass
class JobContext:
    """What every task of a job reads: the sweep's settings whole (``config``) and what they resolve to on this
    table and holder."""

    config: SweepConfig  # the settings the job runs (the games, the attack features, the audit, the master seed…)
    data: EvaluationData
    holder: SyntheticGenerator
    spec: GeneratorSpec  # the holder's recipe, refitted by the attack games
    levels: list  # [None] for a generator without levels
    protocol: Protocol  # the config's, after capping
    caps: list[dict]
    targets: list[Target]
    attacker_rows: np.ndarray | None  # rawA of the membership game
    baselines: list[GeneratorSpec] = field(default_factory=list)
    externals: dict[str, np.ndarray] = field(default_factory=dict)  # name -> encoded rows of a table made elsewhere

    # the settings the tasks read, as the config holds them
    @property
    def seed(self) -> int:
        return self.config.seed

    @property
    def sensitive(self) -> list[str]:
        return self.config.sensitive

    @property
    def games(self) -> list[Game]:
        return self.config.games

    @property
    def baseline_games(self) -> list[Game]:
        return self.config.baseline_games

    @property
    def feature_set(self) -> FeatureSet:
        return self.config.feature_set

    @classmethod
    def from_config(cls, config: SweepConfig, holder: SyntheticGenerator, train: pd.DataFrame, test: pd.DataFrame,
                    *, baselines: list[GeneratorSpec] | None = None, externals: dict[str, pd.DataFrame] | None = None,
                    targets: dict[str, list[int]] | None = None, refit_per_level: bool = False) -> JobContext:
        """The context of the sweep ``config`` for its fitted ``holder`` on its training rows and the hold-out
        ``test`` — the one way a stored sweep (``context_for_job``), its worker and ``evaluate()`` build it.
        ``baselines``: recipes instead of the config's names (``evaluate()``'s callers may give any);
        ``externals``: synthetic tables made elsewhere (name -> table), checked against ``train``'s schema;
        ``targets``: attack targets chosen by the caller (column -> rows); ``refit_per_level``: the games refit the
        holder at each level (the slow reference the fast path is tested against)."""
        data = EvaluationData.from_model(holder, train, test)
        if config.analysis:
            unknown = [c for c in config.analysis if c not in data.names or c == data.schema.response]
            if unknown:
                raise DataError(f"Analysis covariate(s) {', '.join(map(repr, unknown))} are not modelled covariates.",
                                fix=f"Choose from: {', '.join(c for c in data.names if c != data.schema.response)}.")
            data.analysis = list(config.analysis)
        protocol = config.protocol()
        if holder.has_levels:
            levels = sorted(set(config.levels or model_levels(holder, data)))
            if max(levels) > holder.fitted_level_:
                raise DataError(f"Level {max(levels)} is above the model's top level {holder.fitted_level_}.",
                                fix=f"Choose levels from 0 to {holder.fitted_level_}.")
        else:
            levels = [None]
        spec = GeneratorSpec.from_model(holder, reuse_families=config.reuse_families)
        spec.refit_per_level = refit_per_level
        chosen = choose_targets(data, config.sensitive, protocol.outlier_quantiles, protocol.random_targets,
                                task_rng(config.seed, "targets"), targets)
        protocol, caps = capped(protocol, len(data.train) - len({t.row for t in chosen}))
        attacker_rows = (attacker_reference_rows(data, chosen, protocol, config.seed) if Game.MIA in config.games
                         else None)
        encoded = {name: encode_rows(data.encoder, conform_external(frame, train, holder.schema_, name),
                                     holder.schema_, holder.missing) for name, frame in (externals or {}).items()}
        if baselines is None:
            baselines = [baseline_spec(name, config) for name in config.baselines]
        return cls(config, data, holder, spec, levels, protocol, caps, chosen, attacker_rows, list(baselines), encoded)

    def baseline(self, label: str) -> GeneratorSpec:
        """The recipe of the job's baseline ``label``; KeyError naming the job's baselines for any other (a
        StopIteration would end whatever generator happened to ask)."""
        for spec in self.baselines:
            if spec.label == label:
                return spec
        raise KeyError(f"no baseline '{label}' in this job; its baselines: "
                       f"{', '.join(b.label for b in self.baselines) or 'none'}")

    def details(self) -> dict:
        """What a job view needs without rebuilding the context (stored with the job)."""
        return {"levels": [None if lv is None else int(lv) for lv in self.levels], "caps": self.caps,
                "targets": [{"row": t.row, "attribute": t.attribute, "kind": t.kind.value} for t in self.targets],
                "protocol": self.protocol.to_dict(), "baselines": [b.label for b in self.baselines],
                "n_train": int(len(self.data.train)), "n_columns": int(self.data.train.shape[1]),
                "externals": {name: int(len(rows)) for name, rows in self.externals.items()}}


def model_levels(model: SyntheticGenerator, data: EvaluationData) -> list[int]:
    """The default levels of a fitted model: those the instant preview of its own order suggests (``sweep_levels``
    reads the same order and correlation before a fit), or every 5th for a vine without an Algorithm-1 order."""
    if not hasattr(model, "order_"):
        return default_levels(model.fitted_level_)
    correlation = normal_scores_correlation(pd.DataFrame(data.train, columns=data.names))
    return suggested_levels(preview_levels(correlation, model.order_), model.fitted_level_)


def schema_for(table: pd.DataFrame, config: SweepConfig) -> Schema:
    schema = Schema.from_dict(config.schema) if config.schema else infer_schema(table)
    return schema.with_roles(config.response, config.sensitive)


def sweep_levels(config: SweepConfig, train: pd.DataFrame) -> list[int]:
    """The levels a sweep evaluates: the user's, or those the instant preview suggests for this table
    (``suggested_levels``: the paper's every 5th level up to 46 columns; on a wider table at most ten, placed where
    the preview changes). Read from the order and correlation the holder's own fit will find (the same encoding of
    ``train``), before that fit, so that the holder is fitted only up to the highest of them."""
    if config.levels:
        return sorted(set(config.levels))
    schema = schema_for(train, config)
    association, correlation = table_dependence(train, schema, config.missing, config.measure)
    if config.order is not None:
        order = explicit_order(config.order, list(association.columns), config.response, config.sensitive)
    else:
        order = algorithm1(association, config.response, config.sensitive, config.rho_star, config.measure)
    top = order.t_max if config.t_max is None else min(int(config.t_max), order.full_level)
    return suggested_levels(preview_levels(correlation, order), top)


def fit_holder(config: SweepConfig, train: pd.DataFrame, threads: int = 1) -> TVineSynth:
    """The holder's model, fitted up to the sweep's highest level (``config.levels``, resolved by ``sweep_levels``;
    none given: the top level Algorithm 1 advises); ``threads``: pyvinecopulib's threads for the fit (the fit runs
    alone, before the tasks; the same model whatever the number). The fitted model samples with one thread: its
    release tasks already run in parallel."""
    top = config.t_max if config.t_max is not None else (max(config.levels) if config.levels else None)
    model = TVineSynth(response=config.response, sensitive=config.sensitive, rho_star=config.rho_star,
                       measure=config.measure, order=config.order, families=config.families,
                       margins=config.margins, missing=config.missing, t_max=top, seed=config.seed,
                       threads=threads)
    model.fit(train, schema_for(train, config))
    model.threads = 1
    return model


def split_tables(config: SweepConfig, table: pd.DataFrame, holdout: pd.DataFrame | None):
    """The hold-out split is taken before any fit (or the user's own hold-out file is used)."""
    if holdout is None:
        return holdout_split(table, config.response, config.holdout_fraction, config.seed)
    return explicit_holdout(table, holdout, config.response)


def context_for_job(config: SweepConfig, table: pd.DataFrame, holdout: pd.DataFrame | None,
                    holder: SyntheticGenerator | None = None,
                    externals: dict[str, pd.DataFrame] | None = None) -> JobContext:
    """The context of a sweep: split, the holder (fitted unless given), then ``JobContext.from_config``."""
    train, test = split_tables(config, table, holdout)
    return JobContext.from_config(config, holder or fit_holder(config, train), train, test, externals=externals)
