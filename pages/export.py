"""Export: the release of the selected level (``tvs_core.release.Release``: rows, guardrails, the pooled check
against the table's earlier releases, the manifest), its report, and its record in the release ledger when the
file is downloaded."""

import streamlit as st

from pages import common
from tvs_core.choice import ChoiceSettings
from tvs_core.errors import DataError
from tvs_core.release.export import MIN_RELEASE_ROWS
from tvs_core.release.ledger import budget, ledger_frame, releases
from tvs_core.release.pooled import display_table, verdict
from tvs_core.release.release import Release, manifest_path_for
from tvs_core.report import build_report

common.under_navigation()

NOTE = f"{common.WIDGET}release_note"  # the user's note: kept in the ledger, shown in the report
REPORT = "release_report"  # (the release's key, the report's bytes): built once per release, override and note

st.title("5 · Export")
project = common.project()
view, level = common.job(), project.selected_level
if view is None or level is None:
    st.warning("Run a sweep and select a level first (pages 3 and 4).")
    st.stop()
if view.holder() is None:
    st.info("The sweep has not fitted its model yet: come back in a moment.")
    st.stop()
job = view.job
train, _ = view.tables()  # the data the sweep ran on, kept in the workspace

st.markdown(f"Release of **level {level}** from sweep `{view.id}`.")
if job["status"] != "done":
    st.warning(f"The sweep is {job['status']} ({job['done']} of {job['total']} tasks): the attack games may not "
               "have reported for this level yet, so its privacy numbers are provisional.")
a, b = st.columns(2)
rows_key = f"{common.WIDGET}release_rows.{len(train)}"
rows = a.number_input("Rows", MIN_RELEASE_ROWS, 1_000_000,
                      value=max(int(project.release_rows or len(train)), MIN_RELEASE_ROWS), step=100, key=rows_key,
                      on_change=lambda: common.update(release_rows=int(st.session_state[rows_key])),
                      help=f"Default: as many rows as the training split the sweep used ({len(train)} of "
                           f"{project.rows}; the rest was held out for testing). At least {MIN_RELEASE_ROWS}.")
seed = b.number_input("Release seed", 0, 2**31 - 1, value=int(project.release_seed if project.release_seed is not None
                                                              else view.config.seed), step=1,
                      key=f"{common.WIDGET}release_seed",
                      on_change=lambda: common.update(release_seed=int(st.session_state[
                          f"{common.WIDGET}release_seed"])))
if st.button("Generate release", type="primary"):
    try:
        with st.spinner("Drawing the rows, checking them, attacking them together with the earlier releases…"):
            made = Release.from_sweep(view, int(level), int(rows), int(seed), ChoiceSettings.of(project),
                                      table_name=project.name, store=common.store())
    except DataError as exc:
        st.error(common.md(exc))
        st.stop()
    st.session_state[common.RELEASE] = made
    st.session_state.pop(REPORT, None)

release = st.session_state.get(common.RELEASE)
if release is None or release.view is None or release.view.id != view.id or release.level != level:
    st.caption("Press Generate to draw the release; nothing leaves this computer until you download it.")
    st.stop()
st.dataframe(release.table.head(20), width="stretch")
st.subheader("Guardrails")
for check in release.checks:
    {"block": st.error, "warn": st.warning}.get(check.severity, st.success)(common.md(check.message))
if release.blocked:
    override = st.checkbox("Release anyway (the reason is written into the manifest)")
    reason = st.text_input("Reason for overriding", disabled=not override)
    if not (override and reason and reason.strip()):
        st.info("Download is blocked until the problem is fixed or overridden with a reason.")
        st.stop()
    release = release.overridden(reason)

st.subheader("Earlier releases of this table")
earlier = releases(common.store(), release.table_fingerprint)
if earlier:
    st.dataframe(ledger_frame(earlier).drop(columns=["fingerprint"]), hide_index=True, width="stretch")
    st.caption(f"Privacy budget: {budget(earlier).text}.")
else:
    st.caption("None yet: this will be the table's first release.")
pooled = release.pooled
if pooled is not None:
    st.markdown(f"**Pooled-release check** (when the release was generated) — an attacker holding the "
                f"{pooled.earlier} earlier release(s) and this one ({pooled.rows} rows): the pool's risk next to this "
                "release's alone and the sweep's interval for a single release.")
    st.dataframe(display_table(pooled.risks), hide_index=True, width="stretch")
    (st.warning if pooled.raised else st.success)(common.md(verdict(pooled)))
    for warning in pooled.warnings:
        st.warning(common.md(warning))
    for note in pooled.notes:
        st.caption(common.md(note))
    st.caption(f"With this release: {pooled.budget.text}.")

st.text_input("Note for the ledger (why this release, for whom — shown in the report)", key=NOTE)
note = st.session_state.get(NOTE) or None


def record() -> None:
    """The download is a release: into the ledger, with a copy of its rows; the note belongs to this one."""
    entry = release.record(common.store(), note=note)
    st.session_state[common.RECORDED] = (release.sha256, entry.id)
    st.session_state[NOTE] = ""


key = (release.sha256, release.override_reason, note)
if st.session_state.get(REPORT, (None,))[0] != key:
    with st.spinner("Writing the report…"):
        st.session_state[REPORT] = (key, build_report(release, reason=note).encode("utf-8"))
c1, c2, c3 = st.columns(3)
c1.download_button("Download synthetic CSV", release.csv, file_name=release.file_name, mime="text/csv",
                   on_click=record)
c2.download_button("Download manifest (JSON)", release.manifest_bytes(),
                   file_name=manifest_path_for(release.file_name).name, mime="application/json", on_click="ignore")
c3.download_button("Download report (HTML)", st.session_state[REPORT][1], file_name=f"report_level{level}.html",
                   mime="text/html", on_click="ignore",
                   help="One self-contained page for the privacy officer: open it in a browser, print it to PDF.")
st.caption(f"SHA-256 of the CSV: `{release.sha256}`")
recorded = st.session_state.get(common.RECORDED)
if recorded and recorded[0] == release.sha256:
    st.success(f"Recorded in the release ledger as release {recorded[1]}; the earlier releases above include it, and "
               "the next export is checked against it.")
