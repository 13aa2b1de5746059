"""Reading a schedule in headless Chromium: NoC stalls apart from compute, the aggregated timeline's
critical path, counter tracks and the link x time heatmap (issue 29: 1, 7, beyond the peers).

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import os
import re
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


@needs_fixtures
def test_the_aggregated_timeline_shows_the_critical_path(
    dash_duo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboards import timeline

    monkeypatch.setattr(timeline, "MAX_BARS", 100)  # VGG's 336 workloads count as "many"
    dash_duo.start_server(create_app(NOC_DIR, open_file=VGG))
    names = wait_until(lambda: (n := _trace_names(dash_duo, "timeline")) and "busy time" in n and n, 60)
    assert "critical path" in names and "critical path: core to core" in names
    # The strips are drawn over the bins as one image (yellow on black) beside the busy map's.
    assert len(dash_duo.find_elements("#timeline .heatmaplayer image")) == 2
    # Hovering a bin the path passes names that row's core and what the path runs there (Plotly
    # looks the hover up by the row's place on the axis: rows in another order showed another core's).
    dash_duo.driver.execute_script("document.getElementById('timeline').scrollIntoView();")
    label, expected = _hover_a_critical_bin(dash_duo)
    shown = wait_until(lambda: dash_duo.driver.execute_script(_HOVER_TEXT), 10)
    path = re.sub("<[^>]+>", "", expected.split("<br>")[-1])  # "critical path: conv1", tags dropped
    assert shown.startswith(label + ", cycles") and shown.split("<br>")[-1] == path
    assert dash_duo.get_logs() == []
    _keep(dash_duo, tmp_path, "aggregated-critical-path.png")


_HOVER_TEXT = (
    "const t = document.querySelector('#timeline .hovertext text');"
    "return t ? Array.from(t.querySelectorAll('tspan.line')).map(l => l.textContent).join('<br>') : '';"
)


def _hover_a_critical_bin(dash_duo: Any) -> tuple[str, str]:
    """Moves the mouse to the middle of a busy-map bin the critical path passes; returns its row's
    label and its hover text as the figure holds it."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    found = dash_duo.driver.execute_script(
        """
        const g = document.querySelector('#timeline .js-plotly-plot');
        const busy = g.data.find(t => t.name === 'busy time'), cell = g.calcdata[g.data.indexOf(busy)][0];
        const l = g._fullLayout, box = g.getBoundingClientRect();
        for (let r = 0; r < busy.text.length; r++)
          for (let c = 0; c < busy.text[r].length; c++)
            if (busy.text[r][c].includes('critical path')) {
              const x = (cell.x[c] + cell.x[c + 1]) / 2, row = l.yaxis._categoriesMap[busy.y[r]];
              return [box.left + l.xaxis._offset + l.xaxis.l2p(x), box.top + l.yaxis._offset + l.yaxis.l2p(row),
                      busy.y[r], busy.text[r][c]];
            }
        """
    )
    x, y, label, text = found
    move = ActionBuilder(dash_duo.driver)
    move.pointer_action.move_to_location(int(x), int(y))
    move.perform()
    return label, text


@needs_fixtures
def test_counter_tracks_and_the_link_heatmap_follow_a_click_on_a_link(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
    )
    dash_duo.start_server(create_app(NOC_DIR, open_file=VGG))
    tracks = wait_until(lambda: [n for n in _trace_names(dash_duo, "counters") if n != "span"], 90)
    held, rate = tracks
    assert held == "L2 held, core 1 (0,0)" and rate == "bytes/cycle on (0,1)->(0,0)"  # the busiest link
    rows = wait_until(
        lambda: dash_duo.driver.execute_script(
            "const g = document.querySelector('#link-heat .js-plotly-plot');"
            "return g && g._fullData && g._fullData[0] ? g._fullData[0].y.length : 0;"
        ),
        90,
    )
    assert rows == 76  # every loaded link of VGG 4x4
    # Click the heatmap's row of DRAM W0->(0,0), in the middle of the schedule.
    where = dash_duo.driver.execute_script(
        "const g = document.querySelector('#link-heat .js-plotly-plot'), f = g._fullData[0];"
        "const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;"
        "const row = Array.from(f.y).indexOf('DRAM W0->(0,0)');"
        "const x = f.x[Math.floor(f.x.length / 2)];"
        "return [xa._offset + xa.l2p(xa.d2l(x)), ya._offset + ya.l2p(row)];"
    )
    from selenium.webdriver import ActionChains

    plot = dash_duo.find_element("#link-heat .js-plotly-plot")
    plot.location_once_scrolled_into_view  # noqa: B018
    dx, dy = where[0] - plot.size["width"] / 2, where[1] - plot.size["height"] / 2
    ActionChains(dash_duo.driver).move_to_element(plot).move_by_offset(dx, dy).click().perform()
    wait_until(lambda: "bytes/cycle on DRAM W0->(0,0)" in _trace_names(dash_duo, "counters"), 30)
    assert dash_duo.get_logs() == []
    dash_duo.find_element("#counters").location_once_scrolled_into_view  # noqa: B018
    _keep(dash_duo, tmp_path, "counters-and-link-heat.png")


def test_a_run_cut_into_chiplets_shows_its_dies_and_nop_links(dash_duo: Any, tmp_path: Path) -> None:
    from irtools.cli.main import main

    served = tmp_path / "served"
    served.mkdir()
    assert (
        main(["synth", "-o", str(served / "cut.json"), "--mesh", "4x4", "--layers", "12", "--seed", "3"]) == 0
    )
    # A manifest row as Gemini's sweeps write them, with xcut 2 and ycut 2 (fields 10 and 11 of the line).
    line = "7 0 1 4 4 1 1 1 0 2 2 SI UCIe 128 LPDDR5 1024000 16 512 512 16384"
    (served / "manifest.csv").write_text(f"name,noc_bw,input_line\ncut.json,16,{line}\n")
    dash_duo.start_server(create_app(served, open_file="cut.json"))
    wait_until(lambda: "NoP links" in _trace_names(dash_duo, "mesh"), 90)
    title = dash_duo.driver.execute_script(
        "return document.querySelector('#mesh .js-plotly-plot').layout.title.text"
    )
    assert "2 x 2 chiplets of 2 x 2 cores" in title
    dashed = dash_duo.driver.execute_script(
        "return document.querySelector('#mesh .js-plotly-plot').layout.shapes"
        ".filter(s => s.type === 'line' && s.line.dash === 'dash').length"
    )
    assert dashed == 2  # one boundary across the columns, one across the rows
    assert dash_duo.get_logs() == []
    dash_duo.find_element("#mesh").location_once_scrolled_into_view  # noqa: B018
    _keep(dash_duo, tmp_path, "mesh-chiplets.png")
