"""Export: the release for the selected level, checked by guardrails, with its manifest."""

import streamlit as st

from pages import common
from tvs_core.choice import choice_json, choose
from tvs_core.evaluation.records import HOLDER
from tvs_core.release import blocked, guardrails, manifest, manifest_bytes, release_table, to_csv_bytes

st.title("5 · Export")
project = common.project()
view, level = common.job(), project.selected_level
if view is None or level is None:
    st.warning("Run a sweep and select a level first (pages 3 and 4).")
    st.stop()
model = view.holder()
job = view.job
train, _ = view.tables()  # the data the sweep ran on, kept in the workspace

st.markdown(f"Release of **level {level}** from sweep `{view.id}`.")
if job["status"] != "done":
    st.warning(f"The sweep is {job['status']} ({job['done']} of {job['total']} tasks): the attack games may not "
               "have reported for this level yet, so its privacy numbers are provisional.")
st.caption(f"By default the release has as many rows as the training split the sweep used: {len(train)} of the "
           f"table's {project.rows} (the rest was held out to test the models).")
a, b = st.columns(2)
rows = a.number_input("Rows", 1, 1_000_000, value=int(project.release_rows or len(train)), step=100,
                      key=f"{common.WIDGET}release_rows.{len(train)}",
                      on_change=lambda: common.update(release_rows=int(st.session_state[
                          f"{common.WIDGET}release_rows.{len(train)}"])),
                      help=f"Default: as many rows as the training split the sweep used ({len(train)} of "
                           f"{project.rows}; the rest was held out for testing).")
seed = b.number_input("Release seed", 0, 2**31 - 1, value=int(project.release_seed if project.release_seed is not None
                                                              else view.config.seed), step=1,
                      key=f"{common.WIDGET}release_seed",
                      on_change=lambda: common.update(release_seed=int(st.session_state[
                          f"{common.WIDGET}release_seed"])))
if st.button("Generate release", type="primary"):
    synthetic = release_table(model, int(level), int(rows), int(seed))
    summary = view.summary()
    at_level = summary[(summary["model"] == HOLDER) & (summary["level"] == level)] if len(summary) else None
    st.session_state[common.RELEASE] = {"level": level, "rows": int(rows), "seed": int(seed), "table": synthetic,
                                        "checks": guardrails(synthetic, train, model, at_level, view.caps),
                                        "metrics": [] if at_level is None else at_level.to_dict("records")}

release = st.session_state.get(common.RELEASE)
if release is None or release["level"] != level:
    st.stop()
st.dataframe(release["table"].head(20), width="stretch")
st.subheader("Guardrails")
for check in release["checks"]:
    {"block": st.error, "warn": st.warning}.get(check.severity, st.success)(check.message)
reason = None
if blocked(release["checks"]):
    override = st.checkbox("Release anyway (the reason is written into the manifest)")
    reason = st.text_input("Reason for overriding", disabled=not override)
    if not (override and reason and reason.strip()):
        st.info("Download is blocked until the problem is fixed or overridden with a reason.")
        st.stop()
data = to_csv_bytes(release["table"])
summary = view.summary()
selection = choose(summary, view.config.sensitive, project.alpha, project.normalisation, project.privacy,
                   utility=project.utility)
choice = choice_json(selection, int(level), project.alpha, project.normalisation, project.privacy, project.utility,
                     summary["metric"])
info = manifest(model, data, int(level), release["rows"], release["seed"], view.fingerprint,
                metrics=release["metrics"], checks=release["checks"], override_reason=reason, job_id=view.id,
                sweep=view.config.to_dict(), choice=choice)
st.session_state[common.MANIFEST] = info
c1, c2 = st.columns(2)
c1.download_button("Download synthetic CSV", data, file_name=f"synthetic_level{level}.csv", mime="text/csv")
c2.download_button("Download manifest (JSON)", manifest_bytes(info), file_name=f"synthetic_level{level}.manifest.json",
                   mime="application/json")
st.caption(f"SHA-256 of the CSV: `{info['file']['sha256']}`")
