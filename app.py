"""TVineSynth Studio — entry point. Run: python -m tvs_core dashboard (or streamlit run app.py); once the server
answers, the console prints the address with the access token.

Streamlit finds ``app`` below (an ``st.App``, its ASGI entry point) when it imports this file, and serves the
dashboard through it: ``tvs_core.gate`` asks for the access token in front of every route the server has (pages,
the websocket, uploads, media, components, static files, ``/_stcore/*``). Each browser session then runs this file
as the dashboard's script, where ``__name__`` is ``"__main__"``."""

import os

os.umask(0o077)  # whatever the server writes is its owner's alone

import streamlit as st  # noqa: E402


def served() -> dict:
    """How the server serves the script: Streamlit's whole app behind the token gate, its upload cap the tool's own
    file-size limit, the address said once the server answers."""
    from contextlib import asynccontextmanager

    from starlette.middleware import Middleware
    from streamlit import config

    from tvs_core.gate import TokenGate, gate_for
    from tvs_core.jobs.standby import Keeper
    from tvs_core.launch import announce_when_answering, upload_limit_mb
    from tvs_core.storage import Store
    from tvs_core.storage.workspace import Workspace

    space = Workspace()
    config.set_option("server.maxUploadSize", upload_limit_mb(), "TVS_MAX_FILE_MB")

    @asynccontextmanager
    async def say_the_address(_app):
        announce_when_answering(space, config.get_option("server.port"))
        keeper = Keeper(Store(space)).start()  # a worker ready before Start, while the server runs
        try:
            yield
        finally:
            keeper.stop()

    return {"middleware": [Middleware(TokenGate, **gate_for(space))], "lifespan": say_the_address}


def dashboard() -> None:
    from pages import common, plain, signin
    from tvs_core.text import one_line

    st.set_page_config(page_title="TVineSynth Studio", layout="wide")

    pages = [
        st.Page("pages/data.py", title="1 · Data", default=True),
        st.Page("pages/sensitive.py", title="2 · Sensitive features"),
        st.Page("pages/sweep.py", title="3 · Sweep"),
        st.Page("pages/choose.py", title="4 · Choose"),
        st.Page("pages/export.py", title="5 · Export"),
        st.Page("pages/projects.py", title="Projects"),
        st.Page("pages/glossary.py", title="What the words mean"),
    ]

    def sidebar() -> None:
        """Drawn from the project before the page runs. Choices change in widget callbacks, which run before
        the script, and a page that changes the project in its body reruns at once: so the sidebar is never
        one step behind."""
        project = common.project()
        with st.sidebar:
            st.caption("TVineSynth Studio — synthetic data with a privacy-utility balance you choose.")
            st.markdown(f"**Dataset:** {plain.md(project.name)}  \n{project.rows} rows × {project.columns} columns")
            roles = (f"Y = {one_line(project.sweep.response)}" if project.sweep.response else "no response yet") + (
                f"; sensitive: {', '.join(map(one_line, project.sweep.sensitive))}" if project.sweep.sensitive else "")
            st.text(roles)
            view = common.job()

            def sweep_status() -> None:
                info = view.progress()
                st.markdown(f"**Sweep:** {plain.md(info['text'])}")
                st.progress(info["fraction"])

            if view is None:
                st.markdown("**Sweep:** not started")
            elif view.active:  # redrawn on its own every 2 s while the sweep runs, whatever page is open
                st.fragment(sweep_status, run_every=2)()
            else:
                sweep_status()
            level = project.selected_level
            st.markdown(f"**Chosen level:** {level} (your choice)" if level is not None else
                        "**Chosen level:** none yet — Export uses the recommendation, recorded as such")

    try:
        if not signin.signed_in():  # the pages are declared, so a deep link keeps its address, but none of them runs
            st.navigation(pages, position="hidden")
            signin.sign_in()
            st.stop()
        navigation = st.navigation(pages)
        common.project()
        common.resume_orphaned_jobs()
        if common.store().space.notice:
            signin.workspace_notice()
        sidebar()
        navigation.run()
    except Exception:  # a bug, not the user's input: one sentence here, the traceback in the workspace's log
        common.unexpected_error()


if __name__ == "__main__":
    dashboard()
else:  # imported by `streamlit run app.py`, which serves this
    app = st.App(__file__, **served())
