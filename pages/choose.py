"""Choose: weigh privacy against utility (PU_t), pick a level, and inspect it."""

import pandas as pd
import streamlit as st

from pages import common, plain
from pages.shared import notices, scatter, tables, widgets
from tvs_core import figures
from tvs_core.choice import (
    METHODS,
    Axis,
    ChoiceSettings,
    Normalisation,
    UtilityMix,
    axis_choices,
    explain_level,
    utility_names,
)
from tvs_core.choice.explain import recommendation
from tvs_core.choice.gdpr import gdpr_table, point_verdicts
from tvs_core.choice.verdicts import Severity, Topic, level_verdicts
from tvs_core.errors import DataError
from tvs_core.evaluation.catalogue import TSTR_METRICS, AxisKind
from tvs_core.evaluation.intervals import interval_rule
from tvs_core.evaluation.metrics.audit import audits_from_records
from tvs_core.evaluation.metrics.membership.attacks import EXPOSURE_ORDER, exposure_display
from tvs_core.evaluation.records import HOLDER
from tvs_core.evaluation.summary import Summary, readable, summarise_columns
from tvs_core.figures.scatter import first_numbers_words
from tvs_core.jobs import JobView
from tvs_core.model.generator import SyntheticGenerator
from tvs_core.settings import declarations
from tvs_core.storage import JobStatus
from tvs_core.text import first_capital, read_choice

common.under_navigation()


@st.cache_data(show_spinner=False, max_entries=8)
def summary_of(job_id: str, done: int) -> Summary:
    return JobView(common.store(), job_id).summary()


@st.cache_data(show_spinner=False, max_entries=8)
def audits_of(job_id: str, done: int) -> list:
    return audits_from_records(JobView(common.store(), job_id).records())


@st.cache_resource(max_entries=4)
def holder(job_id: str) -> SyntheticGenerator | None:
    return JobView(common.store(), job_id).holder()


@st.cache_resource(max_entries=4)
def level_preview(job_id: str):
    return JobView(common.store(), job_id).preview()


@st.cache_data(show_spinner="Ranking the training rows…", max_entries=16)
def exposure(job_id: str, level: int) -> pd.DataFrame | None:
    return JobView(common.store(), job_id).exposure(level)


FIGURE_COLUMNS = 12  # per-column figures drawn until asked for more: 120 margins made the page 17,000 px tall
MIX_PARTS = [name for name in utility_names() if name not in TSTR_METRICS]  # tstr: AUC or R², as the table needs


CHOICE = declarations(ChoiceSettings)  # each choice setting's label and help, as the command line's flag says them


def setting(widget, name: str, *args, **kwargs):
    """A choice setting's widget, bound to the project and labelled and explained as its one declaration says
    (``ChoiceSettings``: the command line's flag and the manifest use the same)."""
    declared = CHOICE[name]
    return widget(declared.label, *args, key=widgets.bound(name), on_change=widgets.keep, args=(name,),
                  help=declared.sentence, **kwargs)


@common.callback
def set_mix() -> None:
    """The weights into the project's utility mix; all zero is refused and the mix left as it was."""
    weights = [(name, float(st.session_state[f"{common.WIDGET}mix.{name}"])) for name in MIX_PARTS
               if st.session_state[f"{common.WIDGET}mix.{name}"] > 0]
    try:
        common.update_choice(utility=UtilityMix.of(weights))
    except DataError as refused:  # in the library's words, as the command line's --utility is refused
        st.session_state["mix_refused"] = str(refused)


st.title("4 · Choose a truncation level")
view = common.job()
if view is None:
    st.warning("Run a sweep first (page 3).")
    st.stop()
config = view.config
shown_done = view.job.done
summary = summary_of(view.id, shown_done)
if view.active:  # the numbers change as results arrive: follow them, as the Sweep page's scatter does

    @st.fragment(run_every=2.0)
    def follow_the_sweep() -> None:
        current = JobView(common.store(), view.id)
        if current.job.done != shown_done or not current.active:
            st.rerun(scope="app")

    follow_the_sweep()
if not summary.has_levels():
    info = view.progress()
    st.info(f"No level has its results yet (the sweep: {info['text']}). The first look on the Sweep "
            "page is only a preview and is never used to choose; this page updates by itself as results arrive."
            if view.active else "No results yet.")

    st.stop()

project = common.project()
choices = axis_choices(AxisKind.PRIVACY, config.sensitive)
if project.choice.privacy.text not in choices:
    common.update_choice(privacy=Axis.parse(choices[0]))
a, b, c = st.columns(3)
alpha = setting(a.slider, "alpha", 0.0, 1.0, step=0.05)
method = setting(b.radio, "normalisation", widgets.texts(METHODS), horizontal=True,
                 format_func=lambda m: read_choice(Normalisation, m).label)
privacy = setting(c.selectbox, "privacy", choices,
                  format_func=lambda p: Axis.parse(p, sensitive=config.sensitive).title)
settings = common.project().choice  # as the widgets above left it
mix = settings.utility
st.caption(f"Utility U_t = {plain.md(mix.describe(summary.metrics()))}")
# one label: one that changed with the mix closed the panel; the words the declaration's, escaped as every label
with st.expander(plain.md(f"Change the {CHOICE['utility'].screen_name}")):
    st.caption("U_t weighs what the synthetic data must keep: prediction of Y (TSTR, the paper's only utility), "
               "the pairwise dependence between all columns, and the results of the regression of Y on the "
               "covariates (confidence-interval overlap, Karr et al. 2006). Weights are relative; prediction alone "
               "is the paper's U_t.")
    weights = dict(mix.parts)
    for column, name in zip(st.columns(len(MIX_PARTS)), MIX_PARTS, strict=True):
        st.session_state[f"{common.WIDGET}mix.{name}"] = float(weights.get(name, 0.0))
        label = UtilityMix.parse(name).axes(summary.metrics())[0][0].metric.short
        column.slider(label, 0.0, 1.0, step=0.25, key=f"{common.WIDGET}mix.{name}", on_change=set_mix)
    if refused := st.session_state.pop("mix_refused", None):
        st.error(f"{plain.md(refused)} The mix was left as it was.")
selection = settings.select(summary, config.sensitive, view.complete_levels())
if selection is None or (selection.best_level is None and not selection.provisional):
    info = view.progress()
    st.info(f"Waiting for results: no level has both a privacy and a utility value yet (the sweep: {info['text']}). "
            "This page fills in as they arrive.")
    st.stop()
levels = selection.table["level"].tolist()
chosen_level = project.selected_level if project.selected_level in levels else None  # only ever set by a click
selected = chosen_level if chosen_level is not None else selection.best_level  # what the card and plots show

# full width, one above the other: side by side, the axis titles and the notes under them were cut off
st.plotly_chart(figures.pu_curve(selection.table, selection.best_level, selected), width="stretch", key="pu_curve")
best_verdicts = None if selection.best_level is None else level_verdicts(
    selection, summary, selection.best_level, config.sensitive, preview=level_preview(view.id),
    response=config.response, claims=view.claims(), audits=audits_of(view.id, view.job.done), preset=config.preset)
said = recommendation(selection, best_verdicts)
if selection.best_level is None:  # a running or cancelled sweep whose levels are all provisional
    st.warning(plain.md(said))
else:
    lead, _, rest = said.partition(" — ")
    st.markdown(f"**{plain.md(lead)}** — {plain.md(rest)}")
if view.active or view.job.status != JobStatus.DONE:
    st.warning(f"The sweep has not finished ({view.job.done} of {view.job.total} tasks): "
               + ("the levels named above have provisional numbers." if selection.provisional else
                  "every level has all its numbers, so the recommendation will not change; what is left are "
                  "reference points."))
if chosen_level is not None:
    st.success(f"Your choice: level {chosen_level} (recorded as chosen by you).")
elif selection.best_level is not None:
    st.info(f"You have not chosen a level. Export releases the recommended level, {selection.best_level}, and "
            "records it as the recommendation, not as your choice. Click a point or pick a level below to choose "
            "one.")
else:
    st.info("You have not chosen a level, and none is recommended yet: Export needs a level. Click a point or pick "
            "a level below to choose one (its numbers are provisional), or wait for the sweep to finish.")
for note in selection.notes:
    st.info(plain.md(note))
st.caption("Click a level's point in the scatter (or pick it below) to select it.")
parts = {axis.metric.name: axis for axis, _ in mix.axes(summary.metrics())}
if project.scatter_utility not in parts:
    common.update(scatter_utility=next(iter(parts)))
if len(parts) > 1:
    st.radio("Utility on the scatter's vertical axis", list(parts), horizontal=True,
             key=widgets.bound("scatter_utility"), on_change=widgets.keep, args=("scatter_utility",),
             format_func=lambda name: parts[name].metric.short)
st.plotly_chart(scatter.level_scatter(view, summary, selection, selected, utility=parts[project.scatter_utility]),
                width="stretch", key="choose_scatter", on_select=lambda: scatter.select_level_from("choose_scatter"),
                selection_mode="points")
picked = st.selectbox("Your chosen level", levels, index=levels.index(chosen_level) if chosen_level is not None
                      else None, placeholder="None chosen" + ("" if selection.best_level is None else
                                                            f" (recommended: {selection.best_level})"))
if picked is not None and picked != chosen_level:
    common.update(selected_level=int(picked))
    st.rerun()
if chosen_level is not None and st.button("Clear my choice (use the recommendation)"):
    common.update(selected_level=None)
    st.rerun()

if selected in levels:
    audits = audits_of(view.id, view.job.done)
    card = explain_level(selection, summary, int(selected), config.sensitive, level_preview(view.id),
                         response=config.response, claims=view.claims(), audits=audits, preset=config.preset)
    with st.container(border=True):
        whose = "your choice" if chosen_level is not None else "the recommended level, not chosen yet"
        st.markdown(f"**Level {selected} — {whose}** (what the report's first page says, in the same words)")
        scored, planned = view.sets_scored().get(int(selected), (0, 0))
        if 0 < scored < planned:
            st.info(f"Provisional — {first_numbers_words(scored, planned)}: level {selected}'s numbers rest on its "
                    f"first {scored} published sets; the other {planned - scored} are being scored and may move them "
                    "and this card.")
        st.markdown("".join(f"\n- {notices.severity_mark(v.severity)} {plain.md(v.text)}" for v in card.lead))
        for caveat in card.verdicts.of(Topic.WARNING):  # a note in blue, a warning in yellow, as their severity says
            (st.info if caveat.severity is Severity.INFO else st.warning)(plain.md(caveat.text))
        with st.expander("The numbers and the method behind these sentences"):
            st.markdown(f"**{plain.md(card.headline)}**")
            st.markdown("".join(f"\n- **{v.axis}**: {plain.md(v.detail)}" for v in card.lead if v.detail))
            st.markdown("**What it protects**\n" + "".join(f"\n- {plain.md(line)}" for line in card.protects))
            st.markdown("**What it costs**\n" + "".join(f"\n- {plain.md(line)}" for line in card.costs))
            for note in card.notes:
                st.markdown(plain.md(note))
    verdicts = point_verdicts(summary, config.sensitive, HOLDER, int(selected))
    if verdicts or audits:
        with st.container(border=True):
            st.markdown(f"**GDPR criteria at level {selected}** — can an attacker holding the release single out, "
                        "link or infer? (Article 29 Working Party, Opinion 05/2014; each attack on the training rows "
                        "against the same attack on hold-out rows, Giomi et al. 2023)")
            say = {"none": st.success, "measurable": st.warning, "high": st.error}
            for verdict in verdicts:
                say[verdict.verdict](plain.md(verdict.sentence))
            if not verdicts:
                st.caption("Not measured in this sweep (it was run by an earlier version).")
            else:
                with st.expander("Every level and reference point"):
                    st.dataframe(gdpr_table(summary, config.sensitive, levels, figures.model_label),
                                 hide_index=True, width="stretch")
            for audit in audits:
                (st.error if audit.flagged else st.caption)("DP audit — " + plain.md(audit.sentence()))

if selected is not None:  # none while every level is provisional and none is picked (no recommendation)
    st.subheader(f"Level {selected}: every metric, with its interval")
    st.caption("Median over the replicates (synthetic sets, game iterations or targets) and its interval: "
               f"{interval_rule()}; n is the number of replicates. With fewer, use the paper protocol before "
               "relying on it.")
    table_rows, per_column = summarise_columns(readable(summary.point(selected)))
    for group in table_rows["group"].unique() if len(table_rows) else []:
        st.markdown(f"**{first_capital(group)}**")
        st.dataframe(table_rows[table_rows["group"] == group].drop(columns="group"), hide_index=True, width="stretch")
    for metric, rows in per_column.groupby("metric", sort=False):
        with st.expander(f"{plain.md(metric)}: each of its {len(rows)} columns"):
            st.dataframe(rows.drop(columns="group"), hide_index=True, width="stretch")


def margins_shown(columns: list[str]) -> list[str]:
    """The columns whose margins are drawn: the sensitive ones and Y first, at most ``FIGURE_COLUMNS`` until the user
    asks for all; beyond that many, a box filters them by name, as the Data page's."""
    first = [c for c in (*config.sensitive, config.response) if c in columns]
    ordered = first + [c for c in columns if c not in first]
    if len(ordered) <= FIGURE_COLUMNS:
        return ordered
    find = st.text_input("Find columns", key="choose_find_column", placeholder="Type to filter…",
                         help="Typing filters the margins below to the columns whose name contains what you type "
                              "(case does not matter); clear the box to see the first columns again.").strip()
    matching = [c for c in ordered if find.lower() in c.lower()] if find else ordered
    every = len(matching) > FIGURE_COLUMNS and st.toggle(f"Show all {len(matching)} columns (a long page)",
                                                         key="choose_every_margin")
    shown = matching if every else matching[:FIGURE_COLUMNS]
    where = f"of the {len(matching)} containing “{plain.md(find)}”" if find else f"of {len(ordered)}"
    more = len(matching) - len(shown)
    st.caption(f"{len(shown)} columns {where}" + ("" if find else ", the sensitive columns and Y first")
               + (f"; and {more} more (type in the box, or show all)." if more else "."))
    return shown


@st.cache_data(show_spinner="Sampling…", max_entries=16)
def synthetic_at(job_id: str, level: int, rows: int) -> pd.DataFrame:
    """One synthetic set per level for the plots; moving α or clicking must not re-sample."""
    return holder(job_id).sample(rows, truncation_level=level, seed=0)


model = holder(view.id)
if model is not None and selected is not None:
    real = tables.table()
    synthetic = synthetic_at(view.id, int(selected), min(len(real), 2000))
    columns = [c for c in model.schema_.modelled if c in real.columns]
    st.subheader(f"Level {selected}: each column, real against synthetic")
    st.plotly_chart(figures.marginal_histograms(real, synthetic, margins_shown(columns)), width="stretch",
                    key="marginals")
    st.plotly_chart(figures.correlation_pair(real[columns], synthetic[columns]), width="stretch",
                    key="correlations")

if selected is not None and model is not None:
    st.subheader(f"Level {selected}: the most exposed training rows")
    st.caption("Training rows of the level's first published set, by a distance-difference membership attack "
               "(closer to the synthetic rows than to any hold-out row = more exposed), with why and the record itself "
               f"(training row = its row in the table). {EXPOSURE_ORDER} Near-copies and unusual records are the ones "
               "an attacker singles out first.")
    exposed = exposure(view.id, int(selected))
    if exposed is not None and len(exposed):
        st.dataframe(exposure_display(exposed), hide_index=True, width="stretch")
