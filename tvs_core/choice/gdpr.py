"""The officer's verdict on the three anonymisation criteria (Article 29 Working Party, Opinion 05/2014) for one
point of a sweep: one plain sentence per criterion, from that point's ``summary.json`` metrics.

What the Choose page's "GDPR criteria" block and the report (its first page: ``officer.criteria_line``) show; the
numbers come from ``evaluation/metrics/gdpr.py``: the records of each criterion's parts (``anonymity.Part``: the risk,
its interval's ends, the main and baseline attacks' success rates, the number of attacks). The words are proposals,
their thresholds named here:

* **no measurable risk** when the sets' 95 % interval covers 0 (the median over sets of its lower end is 0);
* **high risk** when the residual risk is at least ``HIGH``;
* **measurable risk** otherwise;

and ``beats_baseline`` false, said in the sentence, when the main attack does no better than the blind baseline
(Giomi et al.'s sanity check): with no risk, the release gave the attacker nothing to work with (a safe release's
linkability usually reads so); with a risk, the figures are not to be trusted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from ..evaluation.catalogue import CATALOGUE
from ..evaluation.intervals import Interval
from ..evaluation.metrics.gdpr import Part, criterion_record
from ..evaluation.records import HOLDER
from ..evaluation.summary import Summary
from .summary import metric_key, metrics_of

HIGH = 0.5  # residual risk from which a criterion reads "high" (a copy scores about 1, independent rows about 0)
WHAT = {"singling_out": "single out a person (isolate one record by a few of its values)",
        "singling_out_univariate": "single out a person by one rare or extreme value",
        "linkability": "link two records of the same person",
        "inference": "infer {column} of a person from the other columns"}
NAMES = {"singling_out": "Singling out", "singling_out_univariate": "Singling out (one value)",
         "linkability": "Linkability", "inference": "Inference of {column}"}


@dataclass(frozen=True)
class CriterionVerdict:
    key: str  # the summary key: singling_out_risk, linkability_risk, inference_risk:COLUMN, ...
    name: str  # as a person reads it
    verdict: str  # "none", "measurable" or "high"
    beats_baseline: bool  # the main attack did better than guessing blindly
    # medians over the point's sets of each set's risk and its 95 % interval (Wilson), over the median attacks per set
    risk: Interval
    sets: int
    sentence: str

    @property
    def numbers(self) -> str:
        """The risk as every screen words it: its value, its interval, and the sets its medians are over."""
        return numbers(self.risk, self.sets)


def numbers(risk: Interval, sets: int) -> str:
    return f"residual risk {risk.value:.2f}, {risk.words()} of one set, median over {sets} published sets"


def criterion_verdict(metrics: dict, criterion: str, column: str | None = None) -> CriterionVerdict | None:
    """One criterion's verdict from one point's summary metrics (None: not measured at this point)."""
    get = lambda part: metrics.get(metric_key(criterion_record(criterion, part), column))  # noqa: E731
    entry = CATALOGUE[criterion_record(criterion, Part.RISK)]
    median = lambda name: (metrics.get(metric_key(name, column)) or {}).get("median")  # noqa: E731
    found, main, baseline = entry.read_risk(median), get(Part.MAIN_RATE), get(Part.BASELINE_RATE)
    if found is None or math.isnan(found.value):  # NaN: no set could be attacked
        return None
    name = NAMES[criterion].format(column=column)
    what = WHAT[criterion].format(column=column)
    sets = int(metrics[metric_key(entry.name, column)]["n"])
    beats = main["median"] > baseline["median"]
    if found.low <= 0:
        verdict, sentence = "none", (f"{name}: no measurable risk — an attacker holding the release can {what} no "
                                     f"more often among the people in the training data than among people it never "
                                     f"saw" + ("" if beats else ", and the attack did no better than guessing "
                                                                "blindly") + f" ({numbers(found, sets)}).")
    else:
        verdict = "high" if found.value >= HIGH else "measurable"
        sentence = (f"{name}: {'HIGH' if verdict == 'high' else 'measurable'} risk — an attacker holding the release "
                    f"can {what} more often among the people in the training data than among people it never saw "
                    f"({numbers(found, sets)})." + ("" if beats else " The attack did no better than guessing "
                                                                     "blindly, so these figures are not to be "
                                                                     "trusted."))
    return CriterionVerdict(risk_key(criterion, column), name, verdict, beats, found, sets, sentence)


def risk_key(criterion: str, column: str | None = None) -> str:
    """The summary key of a criterion's risk: ``linkability_risk``, ``inference_risk:COLUMN``."""
    return metric_key(criterion_record(criterion, Part.RISK), column or None)


def gdpr_verdicts(metrics: dict, sensitive: list[str]) -> list[CriterionVerdict]:
    """Every criterion's verdict at one point (a ``summary_json`` entry's ``metrics``): singling out (multivariate,
    then univariate), linkability, inference per sensitive column; criteria not measured are left out."""
    found = [criterion_verdict(metrics, c) for c in ("singling_out", "singling_out_univariate", "linkability")]
    found += [criterion_verdict(metrics, "inference", column) for column in sensitive]
    return [v for v in found if v is not None]


def point_verdicts(summary: Summary, sensitive: list[str], model: str = HOLDER,
                   level: int | None = None) -> list[CriterionVerdict]:
    """The verdicts at one point of a summarised sweep: a level of the holder, or a baseline (``level`` None)."""
    return gdpr_verdicts(metrics_of(summary.point(level, model), sensitive), sensitive)


def gdpr_table(summary: Summary, sensitive: list[str], levels: list[int],
               label: Callable[[str], str] = str) -> pd.DataFrame:
    """Each criterion's residual risk [95 % interval] per level and per baseline (named by ``label``), one row per
    point that measured them."""
    baselines = [model for model in summary.models() if model != HOLDER and not summary.model(model).levels()]
    rows = []
    for model, level in [(HOLDER, level) for level in levels] + [(model, None) for model in baselines]:
        found = point_verdicts(summary, sensitive, model, level)
        if found:
            rows.append({"point": f"level {level}" if model == HOLDER else label(model)}
                        | {v.name: v.risk.cell() for v in found})
    return pd.DataFrame(rows)
