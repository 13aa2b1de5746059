"""A headless Chromium and a free port: what the browser benchmarks share."""

from __future__ import annotations

import socket
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def chromium() -> Any:
    """A headless Chromium (selenium driver) with a 1500x1200 window, as the browser tests run it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options

    options = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--window-size=1500,1200",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(options=options)
