"""The spread beside every number (evaluation/intervals.py): bootstrap, Wilson and Clopper-Pearson intervals, and
the words that say which one a reader is looking at."""

import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tvs_core.evaluation.intervals import (
    SMALL_N,
    Interval,
    IntervalKind,
    bootstrap_interval,
    clopper_pearson,
    interval_name,
    interval_words,
    wilson,
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_bootstrap_interval_holds_the_median_and_narrows_with_more_replicates(seed):
    """The estimate is the replicates' median, inside its interval; 40 times the replicates, a much narrower one."""
    rng = np.random.default_rng(seed)
    few, many = rng.normal(size=20), rng.normal(size=800)
    (estimate, low, high), (_, low_many, high_many) = bootstrap_interval(few, seed=seed), bootstrap_interval(many)
    assert estimate == np.median(few) and low <= estimate <= high
    assert few.min() <= low < high <= few.max()
    assert high_many - low_many < (high - low) / 2  # about 1/sqrt(40) as wide
    assert bootstrap_interval(few, seed=seed) == (estimate, low, high)  # a stored sweep reads back its numbers


def test_a_95_percent_interval_covers_the_truth_about_95_percent_of_the_time():
    """What "95 % interval" promises a reader, checked on 200 samples of a known median (0); a 50 % one covers
    far less often, so the confidence asked for is the one given."""
    samples = [np.random.default_rng(s).normal(size=40) for s in range(200)]
    covered = {confidence: np.mean([low <= 0 <= high for _, low, high in
                                    (bootstrap_interval(x, confidence=confidence, n_boot=1000) for x in samples)])
               for confidence in (0.95, 0.5)}
    assert covered[0.95] >= 0.9
    assert 0.3 <= covered[0.5] <= 0.65


def test_missing_replicates_are_left_out_and_one_replicate_has_no_spread():
    """A failed replicate (NaN) must not poison the interval; one value is its own estimate, none gives none."""
    assert bootstrap_interval([1.0, np.nan, 3.0, 2.0]) == bootstrap_interval([1.0, 2.0, 3.0])
    assert bootstrap_interval([0.7, np.nan]) == (0.7, 0.7, 0.7)
    assert all(math.isnan(v) for v in bootstrap_interval([np.nan, np.nan]) + bootstrap_interval([]))


def test_only_enough_replicates_are_called_a_95_percent_interval():
    """Below SMALL_N replicates a bootstrap interval is little more than their range: it is named a spread of
    that many values, never a 95 % interval."""
    assert interval_words(0.1, 0.2, SMALL_N) == f"95 % interval 0.10–0.20 (bootstrap over {SMALL_N} values)"
    few = interval_words(0.1, 0.2, SMALL_N - 1)
    assert few.startswith("spread 0.10–0.20") and f"only {SMALL_N - 1} values" in few and "too few" in few
    assert interval_words(0.1, 0.2, 1) == "a single value, no interval"
    assert interval_words(0.1, 0.2, None, digits=3) == "95 % interval 0.100–0.200"
    assert interval_words(float("nan"), 0.2, 5) == "no interval (5 values)"
    assert interval_words(0.1, 0.2, 4, kind="wilson") == "95 % interval 0.10–0.20 (Wilson, 4 trials)"


@pytest.mark.parametrize("kind", ["bootstrap", "wilson"])
def test_a_caption_names_the_same_kind_of_interval_as_the_words(kind):
    """A table's caption (interval_name) and its cells' words (interval_words) must not contradict each other."""
    for n in [None, *range(0, 2 * SMALL_N)]:
        words, name = interval_words(0.1, 0.2, n, kind=kind), interval_name(n, kind=kind)
        for start in ("95 % interval", "spread", "a single value"):
            assert words.startswith(start) == name.startswith(start), (n, words, name)


def test_a_wilson_interval_stays_within_zero_and_one_and_narrows_with_trials():
    """The rate of an attack that never (or always) succeeds has a bound at 0 (or 1), not beyond; an even rate
    is centred at one half; ten times the trials, a narrower interval around the observed rate."""
    centre, half = wilson(0, 25)
    assert centre - half == pytest.approx(0, abs=1e-12) and centre + half < 1
    centre, half = wilson(25, 25)
    assert centre + half == pytest.approx(1) and centre - half > 0
    assert wilson(20, 40)[0] == pytest.approx(0.5)
    (c_few, h_few), (c_many, h_many) = wilson(20, 100), wilson(200, 1000)
    assert h_many < h_few / 2
    assert c_few - h_few < 0.2 < c_few + h_few and c_many - h_many < 0.2 < c_many + h_many
    assert all(math.isnan(v) for v in wilson(0, 0))


def test_clopper_pearson_bounds_are_exact():
    """Zero successes in n trials bounds the rate by 1 - alpha^(1/n) (the rule of three's exact form), all
    successes from below by alpha^(1/n); otherwise the bounds hold the observed rate and mirror each other."""
    alpha = 0.05
    assert clopper_pearson(0, 50, alpha) == (0.0, pytest.approx(1 - alpha ** (1 / 50)))
    assert clopper_pearson(50, 50, alpha) == (pytest.approx(alpha ** (1 / 50)), 1.0)
    low, high = clopper_pearson(12, 50, alpha)
    assert low < 12 / 50 < high
    assert clopper_pearson(38, 50, alpha) == (pytest.approx(1 - high), pytest.approx(1 - low))


# what names a range: "95 %" (but not "95 % confidence", the confidence level of a one-sided bound: the DP audit's
# Clopper-Pearson ε, a regression's coefficients) and "spread" as a word (not "spreadsheet", "spreads")
INTERVAL_TEXT = re.compile(r"95 %(?! confidence)|\bspread\b")
ROOT = Path(__file__).resolve().parents[2]
# where the words are defined, not said of a value: the wording itself, the glossary's terms, and the catalogue's
# metric declarations (their labels and explanations are the glossary's metric entries)
DEFINED = ("tvs_core/evaluation/intervals.py", "tvs_core/glossary.py", "tvs_core/evaluation/metrics/")


def interval_texts(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string in ``source`` — f-strings' literal parts too — that names a range, docstrings
    left out (they explain the code to its reader, no screen shows them)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and INTERVAL_TEXT.search(node.value.replace("%%", "%"))]  # argparse help doubles %


def test_an_interval_is_worded_only_by_the_wording_function():
    """Issue 59: "95 % interval" or "spread" written beside a value anywhere else drifts from ``interval_words``' rule
    (a spread of few values called a 95 % interval, a caption contradicting its cells); every screen, the report, the
    verdicts and the pooled check call the one wording (``Interval.words``, ``said``, ``interval_name``,
    ``interval_rule``)."""
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
             for folder in ("tvs_core", "pages") for path in sorted((ROOT / folder).rglob("*.py"))
             if not str(path.relative_to(ROOT)).startswith(DEFINED)
             for line, text in interval_texts(path.read_text(encoding="utf-8"))]
    assert not found, "an interval worded outside intervals.py:\n" + "\n".join(found)


def test_the_scan_finds_an_interval_sentence_written_by_hand():
    """The scan above is not blind: an f-string's literal part and a plain string are found, a docstring and a
    confidence level are not."""
    planted = ('"""A spread of values, 95 % interval."""\n'
               'def f(low, n):\n'
               '    """Words of a 95 % interval."""\n'
               '    note = "ε at 95 % confidence"\n'
               '    return f"spread {low:.2f} of only {n} values" + " (a 95 % interval)"\n')
    assert [line for line, _ in interval_texts(planted)] == [5, 5]


def test_one_interval_type_carries_a_value_its_count_and_its_kind():
    """``Interval`` is the risk of a GDPR criterion and a summary's value alike: no count is ``None`` (a constant
    anchor), worded as its interval; a Wilson risk says its trials."""
    anchor = Interval.point(0.5)
    assert (anchor.value, anchor.low, anchor.high, anchor.n) == (0.5, 0.5, 0.5, None)
    risk = Interval(0.12, 0.0, 0.3, 500, IntervalKind.WILSON)
    assert risk.words() == "95 % interval 0.00–0.30 (Wilson, 500 trials)" == interval_words(0.0, 0.3, 500, 2, "wilson")
    assert risk.said(2) == f"0.12 ({risk.words()})" and risk.cell() == "0.12 [0.00, 0.30]"
    few = Interval(0.1, 0.0, 0.2, SMALL_N - 1)
    assert few.words().startswith("spread") and few.name() == interval_name(SMALL_N - 1)
