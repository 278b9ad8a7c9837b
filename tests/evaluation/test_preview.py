"""``tvs_core.evaluation.preview`` function by function, on a three-variable correlation whose Theorem 2.4 answers
are worked out by hand, plus the invariants of the implied matrix and the preview's words. Theorem 2.5's block
cases and the fitted model's agreement with the preview are in ``test_attribute.py`` and ``test_evidence.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_small_table
from tvs_core import infer_schema
from tvs_core.evaluation.preview import (
    CUT_ORDER,
    INTENDED,
    LINKS_BLOCK,
    MOST_LEVELS,
    OUTSIDE,
    RISK_TOLERANCE,
    LevelPreview,
    attribute_risk_preview,
    block_leaks,
    expected_beta,
    implied_correlation,
    implied_correlations,
    level_cuts,
    normal_scores_correlation,
    preview_levels,
    suggested_levels,
    table_dependence,
    zeroed_up_to,
)
from tvs_core.model.ordering import algorithm1, default_levels

# C-vine order s, x, y (y the root of tree 1): r_sx = 0.7, r_sy = 0.5, r_xy = 0.6 (positive definite: det 0.32)
ORDER = ["s", "x", "y"]
R = np.array([[1.0, 0.7, 0.5], [0.7, 1.0, 0.6], [0.5, 0.6, 1.0]])
CORR = pd.DataFrame(R, index=ORDER, columns=ORDER)


def random_correlation(d, seed):
    a = np.random.default_rng(seed).normal(size=(3 * d, d))
    c = np.cov(a, rowvar=False)
    s = np.sqrt(np.diag(c))
    return c / np.outer(s, s)


# --- normal scores and the table's dependence ---------------------------------------------------------------------

def test_normal_scores_correlation_depends_only_on_ranks():
    rng = np.random.default_rng(0)
    x = rng.normal(size=50)
    values = pd.DataFrame({"a": x, "b": x + rng.normal(size=50), "c": -x})
    corr = normal_scores_correlation(values)
    assert list(corr.index) == list(corr.columns) == ["a", "b", "c"]
    assert np.allclose(np.diag(corr), 1.0) and np.allclose(corr, corr.T)
    assert corr.loc["a", "c"] == pytest.approx(-1.0)  # a reversed copy
    transformed = values.assign(a=np.exp(values["a"]), b=values["b"] ** 3)
    assert np.allclose(normal_scores_correlation(transformed), corr)


def test_table_dependence_gives_both_matrices_on_the_encoded_columns():
    table = make_small_table(80)
    association, corr = table_dependence(table, infer_schema(table).with_roles("y", ["age"]))
    assert list(association.columns) == list(corr.columns) and list(corr.index) == list(corr.columns)
    assert set(corr.columns) == set(table.columns)
    assert np.allclose(np.diag(corr), 1.0) and np.allclose(corr, corr.T)
    assert (association.to_numpy() >= -1).all() and (association.to_numpy() <= 1).all()


# --- Theorem 2.4: implied matrix and expected coefficients --------------------------------------------------------

def test_implied_correlation_hand_computed():
    """Level 1 keeps tree 1 (root y): s and x become independent given y, r_sx = r_sy * r_xy = 0.3."""
    at_one = implied_correlation(R, 1)
    assert at_one[0, 1] == at_one[1, 0] == pytest.approx(0.3)
    assert at_one[0, 2] == 0.5 and at_one[1, 2] == 0.6
    assert np.array_equal(implied_correlation(R, 0), np.eye(3))  # no tree: every variable independent
    assert np.array_equal(implied_correlation(R, 2), R) and np.array_equal(implied_correlation(R, 9), R)


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4, 5])
def test_implied_correlation_keeps_the_roots_rows_and_stays_a_correlation_matrix(level):
    corr = random_correlation(6, level)
    implied = implied_correlation(corr, level)
    roots = list(range(5, 5 - min(level, 5), -1))
    assert np.allclose(implied[roots], corr[roots]) and np.allclose(implied[:, roots], corr[:, roots])
    assert np.allclose(implied, implied.T) and np.allclose(np.diag(implied), 1.0)
    assert np.linalg.eigvalsh(implied).min() > -1e-10  # positive semi-definite
    assert np.array_equal(corr, random_correlation(6, level))  # the input is not changed


def test_expected_beta_hand_computed():
    """Regressing s on (x, y): beta = [[1, .6], [.6, 1]]^-1 (0.7, 0.5) = (0.625, 0.125)."""
    assert expected_beta(R, 0) == pytest.approx([0.625, 0.125])
    assert expected_beta(np.array([[1.0, -0.4], [-0.4, 1.0]]), 1) == pytest.approx([-0.4])  # one covariate: r
    assert expected_beta(np.eye(4), 2) == pytest.approx(np.zeros(3))


def test_attribute_risk_preview_hand_computed_per_level():
    """Level 0: nothing to learn. Level 1: r_sx = 0.3, so beta = (0, 0.5): MAB 0.25, WCAB 0.5, R^2 0.25. Level 2:
    beta = (0.625, 0.125): MAB 0.375, WCAB 0.625, R^2 = 0.7 * 0.625 + 0.5 * 0.125 = 0.5."""
    preview = attribute_risk_preview(CORR, ORDER, ["s"]).set_index("level")
    assert list(preview.index) == [0, 1, 2] and set(preview["attribute"]) == {"s"}
    assert preview.loc[0, ["mab", "wcab", "r2"]].tolist() == pytest.approx([0.0, 0.0, 0.0])
    assert preview.loc[1, ["mab", "wcab", "r2"]].tolist() == pytest.approx([0.25, 0.5, 0.25])
    assert preview.loc[2, ["mab", "wcab", "r2"]].tolist() == pytest.approx([0.375, 0.625, 0.5])


def test_attribute_risk_preview_reads_the_order_not_the_matrix_layout():
    """The same matrix with its rows in another order gives the same preview: columns are found by name."""
    shuffled = CORR.loc[["y", "s", "x"], ["x", "y", "s"]]
    pd.testing.assert_frame_equal(attribute_risk_preview(shuffled, ORDER, ["s"]),
                                  attribute_risk_preview(CORR, ORDER, ["s"]))


def test_attribute_risk_preview_has_a_row_per_level_and_attribute_with_wcab_above_mab():
    names = list("abcdef")
    corr = pd.DataFrame(random_correlation(6, 7), index=names, columns=names)
    preview = attribute_risk_preview(corr, names, ["a", "b"], levels=[1, 3, 5])
    assert len(preview) == 6 and preview.groupby("level").size().tolist() == [2, 2, 2]
    assert (preview["wcab"] >= preview["mab"]).all() and (preview["mab"] >= 0).all()
    assert ((preview["r2"] >= -1e-12) & (preview["r2"] <= 1 + 1e-12)).all()


# --- what the levels cut, the block check, the zeroed levels ------------------------------------------------------

def test_level_cuts_hand_computed():
    """Level 0 cuts every pair, most weakened first; level 1 keeps 0.3 of s-x's 0.7 (less than half: cut) and the
    pairs with the root whole; the full vine cuts nothing."""
    cuts = level_cuts(CORR, ORDER, [0, 1, 2])
    at_zero = cuts[cuts["level"] == 0]
    assert list(zip(at_zero["a"], at_zero["b"], strict=True)) == [("s", "x"), ("x", "y"), ("s", "y")]
    assert at_zero["cut"].all() and (at_zero["kept"] == 0).all()
    at_one = cuts[cuts["level"] == 1].set_index(["a", "b"])
    assert at_one.loc[("s", "x"), "kept"] == pytest.approx(0.3) and at_one.loc[("s", "x"), "cut"]
    assert not at_one.loc[("s", "y"), "cut"] and not at_one.loc[("x", "y"), "cut"]
    assert not cuts[cuts["level"] == 2]["cut"].any()


def test_level_cuts_leave_weak_associations_out():
    weak = CORR.copy()
    weak.loc["s", "x"] = weak.loc["x", "s"] = 0.05
    cuts = level_cuts(weak, ORDER, [0])
    assert ("s", "x") not in set(zip(cuts["a"], cuts["b"], strict=True)) and len(cuts) == 2
    empty = level_cuts(weak, ORDER, [0], strength=0.9)
    assert empty.empty and list(empty.columns) == ["level", "a", "b", "real", "kept", "cut"]


def test_block_leaks_lists_strong_links_strongest_first_whatever_their_sign():
    names = ["s", "k", "r", "y"]
    corr = pd.DataFrame(np.eye(4), index=names, columns=names)
    for a, b, rho in (("s", "r", 0.3), ("k", "y", -0.5), ("s", "y", 0.05)):
        corr.loc[a, b] = corr.loc[b, a] = rho
    leaks = block_leaks(corr, ["s", "k"], ["r", "y"])
    assert leaks.to_dict("records") == [{"a": "k", "b": "y", "correlation": -0.5},
                                        {"a": "s", "b": "r", "correlation": 0.3}]
    assert block_leaks(corr, ["s", "k"], ["r", "y"], tolerance=0.4)["b"].tolist() == ["y"]
    assert list(block_leaks(corr, ["s"], ["y"]).columns) == ["a", "b", "correlation"]


def risk_rows(values, attribute="s"):
    return pd.DataFrame([{"level": level, "attribute": attribute, "mab": v / 2, "wcab": v}
                         for level, v in enumerate(values)])


def test_zeroed_up_to_is_the_level_before_the_first_one_above_tolerance():
    low, high = RISK_TOLERANCE / 2, RISK_TOLERANCE * 1.5  # mab = wcab / 2: high is below for mab
    preview = pd.concat([risk_rows([high, 0, low, high, 0], "a"),  # level 0 is ignored; 3 is the first above
                         risk_rows([0, low, low], "b"),  # never above: every level
                         risk_rows([0, high, 0], "c")])  # above at level 1: not even there
    assert zeroed_up_to(preview) == {"a": 2, "b": 2, "c": None}
    assert zeroed_up_to(preview, measure="mab") == {"a": 4, "b": 2, "c": 2}


# --- LevelPreview and preview_levels ------------------------------------------------------------------------------

def level_preview(leaks=None, zeroed=None, mean_zeroed=None):
    cuts = pd.DataFrame([{"level": 1, "a": a, "b": b, "real": 0.5, "kept": 0.0, "cut": cut}
                         for a, b, cut in (("s", "k", True), ("s", "r", True), ("r", "y", True), ("k", "y", False))])
    leaks = pd.DataFrame(columns=["a", "b", "correlation"]) if leaks is None else pd.DataFrame(leaks)
    risk = pd.DataFrame({"level": [0, 1, 2, 3], "attribute": "s", "mab": 0.0, "wcab": 0.0})
    return LevelPreview(risk, cuts, leaks, {"s": 3} if zeroed is None else zeroed, 2, ["s", "k"],
                        {} if mean_zeroed is None else mean_zeroed)


def test_cut_at_says_whether_each_cut_is_intended_links_the_block_or_costs_utility():
    where = level_preview().cut_at(1).set_index(["a", "b"])["where"]
    assert where.to_dict() == {("s", "k"): "sensitive block (intended)",
                               ("s", "r"): "links the sensitive block to the rest",
                               ("r", "y"): "outside the sensitive block (a utility cost)"}  # k-y is not cut
    assert level_preview().cut_at(2).empty


def test_cut_at_lists_links_to_y_and_to_the_block_first_each_by_strength():
    """The most important first: a pair touching Y or the sensitive block (s, k) before a pair of other columns,
    then the strongest real association (whatever its sign), whatever order the cuts were computed in."""
    pairs = [("r1", "r2", 0.9), ("s", "r1", 0.3), ("r2", "y", -0.6), ("k", "s", 0.5), ("r1", "r3", -0.95),
             ("r3", "y", 0.2)]
    cuts = pd.DataFrame([{"level": 1, "a": a, "b": b, "real": real, "kept": 0.0, "cut": True} for a, b, real in pairs])
    preview = LevelPreview(pd.DataFrame(), cuts, pd.DataFrame(), {}, 2, ["s", "k"], response="y")
    listed = preview.cut_at(1)
    assert list(zip(listed["a"], listed["b"], strict=True)) == [
        ("r2", "y"), ("k", "s"), ("s", "r1"), ("r3", "y"), ("r1", "r3"), ("r1", "r2")]
    assert listed["where"].tolist() == [OUTSIDE, INTENDED, LINKS_BLOCK, OUTSIDE, OUTSIDE, OUTSIDE]
    assert list(listed.index) == list(range(6))


@pytest.mark.parametrize("seed", range(6))
def test_the_cut_counts_and_the_list_words_agree_with_the_table(seed):
    """Sentences from numbers: on random correlations and sensitive columns, the counts the sentence gives are the
    table's, where by where, and the list's words say how many are left out."""
    rng = np.random.default_rng(seed)
    names = [f"c{i}" for i in range(9)] + ["y"]
    corr = pd.DataFrame(random_correlation(10, seed), index=names, columns=names)
    order = algorithm1(corr.abs(), "y", list(rng.choice(names[:-1], 2, replace=False)), 0.25, "pearson")
    preview = preview_levels(corr, order)
    for level in range(order.full_level + 1):
        cut, words = preview.cut_at(level), preview.cut_counts(level)
        total = int((preview.cuts["level"] == level).sum())
        if not len(cut):
            assert words == f"Level {level} cuts none of the {total} real associations (none kept at less than half)."
            continue
        assert words.startswith(f"Level {level} cuts {len(cut)} of the {total} real associations: ")
        for where in (INTENDED, LINKS_BLOCK, OUTSIDE):
            n = int((cut["where"] == where).sum())
            assert (f"{n} {where}" in words) == (n > 0), (where, words)
        shown = 3
        listed = preview.cut_list_words(level, shown)
        assert listed == (f"All {len(cut)}, {CUT_ORDER}." if len(cut) <= shown else
                          f"The {shown} most important of {len(cut)}, {CUT_ORDER}; and {len(cut) - shown} more.")


def test_level_cuts_is_one_row_per_strong_pair_and_level_in_the_order_of_weakening():
    """The vectorised level_cuts against its definition, pair by pair, on a random 8-column matrix."""
    names = [f"c{i}" for i in range(7)] + ["y"]
    corr = pd.DataFrame(random_correlation(8, 3), index=names, columns=names)
    cuts = level_cuts(corr, names, [0, 2, 5])
    r = corr.to_numpy()
    for level in (0, 2, 5):
        implied = implied_correlation(r, level)
        expected = {(names[i], names[j]): implied[i, j] for i in range(8) for j in range(i + 1, 8)
                    if abs(r[i, j]) >= 0.1}
        rows = cuts[cuts["level"] == level]
        found = {(a, b): k for a, b, k in zip(rows["a"], rows["b"], rows["kept"], strict=True)}
        assert found == pytest.approx(expected)
        assert (rows["cut"] == (rows["kept"].abs() < 0.5 * rows["real"].abs())).all()
        weakened = (rows["real"] - rows["kept"]).abs().to_numpy()
        assert (np.diff(weakened) <= 1e-12).all()


def test_sentences_say_up_to_which_level_the_risk_stays_low():
    every = " ".join(level_preview(zeroed={"s": 3}).sentences())
    assert f"stays below {RISK_TOLERANCE} at every level (1 to 3)" in every and "holds" in every
    assert "at level 2 or lower" in every and "τ" not in every  # the paper's notation is named, not led with
    some = level_preview(zeroed={"s": 1}, mean_zeroed={"s": 2}).sentences()[0]
    assert "on average over the other columns, stays below 0.05 up to level 2" in some
    assert "from the most telling column stays below 0.05 up to level 1" in some
    assert some.index("MAB") > some.index("up to level 1")  # the notation last, in brackets
    none = level_preview(zeroed={"s": None}).sentences()[0]
    assert none.count(f"is at or above {RISK_TOLERANCE} from level 1 on") == 2  # MAB falls back to WCAB's level


def test_sentences_name_the_strongest_leak_with_its_sign():
    text = level_preview(leaks=[{"a": "s", "b": "r", "correlation": -0.42},
                                {"a": "k", "b": "y", "correlation": 0.2}]).sentences()[-1]
    assert "fails" in text and "2 pair(s)" in text and "s – r, -0.42" in text and "holds" not in text


def test_preview_levels_covers_every_level_and_the_mean_is_zeroed_at_least_as_long():
    names = ["s", "k", "r1", "r2", "y"]
    corr = pd.DataFrame(random_correlation(5, 11), index=names, columns=names)
    order = algorithm1(corr.abs(), "y", ["s"], 0.3, "pearson")
    preview = preview_levels(corr, order)
    assert sorted(preview.risk["level"]) == list(range(order.full_level + 1))
    assert preview.block == [*order.sensitive, *order.K] and preview.tau_block == order.tau_block
    assert preview.zeroed == zeroed_up_to(preview.risk)
    assert (preview.mean_zeroed["s"] or 0) >= (preview.zeroed["s"] or 0)  # MAB <= WCAB at every level
    assert sorted(preview_levels(corr, order, levels=[1, 2]).cuts["level"].unique()) == [1, 2]


# -- implied_correlations and suggested_levels -----------------------------------------------------------------------
@pytest.mark.parametrize("d, seed", [(3, 0), (12, 1), (40, 2)])
def test_every_levels_implied_matrix_from_one_factor_is_the_level_by_level_solve(d, seed):
    """The Cholesky route must give Theorem 2.4's matrix at every level, level 0 (all independent) and the full
    vine (the data's own correlation) included, in any order of the levels asked for."""
    r = random_correlation(d, seed)
    levels = list(dict.fromkeys([d - 1, 0, 1, d // 2, d + 3]))
    found = dict(implied_correlations(r, levels))
    assert sorted(found) == sorted(levels)
    for level in levels:
        assert np.allclose(found[level], implied_correlation(r, level), atol=1e-12)
    assert np.allclose(found[d - 1], r, atol=1e-12) and np.allclose(found[0], np.eye(d))


def test_a_matrix_that_is_no_correlation_matrix_falls_back_to_the_level_by_level_solve():
    """Pairwise-complete estimates can be indefinite; the factor does not exist then, the solve still does."""
    r = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(r[::-1, ::-1])
    found = dict(implied_correlations(r, [1, 0]))
    assert sorted(found) == [0, 1] and np.array_equal(found[1], implied_correlation(r, 1))


def test_a_repeated_column_keeps_every_level_finite():
    r = np.array([[1.0, 1.0, 0.3], [1.0, 1.0, 0.3], [0.3, 0.3, 1.0]])  # singular: the first column twice
    found = dict(implied_correlations(r, [0, 1, 2]))
    assert all(np.isfinite(m).all() for m in found.values()) and np.allclose(found[2], r)


def curves_preview(risk: dict[int, float], cuts: dict[int, int], top: int) -> LevelPreview:
    """A preview whose two curves are given level by level (levels absent: the value of the level below)."""
    rows, cut_rows, value, count = [], [], 0.0, 0
    for level in range(0, top + 1):
        value, count = risk.get(level, value), cuts.get(level, count)
        rows.append({"level": level, "attribute": "s", "mab": value, "wcab": value, "r2": 0.0})
        cut_rows += [{"level": level, "a": "a", "b": f"b{k}", "real": 0.5, "kept": 0.0, "cut": True}
                     for k in range(count)]
    return LevelPreview(pd.DataFrame(rows), pd.DataFrame(cut_rows, columns=["level", "a", "b", "real", "kept", "cut"]),
                        pd.DataFrame(columns=["a", "b", "correlation"]), {}, top, ["s"])


@pytest.mark.parametrize("top", [1, 4, 26, 45])
def test_up_to_ten_levels_the_default_is_the_papers_every_fifth_level(top):
    """Every table of up to 46 columns keeps the levels it always had (the golden cases depend on them)."""
    preview = curves_preview({1: 0.5, top: 0.1}, {1: 30, top: 0}, top)
    assert suggested_levels(preview, top) == default_levels(top)


def test_a_wide_tables_levels_are_dense_where_the_preview_changes_and_stop_where_it_stops():
    """119 levels; the risk falls only between levels 80 and 90, the associations cut fall between 1 and 10 and
    nothing changes above 90: at most ten levels, 1 first, none above 90, most of them where the curves move."""
    top = 119
    risk = {level: 0.4 - 0.03 * (level - 80) for level in range(80, 91)}
    cuts = {level: 100 - 10 * level for level in range(1, 11)}
    levels = suggested_levels(curves_preview({0: 0.4, **risk}, cuts, top), top)
    assert levels == sorted(set(levels)) and len(levels) <= MOST_LEVELS
    assert levels[0] == 1 and levels[-1] == 90  # the lowest level from which neither curve changes
    assert sum(1 <= level <= 10 or 80 <= level <= 90 for level in levels) >= len(levels) - 2


def test_flat_curves_give_few_levels_and_the_top_stays_the_advised_one():
    """A preview that sees no change at all cannot say where to look: the paper's top stays, with level 1 and a
    look at the middle of the range (twice: the middle, then the middle of the longer half)."""
    top = 80
    assert suggested_levels(curves_preview({0: 0.2}, {0: 5}, top), top) == [1, 40, 60, top]


@pytest.mark.slow
def test_the_levels_a_sweep_suggests_are_those_of_its_own_preview_and_the_holder_is_fitted_only_up_to_them():
    """A 60-column table whose sensitive column is independent of the rest and whose only associations sit in a
    block at the end of the order (the roots of the first trees): the preview stops changing well below t_max, so
    the default levels stop there and the holder fits no tree above them."""
    from tvs_core.jobs import SweepConfig
    from tvs_core.jobs.context import fit_holder, split_tables, sweep_levels

    rng = np.random.default_rng(7)
    n, noise, block = 1000, 52, 7
    factor = rng.normal(size=n)
    table = pd.DataFrame({f"x{k:02d}": rng.normal(size=n) for k in range(noise)})
    for k in range(block):
        table[f"b{k}"] = 0.8 * factor + 0.6 * rng.normal(size=n)
    table["y"] = (factor + rng.normal(size=n) > 0).astype(int)
    config = SweepConfig(response="y", sensitive=["x00"])
    train, _ = split_tables(config, table, None)
    levels = sweep_levels(config, train)
    assert len(levels) <= MOST_LEVELS and levels[0] == 1 and max(levels) < 59
    holder = fit_holder(SweepConfig(response="y", sensitive=["x00"], levels=levels), train)
    assert holder.fitted_level_ == max(levels)
    assert sweep_levels(SweepConfig(response="y", sensitive=["x00"], levels=[3, 1, 3]), train) == [1, 3]
