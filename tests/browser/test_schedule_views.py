"""Reading a schedule in headless Chromium: NoC stalls apart from compute, the aggregated timeline's
critical path, counter tracks and the link x time heatmap (issue 29: 1, 7, beyond the peers).

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from tests.browser.conftest import wait_until

NOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc"
VGG = "vgg_4x4_b1_ul512_ir.json"
needs_fixtures = pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present")


def _keep(dash_duo: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    dash_duo.driver.save_screenshot(str(path))
    keep = os.environ.get("IRTOOLS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def _trace_names(dash_duo: Any, graph: str) -> list[str]:
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "return g && g.data ? g.data.map(t => t.name || '') : [];"
    )
    return list(dash_duo.driver.execute_script(script))


@needs_fixtures
def test_under_noc_cards_and_rows_show_noc_stalls_apart_from_compute(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(NOC_DIR, open_file=VGG))
    dash_duo.wait_for_contains_text("#status", "16 cores", timeout=60)
    dash_duo.wait_for_element("#timeline .main-svg", timeout=60)
    dash_duo.find_elements("#model input")[2].click()  # noc, at the manifest's NoC 8
    dash_duo.wait_for_contains_text("#status", "95% compute, 5% NoC stall", timeout=60)
    texts = {e.text for e in dash_duo.find_elements("#status .busy-text")}
    assert texts == {"95% compute, 5% NoC stall"}  # was "100% busy" on every card
    wait_until(lambda: "NoC-stalled" in _trace_names(dash_duo, "timeline"), 60)
    # The stall bars are drawn: hatched pink after the NoC-bound layers' compute.
    assert dash_duo.find_elements("#timeline .barlayer .trace path")
    assert dash_duo.get_logs() == []
    _keep(dash_duo, tmp_path, "noc-stalls.png")
