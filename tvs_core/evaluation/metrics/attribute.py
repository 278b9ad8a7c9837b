"""Attribute inference: how well an attacker infers a person's sensitive columns from their other columns — in the
paper's attack game (generators fitted with and without a target person, ``attribute_game.aia_iteration``) and on
the published sets themselves (``attribute.release_attribute_records``, also run on the real rows and on the
shuffled ones: the anchors).

The default privacy axis is ``release_skill``: how well the attacker who learnt from a published set guesses the real
people's sensitive values. The paper's MAB (the mean size of the attacker's coefficients) stays selectable; it
misleads when one column gives the sensitive one away, since one large coefficient among many near zero makes a
small mean (docs/reference/protocols.md, 'The default privacy axis')."""

from __future__ import annotations

from ..attribute import release_attribute_records
from ..attribute_game import aia_iteration
from ..records import RAW, REAL, SHUFFLED
from .base import AxisKind, Direction, Family, Group, Metric, PerColumn, Reference, Source, register


def _mab(name: str, label: str, short: str, source: Source, reference: str, on_release: str | None = None,
         worst_case: bool = False) -> Metric:
    """The attacker's coefficients; a game's ``on_release`` is the same attack on the published sets: its value on
    the shuffled rows is this one's ideal, and it stands in while the game has not reported."""
    what = "largest" if worst_case else "mean"
    blind = ("when one column gives the sensitive one away, the attacker needs one large coefficient and the rest are "
             "near zero, so the mean is small while the guesses are nearly exact" if not worst_case else
             "a release that spreads the dependence over correlated columns can give large coefficients that "
             "offset each other and guess badly")
    published = source is Source.RELEASE
    asked = (f"How much the most telling column{' of the published data' if published else ''} reveals the "
             "sensitive columns to an attacker" if worst_case else
             f"How well an attacker infers the sensitive columns{' from the published data' if published else ''}")
    return Metric(name, label, short, "|standardised coefficient|", Direction.LOWER, (0.0, None), Group.ATTRIBUTE_RISK,
                  source,
                  f"How strongly an attacker's guess of a person's sensitive value follows their other columns: "
                  f"the {what} of the attacker's coefficients, ignoring their sign — each the standard deviations "
                  "its guess moves when one other column moves by one (paper, Section 2.4). 0 means the other "
                  "columns tell nothing. Read it against the same attack on the real rows (privacy 0) and on the "
                  "real rows with every column shuffled, where there is nothing to learn (privacy 1). The paper's "
                  f"measure, kept as it defines it; it can mislead, because the size of the coefficients is not how "
                  f"well the guesses hit: {blind}. The attacker's skill on real people measures the guesses.",
                  per_column=PerColumn.SENSITIVE, axis=AxisKind.PRIVACY, worst=Reference(name, reference),
                  ideal=Reference(on_release or name, SHUFFLED, 0.0), fallback=on_release,
                  question=f"{asked} (the paper's measure; lower is safer)",
                  produced_by=release_attribute_records if published else aia_iteration)


ATTRIBUTE = register(Family("attribute", 30, (
    Metric("release_skill", "Attacker's skill at guessing the real people's sensitive values",
           "Attacker skill on real people", "share of guessing error removed", Direction.LOWER, (float("-inf"), 1.0),
           Group.ATTRIBUTE_RISK, Source.RELEASE,
           "How well someone who learns from the published data guesses a real person's sensitive value from their "
           "other columns: the attacker fits the paper's regression on each published set, then guesses the value "
           "of every person in the training data; the score is the share of the guessing error it removes compared "
           "with guessing the column's average for everyone (for a categorical column, its most common category). "
           "1 means every guess is right, 0 no better than the average, below 0 worse. Read it against the same "
           "attacker trained on the real rows themselves (privacy 0: no linear guess does better on them) and on "
           "the real rows with every column shuffled, where there is nothing to learn (privacy 1). Unlike the "
           "paper's MAB it does not shrink when a single column gives the sensitive one away.",
           per_column=PerColumn.SENSITIVE, axis=AxisKind.PRIVACY, worst=Reference("release_skill", REAL),
           ideal=Reference("release_skill", SHUFFLED, 0.0),
           question="How well an attacker who learns from the published data guesses the real people's sensitive "
                    "values (lower is safer)",
           produced_by=release_attribute_records),
    _mab("mab", "Mean absolute attacker coefficient (MAB)", "Attack game MAB", Source.GAME, RAW,
         on_release="release_mab"),
    _mab("wcab", "Worst-case absolute attacker coefficient (WCAB)", "Attack game WCAB", Source.GAME, RAW,
         on_release="release_wcab", worst_case=True),
    _mab("release_mab", "Mean absolute attacker coefficient on the release (MAB)", "Release MAB", Source.RELEASE,
         REAL),
    _mab("release_wcab", "Worst-case absolute attacker coefficient on the release (WCAB)", "Release WCAB",
         Source.RELEASE, REAL, worst_case=True),
    Metric("mr2", "Attacker R² (attack game)", "Attacker R²", "R²", Direction.LOWER, (0.0, 1.0), Group.ATTRIBUTE_RISK,
           Source.GAME,
           "How much of the sensitive column's variation the attacker's guesses explain in the attack game, from 0 "
           "(nothing) to 1 (all of it).", per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("release_r2", "Attacker R² on the release", "Release attacker R²", "R²", Direction.LOWER, (0.0, 1.0),
           Group.ATTRIBUTE_RISK, Source.RELEASE,
           "How much of the sensitive column's variation the attacker's guesses explain on the published sets, "
           "from 0 (nothing) to 1 (all of it).",
           per_column=PerColumn.SENSITIVE, produced_by=release_attribute_records),
    Metric("mse_in", "Attacker squared error, target in training data", "Guess error (IN)",
           "squared error (standardised)", Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "How far off the attacker's guess of a target person's sensitive value is (squared, in standard "
           "deviations) when that person was in the training rows.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("mse_out", "Attacker squared error, target left out", "Guess error (OUT)", "squared error (standardised)",
           Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "The same guess error when the person was left out: IN close to OUT means being in the data does not "
           "help the attacker.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("advantage", "Attacker advantage, categorical column (attack game)", "Attacker advantage (categorical)",
           "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.GAME,
           "For a categorical sensitive column: how much more often the attacker guesses a person's category "
           "correctly when the person was in the training rows than when not; 0 means no difference.",
           per_column=PerColumn.SENSITIVE, produced_by=aia_iteration),
    Metric("release_advantage", "Attacker advantage over the majority class on the release",
           "Release attacker advantage", "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.RELEASE,
           "For a categorical sensitive column: how much better than always guessing the most common category an "
           "attacker trained on the published sets does; 0 means no better.", per_column=PerColumn.SENSITIVE,
           produced_by=release_attribute_records),
)))
