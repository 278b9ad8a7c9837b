"""Every metric the product reports, declared once: what it is called, how to read it, where it comes from.

Summaries, the level choice, figures, pages, the CLI and the manifest read these declarations; a
metric's function only writes records under the declared ``name``. To add a metric: declare it here
and write the function that returns its records, named by the entry's ``compute`` (docs/ARCHITECTURE.md walks
through it).

Anchored normalisation (selection) maps a metric onto [0, 1], higher = better, by two anchors:
``worst`` scores 0 and ``ideal`` scores 1. An anchor is a constant or a ``Reference``: the value of
a metric measured on real data in the same run (e.g. the attack on the real rows, or TRTR).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from . import set_metrics
from .anonymity import Part, criterion_record
from .records import RAW, REAL, SHUFFLED
from .sizes import PMSE_ROWS, RELEASE_ROWS, SET_ROWS
from .utility import CLASSIFIERS, utility_metric


# StrEnums: stored records, summary.json and settings written before them hold the same text, and still compare equal
class Direction(StrEnum):
    """Which way is better, from the data holder's side: more private, or more useful."""

    HIGHER = "higher"
    LOWER = "lower"


class Group(StrEnum):
    """The family a metric is listed under, in the order tables and the reference list them."""

    UTILITY = "utility"
    ATTRIBUTE_RISK = "attribute risk"
    MEMBERSHIP_RISK = "membership risk"
    GDPR = "anonymisation (GDPR)"
    FIDELITY = "fidelity"


class Source(StrEnum):
    """What a metric's values are measured on."""

    RELEASE = "release"
    GAME = "game"
    REFERENCE = "reference"


class PerColumn(StrEnum):
    """A metric with one value per column: per sensitive column, or per column of any kind (every column, each
    attack, each canary)."""

    SENSITIVE = "sensitive"
    ANY = "any"


class AxisKind(StrEnum):
    """The axis of the scatter and of PU_t a metric may be."""

    PRIVACY = "privacy"
    UTILITY = "utility"


GROUPS = tuple(Group)
SOURCES = {Source.RELEASE: "the synthetic sets of the holder's model (the data actually published)",
           Source.GAME: "an attack game's generators fitted on subsets of the training rows",
           Source.REFERENCE: "the real data (the anchors)"}


@dataclass(frozen=True)
class Reference:
    """An anchor measured in the same run: ``metric`` as recorded for the real-data ``model``;
    ``otherwise`` where it was not measured (sweeps stored before the anchor existed)."""

    metric: str
    model: str
    otherwise: float | None = None


@dataclass(frozen=True)
class Metric:
    name: str  # the record name
    label: str  # axis titles, long form
    short: str  # tables and menus
    unit: str
    better: Direction
    range: tuple[float, float | None]  # None: unbounded above
    group: Group
    source: Source
    explanation: str  # one line for the UI
    per_column: PerColumn | None = None  # None: one value per set
    axis: AxisKind | None = None  # may be this axis of the scatter and of PU_t
    # an axis's title in plain words: what it measures, and which way is safer (or more useful); set for every axis
    question: str | None = None
    worst: float | Reference | None = None  # anchored normalisation: scores 0 ...
    ideal: float | Reference | None = None  # ... and 1
    fallback: str | None = None  # a cheaper estimate of the same quantity, used while this one is missing
    spread: str = "bootstrap"  # "bootstrap": interval of the median over replicates; "percentile":
    # the replicates are bootstrap draws already, their percentiles are the interval
    # the function computing it on one published set (``set_metrics``: a ``SyntheticSet`` in, {name: value} out);
    # None: the records come from their ``source`` (a game, the real data)
    compute: Callable[[set_metrics.SyntheticSet], dict] | None = None
    rows: int | None = None  # a tighter cap than SET_ROWS for an expensive per-set metric

    def __post_init__(self) -> None:
        """Text given for a typed field becomes its member, so that a misspelt value fails where it is declared."""
        for name, kind in ENUM_FIELDS.items():
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                object.__setattr__(self, name, kind(value))

    @property
    def lower_is_better(self) -> bool:
        return self.better is Direction.LOWER

    @property
    def rows_cap(self) -> int | None:
        """The most rows of each kind this metric is computed on (None: all of them)."""
        if self.compute:
            return self.rows or SET_ROWS
        return RELEASE_ROWS if self.source is Source.RELEASE else None


ENUM_FIELDS = {"better": Direction, "group": Group, "source": Source, "per_column": PerColumn, "axis": AxisKind}


def _mab(name: str, label: str, short: str, source: Source, reference: str, on_release: str | None = None,
         worst_case: bool = False) -> Metric:
    """The attacker's coefficients; a game's ``on_release`` is the same attack on the published sets: its value on
    the shuffled rows is this one's ideal, and it stands in while the game has not reported."""
    what = "largest" if worst_case else "mean"
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
                  "real rows with every column shuffled, where there is nothing to learn (privacy 1).",
                  per_column=PerColumn.SENSITIVE, axis=AxisKind.PRIVACY, worst=Reference(name, reference),
                  ideal=Reference(on_release or name, SHUFFLED, 0.0), fallback=on_release,
                  question=f"{asked} (lower is safer)")


UTILITY_STAGES = ("tstr", "trtr")  # trained on synthetic rows, or on the real training rows (the reference)


def _utility(auc: bool, stage: str, classifier: str) -> Metric:
    """TSTR/TRTR by AUC (class response) or R² (continuous); a random forest, or the linear second model. Named by
    ``utility.utility_metric``, the rule the records are written by; TSTR's ideal is the TRTR of the same model."""
    real, forest = stage == "trtr", classifier == "random_forest"
    unit = "ROC AUC" if auc else "R²"
    second = "logistic" if auc else "linear"
    name = utility_metric(stage, auc, classifier)
    model = "random forest" if forest else f"{second} regression"
    words = "AUC" if auc else "R²"
    short = f"{stage.upper()} {words} " + (f"({'real' if real else 'synthetic'}-trained)" if forest else f", {second}")
    trained = "the real training rows (TRTR)" if real else "synthetic rows (TSTR)"
    scored = "macro one-vs-rest for several classes" if auc else "for a continuous response"
    return Metric(name, f"{stage.upper()} {unit} ({model})", short.replace(" ,", ","), unit, Direction.HIGHER,
                  (0.0 if auc else float("-inf"), 1.0), Group.UTILITY, Source.REFERENCE if real else Source.RELEASE,
                  f"How well a prediction model for Y ({model}) trained on {trained} predicts the real hold-out "
                  f"rows ({unit}, {scored})"
                  + (": the reference the synthetic data is compared with." if real else
                     ": close to TRTR means the release predicts Y about as well as the real data."),
                  axis=None if real or not forest else AxisKind.UTILITY,
                  question=None if real or not forest else "How well models trained on the synthetic data predict Y, "
                                                           "compared with the real data (higher is more useful)",
                  worst=None if real else (0.5 if auc else 0.0),
                  ideal=None if real else Reference(utility_metric("trtr", auc, classifier), REAL),
                  spread="percentile" if real else "bootstrap")


# the three anonymisation criteria of the Article 29 Working Party (Opinion 05/2014), as the attacks of Giomi et al.
# (PETS 2023) measure them (evaluation/anonymity.py): record-name prefix, label, what the attacker does
GDPR_CRITERIA = (
    ("singling_out", "Singling-out risk (multivariate predicates)",
     "conditions on 3 columns that pick out a single synthetic row, checked against the training rows"),
    ("singling_out_univariate", "Singling-out risk (univariate predicates)",
     "one-column conditions (a value occurring once, below the minimum, above the maximum) that pick out a single "
     "synthetic row, checked against the training rows"),
    ("linkability", "Linkability risk",
     "two disjoint column groups of a training record linked through their shared nearest synthetic row"),
    ("inference", "Inference risk",
     "the sensitive column guessed from the nearest synthetic row on every other column (a number within 5 %)"),
)
# the parts recorded for each criterion: name suffix, label suffix, unit, better, range, explanation
GDPR_PARTS: dict[Part, tuple] = {
    Part.RISK: ("", "share", Direction.LOWER, (0.0, 1.0),
     "How much more often the attack succeeds on the people in the training rows than on hold-out people the "
     "generator never saw, from 0 (nothing beyond what the data tell about anyone) to 1 (the attack succeeds on "
     "the training people only, as on a verbatim copy). The residual risk (main − control) / (1 − control), "
     "clipped to [0, 1]."),
    Part.RISK_LOW: (": 95 % interval, lower end", "share", Direction.LOWER, (0.0, 1.0),
     "The lower end of one set's 95 % interval of the residual risk, from the uncertainty of both success rates "
     "(Wilson intervals, propagated), clipped to [0, 1]."),
    Part.RISK_HIGH: (": 95 % interval, upper end", "share", Direction.LOWER, (0.0, 1.0),
     "The upper end of one set's 95 % interval of the residual risk, clipped to [0, 1]."),
    Part.MAIN_RATE: (": main attack's success rate", "share", Direction.LOWER, (0.0, 1.0),
     "The share of attacks on the people in the training rows that succeed (a Wilson estimate, steady even for "
     "few attacks)."),
    Part.CONTROL_RATE: (": control attack's success rate", "share", Direction.LOWER, (0.0, 1.0),
     "The share of the same attacks that succeed on hold-out people, whom the generator never saw: what the data "
     "reveal about anyone (Wilson estimate)."),
    Part.BASELINE_RATE: (": naive baseline's success rate", "share", Direction.LOWER, (0.0, 1.0),
     "The share of attacks that succeed by guessing blindly, without the synthetic rows (Wilson estimate): the "
     "main attack must beat it for the figures to mean anything."),
    Part.ATTACKS: (": number of attacks", "attacks", Direction.HIGHER, (0.0, None),
     "How many attacks of this kind were run on one published set (at most 500; for linkability and inference "
     "at most the number of hold-out rows)."),
}


def _gdpr(prefix: str, label: str, attack: str) -> tuple[Metric, ...]:
    """A criterion's risk and its companion records, one metric each (summary.json: {median, ci_low, ci_high, n}
    over the published sets of each)."""
    per_column = PerColumn.SENSITIVE if prefix == "inference" else None
    short = label.replace(" risk", "")
    return tuple(Metric(criterion_record(prefix, part), f"{label}{suffix}", f"{short}{suffix or ' risk'}", unit,
                        better, bounds, Group.GDPR, Source.RELEASE,
                        f"{explanation} Attack: {attack} (Giomi et al. 2023).", per_column=per_column,
                        compute=set_metrics.gdpr_criteria)
                 for part in Part for suffix, unit, better, bounds, explanation in [GDPR_PARTS[part]])


METRICS: tuple[Metric, ...] = (
    # -- utility ------------------------------------------------------------------------------------
    *(_utility(auc, stage, classifier) for auc in (True, False) for stage in UTILITY_STAGES
      for classifier in CLASSIFIERS),
    Metric("pair_structure", "Pairwise dependence kept (1 − mean |Spearman difference|)", "Pair structure",
           "1 − mean |Δρ|", Direction.HIGHER, (-1.0, 1.0), Group.UTILITY, Source.RELEASE,
           "How much of the relations between every pair of columns the synthetic set keeps, whether or not they "
           "involve Y: 1 minus the average gap between each pair's real and synthetic rank correlation "
           "(Spearman). Scaled from independent columns (the real rows shuffled column by column: 0) to the real "
           "relations (1).",
           axis=AxisKind.UTILITY, worst=Reference("pair_structure", SHUFFLED), ideal=1.0,
           question="How much of the relations between columns the synthetic data keep (higher is more useful)",
           compute=set_metrics.structure),
    Metric("ci_overlap", "Confidence-interval overlap of the analysis (Karr et al. 2006)", "CI overlap",
           "share", Direction.HIGHER, (-1.0, 1.0), Group.UTILITY, Source.RELEASE,
           "Whether an analyst would reach the same conclusions: the regression of Y on the covariates (logistic "
           "for a class response, linear otherwise) is fitted on the real training rows and on the synthetic set, "
           "and each coefficient's 95 % confidence intervals are compared; 1 means they coincide. Scaled from "
           "independent columns (0) to identical intervals (1).",
           axis=AxisKind.UTILITY, worst=Reference("ci_overlap", SHUFFLED), ideal=1.0, compute=set_metrics.structure,
           question="How far an analysis of Y on the synthetic data reaches the real data's conclusions (higher is "
                    "more useful)"),
    Metric("pmse_ratio", "Propensity-score MSE ratio (pMSE ratio, synthpop)", "pMSE ratio", "ratio", Direction.LOWER,
           (0.0, None), Group.UTILITY, Source.RELEASE,
           "How easily a model tells synthetic rows from real ones, relative to what chance alone gives: about 1 "
           "means they cannot be told apart, larger means they can (propensity-score mean squared error, Snoke et "
           "al. 2018).",
           axis=AxisKind.UTILITY, worst=Reference("pmse_ratio", SHUFFLED), ideal=1.0, compute=set_metrics.structure,
           rows=PMSE_ROWS, question="How easily synthetic rows are told apart from real ones (lower is more useful)"),
    # -- attribute inference ------------------------------------------------------------------------
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
           "(nothing) to 1 (all of it).", per_column=PerColumn.SENSITIVE),
    Metric("release_r2", "Attacker R² on the release", "Release attacker R²", "R²", Direction.LOWER, (0.0, 1.0),
           Group.ATTRIBUTE_RISK, Source.RELEASE,
           "How much of the sensitive column's variation the attacker's guesses explain on the published sets, "
           "from 0 (nothing) to 1 (all of it).",
           per_column=PerColumn.SENSITIVE),
    Metric("mse_in", "Attacker squared error, target in training data", "Guess error (IN)",
           "squared error (standardised)", Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "How far off the attacker's guess of a target person's sensitive value is (squared, in standard "
           "deviations) when that person was in the training rows.",
           per_column=PerColumn.SENSITIVE),
    Metric("mse_out", "Attacker squared error, target left out", "Guess error (OUT)", "squared error (standardised)",
           Direction.HIGHER, (0.0, None), Group.ATTRIBUTE_RISK, Source.GAME,
           "The same guess error when the person was left out: IN close to OUT means being in the data does not "
           "help the attacker.",
           per_column=PerColumn.SENSITIVE),
    Metric("advantage", "Attacker advantage, categorical column (attack game)", "Attacker advantage (categorical)",
           "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.GAME,
           "For a categorical sensitive column: how much more often the attacker guesses a person's category "
           "correctly when the person was in the training rows than when not; 0 means no difference.",
           per_column=PerColumn.SENSITIVE),
    Metric("release_advantage", "Attacker advantage over the majority class on the release",
           "Release attacker advantage", "share", Direction.LOWER, (-1.0, 1.0), Group.ATTRIBUTE_RISK, Source.RELEASE,
           "For a categorical sensitive column: how much better than always guessing the most common category an "
           "attacker trained on the published sets does; 0 means no better.", per_column=PerColumn.SENSITIVE),
    # -- membership inference -----------------------------------------------------------------------
    Metric("pg", "Privacy gain (PG; 1 = attacker learns nothing)", "Privacy gain (MIA)", "0–2", Direction.HIGHER,
           (0.0, 2.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "Whether the paper's membership attacker, trained on shadow models, can tell if a person was in the "
           "data: 1 means it learns nothing, 0 that the release reveals membership as the real data would; values "
           "above 1 are chance. 1 − (TP − FP) (Stadler et al. 2022).",
           axis=AxisKind.PRIVACY, worst=0.0, ideal=1.0,
           question="How little an attacker learns about who was in the data (higher is safer; 1 = nothing)"),
    Metric("mia_tp", "Membership attack true-positive rate", "MIA true positives", "share", Direction.LOWER, (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The share of synthetic sets made with the target person (IN) that the membership attacker rightly "
           "calls members."),
    Metric("mia_fp", "Membership attack false-positive rate", "MIA false positives", "share", Direction.HIGHER,
           (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The share of synthetic sets made without the target person (OUT) that the membership attacker "
           "wrongly calls members."),
    Metric("mia_auc", "Membership attack AUC, strongest of three attacks (0.5 = learns nothing)",
           "Membership attack AUC", "ROC AUC", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "How well the strongest of three membership attacks tells the training rows from the hold-out rows "
           "using the published set: 0.5 is a coin toss, 1 a perfect split. Read against the same attacks on the "
           "real rows themselves (privacy 0) and on the real rows shuffled column by column, their noise floor "
           "(privacy 1). The attacks: density ratio (DOMIAS-style), local likelihood ratio (Gen-LRA-style), "
           "distance difference.",
           axis=AxisKind.PRIVACY, worst=Reference("mia_auc", REAL, 1.0), ideal=Reference("mia_auc", SHUFFLED, 0.5),
           compute=set_metrics.membership_attacks,
           question="How well an attacker tells who was in the data (lower is safer; 0.5 = a coin toss)"),
    Metric("mia_tpr_at_1pct_fpr", "Membership attack true-positive rate at 1 % false positives",
           "Membership TPR @ 1 % FPR", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows the strongest membership attack flags while wrongly flagging only 1 % of "
           "hold-out rows: the risk to the most exposed people, which an AUC averages away (Carlini et al. "
           "2022).",
           axis=AxisKind.PRIVACY, worst=Reference("mia_tpr_at_1pct_fpr", REAL, 1.0),
           ideal=Reference("mia_tpr_at_1pct_fpr", SHUFFLED, 0.01), compute=set_metrics.membership_attacks,
           question="How many people in the data an attacker spots while wrongly accusing 1 in 100 others (lower is "
                    "safer)"),
    Metric("mia_tpr_at_10pct_fpr", "Membership attack true-positive rate at 10 % false positives",
           "Membership TPR @ 10 % FPR", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows the strongest membership attack flags while wrongly flagging 10 % of "
           "hold-out rows.", axis=AxisKind.PRIVACY, worst=Reference("mia_tpr_at_10pct_fpr", REAL, 1.0),
           ideal=Reference("mia_tpr_at_10pct_fpr", SHUFFLED, 0.1), compute=set_metrics.membership_attacks,
           question="How many people in the data an attacker spots while wrongly accusing 1 in 10 others (lower is "
                    "safer)"),
    Metric("mia_attack_auc", "Membership attack AUC, per attack", "Membership AUC per attack", "ROC AUC",
           Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "Each membership attack's AUC on its own (column: the attack), showing which attack is strongest on "
           "this release.",
           per_column=PerColumn.ANY, compute=set_metrics.membership_attacks),
    Metric("mcmia", "Membership inference score (MC-MIA; 0.5 = indistinguishable)", "MC membership score", "share",
           Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows among the records an attacker counting nearby synthetic rows ranks most "
           "likely members: 0.5 means training and hold-out rows look alike to it, 1 that it recovers the training "
           "rows (Monte-Carlo membership attack, COPULA-SHIRLEY).",
           axis=AxisKind.PRIVACY, worst=1.0, ideal=0.5, compute=set_metrics.monte_carlo_membership,
           question="How well a distance-based attacker picks out who was in the data (lower is safer; 0.5 = a coin "
                    "toss)"),
    Metric("dcr_closer_to_train", "Share of synthetic rows closer to training than to hold-out rows",
           "Share closer to training rows", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of synthetic rows whose nearest real row is a training row rather than a hold-out row "
           "(distance to closest record): about 0.5 when the release does not copy its training rows.",
           compute=set_metrics.closeness),
    Metric("exact_copies", "Exact copies of training rows", "Exact copies", "rows", Direction.LOWER, (0.0, None),
           Group.MEMBERSHIP_RISK, Source.RELEASE,
           "How many synthetic rows equal a training row on every modelled column: each one is a real record "
           "released.",
           compute=set_metrics.closeness),
    # -- anonymisation: the three GDPR criteria -------------------------------------------------------------
    *(metric for criterion in GDPR_CRITERIA for metric in _gdpr(*criterion)),
    # -- the empirical audit of a DP claim (evaluation/dp_audit.py; only in sweeps run with --audit-dp) --------
    Metric("dp_audit_score_in", "DP audit: canary's membership score, canary in the fit", "DP audit score (IN)",
           "−distance", Direction.LOWER, (float("-inf"), 0.0), Group.MEMBERSHIP_RISK, Source.GAME,
           "How close the release comes to a planted worst-case record (a canary; column: the canary) in the "
           "audit's fits that held it, as minus the distance to its nearest released row: near 0 means the "
           "release remembers it.",
           per_column=PerColumn.ANY),
    Metric("dp_audit_score_out", "DP audit: canary's membership score, canary not in the fit", "DP audit score (OUT)",
           "−distance", Direction.HIGHER, (float("-inf"), 0.0), Group.MEMBERSHIP_RISK, Source.GAME,
           "The same closeness in the audit's fits without the canary: IN close to OUT means the release does not "
           "show whether the canary was there.", per_column=PerColumn.ANY),
    Metric("dp_audit_claimed_epsilon", "Privacy budget ε the generator claims", "Claimed ε", "ε", Direction.LOWER,
           (0.0, None), Group.MEMBERSHIP_RISK, Source.GAME,
           "The privacy budget ε a differentially private generator's settings promise (smaller is stronger), "
           "recorded by its audit."),
    Metric("dp_audit_claimed_delta", "δ the generator claims", "Claimed δ", "δ", Direction.LOWER, (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The small probability δ with which the claimed guarantee may fail (0 for pure ε-DP), recorded by the "
           "audit."),
    # -- fidelity -----------------------------------------------------------------------------------
    Metric("alpha_precision", "α-precision (fidelity)", "α-precision (fidelity)", "share", Direction.HIGHER, (0.0, 1.0),
           Group.FIDELITY, Source.RELEASE,
           "Whether synthetic rows are as typical as real rows: the regions that hold a given share of the most "
           "typical real rows (the α-supports) should hold the same share of synthetic rows, at every size. 1 "
           "means they do; lower means synthetic rows crowd the centre or stray outside (integrated α-precision, "
           "Alaa et al. 2022).",
           compute=set_metrics.fidelity),
    Metric("beta_recall", "β-recall (diversity)", "β-recall (diversity)", "share", Direction.HIGHER, (0.0, 1.0),
           Group.FIDELITY, Source.RELEASE,
           "Whether the synthetic data covers the real rows as it should: the regions that hold a given share of "
           "the most typical synthetic rows (the β-supports) should hold the same share of real rows, at every "
           "size. 1 means they do; lower means the release misses or crowds some kinds of records (integrated "
           "β-recall, Alaa et al. 2022).",
           compute=set_metrics.fidelity),
    Metric("authenticity", "Authenticity (share of non-copied rows)", "Authenticity", "share", Direction.HIGHER,
           (0.0, 1.0), Group.FIDELITY, Source.RELEASE,
           "The share of synthetic rows that are new rather than near-copies: not closer to a training row than that "
           "row's own nearest real neighbour (Alaa et al. 2022).",
           compute=set_metrics.fidelity),
    Metric("spearman_difference", "Mean |Spearman difference| real vs synthetic", "Spearman matrix difference",
           "|ρ difference|", Direction.LOWER, (0.0, 2.0), Group.FIDELITY, Source.RELEASE,
           "How much the rank correlations (Spearman) between pairs of columns differ, on average, between the "
           "real and the synthetic data: 0 means the same.",
           compute=set_metrics.fidelity),
    Metric("column_distance", "Distance between real and synthetic column distributions", "Column distance (KS / TV)",
           "KS or TV distance", Direction.LOWER, (0.0, 1.0), Group.FIDELITY, Source.RELEASE,
           "How different each column's distribution of values is in the synthetic data, from 0 (the same) to 1 "
           "(no overlap): Kolmogorov-Smirnov distance for numbers, total variation for categories.",
           per_column=PerColumn.ANY,
           compute=set_metrics.fidelity),
)
CATALOGUE: dict[str, Metric] = {m.name: m for m in METRICS}
DEFAULT_PRIVACY_AXIS = "mab_worst"  # the paper's: the attacker's MAB on the worst sensitive column
# U_t: prediction, pairwise dependence and an analysis' results weighed equally (choice/mix.py); "tstr" is the paper's
DEFAULT_UTILITY = "tstr=1,pair_structure=1,ci_overlap=1"


def label(name: str, short: bool = False) -> str:
    """Readable name of a record metric (unknown names are shown as they are, never hidden)."""
    found = CATALOGUE.get(name)
    if found is None:
        return name.replace("_", " ").capitalize()
    return found.short if short else found.label


def tstr_metric(metric_names: Iterable[str]) -> Metric:
    """TSTR with the random forest, by R² when ``metric_names`` (a run's records) hold the utilities of a continuous
    response, else by AUC: the utility of a single-axis choice, and what the utility mix's ``tstr`` stands for."""
    continuous = {utility_metric(stage, False, c) for stage in UTILITY_STAGES for c in CLASSIFIERS}
    return CATALOGUE[utility_metric("tstr", continuous.isdisjoint(map(str, metric_names)))]


# the metrics ``tstr_metric`` may answer: one per kind of response
TSTR_METRICS = frozenset(utility_metric("tstr", discrete) for discrete in (True, False))
# a GDPR criterion's record name -> (the criterion, its part)
GDPR_RECORDS: dict[str, tuple[str, Part]] = {criterion_record(criterion, part): (criterion, part)
                                             for criterion, *_ in GDPR_CRITERIA for part in Part}


def axis_metrics(axis: AxisKind | str) -> list[Metric]:
    """The metrics that may be this axis, in the catalogue's order."""
    return [m for m in CATALOGUE.values() if m.axis == axis]
