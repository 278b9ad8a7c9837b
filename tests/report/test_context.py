"""report/context.py: what every section reads, gathered once; a release without a scored sweep is refused in one
sentence, and the properties read the release and the sweep as the sections need them. (``ReportContext.of`` on a
real sweep: tests/report/test_provenance.py and tests/test_report.py.)"""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tvs_core.errors import DataError
from tvs_core.report.context import ReportContext


@pytest.mark.parametrize("release", [
    SimpleNamespace(view=None, selection=SimpleNamespace(best_level=1)),  # a model fitted on the spot
    SimpleNamespace(view=object(), selection=None),  # a sweep without a choice
    # the released level not scored yet (nothing recommended is no reason to refuse: a cancelled sweep's chosen level
    # has its report, which says its numbers are provisional)
    SimpleNamespace(view=object(), level=3, selection=SimpleNamespace(best_level=None,
                                                                      table=pd.DataFrame({"level": [1]}))),
])
def test_a_release_without_a_scored_sweep_is_refused_with_what_to_do(release):
    with pytest.raises(DataError, match="A report needs a release of a sweep with results") as refused:
        ReportContext.of(release)
    assert "Let the sweep run (or resume it)" in refused.value.fix


def test_the_level_and_the_levels_are_plain_integers(context_of):
    """The released level may arrive as a numpy integer and the selection's levels as floats: sections format and
    compare them as ints."""
    c = context_of(release={"level": np.int64(2)})
    assert c.level == 2 and type(c.level) is int
    assert c.levels == [1, 2] and all(type(v) is int for v in c.levels)


def test_the_sensitive_columns_are_a_copy_of_the_sweeps(context_of):
    c = context_of()
    c.sensitive.append("b")
    assert c.sensitive == ["a"] and c.config.sensitive == ["a"]
    assert c.config is c.view.config


def test_the_name_is_the_release_table_name(context_of):
    assert context_of(release={"table_name": "<ward> & co"}).name == "<ward> & co"  # escaped where it is shown


@pytest.mark.parametrize("reason, note", [
    (None, None), ("", None), ("  \n\t ", None),  # nothing typed is no note
    ("  as agreed with the DPO \n", "as agreed with the DPO"),
    ("<b>bold</b> & co", "<b>bold</b> & co"),  # as typed: escaped where it is shown
])
def test_the_note_is_what_the_user_typed_trimmed_or_none(context_of, reason, note):
    assert context_of(reason=reason).note == note


def test_the_report_says_where_its_rows_come_from(context_of):
    assert context_of(exported=True).drawn == "the released rows"
    drawn = context_of(exported=False, release={"rows": 120, "seed": 5}).drawn
    assert drawn == "120 rows drawn at level 2 (seed 5)"
