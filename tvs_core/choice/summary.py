"""A sweep's summary as others script against it (``summary.json``), and the level choice on it."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import DataError
from ..evaluation.catalogue import CATALOGUE, AxisKind, PerColumn, described
from ..evaluation.metrics.audit import audits_from_records
from ..evaluation.records import HOLDER, REFERENCE_MODELS, RecordRole
from ..evaluation.summary import Summary, summarise
from ..settings import checked, declarations, of_type, setting
from ..text import percent, read_choice, unit_number
from .axes import DEFAULT_PRIVACY, Axis, axis_choices
from .mix import DEFAULT_MIX, UtilityMix, utility_names
from .selection import (
    HIGH,
    LOW,
    Column,
    Normalisation,
    Selection,
    level_column,
    level_column_names,
    level_table,
    select,
)


def _finite(value) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _interval(rows: Summary) -> dict | None:
    """Several summary rows (targets, target kinds) pooled by their medians, as the axes do."""
    found = rows.interval()
    if found is None:
        return None
    return {"median": found.value, "ci_low": found.low, "ci_high": found.high, "n": found.n}


def choose(summary: Summary, sensitive: list[str], alpha: float = 0.5,
           normalisation: Normalisation = Normalisation.ANCHORED, privacy: Axis = DEFAULT_PRIVACY, seed: int = 0,
           utility: UtilityMix = DEFAULT_MIX, complete: set[int] | None = None) -> Selection | None:
    """PU_t over the holder's levels, U_t being the utility mix; None until there is something to score.
    ``complete``: the levels whose numbers are final (``JobView.complete_levels``; None: every level), the only
    ones recommended. A first look (records of role ``first_look``, a live scatter's stand-in) never enters it: drawn
    beside the levels, it would otherwise move a min-max scale, and so which column decides a reported level's
    privacy."""
    if "role" in summary.frame and summary.frame["role"].eq(RecordRole.FIRST_LOOK).any():
        summary = Summary(summary.frame[summary.frame["role"] != RecordRole.FIRST_LOOK].reset_index(drop=True))
    if not summary.has_levels():
        return None
    levels, anchors = level_table(summary, sensitive, privacy, utility=utility, normalisation=normalisation)
    if levels.empty:
        return None
    return select(levels, alpha, normalisation, privacy, anchors, utility=utility, seed=seed, candidates=complete)


def _scores(row: pd.Series, named: tuple[str, ...]) -> dict:
    """A level's scores as summary.json and the manifest record them: ``named`` and every scaled utility part."""
    parts = {level_column(Column.SCALED, name) for name in level_column_names(row.index, Column.SCALED)}
    return {c: _finite(row[c]) for c in row.index if c in named or c in parts}


def metric_key(name: str, column: str | None = None) -> str:
    """A metric's key in ``summary.json``'s ``metrics``: ``name``, or ``name:COLUMN`` for one column's value."""
    return name if column is None else f"{name}:{column}"


def metrics_of(at: Summary, sensitive: list[str]) -> dict[str, dict]:
    """Every catalogue metric of one model and level, by ``metric_key``."""
    found: dict[tuple[str, str | None], dict | None] = {}
    by_metric = {name: Summary(rows) for name, rows in at.frame.groupby("metric", sort=False)}  # one pass, not one
    present = set(by_metric)  # mask over all rows per catalogue entry: the card and the GDPR verdicts read this
    for entry in described().values():  # a risk's interval ends and count too
        if entry.name not in present:
            continue
        rows = by_metric[entry.name]
        if entry.per_column is None:
            found[(entry.name, None)] = _interval(rows)
            continue
        by_column = {column: Summary(part) for column, part in rows.frame.groupby("attribute", sort=False)}
        columns = sensitive if entry.per_column is PerColumn.SENSITIVE else sorted(by_column)
        for column in columns:  # each column's rows, grouped once (not one mask over the metric's rows per column)
            value = _interval(by_column[column]) if column in by_column else None
            if value:
                found[(entry.name, column)] = value
    for entry in CATALOGUE.values():  # the scatter's value: a metric's fallback while it is missing
        if entry.fallback is None or entry.name in present:
            continue
        for (name, column), value in list(found.items()):
            if name == entry.fallback:
                found[(entry.name, column)] = value
    return {metric_key(name, column): value for (name, column), value in found.items()}


def summary_json(records: pd.DataFrame, sensitive: list[str], alpha: float = 0.5,
                 normalisation: Normalisation = Normalisation.ANCHORED, privacy: Axis = DEFAULT_PRIVACY,
                 utility_mix: UtilityMix = DEFAULT_MIX, chosen: tuple[Summary, Selection | None] | None = None
                 ) -> dict:
    """{levels: [{model, level, metrics: {name: {median, ci_low, ci_high, n}}}], best_level, the utility mix,
    the anchors of the scales, ...; ``dp_audit`` ({model: claimed and empirical ε, flagged, verdict}) when the
    sweep audited its DP baselines}. ``chosen``: the records' summary and its selection under these settings, when
    the caller holds them (the command line's verdicts read the same: they are made once)."""
    summary, selection = chosen if chosen is not None else (summarise(records), None)
    mix = utility_mix
    utility = Axis.utility(summary.metrics())
    trtr = _interval(summary.metric(utility.metric.ideal.metric))
    if chosen is None:
        selection = choose(summary, sensitive, alpha, normalisation, privacy, utility=mix)
    pu = {} if selection is None else selection.table.set_index("level")
    entries = []
    models = [m for m in summary.models() if m not in REFERENCE_MODELS]
    for model in sorted(models, key=lambda m: (m != HOLDER, m)):
        at_model = summary.model(model)
        for level in ([] if at_model.level(None).empty else [None]) + at_model.levels():  # no level first
            at = at_model.level(level)
            metrics = ({utility.metric.ideal.metric: trtr} if trtr else {}) | metrics_of(at, sensitive)
            entry = {"model": model, "level": level, "metrics": metrics}
            if model == HOLDER and len(pu) and level is not None and level in pu.index:
                row = pu.loc[level]
                entry["pu"] = None if np.isnan(row["PU"]) else float(row["PU"])
                entry["metrics"]["pu"] = {"median": entry["pu"],
                                          "ci_low": _finite(row[level_column(Column.PU, end=LOW)]),
                                          "ci_high": _finite(row[level_column(Column.PU, end=HIGH)])}
                entry["wins"] = float(row["wins"])
                entry["pareto"] = bool(row["pareto"])
                entry["scores"] = _scores(row, ("U", "P", "P_unclipped"))
                if row["beyond"]:
                    entry["beyond"] = row["beyond"]
            entries.append(entry)
    out = {"best_level": None if selection is None else selection.best_level, "alpha": alpha,
           "normalisation": normalisation, "privacy_metric": str(privacy), "utility_mix": mix.text,
           "utility_mix_described": mix.describe(summary.metrics()),
           "anchors": anchors_json(selection, sensitive),
           "notes": [] if selection is None else selection.notes, "levels": entries}
    audits = audits_from_records(records)
    if audits:  # a sweep run with --audit-dp: each DP baseline's claimed ε next to the ε its releases spend
        out["dp_audit"] = {a.model: a.to_dict() for a in audits}
    return out


def anchors_json(selection: Selection | None, sensitive: list[str]) -> dict:
    """The values that scored 0 and 1 on each scale of this choice: what 'private' and 'useful' were measured
    against (as the selection used them)."""
    if selection is None:
        return {}
    anchors = selection.anchors
    out = {name: {"worst": _finite(w), "ideal": _finite(i)} for name, (w, i) in anchors["utility"].items()}
    axis = selection.privacy
    for name, (w, i) in anchors["privacy"].items():
        key = metric_key(axis.metric.name, None if name == axis.metric.name else name)
        out[key] = {"worst": _finite(w), "ideal": _finite(i)}
    return out


def choice_json(selection: Selection | None, level: int, alpha: float, normalisation: Normalisation, privacy: Axis,
                utility_mix: UtilityMix, metric_names=(), chosen_by_user: bool = True) -> dict:
    """The manifest's ``choice``: the settings, the released and the recommended level, who chose the level and why,
    and the scores. A level nobody clicked is the recommendation, and is recorded as one. Each setting is kept as
    its stored text (what the command line and a project read back) and, for a person, ``*_described``."""
    mix = utility_mix
    best = None if selection is None else selection.best_level
    out = {"alpha": alpha, "normalisation": str(normalisation), "privacy_metric": privacy.text, "utility_mix": mix.text,
           "normalisation_described": read_choice(Normalisation, normalisation).phrase,
           "privacy_metric_described": privacy.title,
           "utility_mix_described": mix.describe(metric_names), "selected_level": int(level), "best_level": best,
           "chosen_by": "user" if chosen_by_user else "recommendation"}
    out["why"] = why_text(selection, level, alpha, normalisation, privacy, mix, chosen_by_user, metric_names)
    if selection is not None and level in set(selection.table["level"]):
        row = selection.table.set_index("level").loc[level]
        out["scores"] = _scores(row, ("PU", "U", "P", "P_unclipped"))
    return out


def why_text(selection: Selection | None, level: int, alpha: float, normalisation: Normalisation, privacy: Axis,
             mix: UtilityMix, chosen_by_user: bool, metric_names=()) -> str:
    """Who chose the level and why, as the manifest, the ledger and the report say it: the settings by their plain
    names (the catalogue's labels), never their codes."""
    best = None if selection is None else selection.best_level
    if chosen_by_user:
        if best is None:  # quoted by the manifest and the signed page: never "is None"
            return "chosen by the user; no level was recommended at these settings"
        return (f"chosen by the user; the recommended level at these settings is {best}"
                + (" (the same)" if best == level else ""))
    settings = (f"α = {alpha:g}, utility {mix.describe(metric_names)}, privacy measured by "
                f"{privacy.title}, {read_choice(Normalisation, normalisation).phrase}")
    if best is None or best != level:
        return f"level {level} was released without being chosen; no level was recommended at {settings}"
    wins = float(selection.table.set_index("level").loc[best, "wins"])
    return (f"recommended at {settings}: the best balance of privacy and utility there (best in {percent(wins)} of "
            "resamples within the intervals); not chosen by the user")


def _weight(value) -> float:
    """α as a stored project, a widget or a flag's reader gives it: a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise DataError("it is not a number from 0 to 1", fix="Give e.g. 0.5.")
    return float(value)


@dataclass(frozen=True)
class ChoiceSettings:
    """How a level is weighed: α, the normalisation, the privacy axis and the utility mix — what the Choose page,
    the command line's options and a project (``Project.choice``) hold, in one place: typed, so that what reads them
    never parses text again. Each is declared once (``settings.setting``): the command line's flags
    (``cli.setting_flag``), the Choose page's labels and help and the reading of their text come from it. Made from
    text (a flag's, a widget's, a stored project's), each setting is read by its declaration, in one place."""

    alpha: float = setting(0.5, check=_weight, parse=unit_number, screen_name="weight on privacy α", flag="--alpha",
                           help="PU_t = α·P_t + (1 − α)·U_t (paper, Appendix D), a number from 0 to 1")
    normalisation: Normalisation = setting(
        Normalisation.ANCHORED, kind=Normalisation, flag="--normalisation",
        help="how privacy and utility are put on one scale before PU_t weighs them — anchored: privacy from the "
             "attack on the real rows (0) to the same attack on shuffled columns (1); paper: to 0 instead "
             "(P = 1 - MAB/MAB_real, our reading of the paper's Appendix D, which gives no formula); minmax: over the "
             "levels")
    privacy: Axis = setting(
        DEFAULT_PRIVACY, check=of_type(Axis), parse=Axis.parse, screen_name="privacy measured by", flag="--privacy",
        help="the privacy axis P_t of PU_t: the attack whose success measures how private a level is",
        typed="one of " + ", ".join(axis_choices(AxisKind.PRIVACY, ["COLUMN"])))
    utility: UtilityMix = setting(
        DEFAULT_MIX, check=of_type(UtilityMix), parse=UtilityMix.parse, screen_name="utility mix", flag="--utility",
        help="the utility U_t of PU_t: utility measures, each with a relative weight (the paper's: tstr alone)",
        typed=f"NAME[=WEIGHT],... with NAME one of {', '.join(utility_names())}")

    def __post_init__(self):
        """Each setting read by its declaration: text (a flag's, a widget's, a stored project's) as its reader says,
        then checked; refused in one sentence naming the setting by its screen name."""
        for name, declared in declarations(ChoiceSettings).items():
            object.__setattr__(self, name, checked(getattr(self, name), declared.value_of, declared.screen_name,
                                                   "choice setting",
                                                   fix="Choose a value the setting allows (python -m tvs_core "
                                                       "report --help lists them)."))

    def among(self, sensitive: list[str] | None) -> ChoiceSettings:
        """These settings, refused by name when the privacy axis's one column is not among ``sensitive`` (the
        sweep's); None: not checked."""
        self.privacy.among(sensitive)
        return self

    def select(self, summary: Summary, sensitive: list[str], complete: set[int] | None = None) -> Selection | None:
        """``choose`` at these settings; ``complete``: the levels that may be recommended (None: all)."""
        return choose(summary, sensitive, self.alpha, self.normalisation, self.privacy, utility=self.utility,
                      complete=complete)

    def to_json(self, selection: Selection | None, level: int, metric_names=(), chosen_by_user: bool = True) -> dict:
        return choice_json(selection, level, self.alpha, self.normalisation, self.privacy, self.utility, metric_names,
                           chosen_by_user)
