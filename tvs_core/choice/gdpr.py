"""The officer's verdict on the three anonymisation criteria (Article 29 Working Party, Opinion 05/2014) for one
point of a sweep: one plain sentence per criterion, from that point's ``summary.json`` metrics.

What the Choose page's "GDPR criteria" block and the report's summary paragraph show; the numbers come from
``evaluation/anonymity.py`` through the catalogue's ``*_risk``, ``*_risk_low``, ``*_risk_high``, ``*_main_rate``,
``*_baseline_rate`` and ``*_attacks`` records. The words are proposals, their thresholds named here:

* **no measurable risk** when the sets' 95 % interval covers 0 (the median over sets of its lower end is 0);
* **high risk** when the residual risk is at least ``HIGH``;
* **measurable risk** otherwise;

and ``beats_baseline`` false, said in the sentence, when the main attack does no better than the blind baseline
(Giomi et al.'s sanity check): with no risk, the release gave the attacker nothing to work with (a safe release's
linkability usually reads so); with a risk, the figures are not to be trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    risk: float  # median over the point's sets
    low: float  # median over its sets of each set's 95 % interval
    high: float
    sets: int
    attacks: float  # median attacks per set
    sentence: str


def _value(metrics: dict, name: str, column: str | None) -> dict | None:
    return metrics.get(name if column is None else f"{name}:{column}")


def criterion_verdict(metrics: dict, criterion: str, column: str | None = None) -> CriterionVerdict | None:
    """One criterion's verdict from one point's summary metrics (None: not measured at this point)."""
    get = lambda part: _value(metrics, f"{criterion}_{part}", column)  # noqa: E731
    risk, low, high, main, baseline, attacks = (get(p) for p in ("risk", "risk_low", "risk_high", "main_rate",
                                                                 "baseline_rate", "attacks"))
    if risk is None or risk["median"] is None:
        return None
    name = NAMES[criterion].format(column=column)
    what = WHAT[criterion].format(column=column)
    r, lo, hi = risk["median"], low["median"], high["median"]
    numbers = (f"residual risk {r:.2f}, 95 % interval {lo:.2f}-{hi:.2f}; {attacks['median']:.0f} attacks on each of "
               f"{risk['n']} published sets")
    beats = main["median"] > baseline["median"]
    if lo <= 0:
        verdict, sentence = "none", (f"{name}: no measurable risk — an attacker holding the release can {what} no "
                                     f"more often among the people in the training data than among people it never "
                                     f"saw" + ("" if beats else ", and the attack did no better than guessing "
                                                                "blindly") + f" ({numbers}).")
    else:
        verdict = "high" if r >= HIGH else "measurable"
        sentence = (f"{name}: {'HIGH' if verdict == 'high' else 'measurable'} risk — an attacker holding the release "
                    f"can {what} more often among the people in the training data than among people it never saw "
                    f"({numbers})." + ("" if beats else " The attack did no better than guessing blindly, so these "
                                                        "figures are not to be trusted."))
    return CriterionVerdict(risk_key(criterion, column), name, verdict, beats, r, lo, hi, int(risk["n"]),
                            float(attacks["median"]), sentence)


def risk_key(criterion: str, column: str | None = None) -> str:
    return f"{criterion}_risk" + (f":{column}" if column else "")


def gdpr_verdicts(metrics: dict, sensitive: list[str]) -> list[CriterionVerdict]:
    """Every criterion's verdict at one point (a ``summary_json`` entry's ``metrics``): singling out (multivariate,
    then univariate), linkability, inference per sensitive column; criteria not measured are left out."""
    found = [criterion_verdict(metrics, c) for c in ("singling_out", "singling_out_univariate", "linkability")]
    found += [criterion_verdict(metrics, "inference", column) for column in sensitive]
    return [v for v in found if v is not None]
