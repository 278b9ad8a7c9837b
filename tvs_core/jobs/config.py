"""What a sweep is: the settings that determine its numbers, and its identity in the store."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field, replace

from ..errors import DataError
from ..evaluation.context import GeneratorSpec
from ..evaluation.dp_audit import DEFAULT_TRIALS
from ..evaluation.protocol import ProtocolPreset, get_protocol
from ..evaluation.records import HOLDER, RAW, REAL, SHUFFLED
from ..model.competitors import PRESETS
from ..model.families import DEFAULT_PRESET
from ..model.registry import EPSILON_GENERATORS, generator_class, generator_names

DEFAULT_BASELINES = ("rvine", "rvine_star1", "gaussian_copula", "independent", "dp_vine:0.1", "dp_vine:1",
                     "dp_vine:10")
# the paper's competitors at its settings (Figure 2, Appendix J); CTGAN, TVAE and PrivPGD need
# requirements-competitors.txt (torch); PrivPGD at the paper's ε = 2.5, δ = 1e-5 (docs/reference/models.md,
# "Competitors")
COMPETITORS = ("ctgan", "tvae", "privbayes:0.1", "privbayes:1", "privbayes:5", "privpgd:2.5")
# offered next to them: MST, which stood in for PrivPGD before it was implemented (same ε, δ)
OTHER_COMPETITORS = ("mst:2.5",)


@dataclass
class SweepConfig:
    """Everything that determines a sweep's numbers (backend and worker count do not)."""

    response: str | None  # None only while a project has no response yet (a sweep cannot start then)
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
    # the covariates of the analysis whose confidence intervals ci_overlap compares (Y on them); None: all
    analysis: list[str] | None = None
    # synthetic tables made elsewhere, scored like a release: name -> fingerprint of the workspace copy
    externals: dict[str, str] | None = None
    # the games refit the holder's pair-copula families (parameters only) instead of selecting them again:
    # an opt-in deviation from the paper that makes the paper's family set affordable
    reuse_families: bool = False
    # fits of the empirical audit of every baseline that claims an ε (evaluation/dp_audit.py); 0: no audit
    dp_audit_trials: int = 0

    def to_dict(self) -> dict:
        d = asdict(self)
        # settings added after the first sweeps were stored: left out when unset, so earlier sweeps keep their ids
        for added in ("analysis", "externals", "reuse_families", "dp_audit_trials"):
            if not d[added]:
                del d[added]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> SweepConfig:
        return cls(**d)

    # the Sweep page's switches, each a yes/no view of the field that carries it
    @property
    def baselines_play_games(self) -> bool:
        return bool(self.baseline_games)

    @baselines_play_games.setter
    def baselines_play_games(self, on: bool) -> None:
        self.baseline_games = ["aia", "mia"] if on else []

    @property
    def per_target_shadows(self) -> bool:
        """The paper's membership game: a subset and an OUT model per target instead of shared shadows."""
        return (self.protocol_overrides or {}).get("mia_shared_shadows") is False

    @per_target_shadows.setter
    def per_target_shadows(self, on: bool) -> None:
        others = {k: v for k, v in (self.protocol_overrides or {}).items() if k != "mia_shared_shadows"}
        self.protocol_overrides = ({**others, "mia_shared_shadows": False} if on else others) or None

    def protocol(self) -> ProtocolPreset:
        """The game and release sizes this sweep runs: its preset's, with its overrides."""
        protocol = get_protocol(self.preset)
        return replace(protocol, **self.protocol_overrides) if self.protocol_overrides else protocol

    @property
    def audits_dp(self) -> bool:
        return self.dp_audit_trials > 0

    @audits_dp.setter
    def audits_dp(self, on: bool) -> None:
        self.dp_audit_trials = DEFAULT_TRIALS if on else 0


def job_id_for(fingerprint: str, config: SweepConfig) -> str:
    text = fingerprint + json.dumps(config.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_external_name(name: str, config: SweepConfig) -> None:
    """An external set's name labels its records: it must not be taken by a model or a reference row."""
    taken = {HOLDER, REAL, SHUFFLED, RAW, *generator_names(), *config.baselines}
    plain = name.replace("_", "").replace("-", "").isalnum()
    if not plain or name in taken:
        raise DataError(f"'{name}' cannot name an external set: it is empty, not letters/digits/-/_, or taken "
                        "by a model.", fix="Give another name, e.g. --external mine=FILE.csv.")


def baseline_spec(name: str, config: SweepConfig) -> GeneratorSpec:
    """A baseline by its CLI name with the sweep's shared settings. ``dp_vine:EPS``, ``privbayes:EPS``,
    ``mst:EPS`` and ``privpgd:EPS`` (δ = 1e-5 for both) carry their ε; ``ctgan`` and ``tvae`` are Appendix J's
    settings, ``:quick`` our short epoch budget, ``:N`` N epochs (the name, shown on the scatter, says which)."""
    base = {"response": config.response, "sensitive": config.sensitive, "margins": config.margins,
            "missing": config.missing, "measure": config.measure}
    generator, _, parameter = name.partition(":")
    if generator == HOLDER or generator not in generator_names():
        raise DataError(f"Unknown baseline '{name}'.",
                        fix=f"Choose from: {', '.join(DEFAULT_BASELINES + COMPETITORS + OTHER_COMPETITORS)}.")
    if generator in EPSILON_GENERATORS:
        try:
            epsilon = float(parameter)
        except ValueError:
            epsilon = math.nan
        if not math.isfinite(epsilon) or epsilon <= 0:
            raise DataError(f"Baseline '{name}' needs a positive number after '{generator}:' (its privacy budget ε).",
                            fix=f"Write e.g. {generator}:1.")
        settings = {"families": config.families} if generator == "dp_vine" else {}
        return GeneratorSpec(generator, {**base, "epsilon": epsilon, **settings}, name)
    if generator in PRESETS:
        return GeneratorSpec(generator, {**base, **epoch_budget(name, generator, parameter)}, name)
    if parameter:
        raise DataError(f"Baseline '{name}' takes no parameter.", fix=f"Write {generator}.")
    if generator_class(generator).has_levels:
        base["families"] = config.families
    return GeneratorSpec(generator, base, name)


def epoch_budget(name: str, generator: str, parameter: str) -> dict:
    """The settings behind ``ctgan``, ``ctgan:paper``, ``ctgan:quick`` or ``ctgan:EPOCHS`` (same for tvae)."""
    presets = PRESETS[generator]
    if parameter in ("", "paper", "quick"):
        return dict(presets[parameter or "paper"])
    if parameter.isdigit() and int(parameter) > 0:
        return {**presets["paper"], "epochs": int(parameter)}
    raise DataError(f"Baseline '{name}': after '{generator}:' write 'paper', 'quick' or a number of epochs.",
                    fix=f"Write e.g. {generator}:quick or {generator}:50.")


SETTING_NAMES = {  # each setting as the Sweep page names it
    "response": "response Y", "sensitive": "sensitive columns", "rho_star": "association threshold ρ*",
    "measure": "association measure", "order": "column order", "levels": "truncation levels", "preset": "protocol",
    "families": "pair-copula families", "margins": "margins", "missing": "missing values", "t_max": "top level",
    "seed": "master seed", "holdout_fraction": "hold-out fraction", "baselines": "baselines",
    "feature_set": "attack features", "games": "attack games", "baseline_games": "baselines play the attack games",
    "protocol_overrides": "game sizes", "schema": "column types and roles", "analysis": "analysis for the CI overlap",
    "externals": "your own synthetic sets", "reuse_families": "attack games reuse the holder's families",
    "dp_audit_trials": "DP audit",
}


def _shown(value) -> str:
    if value is None or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(_shown, value))
    return str(value)


def setting_differences(sweep: SweepConfig, now: SweepConfig, ignored: tuple[str, ...] = ()) -> list[str]:
    """How the settings ``now`` differ from those a sweep ran with, one plain phrase each ("master seed: 0 in the
    sweep, 1 now"); empty when Start would run the same sweep."""
    before, after = sweep.to_dict(), now.to_dict()
    out = []
    for name in dict.fromkeys([*before, *after]):
        old, new = before.get(name), after.get(name)
        if name in ignored or old == new or (not old and not new):
            continue
        label = SETTING_NAMES.get(name, name)
        if name == "rho_star" and isinstance(old, dict) and isinstance(new, dict):
            out += [f"{label} for {column}: {_shown(old.get(column))} in the sweep, {_shown(new.get(column))} now"
                    for column in dict.fromkeys([*old, *new]) if old.get(column) != new.get(column)]
        elif name == "schema":
            changed = _schema_changes(old or {}, new or {})
            out.append(f"{label}: {', '.join(changed)}" if changed else label)
        else:
            out.append(f"{label}: {_shown(old)} in the sweep, {_shown(new)} now")
    return out


def _schema_changes(old: dict, new: dict) -> list[str]:
    """The columns whose type, role or order of labels differ between two schemas."""
    columns_old = {c["name"]: c for c in old.get("columns", [])}
    columns_new = {c["name"]: c for c in new.get("columns", [])}
    return [name for name in dict.fromkeys([*columns_old, *columns_new])
            if {k: v for k, v in columns_old.get(name, {}).items() if k in ("type", "role", "levels")}
            != {k: v for k, v in columns_new.get(name, {}).items() if k in ("type", "role", "levels")}]
