"""The report's sections read a ``ReportContext``; these tests build one by hand around the choice tests' two-level
summary (``tests/choice/conftest.py``: level 1 best at α ½), with the release and its sweep as plain namespaces of the
fields the sections read — no sweep, no store."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest

from tests.choice.conftest import two_levels  # noqa: F401 (a fixture, used by the fixture below)
from tvs_core.choice import ChoiceSettings, explain_level
from tvs_core.choice.axes import Axis
from tvs_core.choice.summary import choose
from tvs_core.report.context import ReportContext
from tvs_core.storage.store import JobRow, JobStatus

MAB = Axis.parse("mab_worst")  # the hand-written summaries hold the paper's MAB, not the default axis

SHA = "0123456789abcdef" * 4


@pytest.fixture
def context_of(two_levels):  # noqa: F811
    """``context_of(level=2, reason=None, exported=True, release={...}, job={...}, levels=None, **fields)``: a
    context of the release of ``level`` of the two-level summary; ``release`` and ``job`` override fields of the
    release and of the sweep's job row, ``fields`` any field of the context. ``levels``: a selection of these levels
    and nothing else, and no card (for a hand-written ``summary`` the choice cannot score)."""

    def make(level: int = 2, reason: str | None = None, exported: bool = True, release: dict | None = None,
             job: dict | None = None, levels: list[int] | None = None, **fields) -> ReportContext:
        summary = fields.pop("summary", two_levels)
        selection = (choose(summary, ["a"], privacy=MAB) if levels is None else
                     SimpleNamespace(table=pd.DataFrame({"level": levels}), best_level=levels[0]))
        made = SimpleNamespace(level=level, seed=5, rows=120, file_name="release.csv", sha256=SHA, table_name="ward",
                               choice=lambda: {"why": "chosen by the user"}, override_reason=None, checks=[],
                               pooled=None, view=None, selection=selection)
        for key, value in (release or {}).items():
            setattr(made, key, value)
        row = JobRow("job-1", **{"status": JobStatus.DONE, "done": 9, "total": 9} | (job or {}))
        view = SimpleNamespace(id="job-1", job=row,
                               config=SimpleNamespace(sensitive=["a"], response="y", externals=None),
                               holdout_words=lambda: "the user's own hold-out file (30 rows), named ward7.csv, "
                                                     f"SHA-256 {'cd' * 32}; no random split")
        card = None if levels else explain_level(selection, summary, level, ["a"])
        context = ReportContext(made, reason, exported, view, summary, selection, ChoiceSettings(privacy=MAB), card,
                                pd.DataFrame(columns=["metric"]), [], {}, [], pd.DataFrame(), pd.DataFrame(), None,
                                "2024-03-03 10:00:00 UTC")
        return replace(context, **fields)

    return make
