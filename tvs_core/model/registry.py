"""Generators by name, for specs, saved models and the CLI — independent of what was imported.

Built-in generators are listed here and imported on first use (so an optional one, with heavy
dependencies, costs nothing until chosen); ``register`` adds a generator defined elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from ..errors import DataError
from ..settings import PrivacyClaim
from ..settings import privacy_budget as _budget

BUILT_IN: dict[str, tuple[str, str]] = {
    "tvinesynth": ("tvs_core.model.tvinesynth", "TVineSynth"),
    "rvine": ("tvs_core.model.baselines", "RVine"),
    "rvine_star1": ("tvs_core.model.baselines", "RVineStar1"),
    "gaussian_copula": ("tvs_core.model.baselines", "GaussianCopula"),
    "independent": ("tvs_core.model.baselines", "IndependentMargins"),
    "dp_vine": ("tvs_core.model.baselines", "DPVine"),
    "ctgan": ("tvs_core.model.competitors", "CTGAN"),
    "tvae": ("tvs_core.model.competitors", "TVAE"),
    "privbayes": ("tvs_core.model.competitors", "PrivBayes"),
    "mst": ("tvs_core.model.mst", "MST"),
    "privpgd": ("tvs_core.model.privpgd", "PrivPGD"),
}


# the generators that promise differential privacy, each with its claim; their name carries their ε: ``NAME:EPS`` (the
# CLI, the legends); a generator registered later declares its own (its class's ``privacy``)
EPSILON_GENERATORS: dict[str, PrivacyClaim] = {
    "dp_vine": PrivacyClaim(), "privbayes": PrivacyClaim(), "mst": PrivacyClaim("2.5", delta=True),
    "privpgd": PrivacyClaim("2.5", delta=True)}
_registered: dict[str, type] = {}


def register(cls: type) -> type:
    """Make a generator class known by its ``name`` (usable as a decorator), with its privacy claim if it declares
    one (``privacy``: a ``PrivacyClaim``)."""
    _registered[cls.name] = cls
    if getattr(cls, "privacy", None) is not None:
        EPSILON_GENERATORS[cls.name] = cls.privacy
    return cls


@dataclass(frozen=True)
class BaselineName:
    """A baseline as the command line, a sweep's settings and its records name it, ``GENERATOR[:PARAMETER]``
    (``dp_vine:1``, ``ctgan:quick``), split in this one place."""

    generator: str
    parameter: str = ""  # an ε, an epoch budget, or nothing

    @classmethod
    def parse(cls, text: str) -> BaselineName:
        generator, _, parameter = text.partition(":")
        return cls(generator, parameter)

    def __str__(self) -> str:
        return f"{self.generator}:{self.parameter}" if self.parameter else self.generator

    @property
    def epsilon(self) -> float | None:
        """The ε the name carries (``dp_vine:1``); None when its generator claims none or it is not a positive
        number."""
        return _budget(self.parameter) if self.generator in EPSILON_GENERATORS else None


def generator_names() -> list[str]:
    return sorted({*BUILT_IN, *_registered})


def generator_class(name: str) -> type:
    if name in _registered:
        return _registered[name]
    if name not in BUILT_IN:
        raise DataError(f"Unknown generator '{name}'.", fix=f"Choose one of: {', '.join(generator_names())}.")
    module, attribute = BUILT_IN[name]
    return getattr(import_module(module), attribute)
