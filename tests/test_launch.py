"""tvs_core/launch.py without starting Streamlit: the port chosen, the command and environment Streamlit is started
with (``os.execvpe`` is replaced by a recorder), and the address said once the server answers. Two accounts'
dashboards on one machine are tested end to end in tests/test_shared_server.py."""

from __future__ import annotations

import http.server
import io
import os
import socket
import threading

import pytest

from tvs_core import launch as launching
from tvs_core.errors import TVSError
from tvs_core.storage.workspace import WORKSPACE_ENV, Workspace


@pytest.fixture
def listening():
    """A port of 127.0.0.1 another program holds."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.fixture
def started(monkeypatch):
    """What launch would run: the working folder and the exec call, recorded instead of done (every port free)."""
    calls = {}
    monkeypatch.setattr(launching, "_free", lambda port: True)
    monkeypatch.setattr(launching.os, "chdir", lambda folder: calls.__setitem__("cwd", folder))
    monkeypatch.setattr(launching.os, "execvpe",
                        lambda file, args, env: calls.update(file=file, args=args, env=env))
    return calls


def test_a_port_another_program_holds_is_not_free(listening):
    assert not launching._free(listening)


def test_a_port_given_and_free_is_the_one_used(monkeypatch):
    monkeypatch.setattr(launching, "_free", lambda port: port == 9123)
    assert launching.choose_port(9123) == 9123


def test_a_port_given_and_taken_is_refused_without_trying_another(listening):
    with pytest.raises(TVSError, match=f"Port {listening} is taken .*leave --port out"):
        launching.choose_port(listening)


def test_without_a_port_the_first_free_one_from_8501_is_taken(monkeypatch):
    tried = []
    monkeypatch.setattr(launching, "_free", lambda port: tried.append(port) or port >= 8504)
    assert launching.choose_port(None) == 8504
    assert tried == [8501, 8502, 8503, 8504]


def test_when_every_port_tried_is_taken_the_refusal_names_the_range(monkeypatch):
    tried = []
    monkeypatch.setattr(launching, "_free", lambda port: tried.append(port) and False)
    with pytest.raises(TVSError, match="No free port between 8501 and 8600; give one with --port"):
        launching.choose_port(None)
    assert len(tried) == launching.PORTS_TRIED


def test_streamlit_serves_127_0_0_1_only_from_the_project_folder_and_nothing_is_printed_before_it_answers(
        tmp_path, capsys, started):
    root = tmp_path / "space"
    launching.launch(workspace=str(root))
    assert capsys.readouterr().out == ""  # the address comes from the server, once it answers
    assert (root / "access-token").exists()
    args = started["args"]
    assert args[1:5] == ["-m", "streamlit", "run", str(launching.APP)]
    options = dict(zip(args[5::2], args[6::2], strict=True))
    assert options == {"--server.port": "8501", "--server.address": "127.0.0.1", "--server.headless": "true"}
    assert started["cwd"] == launching.APP.parent  # where the project's .streamlit/config.toml is read


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200 if self.path == "/_stcore/health" else 404)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def _said_once_answering(space: Workspace, out) -> tuple[int, str]:
    """Start the announcer on a free port, then a server that answers health there; (port, what ``out`` got)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waiting = launching.announce_when_answering(space, port, out=out)
    assert waiting.is_alive()
    server = http.server.HTTPServer(("127.0.0.1", port), Health)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        waiting.join(timeout=600)
        assert not waiting.is_alive()
    finally:
        server.shutdown()
        server.server_close()
    return port, out


def test_the_address_with_the_token_is_said_once_and_only_when_the_server_answers_in_a_terminal(tmp_path):
    import pty

    space = Workspace(tmp_path / "space")
    leader, follower = pty.openpty()
    with os.fdopen(follower, "w") as terminal:
        port, _ = _said_once_answering(space, terminal)
    said = os.read(leader, 65536).decode()
    os.close(leader)
    lines = said.splitlines()
    assert lines[0] == f"TVineSynth Studio is open for you at http://127.0.0.1:{port}/?token={space.access_token()}"
    assert str(space.token_path) in lines[1] and len(lines) == 2


@pytest.mark.parametrize("where", ["pipe", "shared file", "buffer"])
def test_a_console_that_is_not_a_terminal_gets_where_the_token_is_kept_never_the_token(tmp_path, where):
    """``python -m tvs_core dashboard > dash.log &`` under umask 022: the log is 0644, and in a 0755 home any
    account reads it. The address is said with where the token is kept, and the token nowhere."""
    space = Workspace(tmp_path / "space")
    if where == "pipe":
        read_end, write_end = os.pipe()
        with os.fdopen(write_end, "w") as out:
            port, _ = _said_once_answering(space, out)
        with os.fdopen(read_end) as stream:
            said = stream.read()
    elif where == "shared file":
        log = tmp_path / "dash.log"
        with open(log, "w") as out:
            os.chmod(log, 0o644)
            port, _ = _said_once_answering(space, out)
        said = log.read_text()
    else:
        port, out = _said_once_answering(space, io.StringIO())
        said = out.getvalue()
    assert space.access_token() not in said and "token=" not in said
    assert f"http://127.0.0.1:{port}/" in said and str(space.token_path) in said


def test_a_log_file_only_the_owner_can_read_gets_the_token(tmp_path):
    space = Workspace(tmp_path / "space")
    log = tmp_path / "dash.log"
    with open(os.open(log, os.O_WRONLY | os.O_CREAT, 0o600), "w") as out:
        port, _ = _said_once_answering(space, out)
    assert f"?token={space.access_token()}" in log.read_text()


def test_the_upload_cap_is_the_tools_own_file_size_limit(monkeypatch):
    from tvs_core.data.limits import Limits

    assert launching.upload_limit_mb() == int(Limits().file_mb)
    monkeypatch.setenv("TVS_MAX_FILE_MB", "300.5")
    assert launching.upload_limit_mb() == 300


def test_the_dashboard_is_given_the_workspace_it_was_started_with(tmp_path, monkeypatch, started):
    """The app opens the workspace named in its environment: the one given here, as a real path, whatever the
    caller's own TVS_WORKSPACE says."""
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "other"))
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    launching.launch(port=None, workspace=str(tmp_path / "link"))
    assert started["env"][WORKSPACE_ENV] == str((tmp_path / "real").resolve())
    assert started["env"]["PATH"] == os.environ["PATH"]  # the rest of the environment is passed on


def test_a_workspace_that_was_open_to_others_is_said_once_on_stderr(tmp_path, capsys, started):
    root = tmp_path / "space"
    root.mkdir()
    (root / "notes.txt").write_text("x")
    os.chmod(root / "notes.txt", 0o644)
    launching.launch(workspace=str(root))
    err = capsys.readouterr().err
    assert err.startswith("note: The workspace") and "readable by you only" in err


def test_without_its_app_file_the_dashboard_is_refused_before_anything_starts(tmp_path, monkeypatch, started):
    monkeypatch.setattr(launching, "APP", tmp_path / "app.py")
    with pytest.raises(TVSError, match="app.py is not at"):
        launching.launch(workspace=str(tmp_path / "space"))
    assert started == {} and not (tmp_path / "space").exists()
