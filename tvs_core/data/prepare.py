"""The numeric table every model, the ordering preview and the evaluation work on."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .encoding import TableEncoder
from .missing import MissingPolicy, MissingReport, apply_missing_policy
from .schema import ColumnType, Schema, check_dates


@dataclass
class PreparedTable:
    modelled: pd.DataFrame  # modelled columns after the missing-value policy
    schema: Schema  # their schema (with missingness indicators, if imputed)
    report: MissingReport
    encoder: TableEncoder
    values: pd.DataFrame  # numeric view, one column per modelled column
    labels: pd.Index  # each modelled row's label in the table given (rows the policy dropped are absent)


def prepare_table(table: pd.DataFrame, schema: Schema,
                  missing: MissingPolicy = MissingPolicy.DROP_ROWS) -> PreparedTable:
    """The numeric table every model and the ordering preview work on."""
    for spec in schema.columns:  # an impossible date named by its row in the table as given, before rows are dropped
        if spec.modelled and spec.type == ColumnType.DATETIME and spec.name in table.columns \
                and not pd.api.types.is_datetime64_any_dtype(table[spec.name]):
            check_dates(table[spec.name])
    modelled, model_schema, report = apply_missing_policy(table, schema, missing)
    labels = modelled.index
    modelled = modelled.reset_index(drop=True)
    encoder = TableEncoder(model_schema).fit(modelled)
    values = pd.DataFrame(encoder.transform(modelled), columns=encoder.names)
    return PreparedTable(modelled, model_schema, report, encoder, values, labels)
