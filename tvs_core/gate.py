"""The access token in front of every route of the dashboard's server, as an ASGI middleware (Starlette's and
uvicorn's interface; nothing here imports Streamlit).

Every account on a shared server can reach 127.0.0.1, and Streamlit's own routes (``/_stcore/*``: health, metrics,
uploads, the websocket; ``/media``, components, static files) answered without the token when the token was asked
only by the pages. So the gate decides before any route runs: a request without the token gets a sign-in page that
holds no data (no page name, no script, no Streamlit file) and nothing else.

The token is not enough on its own: ports do not separate sites, so a page that another account serves on another
port of 127.0.0.1 makes the owner's browser send the owner's cookie (SameSite=Strict included). So the gate also asks
where a request comes from, as Jupyter Server does: the ``Host`` must be this server's own loopback address (not a
name that a rebinding DNS points here), a websocket and every request that may change something (any method but
GET, HEAD and OPTIONS) must come from the dashboard's own origin (``Origin``, or ``Sec-Fetch-Site: same-origin`` where
the browser sends ``Origin: null``), a read made by another page's script, image or frame is refused, and a
navigation from another page reaches only the sign-in page. Every cookie of the gate's name is read and any one that
holds the token admits, so a cookie planted with a longer path (RFC 6265bis "cookie tossing") cannot shadow the
owner's. The token is taken once from
``?token=`` (or the sign-in form), then kept in an HttpOnly, SameSite=Strict cookie, and the address is redirected
without it. The health route answers its word ("ok") without the token, and nothing more (no cookie). A refused
request's body is never read, so a refused upload is neither stored nor buffered.

``app.py`` serves the dashboard through ``st.App`` (Streamlit's ASGI entry point) with this middleware around it.
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import html
import os
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HEALTH = "/_stcore/health"
FORM = b"application/x-www-form-urlencoded"  # the sign-in form, posted to the page it was shown for
FORM_BYTES = 4096  # the sign-in form's body: a token
_COOKIE_KEY = b"TVineSynth Studio dashboard cookie"
_HEALTH_HEADERS = {b"content-type", b"content-length", b"cache-control"}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # the names this server answers to, on its own port
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # what may be asked without coming from the dashboard's own origin
# added to every answer the server gives: no other origin may frame the dashboard or embed what it serves
_SERVED_HEADERS = [(b"x-frame-options", b"SAMEORIGIN"), (b"cross-origin-resource-policy", b"same-origin")]
_PAGE_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # the page runs no script and loads nothing: its one form posts here
    (b"content-security-policy",
     b"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
]


def cookie_name(port: int) -> str:
    """One cookie per port: a browser sends a 127.0.0.1 cookie to every port, and two dashboards of one account
    (two workspaces) must not sign each other out."""
    return f"tvs_access_{port}"


def cookie_value(token: str) -> str:
    """What the cookie holds: derived from the token, so the token itself is not sent with every request."""
    return hmac.new(token.encode(), _COOKIE_KEY, hashlib.sha256).hexdigest()


def same(given: str | None, expected: str) -> bool:
    """Compared in constant time, so the answer's timing tells nothing about the secret. Anything but text is no
    token (Streamlit's AppTest hands the pages a stand-in object for the cookies)."""
    return isinstance(given, str) and bool(given) and hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                                                                          expected.encode())


class TokenGate:
    """``TokenGate(app, token=…, token_path=…)``: ``app`` (the whole Streamlit server) sees only requests that carry
    the token; every other request is answered here."""

    def __init__(self, app: Callable, token: str, token_path: str = "", account: str | None = None):
        if not token:
            raise ValueError("the gate needs the workspace's access token")
        self.app = app
        self.token = token
        self.token_path = token_path
        self.account = account or getpass.getuser()
        self._cookie = cookie_value(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):  # lifespan: the server starting and stopping
            await self.app(scope, receive, send)
            return
        port = _port(scope)
        if not own_host(scope, port):  # a name a rebinding DNS points here, or another port's
            await _refuse(send, kind, "This dashboard answers only at its own address, "
                                      f"http://127.0.0.1:{port}/.")
            return
        signed_in = any(same(value, self._cookie) for value in cookie_values(scope, cookie_name(port)))
        path = scope.get("path", "/")
        method = scope.get("method")
        if kind == "websocket" or method not in SAFE_METHODS:
            if not from_own_origin(scope, port):  # another page's script or form: no session, no action
                await _refuse(send, kind, "Refused: this request did not come from the dashboard's own page.")
                return
        elif not read_allowed(scope, port):  # another page's script, image or frame reading what the server serves
            if navigation(scope):  # a link or a script on another page sending the browser here: the sign-in page
                await self._sign_in_page(send, ELSEWHERE, head=method == "HEAD")
            else:
                await _refuse(send, kind, "Refused: this request did not come from the dashboard's own page.")
            return
        if kind == "websocket":
            if signed_in:
                await self.app(scope, receive, send)
            else:  # closed before it is accepted: the handshake is answered 403, no session is made
                await send({"type": "websocket.close", "code": 1008})
            return
        query = urllib.parse.parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [value for key, value in query if key == "token"]
        rest = urllib.parse.urlencode([(key, value) for key, value in query if key != "token"])
        here = _local(path) + (f"?{rest}" if rest else "")  # this address without the token
        if given:
            if same(given[-1], self.token):  # taken once: kept in the cookie, removed from the address
                await _redirect(send, here, self._set_cookie(port))
            else:
                await self._sign_in_page(send, "The token in the address is not right. Copy the address again "
                                               "from the console.")
        elif signed_in:
            await self.app(scope, receive, _framed_here(send))
        elif path == HEALTH and method in ("GET", "HEAD"):
            await self.app(scope, receive, _only_health(send))
        elif method == "POST" and _header(scope, b"content-type").split(b";")[0].strip() == FORM:
            await self._sign_in(receive, send, port, here)
        else:  # the body (an upload) is never read: the connection closes after this answer
            await self._sign_in_page(send, None, head=method == "HEAD")

    def _set_cookie(self, port: int) -> tuple[bytes, bytes]:
        return (b"set-cookie", f"{cookie_name(port)}={self._cookie}; Path=/; HttpOnly; SameSite=Strict".encode())

    async def _sign_in(self, receive: Receive, send: Send, port: int, here: str) -> None:
        """The form, posted to the page it was shown for: right, that page opens; wrong, the form again."""
        body = await _form_body(receive)
        fields = dict(urllib.parse.parse_qsl(body.decode("utf-8", "replace"))) if body is not None else {}
        if same(fields.get("token", "").strip(), self.token):
            await _redirect(send, here, self._set_cookie(port))
        else:
            await self._sign_in_page(send, "That token is not right. Copy it again from the console or the token "
                                           "file.")

    async def _sign_in_page(self, send: Send, error: str | None, head: bool = False) -> None:
        """All a visitor without the token gets: whose dashboard this is and where its token is kept."""
        page = sign_in_page(self.account, self.token_path, error).encode()
        headers = [*_PAGE_HEADERS, (b"content-length", str(len(page)).encode()), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else page})


def sign_in_page(account: str, token_path: str, error: str | None) -> str:
    """Plain HTML: no script, no file of Streamlit's, nothing of the dashboard but its owner's name (not even the
    address asked for: the form posts back to it)."""
    where = (f" and kept in the file <code>{html.escape(token_path)}</code>, which only that account can read"
             if token_path else "")
    problem = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>TVineSynth Studio: sign in</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; color: #262730; }}
input {{ width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; margin: .3rem 0 1rem; }}
button {{ padding: .5rem 1rem; font-size: 1rem; }}
.error {{ color: #9c1c1c; background: #fdecec; padding: .6rem; border-radius: .3rem; }}
</style></head>
<body><main>
<h1>TVineSynth Studio</h1>
<p>This dashboard belongs to the account <strong>{html.escape(account)}</strong> on this computer and opens only with
its access token, so that no other account can see or change what it holds.</p>
<p>The token is printed in the console where the dashboard was started{where}. If this is not your dashboard, yours is
at the address your own console printed.</p>
{problem}
<form method="post">
<label for="token">Access token</label>
<input id="token" name="token" type="password" autocomplete="off" autofocus>
<button type="submit">Open the dashboard</button>
</form>
</main></body></html>
"""


ELSEWHERE = ("This address was opened from another page. So that no other page can reach your data, the dashboard "
             "opens only from its own address: open the address your console printed, or give the token here.")


def own_host(scope: Scope, port: int) -> bool:
    """Whether the request names this server as a browser on this computer reaches it: a loopback name and this
    port. (A browser always sends ``Host``; a request without one names nothing else.)"""
    host = _header(scope, b"host").decode("latin-1").strip().lower()
    return not host or host in {f"{name}:{port}" for name in LOOPBACK_NAMES}


def own_origin(scope: Scope, port: int) -> str:
    """The dashboard's own origin, as the address this request was sent to spells it."""
    host = _header(scope, b"host").decode("latin-1").strip().lower() or f"127.0.0.1:{port}"
    return f"http://{host}"


def from_own_origin(scope: Scope, port: int) -> bool:
    """Whether a websocket or a request that may change something comes from the dashboard's own page: its
    ``Origin`` is the dashboard's (scheme, host and port), or the browser says ``Sec-Fetch-Site: same-origin`` where
    it sends ``Origin: null`` (a form posted from a page with no referrer, as the sign-in page is). A request with no
    origin at all is refused: a browser always sends one here, and a page must not be able to hide it."""
    origin = _header(scope, b"origin").decode("latin-1").strip().lower()
    if origin and origin != "null":
        return origin == own_origin(scope, port)
    return origin == "null" and _header(scope, b"sec-fetch-site").strip().lower() == b"same-origin"


def read_allowed(scope: Scope, port: int) -> bool:
    """Whether a GET, HEAD or OPTIONS may be answered: not from another origin's script (``Origin`` another's), and,
    where the browser says where a request comes from (``Sec-Fetch-Site``), from the dashboard's own pages or typed
    by the user (``none``). A request without those headers (a program, an old browser) is judged by its cookie
    alone, as before."""
    origin = _header(scope, b"origin").decode("latin-1").strip().lower()
    if origin and origin != "null" and origin != own_origin(scope, port):
        return False
    site = _header(scope, b"sec-fetch-site").strip().lower()
    return site in (b"", b"same-origin", b"none")


def navigation(scope: Scope) -> bool:
    """A top-level page load (a link followed, an address opened): never a frame, an image or a script's fetch."""
    return (_header(scope, b"sec-fetch-mode").strip().lower() == b"navigate"
            and _header(scope, b"sec-fetch-dest").strip().lower() in (b"document", b""))


def _port(scope: Scope) -> int:
    server = scope.get("server") or ("", 0)
    return int(server[1] or 0)


def cookie_values(scope: Scope, name: str) -> list[str]:
    """Every value of the cookies called ``name`` that the request carries, in order: a browser sends several of one
    name when another page planted one with a longer path, and that one comes first."""
    return values_in_headers([value.decode("latin-1") for key, value in scope.get("headers", []) if key == b"cookie"],
                             name)


def values_in_headers(headers: list[str], name: str) -> list[str]:
    """The values of every cookie called ``name`` in ``Cookie`` headers' text (also what the pages read)."""
    found = []
    for header in headers:
        for part in header.split(";"):
            key, sep, text = part.partition("=")
            if sep and key.strip() == name:
                found.append(text.strip())
    return found


def _header(scope: Scope, name: bytes) -> bytes:
    return next((value for key, value in scope.get("headers", []) if key == name), b"")


def _local(path: str) -> str:
    """A path of this server only, as a redirect's address."""
    path = path if isinstance(path, str) else "/"
    if not path.startswith("/") or path.startswith("//") or "\\" in path or any(ord(c) < 32 for c in path):
        return "/"
    return urllib.parse.quote(path, safe="/%:@!$&'()*+,;=-._~")


async def _refuse(send: Send, kind: str, why: str) -> None:
    """403, and nothing of the dashboard: a websocket closed before it is accepted, a request answered in one line."""
    if kind == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = why.encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store"),
                            (b"connection", b"close"), *_SERVED_HEADERS]})
    await send({"type": "http.response.body", "body": body})


def _framed_here(send: Send) -> Send:
    """Streamlit's answer, with the headers that keep another origin from framing the page or embedding a file."""
    async def guarded(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {key.lower() for key, _ in message.get("headers", [])}
            message = {**message, "headers": [*message.get("headers", []),
                                               *(h for h in _SERVED_HEADERS if h[0] not in present)]}
        await send(message)
    return guarded


async def _redirect(send: Send, location: str, cookie: tuple[bytes, bytes]) -> None:
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("latin-1")), cookie, (b"cache-control", b"no-store"),
                            (b"referrer-policy", b"no-referrer"), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


async def _form_body(receive: Receive) -> bytes | None:
    """The sign-in form's body, or None when it is larger than a form of a token can be (then left unread)."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += message.get("body", b"")
        if len(body) > FORM_BYTES:
            return None
        if not message.get("more_body", False):
            return body


def _only_health(send: Send) -> Send:
    """Streamlit's health answer without its cookie (the XSRF cookie it hands out) or any other header."""
    async def filtered(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [(k, v) for k, v in message.get("headers", [])
                                              if k.lower() in _HEALTH_HEADERS]}
        await send(message)
    return filtered


def gate_for(workspace) -> dict:
    """The middleware's settings for a workspace (``Middleware(TokenGate, **gate_for(space))``)."""
    return {"token": workspace.access_token(), "token_path": str(workspace.token_path),
            "account": _account()}


def _account() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.geteuid())
