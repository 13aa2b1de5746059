"""The sweep page of `irtools serve` and the sweep report, in headless Chromium, on the real gemini-sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from dashboards.sweep_report import write_sweep_report
from tests.browser.conftest import wait_until
from tests.conftest import FIXTURES, NO_FIXTURES

SWEEP = FIXTURES / "gemini-sweep"
pytestmark = pytest.mark.skipif(not SWEEP.is_dir(), reason=NO_FIXTURES)


def test_table_scatter_and_a_click_opens_the_schedule(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(SWEEP))
    dash_duo.driver.get(dash_duo.server_url + "/sweep/")
    dash_duo.wait_for_element("#sweep-scatter .scatterlayer .trace path.point", timeout=60)
    wait_until(lambda: len(dash_duo.find_elements("#sweep-table .ag-center-cols-container .ag-row")) == 12, 30)
    # 12 manifest runs: 10 IRs, and 2 runs that wrote none, which say so.
    missing = dash_duo.find_elements("#sweep-table .ag-row [col-id='status']")
    assert sum(m.text.startswith("missing") for m in missing) == 2
    # The front of (peak L2, makespan) on this sweep is one run: batch 1, L2 1024 KB (two identical IRs).
    front = dash_duo.driver.execute_script(
        "return document.querySelector('#sweep-scatter .js-plotly-plot')._fullData[1].x.length"
    )
    assert front == 1
    dash_duo.driver.save_screenshot(str(tmp_path / "sweep-page.png"))
    dash_duo.find_elements("#sweep-scatter .scatterlayer .trace:first-child path.point")[0].click()
    wait_until(lambda: "?file=" in dash_duo.driver.current_url, 30)
    dash_duo.wait_for_element("#timeline .main-svg", timeout=60)
    assert "vgg_2x2_b" in dash_duo.driver.current_url


def test_the_report_redraws_for_other_axes_and_sorts(dash_duo: Any, tmp_path: Path) -> None:
    out = tmp_path / "sweep.html"
    write_sweep_report(SWEEP, out)
    driver = dash_duo.driver
    driver.get(out.as_uri())
    wait_until(lambda: driver.execute_script("return !!document.querySelector('#sweep-figure .main-svg')"), 30)
    driver.execute_script(
        "const s = document.getElementById('x'); s.value = 'l2_kb'; s.dispatchEvent(new Event('change'));"
    )
    xs = driver.execute_script("return document.querySelector('#sweep-figure .plotly-graph-div').data[0].x")
    assert sorted(set(xs)) == [256, 512, 1024]
    # Fewest cycles for the L2 size: the front of (l2_kb, makespan) starts at 256 KB.
    front = driver.execute_script("return document.querySelector('#sweep-figure .plotly-graph-div').data[1].x")
    assert front[0] == 256
    heading = driver.find_elements("css selector", "#sweep-table th")[0]
    heading.click()
    heading.click()  # descending by path
    first = driver.find_elements("css selector", "#sweep-table tbody tr td")[0].text
    assert first == "vgg_2x2_b2_noc64_ul512_ir.json"
    driver.save_screenshot(str(tmp_path / "sweep-report.png"))
