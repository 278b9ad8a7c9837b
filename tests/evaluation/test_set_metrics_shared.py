"""Work shared between the metrics of one set, and between sets scored against the same real rows (issue 27),
gives exactly the numbers each metric computes on its own."""

from dataclasses import replace

import numpy as np
import pytest

from tvs_core import TVineSynth, load_demo
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.metrics.fidelity import authenticity
from tvs_core.evaluation.metrics.structure import ci_overlap, pair_structure
from tvs_core.evaluation.release import set_records
from tvs_core.evaluation.set_metrics import SyntheticSet, spearman_difference

Y = "in_hospital_death"


def test_shared_work_gives_the_numbers_of_each_metric_alone():
    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]]
    train, test = table.iloc[:200], table.iloc[200:300]
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=1).fit(train)
    data = EvaluationData.from_model(model, train, test)
    sets = [model.sample_values(200, 2, seed) for seed in (3, 4)]
    shared = [set_records(SyntheticSet(values, data, 0, "tvinesynth", 2, i)) for i, values in enumerate(sets)]
    assert data.shared  # the real side was computed once and kept
    for i, values in enumerate(sets):
        fresh = replace(data)  # a copy with nothing shared yet
        assert not fresh.shared
        alone = set_records(SyntheticSet(values, fresh, 0, "tvinesynth", 2, i))
        assert alone == shared[i]
        real = data.train
        value = {r.metric: r.value for r in alone if r.attribute is None}
        assert value["spearman_difference"] == spearman_difference(real, values)
        assert value["pair_structure"] == pair_structure(real, values)
        assert value["authenticity"] == authenticity(real, values)
        assert value["ci_overlap"] == ci_overlap(real, values, data.response_index, data.categorical,
                                                 data.names)["ci_overlap"]
    assert np.isfinite([r.value for r in shared[0] if r.metric == "pair_structure"]).all()


@pytest.mark.slow
def test_the_scatter_part_and_the_details_are_the_whole_release_and_reference():
    """Levels first stores a level's scatter metrics before the games and its other metrics after (issue 27):
    the two parts are every metric, each once, with the numbers of one task computing them all."""
    from tvs_core.evaluation.catalogue import CATALOGUE
    from tvs_core.evaluation.protocol import QUICK
    from tvs_core.evaluation.release import (
        DETAILS,
        SCATTER,
        reference_records,
        release_records,
        set_metric_functions,
    )

    scatter, details = set_metric_functions(SCATTER), set_metric_functions(DETAILS)
    assert not set(scatter) & set(details) and set(scatter) | set(details) == set(set_metric_functions())
    assert {m.compute for m in CATALOGUE.values() if m.compute and m.axis} == set(scatter)  # every axis comes first

    table = load_demo("clinical")[["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", Y]]
    train, test = table.iloc[:200], table.iloc[200:300]
    model = TVineSynth(response=Y, sensitive=["total_cost_eur"], seed=1).fit(train)

    def key(records):
        return sorted((r.metric, str(r.attribute), str(r.iteration), r.role, repr(r.value))
                      for r in records)

    def fresh():
        return EvaluationData.from_model(model, train, test)

    args = (["total_cost_eur"], 0, "tvinesynth")
    whole = release_records(model, fresh(), 2, QUICK, *args)
    parts = (release_records(model, fresh(), 2, QUICK, *args, part=SCATTER)
             + release_records(model, fresh(), 2, QUICK, *args, chunk=(0, 5), part=DETAILS))
    assert key(parts) == key(whole)
    assert {"auc_tstr", "release_mab", "pair_structure", "mia_auc"} <= {r.metric for r in whole}
    assert not {r.metric for r in release_records(model, fresh(), 2, QUICK, *args, part=SCATTER)} & {
        "singling_out_risk", "alpha_precision", "dcr_closer_to_train"}
    whole = reference_records(fresh(), 0, ["total_cost_eur"])
    parts = reference_records(fresh(), 0, ["total_cost_eur"], part=SCATTER) + reference_records(
        fresh(), 0, ["total_cost_eur"], part=DETAILS)
    assert key(parts) == key(whole)
