"""Many browsers on one served file: all answered, from one shared build; a bad request is a plain 500."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

from dashboards import data
from dashboards.app import create_app
from tests.dashboard.dash_client import DashClient

CLIENTS = 20
# A real 2x2 schedule after address allocation (1.1 MB): big enough that loading takes a while.
FILE = "gemini-alloc/resnet_2x2_b1_alloc.json"


@pytest.fixture
def server(fixtures_dir: Path) -> Iterator[tuple[BaseWSGIServer, mock.MagicMock]]:
    """`irtools serve FILE` as the CLI runs it (threaded werkzeug), counting the loads."""
    with mock.patch("dashboards.data.load_entry", wraps=data.load_entry) as load:
        app = create_app(fixtures_dir / FILE)  # starts loading the file in the background, as serve does
        httpd = make_server("127.0.0.1", 0, app.server, threaded=True)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield httpd, load
        httpd.shutdown()
        thread.join(timeout=10)
        httpd.server_close()


def test_twenty_clients_at_once_are_all_answered_from_one_build(
    server: tuple[BaseWSGIServer, mock.MagicMock],
) -> None:
    httpd, load = server
    url = f"http://127.0.0.1:{httpd.server_port}"
    key = Path(FILE).name

    def client(_: int) -> dict[str, Any]:
        return DashClient(url, timeout=300).open_file(key)

    with ThreadPoolExecutor(CLIENTS) as pool:
        pages = list(pool.map(client, range(CLIENTS)))
    assert len(pages) == CLIENTS
    for page in pages:
        assert f"{key}: 4 cores" in str(page["header"])
        assert page["timeline"]["timeline"]["figure"]["data"]
        assert page["maps"]["l2-map"]["figure"]["data"]
    assert {str(p["findings"]["findings-summary"]["children"]) for p in pages} == {
        str(pages[0]["findings"]["findings-summary"]["children"])
    }
    assert load.call_count == 1  # one build shared by all 20 (and the background warm-up)


@pytest.mark.parametrize("body", [b"{not json", b'{"output": "status.children"}', b"[]", b"\xff\xfe"])
def test_a_malformed_callback_is_a_plain_500_without_a_traceback(
    server: tuple[BaseWSGIServer, mock.MagicMock], body: bytes
) -> None:
    httpd, _ = server
    request = urllib.request.Request(
        f"http://127.0.0.1:{httpd.server_port}/_dash-update-component",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    text = refused.value.read().decode(errors="replace")
    assert refused.value.code in (400, 500) and "Traceback" not in text and 'File "' not in text
