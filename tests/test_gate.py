"""tvs_core/gate.py at the ASGI level: what reaches the server behind it, and what a caller without the token gets.
The real server, tried by a second local account, is in tests/test_shared_server.py."""

from __future__ import annotations

import asyncio

import pytest

from tvs_core.gate import HEALTH, TokenGate, cookie_name, cookie_value

TOKEN = "Rk3vQ0-9dXbW_tokenOfTheOwner_zz8"
PORT = 8531
PAGE_NAMES = ("choose", "common", "export", "glossary", "projects", "sensitive", "sweep", "1 · Data")


class Server:
    """What stands behind the gate: records every request it gets, answers 200 (health: 'ok' with a cookie, as
    Streamlit's does)."""

    def __init__(self):
        self.seen = []

    async def __call__(self, scope, receive, send):
        self.seen.append((scope["type"], scope.get("path")))
        if scope["type"] == "websocket":
            await send({"type": "websocket.accept"})
            return
        if scope["type"] == "lifespan":
            return
        headers = [(b"content-type", b"text/plain"), (b"set-cookie", b"_streamlit_xsrf=2|abc|def|1")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok" if scope["path"] == HEALTH else b"choose sweep"})


def call(gate, path="/", method="GET", query=b"", cookie=None, kind="http", body=b"", port=PORT, form=False):
    """One request through ``gate``; (status, headers, body, whether the body was read)."""
    headers = [(b"host", f"127.0.0.1:{port}".encode())]
    if form:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": kind, "path": path, "method": method, "query_string": query, "headers": headers,
             "server": ("127.0.0.1", port)}
    sent, read = [], []

    async def receive():
        read.append(True)
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(gate(scope, receive, send))
    if kind == "websocket":
        return sent[0], None, None, bool(read)
    start = next(m for m in sent if m["type"] == "http.response.start")
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), content.decode(), bool(read)


@pytest.fixture
def server():
    return Server()


@pytest.fixture
def gate(server):
    return TokenGate(server, token=TOKEN, token_path="/home/owner/.tvinesynth-studio/access-token", account="owner")


SIGNED_IN = f"{cookie_name(PORT)}={cookie_value(TOKEN)}"


@pytest.mark.parametrize("path", ["/", "/choose", "/_stcore/metrics", "/_stcore/host-config", "/static/js/index.js",
                                  "/media/0123abcd.csv", "/component/x/index.html", "/_stcore/agent/openapi.json",
                                  "/_stcore/script-health-check", "/auth/login", "/app/static/x.png"])
def test_without_the_token_every_route_gets_the_sign_in_page_and_nothing_of_the_server(gate, server, path):
    status, headers, body, _ = call(gate, path)
    assert status == 401 and server.seen == []
    assert "opens only with" in body and "<script" not in body and b"set-cookie" not in headers
    assert not [name for name in PAGE_NAMES if name in body.lower()], body
    assert b"content-security-policy" in headers


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE", "OPTIONS"])
def test_an_upload_without_the_token_is_refused_before_its_body_is_read(gate, server, method):
    status, _, _, read = call(gate, "/_stcore/upload_file/some-session/file-1", method=method, body=b"x" * 1000)
    assert status == 401 and not read and server.seen == []


def test_a_websocket_without_the_token_is_closed_before_it_is_accepted(gate, server):
    first, _, _, _ = call(gate, "/_stcore/stream", kind="websocket")
    assert first == {"type": "websocket.close", "code": 1008} and server.seen == []


def test_the_health_route_says_ok_without_the_token_and_nothing_more(gate, server):
    status, headers, body, _ = call(gate, HEALTH)
    assert (status, body) == (200, "ok") and server.seen == [("http", HEALTH)]
    assert set(headers) <= {b"content-type", b"content-length", b"cache-control"}  # no XSRF cookie
    assert call(gate, HEALTH, method="POST")[0] == 401


def test_the_token_in_the_address_is_taken_once_into_an_http_only_strict_cookie(gate, server):
    status, headers, _, _ = call(gate, "/choose", query=f"token={TOKEN}&embed=true".encode())
    assert status == 303 and headers[b"location"] == b"/choose?embed=true" and server.seen == []
    cookie = headers[b"set-cookie"].decode()
    assert cookie.startswith(f"{cookie_name(PORT)}={cookie_value(TOKEN)};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and TOKEN not in cookie
    assert call(gate, "/choose", cookie=cookie.split(";")[0])[0] == 200
    assert call(gate, "/_stcore/stream", cookie=cookie.split(";")[0], kind="websocket")[0]["type"] == "websocket.accept"
    assert server.seen == [("http", "/choose"), ("websocket", "/_stcore/stream")]


@pytest.mark.parametrize("given", ["", "not-the-token", TOKEN[:-1], TOKEN.upper(), TOKEN + "x", "x" * 8192,
                                   "jeton-étoilé-☃", f"{TOKEN}%00"])
def test_a_wrong_token_in_the_address_opens_nothing(gate, server, given):
    status, headers, body, _ = call(gate, "/", query=b"token=" + given.encode())
    assert status == 401 and server.seen == [] and b"set-cookie" not in headers
    assert "The token in the address is not right" in body


@pytest.mark.parametrize("cookie", ["", f"{cookie_name(PORT)}=", f"{cookie_name(PORT)}={TOKEN}",
                                    f"{cookie_name(PORT + 1)}={cookie_value(TOKEN)}",
                                    f"{cookie_name(PORT)}={cookie_value(TOKEN)[:-1]}", "garbage;;=;"])
def test_only_this_ports_cookie_of_this_token_opens_the_server(gate, server, cookie):
    assert call(gate, "/", cookie=cookie)[0] == 401
    assert call(gate, "/_stcore/stream", cookie=cookie, kind="websocket")[0]["type"] == "websocket.close"
    assert server.seen == []


def test_the_sign_in_form_posts_to_the_page_asked_for_and_opens_it_with_the_right_token(gate, server):
    status, headers, _, _ = call(gate, "/export", method="POST", query=b"tab=2", body=f"token={TOKEN}".encode(),
                                 form=True)
    assert status == 303 and headers[b"location"] == b"/export?tab=2" and b"HttpOnly" in headers[b"set-cookie"]
    status, headers, body, _ = call(gate, "/export", method="POST", body=b"token=wrong", form=True)
    assert status == 401 and b"set-cookie" not in headers and "That token is not right" in body
    assert call(gate, "/", method="POST", body=b"token=" + TOKEN.encode() + b"x" * 5000, form=True)[0] == 401
    assert call(gate, "/", method="POST", body=f"token={TOKEN}".encode())[0] == 401  # not the form: not read
    assert server.seen == []


def test_the_sign_in_page_holds_no_address_and_no_page_name(gate):
    for path in ("/choose", "/sweep", "/export"):
        _, _, body, _ = call(gate, path)
        assert path not in body and not [name for name in PAGE_NAMES if name in body.lower()]


def test_the_sign_in_page_escapes_what_it_shows(server):
    gate = TokenGate(server, token=TOKEN, token_path="/tmp/<script>alert(1)</script>", account="<b>x</b>")
    _, _, body, _ = call(gate, "/")
    assert "<script>alert" not in body and "&lt;script&gt;" in body and "<b>x</b>" not in body


def test_the_servers_start_and_stop_pass_through(gate, server):
    async def receive():
        return {"type": "lifespan.startup"}

    async def send(message):
        pass

    asyncio.run(gate({"type": "lifespan"}, receive, send))
    assert server.seen == [("lifespan", None)]


def test_anything_but_the_token_as_text_is_no_token():
    from unittest.mock import MagicMock

    from tvs_core.gate import same

    assert same("abc", "abc") and not same("abd", "abc") and not same("", "abc") and not same(None, "abc")
    assert not same(MagicMock(), "abc")  # what AppTest hands the pages for a cookie
