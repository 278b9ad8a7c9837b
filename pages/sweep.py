"""Sweep: evaluate the truncation levels in the background; the privacy-utility scatter fills live."""

from pathlib import Path

import pandas as pd
import streamlit as st

from pages import common, plain
from pages.shared import library, scatter, tables, widgets
from tvs_core import DataError, figures
from tvs_core.choice import Axis
from tvs_core.choice.axes import attribute_game_metrics, membership_metrics
from tvs_core.data.io import read_table
from tvs_core.data.margins import MARGINS
from tvs_core.evaluation.metrics.fidelity import kendall_real_and_synthetic
from tvs_core.evaluation.preview import preview_levels, suggested_levels
from tvs_core.evaluation.protocol import PROTOCOLS
from tvs_core.evaluation.summary import Summary, summarise
from tvs_core.jobs import COMPETITORS, DEFAULT_BASELINES, JobView
from tvs_core.jobs.backends import OWNER_ONLY, Backend
from tvs_core.jobs.config import OTHER_COMPETITORS, SETTINGS, declaration, setting_differences
from tvs_core.jobs.plan import claimed_epsilons, planned_tasks
from tvs_core.jobs.process import cancel_job
from tvs_core.jobs.progress import audit_seconds, before_start, duration_text, fit_seconds_by_baseline
from tvs_core.jobs.submission import (
    Next,
    background_worker,
    data_fingerprint,
    resume_sweep,
    run_sweep,
    settings_refused,
)
from tvs_core.model.families import FAMILY_SETS
from tvs_core.model.ordering import default_levels
from tvs_core.seeding import MAX_SEED
from tvs_core.storage import JobStatus

common.under_navigation()


@st.cache_data(show_spinner=False, max_entries=8)
def results(job_id: str, done: str) -> tuple[pd.DataFrame, Summary, Summary]:
    """The records drawn (a level's first look stands in until its own release task reports), their summary, and
    the summary of the sweep's own numbers, which the choice is made from (as on the Choose page)."""
    view = JobView(common.store(), job_id)
    records = view.records(first_look=True)
    return records, summarise(records), view.summary()


def scatter_and_panels(job_id: str, polling: bool = False) -> None:
    view = JobView(common.store(), job_id)
    info = view.progress()
    if polling and not view.active:
        st.rerun(scope="app")  # finished: redraw once without the timer
    records, summary, own = results(job_id, f"{info['phase']}:{info['done']}")
    st.progress(info["fraction"], text=info["text"])
    if info["error"]:
        st.error(f"The sweep failed: {plain.md(info['error'])}")
    for note in view.notes()[-1:]:
        st.info(plain.md(note))
    if not summary.has_levels():
        st.info("Waiting for the first results…")
        return
    config, levels = view.config, view.levels
    project = common.project()
    selection = project.choice.select(own, config.sensitive, view.complete_levels())
    figure = scatter.level_scatter(view, summary, selection, project.selected_level)
    st.plotly_chart(figure, width="stretch", key="pu_scatter",
                    on_select=lambda: scatter.select_level_from("pu_scatter"), selection_mode="points")
    st.caption("Click a level's point to select it (kept for the Choose and Export pages).")
    if st.session_state.get(common.LEVEL_DRAWN) != common.project().selected_level:
        st.session_state[common.LEVEL_DRAWN] = common.project().selected_level
        st.rerun(scope="app")  # the sidebar and the highlight follow the new selection
    tabs = st.tabs(["Attribute inference (MAB, WCAB)", "Membership inference (PG)", "Utility (TSTR)",
                    "Kendall-τ matrices"])
    with tabs[0]:  # the game's attribute-risk axes (MAB, WCAB), from the release attack until the game reports
        shown = attribute_game_metrics(summary.holder())
        for column in config.sensitive:
            for where, metric in zip(st.columns(len(shown)), shown, strict=True):
                where.plotly_chart(figures.metric_boxes(records, metric.name, column, f"{metric.short} — {column}"),
                                   width="stretch", key=f"{metric.name}_{column}")
    with tabs[1]:  # the membership game's axes (PG)
        games = membership_metrics(records["metric"].unique(), games_only=True)
        for metric in games:
            st.plotly_chart(figures.metric_boxes(records, metric.name, None, f"{metric.label} per level",
                                                 reference=metric.ideal, by_target_kind=True), width="stretch",
                            key=f"{metric.name}_boxes")
        if not games:
            st.info("The membership game has not reported yet.")
    with tabs[2]:
        utility = Axis.utility(records["metric"])
        trtr = summary.metric(utility.metric.ideal.metric).interval()
        st.plotly_chart(figures.metric_boxes(records, utility.metric.name, None, f"{utility.metric.label} per level",
                                             reference=None if trtr is None else trtr.value),
                        width="stretch", key="tstr_boxes")
    with tabs[3]:
        kendall_panel(job_id, levels)


@st.cache_data(show_spinner="Sampling…", max_entries=32)
def kendall_at(job_id: str, level: int):
    return kendall_real_and_synthetic(JobView(common.store(), job_id).holder(), tables.table(), level)


def kendall_panel(job_id: str, levels: list[int]) -> None:
    if JobView(common.store(), job_id).holder() is None:
        return
    level = st.select_slider("Truncation level", levels, value=levels[-1], key="kendall_level")
    real, synthetic, names = kendall_at(job_id, level)
    st.plotly_chart(figures.kendall_pair(real, synthetic, names, level), width="stretch", key="kendall_pair")


def setting(name: str, widget, label: str | None = None, **kwargs):
    """A setting bound to the project: restored from it, saved to it on change. A sweep setting or switch
    (``sweep.NAME``) is labelled and explained as its one declaration says (``jobs.config.declaration``: the command
    line's flag and the manifest use the same); ``label`` and ``help`` given: the page's own words."""
    declared = declaration(name.removeprefix("sweep.")) if name.startswith("sweep.") else None
    if declared is not None:
        label = label or declared.label
        kwargs.setdefault("help", declared.sentence)
    return widget(label, key=widgets.bound(name), on_change=widgets.keep, args=(name,), **kwargs)


st.title("3 · Sweep")
table, project = tables.table(), common.project()
try:
    order = library.order()
except DataError as exc:
    order = None
    st.error(f"The chosen roles cannot be ordered: {plain.md(exc)}")
if order is None:
    st.warning("Choose the response and the sensitive columns on the Sensitive features page first.")
    st.stop()

view = common.job()
running = view is not None and view.active
full = list(range(1, order.full_level + 1))
suggested = suggested_levels(preview_levels(library.associations()[1], order), order.t_max)
if project.sweep.levels is None:  # empty stays empty; a level these columns cannot have is refused below, not dropped
    common.update_sweep(levels=suggested)
default_rule = (f"1, every 5th and the recommended top level t_max = {order.t_max}" if suggested == default_levels(
    order.t_max) else f"{len(suggested)} levels placed where the instant preview on the Sensitive features page "
    f"changes (dense where the expected risk or the associations kept change, sparse where they are flat), up to "
    f"{max(suggested)}, above which the preview sees no change: {', '.join(map(str, suggested))}")
setting("sweep.levels", st.multiselect, options=sorted({*full, *project.sweep.levels}),
        help=f"Default: {default_rule}. Every level is a full evaluation.")
st.caption(f"To add a level, type its number in the box and pick it (any level from 1 to {order.full_level}); to "
           "remove one, click its ×. Each level you add is one more full evaluation.")
a, b, c = st.columns(3)
with a:
    setting("sweep.preset", st.selectbox, options=widgets.texts(PROTOCOLS))
with b:
    setting("sweep.families", st.selectbox, options=widgets.texts(FAMILY_SETS),
            format_func=lambda p: f"{p} — {FAMILY_SETS[p].description}")
with c:
    setting("sweep.margins", st.selectbox, options=widgets.texts(MARGINS))
setting("sweep.baselines", st.multiselect,
        options=list(dict.fromkeys([*DEFAULT_BASELINES, *COMPETITORS, *OTHER_COMPETITORS, "ctgan:quick",
                                    "tvae:quick"])),
        format_func=figures.model_label)
uploads = st.file_uploader("Your own synthetic data (optional): each file is scored like a release and drawn as "
                           "its own point", type=["csv", "parquet", "xlsx"], accept_multiple_files=True,
                           help="Same columns, types and labels as the training table. The attack games need a "
                                "generator to refit, so an uploaded set does not play them (not played).")
for switch in ("baselines_play_games", "reuse_families", "per_target_shadows", "audits_dp"):
    setting(f"sweep.{switch}", st.checkbox)
covariates = [c for c in common.schema().modelled if c != project.sweep.response]
covariates += [c for c in project.sweep.analysis if c not in covariates]  # shown, and refused below: never dropped
setting("sweep.analysis", st.multiselect, options=covariates, placeholder="All covariates — type to find one…",
        help=SETTINGS["analysis"].sentence + " Type part of a column's name to filter the list.")
d, e = st.columns(2)
with d:
    seed_value = widgets.whole_number_field(SETTINGS["seed"].label, "sweep.seed", 0, MAX_SEED, "the master seed",
                                           help=SETTINGS["seed"].sentence)
with e:
    if project.backend not in OWNER_ONLY:  # a project saved when Ray was offered: never started from here
        common.update(backend=Backend.LOKY)
    setting("backend", st.selectbox, "Backend", options=list(OWNER_ONLY),
            help="Where the sweep runs on this computer; the numbers do not depend on it. loky: processes of your "
                 "account. dask: a Dask cluster that only your account can use (it needs the optional packages). "
                 "Ray is not offered: other users of a shared server could reach its cluster.")

config = project.sweep_config(rho_star=dict(order.rho_star))
levels = sorted(project.sweep.levels or [])
holdout = tables.holdout_table()
n_train = len(table) if holdout is not None else int(round(len(table) * (1 - project.sweep.holdout_fraction)))
n_columns = len(common.schema().modelled)  # about the encoded columns (missingness indicators aside)
shown = common.job()
differences = [] if shown is None else setting_differences(shown.config, config, ("externals",))
if shown is not None and shown.fingerprint != data_fingerprint(project.fingerprint, project.holdout):
    differences.append("the data: the table or the hold-out file is not the sweep's")
same_as_shown = shown is not None and not differences
blocking = library.problems()
# the settings Start would refuse (the same checks as the command line's, jobs/submission.check_sweep)
refused = settings_refused(config, list(library.associations()[1].columns))
why_not = ("The sweep above is running: wait for it to finish, or cancel it first." if running else
           "Choose at least one truncation level above." if not levels else
           "The master seed above is refused: give a whole number." if seed_value is None else
           f"The table cannot be modelled yet: {blocking[0]} (the Data page lists every problem by column)."
           if blocking else f"This sweep cannot start: {refused[0]}" if refused else None)
if why_not is None and not same_as_shown:  # what Start would run: its estimate (the shown sweep has its own line)
    planned = planned_tasks(config, levels)
    st.caption(plain.md(before_start(common.store(), planned, n_train, n_columns, workers=2, config=config).sentence))
    if config.dp_audit_trials:
        claims = claimed_epsilons(config)
        st.caption(f"Of which the DP audit of {', '.join(figures.model_label(name) for name in claims)}: about "
                   f"{duration_text(audit_seconds(common.store(), config, n_train, n_columns, workers=2))}."
                   if claims else "DP audit: none of the chosen references claims an ε, so there is nothing to "
                                  "audit (add a DP vine, PrivBayes, MST or PrivPGD reference).")
    costs = fit_seconds_by_baseline(config, n_train, n_columns)
    if costs:
        st.caption("Expected time per fit of each competitor (measured on a 2-core machine, scaled by rows, columns "
                   "and epochs; included in the duration above; each plays the attack games only if asked, which "
                   "refits it many times): " + ", ".join(f"{figures.model_label(name)} ≈ {duration_text(c)}"
                                                        for name, c in costs.items()) + ".")
externals = {}
for upload in uploads or []:
    try:
        externals[Path(upload.name).stem] = read_table(upload.getvalue(), upload.name)
    except DataError as exc:
        st.error(f"{plain.md(upload.name)}: {plain.md(exc)}")
if why_not is not None and not running:
    (st.warning if refused else st.info)(plain.md(why_not))


def start() -> None:
    """Start (or open) the sweep of the settings on screen."""
    try:
        origin = {"file": project.holdout_name, "sha256": project.holdout_sha256} if holdout is not None else None
        started, _ = run_sweep(common.store(), table, config, background_worker(project.backend), holdout=holdout,
                               externals=externals, holdout_origin=origin)
    except DataError as exc:
        st.error(plain.md(exc))
        st.stop()
    job_id = started.job_id
    common.update(job_id=job_id, jobs=[*[j for j in project.jobs if j != job_id], job_id], selected_level=None)
    if started.next == Next.NOTHING:
        st.success("This exact sweep was run before: its results come from the store.")
    st.rerun()  # redraw the sidebar (and start polling)


if st.button("Start sweep", type="primary", disabled=why_not is not None, help=why_not):
    start()
view = common.job()
if view is None:
    st.info("Press Start to evaluate the chosen levels.")
    st.stop()
if differences:
    with st.container(border=True):
        st.warning("Your settings now differ from this sweep's (it is shown below, with the settings it ran with):\n"
                   + "".join(f"\n- {plain.md(d)}" for d in differences))
        new, back = st.columns(2)
        if new.button("Start a new sweep", disabled=why_not is not None, help=why_not, key="start_new"):
            start()
        if back.button("Go back to the sweep's settings"):
            project.adopt(view.config)
            common.update()
            st.rerun()
elif view.job.status == JobStatus.DONE and view.job.started and view.job.finished:
    took = duration_text(view.job.finished - view.job.started)
    st.caption(f"This sweep ran {view.job.total} tasks in {took} (the last run, if it was resumed).")
stop, resume = st.columns(2)
stopping = view.active and bool(view.job.cancel)
if stop.button("Cancel", disabled=not view.active or stopping,
               help="Stopping: the tasks under way are being ended; finished ones are kept." if stopping else None):
    cancel_job(common.store(), view.id, wait=False)  # at once: the progress line says it is stopping
    st.rerun()
if resume.button("Resume", disabled=view.active or view.job.status == JobStatus.DONE):
    try:
        resume_sweep(common.store(), view.id, background_worker(project.backend))
        st.rerun()
    except DataError as exc:  # finished or taken up elsewhere since the page was drawn
        st.error(plain.md(exc))

active = view.active
st.fragment(lambda: scatter_and_panels(view.id, active), run_every=2.0 if active else None)()
