"""What a privacy officer sees before a file leaves (release/guardrails.py): copies of training rows block the
download; failed metrics and capped sizes are shown, but do not block."""

import numpy as np
import pandas as pd
import pytest

from tvs_core import IndependentMargins
from tvs_core.evaluation.records import HOLDER, record, to_frame
from tvs_core.evaluation.summary import summarise
from tvs_core.release.guardrails import blocked, copies_of_training_rows, guardrails

UNMODELLED = ["patient_code", "row_number", "notes", "site"]  # identifiers, free text, a constant: not modelled


@pytest.fixture
def model(mixed_table):
    """A generator fitted on the mixed table: only its modelled columns can make a released row a copy."""
    fitted = IndependentMargins(response="outcome").fit(mixed_table)
    assert not set(UNMODELLED) & set(fitted.schema_.modelled)
    return fitted


def not_copies(train: pd.DataFrame, n: int) -> pd.DataFrame:
    """Training rows with one modelled value moved off the 2-decimal grid every training weight is on."""
    return train.head(n).assign(weight=train["weight"].head(n) + 0.001)


def test_a_copy_on_every_modelled_column_blocks_the_release(mixed_table, model):
    """Other identifiers or text beside a real record do not make it less of a copy; the message says how many."""
    disguised = mixed_table.iloc[[5, 50, 150]].assign(patient_code="X", row_number=0, notes="new", site="Paris")
    synthetic = pd.concat([not_copies(mixed_table, 10), disguised], ignore_index=True)
    checks = guardrails(synthetic, mixed_table, model)
    assert copies_of_training_rows(synthetic, mixed_table, model.schema_.modelled) == 3
    assert [c.name for c in blocked(checks)] == ["exact_copies"]
    assert "3 of 13 synthetic rows are exact copies" in blocked(checks)[0].message
    assert "real records" in blocked(checks)[0].message


@pytest.mark.parametrize("rows", [0, 10])
def test_a_release_without_copies_passes_and_says_so(mixed_table, model, rows):
    """The officer sees that the check ran (an 'ok' line), not an empty list; an empty file has no copies."""
    checks = guardrails(not_copies(mixed_table, rows), mixed_table, model)
    assert not blocked(checks)
    assert [(c.name, c.severity) for c in checks] == [("exact_copies", "ok")]
    assert "No synthetic row is an exact copy" in checks[0].message


def test_failed_metrics_and_capped_sizes_are_warnings_that_name_them(mixed_table, model):
    """A metric whose every replicate failed is named (with its column); a capped size says what was asked, what
    was used and why. Neither blocks the download."""
    records = to_frame([record(HOLDER, 2, "auc_tstr", 0.7 + 0.01 * i) for i in range(3)]
                       + [record(HOLDER, 2, "auc_tstr", np.nan, attribute="weight") for _ in range(3)]
                       + [record(HOLDER, 2, "pmse_ratio", np.nan) for _ in range(3)])
    caps = [{"parameter": "mia_size_raw", "requested": 500, "used": 120, "reason": "only 160 training rows"}]
    checks = guardrails(not_copies(mixed_table, 10), mixed_table, model, summary=summarise(records), caps=caps)
    warnings = [c.message for c in checks if c.severity == "warn"]
    assert sorted(warnings) == ["Metric Propensity-score MSE ratio (pMSE ratio, synthpop) could not be computed.",
                                "Metric TSTR ROC AUC (random forest) (weight) could not be computed.",
                                "membership game: real rows per model (sizeRawT) was 120 instead of 500: only 160 "
                                "training rows."]  # by their plain names (issue 56)
    assert not blocked(checks)
