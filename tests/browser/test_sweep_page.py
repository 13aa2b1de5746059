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
    wait_until(
        lambda: len(dash_duo.find_elements("#sweep-table .ag-center-cols-container .ag-row")) == 12, 30
    )
    # 12 manifest runs: 10 IRs, and 2 runs that wrote none, which say so.
    missing = dash_duo.find_elements("#sweep-table .ag-row [col-id='status']")
    assert sum(m.text.startswith("missing") for m in missing) == 2
    # The front of (peak L2, makespan) on this sweep is one run: batch 1, L2 1024 KB (two identical IRs).
    front = dash_duo.driver.execute_script(
        "return document.querySelector('#sweep-scatter .js-plotly-plot')._fullData[1].x.length"
    )
    assert front == 1
    dash_duo.driver.save_screenshot(str(tmp_path / "sweep-page.png"))
    # A click on the front's point (points sit under Plotly's drag layer: click there by position).
    where = dash_duo.driver.execute_script(
        "const g = document.querySelector('#sweep-scatter .js-plotly-plot'), f = g._fullData[1];"
        "const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;"
        "return [xa._offset + xa.l2p(xa.d2l(f.x[0])), ya._offset + ya.l2p(ya.d2l(f.y[0]))];"
    )
    from selenium.webdriver import ActionChains

    plot = dash_duo.find_element("#sweep-scatter .js-plotly-plot")
    dx, dy = where[0] - plot.size["width"] / 2, where[1] - plot.size["height"] / 2  # from its center
    ActionChains(dash_duo.driver).move_to_element(plot).move_by_offset(dx, dy).click().perform()
    wait_until(lambda: "?file=" in dash_duo.driver.current_url, 30)
    # The schedule loaded, not only the page drawn: a test that ends while the file still loads in the
    # server's background thread has that thread stopped mid-read (an unclosed file at teardown).
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=60)
    dash_duo.wait_for_element("#timeline .main-svg", timeout=60)
    assert (
        "vgg_2x2_b1_noc" in dash_duo.driver.current_url and "_ul1024_ir.json" in dash_duo.driver.current_url
    )


def test_the_report_redraws_for_other_axes_and_sorts(dash_duo: Any, tmp_path: Path) -> None:
    out = tmp_path / "sweep.html"
    write_sweep_report(SWEEP, out)
    driver = dash_duo.driver
    driver.get(out.as_uri())
    wait_until(
        lambda: driver.execute_script("return !!document.querySelector('#sweep-figure .main-svg')"), 30
    )
    driver.execute_script(
        "const s = document.getElementById('x'); s.value = 'l2_kb'; s.dispatchEvent(new Event('change'));"
    )
    xs = driver.execute_script("return document.querySelector('#sweep-figure .plotly-graph-div').data[0].x")
    assert sorted(set(xs)) == [256, 512, 1024]
    # Fewest cycles for the L2 size: the front of (l2_kb, makespan) starts at 256 KB.
    front = driver.execute_script(
        "return document.querySelector('#sweep-figure .plotly-graph-div').data[1].x"
    )
    assert front[0] == 256
    heading = driver.find_elements("css selector", "#sweep-table th")[0]
    heading.click()
    heading.click()  # descending by path
    first = driver.find_elements("css selector", "#sweep-table tbody tr td")[0].text
    assert first == "vgg_2x2_b2_noc64_ul512_ir.json"
    driver.save_screenshot(str(tmp_path / "sweep-report.png"))
