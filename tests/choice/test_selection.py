"""PU_t selection against hand-computed examples."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.choice import DEFAULT_PRIVACY, Axis, Normalisation, UtilityMix
from tvs_core.choice.selection import HIGH, LOW, Column, level_column, level_column_names, pareto_front, select


def with_interval(table: pd.DataFrame, kind: Column, name: str | None, values, width=0.0) -> pd.DataFrame:
    """``table`` with the median and interval columns of one utility or privacy value."""
    values = np.asarray(values, float)
    for end, shift in ((None, 0.0), (LOW, -width), (HIGH, width)):
        table[level_column(kind, name, end)] = values + shift
    return table


def levels(u, p, name="s", width=0.0):
    table = pd.DataFrame({"level": np.arange(1, len(u) + 1)})
    return with_interval(with_interval(table, Column.UTILITY, None, u, width), Column.PRIVACY, name, p, width)


def test_the_levels_table_names_its_columns_by_one_rule():
    assert level_column(Column.PRIVACY, "cost", HIGH) == "p_cost_high"
    assert level_column(Column.UTILITY) == "u" and level_column(Column.PU, end=LOW) == "PU_low"
    labels = ["level", "u", "u_low", "u_auc_tstr", "u_auc_tstr_high", "p_a", "p_a_low", "p_b", "U", "U_auc_tstr"]
    assert level_column_names(labels, Column.PRIVACY) == ["a", "b"]
    assert level_column_names(labels, Column.UTILITY) == ["auc_tstr"]
    assert level_column_names(labels, Column.SCALED) == ["auc_tstr"]
    assert all(level_column(kind, name) in labels for kind in Column for name in level_column_names(labels, kind))


def test_anchored_scores_by_hand():
    # anchors (worst, ideal): utility (chance 0.5, AUC_TRTR 0.9); MAB (MAB_real 0.2, 0)
    table = levels(u=[0.7, 0.8, 0.9], p=[0.05, 0.1, 0.2])
    sel = select(table, alpha=0.5, normalisation=Normalisation.ANCHORED, privacy=DEFAULT_PRIVACY,
                 anchors={"utility": (0.5, 0.9), "privacy": {"s": (0.2, 0.0)}}, draws=10)
    np.testing.assert_allclose(sel.table["U"], [0.5, 0.75, 1.0])
    np.testing.assert_allclose(sel.table["P"], [0.75, 0.5, 0.0])
    np.testing.assert_allclose(sel.table["PU"], [0.625, 0.625, 0.5])
    assert sel.best_level == 1  # tie in PU: more privacy wins


def test_alpha_moves_the_choice():
    table = levels(u=[0.7, 0.8, 0.9], p=[0.05, 0.1, 0.2])
    anchors = {"utility": (0.5, 0.9), "privacy": {"s": (0.2, 0.0)}}
    assert select(table, alpha=1.0, anchors=anchors, draws=10).best_level == 1
    assert select(table, alpha=0.0, anchors=anchors, draws=10).best_level == 3
    # alpha 0.45: PU = 0.6125, 0.6375, 0.55
    assert select(table, alpha=0.45, anchors=anchors, draws=10).best_level == 2


def test_minmax_scores_by_hand():
    table = levels(u=[0.6, 0.7, 0.8], p=[0.1, 0.3, 0.5])
    sel = select(table, alpha=0.5, normalisation=Normalisation.MINMAX, draws=10)
    np.testing.assert_allclose(sel.table["U"], [0.0, 0.5, 1.0])
    np.testing.assert_allclose(sel.table["P"], [1.0, 0.5, 0.0])  # lower MAB is more private
    assert sel.best_level == 1  # all tie at 0.5: the most private


def test_pg_and_mcmia_anchors():
    pg = levels(u=[0.9, 0.9], p=[0.4, 1.2], name="pg")
    sel = select(pg, alpha=1.0, privacy=Axis.parse("pg"), anchors={"utility": (0.5, 0.9)}, draws=10)
    np.testing.assert_allclose(sel.table["P"], [0.4, 1.0])
    mcmia = levels(u=[0.9, 0.9], p=[0.5, 0.75], name="mcmia")
    sel = select(mcmia, alpha=1.0, privacy=Axis.parse("mcmia"), anchors={"utility": (0.5, 0.9)}, draws=10)
    np.testing.assert_allclose(sel.table["P"], [1.0, 0.5])


AB = {"utility": (0.5, 0.9), "privacy": {"a": (0.2, 0.0), "b": (0.2, 0.0)}}


def test_worst_column_drives_privacy():
    table = levels(u=[0.8, 0.8], p=[0.1, 0.1], name="a")
    with_interval(table, Column.PRIVACY, "b", [0.02, 0.15])
    sel = select(table, alpha=1.0, anchors=AB, draws=10)
    np.testing.assert_allclose(sel.table["P"], [0.5, 0.25])
    one = select(table, alpha=1.0, privacy=Axis.parse("mab:b"), anchors=AB,
                 draws=10)
    np.testing.assert_allclose(one.table["P"], [0.9, 0.25])


def test_the_least_protected_column_is_decided_after_scaling():
    """Each column against its own anchors: b's MAB 0.04 is below a's 0.1, yet b is the less protected (score 0.2
    against 0.5), and P, the card and the figures name b. Before its anchors are measured the raw values decide,
    by the metric's direction; a column without a value leaves the point without one."""
    from tvs_core.choice.axes import Axis
    from tvs_core.choice.selection import deciding_columns

    table = levels(u=[0.8, 0.8], p=[0.1, 0.1], name="a")
    with_interval(table, Column.PRIVACY, "b", [0.04, 0.01])
    anchors = {"utility": (0.5, 0.9), "privacy": {"a": (0.2, 0.0), "b": (0.05, 0.0)}}
    sel = select(table, alpha=1.0, anchors=anchors, draws=10)
    assert sel.table["P_column"].tolist() == ["b", "a"]
    np.testing.assert_allclose(sel.table["P"], [0.2, 0.5])
    worst = DEFAULT_PRIVACY
    values = {"a": np.array([0.1, np.nan]), "b": np.array([0.04, 0.04])}
    assert deciding_columns(values, worst, "anchored", anchors["privacy"]) == ["b", None]
    assert deciding_columns(values, worst, "anchored", {}) == ["a", None]  # no anchors yet: the larger MAB
    assert deciding_columns({"pg": np.array([0.4])}, Axis.parse("pg"), "anchored", {}) == [None]  # no columns


def test_missing_metrics_are_listed_not_ranked():
    table = levels(u=[0.7, np.nan, 0.9], p=[0.05, 0.1, np.nan])
    sel = select(table, alpha=0.5, anchors={"utility": (0.5, 0.9), "privacy": {"s": (0.2, 0.0)}}, draws=10)
    assert np.isnan(sel.table["PU"].iloc[1]) and np.isnan(sel.table["PU"].iloc[2])
    assert sel.table["missing"].tolist() == ["", "utility", "privacy (s)"]
    assert sel.best_level == 1
    empty = select(levels(u=[np.nan], p=[np.nan]), anchors={"utility": (0.5, 0.9), "privacy": {"s": (0.2, 0.0)}},
                   draws=5)
    assert empty.best_level is None


def test_pareto_front():
    p = np.array([0.9, 0.5, 0.4, 0.1])
    u = np.array([0.1, 0.5, 0.4, 0.9])
    assert pareto_front(p, u).tolist() == [True, True, False, True]


def test_wins_show_a_fragile_choice():
    anchors = {"utility": (0.5, 0.9), "privacy": {"s": (0.2, 0.0)}}
    clear = select(levels(u=[0.6, 0.9], p=[0.1, 0.1], width=0.001), alpha=0.5, anchors=anchors, draws=500)
    assert clear.table["wins"].tolist() == [0.0, 1.0]
    fragile = select(levels(u=[0.88, 0.9], p=[0.1, 0.1], width=0.1), alpha=0.5, anchors=anchors, draws=500)
    assert 0.2 < fragile.table["wins"].iloc[0] < 0.8
    assert fragile.table["wins"].sum() == pytest.approx(1.0)
    table = fragile.table
    assert ((table["PU_low"] <= table["PU"]) & (table["PU"] <= table["PU_high"])).all()


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        select(levels([0.8], [0.1]), alpha=1.5)
    with pytest.raises(ValueError):
        select(levels([0.8], [0.1]), normalisation="zscore")


def test_a_value_within_the_spread_of_an_anchor_is_not_beyond_it(summary_of):
    """Finding 5 (issue 45): "Level 25 beyond the anchors … privacy -0.00: the attack does better than on the real
    data itself" — a MAB a hair above the real rows', within their spread, is the real rows' risk, not beyond it;
    one clearly above it is still said."""
    from tvs_core.choice.summary import choose
    from tvs_core.evaluation.records import HOLDER, RAW, SHUFFLED

    rows = [(RAW, None, "mab", "a", 0.4, 0.38, 0.42), (SHUFFLED, None, "release_mab", "a", 0.0),
            (HOLDER, 1, "mab", "a", 0.401, 0.39, 0.41), (HOLDER, 2, "mab", "a", 0.5, 0.48, 0.52)]
    rows += [(HOLDER, level, "auc_tstr", None, 0.8) for level in (1, 2)]
    table = choose(summary_of(rows), ["a"], privacy=Axis.parse("mab_worst"),
                   utility=UtilityMix.parse("tstr")).table.set_index("level")
    assert table.loc[1, "beyond"] == "" and not table.loc[1, "more_revealing"]
    assert table.loc[2, "beyond"] == ("privacy: more revealing than the real data (the attack does better on the "
                                      "release than on the real rows: 0.500 on the release against 0.400 on the real "
                                      "rows; ranked below every level on the scale)")
    assert table.loc[2, "more_revealing"]


def test_a_level_more_revealing_than_the_real_rows_is_said_so_and_ranked_below_the_scale():
    """Issue 55: a privacy score below 0 is neither shown as a score on the 0-to-1 scale nor clipped to 0, where it
    would tie with publishing the real data. Level 2 is exactly as revealing as the real rows (P 0), level 3 far more
    (P -1): clipped, level 3 (more useful) would dominate level 2 and share its privacy; kept, level 2 is on the
    Pareto front, level 3 scores the lowest PU and reads "more revealing than the real data"."""
    from tvs_core.choice.selection import MORE_REVEALING, shown_privacy

    anchors = {"utility": (0.5, 1.0), "privacy": {"s": (0.4, 0.0)}}
    table = levels(u=[0.75, 0.95, 1.0], p=[0.2, 0.4, 0.8], width=0.01)
    chosen = select(table, alpha=0.5, anchors=anchors, draws=200).table.set_index("level")
    np.testing.assert_allclose(chosen["P"], [0.5, 0.0, -1.0])
    assert chosen["pareto"].tolist() == [True, True, True] and chosen["PU"].idxmin() == 3
    assert [shown_privacy(chosen.loc[level]) for level in (1, 2, 3)] == ["0.50", "0.00", MORE_REVEALING]
    assert chosen.loc[3, "wins"] == 0
