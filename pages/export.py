"""Export: the release of the selected level (``tvs_core.release.Release``: rows, guardrails, the pooled check
against the table's earlier releases, the manifest), its report, and its record in the release ledger when the
file is downloaded. A level whose verdicts warn is released only once the user has read them here and confirmed,
with a reason (kept in the manifest and the ledger, as an override is)."""

import streamlit as st

from pages import common, plain
from pages.shared import library, notices, widgets
from tvs_core.choice.explain import officer_words
from tvs_core.errors import DataError
from tvs_core.jobs import JobView
from tvs_core.release.export import MAX_RELEASE_ROWS, MIN_RELEASE_ROWS
from tvs_core.release.ledger import budget, ledger_frame, release_number, releases
from tvs_core.release.pooled import display_table, verdict
from tvs_core.release.release import Release, manifest_path_for
from tvs_core.report import build_report
from tvs_core.seeding import MAX_SEED
from tvs_core.storage import JobStatus

common.under_navigation()

REPORT = "release_report"  # (the recorded release's key, the report's bytes): built once per recorded release
CONFIRMED, WHY = "release_confirmed", "release_confirmed_why"  # the confirmation of a level whose verdicts warn
TO_RECORD = "release_to_record"  # the release the download records: the generated one, overridden and confirmed

st.title("5 · Export")
project = common.project()
view = common.job()
chosen_by_user = project.selected_level is not None
level = project.selected_level if chosen_by_user else library.recommended_level()
if view is None:
    st.warning("Run a sweep and select a level first (pages 3 and 4).")
    st.stop()
if level is None:
    st.warning("No level is chosen, and none is recommended yet: no level of the sweep has all its results (or none "
               "has both a privacy and a utility score). Choose a level on the Choose page, or let the sweep finish.")
    st.stop()
if view.holder() is None:
    st.info("The sweep has not fitted its model yet: come back in a moment.")
    st.stop()
job = view.job
train, _ = view.tables()  # the data the sweep ran on, kept in the workspace

st.markdown(f"Release of **level {level}** from sweep {plain.md(view.id)} — "
            + ("your choice." if chosen_by_user else "the recommended level: you have not chosen one on the Choose "
               "page, so the manifest and the ledger will say it is the recommendation, not your choice."))
if job.status != JobStatus.DONE:
    st.warning(f"The sweep is {job.status} ({job.done} of {job.total} tasks): the attack games may not "
               "have reported for this level yet, so its privacy numbers are provisional.")
a, b = st.columns(2)
rows = widgets.whole_number_field(
    "Rows", "release_rows", MIN_RELEASE_ROWS, MAX_RELEASE_ROWS, "the number of rows", default=len(train), where=a,
    help=f"Default: as many rows as the training split the sweep used ({len(train)} of {project.rows}; the rest was "
         f"held out for testing). From {MIN_RELEASE_ROWS} to {MAX_RELEASE_ROWS}.")
seed = widgets.whole_number_field("Release seed", "release_seed", 0, MAX_SEED, "the release seed",
                                 default=view.config.seed, where=b,
                                 help="The rows drawn follow from it: the same seed gives the same file.")


@st.cache_data(show_spinner=False, max_entries=8)
def table_fingerprint(job_id: str) -> str:
    return JobView(common.store(), job_id).table_fingerprint


st.subheader("Earlier releases of this table")
earlier = releases(common.store(), table_fingerprint(view.id))
if earlier:
    st.dataframe(ledger_frame(earlier).drop(columns=["fingerprint"]), hide_index=True, width="stretch")
    st.caption(f"Privacy budget: {plain.md(budget(earlier).text)}. A new release is checked together with these "
               "(the pooled-release check below, once you generate it).")
else:
    st.caption("None yet: this will be the table's first release.")
NOTE = widgets.bound("release_note")
st.text_input("Note for the ledger (why this release, for whom — shown in the report)", key=NOTE,
              on_change=widgets.keep, args=("release_note",),
              help="Kept as you type it (also across a reload). Downloading the CSV records the release with this "
                   "note in the ledger; the report then shows it.")
if st.button("Generate release", type="primary", disabled=rows is None or seed is None,
             help="Fix the refused field above first." if rows is None or seed is None else None):
    try:
        with st.spinner("Drawing the rows, checking them, attacking them together with the earlier releases…"):
            made = Release.from_sweep(view, int(level), int(rows), int(seed), project.choice,
                                      table_name=project.name, store=common.store(), chosen_by_user=chosen_by_user)
    except DataError as exc:
        st.error(plain.md(exc))
        st.stop()
    st.session_state[common.RELEASE] = made
    for key in (REPORT, CONFIRMED, WHY, TO_RECORD):  # a new release is confirmed anew
        st.session_state.pop(key, None)

release = st.session_state.get(common.RELEASE)
if release is None or release.view is None or release.view.id != view.id or release.level != level:
    st.caption("Press Generate to draw the release; nothing leaves this computer until you download it.")
    st.stop()
st.dataframe(release.table.head(20), width="stretch")
st.subheader("Guardrails")
for check in release.checks:
    {"block": st.error, "warn": st.warning}.get(check.severity, st.success)(plain.md(check.message))
if release.blocked:
    override = st.checkbox("Release anyway (the reason is written into the manifest and the ledger)")
    reason = st.text_input("Reason for overriding", disabled=not override)
    if not (override and reason and reason.strip()):
        st.info("Download is blocked until the problem is fixed or overridden with a reason.")
        st.stop()
    release = release.overridden(reason)

pooled = release.pooled
if pooled is not None:
    st.markdown(f"**Pooled-release check** (when the release was generated) — an attacker holding the "
                f"{pooled.earlier} earlier release(s) and this one ({pooled.rows} rows): the pool's risk next to this "
                "release's alone and the sweep's interval for a single release.")
    st.dataframe(display_table(pooled.risks), hide_index=True, width="stretch")
    (st.warning if pooled.raised else st.success)(plain.md(verdict(pooled)))
    for warning in pooled.warnings:
        st.warning(plain.md(warning))
    for note in pooled.notes:
        st.caption(plain.md(note))
    st.caption(f"With this release: {pooled.budget.text}.")

if release.to_confirm:
    with st.container(border=True):
        st.markdown(f"**Level {level}'s verdicts that warn** — read them before the file leaves (the report's first "
                    "page prints them for the officer):")
        st.markdown("".join(f"\n- {notices.severity_mark(v.severity)} {plain.md(v.text)}" for v in release.to_confirm))
        officer = officer_words(release.verdicts)
        if officer:
            st.warning(plain.md(officer))
        confirmed = st.checkbox("I have read these verdicts and release this level anyway", key=CONFIRMED)
        why = st.text_input("Why (kept in the manifest and the ledger, e.g. the officer's agreement)", key=WHY,
                            disabled=not confirmed)
    if not (confirmed and why and why.strip()):
        st.info("The download waits for your confirmation and its reason.")
        st.stop()
    release = release.confirmed(why)
st.session_state[TO_RECORD] = release  # as overridden and confirmed: what the download records, the report shows



@common.callback
def record() -> None:
    """The download is a release: into the ledger, with a copy of its rows and the note as it stands at the click
    (read now, not when the button was drawn: a note typed just before the click belongs to this release)."""
    note = (st.session_state.get(NOTE) or "").strip() or None
    released = st.session_state[TO_RECORD]  # with its override and confirmation, if any
    entry = released.record(common.store(), note=note)
    st.session_state[common.RECORDED] = (released.sha256, entry.id)
    st.session_state[NOTE] = ""  # in the widget too: its own on_change may run after this and save what it holds
    common.update(release_note="")


recorded = st.session_state.get(common.RECORDED)
entry = None
if recorded and recorded[0] == release.sha256:
    entry = next((e for e in releases(common.store(), release.table_fingerprint) if e.id == recorded[1]), None)
c1, c2, c3 = st.columns(3)
c1.download_button("Download synthetic CSV", release.csv, file_name=release.file_name, mime="text/csv",
                   on_click=record)
c2.download_button("Download manifest (JSON)", release.manifest_bytes(),
                   file_name=manifest_path_for(release.file_name).name, mime="application/json", on_click="ignore")
if entry is None:
    c3.download_button("Download report (HTML)", b"", disabled=True, file_name=f"report_level{level}.html",
                       help="The report is the record of a release: download the CSV first, which records it in the "
                            "ledger with your note; the report then shows exactly what was recorded.")
else:
    key = (release.sha256, release.override_reason, release.confirmation, entry.id)
    if st.session_state.get(REPORT, (None,))[0] != key:
        with st.spinner("Writing the report…"):
            st.session_state[REPORT] = (key, build_report(release, reason=entry.note).encode("utf-8"))
    c3.download_button("Download report (HTML)", st.session_state[REPORT][1], file_name=f"report_level{level}.html",
                       mime="text/html", on_click="ignore",
                       help="One self-contained page for the privacy officer: open it in a browser, print it to PDF.")
st.caption(f"SHA-256 of the CSV: `{release.sha256}`")
if entry is not None:
    st.success(f"Recorded in the release ledger as this table's release {release_number(common.store(), entry)}"
               + (f", with your note: “{plain.md(entry.note)}”" if entry.note else ", without a note")
               + "; the earlier releases above include it, and the next export is checked against it.")
