"""The dashboard on the SET allocator's real 4x4 file (allocated dialect) in headless Chromium.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshot for a look.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from tests.browser.conftest import wait_until
from tests.browser.test_dashboard import _shot

ALLOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-alloc"
pytestmark = pytest.mark.skipif(not ALLOC_DIR.is_dir(), reason="../shared/fixtures not present")


def test_4x4_alloc_file_draws_the_address_map_with_the_given_l2_end(dash_duo: Any, tmp_path: Path) -> None:
    app = create_app(ALLOC_DIR, open_file="resnet_4x4_b4_ff1_ss2_rr50_alloc.json", l2_size=512 * 1024)
    dash_duo.start_server(app)
    dash_duo.wait_for_element("#timeline .main-svg", timeout=20)
    dash_duo.wait_for_contains_text("#status", "16 cores, 1,920 workloads", timeout=20)
    script = (
        "const g = document.querySelector('#l2-map .js-plotly-plot');"
        "if (!g || !g.data) return '[]';"
        "return JSON.stringify({names: g.data.map(t => t.name), stack: g.data.some(t => t.stackgroup),"
        "text: Array.from(document.querySelectorAll('#l2-map text')).map(e => e.textContent)});"
    )
    def drawn() -> dict[str, Any] | None:
        found = json.loads(dash_duo.driver.execute_script(script) or "[]")
        return found if found and found["names"] else None

    shown = wait_until(drawn, 20)
    # Rectangles at their addresses (the documented dialect's map), not the block-count area chart.
    assert not shown["stack"] and "ifmap" in shown["names"] and "weight" in shown["names"]
    # The user's L2 size is the buffer end; core 1 reaches 604 blocks, past it.
    assert any("L2 end (512 KiB)" in t for t in shown["text"]), shown["text"]
    # GIR301 on each of the 16 cores (each reaches 604 to 692 blocks against 512).
    dash_duo.wait_for_contains_text("#findings-summary", "16 errors", timeout=30)
    assert dash_duo.get_logs() == []
    _shot(dash_duo, tmp_path, "dashboard-alloc-4x4")
