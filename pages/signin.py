"""Who may open the dashboard: the workspace's access token, checked once per session (the server's gate checks
every request before this)."""

from __future__ import annotations

import streamlit as st

from pages import common, plain

TOKEN = "access_token"  # the token this session signed in with


def signed_in() -> bool:
    """Whether this session holds the workspace's access token. Served by app.py's ``st.App``, the server's token
    gate let no request through without it: its cookie came with this session's connection. Run otherwise (as
    AppTest runs the script) the token comes from the address (``?token=…``) or the sign-in box below, a second
    lock."""
    from tvs_core.gate import cookie_name, cookie_value, same, values_in_headers

    space = common.store().space
    expected, name = cookie_value(space.access_token()), cookie_name(st.get_option("server.port"))
    try:  # every cookie of the gate's name, as the gate reads them: one planted by another page cannot shadow it
        sent = values_in_headers(list(st.context.headers.get_all("Cookie")), name)
    except (AttributeError, TypeError):  # no request behind this session (AppTest)
        sent = []
    if any(same(value, expected) for value in sent):
        return True
    given = st.session_state.get(TOKEN) or st.query_params.get("token")
    if not space.token_matches(given):
        return False
    st.session_state[TOKEN] = given
    if st.query_params.get("token") != given:
        st.query_params["token"] = given
    return True


def sign_in() -> None:
    """All a visitor without the token sees: whose dashboard this is, and where its token is."""
    import getpass

    space = common.store().space
    st.title("TVineSynth Studio")
    st.markdown(f"This dashboard belongs to the account **{plain.md(getpass.getuser())}** on this computer and opens "
                "only with its access token, so that no other account can see or change its data.")
    st.markdown(f"The token is printed in the console where the dashboard was started, and kept in the file "
                f"`{space.token_path}`, which only that account can read. If this is not your dashboard, yours is at "
                "the address your own console printed.")
    with st.form("sign_in"):
        typed = st.text_input("Access token", type="password")
        if st.form_submit_button("Open the dashboard"):
            if space.token_matches(typed.strip()):
                st.session_state[TOKEN] = typed.strip()
                st.query_params["token"] = typed.strip()
                st.rerun()
            st.error("That token is not right. Copy it again from the console or the token file.")
    if st.query_params.get("token") and TOKEN not in st.session_state:
        st.error("The token in the address is not right. Copy the address again from the console.")


@st.cache_resource
def _told() -> set:
    return set()


def workspace_notice() -> None:
    """What opening the workspace closed to other accounts, said once per server start."""
    notice = common.store().space.notice
    if notice and notice not in _told():
        _told().add(notice)
        st.info(plain.md(notice))
