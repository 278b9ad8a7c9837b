"""Sweep: evaluate the truncation levels in the background; the privacy-utility scatter fills live."""

import pandas as pd
import streamlit as st

from pages import common
from tvs_core import figures
from tvs_core.evaluation.runner import default_levels, summarise
from tvs_core.evaluation.utility import utility_scale
from tvs_core.families import DEFAULT_PRESET, PRESETS
from tvs_core.results import job_records
from tvs_core.store import ACTIVE
from tvs_core.sweep import DEFAULT_BASELINES, SweepConfig, submit
from tvs_core.worker import BACKENDS, cancel_job, progress, run_job, start_worker, worker_alive


@st.cache_data(show_spinner=False, max_entries=8)
def results(job_id: str, done: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    records = job_records(common.store(), job_id)
    return records, (summarise(records) if len(records) else pd.DataFrame())


def configured_levels(job_id: str) -> list[int]:
    """The job's levels (not just those with results yet), so every level keeps its colour."""
    plan = common.store().job(job_id)["plan"] or []
    return sorted({int(key.split(":")[1]) for key, kind in plan if kind == "release"})


def scatter_and_panels(job_id: str, config: SweepConfig, polling: bool = False) -> None:
    info = progress(common.store(), job_id)
    if polling and info["status"] not in ACTIVE:
        st.rerun(scope="app")  # finished: redraw once without the timer
    records, summary = results(job_id, info["done"])
    total = max(info["total"], 1)
    eta = "" if info["eta_seconds"] is None else f" — about {info['eta_seconds']:.0f} s left"
    st.progress(info["done"] / total, text=f"{info['status']}: {info['done']} of {info['total']} tasks{eta}")
    if info["error"]:
        st.error(f"The sweep failed: {info['error']}. Finished results are kept; press Resume to try again.")
    if summary.empty or not (summary["model"] == "tvinesynth").any():
        st.info("Waiting for the first results…")
        return
    levels = configured_levels(job_id)
    privacy = st.session_state.get("privacy_metric", "mab_worst")
    figure = figures.privacy_utility_scatter(summary, privacy, config.sensitive, st.session_state.get(common.LEVEL),
                                             levels)
    st.plotly_chart(figure, width="stretch", key="pu_scatter", on_select=lambda: common.select_level_from("pu_scatter"),
                    selection_mode="points")
    st.caption("Click a level's point to select it (kept for the Choose and Export pages).")
    if st.session_state.get("level_drawn") != st.session_state.get(common.LEVEL):
        st.session_state["level_drawn"] = st.session_state.get(common.LEVEL)
        st.rerun(scope="app")  # the sidebar and the highlight follow the new selection
    tabs = st.tabs(["Attribute inference (MAB, WCAB)", "Membership inference (PG)", "Utility (TSTR)",
                    "Kendall-τ matrices"])
    with tabs[0]:
        game = "mab" if (records["metric"] == "mab").any() else "release_mab"
        for column in config.sensitive:
            cols = st.columns(2)
            cols[0].plotly_chart(figures.metric_boxes(records, game, column, f"{common.pretty(game)} — {column}"),
                                 width="stretch", key=f"mab_{column}")
            wcab = "wcab" if game == "mab" else "release_wcab"
            cols[1].plotly_chart(figures.metric_boxes(records, wcab, column, f"{common.pretty(wcab)} — {column}"),
                                 width="stretch", key=f"wcab_{column}")
    with tabs[1]:
        if (records["metric"] == "pg").any():
            st.plotly_chart(figures.metric_boxes(records, "pg", None, "Privacy gain per level (1 = attacker learns "
                                                 "nothing)", reference=1.0, by_target_kind=True), width="stretch",
                            key="pg_boxes")
        else:
            st.info("The membership game has not reported yet.")
    with tabs[2]:
        scale = utility_scale(records["metric"])
        trtr = summary.loc[summary["metric"] == f"{scale}_trtr", "median"]
        st.plotly_chart(figures.metric_boxes(records, f"{scale}_tstr", None, f"{figures.metric_label(scale + '_tstr')}"
                                             " per level",
                                             reference=float(trtr.iloc[0]) if len(trtr) else None),
                        width="stretch", key="tstr_boxes")
    with tabs[3]:
        kendall_panel(job_id, levels)


@st.cache_data(show_spinner="Sampling…", max_entries=32)
def kendall_at(job_id: str, level: int):
    from tvs_core.evaluation.fidelity import kendall_matrix
    from tvs_core.generator import SyntheticGenerator

    model = SyntheticGenerator.from_json(common.store().model_json(job_id, "tvinesynth"))
    real = common.table()
    synthetic = model.sample(min(len(real), 2000), truncation_level=level, seed=0)
    names = model.encoder_.names
    return (kendall_matrix(model.encoder_.transform(real.dropna(subset=names))), kendall_matrix(
        model.encoder_.transform(synthetic.dropna(subset=names))), names)


def kendall_panel(job_id: str, levels: list[int]) -> None:
    if common.store().model_json(job_id, "tvinesynth") is None:
        return
    level = st.select_slider("Truncation level", levels, value=levels[-1], key="kendall_level")
    real, synthetic, names = kendall_at(job_id, level)
    st.plotly_chart(figures.kendall_pair(real, synthetic, names, level), width="stretch", key="kendall_pair")


st.title("Sweep")
table, schema = common.table(), common.schema()
order = st.session_state.get("order_result")
response, sensitive = st.session_state.get(common.RESPONSE), st.session_state.get(common.SENSITIVE) or []
if response is None or not sensitive or order is None:
    st.warning("Choose the response and the sensitive columns on the Sensitive features page first.")
    st.stop()

with st.form("sweep_settings"):
    top = order.t_max
    levels = st.multiselect("Truncation levels", list(range(1, order.full_level + 1)), default=default_levels(top))
    a, b, c = st.columns(3)
    preset = a.selectbox("Protocol", ["quick", "paper"], help="quick: seconds per level; paper: Appendix J sizes")
    families = b.selectbox("Pair-copula families", list(PRESETS), index=list(PRESETS).index(DEFAULT_PRESET),
                           format_func=lambda p: f"{p} — {PRESETS[p].description}")
    margins = c.selectbox("Margins", ["empirical", "kde"])
    baselines = st.multiselect("Baselines (reference points)", list(DEFAULT_BASELINES), default=list(DEFAULT_BASELINES))
    baseline_games = st.checkbox(
        "Baselines play the attack games too", value=False,
        help="Off: baselines get the release attack's MAB and no PG (cheap). On: the same attribute and "
             "membership games as TVineSynth, so every point on the scatter uses one estimator; each baseline "
             "is refitted (targets + 1) times per game iteration and shadow.")
    per_target_shadows = st.checkbox(
        "Membership game: shadow models per target (the paper's way)", value=False,
        help="Off: each shadow's subset and OUT model serve every target (about half the shadow fits; the "
             "attackers' training data has the same distribution). On: a subset and OUT model per target.")
    d, e = st.columns(2)
    seed = d.number_input("Master seed", 0, 2**31 - 1, value=0, step=1)
    backend = e.selectbox("Backend", BACKENDS, help="dask and ray need the optional packages")
    started = st.form_submit_button("Start sweep", type="primary")

config = SweepConfig(response=response, sensitive=sensitive, rho_star=dict(order.rho_star), measure=order.measure,
                     levels=sorted(levels) or None, preset=preset, families=families, margins=margins,
                     missing=st.session_state[common.MISSING], seed=int(seed), holdout_fraction=st.session_state[
                         common.HOLDOUT], baselines=baselines, baseline_games=["aia", "mia"] if baseline_games else [],
                     schema=schema.to_dict(),
                     protocol_overrides={**(st.session_state.get("protocol_overrides") or {}),
                                         **({"mia_shared_shadows": False} if per_target_shadows else {})} or None)
if started:
    job_id = submit(common.store(), table, config)
    st.session_state[common.JOB] = job_id
    job = common.store().job(job_id)
    if job["status"] == "done":
        st.success("This exact sweep was run before: its results come from the store.")
    elif st.session_state.get("inline_worker"):  # tests: run in this process
        run_job(common.store(), job_id, n_jobs=1)
    elif not worker_alive(job):
        start_worker(common.store(), job_id, backend=backend)
        st.rerun()  # redraw the sidebar and start polling

job_id = st.session_state.get(common.JOB)
if job_id is None:
    st.info("Press Start to evaluate the chosen levels.")
    st.stop()
job = common.store().job(job_id)
stop, resume = st.columns(2)
if stop.button("Cancel", disabled=job["status"] not in ACTIVE):
    cancel_job(common.store(), job_id)
    st.rerun()
if resume.button("Resume", disabled=job["status"] in ("done", *ACTIVE)):
    if st.session_state.get("inline_worker"):
        run_job(common.store(), job_id, n_jobs=1)
    else:
        start_worker(common.store(), job_id, backend=backend)
    st.rerun()

stored_config = SweepConfig.from_dict(job["config"])
active = job["status"] in ACTIVE
st.fragment(lambda: scatter_and_panels(job_id, stored_config, active), run_every=2.0 if active else None)()
