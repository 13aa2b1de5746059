"""What the red team did in Chromium (issue 32): a token typed on a crafted path's 403 page, and a file
over the upload limit, which crashed the tab while the browser read it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from dashboards.access import require_token
from dashboards.app import create_app
from tests.browser.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
TOKEN = "browser-test-token-0123456789abcdef"


def test_the_token_typed_on_a_crafted_path_stays_on_this_server(dash_duo: Any, tmp_path: Path) -> None:
    (tmp_path / "mesh.json").write_text(MESH.read_text())
    app = create_app(tmp_path)
    require_token(app.server, TOKEN, cookie_name="irtools-test")
    dash_duo.start_server(app, navigate=False)
    base = dash_duo.server.url.rstrip("/")
    driver = dash_duo.driver
    for crafted in ("/%5Cevil.example/x", "/%09/evil.example"):
        driver.delete_all_cookies()
        driver.get(f"{base}{crafted}?file=mesh.json")
        wait_until(lambda: driver.find_elements(By.NAME, "token"), 20)
        driver.find_element(By.NAME, "token").send_keys(TOKEN)
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        # Before the fix Chromium went to http://evil.example/x?token=... (another host, the token in its URL).
        wait_until(lambda: driver.find_elements(By.ID, "status"), 30)
        assert driver.current_url.startswith(base + "/"), driver.current_url
        assert "evil" not in driver.current_url and "token" not in driver.current_url


def test_a_file_over_the_limit_is_refused_before_the_browser_reads_it(dash_duo: Any, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 3_000_000)
    dash_duo.start_server(create_app(served, max_upload_bytes=1_000_000))
    dash_duo.wait_for_contains_text("#status", "Pick an IR file", timeout=15)
    upload = dash_duo.find_element("#upload input[type=file]")
    wait_until(lambda: dash_duo.driver.execute_script("return window.irtoolsUploadGuard === true"), 15)
    # Count the browser's reads of a file (dcc.Upload reads with FileReader.readAsDataURL).
    dash_duo.driver.execute_script(
        "window.irtoolsReads = 0; const read = FileReader.prototype.readAsDataURL;"
        "FileReader.prototype.readAsDataURL = function (f) { window.irtoolsReads += 1; return read.call(this, f); };"
    )
    upload.send_keys(str(big))
    dash_duo.wait_for_contains_text("#message", "big.json is 3.0 MB; the upload limit is 1 MB", timeout=15)
    assert dash_duo.driver.execute_script("return window.irtoolsReads") == 0  # refused unread
    assert "big.json" not in dash_duo.find_element("#file-select").text
