"""``python -m tvs_core dashboard``: the dashboard on a free port of 127.0.0.1, behind its access token. Every account
on a shared server can reach 127.0.0.1, so every route of the server asks for the token (``gate``), and a second
steward's dashboard never answers on the first one's port.

The server says its one address, with the token, once it answers (``announce_when_answering``, started by app.py's
``st.App``); Streamlit's own "URL: …" lines are switched off in .streamlit/config.toml, as they lack the token."""

from __future__ import annotations

import math
import os
import socket
import stat
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from .data.limits import Limits
from .errors import TVSError
from .gate import HEALTH
from .storage.workspace import WORKSPACE_ENV, Workspace

APP = Path(__file__).resolve().parent.parent / "app.py"
FIRST_PORT = 8501
PORTS_TRIED = 100
ANSWER_CEILING = 600.0  # seconds a server may take to answer on a loaded machine before it is said not to


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
    """Replace this process with Streamlit serving app.py (through its token gate); the server prints the address
    once it answers."""
    if not APP.exists():
        raise TVSError(f"The dashboard's app.py is not at {APP}; run this from the project's folder.")
    space = Workspace(workspace)
    port = choose_port(port)
    if space.notice:
        print(f"note: {space.notice}", file=sys.stderr, flush=True)
    space.access_token()  # made now, so that a failure to write it is said here
    env = {**os.environ, WORKSPACE_ENV: str(space.root)}
    # Streamlit reads .streamlit/config.toml from the folder it starts in: the project's own settings (no usage
    # statistics, 127.0.0.1 only, no file watcher, no address printed without the token) hold wherever the command
    # was typed
    os.chdir(APP.parent)
    os.execvpe(sys.executable, [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
                                "--server.address", "127.0.0.1", "--server.headless", "true"], env)


def address(port: int, token: str) -> str:
    return f"http://127.0.0.1:{port}/?token={token}"


def upload_limit_mb(limits: Limits | None = None) -> int:
    """Streamlit's upload cap (whole MB): the tool's own file-size limit (``TVS_MAX_FILE_MB``), so that a file the
    reader would refuse is refused by the server before it is kept in memory."""
    limits = Limits.from_env() if limits is None else limits
    return max(1, math.floor(limits.file_mb))


def answers(port: int, timeout: float = 5.0) -> bool:
    """Whether the server on ``port`` answers its health route ("ok", which the gate lets through)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{HEALTH}", timeout=timeout) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def private_console(out) -> bool:
    """Whether what is printed on ``out`` stays the owner's: a terminal, or a file of the owner's that no other
    account can read. A pipe, a socket or a file others may read (``dashboard > dash.log &`` under umask 022) is not:
    the token is then not printed there."""
    try:
        if out.isatty():
            return True
        found = os.fstat(out.fileno())
    except (AttributeError, OSError, ValueError):  # no file behind it (a test's buffer, a closed stream)
        return False
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & 0o077


def announcement(space: Workspace, port: int, private: bool) -> str:
    """The two lines the console shows once the server answers: the address with the token where the console is
    the owner's alone, else the address and where the token is kept."""
    if private:
        return (f"TVineSynth Studio is open for you at {address(port, space.access_token())}\n"
                f"(the token is kept in {space.token_path}; Ctrl-C stops the dashboard)")
    return (f"TVineSynth Studio is open for you at http://127.0.0.1:{port}/ — sign in with the access token kept in "
            f"{space.token_path}\n(this output is not a terminal, so the token is not printed where others might "
            "read it; Ctrl-C stops the dashboard)")


def announce_when_answering(space: Workspace, port: int, out=None, ceiling: float = ANSWER_CEILING) -> threading.Thread:
    """In a thread of the server: once the server answers, print the one address to open in the console of the
    account that started it (with the token only where that console is the owner's alone: ``private_console``)."""
    out = sys.stdout if out is None else out

    def wait_and_say() -> None:
        deadline = time.monotonic() + ceiling
        while not answers(port):
            if time.monotonic() > deadline:
                print(f"TVineSynth Studio did not answer on port {port} within {ceiling:.0f} s; see the messages "
                      "above.", file=out, flush=True)
                return
            time.sleep(0.2)
        print(announcement(space, port, private_console(out)), file=out, flush=True)

    thread = threading.Thread(target=wait_and_say, name="tvs-announce", daemon=True)
    thread.start()
    return thread
