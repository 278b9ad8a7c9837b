"""``tvs_core.evaluation.protocol``: the presets, ``capped`` (sizes lowered to the rows available, every change
recorded with its reason, never raised) and ``get_protocol``'s refusal. The sweep's use of the caps is in
``test_evaluation.py``; overrides of a preset in ``tests/jobs/test_config.py``."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest

from tvs_core.errors import DataError
from tvs_core.evaluation.protocol import PAPER, PROTOCOLS, QUICK, Protocol, capped, get_protocol

REFERENCE_SIZES = ("aia_size_raw", "aia_bootstrap_size", "mia_size_attacker", "mia_size_raw")


def test_presets_are_offered_quick_first_and_found_by_name():
    assert list(PROTOCOLS) == ["quick", "paper"]
    assert get_protocol("quick") is QUICK and get_protocol("paper") is PAPER


def test_the_paper_preset_has_appendix_j_sizes():
    assert (PAPER.utility_sets, PAPER.aia_iterations, PAPER.aia_sets, PAPER.mia_shadows) == (50, 10, 50, 10)
    assert (PAPER.mia_size_attacker, PAPER.mia_size_raw, PAPER.mia_size_syn) == (500, 400, 400)
    assert PAPER.mia_size_raw <= 0.8 * PAPER.mia_size_attacker  # a preset needs no cap on a large table


def test_an_unknown_preset_is_refused_with_the_choices():
    with pytest.raises(DataError, match="The setting 'protocol' cannot be 'fast'") as caught:
        get_protocol("fast")
    assert caught.value.fix == "Choose one of: quick, paper."


def test_to_dict_holds_every_field_survives_json_and_rebuilds_the_preset():
    as_dict = QUICK.to_dict()
    assert set(as_dict) == {f.name for f in fields(Protocol)}
    back = json.loads(json.dumps(as_dict))
    assert Protocol(**{**back, "outlier_quantiles": tuple(back["outlier_quantiles"])}) == QUICK
    assert Protocol(**PAPER.to_dict()) == PAPER


@pytest.mark.parametrize("preset", [QUICK, PAPER])
def test_a_large_pool_changes_nothing(preset):
    used, caps = capped(preset, 10_000)
    assert used == preset and caps == []


def test_capped_hand_computed_on_300_rows():
    """QUICK on 300 rows: the three 500-row references drop to 300; the shadows' rawT (400) would be 300, but shadow
    subsets must be at most 80 % of the attacker's 300 rows: 240, recorded once with the request of the preset."""
    used, caps = capped(QUICK, 300)
    assert [getattr(used, name) for name in REFERENCE_SIZES] == [300, 300, 300, 240]
    by_name = {c["parameter"]: c for c in caps}
    assert len(by_name) == len(caps) == 4
    assert by_name["mia_size_raw"]["requested"] == 400 and by_name["mia_size_raw"]["used"] == 240
    assert "80 %" in by_name["mia_size_raw"]["reason"] and "300 reference rows" in by_name["mia_size_raw"]["reason"]
    assert by_name["aia_size_raw"] == {"parameter": "aia_size_raw", "requested": 500, "used": 300,
                                       "reason": "only 300 training rows are available outside the targets"}


def test_the_80_percent_rule_applies_to_a_preset_on_its_own():
    """Overrides can ask for shadow subsets nearly as large as the attacker's rows even on a large table."""
    preset = replace(QUICK, mia_size_attacker=100, mia_size_raw=90)
    used, caps = capped(preset, 10_000)
    assert used.mia_size_raw == 80 and used.mia_size_attacker == 100
    assert caps == [{"parameter": "mia_size_raw", "requested": 90, "used": 80,
                     "reason": "shadow subsets must be at most 80 % of the attacker's 100 reference rows"}]


@pytest.mark.parametrize("pool", [40, 123, 399, 450, 499, 500, 501])
@pytest.mark.parametrize("preset", [QUICK, PAPER])
def test_capped_never_raises_a_size_and_records_every_change(preset, pool):
    used, caps = capped(preset, pool)
    changed = {f.name for f in fields(Protocol) if getattr(used, f.name) != getattr(preset, f.name)}
    assert changed <= set(REFERENCE_SIZES)  # synthetic sizes, set counts and iterations are the user's
    assert changed == {c["parameter"] for c in caps} and len(caps) == len(changed)
    for cap in caps:
        assert cap["requested"] == getattr(preset, cap["parameter"]) > cap["used"] == getattr(used, cap["parameter"])
        assert cap["reason"]
    assert all(getattr(used, name) <= pool for name in REFERENCE_SIZES)
    assert used.mia_size_raw <= 0.8 * used.mia_size_attacker
    assert preset == PROTOCOLS[preset.name]  # the shared preset is left as it was


def test_the_test_suites_setting_gives_the_quick_preset_the_tiny_sizes_and_says_so(monkeypatch):
    """TVS_TEST_PROTOCOL=tiny: the quick preset at TINY_SIZES, named so (what a sweep records names it), the rest of
    the preset kept; the paper's preset untouched; unset, the quick preset itself."""
    from tvs_core.evaluation.protocol import TEST_PROTOCOL_ENV, TINY_QUICK_NAME, TINY_SIZES

    monkeypatch.setenv(TEST_PROTOCOL_ENV, "tiny")
    tiny = get_protocol("quick")
    assert tiny == replace(QUICK, name=TINY_QUICK_NAME, **TINY_SIZES) and "TVS_TEST_PROTOCOL=tiny" in tiny.name
    assert all(getattr(tiny, size) <= getattr(QUICK, size) for size in TINY_SIZES)  # smaller, every game played
    assert get_protocol("paper") is PAPER
    monkeypatch.setenv(TEST_PROTOCOL_ENV, "huge")
    with pytest.raises(DataError, match="TVS_TEST_PROTOCOL is 'huge'") as refused:
        get_protocol("quick")
    assert "unset" in refused.value.fix
    monkeypatch.delenv(TEST_PROTOCOL_ENV)
    assert get_protocol("quick") is QUICK
