"""Off loopback, every request needs the token (then its cookie); on loopback nothing is asked."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from dashboards.access import choose_token, is_loopback, require_token, same_token
from dashboards.app import create_app
from tests.conftest import HTML, TOKEN, free_port
from tests.dashboard.dash_client import DashClient

Serve = Callable[..., tuple[int, str]]


def test_without_the_token_page_scripts_callbacks_and_downloads_are_refused(client: FlaskClient) -> None:
    page = client.get("/", headers=HTML)
    assert page.status_code == 403 and "needs its access token" in page.get_data(as_text=True)
    assert TOKEN not in page.get_data(as_text=True)
    for path in (
        "/_dash-layout",
        "/_dash-dependencies",
        "/_dash-component-suites/dash/dcc/dash_core_components.js",
    ):
        assert client.get(path).status_code == 403, path
    refused = client.post("/_dash-update-component", json={"output": "download.data"})
    assert refused.status_code == 403 and "access token needed" in refused.get_data(as_text=True)
    assert client.get("/?token=wrong", headers=HTML).status_code == 403
    assert client.get("/?token=" + TOKEN[:-1], headers=HTML).status_code == 403


def test_the_token_earns_a_cookie_and_the_address_loses_the_token(client: FlaskClient) -> None:
    first = client.get(f"/?file=mesh.json&token={TOKEN}&core=1")
    assert first.status_code == 302 and first.headers["Location"] == "/?file=mesh.json&core=1"
    cookie = first.headers["Set-Cookie"]
    assert cookie.startswith("irtools-8050=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert TOKEN not in cookie
    # The browser follows the redirect with the cookie: page, layout and callbacks are served.
    assert client.get("/?file=mesh.json&core=1", headers=HTML).status_code == 200
    assert client.get("/_dash-layout").status_code == 200
    dash = DashClient(client)
    csv = dash.call(
        "download.data",
        {"download-button.n_clicks": 1},
        {"table-name.value": "layers", "shown.data": "mesh.json"},
    )
    assert csv["download"]["data"]["filename"] == "layers.csv"


def test_the_refusal_form_keeps_a_shared_link_and_escapes_it(client: FlaskClient) -> None:
    page = client.get('/?file=a"><script>x</script>&core=1&token=bad', headers=HTML).get_data(as_text=True)
    assert '<form method="get" action="/">' in page and "<script>" not in page
    assert '<input type="hidden" name="file" value="a&quot;&gt;&lt;script&gt;x&lt;/script&gt;">' in page
    assert '<input type="hidden" name="core" value="1">' in page and "bad" not in page


def test_a_path_starting_with_two_slashes_cannot_send_the_token_elsewhere(client: FlaskClient) -> None:
    # What a browser sends for http://lab:8050//attacker.example/ (the test client would read a host).
    odd = {"PATH_INFO": "//attacker.example/"}
    page = client.get("/?file=a", headers=HTML, environ_overrides=odd).get_data(as_text=True)
    assert 'action="/"' in page  # the server's own page, not //attacker.example
    moved = client.get(f"/?token={TOKEN}", environ_overrides=odd)
    assert moved.status_code == 302 and moved.headers["Location"] == "/"


def test_a_cookie_signed_for_another_token_is_refused(served: Path, client: FlaskClient) -> None:
    client.get(f"/?token={TOKEN}")
    other = create_app(served)
    require_token(other.server, "another-token-entirely-0123456789", cookie_name="irtools-8050")
    stranger = other.server.test_client()
    stranger.set_cookie("irtools-8050", client.get_cookie("irtools-8050").value)  # type: ignore[union-attr]
    assert stranger.get("/", headers=HTML).status_code == 403


def test_an_authorization_header_serves_scripts(client: FlaskClient) -> None:
    assert client.get("/_dash-layout", headers={"Authorization": f"token {TOKEN}"}).status_code == 200
    assert client.get("/_dash-layout", headers={"Authorization": "token nope"}).status_code == 403


def test_tokens_compare_whole_and_survive_odd_input() -> None:
    assert same_token(TOKEN, TOKEN) and not same_token(TOKEN + "x", TOKEN)
    assert not same_token("é" * 10, TOKEN)  # non-ASCII: no TypeError from compare_digest


@pytest.mark.parametrize(
    ("host", "given", "env", "expected"),
    [
        ("127.0.0.1", None, {"IRTOOLS_TOKEN": "from-env"}, None),  # loopback: nothing asked
        ("localhost", None, {}, None),
        ("::1", None, {}, None),
        ("127.0.0.1", "given", {}, "given"),  # unless asked for
        ("0.0.0.0", None, {"IRTOOLS_TOKEN": "from-env"}, "from-env"),
        ("0.0.0.0", "given", {"IRTOOLS_TOKEN": "from-env"}, "given"),
        ("0.0.0.0", "", {"IRTOOLS_TOKEN": "from-env"}, None),  # --token '' turns it off
    ],
)
def test_which_token(host: str, given: str | None, env: dict[str, str], expected: str | None) -> None:
    assert choose_token(host, given, env) == expected


def test_off_loopback_without_a_token_one_is_made() -> None:
    first, second = choose_token("0.0.0.0", None, {}), choose_token("0.0.0.0", None, {"IRTOOLS_TOKEN": ""})
    assert first and second and first != second and len(first) >= 40
    assert not is_loopback("0.0.0.0") and is_loopback("127.0.0.2")


@pytest.fixture
def serve(served: Path) -> Iterator[Serve]:
    """Start `irtools serve` on a free port with the given arguments; yields (port, first lines of stderr)."""
    started: list[subprocess.Popen[str]] = []
    readers: list[threading.Thread] = []

    def start(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "irtools", "serve", str(served), "--port", str(port), *args],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        started.append(proc)
        lines = []
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "kept in all" in line:
                break
        # Keep reading: the request log would fill the pipe and stall the server.
        reader = threading.Thread(target=proc.stderr.read, daemon=True)
        reader.start()
        readers.append(reader)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        return port, "".join(lines)

    yield start
    for proc, reader in zip(started, readers, strict=True):
        proc.terminate()
        proc.wait(timeout=10)
        reader.join(timeout=10)
        assert proc.stderr is not None
        proc.stderr.close()


def _status(url: str) -> int:
    """The status a browser ends on (redirects followed, cookies kept)."""
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    try:
        with browser.open(urllib.request.Request(url, headers=HTML), timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_serve_off_loopback_prints_the_token_url_and_refuses_without_it(serve: Serve) -> None:
    port, err = serve("--host", "0.0.0.0")
    token = re.search(r"http://127\.0\.0\.1:\d+/\?token=([\w-]+)", err)
    assert token, err
    assert _status(f"http://127.0.0.1:{port}/") == 403
    assert _status(f"http://127.0.0.1:{port}/?token={token[1]}") == 200  # redirected, with the cookie
    assert "warning" not in err


def test_serve_on_loopback_asks_for_nothing(serve: Serve) -> None:
    port, err = serve(env={"IRTOOLS_TOKEN": "ignored-on-loopback-0123456789"})
    assert f"at http://127.0.0.1:{port}/\n" in err
    assert _status(f"http://127.0.0.1:{port}/") == 200


def test_serve_with_the_token_turned_off_warns(serve: Serve) -> None:
    port, err = serve("--host", "0.0.0.0", "--token", "")
    assert "without a token (--token '')" in err and "token=" not in err
    assert _status(f"http://127.0.0.1:{port}/") == 200
