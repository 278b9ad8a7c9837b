"""What a sweep is: the settings that determine its numbers, and its identity in the store."""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Callable
from dataclasses import asdict, astuple, dataclass, fields, replace
from typing import ClassVar

from ..data.margins import MarginKind
from ..data.missing import MissingPolicy
from ..errors import ChoiceRefused, DataError
from ..evaluation.context import GeneratorSpec
from ..evaluation.metrics.audit import DEFAULT_TRIALS
from ..evaluation.metrics.membership.game import FeatureSet
from ..evaluation.protocol import ATTACK_GAMES, Game, Protocol, ProtocolName, get_protocol
from ..evaluation.protocol import SIZE_NAMES as SIZE_NAMES_OF
from ..evaluation.records import HOLDER, RAW, REAL, SHUFFLED
from ..model.competitors import EPOCH_BUDGETS
from ..model.families import DEFAULT_FAMILY_SET, FAMILY_SETS, FamilySet
from ..model.ordering import Measure
from ..model.registry import EPSILON_GENERATORS, BaselineName, generator_class, generator_names
from ..seeding import MAX_SEED
from ..settings import Setting, checked, declarations, default_of, setting
from ..settings import of_type as _of_type
from ..text import comma_separated, level_list, read_choice, unit_number, whole_number

# the baselines by name, as the command line and the Sweep page offer them
DEFAULT_BASELINES = ("rvine", "rvine_star1", "gaussian_copula", "independent", "dp_vine:0.1", "dp_vine:1",
                     "dp_vine:10")
# the paper's competitors at its settings (Figure 2, Appendix J); CTGAN, TVAE and PrivPGD need
# requirements-competitors.txt (torch); PrivPGD at the paper's ε = 2.5, δ = 1e-5 (docs/reference/models.md,
# "Competitors")
COMPETITORS = ("ctgan", "tvae", "privbayes:0.1", "privbayes:1", "privbayes:5", "privpgd:2.5")
# offered next to them: MST, which stood in for PrivPGD before it was implemented (same ε, δ)
OTHER_COMPETITORS = ("mst:2.5",)
GAMES = tuple(Game)  # the games a sweep plays on its own levels


def _optional(check: Callable) -> Callable:
    return lambda value: None if value is None else check(value)


def _whole(low: int, high: int | None = None) -> Callable:
    def check(value):
        if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low
                or (high is not None and value > high)):
            raise ValueError(f"not a whole number from {low}" + (f" to {high}" if high is not None else " up"))
        return int(value)
    return check


def _texts() -> Callable:
    def check(value):
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError("not a list of names")
        return list(value)
    return check


def _some_of(kind, choices=None) -> Callable:
    """A list of members of the Enum ``kind`` (among ``choices``, if given), each read from its text too."""
    allowed = tuple(kind) if choices is None else tuple(choices)

    def check(value):
        if not isinstance(value, (list, tuple)):
            raise ValueError("not a list of names")
        members = [read_choice(kind, v) for v in value]
        for member in members:
            if member not in allowed:
                raise ChoiceRefused(kind.screen_name, member.value, [choice.value for choice in allowed])
        return members
    return check


def _baselines(value):
    """Names that read back as written; known to this version or not: an old sweep naming a generator this version
    lacks still opens (running it is refused in words, by ``baseline_spec``)."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, (str, BaselineName)) for v in value):
        raise ValueError("not a list of baseline names")
    names = [BaselineName.parse(v) if isinstance(v, str) else v for v in value]
    for text, name in zip(value, names, strict=True):
        if str(name) != str(text):  # "ctgan:" would be stored as "ctgan": another sweep, under another id
            raise ValueError(f"{str(text)!r} is not written GENERATOR or GENERATOR:PARAMETER (e.g. dp_vine:1)")
    return names


def _fraction(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError("not a number between 0 and 1")
    return float(value)


def _levels(value):
    if not isinstance(value, (list, tuple)):
        raise ValueError("not a list of levels")
    return [_whole(0)(level) for level in value]


def _seed(value):
    return _whole(0, MAX_SEED)(value)


# -- a setting's text on the command line (``Setting.parse``) ----------------------------------------------------------
def _read_seed(text: str) -> int:
    return whole_number(text, 0, MAX_SEED)


def _read_baselines(text: str) -> list[BaselineName]:
    """Comma-separated baseline names; 'none': no baseline."""
    return [BaselineName.parse(name) for name in comma_separated(text) if name != "none"]


def _read_audit_fits(text: str) -> int:
    """Fits of a DP audit: at least 8, a multiple of 4 (two halves, each canary in half of each)."""
    value = whole_number(text, 8)
    if value % 4:
        raise DataError(f"{value} is not a multiple of 4: give e.g. {value + 4 - value % 4}")
    return value


# a field of ``SweepConfig`` and its ``Setting``, in one declaration (``settings.setting``)
_setting = setting


@dataclass
class SweepConfig:
    """Everything that determines a sweep's numbers (backend and worker count do not). Each field is declared once
    with its ``Setting`` (``settings.setting``): ``CONSTRAINTS``, ``SETTING_NAMES``, ``UNSET_WORDS``, the command
    line's flags (``cli.setting_flag``) and the Sweep page's labels and help (``pages/sweep.setting``) are derived
    from it."""

    SWITCHES: ClassVar[dict[str, Setting]]  # the yes/no switches over its fields (below)

    # None only while a project has no response yet (a sweep cannot start then)
    response: str | None = _setting(check=_optional(_of_type(str)), screen_name="response Y",
                                     help="the column the analysis predicts", flag="--response")
    sensitive: list[str] = _setting(check=_texts(), screen_name="sensitive columns",
                                    help="comma-separated sensitive columns", flag="--sensitive",
                                    parse=comma_separated, metavar="A,B,...")
    rho_star: float | dict | None = _setting(
        None, check=_optional(_of_type(float, int, dict)), screen_name="association threshold ρ*", flag="--rho",
        parse=unit_number, metavar="RHO", help="a number from 0 to 1",
        unset="the paper's Pearson 0.6, in the chosen measure")
    measure: Measure = _setting(Measure.KENDALL, kind=Measure, flag="--measure",
                                help="how Algorithm 1 measures the association of two columns, and ρ* with it")
    order: list[str] | None = _setting(None, check=_optional(_texts()), screen_name="column order", flag="--order",
                                       parse=comma_separated, metavar="ORDER", unset="Algorithm 1's",
                                       help="an explicit comma-separated covariate order (the response is appended)")
    levels: list[int] | None = _setting(
        None, check=_optional(_levels), screen_name="truncation levels", flag="--levels", parse=level_list,
        metavar="LEVELS", help="the levels evaluated, each a full evaluation; comma-separated, 1 or more",
        unset="every 5th, 1 and t_max; above 10 such levels, 10 placed where the instant preview changes, as on the "
              "Sweep page")
    preset: ProtocolName = _setting(ProtocolName.QUICK, kind=ProtocolName, flag="--preset",
                                    help="the game and release sizes: quick, seconds per level; paper, Appendix J's")
    families: FamilySet = _setting(DEFAULT_FAMILY_SET, kind=FamilySet, flag="--families",
                                   help="the pair copulas the vine may choose, and how they are estimated")
    margins: MarginKind = _setting(MarginKind.EMPIRICAL, kind=MarginKind, flag="--margins",
                                   help="how each column is mapped to the unit interval and back: empirical, as in "
                                        "the paper, or a kernel density estimate (kde)")
    missing: MissingPolicy = _setting(MissingPolicy.DROP_ROWS, kind=MissingPolicy, flag="--missing",
                                      help="drop the rows with a missing value (drop_rows), or impute them with a "
                                           "missing-value indicator (impute)")
    t_max: int | None = _setting(None, check=_optional(_whole(1)), screen_name="top level",
                                 unset="Algorithm 1's advice")
    seed: int = _setting(0, check=_seed, screen_name="master seed", flag="--seed", parse=_read_seed,
                         metavar=f"0..{MAX_SEED}",
                         help="every random draw follows from it: the same seed, data and settings give the same "
                              "numbers on any machine")
    holdout_fraction: float = _setting(0.2, check=_fraction, screen_name="hold-out fraction")
    baselines: list[BaselineName] = _setting(
        default_factory=lambda: list(map(BaselineName.parse, DEFAULT_BASELINES)), check=_baselines,
        screen_name="baselines (reference points)", flag="--baselines", parse=_read_baselines, metavar="BASELINES",
        typed="comma-separated, or 'none'",
        help=f"the other generators drawn beside TVineSynth; the paper's competitors: {', '.join(COMPETITORS)} (CTGAN, "
             "TVAE and PrivPGD need requirements-competitors.txt; for CTGAN and TVAE 'paper settings' are Appendix J's "
             "epochs, :quick a short budget for interactive sweeps, :EPOCHS any number); PrivPGD (ε = 2.5) is the "
             "paper's DP marginal method; MST (mst:EPS), which stood in for it, stays available "
             "(docs/reference/models.md, Competitors)")
    feature_set: FeatureSet = _setting(FeatureSet.CORRELATIONS, kind=FeatureSet)
    games: list[Game] = _setting(default_factory=lambda: list(GAMES), check=_some_of(Game),
                                 screen_name=Game.screen_name)
    # the attack games the baselines play too (``ATTACK_GAMES``): game MAB and PG for every model
    baseline_games: list[Game] = _setting(default_factory=list, check=_some_of(Game, ATTACK_GAMES),
                                          screen_name="baselines play the attack games", unset="none")
    # e.g. {"aia_iterations": 2}: sizes changed from the preset
    protocol_overrides: dict | None = _setting(None, check=_optional(_of_type(dict)), screen_name="game sizes",
                                               unset="none")
    # the user's schema (types and roles); None: inferred
    schema: dict | None = _setting(None, check=_optional(_of_type(dict)), screen_name="column types and roles",
                                   unset="inferred")
    # the covariates of the analysis whose confidence intervals ci_overlap compares (Y on them); None: all
    analysis: list[str] | None = _setting(
        None, check=_optional(_texts()), screen_name="analysis for the CI overlap", flag="--analysis",
        parse=comma_separated, metavar="A,B,...", added_later=True, unset="every covariate",
        help="the covariates of the regression of Y whose coefficients' 95 % confidence intervals the utility part "
             "'CI overlap' (ci_overlap) compares on the real and the synthetic rows (Karr et al. 2006): name the "
             "analysis your users will run")
    # synthetic tables made elsewhere, scored like a release: name -> fingerprint of the workspace copy
    externals: dict[str, str] | None = _setting(None, check=_optional(_of_type(dict)),
                                                screen_name="your own synthetic sets", added_later=True, unset="none")
    # the games refit the holder's pair-copula families (parameters only) instead of selecting them again:
    # an opt-in deviation from the paper that makes the paper's family set affordable
    reuse_families: bool = _setting(
        False, check=_of_type(bool), screen_name="attack games reuse the holder's families", added_later=True,
        flag="--reuse-families", help="on: the attack games keep the holder's pair-copula families and refit only "
                                      "their parameters (far cheaper with the paper's families; a deviation from the "
                                      "paper, stated in the manifest and the report); off (the paper's way): every "
                                      "model the games fit selects its families again")
    # fits of the empirical audit of every baseline that claims an ε (evaluation/metrics/audit/canaries.py); 0: no audit
    dp_audit_trials: int = _setting(
        0, check=_whole(0), screen_name="DP audit", added_later=True, flag="--audit-dp", parse=_read_audit_fits,
        metavar="FITS", const=DEFAULT_TRIALS,
        typed=f"FITS fits of each reference (given alone: {DEFAULT_TRIALS}; 8 or more, a multiple of 4)",
        help="audits every reference that claims differential privacy (an ε): worst-case (canary) records are "
             "planted in the training rows, the reference is fitted many times with and without them, and a "
             "membership test on its releases gives a lower bound on the ε it really spends (Clopper-Pearson, "
             "95 % confidence), next to the claimed ε: a bound above the claim refutes the claim. It costs many "
             "fits: its duration is shown before the sweep starts")

    def __setattr__(self, name: str, value) -> None:
        """Each setting is checked against ``CONSTRAINTS`` whenever it is set: when a config is made (from a stored
        job or project too) and when a page or the command line changes one of a live config; a refused value
        leaves the setting as it was."""
        check = CONSTRAINTS.get(name)
        super().__setattr__(name, value if check is None else _checked(name, value, check))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["baselines"] = [str(name) for name in self.baselines]  # as typed on the command line (asdict splits them)
        # settings added after the first sweeps were stored: left out when unset, so earlier sweeps keep their ids
        for added in (name for name, declared in SETTINGS.items() if declared.added_later):
            if not d[added]:
                del d[added]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> SweepConfig:
        """Stored settings (of this version or an earlier one), each checked against ``CONSTRAINTS``; a value or a
        setting this version cannot read is refused in one sentence."""
        known = {f.name for f in fields(cls)}
        unknown = [name for name in d if name not in known]
        if unknown:
            raise DataError(f"These stored sweep settings are not known to this version: {', '.join(unknown)}.",
                            fix="Open the sweep with the version that ran it, or run it again here.")
        return cls(**d)

    @classmethod
    def for_model(cls, model, preset: ProtocolName | Protocol = ProtocolName.QUICK, **settings) -> SweepConfig:
        """The settings of an evaluation of the fitted ``model`` (``evaluate()``): its response and sensitive
        columns, ``settings`` by name; ``preset`` a preset's name, or a ``Protocol`` (kept as its preset with the
        sizes it changes: ``protocol_overrides``)."""
        if isinstance(preset, Protocol):
            base = get_protocol(preset.name)
            changed = {k: v for k, v in preset.to_dict().items() if k != "name" and v != getattr(base, k)}
            settings["protocol_overrides"] = {**changed, **(settings.get("protocol_overrides") or {})} or None
            preset = preset.name
        return cls(response=getattr(model, "response_", model.response),
                   sensitive=list(getattr(model, "sensitive_", model.sensitive)),
                   preset=preset, **settings)

    # the Sweep page's switches, each a yes/no view of the field that carries it
    @property
    def baselines_play_games(self) -> bool:
        return bool(self.baseline_games)

    @baselines_play_games.setter
    def baselines_play_games(self, on: bool) -> None:
        self.baseline_games = list(ATTACK_GAMES) if on else []

    @property
    def per_target_shadows(self) -> bool:
        """The paper's membership game: a subset and an OUT model per target instead of shared shadows."""
        return (self.protocol_overrides or {}).get("mia_shared_shadows") is False

    @per_target_shadows.setter
    def per_target_shadows(self, on: bool) -> None:
        others = {k: v for k, v in (self.protocol_overrides or {}).items() if k != "mia_shared_shadows"}
        self.protocol_overrides = ({**others, "mia_shared_shadows": False} if on else others) or None

    def protocol(self) -> Protocol:
        """The game and release sizes this sweep runs: its preset's, with its overrides."""
        protocol = get_protocol(self.preset)
        return replace(protocol, **self.protocol_overrides) if self.protocol_overrides else protocol

    @property
    def audits_dp(self) -> bool:
        return self.dp_audit_trials > 0

    @audits_dp.setter
    def audits_dp(self, on: bool) -> None:
        self.dp_audit_trials = DEFAULT_TRIALS if on else 0


# Each setting's declaration (``Setting``), by name, in the order of ``SweepConfig``'s fields.
SETTINGS: dict[str, Setting] = {f.name: f.metadata["setting"] for f in fields(SweepConfig)}
# The yes/no switches of the Sweep page and the command line, each a view of the setting that carries it (a property
# of ``SweepConfig``), declared as the settings are: their flag, label and help come from here.
SWITCHES: dict[str, Setting] = {
    "baselines_play_games": Setting(
        screen_name="baselines play the attack games too", flag="--baseline-games",
        help="on: the baselines play the same attribute and membership games as TVineSynth (game MAB and PG for "
             "every model), so every point on the scatter uses one estimator; slower: each baseline is refitted "
             "(targets + 1) times per game iteration and shadow. Off: they get the release attack's MAB and no PG "
             "(cheap)"),
    "per_target_shadows": Setting(
        screen_name="membership game: shadow models per target (the paper's way)", flag="--per-target-shadows",
        help="on: a shadow subset and OUT model per target, as the paper (slower). Off: each shadow's subset and OUT "
             "model serve every target (about half the shadow fits; the attackers' training data has the same "
             "distribution)"),
    "audits_dp": replace(SETTINGS["dp_audit_trials"], flag=None,
                         screen_name=f"audit the ε claims of the DP references ({DEFAULT_TRIALS} fits of each)"),
}
SweepConfig.SWITCHES = SWITCHES  # declared with the class's settings (``settings.declarations``)


def declaration(name: str) -> Setting | None:
    """The declaration of the setting or switch ``name`` (``SETTINGS``, ``SWITCHES``); None: not a sweep setting."""
    return declarations(SweepConfig).get(name)


def setting_default(name: str):
    """The value setting ``name`` of a new ``SweepConfig`` holds (its field's default; a switch: off)."""
    return default_of(SweepConfig, name)
# What each setting may hold: checked whenever a setting of a ``SweepConfig`` is set (when it is made, from a stored
# job or project too, and on a live config), so that a bad value is refused in one sentence naming the setting; an
# Enum setting's text (as every earlier version stored it) reads as its member.
CONSTRAINTS: dict[str, Callable] = {name: declared.check for name, declared in SETTINGS.items()}


def _checked(name: str, value, check: Callable):
    return checked(value, check, SETTING_NAMES.get(name, name), "sweep setting",
                   fix="Choose a value the setting allows (python -m tvs_core sweep --help lists them).")


def job_id_for(fingerprint: str, config: SweepConfig) -> str:
    text = fingerprint + json.dumps(config.to_dict(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_external_name(name: str, config: SweepConfig) -> None:
    """An external set's name labels its records: it must not be taken by a model or a reference row."""
    taken = {HOLDER, REAL, SHUFFLED, RAW, *generator_names(), *map(str, config.baselines)}
    plain = name.replace("_", "").replace("-", "").isalnum()
    if not plain or name in taken:
        raise DataError(f"'{name}' cannot name an external set: it is empty, not letters/digits/-/_, or taken "
                        "by a model.", fix="Give another name, e.g. --external mine=FILE.csv.")


def baseline_spec(name: BaselineName, config: SweepConfig) -> GeneratorSpec:
    """A baseline by its CLI name with the sweep's shared settings. ``dp_vine:EPS``, ``privbayes:EPS``,
    ``mst:EPS`` and ``privpgd:EPS`` (δ = 1e-5 for both) carry their ε; ``ctgan`` and ``tvae`` are Appendix J's
    settings, ``:quick`` our short epoch budget, ``:N`` N epochs (the name, shown on the scatter, says which)."""
    base = {"response": config.response, "sensitive": config.sensitive, "margins": config.margins,
            "missing": config.missing, "measure": config.measure}
    known_baseline(name)
    generator, parameter = astuple(name)
    if generator in EPSILON_GENERATORS:
        if (epsilon := name.epsilon) is None:
            raise DataError(f"Baseline '{name}' needs a positive number after '{generator}:' (its privacy budget ε).",
                            fix=f"Write e.g. {generator}:1.")
        settings = {"families": config.families} if generator == "dp_vine" else {}
        return GeneratorSpec(generator, {**base, "epsilon": epsilon, **settings}, str(name))
    if generator in EPOCH_BUDGETS:
        return GeneratorSpec(generator, {**base, **epoch_budget(name)}, str(name))
    if parameter:
        raise DataError(f"Baseline '{name}' takes no parameter.", fix=f"Write {generator}.")
    if generator_class(generator).has_levels:
        base["families"] = config.families
    return GeneratorSpec(generator, base, str(name))


def known_baseline(name: BaselineName) -> None:
    """Refuses ``name``, with the names to choose from, when no generator of this version has it."""
    if name.generator == HOLDER or name.generator not in generator_names():
        raise DataError(f"Unknown baseline '{name}'.",
                        fix=f"Choose from: {', '.join(DEFAULT_BASELINES + COMPETITORS + OTHER_COMPETITORS)}.")


def epoch_budget(name: BaselineName) -> dict:
    """The settings behind ``ctgan``, ``ctgan:paper``, ``ctgan:quick`` or ``ctgan:EPOCHS`` (same for tvae)."""
    generator, parameter = astuple(name)
    presets = EPOCH_BUDGETS[generator]
    if parameter == "" or parameter in presets:
        return dict(presets[parameter or "paper"])
    if parameter.isdigit() and int(parameter) > 0:
        return {**presets["paper"], "epochs": int(parameter)}
    raise DataError(f"Baseline '{name}': after '{generator}:' write 'paper', 'quick' or a number of epochs.",
                    fix=f"Write e.g. {generator}:quick or {generator}:50.")


SETTING_NAMES = {name: declared.screen_name for name, declared in SETTINGS.items()}  # as the screens name them


# a setting left unset, in words: what the sweep used instead
UNSET_WORDS = {name: declared.unset for name, declared in SETTINGS.items() if declared.unset}
GAME_WORDS = {"release": "metrics of the published sets", "aia": "attribute-inference game", "mia": "membership game"}
VALUE_WORDS = {"drop_rows": "drop the rows with a missing value", "impute": "impute, with a missing-value indicator",
               "correlations": "correlations", "kendall": "Kendall's τ", "spearman": "Spearman's ρ",
               "pearson": "Pearson correlation"}


def settings_words(record: dict) -> list[tuple[str, str]]:
    """A sweep's settings as the report prints them (``JobView.settings_record``: the manifest keeps them as stored):
    each setting by the Sweep page's name, its value in words — models by the legend's names, no raw list or dict;
    the game sizes apart (``protocol.size_words``) and the schema in the report's own sections."""
    from ..evaluation.records import model_label

    out = []
    for name, value in record.items():
        if name in ("schema", "protocol"):
            continue
        label = SETTING_NAMES.get(name, {"holdout": "hold-out rows", "holdout_file": "hold-out file"}.get(
            name, name.replace("_", " ")))
        if value is None or value == [] or value == {}:
            words = UNSET_WORDS.get(name, "—")
        elif name == "baselines":
            words = "; ".join(model_label(str(v)) for v in value)
        elif name == "families" and str(value) in FAMILY_SETS:
            words = f"{value} — {FAMILY_SETS[str(value)].description}"
        elif name in ("games", "baseline_games"):
            words = ", ".join(GAME_WORDS.get(v, v) for v in value)
        elif name == "rho_star" and isinstance(value, dict):
            words = "; ".join(f"{column}: {_shown(v)}" for column, v in value.items())
        elif name == "holdout_file" and isinstance(value, dict):
            words = f"{value.get('file') or 'a file'} ({value.get('rows')} rows), SHA-256 {value.get('sha256')}"
        elif name == "dp_audit_trials":
            words = f"{value} fits of each DP reference" if value else "off"
        elif name == "holdout_fraction":
            words = f"{100 * float(value):g} %"
        elif isinstance(value, dict):
            words = "; ".join(f"{SIZE_NAMES_OF.get(k, k.replace('_', ' '))}: {_shown(v)}" for k, v in value.items())
        else:
            words = VALUE_WORDS.get(str(value), _shown(value))
        out.append((label, words))
    return out


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
