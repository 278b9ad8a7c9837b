"""``python -m tvs_core dashboard``: the dashboard on a free port of 127.0.0.1, its address with the access token
printed before it starts. Every account on a shared server can reach 127.0.0.1, so the address alone opens only a
sign-in box; and a second steward's dashboard never answers on the first one's port."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from .errors import TVSError
from .storage.workspace import WORKSPACE_ENV, Workspace

APP = Path(__file__).resolve().parent.parent / "app.py"
FIRST_PORT = 8501
PORTS_TRIED = 100


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def choose_port(port: int | None) -> int:
    """The port asked for if it is free (else a refusal in one sentence), or the first free one from 8501."""
    if port is not None:
        if not _free(port):
            raise TVSError(f"Port {port} is taken (perhaps by another steward's dashboard); leave --port out to take a "
                           "free one.")
        return port
    for candidate in range(FIRST_PORT, FIRST_PORT + PORTS_TRIED):
        if _free(candidate):
            return candidate
    raise TVSError(f"No free port between {FIRST_PORT} and {FIRST_PORT + PORTS_TRIED - 1}; give one with --port.")


def launch(port: int | None = None, workspace: str | None = None) -> None:
    """Replace this process with Streamlit serving app.py; prints the address first."""
    if not APP.exists():
        raise TVSError(f"The dashboard's app.py is not at {APP}; run this from the project's folder.")
    space = Workspace(workspace)
    port = choose_port(port)
    if space.notice:
        print(f"note: {space.notice}", file=sys.stderr)
    print(f"TVineSynth Studio is open for you at http://127.0.0.1:{port}/?token={space.access_token()}\n"
          f"(the token is kept in {space.token_path}; Ctrl-C stops the dashboard)", flush=True)
    env = {**os.environ, WORKSPACE_ENV: str(space.root)}
    # Streamlit reads .streamlit/config.toml from the folder it starts in: the project's own settings (no usage
    # statistics, 127.0.0.1 only, no file watcher) hold wherever the command was typed
    os.chdir(APP.parent)
    os.execvpe(sys.executable, [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
                                "--server.address", "127.0.0.1", "--server.headless", "true"], env)
