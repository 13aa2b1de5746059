"""A dashboard behind a token, in Chromium: refused without it, drawn with it, the address cleaned.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from dashboards.access import require_token
from dashboards.app import create_app
from tests.browser.conftest import wait_until
from tests.browser.test_dashboard import _shot

ROOT = Path(__file__).resolve().parents[2]
MESH = "valid/mesh2x2_conv_b1_c4_bw16_stschedule.json"
TOKEN = "browser-test-token-0123456789abcdef"


def _timeline_drawn(dash_duo: Any) -> bool:
    script = "const g = document.querySelector('#timeline .js-plotly-plot'); return !!(g && g.data && g.data.length);"
    return bool(dash_duo.driver.execute_script(script))


def test_the_token_opens_the_dashboard_and_leaves_the_address(dash_duo: Any, tmp_path: Path) -> None:
    app = create_app(ROOT / "sample_ir", open_file=MESH)
    require_token(app.server, TOKEN, cookie_name="irtools-test")
    dash_duo.start_server(app, navigate=False)
    base = dash_duo.server.url.rstrip("/")
    driver = dash_duo.driver

    driver.get(f"{base}/?file={MESH}&core=2")  # a shared view link, without the token
    wait_until(lambda: driver.find_elements(By.TAG_NAME, "h1"), 20)
    assert "needs its access token" in driver.find_element(By.TAG_NAME, "h1").text
    _shot(dash_duo, tmp_path, "access-refused")

    # Entering the token in the page's form opens the view the link named.
    driver.find_element(By.NAME, "token").send_keys(TOKEN)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_until(lambda: _timeline_drawn(dash_duo), 60)
    assert "token" not in driver.current_url and f"file={MESH}".replace("/", "%2F") in driver.current_url
    wait_until(lambda: "core 2" in driver.find_element(By.ID, "core").text, 30)
    _shot(dash_duo, tmp_path, "access-granted")
    cookies = {c["name"]: c for c in driver.get_cookies()}
    assert cookies["irtools-test"]["httpOnly"] and cookies["irtools-test"]["sameSite"] == "Lax"
    # Only the refused page (and its favicon) were 403: nothing the dashboard asked for after the token.
    refused = [e["message"] for e in dash_duo.get_logs() if "403" in e.get("message", "")]
    assert refused and all("/_dash" not in m for m in refused), refused
