"""Algorithm 1 of the paper: the covariate order that lets truncation cut the sensitive block first.

Order = S (user's order), then K (covariates whose |association| with any sensitive column exceeds
rho*, by that maximum, descending), then the rest in table order, then Y, which becomes the root of
tree 1 of the C-vine. Theorem 2.5's level tau = d + 1 - |K| - |S| is the highest truncation level at
which, under a block structure, the attacker's regression coefficients all have mean zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats._stats import _kendall_dis  # scipy's merge count of discordant pairs

from ..data.missing import MissingPolicy
from ..data.schema import Measure
from ..errors import DataError
from ..text import read_choice

MEASURES = tuple(Measure)
EXPLICIT = "explicit"  # the measure an explicit order stores (it was read from no association)
HIGH_DIMENSIONAL = 400  # Appendix B.3 (4): beyond this many covariates, truncate early
HIGH_DIMENSIONAL_T_MAX = 50
PAIRWISE_ROWS = 2_000  # beyond, scipy's O(n log n) count per pair beats counting the n^2 pairs of rows
_ROW_BLOCK = 64  # rows compared with all others at once (64 x 2 000 x 60 x (int8 + float32): 38 MB)


def default_rho_star(measure: Measure) -> float:
    """The paper's example threshold, Pearson 0.6, expressed in the chosen measure (Gaussian case:
    Kendall tau = 2/pi asin(rho), Spearman = 6/pi asin(rho/2)), rounded to two decimals."""
    rho = 0.6
    return {"pearson": rho, "kendall": round(2 / np.pi * np.arcsin(rho), 2),
            "spearman": round(6 / np.pi * np.arcsin(rho / 2), 2)}[measure]


def table_associations(table: pd.DataFrame, schema, missing: MissingPolicy = MissingPolicy.DROP_ROWS,
                       measure: Measure = Measure.KENDALL) -> pd.DataFrame:
    """The |association| matrix Algorithm 1 reads, from a table encoded as the model encodes it (``schema``: a
    ``data.schema.Schema`` with roles): what the Sensitive page draws and ``order`` prints before any fit."""
    from ..data.prepare import prepare_table

    return association_matrix(prepare_table(table, schema, missing).values, measure)


def association_matrix(values: pd.DataFrame, measure: Measure = Measure.KENDALL) -> pd.DataFrame:
    """Pairwise association of numeric columns; Kendall's tau-b corrects for ties."""
    measure = read_choice(Measure, measure)
    x = values.to_numpy(dtype=float)
    if measure == Measure.PEARSON:
        mat = np.corrcoef(x, rowvar=False)
    elif measure == Measure.SPEARMAN:
        mat = np.corrcoef(stats.rankdata(x, axis=0), rowvar=False)
    else:
        mat = kendall_tau_matrix(x)
    mat = np.nan_to_num(np.atleast_2d(mat), nan=0.0)
    return pd.DataFrame(mat, index=values.columns, columns=values.columns)


def kendall_tau_matrix(x: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every pair of columns, bit for bit scipy's ``kendalltau`` per pair (NaN where a column
    is constant; 1 on the diagonal). Every refit of the games orders its columns by it (per pair, scipy's calls
    were a sixth of a 500-row, 27-column fit's CPU: bench/sweep.md): up to ``PAIRWISE_ROWS`` rows all pairs of rows
    are counted at once, above them each column is ranked once (``_kendall_by_ranks``)."""
    x = np.asarray(x, dtype=float)
    n, d = x.shape
    if not np.isfinite(x).all():  # scipy's NaN policy (after the missing-value policy, never)
        mat = np.eye(d)
        for i in range(d):
            for j in range(i + 1, d):
                mat[i, j] = mat[j, i] = stats.kendalltau(x[:, i], x[:, j]).statistic
        return mat
    if n > PAIRWISE_ROWS:
        return _kendall_by_ranks(x)
    # s_i = sign(x_b - x_a) over ordered pairs of rows: sum s_i s_j = 2 (P - Q) and sum s_i^2 = 2 (untied pairs in
    # column i), counted exactly (integers below 2^24 in float32, whatever the BLAS kernel's order of sums)
    pairs = np.zeros((d, d))
    for start in range(0, n, _ROW_BLOCK):
        block = x[start:start + _ROW_BLOCK, None, :]
        signs = ((x[None] > block).view(np.int8) - (x[None] < block).view(np.int8)).reshape(-1, d)
        as_float = signs.astype(np.float32)
        pairs += as_float.T @ as_float
    concordance, root = pairs / 2, np.sqrt(np.diag(pairs) / 2)
    upper = np.triu_indices(d, k=1)  # (i, j), i < j: scipy's kendalltau(x_i, x_j), mirrored as it was per pair
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = concordance[upper] / root[upper[0]] / root[upper[1]]  # scipy's order of operations
    tau = np.where((root[upper[0]] == 0) | (root[upper[1]] == 0), np.nan, np.clip(tau, -1.0, 1.0))
    mat = np.eye(d)
    mat[upper] = tau
    mat.T[upper] = tau
    return mat


def _kendall_by_ranks(x: np.ndarray) -> np.ndarray:
    """scipy's ``kendalltau`` of every pair of columns from the same integer counts it computes (discordant pairs
    by scipy's own merge count, ties in each column and in both) and the same last expression, so the same bits;
    but each column is ranked once, a pair sorted once by one integer key, and no p-value computed: 2.7x faster
    (4 000 rows x 60 columns), which the holder's fit and the default levels of a 120-column table wait for."""
    n, d = x.shape
    ranks, ties = np.empty((d, n), dtype=np.intp), []
    for j in range(d):
        _, inverse, counts = np.unique(x[:, j], return_inverse=True, return_counts=True)
        ranks[j] = inverse + 1  # dense ranks from 1, as scipy's
        ties.append(int((counts * (counts - 1) // 2).sum()))
    pairs = n * (n - 1) // 2
    mat = np.eye(d)
    for i in range(d):
        shifted = ranks[i] * (n + 1)
        for j in range(i + 1, d):
            key = shifted + ranks[j]  # sorts as (column i, then column j), as scipy's two sorts do
            order = np.argsort(key)
            sorted_key = key[order]
            discordant = _kendall_dis(ranks[i][order], ranks[j][order])
            runs = np.diff(np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1], True]))
            joint = int((runs * (runs - 1) // 2).sum())
            if ties[i] == pairs or ties[j] == pairs:  # a constant column
                mat[i, j] = mat[j, i] = np.nan
                continue
            tau = (pairs - ties[i] - ties[j] + joint - 2 * discordant) / np.sqrt(pairs - ties[i]) / np.sqrt(
                pairs - ties[j])
            mat[i, j] = mat[j, i] = np.minimum(1.0, max(-1.0, tau))
    return mat


@dataclass
class OrderResult:
    order: list[str]  # covariates in C-vine order, then the response (last = root of tree 1)
    sensitive: list[str]
    K: list[str]
    rest: list[str]
    response: str
    rho_star: dict[str, float]
    measure: Measure | None  # None: an order given explicitly, read from no association (stored as EXPLICIT)
    tau_block: int  # Theorem 2.5: d + 1 - |K| - |S|
    t_max: int  # Appendix B advice
    t_max_reason: str
    full_level: int  # d: the untruncated vine over d covariates + Y has d trees

    @property
    def blocks(self) -> dict[str, tuple[int, int]]:
        """Half-open position ranges of the S | K | rest | Y blocks in ``order``."""
        s, k, r = len(self.sensitive), len(self.K), len(self.rest)
        return {"S": (0, s), "K": (s, s + k), "rest": (s + k, s + k + r), "Y": (s + k + r, s + k + r + 1)}

    def to_dict(self) -> dict:
        d = asdict(self)
        d["measure"] = EXPLICIT if self.measure is None else self.measure.value
        d["blocks"] = {k: list(v) for k, v in self.blocks.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> OrderResult:
        measure = d.get("measure")
        return cls(**{k: v for k, v in d.items() if k not in ("blocks", "measure")},
                   measure=None if measure == EXPLICIT else read_choice(Measure, measure))


def _rho_per_column(rho_star: float | dict[str, float], sensitive: list[str]) -> dict[str, float]:
    if isinstance(rho_star, dict):
        missing = [s for s in sensitive if s not in rho_star]
        if missing:
            raise DataError(f"No threshold rho* given for sensitive column '{missing[0]}'.", column=missing[0])
        out = {s: float(rho_star[s]) for s in sensitive}
    else:
        out = {s: float(rho_star) for s in sensitive}
    for s, r in out.items():
        if not 0 <= r <= 1:
            raise DataError(f"rho* for '{s}' is {r}; it must lie between 0 and 1.", column=s)
    return out


def t_max_advice(order: list[str], sensitive: list[str]) -> tuple[int, str]:
    """Appendix B.3: t_max = d + 1 - j (j = position of the first sensitive covariate); 50 if d > 400."""
    d = len(order) - 1
    positions = [order.index(s) + 1 for s in sensitive if s in order]
    j = min(positions) if positions else 1
    t_max = d + 1 - j
    reason = f"d + 1 - j = {d} + 1 - {j}: trees above {t_max} only model dependence among sensitive columns"
    if j == 1:
        reason = f"the full vine ({d} trees): the sensitive columns enter first, so every tree is a candidate"
    if d > HIGH_DIMENSIONAL and t_max > HIGH_DIMENSIONAL_T_MAX:
        t_max = HIGH_DIMENSIONAL_T_MAX
        reason = f"{d} covariates (> {HIGH_DIMENSIONAL}): truncating early avoids fitting noise (Appendix B.3)"
    return t_max, reason


def algorithm1(association: pd.DataFrame, response: str, sensitive: list[str],
               rho_star: float | dict[str, float] | None = None, measure: Measure = Measure.KENDALL) -> OrderResult:
    """Order covariates by Algorithm 1 from a precomputed association matrix (instant; for sliders).
    ``rho_star`` None means ``default_rho_star(measure)``."""
    if rho_star is None:
        rho_star = default_rho_star(measure)
    names = list(association.columns)
    if response not in names:
        raise DataError(f"The response '{response}' is not among the modelled columns.", column=response)
    if not sensitive:
        raise DataError("No sensitive column is chosen.", fix="Pick at least one sensitive covariate.")
    for s in sensitive:
        if s not in names:
            raise DataError(f"Sensitive column '{s}' is not among the modelled columns.", column=s)
        if s == response:
            raise DataError(f"'{s}' cannot be both the response and sensitive.", column=s)
    rho = _rho_per_column(rho_star, sensitive)
    covariates = [c for c in names if c != response]
    others = [c for c in covariates if c not in sensitive]
    a = association.abs()
    K = [k for k in others if any(a.loc[s, k] > rho[s] for s in sensitive)]
    strength = {k: max(a.loc[s, k] for s in sensitive) for k in K}
    K = sorted(K, key=lambda k: -strength[k])  # stable: ties keep table order
    rest = [c for c in others if c not in K]
    order = list(sensitive) + K + rest + [response]
    d = len(covariates)
    t_max, reason = t_max_advice(order, sensitive)
    return OrderResult(order=order, sensitive=list(sensitive), K=K, rest=rest, response=response,
                       rho_star=rho, measure=read_choice(Measure, measure), tau_block=d + 1 - len(K) - len(sensitive),
                       t_max=t_max, t_max_reason=reason, full_level=d)


def explicit_order(covariate_order: list[str], names: list[str], response: str,
                   sensitive: list[str]) -> OrderResult:
    """An order given by the user (covariates only; the response is appended as the root)."""
    covariates = [c for c in names if c != response]
    unknown = [c for c in covariate_order if c not in covariates]
    if unknown:
        raise DataError(f"Column '{unknown[0]}' in the order is not a modelled covariate.", column=unknown[0],
                        fix=f"Use the modelled covariates: {', '.join(covariates)}.")
    repeated = sorted({c for c in covariate_order if covariate_order.count(c) > 1})
    if repeated:
        raise DataError(f"Column '{repeated[0]}' appears more than once in the order.", column=repeated[0],
                        fix="Give each covariate once.")
    missing = [c for c in covariates if c not in covariate_order]
    if missing:
        raise DataError(f"The order must list every modelled covariate; missing: {', '.join(missing)}.",
                        fix="Give each covariate once.")
    order = list(covariate_order) + [response]
    d = len(covariates)
    t_max, reason = t_max_advice(order, sensitive)
    # The sensitive block is the prefix up to the last sensitive column; its other members act as K.
    prefix = max((covariate_order.index(s) + 1 for s in sensitive), default=0)
    K = [c for c in covariate_order[:prefix] if c not in sensitive]
    return OrderResult(order=order, sensitive=list(sensitive), K=K, rest=covariate_order[prefix:],
                       response=response, rho_star={}, measure=None, tau_block=d + 1 - prefix,
                       t_max=t_max, t_max_reason=reason, full_level=d)


def default_levels(t_max: int) -> list[int]:
    """Every 5th level plus 1 and t_max (the paper's advice: a few levels are enough)."""
    return sorted({1, t_max, *range(5, t_max, 5)})
