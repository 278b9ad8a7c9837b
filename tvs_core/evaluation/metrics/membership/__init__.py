"""Membership inference: whether an attacker can tell that a person was in the training rows — the paper's
shadow-model game (``game.mia_evaluation_task``) and today's shadow-free attacks on each published set
(``attacks``: ``membership_attacks``, ``monte_carlo_membership`` below). The family's one home: this declaration and
its adapters, the game in ``game``, the attacks in ``attacks``."""

from __future__ import annotations

from ....seeding import task_rng, task_seed
from ...records import REAL, SHUFFLED
from ...set_metrics import SyntheticSet
from ..base import AxisKind, Direction, Family, Group, Metric, PerColumn, Reference, Source, register
from .attacks import ATTACK_NAMES, mcmia
from .attacks import membership_attacks as attack
from .game import mia_evaluation_task


def membership_attacks(s: SyntheticSet) -> dict:
    """The three shadow-free attacks; the headline numbers are the strongest attack's."""
    found = attack(s.values, s.data.train, s.data.test, s.data.categorical,
                   seed=task_seed(s.master_seed, "mia-attacks", s.label, s.level, s.index))
    return {"mia_auc": max(found["auc"].values()),
            "mia_tpr_at_1pct_fpr": max(found["tpr_at_1pct_fpr"].values()),
            "mia_tpr_at_10pct_fpr": max(found["tpr_at_10pct_fpr"].values()),
            "mia_attack_auc": dict(found["auc"])}


def monte_carlo_membership(s: SyntheticSet) -> dict:
    """Training and control samples of equal size m, drawn per set."""
    rng = task_rng(s.master_seed, "mcmia", s.label, s.level, s.index)
    m = min(len(s.data.test), len(s.data.train))
    train_sample = s.data.train[rng.choice(len(s.data.train), size=m, replace=False)]
    control = s.data.test[rng.choice(len(s.data.test), size=m, replace=False)]
    return {"mcmia": mcmia(train_sample, control, s.values)["privacy_score"]}


MEMBERSHIP = register(Family("membership", 40, (
    Metric("pg", "Privacy gain (PG; 1 = attacker learns nothing)", "Privacy gain (MIA)", "0–2", Direction.HIGHER,
           (0.0, 2.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "Whether the paper's membership attacker, trained on shadow models, can tell if a person was in the "
           "data: 1 means it learns nothing, 0 that the release reveals membership as the real data would; values "
           "above 1 are chance. 1 − (TP − FP) (Stadler et al. 2022).",
           axis=AxisKind.PRIVACY, worst=0.0, ideal=1.0,
           question="How little an attacker learns about who was in the data (higher is safer; 1 = nothing)",
           produced_by=mia_evaluation_task),
    Metric("mia_tp", "Membership attack true-positive rate", "MIA true positives", "share", Direction.LOWER, (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The share of synthetic sets made with the target person (IN) that the membership attacker rightly "
           "calls members.", produced_by=mia_evaluation_task),
    Metric("mia_fp", "Membership attack false-positive rate", "MIA false positives", "share", Direction.HIGHER,
           (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The share of synthetic sets made without the target person (OUT) that the membership attacker "
           "wrongly calls members.", produced_by=mia_evaluation_task),
    Metric("mia_auc", "Membership attack AUC, strongest of three attacks (0.5 = learns nothing)",
           "Membership attack AUC", "ROC AUC", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "How well the strongest of three membership attacks tells the training rows from the hold-out rows "
           "using the published set: 0.5 is a coin toss, 1 a perfect split. Read against the same attacks on the "
           "real rows themselves (privacy 0) and on the real rows shuffled column by column, their noise floor "
           "(privacy 1). The attacks: density ratio (DOMIAS-style), local likelihood ratio (Gen-LRA-style), "
           "distance difference.",
           axis=AxisKind.PRIVACY, worst=Reference("mia_auc", REAL, 1.0), ideal=Reference("mia_auc", SHUFFLED, 0.5),
           compute=membership_attacks,
           question="How well an attacker tells who was in the data (lower is safer; 0.5 = a coin toss)"),
    Metric("mia_tpr_at_1pct_fpr", "Membership attack true-positive rate at 1 % false positives",
           "Membership TPR @ 1 % FPR", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows the strongest membership attack flags while wrongly flagging only 1 % of "
           "hold-out rows: the risk to the most exposed people, which an AUC averages away (Carlini et al. "
           "2022).",
           axis=AxisKind.PRIVACY, worst=Reference("mia_tpr_at_1pct_fpr", REAL, 1.0),
           ideal=Reference("mia_tpr_at_1pct_fpr", SHUFFLED, 0.01), compute=membership_attacks,
           question="How many people in the data an attacker spots while wrongly accusing 1 in 100 others (lower is "
                    "safer)"),
    Metric("mia_tpr_at_10pct_fpr", "Membership attack true-positive rate at 10 % false positives",
           "Membership TPR @ 10 % FPR", "share", Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows the strongest membership attack flags while wrongly flagging 10 % of "
           "hold-out rows.", axis=AxisKind.PRIVACY, worst=Reference("mia_tpr_at_10pct_fpr", REAL, 1.0),
           ideal=Reference("mia_tpr_at_10pct_fpr", SHUFFLED, 0.1), compute=membership_attacks,
           question="How many people in the data an attacker spots while wrongly accusing 1 in 10 others (lower is "
                    "safer)"),
    Metric("mia_attack_auc", "Membership attack AUC, per attack", "Membership AUC per attack", "ROC AUC",
           Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "Each membership attack's AUC on its own (column: the attack), showing which attack is strongest on "
           "this release.",
           per_column=PerColumn.ANY, compute=membership_attacks, column_names=ATTACK_NAMES),
    Metric("mcmia", "Membership inference score (MC-MIA; 0.5 = indistinguishable)", "MC membership score", "share",
           Direction.LOWER, (0.0, 1.0), Group.MEMBERSHIP_RISK, Source.RELEASE,
           "The share of training rows among the records an attacker counting nearby synthetic rows ranks most "
           "likely members: 0.5 means training and hold-out rows look alike to it, 1 that it recovers the training "
           "rows (Monte-Carlo membership attack, COPULA-SHIRLEY).",
           axis=AxisKind.PRIVACY, worst=1.0, ideal=0.5, compute=monte_carlo_membership,
           question="How well a distance-based attacker picks out who was in the data (lower is safer; 0.5 = a coin "
                    "toss)"),
)))
