"""Export: the release for the selected level, checked by guardrails and against the earlier releases of the
table (pooled), with its manifest and report, recorded in the workspace's release ledger."""

import streamlit as st

from pages import common
from tvs_core.choice import choice_json, choose
from tvs_core.evaluation.records import HOLDER
from tvs_core.jobs import JobView, Store
from tvs_core.release import blocked, guardrails, manifest, manifest_bytes, release_table, to_csv_bytes
from tvs_core.release.export import MIN_RELEASE_ROWS
from tvs_core.release.ledger import budget, ledger_frame, record_release, releases
from tvs_core.release.pooled import display_table, pooled_check, sha256_of, verdict
from tvs_core.report import ReleaseFacts, build_report

common.under_navigation()

NOTE = f"{common.WIDGET}release_note"  # the user's note: kept in the ledger, shown in the report

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
rows = a.number_input("Rows", MIN_RELEASE_ROWS, 1_000_000,
                      value=max(int(project.release_rows or len(train)), MIN_RELEASE_ROWS), step=100,
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
sha256 = sha256_of(data)
fingerprint = view.table_fingerprint  # the ledger's key: the table's, not the sweep's data + hold-out
earlier = releases(common.store(), fingerprint)
st.subheader("Earlier releases of this table")
if earlier:
    st.dataframe(ledger_frame(earlier).drop(columns=["table", "fingerprint"]), hide_index=True, width="stretch")
    st.caption(f"Privacy budget: {budget(earlier).text}.")
    key = (sha256, tuple(e.id for e in earlier))
    if release.get("pooled_key") != key:
        with st.spinner("Attacking the earlier releases and this one together…"):
            release["pooled"] = pooled_check(model, view.evaluation_data(model), train, release["table"], sha256,
                                             [(e, e.table(common.store())) for e in earlier], view.config.sensitive,
                                             int(level), view.config.seed, view.summary())
        release["pooled_key"] = key
    pooled = release["pooled"]
    st.markdown(f"**Pooled-release check** — an attacker holding the {pooled.earlier} earlier release(s) and this one "
                f"({pooled.rows} rows): the pool's risk next to this release's alone and the sweep's interval for a "
                "single release (better: the direction that is more private).")
    st.dataframe(display_table(pooled.risks), hide_index=True, width="stretch")
    (st.warning if pooled.raised else st.success)(verdict(pooled))
    for warning in pooled.warnings:
        st.warning(warning)
    for note in pooled.notes:
        st.caption(note)
    st.caption(f"With this release: {pooled.budget.text}.")
else:
    release["pooled"] = None
    st.caption("None yet: this will be the table's first release.")
st.text_input("Note for the ledger (why this release, for whom — shown in the report)", key=NOTE)
summary = view.summary()
selection = choose(summary, view.config.sensitive, project.alpha, project.normalisation, project.privacy,
                   utility=project.utility)
choice = choice_json(selection, int(level), project.alpha, project.normalisation, project.privacy, project.utility,
                     summary["metric"])
info = manifest(model, data, int(level), release["rows"], release["seed"], view.fingerprint,
                metrics=release["metrics"], checks=release["checks"], override_reason=reason, job_id=view.id,
                sweep=view.config.to_dict(), choice=choice)
st.session_state[common.MANIFEST] = info


def record() -> None:
    """The download is a release: into the ledger, with a copy of its rows in the workspace."""
    entry = record_release(common.store(), fingerprint, release["table"], data, sha256, model, int(level),
                           release["seed"], note=st.session_state.get(NOTE), job_id=view.id, table_name=project.name)
    st.session_state[common.RECORDED] = (sha256, entry.id)


workspace, facts = common.store().workspace, ReleaseFacts(
    release["rows"], release["seed"], sha256, f"synthetic_level{level}.csv", release["table"], release["checks"],
    reason, release.get("pooled"))
settings = (project.alpha, project.normalisation, project.privacy, project.utility)
note = st.session_state.get(NOTE)  # read here: the report is built on another thread, without the session


def report() -> bytes:
    """Built when the button is pressed, on Streamlit's download thread: its own store connection."""
    return build_report(JobView(Store(workspace), view.id), int(level), *settings, reason=note,
                        release=facts, table_name=project.name).encode("utf-8")


c1, c2, c3 = st.columns(3)
c1.download_button("Download synthetic CSV", data, file_name=f"synthetic_level{level}.csv", mime="text/csv",
                   on_click=record)
c2.download_button("Download manifest (JSON)", manifest_bytes(info), file_name=f"synthetic_level{level}.manifest.json",
                   mime="application/json")
c3.download_button("Download report (HTML)", report, file_name=f"report_level{level}.html", mime="text/html",
                   help="One self-contained page for the privacy officer: open it in a browser, print it to PDF.")
st.caption(f"SHA-256 of the CSV: `{info['file']['sha256']}`")
recorded = st.session_state.get(common.RECORDED)
if recorded and recorded[0] == sha256:
    st.success(f"Recorded in the release ledger as release {recorded[1]}; the earlier releases above now include it "
               "on the next export.")
