"""Algorithm 1 on hand-made association matrices, where the right answer is known."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.errors import DataError
from tvs_core.evaluation.metrics.fidelity import kendall_matrix
from tvs_core.model.ordering import (
    PAIRWISE_ROWS,
    algorithm1,
    association_matrix,
    default_rho_star,
    explicit_order,
    t_max_advice,
)


def matrix(names, pairs):
    m = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for (a, b), v in pairs.items():
        m.loc[a, b] = m.loc[b, a] = v
    return m


NAMES = ["a", "b", "s1", "c", "s2", "e", "y"]
ASSOC = matrix(NAMES, {("s1", "c"): 0.7, ("s1", "e"): -0.65, ("s2", "b"): 0.8, ("s2", "a"): 0.2,
                       ("s1", "a"): 0.55, ("c", "y"): 0.5, ("e", "y"): 0.9})


def test_order_is_sensitive_then_K_by_strength_then_rest_then_response():
    result = algorithm1(ASSOC, "y", ["s1", "s2"], rho_star=0.6)
    assert result.K == ["b", "c", "e"]  # |0.8| > |0.7| > |-0.65|; a (0.55) stays below 0.6
    assert result.order == ["s1", "s2", "b", "c", "e", "a", "y"]
    assert result.rest == ["a"]
    d = 6
    assert result.tau_block == d + 1 - 3 - 2
    assert result.blocks == {"S": (0, 2), "K": (2, 5), "rest": (5, 6), "Y": (6, 7)}
    assert result.full_level == d


def test_user_order_of_sensitive_columns_is_kept():
    assert algorithm1(ASSOC, "y", ["s2", "s1"], rho_star=0.6).order[:2] == ["s2", "s1"]


def test_threshold_per_sensitive_column():
    result = algorithm1(ASSOC, "y", ["s1", "s2"], rho_star={"s1": 0.5, "s2": 0.9})
    assert result.K == ["c", "e", "a"]  # b (0.8) is below s2's 0.9; a (0.55) now passes s1's 0.5
    with pytest.raises(DataError, match="s2"):
        algorithm1(ASSOC, "y", ["s1", "s2"], rho_star={"s1": 0.5})


def test_association_with_response_never_puts_response_in_K():
    result = algorithm1(ASSOC, "y", ["e"], rho_star=0.6)
    assert "y" not in result.K and result.order[-1] == "y"


def test_ties_keep_table_order():
    m = matrix(["p", "q", "s", "y"], {("s", "p"): 0.7, ("s", "q"): 0.7})
    assert algorithm1(m, "y", ["s"], 0.5).K == ["p", "q"]


def test_higher_threshold_gives_smaller_K_and_higher_tau():
    low, high = algorithm1(ASSOC, "y", ["s1"], 0.5), algorithm1(ASSOC, "y", ["s1"], 0.68)
    assert set(high.K) < set(low.K)
    assert high.tau_block > low.tau_block


def test_bad_inputs_are_refused_with_the_column_named():
    with pytest.raises(DataError, match="zz"):
        algorithm1(ASSOC, "y", ["zz"], 0.5)
    with pytest.raises(DataError, match="both the response and sensitive"):
        algorithm1(ASSOC, "y", ["y"], 0.5)
    with pytest.raises(DataError, match="between 0 and 1"):
        algorithm1(ASSOC, "y", ["s1"], 1.5)
    with pytest.raises(DataError, match="No sensitive"):
        algorithm1(ASSOC, "y", [], 0.5)


def test_t_max_advice_follows_appendix_b():
    order = [f"x{i}" for i in range(26)] + ["y"]
    assert t_max_advice(order, ["x5"])[0] == 21  # the paper's example: d = 26, j = 6
    assert t_max_advice(order, ["x0"])[0] == 26
    big = [f"x{i}" for i in range(450)] + ["y"]
    assert t_max_advice(big, ["x0"])[0] == 50


def test_explicit_order_appends_response_and_checks_coverage():
    result = explicit_order(["c", "s1", "a", "b", "s2", "e"], NAMES, "y", ["s1", "s2"])
    assert result.order[-1] == "y"
    assert result.tau_block == 6 + 1 - 5  # sensitive block = prefix up to s2 (position 5)
    with pytest.raises(DataError, match="missing"):
        explicit_order(["c", "s1"], NAMES, "y", ["s1"])
    with pytest.raises(DataError, match="nope"):
        explicit_order(["nope"], NAMES, "y", ["s1"])


def test_default_threshold_is_the_papers_pearson_point_six_in_each_measure():
    assert default_rho_star("pearson") == 0.6
    assert default_rho_star("kendall") == pytest.approx(2 / np.pi * np.arcsin(0.6), abs=0.005)
    assert default_rho_star("spearman") == pytest.approx(6 / np.pi * np.arcsin(0.3), abs=0.005)


def test_kendall_matrix_is_scipys_tau_b_bit_for_bit_with_ties_constants_and_missing_values():
    """The matrix skips scipy's argument wrapper for speed; it must still be scipy's tau-b, and a column scipy
    cannot rank (constant, or with a missing value) must still read as no association."""
    from scipy import stats

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 200).astype(float), "b": rng.normal(size=200),
                          "c": np.ones(200)})
    frame["d"] = frame["a"] + rng.normal(size=200)
    mat = association_matrix(frame, "kendall")
    for i, j in [("a", "b"), ("a", "d"), ("b", "d")]:
        assert mat.loc[i, j] == stats.kendalltau(frame[i], frame[j]).statistic
    assert (mat["c"].drop("c") == 0).all()
    with_missing = frame.assign(b=frame["b"].where(frame.index != 5))
    assert (association_matrix(with_missing, "kendall")["b"].drop("b") == 0).all()


@pytest.mark.parametrize("rows, seed", [(2, 0), (40, 1), (707, 2), (PAIRWISE_ROWS + 1, 3)])
def test_the_kendall_matrix_is_scipys_kendalltau_bit_for_bit(rows, seed):
    """Every fit orders its columns by this matrix, so the games' refits and the golden cases depend on each
    of its bits: all pairs counted at once must give what scipy gives pair by pair, with ties (rounded and
    binary columns), a constant column (no ranking: 0) and either side of the row limit of the fast count."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 6))
    x[:, 1] = np.round(x[:, 1])
    x[:, 2] = rng.integers(0, 2, rows)
    x[:, 3] = 4.0
    x[:, 4] = x[:, 0] * 2 + rng.normal(scale=0.1, size=rows)
    expected = np.eye(6)
    for i in range(6):
        for j in range(i + 1, 6):
            tau = stats.kendalltau(x[:, i], x[:, j]).statistic
            expected[i, j] = expected[j, i] = 0.0 if np.isnan(tau) else tau
    found = association_matrix(pd.DataFrame(x), "kendall").to_numpy()
    assert np.array_equal(found, expected)
    assert np.array_equal(kendall_matrix(x), expected)  # the fidelity panel reads the same matrix


def test_an_orders_measure_is_typed_and_stored_as_the_text_it_always_was():
    """Algorithm 1's order holds its ``Measure``; an explicit order, read from no association, none — stored as
    "explicit", as before, and both read back as they were written."""
    import json

    from tvs_core.data.schema import Measure
    from tvs_core.model.ordering import OrderResult

    names = ["s", "a", "b", "y"]
    assoc = pd.DataFrame(np.eye(4) + 0.1, index=names, columns=names)
    found = algorithm1(assoc, "y", ["s"], 0.5, "spearman")
    assert found.measure is Measure.SPEARMAN and found.to_dict()["measure"] == "spearman"
    given = explicit_order(["a", "b", "s"], names, "y", ["s"])
    assert given.measure is None and given.to_dict()["measure"] == "explicit"
    for order in (found, given):
        stored = json.dumps(order.to_dict())
        assert OrderResult.from_dict(json.loads(stored)) == order
        assert json.dumps(OrderResult.from_dict(json.loads(stored)).to_dict()) == stored
