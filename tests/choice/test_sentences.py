"""Every sentence true (issue 23): over many random inputs, each number a sentence quotes is the number of the
table or chart it describes, and each verdict, recomputed from that table, agrees. The card, the pooled-release
check, the risk preview, the exposure table and the progress line."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests.helpers import TINY as SHARED_TINY
from tvs_core import TVineSynth, evaluate, holdout_split, load_demo
from tvs_core.choice import Axis, Normalisation, UtilityMix, axis_choices, choose, explain_level
from tvs_core.choice.explain import FRAGILE
from tvs_core.choice.gdpr import point_verdicts, risk_key
from tvs_core.choice.selection import METHODS, MORE_REVEALING, Column, level_column, level_column_names, shown_privacy
from tvs_core.choice.verdicts import Topic
from tvs_core.evaluation.catalogue import CATALOGUE, AxisKind, Group, PerColumn, Source, axis_metrics
from tvs_core.evaluation.metrics.membership.attacks import record_exposure
from tvs_core.evaluation.preview import RISK_TOLERANCE, preview_levels
from tvs_core.evaluation.protocol import QUICK
from tvs_core.evaluation.records import HOLDER, SHUFFLED
from tvs_core.evaluation.summary import Summary
from tvs_core.jobs.progress import progress_text
from tvs_core.model.ordering import algorithm1
from tvs_core.release.ledger import Budget
from tvs_core.release.pooled import PooledCheck, raised, raised_sentences, verdict
from tvs_core.text import decimal, percent

Y = "in_hospital_death"
SENSITIVE = ["total_cost_eur", "lactate_mmol_l"]
COLUMNS = ["total_cost_eur", "ward_cost_eur", "lactate_mmol_l", "heart_rate_bpm", "sofa_score", Y]
# the shared tiny protocol, with more sets (the card quotes intervals) and one random target
TINY = replace(QUICK, **{**SHARED_TINY, "utility_sets": 3, "release_sets": 4, "aia_bootstrap_size": 150,
                         "random_targets": 1, "outlier_quantiles": (0.99,)})
NUMBER = r"-?\d+\.\d+"


@pytest.fixture(scope="module")
def evaluated():
    table = load_demo("clinical")[COLUMNS].head(300)
    train, test = holdout_split(table, Y, seed=0)
    model = TVineSynth(response=Y, sensitive=SENSITIVE, seed=1).fit(train)
    result = evaluate(model, train, test, levels=[1, 2, 3, 4], preset=TINY, seed=2, n_jobs=1)
    return result.summary()


def perturbed(summary: Summary, rng: np.random.Generator) -> Summary:
    """The holder's medians moved at random (their intervals with them): other numbers, the same shape."""
    out = summary.frame.copy()
    rows = out["model"] == HOLDER
    factor = rng.uniform(0.6, 1.4, rows.sum())
    for column in ("median", "ci_low", "ci_high"):
        out.loc[rows, column] = out.loc[rows, column] * factor
    return Summary(out)


@pytest.mark.slow
def test_the_card_quotes_the_numbers_its_scores_come_from(evaluated):
    rng = np.random.default_rng(0)
    mixes = ["tstr", "tstr=1,pair_structure=1,ci_overlap=1", "pair_structure", "tstr=2,ci_overlap=1"]
    checked = 0
    for _ in range(40):
        summary = perturbed(evaluated, rng)
        privacy = str(rng.choice(axis_choices("privacy", SENSITIVE)))
        method, alpha, mix = str(rng.choice(METHODS)), float(rng.choice([0, 0.25, 0.5, 0.8, 1])), str(rng.choice(mixes))
        selection = choose(summary, SENSITIVE, alpha, Normalisation(method), Axis.parse(privacy, sensitive=SENSITIVE),
                           utility=UtilityMix.parse(mix))
        if selection is None or selection.best_level is None:
            continue
        table = selection.table.set_index("level")
        for level in table.index:
            row = table.loc[level]
            if any(math.isnan(row[c]) for c in ("P_unclipped", "U", "PU")):
                continue
            card = explain_level(selection, summary, int(level), SENSITIVE)
            axis = Axis.parse(privacy, sensitive=SENSITIVE)
            at = summary.point(int(level))
            source = axis.source_metric(at)
            # the headline: the table's PU, P and U
            shown = shown_privacy(row)  # from 0 to 1, or said: never a negative score on a 0-to-1 scale
            p_words = f"privacy: {shown}" if shown == MORE_REVEALING else f"privacy P = {shown}"
            assert f"PU = {row['PU']:.2f} ({p_words}, utility U = {row['U']:.2f}" in card.headline
            # privacy: the column named is the one whose scaled value is P, and its value and anchors give P
            line = card.protects[0]
            column = row["P_column"]
            if axis.metric.per_column is PerColumn.SENSITIVE:
                assert f" for {column}" in line
                if axis.column:
                    assert column == axis.column
            value = axis.point(at, column, source)[0]
            assert re.search(rf": {value:.3f}\b", line), (line, value)
            # the score as the screens show it: from 0 to 1, or, beyond the real rows by more than the spreads, said
            assert (shown if shown == MORE_REVEALING else f"privacy score {shown}") in line
            if 0 <= row["P_unclipped"] <= 1:
                assert f"privacy score {row['P_unclipped']:.2f}" in line
            if method != "minmax":
                key = column if axis.metric.per_column is PerColumn.SENSITIVE else axis.metric.name
                worst, ideal = selection.anchors["privacy"][key]
                assert f"(scores 0 at {worst:.3f}, 1 at {ideal:.3f})" in line
                assert (value - worst) / (ideal - worst) == pytest.approx(row["P_unclipped"], abs=1e-9)
            else:
                assert "scores 0 at" not in line
            # utility: each part's percentage is the table's scaled part
            for name in level_column_names(table.columns, Column.SCALED):
                part = level_column(Column.SCALED, name)
                short = CATALOGUE[name].short
                found = [c for c in card.costs if c.startswith(f"{short}:")]
                assert len(found) == 1
                share = row[part]  # outside its anchors: the side it lies on, never a negative share (way_words)
                said = f"{100 * share:.0f} % of the way" if 0 <= share <= 1 else "below" if share < 0 else "beyond"
                assert said in found[0]
                assert ("min-max" in found[0]) == (method == "minmax")
            # the verdicts lead, and say what the numbers say: on the choice's attribute axis (else the paper's MAB)
            # the deciding column and, between the anchors, the share of what the real rows reveal that is removed;
            # each utility part's percentage; membership a risk exactly when its attack's interval clears the floor's
            verdicts = card.verdicts
            attribute = verdicts.of(Topic.ATTRIBUTE)[0]
            if axis.metric.group is Group.ATTRIBUTE_RISK:
                if axis.metric.per_column is PerColumn.SENSITIVE:
                    assert f"their {row['P_column']}" in attribute.sentence
                if method == "anchored":
                    scaled = MORE_REVEALING if row.get("more_revealing", False) else decimal(row["P_unclipped"])
                    assert f"scaled between them: {scaled}." in attribute.detail
                    if "removes" in attribute.sentence:
                        assert f"removes {percent(row['P_unclipped'])} of what" in attribute.sentence
                        assert 0 < row["P_unclipped"] < 1
            useful = [v.sentence for v in verdicts.of(Topic.USEFULNESS)]
            shares = {percent(row[level_column(Column.SCALED, name)]) for name in
                      level_column_names(table.columns, Column.SCALED)}
            for sentence in useful:  # a percentage quoted is a part's scaled score; else it reads as an anchor
                if method == "anchored" and "%" in sentence.replace("95 %", ""):  # not an interval's name
                    assert any(share in sentence for share in shares), (sentence, shares)
            auc = summary.point(int(level)).metric("mia_auc").interval()
            floor = summary.model(SHUFFLED).metric("mia_auc").interval()
            membership = verdicts.of(Topic.MEMBERSHIP)[0]
            if auc is not None and floor is not None and auc.value > floor.value:
                beats = auc.low > floor.high
                assert ("noise floor (the same attacks" not in membership.sentence) == beats, membership.sentence
            # when the attack game finds something to learn about the column it names and the GDPR inference
            # criterion finds no risk for it (or the other way round), one sentence says why; otherwise none does
            column = next((c for c in SENSITIVE if f"their {c}" in attribute.sentence), None)
            gdpr = {v.key: v for v in point_verdicts(summary, SENSITIVE, level=int(level))}
            said = gdpr.get(risk_key("inference", column)) if column else None
            learns = "no better than from shuffled columns" not in attribute.sentence
            differ = said is not None and learns == (said.verdict == "none")
            assert bool(verdicts.of(Topic.WHY)) == differ, verdicts.lines()
            # fragility is said of the best level only
            fragile = any(w.startswith("Fragile") for w in card.warnings)
            assert fragile == (level == selection.best_level and row["wins"] < FRAGILE)
            checked += 1
    assert checked > 80  # the loop looked at many cards, not a few


def random_risks(rng: np.random.Generator, n: int) -> pd.DataFrame:
    metrics = [m.name for m in axis_metrics(AxisKind.PRIVACY) if m.source is Source.RELEASE] or ["release_mab",
                                                                                                     "mia_auc"]
    rows = []
    for _ in range(n):
        metric = str(rng.choice(metrics))
        low = float(rng.uniform(0, 0.8))
        high = low + float(rng.uniform(0, 0.2))
        single = float(rng.uniform(low, high))
        pooled = float(rng.uniform(low - 0.2, high + 0.2))
        if rng.random() < 0.15:
            low = high = np.nan
        rows.append({"metric": metric, "label": CATALOGUE[metric].short,
                     "column": str(rng.choice(["a", "b"])) if CATALOGUE[metric].per_column else None,
                     "better": CATALOGUE[metric].better, "single": single, "single_low": low, "single_high": high,
                     "n": int(rng.integers(2, 60)), "pooled": pooled, "raised": raised(metric, pooled, low, high)})
    return pd.DataFrame(rows)


def test_the_pooled_check_verdict_and_warnings_follow_its_table():
    rng = np.random.default_rng(1)
    for _ in range(300):
        risks = random_risks(rng, int(rng.integers(1, 7)))
        copies = int(rng.choice([0, 0, 3]))
        check = PooledCheck(int(rng.integers(1, 4)), 100, risks, copies, Budget(0.0, 0, 1))
        check.warnings = raised_sentences(risks, check.earlier)
        beyond = []
        for row in risks.itertuples():
            if np.isnan(row.single_low):
                continue
            worse = row.pooled > row.single_high if CATALOGUE[row.metric].lower_is_better else \
                row.pooled < row.single_low
            beyond.append(worse)
        text = verdict(check)
        if any(beyond):
            assert f"{sum(beyond)} of {len(beyond)} attack value(s) go beyond" in text
        elif beyond:
            assert f"none of the {len(beyond)} attack value(s) goes beyond" in text
        else:
            assert "nothing could be compared" in text
        assert ("copy a training row" in text and str(copies) in text) if copies else \
            "no pooled row copies a training row" in text
        assert check.raised == (any(beyond) or copies > 0)
        # one warning per raised row, quoting that row's numbers
        raised_rows = risks[risks["raised"].fillna(False).astype(bool)]
        assert len(check.warnings) == len(raised_rows)
        for warning, row in zip(check.warnings, raised_rows.itertuples(), strict=True):
            assert f"is {row.pooled:.4f}" in warning
            assert f"{row.single_low:.4f}–{row.single_high:.4f}" in warning
            assert f"(this release alone: {row.single:.4f})" in warning


def random_correlation(rng: np.random.Generator, d: int) -> np.ndarray:
    factors = rng.normal(size=(d, int(rng.integers(1, 4)))) * rng.uniform(0, 1.2)
    cov = factors @ factors.T + np.diag(rng.uniform(0.2, 1.0, d))
    scale = np.sqrt(np.diag(cov))
    return cov / np.outer(scale, scale)


def test_the_preview_sentences_quote_the_levels_of_its_curve():
    rng = np.random.default_rng(2)
    for _ in range(60):
        d = int(rng.integers(4, 9))
        names = [f"c{j}" for j in range(d - 1)] + ["y"]
        corr = pd.DataFrame(random_correlation(rng, d), index=names, columns=names)
        sensitive = [str(c) for c in rng.choice(names[:-1], int(rng.integers(1, 3)), replace=False)]
        order = algorithm1(corr.abs(), "y", sensitive, float(rng.uniform(0.1, 0.6)), "pearson")
        preview = preview_levels(corr, order)
        risk = preview.risk[preview.risk["level"] >= 1]
        top = int(risk["level"].max())
        sentences = [s for s in preview.sentences() if s.split(":")[0] in sensitive]
        assert len(sentences) == len(sensitive)
        for sentence in sentences:
            column = sentence.split(":")[0]
            rows = risk[risk["attribute"] == column].sort_values("level")
            parts = {"mab": sentence.split("on average over the other columns, ")[1].split(";")[0],
                     "wcab": sentence.split("from the most telling column ")[1].split(" (the curve")[0]}
            for measure, part in parts.items():
                below = rows[measure].to_numpy() < RISK_TOLERANCE
                if "from level 1 on" in part:
                    assert not below[0]
                elif "at every level" in part:
                    assert below.all() and f"(1 to {top})" in part
                else:
                    level = int(re.search(r"up to level (\d+)", part).group(1))
                    assert below[:level].all() and not below[level]


def test_the_exposure_table_is_in_the_order_its_caption_states():
    rng = np.random.default_rng(3)
    for _ in range(40):
        d = int(rng.integers(2, 6))
        members, non_members = rng.normal(size=(80, d)), rng.normal(size=(60, d))
        synthetic = rng.normal(size=(80, d))
        copies = rng.choice(80, int(rng.integers(0, 4)), replace=False)
        synthetic[: len(copies)] = members[copies] + rng.normal(scale=1e-3, size=(len(copies), d))
        table = record_exposure(synthetic, members, non_members, top=30, seed=int(rng.integers(100)))
        assert table["rank"].tolist() == list(range(1, len(table) + 1))
        flagged = (table["outlier"] | table["near_duplicate"]).to_numpy()
        assert not (np.diff(flagged.astype(int)) > 0).any()  # flagged rows first
        past = table.loc[flagged, "times_past_threshold"].to_numpy()
        assert (np.diff(past) <= 1e-12).all() and np.isnan(table.loc[~flagged, "times_past_threshold"]).all()
        scores = table.loc[~flagged, "score"].to_numpy()
        assert (np.diff(scores) <= 1e-12).all()  # the others by score, highest first


@pytest.mark.parametrize("status", ["queued", "running", "done", "failed", "cancelled", "interrupted"])
def test_a_progress_line_never_counts_against_nothing(status):
    rng = np.random.default_rng(4)
    for phase in ("first look", "sweep"):
        for _ in range(50):
            total = int(rng.integers(0, 40))
            done = int(rng.integers(0, 40))
            if phase == "sweep":
                total = max(total, done)
            info = {"status": status, "phase": phase, "done": done, "total": max(total, done if phase ==
                                                                                  "first look" else total),
                    "eta_seconds": float(rng.uniform(0, 500)) if rng.random() < 0.5 else None}
            text = progress_text(info)
            assert " of 0" not in text and "/0" not in text
            assert text.startswith(status)
            if phase == "first look" and done:
                assert f"level {done}" in text


@pytest.mark.slow
def test_the_verdicts_quote_each_criterion_and_attack_at_their_level(evaluated):
    """Page 1's verdicts (``choice.verdicts``): each number is the summary's and the selection's, each interval named
    for what it is (a spread of a few values is never called a 95 % interval)."""
    from tvs_core.choice.gdpr import HIGH
    from tvs_core.choice.verdicts import SHORT, _dp, level_verdicts
    from tvs_core.evaluation.intervals import interval_words
    from tvs_core.evaluation.metrics.audit import AuditResult

    rng = np.random.default_rng(3)
    shares = 0
    for _ in range(20):
        summary = perturbed(evaluated, rng)
        level = int(rng.choice([1, 2, 3, 4]))
        criteria = point_verdicts(summary, SENSITIVE, HOLDER, level)
        assert criteria, "the quick evaluation measures the three criteria"
        selection = choose(summary, SENSITIVE)
        verdicts = level_verdicts(selection, summary, level, SENSITIVE)
        detail = verdicts.of(Topic.GDPR)[0].detail
        for v in criteria:
            risk = v.risk
            expected = "none" if risk.low <= 0 else "high" if risk.value >= HIGH else "measurable"
            assert v.verdict == expected
            quoted = (f"{v.name}: {SHORT[v.verdict]} (residual risk {risk.value:.2f}, 95 % interval {risk.low:.2f}–"
                      f"{risk.high:.2f} (Wilson, {risk.n} trials) of one set, median over {v.sets} published sets)")
            assert quoted in detail
        at = summary.point(level)
        auc = at.metric("mia_auc").interval()  # targets and target kinds pooled by their medians, as the axes do
        members = verdicts.of(Topic.MEMBERSHIP)[0].detail
        assert f"AUC {auc.value:.3f} ({interval_words(auc.low, auc.high, auc.n, 3)})" in members
        pg = at.metric("pg").interval()
        if pg is not None:
            assert f"privacy gain PG {pg.value:.2f} ({interval_words(pg.low, pg.high, pg.n)}" in members
        # attribute inference: the share of the way from the real rows to nothing to learn is the privacy score P
        # of the default choice (the attacker's skill on real people, least protected column, anchored)
        row = selection.table.set_index("level").loc[level]
        attribute = verdicts.of(Topic.ATTRIBUTE)[0]
        scaled = MORE_REVEALING if row.get("more_revealing", False) else decimal(row["P_unclipped"])
        assert f"scaled between them: {scaled}." in attribute.detail
        if "removes" in attribute.sentence:
            shares += 1
            assert f"removes {percent(row['P_unclipped'])} of what the real rows let an attacker learn" in \
                attribute.sentence and f"their {row['P_column']}" in attribute.sentence
        order = list(Topic)
        assert [order.index(v.axis) for v in verdicts] == sorted(order.index(v.axis) for v in verdicts)
    assert shares, "no level's privacy score lay between the anchors"
    claims = {"privbayes:1": 1.0, "dp_vine:1": 1.0}
    assert "not audited" in _dp(claims, []).sentence
    refuted = AuditResult("privbayes:1", 1.0, 0.0, 1.3, "outside/margins", 0.9, 0.0, 80, 1.41)
    fine = AuditResult("dp_vine:1", 1.0, 0.0, 0.2, "corner/margins", 0.5, 0.2, 80, 1.41)
    line = _dp(claims, [refuted, fine])
    assert "REFUTES PrivBayes (ε = 1) (its releases spend at least ε = 1.30)" in line.sentence
    assert "DP vine (ε = 1) (" not in line.sentence and line.severity == "block"
    assert "consistent" in _dp(claims, [fine, replace(refuted, empirical_epsilon=0.5)]).sentence
