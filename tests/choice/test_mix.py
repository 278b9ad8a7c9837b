"""The utility mix (choice/mix.py) as a user writes it: relative weights, ``tstr`` resolved by the response, and a
refusal that names the part at fault and how to write it. Refusals of an unknown name, an empty part, a part named
twice and a zero weight, and ``describe``'s wording, are tested in tests/evaluation/test_evidence.py."""

import pytest

from tvs_core.choice import DEFAULT_MIX
from tvs_core.choice.mix import DEFAULT_UTILITY, TSTR, UtilityMix, utility_names
from tvs_core.errors import DataError
from tvs_core.evaluation.catalogue import AxisKind, axis_metrics


def test_the_default_mix_is_the_documented_one():
    assert DEFAULT_MIX == UtilityMix.parse(DEFAULT_UTILITY)
    assert DEFAULT_MIX.text == "tstr=1,pair_structure=1,ci_overlap=1"


def test_a_mix_from_the_sliders_meets_the_same_rules_as_text():
    assert UtilityMix.of([("tstr", 1.0), ("ci_overlap", 0.5)]) == UtilityMix.parse("tstr=1,ci_overlap=0.5")
    with pytest.raises(DataError, match="no part"):
        UtilityMix.of([])
    with pytest.raises(DataError, match="both name the TSTR part"):
        UtilityMix.of([("tstr", 1.0), ("auc_tstr", 1.0)])


def test_weights_are_relative_and_normalised_to_one():
    """``tstr=2,pair_structure=6`` weighs as ``tstr=1,pair_structure=3``: a quarter and three quarters."""
    for text in ("tstr=2,pair_structure=6", "tstr=1,pair_structure=3", "tstr=0.5,pair_structure=1.5"):
        weights = [weight for _, weight in UtilityMix.parse(text).axes(["auc_tstr"])]
        assert weights == pytest.approx([0.25, 0.75])


def test_tstr_is_read_as_auc_for_a_class_response_and_r2_for_a_continuous_one():
    mix = UtilityMix.parse("tstr,ci_overlap")
    assert [axis.metric.name for axis, _ in mix.axes(["auc_tstr", "ci_overlap"])] == ["auc_tstr", "ci_overlap"]
    assert [axis.metric.name for axis, _ in mix.axes(["r2_tstr", "ci_overlap"])] == ["r2_tstr", "ci_overlap"]
    assert mix.describe(["r2_tstr"]).startswith("TSTR R² (synthetic-trained) 50 %")


def test_spaces_and_number_forms_read_as_the_same_mix_and_its_text_is_canonical():
    """What the CLI, the project and the manifest store is one spelling of the mix, whatever was typed."""
    typed = UtilityMix.parse(" tstr = 2 , ci_overlap=0.50, pair_structure=1e1 ")
    assert typed == UtilityMix.parse("tstr=2,ci_overlap=0.5,pair_structure=10")
    assert typed.text == str(typed) == "tstr=2,ci_overlap=0.5,pair_structure=10"
    assert UtilityMix.parse("ci_overlap").text == "ci_overlap=1"  # no weight: weight 1


@pytest.mark.parametrize("weight", ["abc", "-1", "nan", "inf", ""])
def test_a_weight_that_is_not_a_positive_number_is_refused_with_an_example(weight):
    with pytest.raises(DataError) as refused:
        UtilityMix.parse(f"ci_overlap=1,pair_structure={weight}")
    assert "weight of 'pair_structure'" in refused.value.message and "positive number" in refused.value.message
    assert refused.value.fix == "Write e.g. pair_structure=1."


@pytest.mark.parametrize("text", ["", "=2", "tstr, "])
def test_a_mix_with_an_empty_part_says_how_to_write_one(text):
    with pytest.raises(DataError, match="empty part") as refused:
        UtilityMix.parse(text)
    assert "NAME[=WEIGHT]" in refused.value.fix and all(name in refused.value.fix for name in utility_names())


def test_the_names_a_mix_accepts_are_tstr_and_the_utility_axes_never_a_privacy_one():
    names = utility_names()
    assert names[0] == TSTR and {m.name for m in axis_metrics(AxisKind.UTILITY)} == set(names[1:])
    assert all(UtilityMix.parse(name).parts == ((name, 1.0),) for name in names)
    for metric in axis_metrics(AxisKind.PRIVACY):
        with pytest.raises(DataError, match=f"'{metric.name}' is not a utility measure"):
            UtilityMix.parse(metric.name)


@pytest.mark.parametrize("text", ["tstr,auc_tstr", "auc_tstr,tstr=2", "r2_tstr,pair_structure,tstr"])
def test_tstr_beside_the_metric_it_stands_for_is_refused_as_one_part_named_twice(text):
    """``tstr`` is AUC or R² as the response needs: beside either it would weigh prediction twice."""
    with pytest.raises(DataError, match="both name the TSTR part") as error:
        UtilityMix.parse(text)
    assert "Name it once" in error.value.fix
