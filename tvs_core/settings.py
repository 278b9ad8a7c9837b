"""A setting declared once, beside its field: what it may hold, its words for the steward and its command-line flag;
and the differential privacy a generator (or a part of one) promises, declared once with its one check.

Shared by every package that holds settings (a sweep's, ``jobs.config.SweepConfig``; the choice of a level,
``choice.summary.ChoiceSettings``), so that the command line (``cli.setting_flag``) and the pages derive their flags,
labels and help from the one declaration, whichever dataclass holds it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields

from .errors import ChoiceRefused, DataError
from .text import first_capital, read_choice


def one_of(kind) -> Callable:
    """A member of the Enum ``kind``, read from its text too (``read_choice``: its one refusal)."""
    return lambda value: read_choice(kind, value)


def of_type(*types) -> Callable:
    """A value of one of ``types`` as it is (a bool only when ``bool`` is one of them)."""
    def check(value):
        if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
            raise ValueError(f"not a {' or '.join(t.__name__ for t in types)}")
        return value
    return check


def checked(value, check: Callable, screen_name: str, whose: str = "setting", fix: str = ""):
    """``value`` through ``check``, or refused in one sentence naming the setting by its screen name (a choice: in
    ``read_choice``'s one wording)."""
    try:
        return check(value)
    except ChoiceRefused as refused:
        raise refused.named(screen_name) from None
    except DataError as refused:
        raise DataError(f"The {whose} '{screen_name}' is {value!r}: {refused.message}", fix=refused.fix) from None
    except ValueError as refused:
        raise DataError(f"The {whose} '{screen_name}' is {value!r}: {refused}.", fix=fix) from None


@dataclass(frozen=True)
class Setting:
    """A setting's declaration beside its field's type and default, in the way of scikit-learn's
    ``_parameter_constraints`` with its words for the steward: what it may hold (``check``; a choice: its Enum,
    ``kind``, whose member the setting holds, read from its text too), its name on the screens, in the manifest and
    in every refusal (``screen_name``; a choice: its Enum's), its help, what it means left unset (``unset``), and its
    command-line flag: ``parse`` reads the flag's text (a ``DataError`` refuses it; a choice: ``read_choice``),
    ``typed`` says how it is written there, ``const`` is its value when the flag is given alone. ``added_later``: left
    out of a sweep's stored settings while unset, so that sweeps stored before it keep their ids."""

    check: Callable | None = None
    screen_name: str = ""
    help: str = ""
    flag: str | None = None
    kind: type | None = None
    added_later: bool = False
    unset: str = ""
    parse: Callable[[str], object] | None = None
    typed: str = ""
    metavar: str | None = None
    const: object = None

    def __post_init__(self):
        if self.kind is not None:
            object.__setattr__(self, "check", self.check or one_of(self.kind))
            object.__setattr__(self, "screen_name", self.screen_name or self.kind.screen_name)

    @property
    def label(self) -> str:
        """Its name as a widget's label: the screen name with a capital."""
        return first_capital(self.screen_name)

    @property
    def sentence(self) -> str:
        """Its help as a widget shows it: a sentence."""
        return first_capital(self.help) + "." if self.help else ""

    def read(self, text: str):
        """The flag's (or a widget's, or a stored setting's) text as the value the setting holds."""
        if self.parse is not None:
            return self.parse(text)
        return read_choice(self.kind, text) if self.kind is not None else text

    def value_of(self, value):
        """``value`` as the setting holds it: text read as its flag's is (``read``), then checked."""
        value = self.read(value) if isinstance(value, str) else value
        return value if self.check is None else self.check(value)


def setting(default=MISSING, default_factory=MISSING, **declared):
    """A field of a dataclass of settings and its ``Setting``, in one declaration."""
    return field(default=default, default_factory=default_factory, metadata={"setting": Setting(**declared)})


def declarations(owner) -> dict[str, Setting]:
    """The settings the dataclass ``owner`` declares (its fields', in their order), then the yes/no switches over
    them it declares as ``SWITCHES`` (a view of a field, e.g. ``SweepConfig.audits_dp``)."""
    declared = {f.name: f.metadata["setting"] for f in fields(owner) if "setting" in f.metadata}
    return declared | dict(getattr(owner, "SWITCHES", {}))


def default_of(owner, name: str):
    """The value setting ``name`` of a new ``owner`` holds (its field's default); a switch: off."""
    found = next((f for f in fields(owner) if f.name == name), None)
    if found is None:
        return False
    if found.default is MISSING:
        return None if found.default_factory is MISSING else found.default_factory()
    return found.default


def privacy_budget(value) -> float | None:
    """``value`` as a privacy budget ε: a positive finite number, else None (the one constraint on an ε)."""
    try:
        epsilon = float(value)
    except (TypeError, ValueError):
        return None
    return epsilon if math.isfinite(epsilon) and epsilon > 0 else None


@dataclass(frozen=True)
class PrivacyClaim:
    """The differential privacy a generator promises, declared once per generator (``model.registry
    .EPSILON_GENERATORS``; a part that spends a budget of its own, as ``data.dp_margins.DPHistogramMargins``, declares
    its claim too): ε, its setting ``epsilon`` and the parameter of its name (``NAME:EPS``), and δ, its setting
    ``delta`` when it has one (``delta``: True), else 0 (pure ε-DP). Its fit refuses a budget outside them
    (``check``); the sweep's baselines, the legends and the figures' shades read ε from the name, the release ledger
    and the DP audit (ε, δ) from the fitted model (``SyntheticGenerator.privacy_claim``)."""

    example: str = "1"  # an ε to suggest: ``NAME:EXAMPLE``
    delta: bool = False

    def of(self, settings: dict) -> tuple[float, float]:
        """(ε, δ) that a generator with these settings promises."""
        return float(settings["epsilon"]), float(settings["delta"]) if self.delta else 0.0

    def check(self, who: str, name: str | None, settings: dict) -> None:
        """Refuses, in words, an ε that is not a positive number, or a δ (when the generator has one: its noise is
        calibrated with it) not strictly between 0 and 1. ``name``: how the user writes the generator (``NAME:EPS``);
        None: a part set by its ``epsilon`` alone."""
        delta = settings.get("delta") if self.delta else 0.0
        if privacy_budget(settings.get("epsilon")) is None or self.delta and not (
                isinstance(delta, (int, float)) and 0 < delta < 1):
            needs, got = ("ε > 0 and 0 < δ < 1", f"ε={settings.get('epsilon')}, δ={delta}") if self.delta else (
                "ε > 0", f"ε={settings.get('epsilon')}")
            raise DataError(f"{who} needs {needs} (got {got}).",
                            fix=f"Write e.g. {name}:{self.example}." if name else f"Give e.g. epsilon={self.example}.")
