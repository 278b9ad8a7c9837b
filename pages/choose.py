"""Choose: weigh privacy against utility (PU_t), pick a level, and inspect it."""

import pandas as pd
import streamlit as st

from pages import common
from tvs_core import figures
from tvs_core.evaluation.runner import summarise
from tvs_core.generator import SyntheticGenerator
from tvs_core.results import choose, job_records
from tvs_core.selection import METHODS
from tvs_core.sweep import SweepConfig


@st.cache_data(show_spinner=False, max_entries=8)
def summary_of(job_id: str, done: int) -> pd.DataFrame:
    records = job_records(common.store(), job_id)
    return summarise(records) if len(records) else pd.DataFrame()


@st.cache_resource(max_entries=4)
def holder(job_id: str) -> SyntheticGenerator | None:
    text = common.store().model_json(job_id, "tvinesynth")
    return None if text is None else SyntheticGenerator.from_json(text)


st.title("Choose a truncation level")
job_id = st.session_state.get(common.JOB)
if job_id is None:
    st.warning("Run a sweep first (page 3).")
    st.stop()
job = common.store().job(job_id)
config = SweepConfig.from_dict(job["config"])
summary = summary_of(job_id, job["done"])
if summary.empty:
    st.info("No results yet.")
    st.stop()

a, b, c = st.columns(3)
alpha = a.slider("Weight on privacy α", 0.0, 1.0, 0.5, 0.05, key="alpha",
                 help="PU_t = α·P_t + (1 − α)·U_t (paper, Appendix D)")
method = b.radio("Normalisation", METHODS, horizontal=True, key="normalisation",
                 format_func=lambda m: {"anchored": "Anchored (vs real data)", "minmax": "Min-max over levels"}[m])
privacy_options = ["mab_worst", *[f"mab:{s}" for s in config.sensitive], "pg", "mcmia"]
privacy = c.selectbox("Privacy measured by", privacy_options, key="privacy_metric",
                      format_func=lambda p: {"mab_worst": "MAB, worst sensitive column", "pg": "Privacy gain (MIA)",
                                             "mcmia": "MC membership score"}.get(p, p.replace("mab:", "MAB of ")))
selection = choose(summary, config, alpha, method, privacy)
if selection is None:
    st.info("Not enough results to score the levels yet.")
    st.stop()
if st.session_state.get(common.LEVEL) is None and selection.best_level is not None:
    st.session_state[common.LEVEL] = selection.best_level
levels = selection.table["level"].tolist()
selected = st.session_state.get(common.LEVEL)

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
    st.session_state[common.LEVEL] = int(chosen)
    st.rerun()

st.subheader(f"Level {selected}: metrics with 95 % intervals")
rows = summary[(summary["model"] == "tvinesynth") & (summary["level"] == selected)].copy()
rows["metric"] = rows["metric"].map(common.pretty)
st.dataframe(rows[["metric", "attribute", "target_kind", "role", "median", "ci_low", "ci_high", "n"]],
             hide_index=True, width="stretch")

@st.cache_data(show_spinner="Sampling…", max_entries=16)
def synthetic_at(job_id: str, level: int, rows: int) -> pd.DataFrame:
    """One synthetic set per level for the plots; moving α or clicking must not re-sample."""
    return holder(job_id).sample(rows, truncation_level=level, seed=0)


model = holder(job_id)
if model is not None and selected is not None:
    real = common.table()
    synthetic = synthetic_at(job_id, int(selected), min(len(real), 2000))
    columns = [c for c in model.schema_.modelled if c in real.columns]
    st.plotly_chart(figures.marginal_histograms(real, synthetic, columns), width="stretch", key="marginals")
    st.plotly_chart(figures.correlation_pair(real[columns], synthetic[columns]), width="stretch",
                    key="correlations")
