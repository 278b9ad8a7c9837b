"""Analytic preview of attribute-inference risk per truncation level (Theorem 2.4), in milliseconds.

For standard-normal scores with correlation R in C-vine order, truncating the Gaussian C-vine at
tau keeps trees 1..tau, whose roots are A = (Y, X_(d), ..., X_(d-tau+2)); every pair outside A
becomes conditionally independent given A. The implied correlation matrix therefore keeps R on
A x all and sets R_jl = R_jA R_AA^-1 R_Al for j, l outside A. The attacker's expected coefficients
are beta = R_{-j,-j}^-1 R_{-j,j} (eq. 13) on that matrix; MAB is mean |beta|, WCAB max |beta|.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..data.missing import MissingPolicy
from ..model.ordering import Measure, OrderResult, default_levels
from ..text import signed


def table_dependence(table: pd.DataFrame, schema, missing: MissingPolicy = MissingPolicy.DROP_ROWS,
                     measure: Measure = Measure.KENDALL) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(|association| matrix in ``measure``, normal-scores correlation) of a table as the model encodes it: the
    Sensitive page's heatmap and instant preview, before any fit."""
    from ..data.prepare import prepare_table
    from ..model.ordering import table_associations

    return (table_associations(table, schema, missing, measure),
            normal_scores_correlation(prepare_table(table, schema, missing).values))


def normal_scores_correlation(values: pd.DataFrame, discrete: list[bool] | None = None) -> pd.DataFrame:
    """Pearson correlation of normal scores Phi^-1(rank / (n+1)) (mid-ranks for ties)."""
    x = values.to_numpy(dtype=float)
    u = stats.rankdata(x, axis=0) / (len(x) + 1)
    corr = np.corrcoef(stats.norm.ppf(u), rowvar=False)
    return pd.DataFrame(np.nan_to_num(corr), index=values.columns, columns=values.columns)


def implied_correlation(corr: np.ndarray, level: int) -> np.ndarray:
    """Correlation of the Gaussian C-vine truncated at ``level``; ``corr`` is in C-vine order
    (last variable = root of tree 1)."""
    n = corr.shape[0]
    roots = list(range(n - 1, n - 1 - min(level, n - 1), -1))
    others = [j for j in range(n) if j not in roots]
    out = corr.copy()
    if not roots:
        out[np.ix_(others, others)] = 0.0
    else:
        ra = corr[np.ix_(others, roots)]
        cond = ra @ np.linalg.solve(corr[np.ix_(roots, roots)], ra.T)
        out[np.ix_(others, others)] = cond
    np.fill_diagonal(out, 1.0)
    return out


def expected_beta(corr: np.ndarray, target: int) -> np.ndarray:
    """Eq. (13): E[beta] = R_{-j,-j}^-1 R_{-j,j}, in the order of the remaining variables."""
    rest = [k for k in range(corr.shape[0]) if k != target]
    return np.linalg.solve(corr[np.ix_(rest, rest)], corr[rest, target])


def implied_correlations(corr: np.ndarray, levels: list[int]) -> Iterator[tuple[int, np.ndarray]]:
    """``implied_correlation`` at each of ``levels``, in ascending order, from one Cholesky factor: with the roots
    first (Y, then the covariate before it, ...), the part of the other columns' correlation that the first τ
    roots explain, R_oA R_AA^-1 R_Ao, is the sum of the factor's first τ outer products. So every level costs a
    rank-one update instead of a solve (120 columns: all 121 levels in a fraction of a second). A correlation
    matrix that is not positive definite (a column repeated) is solved level by level instead."""
    n = corr.shape[0]
    roots_first = np.arange(n)[::-1]
    try:
        factor = np.linalg.cholesky(corr[np.ix_(roots_first, roots_first)])
    except np.linalg.LinAlgError:
        for level in sorted(levels):
            yield level, implied_correlation(corr, level)
        return
    explained, used = np.zeros((n, n)), 0
    for level in sorted(levels):
        roots = min(max(int(level), 0), n - 1)
        while used < roots:
            explained += np.outer(factor[:, used], factor[:, used])
            used += 1
        out = corr.copy()
        others = roots_first[roots:]
        out[np.ix_(others, others)] = explained[roots:, roots:]
        np.fill_diagonal(out, 1.0)
        yield level, out


def attribute_risk_preview(corr: pd.DataFrame, order: list[str], sensitive: list[str],
                           levels: list[int] | None = None) -> pd.DataFrame:
    """Tidy rows (level, attribute, mab, wcab, r2) of the expected attacker for every level."""
    r = corr.loc[order, order].to_numpy()
    d = len(order) - 1
    levels = list(range(0, d + 1)) if levels is None else levels
    rows = []
    for level, implied in implied_correlations(r, levels):
        for column in sensitive:
            j = order.index(column)
            beta = expected_beta(implied, j)
            rest = [k for k in range(len(order)) if k != j]
            r2 = float(implied[j, rest] @ beta)
            rows.append({"level": level, "attribute": column, "mab": float(np.mean(np.abs(beta))),
                         "wcab": float(np.max(np.abs(beta))), "r2": r2})
    return pd.DataFrame(rows, columns=["level", "attribute", "mab", "wcab", "r2"])


CUT_STRENGTH = 0.1  # associations weaker than this are not listed as cut (they are noise at usual n)
BLOCK_TOLERANCE = 0.1  # Theorem 2.5 needs rho = 0 between the sensitive block and the rest; |rho| below this passes
RISK_TOLERANCE = 0.05  # an expected attacker coefficient below this counts as "zeroed"
# where a cut pair lies: inside the sensitive block (S and K: what truncation is for), between it and the rest, or
# between other columns
INTENDED, LINKS_BLOCK, OUTSIDE = ("sensitive block (intended)", "links the sensitive block to the rest",
                                  "outside the sensitive block (a utility cost)")
# the order a level's cut pairs are listed in, most important first: a link to Y (what the release is used to
# predict) or to the sensitive block (what truncation protects, or what still leaks) before the links between other
# columns; in each, the strongest real association first, the one an analyst or an attacker would notice
CUT_ORDER = ("links to Y and to the sensitive block first, then the others, each by the strength of the real "
             "association")


def level_cuts(corr: pd.DataFrame, order: list[str], levels: list[int], strength: float = CUT_STRENGTH
               ) -> pd.DataFrame:
    """Which real associations each level removes, before any sweep: a pair is cut at a level when its
    real normal-scores correlation is at least ``strength`` and the truncated vine keeps less than half
    of it (Theorem 2.4's implied matrix). Rows: level, a, b, real, kept, cut (most weakened first)."""
    r = corr.loc[order, order].to_numpy()
    upper = np.triu_indices(len(order), 1)
    strong = np.abs(r[upper]) >= strength
    first, second, real = upper[0][strong], upper[1][strong], r[upper][strong]
    done = list(implied_correlations(r, levels))
    kept = np.concatenate([implied[first, second] for _, implied in done]) if done else np.empty(0)
    names = np.asarray(order, dtype=object)
    frame = pd.DataFrame({"level": np.repeat([int(level) for level, _ in done], len(real)),
                          "a": np.tile(names[first], len(done)), "b": np.tile(names[second], len(done)),
                          "real": np.tile(real, len(done)), "kept": kept})
    frame["cut"] = frame["kept"].abs() < 0.5 * frame["real"].abs()
    weakened = (frame["real"] - frame["kept"]).abs()
    return frame.assign(_w=weakened).sort_values(["level", "_w"], ascending=[True, False],
                                                 kind="stable").drop(columns="_w")


def block_leaks(corr: pd.DataFrame, block: list[str], rest: list[str], tolerance: float = BLOCK_TOLERANCE
                ) -> pd.DataFrame:
    """Theorem 2.5's assumption, checked: pairs linking the sensitive block (S and K) to the other columns
    and Y with |correlation| >= ``tolerance``. Empty: the block structure holds and truncating below the
    block zeroes the attacker's coefficients; otherwise the theorem's level promises nothing."""
    sub = corr.loc[block, rest]
    rows = [{"a": a, "b": b, "correlation": float(sub.loc[a, b])} for a in block for b in rest
            if abs(sub.loc[a, b]) >= tolerance]
    frame = pd.DataFrame(rows, columns=["a", "b", "correlation"])
    return frame.reindex(frame["correlation"].abs().sort_values(ascending=False).index).reset_index(drop=True)


def zeroed_up_to(preview: pd.DataFrame, tolerance: float = RISK_TOLERANCE, measure: str = "wcab"
                 ) -> dict[str, int | None]:
    """Per sensitive column, the highest level up to which the expected ``measure`` ('wcab': every attacker
    coefficient; 'mab': their mean, the curve the page draws) stays below ``tolerance``; None: not even at level 1."""
    out = {}
    for column, rows in preview.groupby("attribute", sort=False):
        rows = rows[rows["level"] >= 1].sort_values("level")
        above = rows[rows[measure] >= tolerance]
        first = int(above["level"].iloc[0]) if len(above) else None
        out[column] = int(rows["level"].max()) if first is None else (first - 1 if first > 1 else None)
    return out


@dataclass
class LevelPreview:
    """Everything the instant preview says about the levels of one order, computed together so the
    text never contradicts the numbers."""

    risk: pd.DataFrame  # attribute_risk_preview
    cuts: pd.DataFrame  # level_cuts
    leaks: pd.DataFrame  # block_leaks: empty when Theorem 2.5's block assumption holds
    zeroed: dict[str, int | None]  # zeroed_up_to: every coefficient (WCAB) below RISK_TOLERANCE
    tau_block: int
    block: list[str]  # the sensitive block: S and K
    mean_zeroed: dict[str, int | None] = field(default_factory=dict)  # the same for their mean (MAB: the curve)
    response: str | None = None  # Y: a cut link to it comes first

    def cut_at(self, level: int) -> pd.DataFrame:
        """The pairs a level cuts, each said to be intended (inside the sensitive block) or a cost, the most
        important first (``CUT_ORDER``)."""
        rows = self.cuts[(self.cuts["level"] == level) & self.cuts["cut"]]
        block = set(self.block)
        where = [INTENDED if {a, b} <= block else LINKS_BLOCK if {a, b} & block else OUTSIDE
                 for a, b in zip(rows["a"], rows["b"], strict=True)]
        first = [bool({a, b} & (block | {self.response})) for a, b in zip(rows["a"], rows["b"], strict=True)]
        order = pd.DataFrame({"later": np.logical_not(first), "strength": -rows["real"].abs().to_numpy()})
        ranked = order.sort_values(["later", "strength"], kind="stable").index
        return rows.iloc[ranked].assign(where=np.asarray(where, dtype=object)[ranked]).reset_index(drop=True)

    def cut_counts(self, level: int) -> str:
        """How many real associations ``level`` cuts, and where they lie."""
        cut = self.cut_at(level)
        total = int((self.cuts["level"] == level).sum())
        if not len(cut):
            return f"Level {level} cuts none of the {total} real associations (none kept at less than half)."
        counts = cut["where"].value_counts()
        parts = [f"{counts[w]} {w}" for w in (INTENDED, LINKS_BLOCK, OUTSIDE) if w in counts]
        return f"Level {level} cuts {len(cut)} of the {total} real associations: {'; '.join(parts)}."

    def cut_list_words(self, level: int, shown: int) -> str:
        """What a list of the first ``shown`` cut pairs holds, and how many it leaves out."""
        total = len(self.cut_at(level))
        if not total:
            return "None."
        if total <= shown:
            return f"All {total}, {CUT_ORDER}."
        return f"The {shown} most important of {total}, {CUT_ORDER}; and {total - shown} more."

    def sentences(self) -> list[str]:
        """Plain statements for the page: what the preview shows, and when the theorem does not apply."""
        out = []
        top = int(self.risk["level"].max()) if len(self.risk) else 0

        def up_to(level: int | None) -> str:
            if level is None:
                return f"is at or above {RISK_TOLERANCE} from level 1 on"
            return f"stays below {RISK_TOLERANCE} at every level (1 to {top})" if level >= top else \
                f"stays below {RISK_TOLERANCE} up to level {level}"

        for column, level in self.zeroed.items():
            mean = self.mean_zeroed.get(column, level)
            out.append(f"{column}: what an attacker expects to learn, on average over the other columns, "
                       f"{up_to(mean)}; from the most telling column {up_to(level)} (the curve is the mean absolute "
                       "attacker coefficient, MAB; the most telling one is WCAB).")
        if len(self.leaks):
            top = self.leaks.iloc[0]
            out.append(f"The block assumption fails on this table: {len(self.leaks)} pair(s) link the sensitive block "
                       f"to the other columns (strongest {top['a']} – {top['b']}, {signed(top['correlation'])}), so "
                       f"truncating at level {self.tau_block} or lower does not by itself leave the attacker nothing "
                       "to learn; trust the curve above, not the theorem's level (Theorem 2.5).")
        else:
            out.append(f"The block assumption holds (no correlation of {BLOCK_TOLERANCE} or more either way between "
                       f"the sensitive block and the rest): truncating at level {self.tau_block} or lower leaves the "
                       "attacker nothing to learn on average (Theorem 2.5).")
        return out


def preview_levels(corr: pd.DataFrame, order: OrderResult, levels: list[int] | None = None) -> LevelPreview:
    """The instant preview of an Algorithm-1 order from the normal-scores correlation."""
    levels = list(range(0, order.full_level + 1)) if levels is None else levels
    risk = attribute_risk_preview(corr, order.order, list(order.sensitive), levels)
    block = [*order.sensitive, *order.K]
    rest = [c for c in order.order if c not in block]
    return LevelPreview(risk, level_cuts(corr, order.order, levels), block_leaks(corr, block, rest),
                        zeroed_up_to(risk), order.tau_block, block, zeroed_up_to(risk, measure="mab"), order.response)


MOST_LEVELS = 10  # default levels of a sweep: every level costs a full evaluation, so a wide table gets this many
FLAT = 0.02  # a change of a preview curve smaller than this share of its range is flat: no level is placed for it
COVERAGE = 2  # default levels kept for the middle of the longest stretches the preview sees as flat


def suggested_levels(preview: LevelPreview, top: int, most: int = MOST_LEVELS) -> list[int]:
    """The levels a sweep evaluates unless the user chooses: the paper's advice (1, every 5th and ``top``) while
    that is at most ``most`` levels (every table of up to 46 columns); on a wider table, at most ``most`` levels
    placed where the instant preview changes. Two curves are read over the levels 1..``top``: the expected
    attacker coefficient of each sensitive column (privacy) and the number of real associations the level cuts
    (utility), each scaled by its range. The highest level is the lowest from which neither curve changes any
    more (a vine fitted up to it serves every level the sweep needs; the levels above look the same to the
    preview); then, one at a time, the level where the curves stray most from a straight line between the
    levels already chosen, until ``most`` - ``COVERAGE`` levels or every stretch between them is flat; last, the
    middle of the longest stretch, twice, if it is more than twice as long as ``most`` evenly spread levels would
    leave (the preview is Gaussian: what it sees as flat the sweep may not).
    """
    paper = default_levels(top)
    if len(paper) <= most:
        return paper
    levels = np.arange(1, top + 1)
    curves = [_scaled(rows.set_index("level")["mab"].reindex(levels).to_numpy())
              for _, rows in preview.risk.groupby("attribute", sort=False)]
    cut = preview.cuts[preview.cuts["cut"]].groupby("level").size()
    curves.append(_scaled(cut.reindex(levels, fill_value=0).to_numpy(dtype=float)))
    curves = np.vstack(curves)
    moving = np.flatnonzero(np.abs(curves - curves[:, -1:]).max(axis=0) > FLAT)
    highest = int(levels[moving[-1] + 1]) if len(moving) and moving[-1] + 1 < len(levels) else top
    chosen = {1, highest}
    while len(chosen) < most - COVERAGE:
        error, level = _largest_departure(curves, sorted(chosen))
        if error <= FLAT:
            break
        chosen.add(level)
    for _ in range(COVERAGE):  # the preview is Gaussian: a long flat stretch still gets a look at its middle
        ordered = sorted(chosen)
        low, high = max(zip(ordered, ordered[1:], strict=False), key=lambda gap: (gap[1] - gap[0], -gap[0]))
        if high - low <= 2 * (highest - 1) / (most - 1):
            break
        chosen.add((low + high) // 2)
    return sorted(chosen)


def _scaled(curve: np.ndarray) -> np.ndarray:
    """A curve on 0..1 by its range (a flat curve is all zeros); rounded so that the last digits a BLAS kernel
    moves never change which level is chosen."""
    span = np.nanmax(curve) - np.nanmin(curve)
    scaled = np.zeros_like(curve) if not span > 0 else (curve - np.nanmin(curve)) / span
    return np.round(np.nan_to_num(scaled), 9)


def _largest_departure(curves: np.ndarray, chosen: list[int]) -> tuple[float, int]:
    """The level (1-based) whose curves stray most from the straight lines between the chosen levels around it,
    and by how much (ties: the lowest level)."""
    best, where = 0.0, chosen[0]
    for low, high in zip(chosen, chosen[1:], strict=False):
        if high - low < 2:
            continue
        inside = np.arange(low + 1, high)
        weight = (inside - low) / (high - low)
        line = curves[:, [low - 1]] * (1 - weight) + curves[:, [high - 1]] * weight
        departure = np.abs(curves[:, inside - 1] - line).max(axis=0)
        k = int(np.argmax(departure))
        if departure[k] > best:
            best, where = float(departure[k]), int(inside[k])
    return best, where
