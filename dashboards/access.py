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
from html import escape
from urllib.parse import urlencode

from flask import Flask, redirect, request, session
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
            if request.method == "GET":  # the same address without the token
                rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
                return redirect(_local_path() + ("?" + urlencode(rest) if rest else ""), code=302)
            return None
        if session.get("access") is True:
            return None
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() in ("token", "bearer") and same_token(value.strip(), token):
            return None
        return _refused()


def _local_path() -> str:
    """The request's path as a link on this server: "//host/x" would send the browser (and a token) away."""
    return "/" + request.path.lstrip("/")


def _refused() -> Response:
    if request.method == "GET" and request.accept_mimetypes.accept_html:
        # The form sends the token to the same address: a shared link (?file=...&core=...) still opens.
        kept = "".join(
            f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
            for k, v in request.args.items(multi=True)
            if k != "token"
        )
        page = REFUSED_PAGE.format(path=escape(_local_path()), kept=kept)
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
