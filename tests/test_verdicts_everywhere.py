"""One verdict set per level, said the same everywhere (issue 45): at every level of small recorded sweeps — a
SUPPORT2-like table with a competitor (PrivBayes) among its references, the clinical and the breast cancer demos —
the card's lead sentences, page 1 of the report, the manifest's ``verdicts``, the ledger record and the command
line's summary hold the same verdicts in the same words and order; membership leads whenever the strongest attack
beats its noise floor; and the sentence saying why the attack game and the GDPR inference criterion differ stands
beside them wherever they could look contradictory."""

from __future__ import annotations

import html
import re

import pytest

from bench import tables
from tests.helpers import TINY
from tvs_core import load_demo
from tvs_core.choice import ChoiceSettings, explain_level
from tvs_core.data.demo import DEMOS
from tvs_core.evaluation.metrics.audit import audits_from_records
from tvs_core.jobs import JobView, SweepConfig, submit
from tvs_core.jobs.worker import run_job
from tvs_core.storage.store import Store

ROWS = 400  # of each table: every game played, in seconds
# every test here reads one of three sweeps (``swept``, built once per worker that runs one of its tests): one
# worker runs them all, so each sweep is run once, not once on each worker; three sweeps: the whole suite's
pytestmark = [pytest.mark.xdist_group("verdicts_everywhere"), pytest.mark.slow]


def _support():
    return tables.support_like().head(ROWS), tables.RESPONSE, list(tables.SENSITIVE), ["independent", "privbayes:1"]


def _demo(name, baselines):
    return load_demo(name).head(ROWS), DEMOS[name].response, list(DEMOS[name].sensitive), baselines


SWEEPS = {"support_like": _support, "clinical": lambda: _demo("clinical", ["independent"]),
          "breast_cancer": lambda: _demo("breast_cancer", ["independent"])}
LEVELS = [1, 5]


@pytest.fixture(scope="module", params=sorted(SWEEPS))
def swept(request, tmp_path_factory):
    """(view, summary, selection): a quick sweep of levels 1 and 5 at the tiny protocol sizes, run to its end."""
    table, response, sensitive, baselines = SWEEPS[request.param]()
    store = Store(tmp_path_factory.mktemp(f"verdicts-{request.param}"))
    config = SweepConfig(response=response, sensitive=sensitive, levels=LEVELS, baselines=baselines,
                         protocol_overrides=TINY)
    job_id = submit(store, table, config)
    assert run_job(store, job_id, n_jobs=2) == "done"
    view = JobView(store, job_id)
    summary = view.summary()
    return view, summary, ChoiceSettings().select(summary, sensitive)


def texts(verdicts) -> list[str]:
    return [getattr(v, "text", v) for v in verdicts]


def page_one(view, level: int) -> list[str]:
    """The verdicts page 1 of the report prints, in order: the boxes under "Verdicts at level"."""
    from tvs_core.release.release import Release
    from tvs_core.report.context import ReportContext
    from tvs_core.report.signed import render

    release = Release.from_sweep(view, level, settings=ChoiceSettings(), chosen_by_user=True)
    page = render(ReportContext.of(release, exported=False))
    verdicts = page.split(f"<h3>Verdicts at level {level}</h3>", 1)[1].split("<h3>Before signing</h3>")[0]
    boxes = r'<div class="[a-z]+"><span class="severity">\w+</span>(.*?)</div>'  # each verdict, its severity first
    return [html.unescape(text) for text in re.findall(boxes, verdicts, flags=re.S)]


@pytest.mark.parametrize("level", LEVELS)
def test_card_page_1_manifest_ledger_and_command_line_say_the_same_verdicts(swept, level, tmp_path, capsys):
    from tvs_core import cli
    from tvs_core.evaluation.records import REAL, SHUFFLED
    from tvs_core.release.ledger import releases
    from tvs_core.release.release import Release

    view, summary, selection = swept
    config = view.config
    page = page_one(view, level)
    # finding 1: at the SUPPORT2-like table's level 1 page 1 said "Membership …: a measurable risk" while the card's
    # lead sentences said nothing of membership
    card = explain_level(selection, summary, level, config.sensitive, view.preview(), response=config.response)
    signed = [t for t in page if "in the training data" in t and "ttack" in t and "membership" in t.lower()
              or t.startswith("At level") and "was in the training data" in t]
    assert signed and all(t in texts(card.verdicts) for t in signed), (signed, texts(card.verdicts))
    from tvs_core.choice.standing import overlaps
    from tvs_core.choice.verdicts import Topic, level_verdicts

    verdicts = level_verdicts(selection, summary, level, config.sensitive, preview=view.preview(),
                              response=config.response, claims=view.claims(),
                              audits=audits_from_records(view.records()))
    said = texts(verdicts)
    card = explain_level(selection, summary, level, config.sensitive, view.preview(), response=config.response,
                         claims=view.claims(), audits=audits_from_records(view.records()))
    assert texts(card.verdicts) == said
    assert texts(card.lead) + card.warnings == said  # the card: its lead, then its warnings
    assert page == said
    release = Release.from_sweep(view, level, settings=ChoiceSettings(), chosen_by_user=True)
    assert [f"{v['sentence']} {v['action']}".strip() for v in release.manifest()["verdicts"]] == said
    entry = release.record(Store(tmp_path / "ledger"), note="checked")
    assert [f"{v['sentence']} {v['action']}".strip() for v in entry.verdicts] == said
    assert releases(Store(tmp_path / "ledger"))[0].verdicts == entry.verdicts  # as stored, read back
    out = tmp_path / "release.csv"
    assert cli.main(["release", "--job", view.id, "--level", str(level), "--workspace", str(view.store.workspace),
                     "--no-ledger", "--out", str(out)]) == 0
    printed = capsys.readouterr().err
    positions = [printed.find(v.text if v.sentence.startswith(v.axis) else f"{v.axis}: {v.text}") for v in verdicts]
    assert -1 not in positions and positions == sorted(positions), printed
    # membership leads whenever the strongest attack beats its noise floor (its interval above the floor's)
    auc = summary.point(level).metric("mia_auc").interval()
    floor = summary.model(SHUFFLED).metric("mia_auc").interval()
    real = summary.model(REAL).metric("mia_auc").interval()
    membership = verdicts.of(Topic.MEMBERSHIP)[0].sentence
    if auc is not None and floor is not None and real is not None and not overlaps(auc, floor) \
            and auc.value > floor.value:
        assert "better than the attacks' noise floor" in membership or "real data" in membership, membership
    # why the two answers differ: beside them wherever the game finds something to learn and the GDPR criterion
    # finds no risk for the same column (or the other way round)
    attribute = verdicts.of(Topic.ATTRIBUTE)[0]
    column = next((c for c in config.sensitive if f"their {c}" in attribute.sentence), None)
    inference = next((line for line in verdicts.of(Topic.GDPR)[0].detail.split("; ")
                      if column and line.startswith(f"Inference of {column}:")), None)
    if inference is not None:
        learns = "no better than from shuffled columns" not in attribute.sentence
        risk = "no measurable risk" not in inference
        assert bool(verdicts.of(Topic.WHY)) == (learns != risk), (attribute.sentence, inference)


# -- issue 56: plain names wherever a person reads ----------------------------------------------------------------
def internal_names(columns) -> set[str]:
    """What only the code names: record and metric names, axis and utility-mix texts, model codes, the sweep's and
    the protocol's setting keys, the membership attacks' keys — those a person could not read as words (an
    underscore, a colon, or a code of no language); the paper's notation (t_max) and the table's own columns are
    not among them."""
    from dataclasses import fields

    from tvs_core.choice import axis_choices
    from tvs_core.evaluation.catalogue import AxisKind, described
    from tvs_core.evaluation.metrics.membership.attacks import ATTACKS
    from tvs_core.evaluation.protocol import Protocol
    from tvs_core.evaluation.records import MODEL_LABELS
    from tvs_core.jobs.config import SweepConfig

    names = {*described(), *ATTACKS, *MODEL_LABELS, *(f.name for f in fields(SweepConfig)),
             *(f.name for f in fields(Protocol)), *axis_choices(AxisKind.PRIVACY, ["COLUMN"])}
    coded = {"mab", "wcab", "mcmia", "pg", "mr2", "rvine", "tvinesynth", "privbayes", "privpgd", "ctgan", "tvae",
             "mst"}
    return {n for n in names if "_" in n or n in coded} - set(columns) - {"t_max"}


def unreadable(text: str, names: set[str]) -> list[str]:
    """Internal names, "-0.00", a raw Python dict or list, and a model or axis code with its parameter in ``text``."""
    found = [n for n in names if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", text)]
    found += re.findall(r"-0\.0+\b(?!\d)", text) + re.findall(r"\{'\w+'|\['\w+'", text)
    found += re.findall(r"\b[a-z]+(?:_[a-z]+)*:\d[\d.]*\b", text)  # dp_vine:0.1, privbayes:1
    found += re.findall(r"\b[a-z_]+=\d+(?:,[a-z_]+=\d+)+", text)  # tstr=1,pair_structure=1
    found += re.findall(r"\bPU_t\b|bench/\w+\.md", text)
    return found


def words(html_text: str) -> str:
    text = re.sub(r"<script.*?</script>|<style.*?</style>|<code>.*?</code>", " ", html_text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


@pytest.mark.parametrize("level", LEVELS)
def test_no_internal_name_minus_zero_or_raw_dict_where_a_person_reads(swept, level, tmp_path, capsys):
    """Findings 5 and 6: "dp_vine:0.1 ε = 0.1" and "Start the sweep with the DP audit" on the card and page 1, "the best
    level by PU_t", the manifest's choice as "mab_worst" and "tstr=1,pair_structure=1,ci_overlap=1" only, "-0.00" in
    the cut list, "local_likelihood_ratio" in tables, raw dicts in the report's settings. Over the card (every
    field), page 1, the whole report, the manifest's verdicts and its human-readable fields, and the command line:
    none (the manifest's machine fields keep their stored text)."""
    from tvs_core import cli
    from tvs_core.release.release import Release
    from tvs_core.report import build_report

    view, summary, selection = swept
    config = view.config
    names = internal_names(view.tables()[0].columns)
    card = explain_level(selection, summary, level, config.sensitive, view.preview(), response=config.response,
                         claims=view.claims(), audits=audits_from_records(view.records()), preset=config.preset)
    read = {"card": " ".join([card.headline, *card.protects, *card.costs, *card.notes,
                              *(f"{v.sentence} {v.action} {v.detail}" for v in card.verdicts)])}
    release = Release.from_sweep(view, level, settings=ChoiceSettings(), chosen_by_user=False)
    read["page 1"] = " ".join(page_one(view, level))
    read["report"] = words(build_report(release, exported=False))
    manifest = release.manifest()
    read["manifest's verdicts"] = " ".join(f"{v['sentence']} {v['action']} {v['detail']}" for v in manifest["verdicts"])
    read["manifest's choice, for a person"] = " ".join(str(v) for k, v in manifest["choice"].items()
                                                       if k == "why" or k.endswith("_described"))
    out = tmp_path / "release.csv"
    assert cli.main(["release", "--job", view.id, "--level", str(level), "--workspace", str(view.store.workspace),
                     "--no-ledger", "--out", str(out)]) == 0
    read["command line"] = capsys.readouterr().err
    found = {where: unreadable(text, names) for where, text in read.items()}
    assert not any(found.values()), found
    assert manifest["choice"]["privacy_metric"] == "release_skill_worst"  # the machine field keeps its stored text
