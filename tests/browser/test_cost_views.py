"""Gemini's cost in the dashboard, in headless Chromium: the layer view and the sweep page's energy axes
(issue 30: 4).

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

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
NOC_DIR = FIXTURES / "gemini-noc"
SWEEP = FIXTURES / "gemini-sweep"
pytestmark = pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present")


def _pick(dash_duo: Any, dropdown: str, value: str) -> None:
    """Choose the option reading exactly `value` in a dcc.Dropdown, typing it into the search box."""
    dash_duo.find_element(dropdown).click()
    dash_duo.find_element(".dash-dropdown-search").send_keys(value)
    wait_until(lambda: [o for o in dash_duo.find_elements(".dash-dropdown-option") if o.text == value], 10)[
        0
    ].click()
    wait_until(lambda: not dash_duo.find_elements(".dash-dropdown-options"), 10)  # the menu closed


def _keep(path: Path) -> None:
    keep = os.environ.get("IRTOOLS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def test_the_layer_view_lists_geminis_cost_per_layer(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(NOC_DIR, open_file="vgg_4x4_b1_ul512_ir.json"))
    dash_duo.wait_for_element("#layer-cost-table", timeout=90)
    rows = dash_duo.find_elements("#layer-cost-table tbody tr")
    assert len(rows) == 22  # 21 layers and the totals
    first = [td.text for td in rows[0].find_elements("css selector", "td")]
    assert first[:2] == ["conv1", "1"] and "NoC" in first and "DRAM W1->DRAM W2" in first
    total = [td.text for td in rows[-1].find_elements("css selector", "td")]
    assert total[0] == "all layers" and "1,941,778" in total  # Gemini's T at NoC 8 (manifest row 1)
    heads = [th.text for th in dash_duo.find_elements("#layer-cost-table th")]
    assert "compute (cycles)" in heads and "hops (bytes x hops)" in heads
    dash_duo.wait_for_contains_text("#layer-cost-undetermined", "n/d: not determined by the IR", timeout=10)
    dash_duo.find_element("#layer-cost-table").location_once_scrolled_into_view  # noqa: B018
    path = tmp_path / "layer-view.png"
    dash_duo.driver.save_screenshot(str(path))
    _keep(path)
    assert dash_duo.get_logs() == []


@pytest.mark.skipif(not SWEEP.is_dir(), reason="../shared/fixtures not present")
def test_the_sweep_page_takes_energy_and_energy_delay_as_axes_with_units(dash_duo: Any) -> None:
    dash_duo.start_server(create_app(SWEEP))
    dash_duo.driver.get(dash_duo.server_url + "/sweep/")
    dash_duo.wait_for_element("#sweep-scatter .scatterlayer .trace path.point", timeout=90)
    _pick(dash_duo, "#sweep-x", "energy_delay")
    _pick(dash_duo, "#sweep-y", "energy")
    titles = (
        "const g = document.querySelector('#sweep-scatter .js-plotly-plot');"
        "return [g._fullLayout.xaxis.title.text, g._fullLayout.yaxis.title.text, g._fullData[0].x.length];"
    )
    x, y, points = wait_until(
        lambda: (t := dash_duo.driver.execute_script(titles))[0].startswith("energy_delay") and t, 30
    )
    assert (x, y) == ("energy_delay (pJ x cycles)", "energy (pJ)") and points > 0
