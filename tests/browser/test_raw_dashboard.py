"""The dashboard on the real raw-dialect files (Gemini's IR before address allocation) in headless Chromium.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from tests.browser.conftest import wait_until

RAW_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw"
pytestmark = pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")


def _traces(dash_duo: Any, graph: str) -> list[dict[str, Any]]:
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "if (!g || !g.data) return '[]';"
        "return JSON.stringify(g.data.map((t, i) => ({name: t.name, type: t.type, stackgroup: t.stackgroup || null,"
        "n: (g.calcdata && g.calcdata[i] ? g.calcdata[i].length : 0)})));"
    )
    return json.loads(dash_duo.driver.execute_script(script))


def _wait(predicate: Any, timeout: float = 15.0) -> Any:
    return wait_until(predicate, timeout)


def test_4x4_file_shows_16_cores_by_mesh_position_and_the_block_map(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(RAW_DIR, open_file="resnet_4x4_b4_ff1_ss2_rr50_ir.json"))
    dash_duo.wait_for_element("#timeline .main-svg", timeout=20)
    dash_duo.wait_for_contains_text("#status", "16 cores, 1,920 workloads", timeout=20)
    assert "core 22 (3,3)" in dash_duo.find_element("#status").text  # the summary cards name mesh positions
    script = "return Array.from(document.querySelectorAll('#timeline .ytick text')).map(e => e.textContent);"
    ticks = _wait(lambda: [t for t in dash_duo.driver.execute_script(script) if t.startswith("core")])
    assert len(ticks) == 16 and "core 1 (0,0)" in ticks and "core 22 (3,3)" in ticks
    areas = _wait(lambda: [t for t in _traces(dash_duo, "l2-map") if t.get("stackgroup") == "held"])
    assert [t["name"] for t in areas] == ["ifmap", "weight", "ofmap"]
    # core 1 runs 120 workloads: one point per snapshot on the cycles axis, and the last held to its end
    assert areas[0]["n"] == 121
    assert "core 1 (0,0)" in dash_duo.find_element("#l2-map .gtitle").text
    dash_duo.wait_for_contains_text("#findings-summary", "0 errors, 0 warnings, 3 info", timeout=20)
    assert dash_duo.get_logs() == []
    path = tmp_path / "dashboard-raw-4x4.png"
    dash_duo.driver.save_screenshot(str(path))
    keep = os.environ.get("IRTOOLS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
