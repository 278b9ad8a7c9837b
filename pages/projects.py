"""Projects: every table opened here and its sweeps (running, done, failed), to reopen any of them."""

import time

import streamlit as st

from pages import common, plain
from pages.shared import tables
from tvs_core.jobs import JobView

common.under_navigation()

st.title("Projects")
st.caption("Everything you open or choose is saved in the workspace as you go, so a reload or a restart brings "
           "the same project back. Open an earlier project, or one of its sweeps, here.")


def when(seconds: float | None) -> str:
    return "—" if not seconds else time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


current = common.project()
for project in common.projects().all():
    title = (f"{plain.md(project.name)} — {project.rows} rows × {project.columns} columns · last changed "
             f"{when(project.updated)}")
    with st.expander(title, expanded=project.id == current.id):
        roles = (f"Y = {plain.md(project.sweep.response or '—')}; sensitive: "
                 f"{', '.join(map(plain.md, project.sweep.sensitive)) or '—'}")
        st.markdown(f"{roles}  \nSource: {plain.md(project.source)}")
        if project.id == current.id:
            st.success("This is the open project.")
        elif st.button("Open this project", key=f"open.{project.id}"):
            tables.open_project(project.id)
            st.rerun()
        sweeps = [j for j in reversed(project.jobs) if common.store().job(j) is not None]
        if not sweeps:
            st.caption("No sweep yet.")
        for job_id in sweeps:
            view = JobView(common.store(), job_id)
            job, config = view.job, view.config
            info = view.progress()
            left, right = st.columns([4, 1])
            left.markdown(
                f"**Sweep `{job_id}`** — {info['text']} · started "
                f"{when(job.created)}  \n{config.preset} protocol, levels "
                f"{', '.join(map(str, view.levels)) or 'default'}, families {config.families}, seed {config.seed}, "
                f"{len(config.baselines)} baselines" + (f"  \nError: {info['error']}" if info["error"] else ""))
            shown = project.id == current.id and current.job_id == job_id
            if right.button("Shown" if shown else "Open", key=f"open.{project.id}.{job_id}", disabled=shown):
                if project.id != current.id:
                    tables.open_project(project.id)
                common.project().adopt(config)
                common.update(job_id=job_id, selected_level=None)
                st.switch_page("pages/sweep.py")
