"""The server's edges, as the red team found them: where the token form posts and redirects go, the
Host header on loopback, the request log, uploads in flight and crafted downloads."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, request
from flask.testing import FlaskClient

from dashboards.access import allowed_host, require_local_host, require_token, without_token
from dashboards.app import create_app
from dashboards.data import FileStore
from dashboards.upload_store import REFUSED_HEADER, UPLOAD_REQUEST_BYTES, limit_uploads
from tests.conftest import HTML, ROOT, TOKEN, free_port
from tests.dashboard.dash_client import DashClient

ESCAPES = [
    "/%5Cevil.example/x",  # a backslash: browsers read /\evil.example as //evil.example
    "/%09/evil.example",  # a tab: browsers drop it, leaving //evil.example
    "/%5C%5Cevil.example",
    "/%0A/evil.example",
    "/%0D%0A/evil.example",
    "//evil.example/x",
    "/%2F/evil.example",
    "/%20/evil.example",
    "/x/%5C..%5C..%5Cevil.example",
]


def _on_this_server(target: str) -> bool:
    """Whether a browser resolves `target` (an action or Location) to the page's own origin and a known page."""
    return target in ("/", "/sweep/") or re.fullmatch(r"/(sweep/)?\?[\w%=&.+-]*", target) is not None


@pytest.mark.parametrize("path", ESCAPES)
def test_the_refusal_form_posts_only_to_a_page_of_this_server(client: FlaskClient, path: str) -> None:
    page = client.get(path + "?file=mesh.json", headers=HTML)
    assert page.status_code == 403
    actions = re.findall(r'action="([^"]*)"', page.get_data(as_text=True))
    assert actions == ["/"], actions


@pytest.mark.parametrize("path", ESCAPES)
def test_the_token_redirect_stays_on_this_server(client: FlaskClient, path: str) -> None:
    moved = client.get(f"{path}?token={TOKEN}&file=mesh.json")
    assert moved.status_code == 302
    location = moved.headers["Location"]
    assert location == "/?file=mesh.json" and _on_this_server(location), location


def test_the_sweep_page_keeps_its_own_address(client: FlaskClient) -> None:
    moved = client.get(f"/sweep/?token={TOKEN}")
    assert moved.status_code == 302 and moved.headers["Location"] == "/sweep/"
    moved = client.get(f"/sweep?token={TOKEN}")  # the route is /sweep/: its own name, not the request's
    assert moved.status_code == 302 and moved.headers["Location"] == "/sweep/"
    page = client.get("/sweep/%5Cevil.example", headers={**HTML, "Cookie": ""})
    assert re.findall(r'action="([^"]*)"', page.get_data(as_text=True)) in ([], ["/sweep/"])


@pytest.mark.parametrize(
    ("host", "allowed", "answered"),
    [
        ("localhost:8050", [], True),
        ("127.0.0.1:8050", [], True),
        ("127.0.0.2", [], True),
        ("[::1]:8050", [], True),
        ("LocalHost", [], True),
        ("evil.example", [], False),
        ("evil.example:8050", [], False),
        ("localhost.evil.example", [], False),
        ("127.0.0.1.evil.example", [], False),
        ("", [], False),
        ("lab.local:8050", ["lab.local"], True),
        ("anything", ["*"], True),
    ],
)
def test_which_host_names_a_loopback_server_answers(host: str, allowed: list[str], answered: bool) -> None:
    assert allowed_host(host, allowed) is answered


def test_a_rebound_name_is_refused_before_the_token_is_asked(served: Path) -> None:
    app = create_app(served)
    require_token(app.server, TOKEN)
    require_local_host(app.server, ["lab.local"])
    client = app.server.test_client()
    refused = client.get(f"/?token={TOKEN}", headers={"Host": "evil.example:8050"})
    assert refused.status_code == 403 and "--allow-host" in refused.get_data(as_text=True)
    assert "evil" not in refused.get_data(as_text=True)  # nothing of the request is echoed
    assert client.get(f"/?token={TOKEN}", headers={"Host": "lab.local:8050"}).status_code == 302
    assert client.get("/_dash-layout", headers={"Host": "lab.local:8050"}).status_code == 200  # the cookie


def test_the_log_hides_every_token_value() -> None:
    line = f'"GET /?file=a.json&token={TOKEN}&core=1 HTTP/1.1" 302 -'
    assert without_token(line) == '"GET /?file=a.json&token=[hidden]&core=1 HTTP/1.1" 302 -'
    assert TOKEN not in without_token(f'"GET /x?%74oken={TOKEN} HTTP/1.1" 403 -')
    assert TOKEN not in without_token(f'"GET /?TOKEN={TOKEN}&token={TOKEN} HTTP/1.1" 403 -')
    assert without_token('"GET /?file=a HTTP/1.1" 200 -') == '"GET /?file=a HTTP/1.1" 200 -'


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    opener = urllib.request.build_opener(_NoRedirect())
    try:
        with opener.open(request, timeout=30) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


def test_serve_logs_no_token_and_refuses_a_foreign_host(served: Path, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "irtools", "serve", str(served), "--port", str(port), "--token", TOKEN],
            stderr=err,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            deadline = time.monotonic() + 60
            while "kept in all" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.2)
            base = f"http://127.0.0.1:{port}"
            assert _get(f"{base}/?token={TOKEN}&file=mesh.json")[0] == 302
            assert _get(f"{base}/x?token={TOKEN}", HTML)[0] == 302
            assert _get(f"{base}/?token=wrong-{TOKEN}", HTML)[0] == 403
            status, text = _get(f"{base}/?token={TOKEN}", {"Host": f"evil.example:{port}"})
            assert status == 403 and "--allow-host" in text
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    written = log.read_text()
    assert written.count("token=[hidden]") >= 3, written
    assert TOKEN not in written.split("serving", 1)[1].split("\n", 1)[1], written  # the start line prints it


def test_a_third_upload_in_flight_is_refused_unread_with_a_message() -> None:
    server = Flask(__name__)
    limit_uploads(server)
    entered, release = threading.Semaphore(0), threading.Event()

    @server.post("/_dash-update-component")
    def upload() -> str:
        if (request.content_length or 0) >= UPLOAD_REQUEST_BYTES:  # an upload: held until released
            entered.release()
            release.wait(30)
        return "read"

    body = b"x" * UPLOAD_REQUEST_BYTES
    answers: list[int] = []

    def send() -> None:
        answers.append(server.test_client().post("/_dash-update-component", data=body).status_code)

    holders = [threading.Thread(target=send) for _ in range(2)]
    for t in holders:
        t.start()
    for _ in holders:
        assert entered.acquire(timeout=30)
    third = server.test_client().post("/_dash-update-component", data=body)
    assert third.status_code == 503 and third.headers[REFUSED_HEADER] == "uploads"
    assert "2 uploads are being read already" in third.get_data(as_text=True)
    small = server.test_client().post("/_dash-update-component", data=b"{}")  # other callbacks go on
    release.set()
    for t in holders:
        t.join(30)
    assert answers == [200, 200] and small.status_code == 200
    assert server.test_client().post("/_dash-update-component", data=body).status_code == 200  # freed


def test_the_dashboard_refuses_a_third_upload_while_two_are_read(
    served: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(served)
    entered, release = threading.Semaphore(0), threading.Event()
    add = FileStore.add_upload

    def slow(self: FileStore, filename: str, contents: str) -> str:
        entered.release()
        release.wait(30)
        return add(self, filename, contents)

    monkeypatch.setattr(FileStore, "add_upload", slow)
    dash = DashClient(app.server.test_client())
    contents = "data:application/json;base64," + "A" * UPLOAD_REQUEST_BYTES
    body = dash.body("current.data", {"upload.contents": contents}, {"upload.filename": "big.json"})
    statuses: list[int] = []

    def send() -> None:
        statuses.append(app.server.test_client().post("/_dash-update-component", json=body).status_code)

    holders = [threading.Thread(target=send) for _ in range(2)]
    for t in holders:
        t.start()
    for _ in holders:
        assert entered.acquire(timeout=60)
    third = app.server.test_client().post("/_dash-update-component", json=body)
    release.set()
    for t in holders:
        t.join(60)
    assert third.status_code == 503 and "upload again when one of them is done" in third.get_data(
        as_text=True
    )
    assert statuses == [200, 200]


def test_an_unknown_table_is_a_client_error_without_a_traceback(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    client.get(f"/?token={TOKEN}")
    dash = DashClient(client)
    caplog.set_level(logging.INFO)
    for name in ("no_such_table", "../../etc/passwd", ["timeline"], {"a": 1}, 7):
        body = dash.body(
            "download.data",
            {"download-button.n_clicks": 1},
            {"table-name.value": name, "shown.data": "mesh.json"},
        )
        answer = client.post("/_dash-update-component", json=body)
        assert answer.status_code == 400, (name, answer.status_code)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    fine = dash.call(
        "download.data",
        {"download-button.n_clicks": 1},
        {"table-name.value": "layers", "shown.data": "mesh.json"},
    )
    assert fine["download"]["data"]["filename"] == "layers.csv"
