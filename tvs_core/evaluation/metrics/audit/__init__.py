"""The empirical audit of a differential-privacy claim: how close releases come to planted worst-case records
(canaries) in fits with and without them, and the ε and δ the generator claims (``canaries.trial_records``; only
in sweeps run with --audit-dp). Listed with membership risk. The family's one home: this declaration, and the audit
itself in ``canaries``, whose public names are read from here."""

from __future__ import annotations

from ..base import Direction, Family, Group, Metric, PerColumn, Source, register
from .canaries import (
    AUDIT_ROWS,
    DEFAULT_TRIALS,
    AuditResult,
    audit_base,
    audits_from_records,
    claimed_privacy,
    run_audit,
    trial_records,
)

AUDIT = register(Family("audit", 70, (
    Metric("dp_audit_score_in", "DP audit: canary's membership score, canary in the fit", "DP audit score (IN)",
           "score", Direction.LOWER, (float("-inf"), None), Group.MEMBERSHIP_RISK, Source.GAME,
           "How close the release comes to a planted worst-case record (a canary) in the audit's fits that held it, "
           "by two scores (column: the canary and the score), higher meaning closer: minus the distance to its "
           "nearest released row (near 0 means the release remembers it), and how many released values lie near "
           "the canary's, column by column (0 means none).",
           per_column=PerColumn.ANY, produced_by=trial_records),
    Metric("dp_audit_score_out", "DP audit: canary's membership score, canary not in the fit", "DP audit score (OUT)",
           "score", Direction.HIGHER, (float("-inf"), None), Group.MEMBERSHIP_RISK, Source.GAME,
           "The same scores in the audit's fits without the canary: IN close to OUT means the release does not "
           "show whether the canary was there.", per_column=PerColumn.ANY, produced_by=trial_records),
    Metric("dp_audit_claimed_epsilon", "Privacy budget ε the generator claims", "Claimed ε", "ε", Direction.LOWER,
           (0.0, None), Group.MEMBERSHIP_RISK, Source.GAME,
           "The privacy budget ε a differentially private generator's settings promise (smaller is stronger), "
           "recorded by its audit.", produced_by=trial_records),
    Metric("dp_audit_claimed_delta", "δ the generator claims", "Claimed δ", "δ", Direction.LOWER, (0.0, 1.0),
           Group.MEMBERSHIP_RISK, Source.GAME,
           "The small probability δ with which the claimed guarantee may fail (0 for pure ε-DP), recorded by the "
           "audit.", produced_by=trial_records),
)))

__all__ = ["AUDIT", "AUDIT_ROWS", "DEFAULT_TRIALS", "AuditResult", "audit_base", "audits_from_records",
           "claimed_privacy", "run_audit", "trial_records"]
