"""A sweep = a data fingerprint + a configuration, broken into tasks that each store their records.

Tasks are ordered so that the cheap, informative results for every level come first (the holder's
fit, then per level: release MAB/WCAB, utility on a few sets, MCMIA, DCR, fidelity), then the
baselines, then the attack games that refine them. Every task is seeded from the job's master seed
and its own key, so a task computes the same numbers whenever and wherever it runs.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
from dataclasses import asdict, dataclass, field, replace

import pandas as pd

from .errors import DataError
from .evaluation.attribute import choose_targets
from .evaluation.attribute_game import aia_iteration
from .evaluation.context import RAW, EvaluationData, GeneratorSpec
from .evaluation.protocol import QUICK, capped, get_protocol
from .evaluation.release import DISTANCE_SETS, reference_records, release_records
from .evaluation.runner import default_levels, fit_baseline
from .evaluation.utility import explicit_holdout, holdout_split
from .families import DEFAULT_PRESET
from .generator import SyntheticGenerator
from .model import TVineSynth
from .schema import Schema, infer_schema
from .seeding import task_rng, task_seed
from .store import Store

DEFAULT_BASELINES = ("rvine", "rvine_star1", "gaussian_copula", "independent", "dp_vine:0.1", "dp_vine:1",
                     "dp_vine:10")
HOLDER = "tvinesynth"


@dataclass
class SweepConfig:
    """Everything that determines a sweep's numbers (backend and worker count do not)."""

    response: str
    sensitive: list[str]
    rho_star: float | dict | None = None
    measure: str = "kendall"
    order: list[str] | None = None
    levels: list[int] | None = None  # None: every 5th plus 1 and t_max
    preset: str = "quick"
    families: str = DEFAULT_PRESET
    margins: str = "empirical"
    missing: str = "drop_rows"
    t_max: int | None = None
    seed: int = 0
    holdout_fraction: float = 0.2
    baselines: list[str] = field(default_factory=lambda: list(DEFAULT_BASELINES))
    feature_set: str = "correlations"
    games: list[str] = field(default_factory=lambda: ["release", "aia", "mia"])
    # the attack games the baselines play too ("aia", "mia"): game MAB and PG for every model
    baseline_games: list[str] = field(default_factory=list)
    protocol_overrides: dict | None = None  # e.g. {"aia_iterations": 2}: sizes changed from the preset
    schema: dict | None = None  # the user's schema (types and roles); None: inferred

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> SweepConfig:
        return cls(**d)


def fingerprint_table(table: pd.DataFrame) -> str:
    """Content hash of a table: same values, names and dtypes give the same fingerprint."""
    digest = hashlib.sha256()
    digest.update(json.dumps([[str(c), str(t)] for c, t in table.dtypes.items()]).encode())
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def job_id_for(fingerprint: str, config: SweepConfig) -> str:
    text = fingerprint + json.dumps(config.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _data_path(store: Store, fingerprint: str, name: str):
    folder = store.workspace / "data"
    folder.mkdir(exist_ok=True)
    return folder / f"{fingerprint[:24]}-{name}.pkl"


def submit(store: Store, table: pd.DataFrame, config: SweepConfig, holdout: pd.DataFrame | None = None) -> str:
    """Register a sweep (or find the identical one) and keep its data in the workspace; returns the job id."""
    fingerprint = fingerprint_table(table) + ("" if holdout is None else fingerprint_table(holdout))
    fingerprint = hashlib.sha256(fingerprint.encode()).hexdigest()
    job_id = job_id_for(fingerprint, config)
    for name, frame in (("table", table), ("holdout", holdout)):
        path = _data_path(store, fingerprint, name)
        if frame is not None and not path.exists():
            frame.to_pickle(path)  # pickle keeps every dtype exactly; the workspace is local and ours
    store.create_job(job_id, fingerprint, config.to_dict())
    return job_id


def load_job_tables(store: Store, job: dict) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    table_path = _data_path(store, job["fingerprint"], "table")
    if not table_path.exists():
        raise DataError(f"The data of job {job['id']} is no longer in the workspace.",
                        fix="Start the sweep again from the data.")
    holdout_path = _data_path(store, job["fingerprint"], "holdout")
    return pd.read_pickle(table_path), (pd.read_pickle(holdout_path) if holdout_path.exists() else None)


@dataclass(frozen=True)
class Task:
    key: str
    kind: str
    params: tuple = ()
    stage: int = 1


@dataclass
class SweepContext:
    """What the tasks of one job share; built once per worker process from the stored job."""

    config: SweepConfig
    data: EvaluationData
    holder: SyntheticGenerator
    spec: GeneratorSpec
    levels: list[int]
    protocol: object
    caps: list[dict]
    targets: list
    attacker_rows: object

    @property
    def sensitive(self) -> list[str]:
        return list(self.config.sensitive)


def _schema_for(table: pd.DataFrame, config: SweepConfig) -> Schema:
    schema = Schema.from_dict(config.schema) if config.schema else infer_schema(table)
    return schema.with_roles(config.response, config.sensitive)


def fit_holder(config: SweepConfig, train: pd.DataFrame) -> TVineSynth:
    schema = _schema_for(train, config)
    top = config.t_max if config.t_max is not None else (max(config.levels) if config.levels else None)
    model = TVineSynth(response=config.response, sensitive=config.sensitive, rho_star=config.rho_star,
                       measure=config.measure, order=config.order, families=config.families,
                       margins=config.margins, missing=config.missing, t_max=top, seed=config.seed)
    return model.fit(train, schema)


def split_tables(config: SweepConfig, table: pd.DataFrame, holdout: pd.DataFrame | None):
    """The hold-out split is taken before any fit (or the user's own hold-out file is used)."""
    if holdout is None:
        return holdout_split(table, config.response, config.holdout_fraction, config.seed)
    return explicit_holdout(table, holdout)


def build_context(config: SweepConfig, table: pd.DataFrame, holdout: pd.DataFrame | None,
                  holder: SyntheticGenerator | None = None) -> SweepContext:
    train, test = split_tables(config, table, holdout)
    holder = holder or fit_holder(config, train)
    data = EvaluationData.from_model(holder, train, test)
    levels = sorted(set(config.levels or default_levels(holder.fitted_level_)))
    if max(levels) > holder.fitted_level_:
        raise DataError(f"Level {max(levels)} is above the model's top level {holder.fitted_level_}.",
                        fix=f"Choose levels from 0 to {holder.fitted_level_}.")
    protocol = get_protocol(config.preset)
    if config.protocol_overrides:
        protocol = replace(protocol, **config.protocol_overrides)
    targets = choose_targets(data, config.sensitive, protocol.outlier_quantiles, protocol.random_targets,
                             task_rng(config.seed, "targets"))
    protocol, caps = capped(protocol, len(data.train) - len({t.row for t in targets}))
    attacker_rows = None
    if "mia" in config.games:
        from .evaluation.membership import attacker_reference_rows

        attacker_rows = attacker_reference_rows(data, targets, protocol, config.seed)
    return SweepContext(config, data, holder, GeneratorSpec.from_model(holder), levels, protocol, caps, targets,
                        attacker_rows)


def _release_chunks(protocol) -> list[tuple[int, int]]:
    """First chunk = the quick preset's sizes (fast first numbers); the rest refines them."""
    n_sets = max(protocol.utility_sets, protocol.release_sets, DISTANCE_SETS)
    first = min(n_sets, max(QUICK.utility_sets, QUICK.release_sets, DISTANCE_SETS))
    return [(0, first)] + ([(first, n_sets)] if n_sets > first else [])


def baseline_spec(name: str, config: SweepConfig) -> GeneratorSpec:
    base = {"response": config.response, "sensitive": config.sensitive, "margins": config.margins,
            "missing": config.missing, "measure": config.measure}
    if name.startswith("dp_vine:"):
        epsilon = float(name.split(":", 1)[1])
        return GeneratorSpec("dp_vine", {**base, "epsilon": epsilon, "families": config.families}, name)
    from .generator import GENERATORS

    if name not in GENERATORS:
        raise DataError(f"Unknown baseline '{name}'.", fix=f"Choose from: {', '.join(DEFAULT_BASELINES)}.")
    if GENERATORS[name].has_levels:
        base["families"] = config.families
    return GeneratorSpec(name, base, name)


def plan(context: SweepContext) -> list[Task]:
    """Every task of the job, in the order they should start."""
    config, protocol = context.config, context.protocol
    tasks = [Task("holder", "holder", (), 0)]
    games = config.games
    if "release" in games:
        chunks = _release_chunks(protocol)
        tasks.append(Task("reference", "reference"))
        release = [[Task(f"release:{lv}:{a}-{b}", "release", (lv, a, b)) for lv in context.levels] for a, b in chunks]
        tasks += release[0]
        tasks += [Task(f"baseline:{name}", "baseline", (name,)) for name in config.baselines]
        tasks += [task for later in release[1:] for task in later]
    if "aia" in games:
        tasks += [Task(f"aia:{i}", "aia", (i,)) for i in range(protocol.aia_iterations)]
        if "aia" in config.baseline_games:
            tasks += [Task(f"baseline_aia:{name}:{i}", "baseline_aia", (name, i))
                      for i in range(protocol.aia_iterations) for name in config.baselines]
    if "mia" in games:  # holder tasks have params (i,); a baseline's (i, name) and its name in the key
        players = [((), "")] + ([((name,), f":{name}") for name in config.baselines]
                                if "mia" in config.baseline_games else [])
        for owner, tag in players:
            tasks += [Task(f"mia_shadow{tag}:{s}", "mia_shadow", (s, *owner)) for s in range(protocol.mia_shadows)]
        tasks += [Task(f"mia_attackers{tag}", "mia_attackers", owner, 2) for owner, tag in players]
        tasks += [Task(f"mia_eval{tag}:{i}", "mia_eval", (i, *owner), 3)
                  for owner, tag in players for i in range(protocol.mia_iterations)]
    return tasks


def mia_player(task: Task) -> str:
    """Whose membership game a mia_* task belongs to: the holder's or a baseline's."""
    owner = task.params[1:] if task.kind in ("mia_shadow", "mia_eval") else task.params
    return owner[0] if owner else HOLDER


def _mia_model(context: SweepContext, player: str) -> tuple[GeneratorSpec, list]:
    if player == HOLDER:
        return context.spec, context.levels
    return baseline_spec(player, context.config), [None]


def run_task(task: Task, context: SweepContext, inputs: dict | None = None) -> tuple[list[dict], bytes | None]:
    """Compute one task: its tidy records and an optional payload that later stages need."""
    from .evaluation import membership

    c, seed = context.config, context.config.seed
    if task.kind == "reference":
        return reference_records(context.data, seed, context.sensitive), None
    if task.kind == "release":
        level, first, stop = task.params
        return release_records(context.holder, context.data, level, context.protocol, context.sensitive, seed,
                               context.spec.label, chunk=(first, stop)), None
    if task.kind == "baseline":
        spec = baseline_spec(task.params[0], c)
        model = fit_baseline(spec, context.data, seed)
        return release_records(model, context.data, None, context.protocol, context.sensitive, seed, spec.label), None
    if task.kind == "aia":
        return aia_iteration(context.spec, context.data, context.targets, context.levels, context.protocol, seed,
                             task.params[0], context.sensitive), None
    if task.kind == "baseline_aia":  # same subsets and targets as the holder's iteration; no level
        name, iteration = task.params
        records = aia_iteration(baseline_spec(name, c), context.data, context.targets, [None], context.protocol,
                                seed, iteration, context.sensitive)
        return [r for r in records if r["model"] != RAW], None  # the raw reference comes with "aia:<i>"
    if task.kind in ("mia_shadow", "mia_attackers", "mia_eval"):
        player = mia_player(task)
        spec, levels = _mia_model(context, player)
        if task.kind == "mia_shadow":
            result = membership.mia_shadow_task(spec, context.data, context.targets, levels, context.protocol, seed,
                                                task.params[0], context.attacker_rows, c.feature_set)
            return [], pickle.dumps(result)
        if task.kind == "mia_attackers":
            attackers = membership.train_attackers(inputs["shadows"][player], task_seed(seed, "mia", "attackers"))
            buffer = io.BytesIO()
            pickle.dump(attackers, buffer)
            return [], buffer.getvalue()
        return membership.mia_evaluation_task(spec, context.data, context.targets, levels, context.protocol, seed,
                                              task.params[0], inputs["attackers"][player], c.feature_set), None
    raise ValueError(f"unknown task kind {task.kind!r}")
