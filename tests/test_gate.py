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


OWN = f"http://127.0.0.1:{PORT}"  # the dashboard's own origin
ANOTHER_PORT = "http://127.0.0.1:9999"  # another account's page on another port of the same host
UNSAFE = object()  # the default: the origin a browser sends for a websocket or a form from the dashboard's own page


def call(gate, path="/", method="GET", query=b"", cookie=None, kind="http", body=b"", port=PORT, form=False,
         origin=UNSAFE, host=None, fetch=None, cookies=()):
    """One request through ``gate``; (status, headers, body, whether the body was read). ``origin``: the Origin
    header (by default the dashboard's own for a websocket and every method but GET/HEAD/OPTIONS, as a browser sends
    it, and none otherwise; None: no Origin at all); ``fetch``: the Sec-Fetch-Site/Mode/Dest a browser sends;
    ``cookies``: more Cookie headers."""
    headers = [(b"host", (host or f"127.0.0.1:{port}").encode())]
    if origin is UNSAFE:
        origin = f"http://127.0.0.1:{port}" if kind == "websocket" or method not in ("GET", "HEAD", "OPTIONS") else None
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    for name, value in zip(("site", "mode", "dest"), fetch or (), strict=False):
        headers.append((f"sec-fetch-{name}".encode(), value.encode()))
    for extra in cookies:
        headers.append((b"cookie", extra.encode()))
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
    status, _, _, read = call(gate, "/_stcore/upload_file/some-session/file-1", method=method, body=b"x" * 1000,
                              origin=ANOTHER_PORT)
    assert status == 403 and not read and server.seen == []


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


# -- where a request comes from: ports do not separate sites (the third review) -----------------------------------

@pytest.mark.parametrize("origin", [ANOTHER_PORT, "http://localhost:9999", "http://127.0.0.1", "https://127.0.0.1:8531",
                                    "http://evil.example:8531", "null", None])
def test_a_websocket_from_another_origin_is_refused_even_with_the_owners_cookie(gate, server, origin):
    """The review's attack: a page on 127.0.0.1:9999 opened a websocket to the dashboard; the browser sent the
    owner's cookie, and the page read every message. Without the dashboard's own Origin, no session is made."""
    first, _, _, _ = call(gate, "/_stcore/stream", cookie=SIGNED_IN, kind="websocket", origin=origin)
    assert first == {"type": "websocket.close", "code": 1008} and server.seen == []
    first, _, _, _ = call(gate, "/_stcore/stream", cookie=SIGNED_IN, kind="websocket", origin=OWN)
    assert first["type"] == "websocket.accept" and server.seen == [("websocket", "/_stcore/stream")]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_a_change_from_another_origin_or_none_is_refused_before_its_body_is_read(gate, server, method):
    for origin, fetch in ((ANOTHER_PORT, ("same-site", "cors", "empty")), (None, None), ("null", ("same-site",)),
                          ("null", ("cross-site",))):
        status, _, body, read = call(gate, "/_stcore/upload_file/session/file", method=method, cookie=SIGNED_IN,
                                     origin=origin, fetch=fetch, body=b"x" * 1000)
        assert (status, read) == (403, False) and "did not come from the dashboard's own page" in body
    assert server.seen == []
    status, _, _, _ = call(gate, "/_stcore/upload_file/session/file", method=method, cookie=SIGNED_IN, origin="null",
                           fetch=("same-origin", "cors", "empty"))
    assert status == 200 and server.seen == [("http", "/_stcore/upload_file/session/file")]


@pytest.mark.parametrize("fetch", [("same-site", "cors", "empty"), ("same-site", "no-cors", "image"),
                                   ("same-site", "no-cors", "script"), ("same-site", "navigate", "iframe"),
                                   ("cross-site", "navigate", "iframe"), ("cross-site", "no-cors", "style")])
def test_another_pages_script_image_or_frame_reads_nothing(gate, server, fetch):
    """A fetch, an <img>, a <script> or a frame of another page, with the owner's cookie: refused, whatever the path
    (media files, the app's pages, Streamlit's routes)."""
    for path in ("/", "/media/0123abcd.csv", "/_stcore/host-config", "/static/js/index.js"):
        status, _, body, _ = call(gate, path, cookie=SIGNED_IN, fetch=fetch)
        assert status == 403 and "choose" not in body, (path, status)
    status, _, _, _ = call(gate, "/media/0123abcd.csv", cookie=SIGNED_IN, origin=ANOTHER_PORT)
    assert status == 403 and server.seen == []


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_a_link_from_another_page_reaches_only_the_sign_in_page(gate, server, site):
    status, _, body, _ = call(gate, "/export", cookie=SIGNED_IN, fetch=(site, "navigate", "document"),
                              query=f"token={TOKEN}".encode())
    assert status == 401 and "opened from another page" in body and server.seen == []


@pytest.mark.parametrize("fetch", [("none", "navigate", "document"), ("same-origin", "navigate", "document"),
                                   ("same-origin", "cors", "empty"), ("same-origin", "no-cors", "image"), None])
def test_the_owners_own_pages_and_typed_addresses_are_served(gate, server, fetch):
    status, headers, _, _ = call(gate, "/media/0123abcd.csv", cookie=SIGNED_IN, fetch=fetch)
    assert status == 200 and server.seen == [("http", "/media/0123abcd.csv")]
    assert headers[b"x-frame-options"] == b"SAMEORIGIN" and headers[b"cross-origin-resource-policy"] == b"same-origin"


@pytest.mark.parametrize("host", ["evil.example:8531", "evil.example", "127.0.0.1:9999", "localhost", "127.0.0.2:8531",
                                  "127.0.0.1.nip.io:8531"])
def test_a_request_naming_another_host_is_refused(gate, server, host):
    """DNS rebinding: a name that points at 127.0.0.1 makes the attacker's page same-origin with itself; the server
    answers only to its own loopback address and port, health included."""
    for path, kind in (("/", "http"), (HEALTH, "http"), ("/_stcore/stream", "websocket")):
        answer = call(gate, path, cookie=SIGNED_IN, kind=kind, host=host, origin=f"http://{host}")[0]
        assert answer in (403, {"type": "websocket.close", "code": 1008}), (host, path, answer)
    assert server.seen == []
    for host in ("localhost:8531", "LOCALHOST:8531", "[::1]:8531"):
        assert call(gate, "/", cookie=SIGNED_IN, host=host)[0] == 200


@pytest.mark.parametrize("planted", ["tossed", "", cookie_value("another token")])
def test_a_cookie_planted_with_a_longer_path_does_not_lock_the_owner_out(gate, server, planted):
    """Another page ran document.cookie = "tvs_access_8531=tossed; path=/_stcore": the browser then sends that one
    first. Every cookie of the name is read; the owner's still opens the server, the planted one alone does not."""
    both = f"{cookie_name(PORT)}={planted}; {SIGNED_IN}"
    assert call(gate, "/_stcore/stream", cookie=both, kind="websocket")[0]["type"] == "websocket.accept"
    assert call(gate, "/", cookie=both)[0] == 200
    assert call(gate, "/", cookie=f"{cookie_name(PORT)}={planted}", cookies=[SIGNED_IN])[0] == 200  # two headers
    assert call(gate, "/", cookie=f"{cookie_name(PORT)}={planted}")[0] == 401


def test_the_pages_read_every_cookie_of_the_gates_name_as_the_gate_does():
    from tvs_core.gate import values_in_headers

    assert values_in_headers(["a=1; tvs_access_8531=tossed; tvs_access_8531=good", "tvs_access_8531=third"],
                             "tvs_access_8531") == ["tossed", "good", "third"]
    assert values_in_headers(["tvs_access_85311=x; xtvs_access_8531=y"], "tvs_access_8531") == []
