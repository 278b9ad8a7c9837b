"""Protocol sizes: the paper's (Appendix J) and a quick preset for interactive use.

Sizes never exceed what the data allow; ``capped`` lowers them and records every cap, so the
results can say "sizeRawT capped at 700 (rows available)" instead of silently changing the game.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from enum import StrEnum

from ..text import choice_named, read_choice

OUTLIER_QUANTILES = (0.01, 0.025, 0.975, 0.99)


@choice_named("protocol")
class ProtocolName(StrEnum):
    """A sweep's game and release sizes by name, in the order offered: the quick look first."""

    QUICK = "quick"
    PAPER = "paper"


@choice_named("attack games")
class Game(StrEnum):
    """What a sweep plays on its levels: the published sets' metrics, the attribute-inference game, the membership
    game (the text is the one every sweep stored)."""

    RELEASE = "release"
    AIA = "aia"
    MIA = "mia"


ATTACK_GAMES = (Game.AIA, Game.MIA)  # the games a baseline may play too


@dataclass(frozen=True)
class Protocol:
    """How a sweep plays the games and draws its sets (the paper's "evaluation protocol", Appendix J): every size,
    the targets, and which variant of the membership game; ``name`` says which preset it is or was capped from."""

    name: str
    utility_sets: int  # synthetic sets of |train| rows per level for TSTR (paper: 50)
    release_sets: int  # sets per level from the holder's model for release MAB/WCAB (paper: nSynT)
    aia_iterations: int
    aia_size_raw: int  # sizeRawT
    aia_size_syn: int  # sizeSynT
    aia_sets: int  # nSynT
    aia_bootstrap_size: int
    mia_iterations: int
    mia_size_attacker: int  # sizeRawA
    mia_shadows: int  # nShadows
    mia_shadow_sets: int  # nSynA
    mia_size_raw: int  # sizeRawT
    mia_size_syn: int  # sizeSynT
    mia_sets: int  # nSynT
    outlier_quantiles: tuple = OUTLIER_QUANTILES
    random_targets: int = 4
    # True: a shadow's subset and OUT model serve every target (our cost saving, membership.py);
    # False: the paper's way, a subset and an OUT model per target and shadow
    mia_shared_shadows: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


PAPER = Protocol("paper", utility_sets=50, release_sets=50, aia_iterations=10, aia_size_raw=500,
                 aia_size_syn=500, aia_sets=50, aia_bootstrap_size=500, mia_iterations=10,
                 mia_size_attacker=500, mia_shadows=10, mia_shadow_sets=10, mia_size_raw=400,
                 mia_size_syn=400, mia_sets=50)
QUICK = Protocol("quick", utility_sets=5, release_sets=10, aia_iterations=3, aia_size_raw=500,
                 aia_size_syn=500, aia_sets=10, aia_bootstrap_size=500, mia_iterations=2,
                 mia_size_attacker=500, mia_shadows=4, mia_shadow_sets=5, mia_size_raw=400,
                 mia_size_syn=400, mia_sets=10, outlier_quantiles=(0.01, 0.99), random_targets=2)
PROTOCOLS: dict[ProtocolName, Protocol] = {ProtocolName.QUICK: QUICK, ProtocolName.PAPER: PAPER}

# each size as a person reads it (the report), the paper's name of it last (Appendix J)
SIZE_NAMES = {
    "name": "preset", "utility_sets": "synthetic sets per level for the utility (TSTR)",
    "release_sets": "published sets per level for the release attack", "aia_iterations": "attribute game: iterations",
    "aia_size_raw": "attribute game: real rows per attacker (sizeRawT)",
    "aia_size_syn": "attribute game: synthetic rows per set (sizeSynT)",
    "aia_sets": "attribute game: synthetic sets per model (nSynT)",
    "aia_bootstrap_size": "attribute game: rows of each bootstrap of the real reference",
    "mia_iterations": "membership game: iterations", "mia_size_attacker": "membership game: attacker's real rows "
                                                                           "(sizeRawA)",
    "mia_shadows": "membership game: shadow models (nShadows)",
    "mia_shadow_sets": "membership game: sets per shadow model (nSynA)",
    "mia_size_raw": "membership game: real rows per model (sizeRawT)",
    "mia_size_syn": "membership game: synthetic rows per set (sizeSynT)",
    "mia_sets": "membership game: synthetic sets per model (nSynT)",
    "outlier_quantiles": "targets: outliers at these quantiles", "random_targets": "targets: rows drawn at random",
    "mia_shared_shadows": "membership game: one shadow subset serves every target (our saving; off is the paper's "
                          "way)",
}


def size_words(record: dict) -> list[tuple[str, str]]:
    """A protocol's sizes (``Protocol.to_dict``, as a sweep records them) as (what it is, its value) in words."""
    def value(v) -> str:
        if isinstance(v, bool):
            return "on" if v else "off"
        if isinstance(v, (list, tuple)):
            return ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v)
        return str(v)

    return [(SIZE_NAMES.get(name, name.replace("_", " ")), value(v)) for name, v in record.items()]

# The test suite's sizes: every game played, in seconds (tests/helpers.py's ``TINY``). ``TVS_TEST_PROTOCOL=tiny`` in
# the environment gives the quick preset these sizes in every process that inherits it — the dashboard's pages, the
# CLI, the sweep workers — so the browser and AppTest flows run as users run them, at a size a test can afford. For
# tests only: the sizes a sweep ran with are in what it records (its job's details, the manifest, the report), and
# the preset's name there says that they are these.
TEST_PROTOCOL_ENV = "TVS_TEST_PROTOCOL"
TINY_SIZES = dict(utility_sets=2, release_sets=3, aia_iterations=2, aia_sets=3, aia_size_raw=150, aia_size_syn=150,
                  mia_iterations=1, mia_shadows=2, mia_shadow_sets=3, mia_sets=4, mia_size_attacker=150,
                  mia_size_raw=100, mia_size_syn=100)
TINY_QUICK_NAME = f"quick at the test suite's tiny sizes ({TEST_PROTOCOL_ENV}=tiny)"


def capped(preset: Protocol, pool_rows: int) -> tuple[Protocol, list[dict]]:
    """Lower the reference sizes to the rows the attacker can draw from (train minus targets)."""
    caps, changes = [], {}
    for field in ("aia_size_raw", "aia_bootstrap_size", "mia_size_attacker", "mia_size_raw"):
        wanted = getattr(preset, field)
        if wanted > pool_rows:
            changes[field] = pool_rows
            caps.append({"parameter": field, "requested": wanted, "used": pool_rows,
                         "reason": f"only {pool_rows} training rows are available outside the targets"})
    attacker = changes.get("mia_size_attacker", preset.mia_size_attacker)
    raw = changes.get("mia_size_raw", preset.mia_size_raw)
    if raw > 0.8 * attacker:
        # shadow subsets are drawn from rawA: too large a share makes every shadow the same data set
        used = max(2, int(0.8 * attacker))
        changes["mia_size_raw"] = used
        caps = [c for c in caps if c["parameter"] != "mia_size_raw"]
        caps.append({"parameter": "mia_size_raw", "requested": preset.mia_size_raw, "used": used,
                     "reason": f"shadow subsets must be at most 80 % of the attacker's {attacker} reference rows"})
    return replace(preset, **changes), caps


def get_protocol(name: ProtocolName) -> Protocol:
    """The preset ``name``: the one place a sweep's sizes come from (the quick one at the test suite's sizes under
    ``TVS_TEST_PROTOCOL=tiny``)."""
    from ..errors import DataError

    name = read_choice(ProtocolName, name)
    sizes = os.environ.get(TEST_PROTOCOL_ENV, "")
    if sizes not in ("", "tiny"):
        raise DataError(f"{TEST_PROTOCOL_ENV} is '{sizes}', which is not a size the tests know.",
                        fix=f"Leave {TEST_PROTOCOL_ENV} unset (it is for the test suite), or set it to 'tiny'.")
    if sizes and name == QUICK.name:
        return replace(QUICK, name=TINY_QUICK_NAME, **TINY_SIZES)
    return PROTOCOLS[name]
