"""Access to a dashboard served off loopback: a token, as Jupyter asks for one.

The token comes once in the URL (`?token=...`); the server then keeps a session cookie (Flask's,
signed by itsdangerous, HttpOnly, SameSite=Lax) and redirects to the same address without the
token, so the address bar can be copied and shared without it. Every request (page, scripts,
callbacks, downloads) without a valid cookie, token or `Authorization: token ...` header is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from collections.abc import Iterable
from html import escape
from typing import Any
from urllib.parse import unquote_plus, urlencode, urlsplit

from flask import Flask, current_app, redirect, request, session
from werkzeug.routing import RequestRedirect
from werkzeug.serving import WSGIRequestHandler
from werkzeug.wrappers import Response

TOKEN_ENV = "IRTOOLS_TOKEN"
SHORT_TOKEN = 16
"""Below this many characters a token is easy to guess: `serve` warns."""

REFUSED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>irtools: access token needed</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>This irtools dashboard needs its access token</h1>
<p>Open the address that <code>irtools serve</code> printed when it started (it ends in
<code>?token=&hellip;</code>), or ask whoever started the server for the token and enter it here.</p>
<form method="get" action="{path}">{kept}<input name="token" type="password" size="50" autofocus
 aria-label="access token"> <button type="submit">Open</button></form>
</body></html>
"""
REFUSED_TEXT = "irtools serve: access token needed (open the address irtools serve printed)\n"


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, or a name resolving only there)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False  # serve reports a host that does not resolve when it tries to listen
    return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)


def same_token(given: str, token: str) -> bool:
    """Compare in constant time (bytes: compare_digest refuses non-ASCII str)."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def require_token(server: Flask, token: str, cookie_name: str = "irtools") -> None:
    """Refuse every request to `server` that does not carry `token` (or the cookie it earns).

    `cookie_name` should differ per port: browsers share cookies between the ports of one host.
    """
    # The session cookie is signed with the token itself: it stays valid across restarts with the
    # same --token, and a new token (a restart without one) invalidates every cookie.
    server.secret_key = token
    server.config.update(
        SESSION_COOKIE_NAME=cookie_name,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
    )

    @server.before_request
    def check_token() -> Response | None:
        given = request.args.get("token")
        if given is not None and same_token(given, token):
            session["access"] = True
            if request.method == "GET":  # the same page without the token
                rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
                return redirect(_own_path() + ("?" + urlencode(rest) if rest else ""), code=302)
            return None
        if session.get("access") is True:
            return None
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() in ("token", "bearer") and same_token(value.strip(), token):
            return None
        return _refused()

    # First among the checks (after the Host check): a request without the token touches nothing else.
    server.before_request_funcs[None].insert(0, server.before_request_funcs[None].pop())


def _own_path() -> str:
    """The page this request asked for, as the server spells it: its route up to any variable part.

    Never text from the request: browsers read `/\\evil.example/x` (a `%5C` in the path) and
    `/<tab>/evil.example` (`%09`, tabs are dropped) as `//evil.example`, another host, and would
    send the token there from the form or follow a redirect there. Dash's catch-all `/<path:path>`
    gives "/"; the sweep page's routes give "/sweep/".
    """
    rule = request.url_rule
    own = rule.rule.split("<", 1)[0] if rule is not None else "/"
    moved = request.routing_exception
    if rule is None and isinstance(moved, RequestRedirect):  # `/sweep` for the route `/sweep/`
        wanted = urlsplit(moved.new_url).path
        own = wanted if wanted in {r.rule for r in current_app.url_map.iter_rules()} else "/"
    return own if own.startswith("/") and not own.startswith("//") else "/"


def _refused() -> Response:
    if request.method == "GET" and request.accept_mimetypes.accept_html:
        # The form sends the token to the same address: a shared link (?file=...&core=...) still opens.
        kept = "".join(
            f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
            for k, v in request.args.items(multi=True)
            if k != "token"
        )
        page = REFUSED_PAGE.format(path=escape(_own_path()), kept=kept)
        return Response(page, status=403, mimetype="text/html")
    return Response(REFUSED_TEXT, status=403, mimetype="text/plain")


def choose_token(host: str, given: str | None, environ: dict[str, str]) -> str | None:
    """The token `serve` asks for, None for none: `--token` (an empty one turns it off), else on
    loopback none, else $IRTOOLS_TOKEN, else a new one."""
    if given is not None:
        return given or None
    if is_loopback(host):
        return None
    return environ.get(TOKEN_ENV) or new_token()


LOCAL_NAMES = ("localhost",)
"""Host names a loopback server answers to besides its loopback addresses (Jupyter's local_hostnames)."""
HOST_REFUSED = (
    "irtools serve: this server answers to requests for {names} only (the Host header); "
    "start it with --allow-host NAME to be reached by another name\n"
)


def allowed_host(host_header: str, allowed: Iterable[str]) -> bool:
    """Whether a request's Host (name or address, with or without port) is this machine or an allowed name."""
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8050
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    names = {n.lower() for n in allowed}
    if "*" in names or host in names or host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_local_host(server: Flask, allowed: Iterable[str] = ()) -> None:
    """Refuse requests to a loopback server whose Host header names another machine.

    A web page on any site can make the browser resolve its own name to 127.0.0.1 (DNS
    rebinding) and then read this server as same-origin; the Host header still carries that
    site's name. Jupyter refuses such requests unless told otherwise (`allow_remote_access`);
    so does `irtools serve` on loopback, unless the name is given by `--allow-host` ('*': any).
    """
    names = tuple(allowed)
    shown = ", ".join(sorted({*LOCAL_NAMES, "127.0.0.1", "[::1]", *names}))

    @server.before_request
    def check_host() -> Response | None:
        if allowed_host(request.host, names):
            return None
        return Response(HOST_REFUSED.format(names=shown), status=403, mimetype="text/plain")

    # Before any other check (the token's among them): a foreign name learns nothing else.
    server.before_request_funcs[None].insert(0, server.before_request_funcs[None].pop())


def without_token(line: str) -> str:
    """A request line (or any logged text) with the value of every `token` query parameter hidden."""
    head, mark, rest = line.partition("?")
    if not mark:
        return line
    query, space, tail = rest.partition(" ")
    parts = []
    for part in query.split("&"):
        key, equals, _ = part.partition("=")
        parts.append(f"{key}=[hidden]" if equals and unquote_plus(key).lower() == "token" else part)
    return f"{head}?{'&'.join(parts)}{space}{tail}"


class QuietTokenHandler(WSGIRequestHandler):
    """werkzeug's request handler, except that the request log never shows a token."""

    def log(self, type: str, message: str, *args: Any) -> None:
        """Log a request line with every token value in it replaced by [hidden]."""
        super().log(type, "%s", without_token(message % args if args else message))
