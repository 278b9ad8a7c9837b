"""Privacy and utility evaluation (PROTOCOLS.md). Metrics are plain functions returning records."""

from .utility import holdout_split, utility_score

__all__ = ["holdout_split", "utility_score"]
