"""Choose: weigh privacy against utility (PU_t), pick a level, and inspect it."""

import pandas as pd
import streamlit as st

from pages import common
from tvs_core import figures
from tvs_core.choice import METHODS, Axis, axis_choices, choose
from tvs_core.evaluation.records import HOLDER
from tvs_core.evaluation.summary import readable
from tvs_core.jobs import JobView
from tvs_core.model.generator import SyntheticGenerator


@st.cache_data(show_spinner=False, max_entries=8)
def summary_of(job_id: str, done: int) -> pd.DataFrame:
    return JobView(common.store(), job_id).summary()


@st.cache_resource(max_entries=4)
def holder(job_id: str) -> SyntheticGenerator | None:
    return JobView(common.store(), job_id).holder()


st.title("4 · Choose a truncation level")
view = common.job()
if view is None:
    st.warning("Run a sweep first (page 3).")
    st.stop()
config = view.config
summary = summary_of(view.id, view.job["done"])
if summary.empty:
    st.info("No results yet.")
    st.stop()

project = common.project()
choices = axis_choices("privacy", config.sensitive)
if project.privacy not in choices:
    common.update(privacy=choices[0])
a, b, c = st.columns(3)
alpha = a.slider("Weight on privacy α", 0.0, 1.0, step=0.05, key=common.bound("alpha"), on_change=common.keep,
                 args=("alpha",), help="PU_t = α·P_t + (1 − α)·U_t (paper, Appendix D)")
method = b.radio("Normalisation", METHODS, horizontal=True, key=common.bound("normalisation"), on_change=common.keep,
                 args=("normalisation",),
                 format_func=lambda m: {"anchored": "Anchored (vs real data)", "minmax": "Min-max over levels"}[m])
privacy = c.selectbox("Privacy measured by", choices, key=common.bound("privacy"), on_change=common.keep,
                      args=("privacy",), format_func=lambda p: Axis.parse(p, sensitive=config.sensitive).title)
selection = choose(summary, config.sensitive, alpha, method, privacy)
if selection is None or selection.best_level is None:
    info = view.progress()
    st.info(f"Waiting for results: no level has both a privacy and a utility value yet ({info['done']} of "
            f"{info['total']} tasks of the sweep done, {info['status']}). This page fills in as they arrive.")
    st.stop()
if project.selected_level is None and selection.best_level is not None:
    common.update(selected_level=selection.best_level)
    st.rerun()  # the sidebar says which level is selected
levels = selection.table["level"].tolist()
selected = project.selected_level

# full width, one above the other: side by side, the axis titles and the notes under them were cut off
st.plotly_chart(figures.pu_curve(selection.table, selection.best_level, selected), width="stretch", key="pu_curve")
if selection.best_level is not None:
    wins = float(selection.table.set_index("level").loc[selection.best_level, "wins"])
    st.markdown(f"**Best level: {selection.best_level}** — best in {wins:.0%} of resamples within the intervals"
                + (" (a fragile choice: look at the neighbours)" if wins < 0.6 else "."))
st.caption("Click a level's point in the scatter (or pick it below) to select it.")
st.plotly_chart(figures.privacy_utility_scatter(summary, privacy, config.sensitive, selected, levels),
                width="stretch", key="choose_scatter", on_select=lambda: common.select_level_from("choose_scatter"),
                selection_mode="points")
chosen = st.selectbox("Selected level", levels, index=levels.index(selected) if selected in levels else 0)
if chosen != selected:
    common.update(selected_level=int(chosen))
    st.rerun()

st.subheader(f"Level {selected}: every metric, with its interval")
st.caption("Median over the replicates (synthetic sets, game iterations or targets) and a 95 % percentile bootstrap "
           "interval of that median; n is the number of replicates. With fewer than 5 the interval is only the spread "
           "of a few values — use the paper protocol before relying on it.")
table_rows = readable(summary[(summary["model"] == HOLDER) & (summary["level"] == selected)])
for group in table_rows["group"].unique() if len(table_rows) else []:
    st.markdown(f"**{group.capitalize()}**")
    st.dataframe(table_rows[table_rows["group"] == group].drop(columns="group"), hide_index=True, width="stretch")


@st.cache_data(show_spinner="Sampling…", max_entries=16)
def synthetic_at(job_id: str, level: int, rows: int) -> pd.DataFrame:
    """One synthetic set per level for the plots; moving α or clicking must not re-sample."""
    return holder(job_id).sample(rows, truncation_level=level, seed=0)


model = holder(view.id)
if model is not None and selected is not None:
    real = common.table()
    synthetic = synthetic_at(view.id, int(selected), min(len(real), 2000))
    columns = [c for c in model.schema_.modelled if c in real.columns]
    st.plotly_chart(figures.marginal_histograms(real, synthetic, columns), width="stretch", key="marginals")
    st.plotly_chart(figures.correlation_pair(real[columns], synthetic[columns]), width="stretch",
                    key="correlations")
