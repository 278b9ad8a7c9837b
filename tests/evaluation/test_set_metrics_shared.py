"""Work shared between the metrics of one set, and between sets scored against the same real rows (issue 27),
gives exactly the numbers each metric computes on its own."""

from dataclasses import replace

import numpy as np

from tvs_core import TVineSynth, load_demo
from tvs_core.evaluation.context import EvaluationData
from tvs_core.evaluation.fidelity import authenticity, spearman_difference
from tvs_core.evaluation.release import set_records
from tvs_core.evaluation.set_metrics import SyntheticSet
from tvs_core.evaluation.structure import ci_overlap, pair_structure

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
        value = {r["metric"]: r["value"] for r in alone if r["attribute"] is None}
        assert value["spearman_difference"] == spearman_difference(real, values)
        assert value["pair_structure"] == pair_structure(real, values)
        assert value["authenticity"] == authenticity(real, values)
        assert value["ci_overlap"] == ci_overlap(real, values, data.response_index, data.categorical,
                                                 data.names)["ci_overlap"]
    assert np.isfinite([r["value"] for r in shared[0] if r["metric"] == "pair_structure"]).all()
