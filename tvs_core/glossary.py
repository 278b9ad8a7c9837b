"""What the words on the screens mean, in a data steward's words: the product's terms, declared once here, and
every metric of the catalogue (its label, short label and explanation), as one searchable glossary.

The dashboard's "What the words mean" page, ``docs/reference/glossary.md`` and ``docs/reference/metrics.md`` are
built from this module (``python -m tvs_core.reference`` writes the files); ``tests/test_glossary.py`` fails when a
metric or a word a page shows has no plain explanation here. A term's ``explanation`` says, in one to three
sentences and without a formula in the first, what it is and why it matters for the release decision; ``more``
holds the method behind it for whoever wants to check it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .evaluation.catalogue import CATALOGUE, SOURCES, Metric, PerColumn, Reference, described
from .evaluation.records import RAW, REAL, SHUFFLED

TOPICS = ("Choosing a level", "The model", "Your table", "The sweep", "Privacy: the attacks", "Utility: usefulness",
          "Releasing")
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"  # the steward's and officer's guide


@dataclass(frozen=True)
class Term:
    name: str  # the heading, as a person looks it up
    topic: str  # one of TOPICS, or "Metrics: <catalogue group>"
    explanation: str  # one to three plain sentences: what it is and why it matters for the release
    shown_as: tuple[str, ...] = ()  # the words and symbols on screen this entry explains
    more: str = ""  # the method, formula or source behind it (optional)
    metric: str | None = None  # the catalogue metric this entry is, if any

    @property
    def words(self) -> tuple[str, ...]:
        """Everything this entry explains: its name and what the screens show."""
        return (self.name, *self.shown_as)

    def matches(self, text: str) -> bool:
        """Whether a search for ``text`` finds this entry (case-insensitive, anywhere in it)."""
        wanted = text.strip().casefold()
        return not wanted or any(wanted in part.casefold() for part in
                                 (*self.words, self.explanation, self.more, self.topic))


TERMS: tuple[Term, ...] = (
    # -- choosing a level ---------------------------------------------------------------------------------------
    Term("Truncation level", "Choosing a level",
         "How many layers (trees) of the model the synthetic data keeps. Level 1 keeps only each column's link to "
         "the response Y; every higher level adds a layer of finer relations between the other columns, and the "
         "full vine keeps them all. A lower level copies fewer relations, so an attacker learns less about the "
         "sensitive columns — and an analyst finds fewer relations in the release.",
         ("truncation levels", "level", "levels", "truncated", "truncation"),
         "A C-vine over d covariates and Y has d trees; level t keeps trees 1 to t and sets every pair copula of the "
         "trees above t to independence (paper, Section 2.2). The model is fitted once at t_max and truncated for "
         "every lower level, which gives the same families and parameters as a fit at that level (tested)."),
    Term("Full vine", "Choosing a level",
         "The highest truncation level: every tree is kept, so every relation the model found is reproduced. Its "
         "number is the number of covariates (the columns other than Y).",
         ("untruncated", "no truncation")),
    Term("Recommended level", "Choosing a level",
         "The level whose combined privacy-utility score is highest at your weight on privacy, normalisation, "
         "privacy measure and utility mix. It is arithmetic on the evidence (the score PU_t), not a judgement: the "
         "manifest, the ledger and the report record it as the recommendation unless you choose a level yourself.",
         ("recommendation", "best level", "recommended")),
    Term("Your chosen level", "Choosing a level",
         "The level you selected by clicking its point or picking it on the Choose page. Only a level you chose "
         "is recorded as chosen by you; otherwise Export releases the recommended level and records it as such.",
         ("chosen level", "your choice", "selected level")),
    Term("Privacy score P_t", "Choosing a level",
         "A level's privacy on a scale where 1 is best. With the default anchored normalisation, 0 is what the "
         "attack achieves on the real rows and 1 what it achieves when there is nothing to learn. A level where "
         "the attack does better than on the real data is not given a score: the screens say \"more revealing "
         "than the real data\", and the recommendation ranks it below every level on the scale.",
         ("P_t", "P", "privacy score", "more revealing than the real data"),
         "P = (value_real − value) / (value_real − value_shuffled), e.g. for the attacker's skill on real people "
         "(release_skill) or the paper's MAB. On the least protected sensitive column by default "
         "(release_skill_worst)."),
    Term("Utility mix U_t", "Choosing a level",
         "A level's usefulness on a scale where 1 is best, averaged over the parts you weigh: prediction of Y "
         "(TSTR), the pairwise relations between all columns (pair structure) and the results of the regression "
         "of Y on the covariates (CI overlap). By default the three weigh equally; prediction alone is the paper's "
         "choice.",
         ("U_t", "U", "utility mix", "mix", "Change the utility mix"),
         "U_TSTR = (AUC − 0.5) / (AUC_TRTR − 0.5) (R² / R²_TRTR for a continuous response); pair structure and CI "
         "overlap run from shuffled columns (0) to identical (1). Written NAME=WEIGHT,... (default "
         "tstr=1,pair_structure=1,ci_overlap=1)."),
    Term("PU_t and the weight on privacy α", "Choosing a level",
         "The single score per level that the recommendation maximises: a weighted average of the level's privacy "
         "and utility scores. The weight α is yours: 0.5 weighs both equally, 0.75 favours privacy, 0.25 "
         "usefulness.",
         ("PU_t", "PU", "α", "alpha", "weight on privacy", "Weight on privacy α", "Appendix D"),
         "PU_t = α·P_t + (1 − α)·U_t (paper, Appendix D); U_t's parts clipped to [0, 1], P_t at 1 only (a level "
         "more revealing than the real data keeps its score below 0, so it ranks last). Ties go to the more "
         "private, then the lower level."),
    Term("Normalisation", "Choosing a level",
         "How raw numbers are turned into the 0-to-1 privacy and utility scores. Anchored (default) scales each "
         "between two reference points measured on your own table in the same sweep; paper puts privacy's "
         "'nothing learnt' end at a fixed value (an MAB of 0) instead of the measured floor: our reading of the "
         "paper's Appendix D, which asks for scores from 0 to 1 but gives no formula; "
         "min-max scales over the evaluated levels only, so scores change when you add a level.",
         ("anchored", "anchored normalisation", "min-max", "minmax", "Anchored (real data ↔ nothing "
          "learnt)", "Our reading of the paper (real data ↔ 0)", "Min-max over levels"),
         "Anchored: for MAB, (MAB_real − MAB) / (MAB_real − MAB_shuffled); paper (our reading of Appendix D): "
         "P = 1 − MAB / MAB_real."),
    Term("Anchors: the real rows and the shuffled columns", "Choosing a level",
         "The two reference points every privacy score is read against, measured on your table in the same "
         "sweep. The same attack on the real rows is as bad as it gets (publishing the data itself: privacy 0); on "
         "the real rows with each column shuffled separately (values kept, every relation destroyed) there is "
         "nothing to learn (privacy 1). That floor is not zero: an attacker always finds small chance links in a "
         "finite table.",
         ("anchor", "anchors", "real rows", "real data", "shuffled", "columns shuffled", "noise floor",
          "nothing learnt", "floor", "Real data (attack game)"),
         "The attack game's MAB is anchored at the same attack on bootstrap samples of the real reference rows "
         f"(records of model '{RAW}'); the release attack at the real training rows ('{REAL}'); the floor is "
         f"'{SHUFFLED}'. Utility parts are anchored at the shuffled columns (0) and identical data (1); TSTR at "
         "chance (0.5) and TRTR (1)."),
    Term("Beyond the anchors", "Choosing a level",
         "A score outside 0 to 1: a privacy score below 0 means the attack did better on the release than on the "
         "real data itself (the release exaggerates a link), above 1 that it did worse than on shuffled columns "
         "(chance). The card names it; a privacy score below 0 is shown as \"more revealing than the real data\" "
         "and keeps its value in PU_t (the level ranks last), the others count as 0 or 1.",
         ("beyond", "clipped")),
    Term("Resamples and wins", "Choosing a level",
         "How solid the recommendation is: every number is redrawn 2 000 times within its interval and the best "
         "level found each time. 'Best in 55 % of resamples' means another level wins almost half the time — a "
         "fragile choice (below 60 % the page says so): look at the neighbouring levels.",
         ("resamples", "resample", "wins", "fragile", "best in"),
         "Each metric is drawn from a normal distribution with its interval's width; 2000 draws."),
    Term("Pareto front", "Choosing a level",
         "The levels that no other level beats on both counts: none is at least as private and at least as "
         "useful, and better in one. A level off the front is dominated by another.",
         ("Pareto",)),
    Term("Privacy measured by", "Choosing a level",
         "Which attack's result is the privacy score, on the scatter's horizontal axis and in the combined score. "
         "The default is how well an attacker who learns from the release guesses the real people's sensitive "
         "values (the attacker's skill on real people), on the least protected sensitive column; the paper's MAB "
         "and WCAB stay selectable, and a membership attack (PG, AUC) can be chosen instead when membership is "
         "the bigger concern.",
         ("privacy axis", "release_skill_worst", "mab_worst", "worst sensitive column",
          "least protected"),
         "Written NAME, NAME:COLUMN or NAME_worst (--privacy on the command line)."),
    Term("Recommendation card", "Choosing a level",
         "The box under the scatter on the Choose page, for the selected level: what it protects (the attack "
         "numbers against both anchors, the membership attacks), what it costs (each utility part and the real "
         "associations it cuts), and warnings (little pair structure kept, the block assumption failing, a "
         "fragile choice, intervals from too few values).",
         ("card", "What it protects", "What it costs")),
    Term("Interval, spread and replicates", "Choosing a level",
         "Every number is a median over replicates — synthetic sets, game iterations or targets — with an interval "
         "showing how far it could move by chance. With at least 10 replicates it is a 95 % interval; with fewer the "
         "screens call it a spread of only a few values, too few to settle a close call.",
         ("interval", "95 % interval", "spread", "replicates", "median", "bootstrap", "n"),
         "A 95 % percentile bootstrap interval of the median; Wilson intervals for an attack's success rate; "
         "Clopper-Pearson in the DP audit."),
    Term("The paper", "Choosing a level",
         "Griesbauer et al., TVineSynth (AISTATS 2025): where the method and its evaluation come from. The screens "
         "cite its sections, theorems and appendices (for example Appendix J for the protocol sizes) so that each "
         "step can be checked against it.",
         ("paper", "Appendix", "Section", "Definition", "paper's way", "AISTATS 2025")),
    # -- the model ----------------------------------------------------------------------------------------------
    Term("TVineSynth", "The model",
         "The method this dashboard uses to make synthetic data. It learns how the columns of your table relate to "
         "each other and to the response Y, and can leave out on purpose the relations that would let someone "
         "infer the sensitive columns.",
         ("TVineSynth (by level)",)),
    Term("C-vine (vine copula)", "The model",
         "The statistical model behind TVineSynth: it describes a table as links between pairs of columns, "
         "arranged in layers called trees. In a C-vine each tree has one central column linked to all the others; "
         "the first tree's centre is the response Y, so each column's link to Y is modelled first.",
         ("C-vine", "vine", "vine copula", "copula"),
         "A canonical vine with the order of Algorithm 1 (docs/reference/protocols.md, 'Column order and the "
         "model')."),
    Term("Tree and root", "The model",
         "A tree is one layer of the vine. Tree 1 links every column to Y (a star around Y); tree 2 links every "
         "remaining column to the next central column (its root), taking Y into account; and so on, each tree "
         "adding finer relations.",
         ("tree", "trees", "root", "tree 1", "star", "star around Y")),
    Term("Pair copula", "The model",
         "The model of the link between two columns in one tree: how strongly they move together, and in which "
         "pattern (for example more strongly among extreme values). The vine is built from many of them.",
         ("pair copulas", "pair-copula")),
    Term("Pair-copula families", "The model",
         "The shapes a pair copula may take. The default, gaussian, allows only the normal shape and is by far the "
         "fastest; paper uses the paper's eleven shapes, which can follow links that are stronger among extreme "
         "values, at a much higher cost. The choice changes the release and is recorded in the manifest.",
         ("families", "family", "family preset"),
         "Presets: paper (11 families, MLE, AIC), parametric (pyvinecopulib 1.0.1's set, adds Tawn), fast "
         "(one-parameter families and Student t, by inversion of Kendall's τ), tll (nonparametric), gaussian (the "
         "default: the cheapest preset whose median TSTR AUC is within 0.01 of the paper set's, measured on the "
         "project's benchmark tables). 'Reuse the holder's pair-copula families' makes the attack games refit only "
         "the parameters of the holder's families — faster, and a deviation from the paper stated in the manifest "
         "and report."),
    Term("Margins", "The model",
         "How each column's own distribution of values is reproduced. Empirical (the paper's choice) draws from "
         "the training values' distribution, so released values stay within the real column's range and can repeat "
         "real values, its smallest and largest included; kde smooths that distribution first.",
         ("margin", "empirical", "empirical margins", "kde", "marginals"),
         "Empirical: the type-8 quantile of the training column, discrete values snapped to the closest "
         "observation. A saved model with empirical margins contains every column's training values."),
    Term("Response Y", "The model",
         "The column the synthetic data must help predict, for example in-hospital death. It is the centre of the "
         "first tree, so its link to every other column is kept at every level.",
         ("response", "Y")),
    Term("Sensitive columns S", "The model",
         "The columns an attacker must not be able to infer from the others, for example costs or lab values. You "
         "choose them; the order puts them first, so the trees centred on them come last and truncation removes "
         "those first (their link with Y, in tree 1, is kept at every level).",
         ("sensitive columns", "sensitive column", "S", "sensitive")),
    Term("K: the sensitive columns' close associates", "The model",
         "The other columns whose association with a sensitive column is above the threshold ρ*. They could give a "
         "sensitive value away, so the order places them right after the sensitive columns: the trees centred on "
         "them come just before the sensitive columns' own, and truncation removes them next.",
         ("K", "|K|", "∅")),
    Term("Sensitive block", "The model",
         "The sensitive columns S together with their associates K. The heatmap on the Sensitive features page "
         "outlines it in red; truncating at or below τ_block keeps no tree centred on a column of this block.",
         ("block", "blocks", "S | K | rest | Y")),
    Term("Association measure", "The model",
         "How the strength of the link between two columns is measured when ordering them: Kendall's τ (the "
         "default), Spearman's ρ or Pearson's correlation. Each runs from −1 to 1, 0 meaning no association; the "
         "heatmap shows their absolute values.",
         ("association", "|association|", "Kendall", "Kendall's τ",
          "Kendall-τ", "Kendall-τ matrices", "Spearman", "Spearman's ρ", "Pearson", "Pearson correlation")),
    Term("Association threshold ρ*", "The model",
         "A column whose association with a sensitive column is above ρ* joins K, the sensitive column's close "
         "associates. The default is the paper's example (a Pearson correlation of 0.6) in the chosen measure: 0.41 "
         "for Kendall's τ, 0.58 for Spearman's ρ; a lower threshold puts more columns into the sensitive block.",
         ("ρ*", "rho*", "association threshold", "Per-column thresholds")),
    Term("Algorithm 1 (the column order)", "The model",
         "The paper's rule for ordering the columns before the vine is fitted: the sensitive columns first, then "
         "K (strongest first), then the other covariates ('rest') in the table's order, then Y. The order decides "
         "which links each truncation level keeps.",
         ("Algorithm 1", "Algorithm-1", "Algorithm-1 order", "order", "rest", "other covariates")),
    Term("τ_block (Theorem 2.5)", "The model",
         "The highest level that keeps no tree centred on a sensitive column or its associates: the number of "
         "covariates outside the sensitive block, plus one. If the block had no link at all with the other "
         "columns, truncating there or lower would leave the attacker nothing to learn (Theorem 2.5); real tables "
         "rarely meet that condition, and the Sensitive features page says when yours does not.",
         ("τ_block", "tau_block", "τ", "Theorem 2.5", "block assumption"),
         "τ_block = d + 1 − |K| − |S| (d covariates). The block assumption: no correlation of at least 0.1 between "
         "the sensitive block and the other columns (in normal scores)."),
    Term("t_max", "The model",
         "The highest level the model is fitted at, and so the highest a sweep can evaluate. The paper's advice "
         "gives the full vine here, since the sensitive columns come first in the order; a table with more than 400 "
         "covariates is capped at 50 to avoid fitting noise.",
         ("top level", "recommended top level"),
         "Appendix B: t_max = d + 1 − j, j the position of the first sensitive covariate in the order."),
    Term("Theorem 2.4: the instant risk preview", "The model",
         "The paper's formula for what an attacker can expect to learn at each level if the data were normally "
         "distributed. The Sensitive features page draws it per level within milliseconds, before any sweep; the "
         "sweep then measures the real attacks, which can differ.",
         ("Theorem 2.4", "preview", "risk preview", "expected attribute-inference risk", "instant"),
         "E[β] = ρ_{−j,−j}^{-1} ρ_{−j,j} on the correlation matrix the truncated Gaussian C-vine implies."),
    Term("Normal-scores correlation", "The model",
         "The correlation of the columns after each one is turned into normal-distribution scores through its "
         "ranks. The instant preview and 'What a level cuts' use it.",
         ("normal scores",)),
    Term("What a level cuts", "The model",
         "The real associations between two columns (at least 0.1 in normal scores) that a level keeps at less "
         "than half their strength, by the preview's calculation. Cuts inside the sensitive block are the point of "
         "truncation; cuts elsewhere are what the level costs an analyst.",
         ("cut", "cuts", "real associations")),
    Term("The holder's model", "The model",
         "The data holder's model: TVineSynth fitted once on all your training rows. Your release is drawn from it; "
         "the attack games fit other copies on parts of the data to imitate an attacker.",
         ("holder", "holder's model", "data holder", "the holder's")),
    Term("Baselines", "The model",
         "Other generators evaluated in the same sweep as reference points on the scatter: other vine models "
         "(R-vine), a Gaussian copula, independent margins (each column drawn on its own: safe and useless) and a "
         "differentially private vine (DP vine, at three ε). They show what other methods would give on your table; "
         "they are never released.",
         ("baseline", "reference points", "R-vine", "R-vine (Dissmann)", "R-vine, star tree 1",
          "Gaussian copula", "Independent margins", "independent", "DP vine", "rvine", "rvine_star1",
          "gaussian_copula", "dp_vine", "dp_vine:EPS"),
         "rvine, rvine_star1, gaussian_copula, independent, dp_vine:0.1, dp_vine:1, dp_vine:10 (COPULA-SHIRLEY). "
         "By default they play the release attack only; 'Baselines play the attack games too' runs the games for "
         "each of them (the same estimator as TVineSynth, at many refits)."),
    Term("Competitors", "The model",
         "The methods the paper compared TVineSynth with, available as baselines: CTGAN and TVAE (neural networks, "
         "no privacy guarantee) and PrivBayes, PrivPGD and MST (differentially private). CTGAN, TVAE and PrivPGD "
         "need the optional packages of requirements-competitors.txt.",
         ("competitor", "CTGAN", "TVAE", "PrivBayes", "PrivPGD", "MST", "quick epochs",
          "paper settings", "epochs", "ctgan", "tvae", "privbayes", "privpgd", "mst"),
         "The paper's set: ctgan, tvae, privbayes:0.1, privbayes:1, privbayes:5, privpgd:2.5; mst:2.5 is offered "
         "beside it (docs/reference/models.md)."),
    # -- your table ---------------------------------------------------------------------------------------------
    Term("Types and roles", "Your table",
         "How each column was read (continuous, count, ordinal, nominal, binary, date, identifier, free text, "
         "constant) and what it does (response, sensitive, covariate, dropped). Identifiers, free text and "
         "constants are dropped from the model; the release still has their columns, with fresh IDs, empty text "
         "or the constant.",
         ("type", "role", "types", "roles", "dropped", "covariate", "covariates", "ordinal", "nominal", "ID", "IDs")),
    Term("Training rows", "Your table",
         "The rows the models learn from: your table minus the hold-out. The attacks ask what the release reveals "
         "about the people in these rows.",
         ("training row", "training data", "train", "training split")),
    Term("Hold-out", "Your table",
         "Rows set aside before any model is fitted and never seen by one: a random, stratified fraction of the "
         "table (20 % by default) or a file of your own. Usefulness is tested on them, and the privacy attacks "
         "compare the training rows with them.",
         ("holdout", "hold-out rows", "Hold-out fraction", "hold-out file")),
    Term("Missing values", "Your table",
         "What happens to empty cells: drop the rows that have one (the default, as in the paper), or impute them "
         "and model a missingness indicator, so that the release has empty cells as the real data does. Rows "
         "without a response are always dropped.",
         ("missing", "impute", "missingness indicator", "drop_rows")),
    Term("Fingerprint", "Your table",
         "A checksum that identifies a table by its contents: the ledger files every release of a table under it, "
         "whatever the file is called.",
         ()),
    Term("Project", "Your table",
         "One table and every choice you made about it, saved in the workspace as you go; the Projects page "
         "reopens earlier ones and their sweeps.",
         ("projects", "Projects")),
    Term("Workspace", "Your table",
         "The folder on this computer, readable by your account only, that keeps uploads, sweeps, results, "
         "released copies and the ledger. Wiping it removes them all.",
         ("Wipe the workspace",)),
    Term("Access token", "Your table",
         "The secret that opens this dashboard, printed in the console that started it and kept in a file only "
         "your account can read, so that other accounts on the same computer cannot open your data.",
         ("token",)),
    # -- the sweep ----------------------------------------------------------------------------------------------
    Term("Sweep", "The sweep",
         "The evaluation of the chosen truncation levels: for each level the dashboard draws synthetic sets, "
         "attacks them and measures their usefulness, in a background process that survives closing the browser. "
         "Its results are the scatter and every number you choose from.",
         ("sweeps", "Start sweep", "job")),
    Term("Protocol (quick or paper)", "The sweep",
         "How much evidence a sweep gathers. Quick takes seconds per level and draws few sets, so its intervals are "
         "often a spread of a few values; paper uses the paper's sizes (Appendix J: 50 synthetic sets per level, 10 "
         "attack-game iterations) and takes far longer. Use the paper protocol before relying on a close call.",
         ("protocol", "quick", "paper protocol", "paper preset", "Appendix J", "preset")),
    Term("Seed", "The sweep",
         "A whole number from which every random draw follows. The same seed, data and settings give the same "
         "numbers and the same released file on any machine; another seed gives another, equally valid draw.",
         ("master seed", "Master seed", "release seed", "Release seed")),
    Term("Backend (loky, dask, ray)", "The sweep",
         "Where a sweep's work runs: loky (the default) in processes of your account on this computer; dask in a "
         "Dask cluster only your account can use (optional packages). Ray is offered on the command line only, with "
         "a warning: its cluster cannot be limited to your account. The numbers do not depend on it.",
         ("backend", "Backend", "loky", "dask", "ray", "Dask", "Ray")),
    Term("First look", "The sweep",
         "Open circles on the live scatter during a sweep's first seconds on a larger table: the same recipe run "
         "on 500 training rows, one set per level. They only show the shape early; each is replaced when its "
         "level's own results arrive, and none is ever used to choose, record or report.",
         (),
         "None on a table of at most 500 training rows (the holder is as quick); only the lowest level up to 1 000."),
    Term("First numbers", "The sweep",
         "A level's own numbers from its first two published sets, scored for every level before any level is "
         "refined, so that every level has its own point early. Drawn as an open circle with a dot, marked "
         "provisional in the legend and on the Choose page's card; the other sets refine them, and the refined "
         "numbers are exactly those one task scoring every set would give.",
         ("Provisional", "provisional"),
         "Two sets: the fewest whose numbers have a spread (an error bar); the quick preset's ten sets, the paper's "
         "fifty, are scored in chunks (first 2, then up to 10, then the rest), each set seeded by its own index."),
    Term("Your own synthetic data", "The sweep",
         "A synthetic table made elsewhere, uploaded on the Sweep page and scored by the same measures as a "
         "release, as a point of its own. The attack games need a generator to refit, so it does not play them.",
         ("external", "externals", "not played", "games not played")),
    Term("Analysis for the CI overlap", "The sweep",
         "The regression of Y on the covariates you name (all of them if you name none), fitted on the real and on "
         "the synthetic rows for the CI overlap measure. Name the analysis your users will run.",
         ("analysis",)),
    # -- privacy: the attacks -----------------------------------------------------------------------------------
    Term("Attribute inference and the attack game", "Privacy: the attacks",
         "An attacker who knows some of a person's columns tries to infer their sensitive value from the release. "
         "The paper's attack game repeats this many times with models fitted on subsets of the data, with and "
         "without each target person, to measure what the release teaches about them.",
         ("attribute inference", "attribute-inference", "attribute risk", "AIA", "attack game", "attack games",
          "games", "game", "Attack games"),
         "docs/reference/protocols.md, 'Attribute-inference game': a linear regression of the standardised "
         "sensitive column on all other columns, per synthetic set."),
    Term("Release attack", "Privacy: the attacks",
         "The same attacker run directly on sets drawn from the holder's model — the data actually published. It "
         "is cheap, so it is shown at every level first; the attack game refines it.",
         ("release attacks",)),
    Term("Attacker coefficient", "Privacy: the attacks",
         "For each other column, the attacker's regression finds how far its guess of the sensitive value moves, in "
         "standard deviations, when that column moves by one standard deviation. 0 means the column tells nothing "
         "about the sensitive value; whether 0.04 is a lot depends on the anchors of your table, read it through "
         "the privacy score.",
         ("coefficient", "coefficients", "standardised coefficient",
          "|standardised coefficient|")),
    Term("MAB", "Privacy: the attacks",
         "Mean absolute attacker coefficient: how strongly, on average, the attacker's guess of a sensitive value "
         "follows each of the person's other columns. Lower is more private; it is read against the same attack on "
         "the real rows (privacy 0) and on shuffled columns (privacy 1). The paper's measure; it misleads when one "
         "column gives the sensitive one away: the attacker then needs one large coefficient, the others are near "
         "zero, and the mean is small while the guesses are nearly exact (the default privacy axis, the attacker's "
         "skill on real people, does not).",
         ("MAB/WCAB",),
         "Paper, Definition 2.2: the mean of |b_k| over the other columns (intercept excluded), game iterations and "
         "synthetic sets."),
    Term("WCAB", "Privacy: the attacks",
         "Worst-case absolute attacker coefficient: the single strongest link the attacker finds between a "
         "sensitive column and one other column. It catches one column that gives a sensitive value away, which an "
         "average can hide.",
         ()),
    Term("Membership inference", "Privacy: the attacks",
         "An attacker tries to tell from the release whether a given person's record was in the training data. "
         "Being in a hospital's registry can itself be sensitive.",
         ("MIA", "membership attack", "membership attacks", "membership risk",
          "membership", "Membership game")),
    Term("PG (privacy gain)", "Privacy: the attacks",
         "The result of the paper's membership game: 1 means the attacker learns nothing about who was in the "
         "data, 0 that the release reveals membership as the real data would. The quick protocol's attacker sees "
         "few sets, so its PG leans towards 1: use the paper protocol before relying on it.",
         ("PG", "privacy gain", "Privacy gain")),
    Term("Shadow models", "Privacy: the attacks",
         "Copies of the generator that the membership attacker fits on data with and without the target person, "
         "to learn what the target's presence looks like in synthetic data. The paper's membership game (PG) needs "
         "them; the newer membership attacks (AUC, TPR) do not.",
         ("shadow", "shadows", "shadow-model", "shadow model", "per target")),
    Term("IN and OUT", "Privacy: the attacks",
         "In the attack games, a model fitted with the target person's row (IN) or without it (OUT). Whatever "
         "differs between the two is what an attacker could exploit.",
         ("IN", "OUT", "OUT model")),
    Term("Targets", "Privacy: the attacks",
         "The people the attack games attack: for each sensitive column the rows with its most extreme values "
         "(outliers, the most exposed) and a few rows picked at random.",
         ("target", "outliers", "outlier", "random")),
    Term("AUC", "Privacy: the attacks",
         "Area under the ROC curve: how well a score separates two groups, from 0.5 (a coin toss) to 1 (perfect). "
         "It measures prediction quality (TSTR, TRTR) and how well a membership attack tells the training rows from "
         "the hold-out rows.",
         ("ROC AUC", "ROC")),
    Term("TPR and FPR", "Privacy: the attacks",
         "True-positive rate: the share of training rows a membership attack correctly flags; false-positive rate: "
         "the share of hold-out rows it wrongly flags. Reading the first at a low second (1 % or 10 %) shows the "
         "risk to the most exposed people, which an AUC averages away.",
         ("TPR", "FPR", "TP", "FP", "true positives", "false positives", "true-positive rate", "false-positive rate")),
    Term("Distance to closest record", "Privacy: the attacks",
         "For each synthetic row, whether the nearest real row is a training row or a hold-out row. A release that "
         "does not copy its training rows is as close to the one as to the other (about half each).",
         ("DCR", "closest record")),
    Term("Most exposed training rows", "Privacy: the attacks",
         "The training rows a distance-based membership attack finds most exposed at the selected level — closer to "
         "the synthetic rows than to any hold-out row — with the reason (a near-copy in the release, an unusual "
         "record). "
         "They are the people an attacker would single out first.",
         ("exposed", "exposure", "most exposed", "near-copy", "near-copies")),
    Term("GDPR criteria", "Privacy: the attacks",
         "The three questions European regulators ask of anonymised data (Article 29 Working Party, Opinion "
         "05/2014): can someone single out a person, link records of the same person, or infer a person's "
         "attribute? Each is measured as an attack on the training rows compared with the same attack on hold-out "
         "people, and given a plain verdict: no measurable, measurable or high risk.",
         ("GDPR", "Article 29 Working Party", "anonymisation", "Opinion 05/2014",
          "anonymisation (GDPR)"),
         "The attacks of Giomi et al. (PETS 2023, anonymeter). 'No measurable risk' when the interval covers 0; "
         "'high' from a residual risk of 0.5."),
    Term("Singling out", "Privacy: the attacks",
         "Whether the release lets someone isolate one person's record from a few of its values (a combination of "
         "three columns, or one rare or extreme value).",
         ("single out", "singling-out")),
    Term("Linkability", "Privacy: the attacks",
         "Whether the release lets someone link two partial records of the same person, for example one holding "
         "their lab values and one their demographics.",
         ("link",)),
    Term("Inference (GDPR criterion)", "Privacy: the attacks",
         "Whether the release lets someone infer a person's sensitive value from their other columns better for "
         "the people in the training data than for others. The attack game asks the broader question for "
         "everybody; the two can differ.",
         ("inference", "Inference", "infer")),
    Term("Residual risk", "Privacy: the attacks",
         "How much more often a GDPR attack succeeds on the people in the training rows than on hold-out people "
         "the generator never saw, on a 0-to-1 scale: 0 means nothing beyond what the data tell about anyone, 1 "
         "that the attack succeeds on the training people only (as on a copy).",
         ("main attack", "control attack", "control", "baseline attack", "guessing blindly"),
         "(main − control) / (1 − control); the blind baseline is the sanity check the main attack must beat."),
    Term("Differential privacy and ε", "Privacy: the attacks",
         "A mathematical guarantee that a release changes little whether or not any one person is in the data; ε "
         "(epsilon) says how little — smaller is stronger, and ε adds up over releases of the same table. "
         "TVineSynth makes no such claim: its protection is what the attacks measure; some baselines do claim "
         "one.",
         ("DP", "differential privacy", "differentially private", "ε", "epsilon", "δ", "ε-DP", "privacy budget",
          "budget"),
         "δ is the small probability with which the guarantee may fail (0 for pure ε-DP). Over several DP releases "
         "the ledger adds the ε's (sequential composition); one release without a guarantee makes the total "
         "unbounded."),
    Term("DP audit", "Privacy: the attacks",
         "A check of a baseline's ε claim: planted worst-case records (canaries) are put in and left out of many "
         "fits, and a membership test on the releases gives the lowest ε the implementation demonstrably spends. A "
         "bound above the claim refutes it; an audit can refute a claim, never prove it.",
         ("audit", "canary", "canaries", "Clopper-Pearson", "claimed ε", "REFUTED")),
    # -- utility -------------------------------------------------------------------------------------------------
    Term("Utility", "Utility: usefulness",
         "How useful the synthetic data is for what it will be used for: predicting Y, keeping the relations "
         "between columns, and giving the same regression results as the real data.",
         ("usefulness",)),
    Term("TSTR and TRTR", "Utility: usefulness",
         "Train on Synthetic, Test on Real: a prediction model for Y trained on the synthetic data and scored on the "
         "real hold-out rows. TRTR (Train on Real, Test on Real) is the same model trained on the real training "
         "rows, the reference line; a TSTR close to TRTR means the release predicts Y about as well as the real "
         "data does.",
         ("TSTR", "TRTR", "Utility (TSTR)", "TRTR (trained on real data)"),
         "A random forest (and a logistic or linear second model), scored by AUC from predicted probabilities "
         "(macro one-vs-rest for several classes) or R² for a continuous response."),
    Term("R²", "Utility: usefulness",
         "The share of a column's variation a model explains, from 0 (nothing) to 1 (all of it). It scores "
         "prediction of a continuous response, and how much of a sensitive column an attacker explains.",
         ("R2",)),
    Term("Fidelity", "Utility: usefulness",
         "How closely the synthetic rows resemble the real ones, column by column and as whole rows: the "
         "distributions, the correlations, and whether synthetic rows fall where real rows do.",
         ("marginals", "correlation matrices")),
    Term("α-precision and β-recall", "Utility: usefulness",
         "Two checks that the synthetic rows are spread like the real ones. α-precision asks whether the regions "
         "holding the most typical real rows (the α-supports) hold the same share of synthetic rows; β-recall asks "
         "the reverse, so a low β-recall means the release misses or crowds some kinds of records. 1 is best for "
         "both.",
         ("α-precision", "β-recall", "α-support", "β-support", "α-supports", "β-supports"),
         "Alaa et al. 2022 (paper, Appendix I): IP_α = 1 − 2∫|P_α − α| dα, IR_β likewise, with the identity "
         "embedding on standardised columns instead of their one-class network; the supports are balls around "
         "the mean."),
    Term("CI", "Utility: usefulness",
         "Confidence interval: the range of values of an estimate, such as a regression coefficient, that the data "
         "support at 95 %. The CI overlap measure compares these ranges between the real and the synthetic data.",
         ("confidence interval", "confidence-interval")),
    # -- releasing ----------------------------------------------------------------------------------------------
    Term("Release", "Releasing",
         "The synthetic table you publish: rows drawn from the holder's model at one level with the release seed, "
         "written as a CSV whose formula-like cells are neutralised so a spreadsheet cannot run them.",
         ("releases", "published set", "published sets", "synthetic set", "synthetic sets",
          "Generate release")),
    Term("Guardrails", "Releasing",
         "Checks run on the drawn rows before download. A synthetic row identical to a training row blocks the "
         "download unless you override it with a written reason (kept in the manifest); metrics that failed or "
         "were computed on capped sizes are shown as warnings.",
         ("exact copies", "override", "overridden", "Release anyway")),
    Term("Manifest", "Releasing",
         "The JSON file that goes with the released CSV and records how it was made and how to judge it: the data's "
         "fingerprint, the schema and column order, the level and who chose it, the families, margins and seeds, "
         "the sweep's settings, the choice settings, the level's metrics with intervals, the guardrails, the "
         "package versions and the file's hash.",
         ("JSON",)),
    Term("Release ledger", "Releasing",
         "The workspace's record of every release of a table: level, generator and settings, seed, rows, the "
         "file's SHA-256, time, your note, who chose the level and any ε. Downloading the CSV writes the entry.",
         ("ledger", "Note for the ledger", "note", "SHA-256")),
    Term("Pooled-release check", "Releasing",
         "Before a further release of the same table, the attacks are run on all earlier releases pooled with the "
         "new one, as an attacker holding every file would. It warns when the pool is riskier than the sweep's "
         "interval for a single release, or contains copies of training rows.",
         ("pooled", "pool")),
    Term("Report", "Releasing",
         "One self-contained HTML page for the privacy officer: what was released and why, the verdicts in plain "
         "words, every figure and metric, the guardrails, the ledger and the versions. It opens offline and "
         "prints to PDF from the browser.",
         ("Download report", "HTML", "PDF", "officer's paragraph")),
)


# -- the metric catalogue, as glossary entries ------------------------------------------------------------------
def _anchor_words(anchor: float | Reference | None) -> str:
    if anchor is None:
        return ""
    if isinstance(anchor, Reference):
        where = {REAL: "the real training rows", RAW: "bootstrap samples of the real reference rows (attack game)",
                 SHUFFLED: "the real rows shuffled column by column"}.get(anchor.model, anchor.model)
        return f"{CATALOGUE[anchor.metric].short if anchor.metric in CATALOGUE else anchor.metric} on {where}"
    return f"{anchor:g}"


def metric_details(metric: Metric, code: str = "") -> str:
    """The catalogue's facts about ``metric`` in one line: unit, direction, range, where it comes from, anchors;
    its record name between ``code`` marks (a backtick for markdown files)."""
    def bound(value: float | None) -> str:
        return "∞" if value is None or value == float("inf") else "−∞" if value == float("-inf") else f"{value:g}"

    low, high = metric.range
    parts = [f"Unit: {metric.unit}; {metric.better} is better; range {bound(low)} to {bound(high)}",
             f"computed on {SOURCES[metric.source]}"]
    if metric.per_column is PerColumn.SENSITIVE:
        parts.append("one value per sensitive column")
    elif metric.per_column is PerColumn.ANY:
        parts.append("one value per column")
    if metric.axis:
        parts.append(f"can be the {metric.axis} axis")
    if metric.worst is not None and metric.ideal is not None:
        parts.append(f"scores 0 at {_anchor_words(metric.worst)} and 1 at {_anchor_words(metric.ideal)}")
    recorded = f". Recorded as {code}{metric.name}{code}"
    if metric.risk is not None:  # one entry, its interval and count recorded beside it
        ends, count = (metric.risk.low, metric.risk.high), metric.risk.count
        recorded += (f", the ends of its 95 % interval ({metric.risk.kind.capitalize()}) as "
                     + " and ".join(f"{code}{m.name}{code}" for m in ends)
                     + f", and the number of {count.unit} behind it as {code}{count.name}{code}")
    return "; ".join(parts) + recorded + "."


def metric_terms() -> list[Term]:
    """Every record the catalogue describes as a glossary entry (a risk's interval ends and count too, since tables
    show them): its label, short label and explanation."""
    return [Term(m.label, f"Metrics: {m.group}", m.explanation,
                 tuple(w for w in dict.fromkeys((m.short, m.name)) if w.casefold() != m.label.casefold()),
                 metric_details(m), metric=m.name) for m in described().values()]


@cache
def entries() -> tuple[Term, ...]:
    """The whole glossary: the product's terms, then every metric of the catalogue."""
    return (*TERMS, *metric_terms())


def search(text: str) -> list[Term]:
    """The entries a search for ``text`` finds (all of them for an empty search)."""
    return [term for term in entries() if term.matches(text)]


def explaining(word: str) -> Term | None:
    """The entry that explains ``word`` as a screen shows it, or None: the entry whose name or ``shown_as`` is that
    word, else the first whose name or ``shown_as`` contains it as a whole word ('α-precision' in 'α-precision
    (fidelity)'); letter case ignored for words of more than two letters, so 'IN' and 'in' stay apart (a term's name
    is not repeated in its ``shown_as`` in another case)."""
    def same(a: str, b: str) -> bool:
        return a == b or (len(a) > 2 and a.casefold() == b.casefold())

    everything = entries()
    found = next((term for term in everything if any(same(word, shown) for shown in term.words)), None)
    if found is None:
        whole = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE if len(word) > 2 else 0)
        found = next((term for term in everything if any(whole.search(shown) for shown in term.words)), None)
    return found


# -- the guide, as the dashboard shows it --------------------------------------------------------------------------
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def guide_text(path: Path = GUIDE) -> str | None:
    """docs/guide.md for the dashboard (None when the project folder does not have it). A local dashboard makes
    no request of its own, and a relative link would point at the dashboard's server: each link is written out
    as its text and the file it names, relative to the project folder (web addresses are kept as text too)."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")

    def plain(match: re.Match) -> str:
        label, target = match.group(1), match.group(2)
        if target.startswith("#"):
            return label
        if re.match(r"[a-z]+://", target):
            return f"{label} ({target})"
        where = (path.parent / target.split("#", 1)[0]).resolve()
        try:
            shown = where.relative_to(path.resolve().parents[1]).as_posix()
        except ValueError:
            shown = target
        return f"`{shown}`" if label.strip("`") == target else f"{label} (`{shown}`)"

    return _LINK.sub(plain, text)
