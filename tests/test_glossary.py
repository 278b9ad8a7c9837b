"""Every word a steward reads has a plain explanation (tvs_core/glossary.py): each metric of the catalogue, each
glossary term, and the jargon the pages show — the words listed below and every acronym, symbol, subscript and
theorem the pages' text contains."""

import ast
import re
from pathlib import Path

import pytest

from tvs_core import glossary
from tvs_core.evaluation.catalogue import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
# the text of the screens: the pages and the app, and the library modules whose sentences the pages show as they
# are (the recommendation card, the GDPR verdicts, the preview's sentences, the figures' titles and legends)
SCREENS = [*sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py", ROOT / "tvs_core/choice/explain.py",
           ROOT / "tvs_core/choice/gdpr.py", ROOT / "tvs_core/evaluation/preview.py",
           # the settings' declarations: the Sweep and Choose pages' labels and help are theirs
           ROOT / "tvs_core/jobs/config.py", ROOT / "tvs_core/choice/summary.py",
           *sorted((ROOT / "tvs_core/figures").glob("*.py"))]
# words the screens use that a newcomer to the project could not read (a statistician who tried the dashboard with
# only the screens and the README had to guess every one of them)
JARGON = ("C-vine", "vine", "pair copula", "pair-copula", "pair-copula families", "Algorithm 1", "Algorithm-1",
          "Algorithm-1 order", "Theorem 2.4", "Theorem 2.5", "τ_block", "t_max", "K", "S", "Y", "sensitive block",
          "ρ*", "truncation level", "full vine", "root", "tree", "MAB", "WCAB", "PG", "TSTR", "TRTR", "pMSE ratio",
          "AUC", "holder", "first look", "anchored", "anchors", "normalisation", "resamples", "shadow", "shadow models",
          "loky", "margins", "empirical", "kde", "α-precision", "β-recall", "PU_t", "P_t", "U_t", "α", "ε",
          "differential privacy", "DP", "hold-out", "seed", "baselines", "competitors", "protocol", "singling out",
          "linkability", "inference", "residual risk", "GDPR", "TPR", "FPR", "MIA", "IN", "OUT", "targets",
          "interval", "spread", "replicates", "Pareto", "fragile", "beyond", "card", "guardrails", "manifest",
          "ledger", "pooled-release check", "DP audit", "Kendall's τ", "Spearman's ρ", "association", "preview",
          "What a level cuts", "dp_vine", "CI overlap", "Pair structure", "exposed")
# acronyms a steward reads as plain words; emphasis in capitals; published methods cited after the plain words
PLAIN = {"CSV", "README", "HIGH", "REFUTES", "REFUTED", "WARNING", "COPULA-SHIRLEY", "DOMIAS",
         "NAME", "PARAMETER", "FITS"}  # the last: where a value goes in the form a setting is written, with an example
# what a newcomer cannot read without help: acronyms, Greek symbols, subscripted names, references to the paper
PATTERNS = (r"(?<![\w-])[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)?(?!\w)",  # MAB, WCAB, TSTR, MC-MIA, SHA-256
            r"\b\w+_(?:t|max|block|worst)\b",  # PU_t, U_t, t_max, τ_block, mab_worst
            r"[α-ωΑ-Ω]\*?(?:-\w+)?",  # α, ε, ρ*, τ, α-precision
            r"\b(?:Theorem|Algorithm)[- ]\d+(?:\.\d+)?\b")  # Theorem 2.4, Algorithm-1
PAPER_REFERENCE = r"\b(?:Appendix|Appendices|Section|Definition) [A-Z0-9]"  # explained by the entry on the paper


def screen_strings(path: Path) -> list[str]:
    """The string constants of a source file (f-strings' literal parts included), docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def catalogue_strings() -> list[str]:
    return [text for metric in CATALOGUE.values() for text in (metric.label, metric.short, metric.explanation)]


def shown_tokens() -> dict[str, set[str]]:
    """Every acronym, symbol, subscripted name and theorem on a screen or in the catalogue -> where it is."""
    found: dict[str, set[str]] = {}
    sources = [(path.relative_to(ROOT).as_posix(), screen_strings(path)) for path in SCREENS]
    for where, texts in [*sources, ("tvs_core/evaluation/metrics/", catalogue_strings())]:
        for text in texts:
            for pattern in PATTERNS:
                for token in re.findall(pattern, text):
                    found.setdefault(token, set()).add(where)
    return found


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?:;])\s+(?=[A-Z0-9(])", text.strip(), maxsplit=1)[0]


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z'(])", text.strip()) if s]


FORMULA = re.compile(r"[=·^_|∫]|\b\w\s*/\s*\w")  # what makes a first line a formula


def new_words(explanation: str, *names: str) -> set[str]:
    """The words of an explanation that its names do not already say."""
    said = {w for name in names for w in re.findall(r"\w+", name.casefold())}
    return {w for w in re.findall(r"[a-z]{3,}", explanation.casefold())} - said


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_metric_of_the_catalogue_is_explained_in_plain_words(name):
    metric = CATALOGUE[name]
    assert metric.explanation.strip(), f"{name} has no explanation"
    assert len(new_words(metric.explanation, metric.label, metric.short)) >= 6, \
        f"{name}: the explanation only repeats its label: {metric.explanation!r}"
    assert not FORMULA.search(first_sentence(metric.explanation)), \
        f"{name}: the explanation starts with a formula: {first_sentence(metric.explanation)!r}"
    entry = next((term for term in glossary.entries() if term.metric == name), None)
    assert entry is not None and entry.explanation == metric.explanation, f"{name} is not in the glossary as declared"
    assert glossary.explaining(metric.short) is not None


@pytest.mark.parametrize("term", glossary.TERMS, ids=lambda t: t.name)
def test_every_glossary_term_has_a_plain_explanation(term):
    assert term.topic in glossary.TOPICS
    assert term.explanation.strip(), f"{term.name} has no explanation"
    assert 1 <= len(sentences(term.explanation)) <= 3, f"{term.name}: one to three sentences, please"
    assert len(new_words(term.explanation, term.name, *term.shown_as)) >= 6, f"{term.name} only repeats its name"
    assert not FORMULA.search(first_sentence(term.explanation)), \
        f"{term.name}: the explanation starts with a formula: {first_sentence(term.explanation)!r}"


def test_no_alias_repeats_its_terms_name():
    """``shown_as`` lists what else a screen shows for a term; its name is found already (``Term.words``, looked up
    without regard to letter case): a self-alias is noise to keep in step with the name (issue 59)."""
    repeated = [term.name for term in glossary.entries()
                if any(alias.casefold() == term.name.casefold() for alias in term.shown_as)]
    assert not repeated, repeated
    # what the aliases were there for still works: the name in another case finds the entry
    assert glossary.explaining("truncation level").name == "Truncation level"
    assert glossary.explaining("fingerprint").name == "Fingerprint"


def test_glossary_names_are_unique():
    names = [term.name.casefold() for term in glossary.entries()]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


@pytest.mark.parametrize("word", JARGON)
def test_every_jargon_word_has_a_glossary_entry(word):
    assert glossary.explaining(word) is not None, f"'{word}' has no entry in tvs_core/glossary.py"


def test_every_acronym_symbol_and_theorem_on_a_screen_has_a_glossary_entry():
    """A word added to a page that the glossary cannot explain fails here, naming the word and the file."""
    paper = glossary.explaining("paper")
    missing = {token: sorted(where) for token, where in shown_tokens().items()
               if token not in PLAIN and glossary.explaining(token) is None
               and not (paper is not None and re.match(PAPER_REFERENCE, token))}
    assert not missing, f"words on screen without a glossary entry (add them to tvs_core/glossary.py): {missing}"


def test_the_scan_sees_the_screens_words():
    """The scan itself works: it finds words known to be on the pages, in their source files."""
    tokens = shown_tokens()
    for word, page in (("MAB", "pages/sweep.py"), ("τ_block", "pages/sensitive.py"),
                       ("PU_t", "tvs_core/choice/summary.py"), ("Theorem 2.4", "pages/sensitive.py"),
                       ("ρ*", "pages/sensitive.py")):
        assert page in tokens.get(word, set()), f"the scan did not find {word} in {page}"


def test_search_finds_a_term_by_what_the_screen_shows_and_by_its_meaning():
    assert any(term.name == "τ_block (Theorem 2.5)" for term in glossary.search("tau_block"))
    assert any(term.name == "Shadow models" for term in glossary.search("membership attacker fits"))
    assert {term.name for term in glossary.search("")} == {term.name for term in glossary.entries()}
    assert glossary.search("no such word anywhere") == []
