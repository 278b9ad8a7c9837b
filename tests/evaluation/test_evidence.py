"""Evidence a statistician signs (issue 11): what a level cuts, the privacy floor, the utility mix, the card."""

import numpy as np
import pandas as pd
import pytest

from tvs_core.choice import Axis, UtilityMix, explain_level, select
from tvs_core.choice.mix import DEFAULT_UTILITY
from tvs_core.choice.selection import HIGH, LOW, Column, level_column
from tvs_core.errors import DataError
from tvs_core.evaluation.preview import block_leaks, level_cuts, preview_levels
from tvs_core.evaluation.summary import Summary
from tvs_core.model.ordering import algorithm1

ORDER = ["s", "k1", "k2", "r1", "r2", "r3", "r4", "y"]  # C-vine order: y is the root of tree 1


def block_correlation(leak: float = 0.0) -> pd.DataFrame:
    """Two independent blocks: the sensitive block {s, k1, k2} (0.7) and {r1..r4, y} (0.6, y 0.4); ``leak``
    links s to r1, breaking Theorem 2.5's assumption."""
    corr = np.eye(len(ORDER))
    for block, rho in ((range(0, 3), 0.7), (range(3, 8), 0.6)):
        for i in block:
            for j in block:
                if i != j:
                    corr[i, j] = rho
    corr[7, 3:7] = corr[3:7, 7] = 0.4
    corr[0, 3] = corr[3, 0] = leak
    return pd.DataFrame(corr, index=ORDER, columns=ORDER)


def pairs(frame: pd.DataFrame) -> set[frozenset]:
    return {frozenset((a, b)) for a, b in zip(frame["a"], frame["b"], strict=True)}


def test_the_preview_lists_exactly_the_cut_blocks():
    corr = block_correlation()
    tau_block = len(ORDER) - 3  # d + 1 - |K| - |S| with d = 7 covariates
    cuts = level_cuts(corr, ORDER, [tau_block, tau_block + 1, len(ORDER) - 1])
    at_block = cuts[(cuts["level"] == tau_block) & cuts["cut"]]
    assert pairs(at_block) == {frozenset(p) for p in (("s", "k1"), ("s", "k2"), ("k1", "k2"))}
    assert not cuts[(cuts["level"] == len(ORDER) - 1)]["cut"].any()  # the full vine cuts nothing
    assert block_leaks(corr, ["s", "k1", "k2"], ORDER[3:]).empty


def test_a_leaking_block_is_flagged_and_the_text_follows_the_numbers():
    corr = block_correlation(leak=0.4)
    association = corr.abs()
    order = algorithm1(association, "y", ["s"], 0.6, "pearson")
    preview = preview_levels(corr, order)
    assert len(preview.leaks) and {preview.leaks.iloc[0]["a"], preview.leaks.iloc[0]["b"]} == {"s", "r1"}
    text = " ".join(preview.sentences())
    assert "fails" in text and "zeroes the attacker's expected coefficients" not in text
    clean = preview_levels(block_correlation(), algorithm1(block_correlation().abs(), "y", ["s"], 0.6, "pearson"))
    assert clean.leaks.empty and "holds" in " ".join(clean.sentences())
    # the clean table: every expected coefficient is zero up to the theorem's level
    assert clean.zeroed["s"] >= clean.tau_block


def test_cut_pairs_say_whether_the_cut_is_intended():
    corr = block_correlation()
    order = algorithm1(corr.abs(), "y", ["s"], 0.6, "pearson")
    preview = preview_levels(corr, order)
    at_one = preview.cut_at(1)
    intended = at_one[at_one["where"] == "sensitive block (intended)"]
    assert pairs(intended) == {frozenset(p) for p in (("s", "k1"), ("s", "k2"), ("k1", "k2"))}
    assert (at_one["where"] == "outside the sensitive block (a utility cost)").any()  # r_i – r_j pairs at level 1


def levels_table(mab, tstr, pairs_kept, width=0.0):
    mab, tstr, pairs_kept = (np.asarray(v, float) for v in (mab, tstr, pairs_kept))
    out = {"level": np.arange(1, len(mab) + 1)}
    for kind, name, values in ((Column.UTILITY, "auc_tstr", tstr), (Column.UTILITY, "pair_structure", pairs_kept),
                               (Column.PRIVACY, "s", mab)):
        for end, shift in ((None, 0.0), (LOW, -width), (HIGH, width)):
            out[level_column(kind, name, end)] = values + shift
    return pd.DataFrame(out)


MAB = Axis.parse("mab_worst")  # the paper's MAB: these tables hold MAB values
ANCHORS = {"utility": {"auc_tstr": (0.5, 0.8), "pair_structure": (0.9, 1.0)}, "privacy": {"s": (0.05, 0.03)}}


def test_privacy_floor_maps_nothing_learnt_to_one_and_shows_values_beyond():
    # MAB of the real rows 0.05 scores 0; the shuffled rows' 0.03 scores 1 (our reading of the paper,
    # 1 - MAB/MAB_real, gave 0.4)
    table = levels_table(mab=[0.03, 0.04, 0.07], tstr=[0.65, 0.7, 0.8], pairs_kept=[0.9, 0.95, 1.0])
    sel = select(table, 0.5, privacy=MAB, anchors=ANCHORS, utility=UtilityMix.parse("tstr,pair_structure"),
                 draws=10)
    np.testing.assert_allclose(sel.table["P_unclipped"], [1.0, 0.5, -1.0])
    # a level more revealing than the real rows keeps its score below 0, ranked below the scale (issue 55) ...
    np.testing.assert_allclose(sel.table["P"], [1.0, 0.5, -1.0])
    assert "more revealing than the real data" in sel.table["beyond"].iloc[2]  # ... and said
    np.testing.assert_allclose(sel.table["U_auc_tstr"], [0.5, 2 / 3, 1.0])
    np.testing.assert_allclose(sel.table["U_pair_structure"], [0.0, 0.5, 1.0])
    np.testing.assert_allclose(sel.table["U"], [0.25, (2 / 3 + 0.5) / 2, 1.0])


def test_the_mix_moves_the_recommendation_away_from_the_star():
    # level 1 predicts Y as well as level 3 but keeps no pairwise dependence: TSTR alone picks it
    table = levels_table(mab=[0.03, 0.035, 0.04], tstr=[0.78, 0.78, 0.78], pairs_kept=[0.9, 0.97, 1.0])
    paper = select(table, 0.5, privacy=MAB, anchors=ANCHORS, utility=UtilityMix.parse("tstr"), draws=10)
    mixed = select(table, 0.5, privacy=MAB, anchors=ANCHORS,
                   utility=UtilityMix.parse("tstr,pair_structure"), draws=10)
    assert paper.best_level == 1 and mixed.best_level != 1


def test_a_part_missing_from_old_sweeps_is_dropped_and_said():
    table = levels_table(mab=[0.03, 0.04], tstr=[0.7, 0.8], pairs_kept=[np.nan, np.nan]).drop(
        columns=[level_column(Column.UTILITY, "pair_structure", end) for end in (None, LOW, HIGH)])
    sel = select(table, 0.5, privacy=MAB, anchors=ANCHORS, utility=UtilityMix.parse(DEFAULT_UTILITY),
                 draws=10)
    assert sel.best_level is not None and len(sel.notes) == 2  # pair structure and CI overlap are missing


@pytest.mark.parametrize("text, words", [("tstr=0", "positive"), ("nonsense", "not a utility measure"),
                                         ("tstr,,ci_overlap", "empty part"), ("tstr,tstr", "twice"),
                                         ("mab", "not a utility measure")])
def test_a_bad_utility_mix_is_refused_by_name(text, words):
    with pytest.raises(DataError, match=words):
        UtilityMix.parse(text)


def test_the_mix_reads_back_as_written_and_says_its_weights():
    mix = UtilityMix.parse("tstr=2,pair_structure=1,ci_overlap=1")
    assert UtilityMix.parse(mix.text) == mix
    assert mix.describe(["auc_tstr"]) == "TSTR AUC (synthetic-trained) 50 %, Pair structure 25 %, CI overlap 25 %"


def test_the_card_says_what_a_level_protects_costs_and_where_to_be_careful():
    table = levels_table(mab=[0.03, 0.04], tstr=[0.7, 0.8], pairs_kept=[0.91, 1.0], width=0.01)
    sel = select(table, 0.5, privacy=MAB, anchors=ANCHORS, utility=UtilityMix.parse("tstr,pair_structure"),
                 draws=50)
    summary = Summary(pd.DataFrame([
        {"model": "tvinesynth", "level": 1, "role": "release", "metric": m, "attribute": a, "target_kind": None,
         "median": v, "ci_low": v - 0.01, "ci_high": v + 0.01, "n": n}
        for m, a, v, n in (("mab", "s", 0.03, 3), ("auc_tstr", None, 0.7, 5), ("pair_structure", None, 0.91, 5))]))
    card = explain_level(sel, summary, 1, ["s"])
    text = " ".join(card.protects + card.costs + card.warnings)
    assert "scores 0 at 0.050, 1 at 0.030" in text  # the anchors, said
    assert "of only 3 values" in text  # small n is not called a 95 % interval
    assert any("little more pairwise dependence than independent columns" in w for w in card.warnings)


def test_on_a_gaussian_block_table_structure_and_overlap_rise_with_the_level():
    """The clinical demo is three independent Gaussian-copula blocks (costs, renal, acute + Y)."""
    from tvs_core import TVineSynth, holdout_split, load_demo
    from tvs_core.data.demo import DEMOS
    from tvs_core.evaluation.context import EvaluationData
    from tvs_core.evaluation.metrics.structure import ci_overlap, pair_structure

    spec = DEMOS["clinical"]
    train, test = holdout_split(load_demo("clinical"), spec.response, 0.2, 0)
    model = TVineSynth(response=spec.response, sensitive=list(spec.sensitive), seed=0).fit(train)
    data = EvaluationData.from_model(model, train, test)
    measured = {}
    for level in (1, 10, 20):
        sets = [model.sample_values(len(data.train), level, seed) for seed in (1, 2, 3)]
        measured[level] = (np.median([pair_structure(data.train, s) for s in sets]),
                           np.median([ci_overlap(data.train, s, data.response_index, data.categorical,
                                                 data.names)["ci_overlap"] for s in sets]))
    assert measured[1][0] < measured[10][0] < measured[20][0]
    assert measured[1][1] < measured[10][1] and measured[1][1] < measured[20][1]


def test_the_analysis_the_user_names_is_the_one_compared(tmp_path, capsys):
    """--analysis: ci_overlap compares the regression of Y on the named covariates, and a name that is not a
    covariate is refused before any work, by name."""
    from tvs_core.cli import main
    from tvs_core.evaluation.context import EvaluationData
    from tvs_core.evaluation.metrics.structure import ci_overlap, structure
    from tvs_core.evaluation.set_metrics import SyntheticSet

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] + rng.normal(size=400) > 0).astype(int)
    table = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "y": y})
    from tvs_core.data.schema import infer_schema

    schema = infer_schema(table).with_roles("y", ["c"])
    data = EvaluationData.from_tables(table.iloc[:300], table.iloc[300:], schema)
    synthetic = data.train[rng.permutation(300)] * np.array([1.0, -1.0, 1.0, 1.0])  # flips b's relation only
    everything = structure(SyntheticSet(synthetic, data, 0, "x", 1, 0))["ci_overlap"]
    data.analysis = ["a"]
    only_a = structure(SyntheticSet(synthetic, data, 0, "x", 1, 0))["ci_overlap"]
    assert only_a == ci_overlap(data.train, synthetic, data.response_index, data.categorical, data.names,
                                covariates=[data.index("a")])["ci_overlap"]
    assert only_a != everything
    csv = tmp_path / "t.csv"
    table.to_csv(csv, index=False)
    code = main(["sweep", str(csv), "--response", "y", "--sensitive", "c", "--analysis", "a,nope",
                 "--workspace", str(tmp_path / "ws"), "--out", str(tmp_path / "out")])
    assert code != 0 and not (tmp_path / "out" / "summary.json").exists()
    assert "'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("option, words", [(["--utility", "tstr=2,typo"], "'typo' is not a utility measure"),
                                           (["--utility", "tstr=-1"], "must be a positive number"),
                                           (["--privacy", "mia_auc:x"], "one value per level")])
def test_a_bad_choice_option_is_refused_in_one_line_before_any_work(tmp_path, capsys, option, words):
    from tvs_core.cli import main

    code = main(["sweep", "--demo", "clinical", *option, "--workspace", str(tmp_path / "ws"),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code != 0 and words in err and len(err.strip().splitlines()) <= 2
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").rglob("*.sqlite"))
