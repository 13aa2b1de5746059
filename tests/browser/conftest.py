"""Browser-test setup for dash.testing's `dash_duo`: Chromium options, the `browser` marker, skips.

`--headless` comes from pytest addopts (pyproject.toml). dash.testing itself adds --no-sandbox
(needed when Chromium runs as root, as on CI), --disable-gpu and --disable-dev-shm-usage.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _getheader(self: Any, name: str, default: Any = None) -> Any:
    return self.headers.get(name, default)


try:  # dash[testing] pins selenium<=4.2.0, which calls urllib3's deprecated HTTPResponse.getheader()
    from urllib3.response import HTTPResponse
except ImportError:  # no dash[testing]: these tests are skipped
    pass
else:
    # pyproject's filterwarnings ignores the warning, but that filter was lost in 2 of about 20 runs:
    # warnings.catch_warnings is not thread-safe and the page's server threads enter it. The call is
    # made the way the warning asks instead.
    HTTPResponse.getheader = _getheader


HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
NO_BROWSER = "needs /usr/bin/chromium and chromedriver (apt-get install chromium chromium-driver)"
NO_DASH_TESTING = 'needs dash[testing] (pip install -e ".[dev]")'


def wait_until(predicate: Any, timeout: float) -> Any:
    """Poll `predicate` until it returns something truthy (returned) or `timeout` seconds pass."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for the page")


# optionalhook: dash.testing declares this hook only when dash[testing] is installed.
@pytest.hookimpl(optionalhook=True)
def pytest_setup_options() -> object:
    """dash.testing hook: the Chrome options for each new browser.

    Return ONE Options object: pluggy collects every implementation's result into a list and
    dash.testing uses its first element. Build a fresh object per call, since dash.testing adds its
    own arguments to it.
    """
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.add_argument("--window-size=1400,1000")
    # Test machines may have no network: stop Chromium's background fetches (refused noisily otherwise).
    options.add_argument("--disable-background-networking")
    options.add_argument("--disable-component-update")
    options.add_argument("--no-first-run")
    return options


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test in this folder `browser`; skip them if dash[testing], Chromium or ChromeDriver is absent."""
    skip = None
    try:  # what dash.testing.plugin imports to decide whether dash[testing] is installed
        import dash.testing.browser  # noqa: F401
        import dash_testing_stub  # noqa: F401
    except ImportError:
        skip = NO_DASH_TESTING
    else:
        if not CHROMIUM.exists() or shutil.which("chromedriver") is None:
            skip = NO_BROWSER
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)
            if skip:
                item.add_marker(pytest.mark.skip(reason=skip))


@pytest.fixture(autouse=True)
def _server_on_a_free_port(request: pytest.FixtureRequest) -> None:
    """Serve each test's app on a port the OS says is free, unless the test names one.

    dash.testing numbers its servers' ports from 58050 in every process, so the two xdist workers'
    browser tests asked for the same ports: "Address already in use", and the browser then read the
    other worker's app (two CI failures on 2026-11-26). Grouping the browser tests onto one worker
    (`--dist loadgroup`) did nothing: pytest-xdist 3.8 tags the grouped tests by assigning
    `item._nodeid`, which pytest 9 no longer reads.
    """
    if "dash_duo" not in request.fixturenames:
        return
    from tests.conftest import free_port

    duo = request.getfixturevalue("dash_duo")
    start_server = duo.start_server

    def on_a_free_port(app: Any, navigate: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("port", free_port())
        start_server(app, navigate=navigate, **kwargs)

    duo.start_server = on_a_free_port


@pytest.fixture(scope="session", autouse=True)
def _ignore_server_kill() -> Iterator[None]:
    """Drop the SystemExit with which dash.testing stops its server thread.

    Its KillerThread raises SystemExit asynchronously; when that lands in one of werkzeug's request
    threads, pytest reports an unhandled thread exception and (with warnings as errors) fails the
    test's teardown, although the app did nothing wrong. Every other thread exception still counts.
    """
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit:
            previous(args)

    threading.excepthook = hook
    yield
    threading.excepthook = previous


@pytest.fixture(autouse=True)
def _unlock_loggers_after_server_kill() -> Iterator[None]:
    """Give every logging handler a fresh lock after each browser test.

    dash.testing stops its server by raising SystemExit in every thread the test started. One that
    lands in werkzeug's request log, after a handler took its lock and before it released it, leaves
    that lock held by a dead thread: every later request log in this process (the in-process servers
    of tests/dashboard) then waits forever. Seen as a hung CI run in test_concurrent_clients.
    """
    yield
    loggers = [logging.getLogger(), *(logging.getLogger(name) for name in logging.root.manager.loggerDict)]
    for logger in loggers:
        for handler in logger.handlers:
            if handler.lock is not None and handler.lock.acquire(timeout=1):
                handler.lock.release()  # free, or freed by a live thread within a second
            else:
                handler.createLock()  # still held: by a thread that is gone
