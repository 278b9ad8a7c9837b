"""The report's appendix: every column's type, role and why, each column's margin distance at the released level,
and the margins the fidelity section leaves out — what the sections above summarise, listed whole."""

import html
import re
from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest

from tests.conftest import SWEEP_COLUMNS
from tvs_core.jobs import JobView
from tvs_core.release.release import Release
from tvs_core.report import appendix, evidence, provenance
from tvs_core.report.context import ReportContext


@pytest.fixture(scope="module")
def context(stored_sweep):
    store, job_id, _ = stored_sweep
    return ReportContext.of(Release.from_sweep(JobView(store, job_id), 2, rows=120, seed=5, table_name="ward"))


def test_every_column_is_listed_once_with_its_type_role_and_distance(context):
    shown = appendix.render(context)
    part_a = shown[shown.index("<h3>A. "):shown.index("<h3>B. ")]
    distance = evidence.column_distances(context).set_index("column")
    for spec in context.release.model.schema_.columns:
        assert part_a.count(f"<td>{html.escape(spec.name)}</td>") == 1, spec.name
        found = re.search(rf"<td>{re.escape(spec.name)}</td>\s*<td>{spec.type.value}</td>\s*<td>{spec.role.value}</td>"
                          r"\s*<td>([^<]*)</td>", part_a)
        assert found, spec.name
        if spec.name in distance.index:
            row = distance.loc[spec.name]
            assert found.group(1) == (f"{evidence._num(row['median'])} ({evidence._num(row['low'])}–"
                                      f"{evidence._num(row['high'])})"), spec.name
    assert set(distance.index) == set(context.release.model.schema_.modelled)
    assert "in brackets its range (spread of only" in part_a  # what the range is, named once


def test_what_the_table_of_every_level_leaves_out_is_listed_at_the_released_level(context):
    """Each column of a summarised metric (but the distance of every column's margin: A lists it) and each GDPR
    criterion's attack rates: one row each, with the released level's median and range."""
    shown = appendix.render(context)
    part_b = shown[shown.index("<h3>B. "):]
    _, left = evidence.table_rows(context)
    left = [r for r in left if r["name"] != "column_distance"]  # listed in A with their ranges
    assert left and part_b.count("<tr>") == len(left)  # a row each (the headers are "<tr style=...>")
    listed = appendix.released_values(left, context.level)
    assert "Singling-out (multivariate predicates)" in set(listed["metric"])
    for r, median in zip(left, listed["median"], strict=True):
        assert median == evidence._num(r["cells"][context.level][0])


def test_a_narrow_table_has_every_margin_in_the_body_and_none_in_the_appendix(context):
    assert evidence.margins_in_body(context) == evidence.modelled_columns(context)
    assert "The margins of the other" not in appendix.render(context)


def test_a_wide_table_shows_the_sensitive_columns_y_and_the_least_faithful_in_the_body(context, monkeypatch):
    """Beyond MARGINS_IN_BODY columns the fidelity section keeps MARGINS_PICKED margins: the sensitive columns, Y
    and the largest distances; the appendix draws every other one, so each column's margin is drawn exactly once."""
    monkeypatch.setattr(evidence, "MARGINS_IN_BODY", 3)
    monkeypatch.setattr(evidence, "MARGINS_PICKED", 3)
    modelled = evidence.modelled_columns(context)
    shown = evidence.margins_in_body(context)
    first = [*context.sensitive, context.config.response]
    distance = evidence.column_distances(context).set_index("column")["median"]
    others = distance.drop(index=[c for c in first if c in distance.index]).sort_values(ascending=False)
    assert set(shown) == set(first) | set(others.index[:3 - len(first)]) and len(shown) == 3 < len(modelled)
    assert shown == [c for c in modelled if c in shown]  # in the table's order
    rest = [c for c in modelled if c not in shown]
    assert f"The margins of the other {len(rest)} columns" in appendix.render(context)
    assert f"The margins of {len(shown)} of the {len(modelled)} columns" in evidence.fidelity(context)


def test_the_data_section_and_the_appendix_agree_on_the_dropped_columns(context):
    schema = context.release.model.schema_
    dropped = schema.override(SWEEP_COLUMNS[0], role="dropped")
    model = context.release.model
    changed = replace(context, release=replace_model(context.release, model, dropped))
    words = provenance.data(changed)
    assert "Dropped, not modelled (1):" in words and html.escape(SWEEP_COLUMNS[0]) in words
    listed = appendix.render(changed)
    assert f"Dropped, and why: {SWEEP_COLUMNS[0]}: dropped by user." in listed and "dropped by user" in words


def replace_model(release, model, schema):
    """The release with its model's schema replaced (a copy: the shared sweep's model is left as it is)."""
    import copy

    model = copy.copy(model)
    model.schema_ = schema
    release = copy.copy(release)
    release.model = model
    return release


def test_many_levels_beyond_the_anchors_are_counted_in_the_body_and_each_is_a_row_of_the_appendix(context_of):
    """Beyond BEYOND_LISTED of them, the choice section names the levels and the appendix says why, one row each;
    the released level's is left to the card."""
    count = evidence.BEYOND_LISTED + 2
    levels = list(range(1, count + 2))
    table = pd.DataFrame({"level": levels, "beyond": [f"privacy -0.{v}: worse than the real data" for v in levels]})
    c = replace(context_of(level=count + 1, levels=levels), selection=SimpleNamespace(table=table))
    assert evidence._beyond(c) == [f"{count} levels are beyond the anchors: "
                                   f"{', '.join(map(str, levels[:-1]))}; why, level by level: in the appendix."]
    shown = appendix.beyond_table(c)
    for v in levels[:-1]:
        assert f"<td>{v}</td>\n      <td>privacy -0.{v}: worse than the real data</td>" in shown
    assert f"privacy -0.{count + 1}" not in shown
    few = replace(c, selection=SimpleNamespace(table=table.iloc[-evidence.BEYOND_LISTED - 1:]))
    assert appendix.beyond_table(few) == ""  # so few are listed in the body


def test_a_level_whose_distances_are_not_scored_yet_still_gives_a_report(context):
    """Exported mid-sweep, a level may have its quick numbers but not yet its details (the distance of each
    column's margin): the report says so instead of failing (the export page's report button waited forever)."""
    unscored = replace(context, summary=context.summary._where(context.summary.frame["metric"] != "column_distance"))
    assert evidence.column_distances(unscored).empty
    shown = appendix.render(unscored)
    assert "none yet: the sweep had not scored this level" in shown
    assert evidence.fidelity(unscored)  # the margins and correlations, without the distances' summary line
    assert set(evidence.margins_in_body(unscored)) <= set(evidence.modelled_columns(unscored))
