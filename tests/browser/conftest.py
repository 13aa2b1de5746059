"""Browser-test setup for dash.testing's `dash_duo`: Chromium options, the `browser` marker, skips,
and one Chromium per test process handed from test to test.

`--headless` comes from pytest addopts (pyproject.toml). dash.testing itself adds --no-sandbox
(needed when Chromium runs as root, as on CI), --disable-gpu and --disable-dev-shm-usage.

dash.testing starts a Chromium for every test (1.1-1.7 s, and up to 1.1 s to quit) and serves each
test's app on a new port, so every page fetched and compiled Plotly's 4.6 MB bundle again (1.8 s before
the first graph drew; 0.25 s from the cache). Here `dash_duo` borrows the process's one Chromium and
serves every app on the process's one port (the same origin: the bundle comes from the cache). Between
tests the browser is put back as dash.testing would start it: the page left, cookies (127.0.0.1's are
shared by every port) and the origin's storage cleared, window size and emulation reset, the console
log drained, downloads sent to the test's own folder. A browser that fails any of that is replaced.
"""

from __future__ import annotations

import logging
import shutil
import socket
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


WINDOW = (1400, 1000)
"""The window every test starts with (`--window-size`, set again after a test that changed it)."""


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
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    # Test machines may have no network: stop Chromium's background fetches (refused noisily otherwise).
    options.add_argument("--disable-background-networking")
    options.add_argument("--disable-component-update")
    options.add_argument("--no-first-run")
    return options


class _Chromium:
    """The test process's one Chromium, started when a test first needs it."""

    def __init__(self, config: pytest.Config, folder: Path) -> None:
        self._config = config
        self._folder = folder
        self._browser: Any = None

    def lend(self, downloads: Path) -> Any:
        """The driver, its console log drained and its downloads going to `downloads`."""
        from dash.testing.browser import Browser

        if self._browser is None:
            self._browser = Browser(
                browser=self._config.getoption("webdriver"),
                headless=self._config.getoption("headless"),
                options=self._config.hook.pytest_setup_options(),
                download_path=str(self._folder),
            )
        driver = self._browser.driver
        driver.get_log("browser")  # read entries are gone: the test's get_logs() sees only its own
        driver.execute_cdp_cmd(
            "Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
        )
        return driver

    def take_back(self, origin: str | None) -> None:
        """Put the browser back as a new one would be, or quit it if it cannot be."""
        from selenium.common.exceptions import WebDriverException

        if self._browser is None:
            return
        driver = self._browser.driver
        try:
            for handle in driver.window_handles[1:]:
                driver.switch_to.window(handle)
                driver.close()
            driver.switch_to.window(driver.window_handles[0])
            driver.get("about:blank")  # before the server stops: no fetch of the old page fails later
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            if origin:
                driver.execute_cdp_cmd(
                    "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": _ORIGIN_STORAGE}
                )
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            driver.set_window_size(*WINDOW)
        except WebDriverException:
            self.quit()

    def quit(self) -> None:
        if self._browser is not None:
            browser, self._browser = self._browser, None
            browser.__exit__(None, None, None)


_ORIGIN_STORAGE = "local_storage,session_storage,indexeddb,service_workers,cache_storage,file_systems"
"""What a page may leave on its origin for the next test; the HTTP cache (Plotly's bundle) is kept."""


@pytest.fixture(scope="session")
def _chromium(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[_Chromium]:
    chromium = _Chromium(request.config, tmp_path_factory.mktemp("chromium"))
    yield chromium
    chromium.quit()


@pytest.fixture(scope="session")
def _page_port() -> int:
    from tests.conftest import free_port

    return free_port()


def _free(port: int) -> bool:
    """Whether a server could listen on `port` now (as werkzeug's does: reusing a closed socket's address)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture
def dash_duo(
    request: pytest.FixtureRequest,
    dash_thread_server: Any,
    tmp_path: Path,
    _chromium: _Chromium,
    _page_port: int,
) -> Iterator[Any]:
    """dash.testing's `dash_duo` on the process's Chromium, serving on the process's port when it is free.

    A test may still name its own port. dash.testing numbers its servers' ports from 58050 in every
    process, so the two xdist workers' browser tests asked for the same ports ("Address already in
    use", and the browser then read the other worker's app: two CI failures on 2026-11-26); the
    process's port comes from the OS. Grouping the browser tests onto one worker (`--dist loadgroup`)
    did nothing: pytest-xdist 3.8 tags the grouped tests by assigning `item._nodeid`, which pytest 9
    no longer reads.
    """
    from dash.testing.composite import DashComposite

    from tests.conftest import free_port

    downloads = tmp_path / "download"
    downloads.mkdir()
    driver = _chromium.lend(downloads)

    class Borrowed(DashComposite):  # type: ignore[misc]
        def get_webdriver(self) -> Any:  # the process's browser; `_Chromium.take_back` resets it
            return driver

    duo = Borrowed(
        server=dash_thread_server,
        browser=request.config.getoption("webdriver"),
        headless=request.config.getoption("headless"),
        download_path=str(downloads),
    )
    start_server = duo.start_server

    def on_the_page_port(app: Any, navigate: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("port", _page_port if _free(_page_port) else free_port())
        start_server(app, navigate=navigate, **kwargs)

    duo.start_server = on_the_page_port
    try:
        yield duo
    finally:
        port = getattr(dash_thread_server, "port", None)
        _chromium.take_back(f"http://127.0.0.1:{port}" if dash_thread_server.started and port else None)


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
