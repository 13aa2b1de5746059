"""The noc timing model in the dashboard: the model switch, the header's makespan, the bars' hover.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from irtools.analysis.noc import NocModel
from tests.browser.conftest import wait_until

NOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc"
pytestmark = pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present")


def test_noc_model_switch_shows_geminis_latency_and_the_bound(dash_duo: Any, tmp_path: Path) -> None:
    app = create_app(NOC_DIR, open_file="vgg_4x4_b1_ul512_ir.json", noc=NocModel(8))
    dash_duo.start_server(app)
    dash_duo.wait_for_element("#timeline .main-svg", timeout=30)
    dash_duo.wait_for_contains_text("#status", "16 cores", timeout=30)
    labels = [e.text for e in dash_duo.find_elements("#model label")]
    assert labels == ["sequential", "dependency", "noc"]
    dash_duo.find_elements("#model input")[2].click()
    dash_duo.wait_for_contains_text("#status", "1,941,778", timeout=30)  # Gemini's T at NoC 8
    script = (
        "const g = document.querySelector('#timeline .js-plotly-plot');"
        "if (!g || !g.data) return [];"
        "return g.data.flatMap(t => (t.customdata || []).map(c => c[9] || '')).filter(s => s.includes('bound'));"
    )
    bounds = wait_until(lambda: dash_duo.driver.execute_script(script), 30)
    assert any("bound: NoC, 38,596 cycles on DRAM W0-&gt;(0,0)" in b for b in bounds)  # pool1
    assert any(b.startswith("<br>bound: compute") for b in bounds)
    # Hover pool1 on core 1: the tooltip a user sees names the NoC bound and its link.
    hover = (
        "const g = document.querySelector('#timeline .js-plotly-plot');"
        "const i = g.data.findIndex(t => t.name === 'pool');"
        "Plotly.Fx.hover(g, [{curveNumber: i, pointNumber: 0}]);"
        "const h = document.querySelector('#timeline .hovertext'); return h ? h.textContent : '';"
    )
    text = wait_until(lambda: dash_duo.driver.execute_script(hover), 30)
    assert "pool1" in text and "bound: NoC, 38,596 cycles on DRAM W0->(0,0)" in text
    assert dash_duo.get_logs() == []
    path = tmp_path / "dashboard-noc-model.png"
    dash_duo.driver.save_screenshot(str(path))
    keep = os.environ.get("IRTOOLS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
