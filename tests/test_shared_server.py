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
        from tvs_core.jobs.projects import Projects
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
    import http.client  # noqa: F401

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
    process = subprocess.Popen([sys.executable, "-m", "tvs_core", "dashboard", "--workspace", str(tmp_path / "space")],
                               cwd=elsewhere, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        said = []
        while not said or "open for you at" not in said[-1]:
            ready, _, _ = select.select([process.stdout], [], [], 600)
            assert ready and process.poll() is None, "".join(said)
            said.append(process.stdout.readline())
        address = said[-1].split("open for you at ")[1].strip()
        port = int(address.split(":")[2].split("/")[0])
        assert _answers(port), "the address was printed before the server answered"
        token = (tmp_path / "space" / "access-token").read_text().strip()
        assert address == f"http://127.0.0.1:{port}/?token={token}"
        addresses = [line for line in said if "http://" in line or "URL:" in line]
        assert addresses == [said[-1]], said  # Streamlit's own "URL: http://127.0.0.1:…" is not printed
        settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
        assert settings["browser"]["gatherUsageStats"] is False  # nothing leaves the machine
        assert Path(f"/proc/{process.pid}/cwd").resolve() == ROOT.resolve()
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
