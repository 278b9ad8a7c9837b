"""The access token in front of every route of the dashboard's server, as an ASGI middleware (Starlette's and
uvicorn's interface; nothing here imports Streamlit).

Every account on a shared server can reach 127.0.0.1, and Streamlit's own routes (``/_stcore/*``: health, metrics,
uploads, the websocket; ``/media``, components, static files) answered without the token when the token was asked
only by the pages. So the gate decides before any route runs: a request without the token gets a sign-in page that
holds no data (no page name, no script, no Streamlit file) and nothing else. The token is taken once from
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
        signed_in = same(_cookies(scope).get(cookie_name(port)), self._cookie)
        path = scope.get("path", "/")
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
        method = scope.get("method")
        if given:
            if same(given[-1], self.token):  # taken once: kept in the cookie, removed from the address
                await _redirect(send, here, self._set_cookie(port))
            else:
                await self._sign_in_page(send, "The token in the address is not right. Copy the address again "
                                               "from the console.")
        elif signed_in:
            await self.app(scope, receive, send)
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


def _port(scope: Scope) -> int:
    server = scope.get("server") or ("", 0)
    return int(server[1] or 0)


def _cookies(scope: Scope) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            for part in value.decode("latin-1").split(";"):
                name, sep, text = part.partition("=")
                if sep:
                    found.setdefault(name.strip(), text.strip())
    return found


def _header(scope: Scope, name: bytes) -> bytes:
    return next((value for key, value in scope.get("headers", []) if key == name), b"")


def _local(path: str) -> str:
    """A path of this server only, as a redirect's address."""
    path = path if isinstance(path, str) else "/"
    if not path.startswith("/") or path.startswith("//") or "\\" in path or any(ord(c) < 32 for c in path):
        return "/"
    return urllib.parse.quote(path, safe="/%:@!$&'()*+,;=-._~")


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
