"""The mesh view in headless Chromium: tiles and links, a tile picks its core, a link lists its transfers,
and the numbers follow the page's cycles range. Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dashboards.app import create_app
from tests.browser.test_dashboard import _pick, _ready, _relayout, _shot, _wait

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures not present")


def _mesh(dash_duo: Any) -> dict[str, Any]:
    script = (
        "const g = document.querySelector('#mesh .js-plotly-plot');"
        "if (!g || !g.data || !g._fullLayout) return '{}';"
        # _fullData: g.data keeps numpy arrays as Plotly's base64 specs, without a length.
        "const tiles = g._fullData.find(t => t.name === 'tiles');"
        "const links = g._fullData.find(t => t.name === 'links');"
        "return JSON.stringify({title: g._fullLayout.title.text, tiles: tiles ? tiles.x.length : 0,"
        " links: links ? links.x.length : 0});"
    )
    return json.loads(dash_duo.driver.execute_script(script))


def _click(dash_duo: Any, trace: str, match: str) -> None:
    """Click the point of `trace` whose customdata starts with `match`, as Plotly reports a click."""
    dash_duo.driver.execute_script(
        "const g = document.querySelector('#mesh .js-plotly-plot');"
        "const i = g._fullData.findIndex(t => t.name === arguments[0]);"
        "const t = g._fullData[i];"
        "const j = t.customdata.findIndex(c => String(c[0]) === arguments[1] || String(c[1]).startsWith(arguments[1]));"
        "g.emit('plotly_click', {points: [{curveNumber: i, pointNumber: j, pointIndex: j, x: t.x[j], y: t.y[j],"
        " customdata: t.customdata[j]}]});",
        trace,
        match,
    )


def _show_mesh(dash_duo: Any, tmp_path: Path, name: str) -> None:
    dash_duo.driver.execute_script("document.getElementById('mesh-section').scrollIntoView()")
    _shot(dash_duo, tmp_path, name)


def test_4x4_mesh_tiles_links_clicks_and_window(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(FIXTURES / "gemini-raw", open_file="resnet_4x4_b4_ff1_ss2_rr50_ir.json"))
    _wait(lambda: _mesh(dash_duo).get("tiles") == 16, 60)
    mesh = _mesh(dash_duo)
    assert mesh["links"] == 76  # every directed link that carries bytes (the noc_links table's rows)
    assert "Mesh 4x4: tiles by busy share (compute) (dependency model, whole schedule)" in mesh["title"]
    _show_mesh(dash_duo, tmp_path, "mesh-raw-4x4")
    # A tile: core 8 at (1,1) becomes the core of the maps, its timeline row is marked.
    _click(dash_duo, "tiles", "8")
    dash_duo.wait_for_contains_text("#focus-note", "core 8 (1,1) picked on the mesh", timeout=20)
    _wait(lambda: "core 8 (1,1)" in dash_duo.find_element("#l2-map .gtitle").text, 30)
    # A link: the transfers crossing it, 24 of them core to core (checked against the JSON in
    # tests/analysis/test_mesh_tiles.py) among 595.
    _click(dash_duo, "links", "(3,3)->(3,2)")
    dash_duo.wait_for_contains_text("#mesh-links-head", "link (3,3)->(3,2): 595 transfers", timeout=20)
    # The cycles range of the timeline is the mesh's window.
    _wait(lambda: _ready(dash_duo, "timeline"), 30)
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 200000, "xaxis.range[1]": 400000})
    _wait(lambda: "cycles 200,000-400,000" in _mesh(dash_duo).get("title", ""), 30)
    dash_duo.find_element("#mesh-metric input[value='dram']").click()
    _wait(lambda: "tiles by DRAM bytes" in _mesh(dash_duo).get("title", ""), 30)
    assert dash_duo.get_logs() == []
    _show_mesh(dash_duo, tmp_path, "mesh-raw-4x4-window-dram")


def test_2x2_raw_and_4x4_allocated_meshes(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(create_app(FIXTURES, open_file="gemini-raw/resnet_2x2_b1_ir.json"))
    _wait(lambda: _mesh(dash_duo).get("tiles") == 4, 60)
    _show_mesh(dash_duo, tmp_path, "mesh-raw-2x2")
    _pick(dash_duo, "#file-select", "resnet_4x4_b4_ff1_ss2_rr50_alloc")
    _wait(lambda: _mesh(dash_duo).get("tiles") == 16, 90)
    _show_mesh(dash_duo, tmp_path, "mesh-alloc-4x4")
    assert dash_duo.get_logs() == []


def test_no_mesh_for_one_core(dash_duo: Any) -> None:
    dash_duo.start_server(
        create_app(FIXTURES / "gemini", open_file="int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json")
    )
    dash_duo.wait_for_contains_text("#status", "1 core, 69 workloads", timeout=30)
    _wait(lambda: _ready(dash_duo, "timeline"), 30)
    assert not dash_duo.find_element("#mesh-section").is_displayed()


def test_64_cores_first_screen_shows_header_chip_and_timeline_start(dash_duo: Any, tmp_path: Path) -> None:
    from irtools.cli.main import main

    ir = tmp_path / "synth_8x8.json"
    assert (
        main(["synth", "-o", str(ir), "--mesh", "8x8", "--layers", "120", "--batch", "2", "--seed", "21"])
        == 0
    )
    dash_duo.driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
    )
    dash_duo.start_server(create_app(tmp_path, open_file="synth_8x8.json"))
    _wait(lambda: _mesh(dash_duo).get("tiles") == 64, 90)
    _wait(lambda: _ready(dash_duo, "timeline"), 60)
    # The mesh shows every core where it sits: no second 64-cell grid in the header (it read 99% everywhere).
    assert not dash_duo.find_elements("#status .core-cell") and not dash_duo.find_elements(
        "#status .core-card"
    )
    note = dash_duo.find_element("#balance-note").text
    assert note.startswith(("balanced:", "core "))
    # At 1600x1000, without scrolling: the header, the whole chip and the start of the timeline.
    top = dash_duo.driver.execute_script(
        "const r = id => document.getElementById(id).getBoundingClientRect();"
        "return {status: r('status').bottom, mesh: r('mesh').bottom, timeline: r('timeline').top,"
        " height: window.innerHeight};"
    )
    assert top["height"] == 1000
    assert top["status"] < top["mesh"] < 1000 and top["timeline"] < 1000 - 150, top
    # 64 timeline rows, each labelled.
    ticks = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#timeline .ytick text')).map(e => e.textContent);"
    )
    assert len([t for t in ticks if t.startswith("core")]) == 64
    _shot(dash_duo, tmp_path, "first-screen-64-cores")
    assert dash_duo.get_logs() == []


def test_a_file_loading_says_what_is_being_read(dash_duo: Any, tmp_path: Path) -> None:
    import threading
    import time

    from selenium.common.exceptions import TimeoutException

    from irtools.cli.main import main

    app = create_app(tmp_path)  # nothing to read yet: nothing loaded before the page asks
    ir = tmp_path / "synth_8x8.json"
    assert main(["synth", "-o", str(ir), "--mesh", "8x8", "--layers", "40", "--dialect", "raw"]) == 0
    store = app.store  # type: ignore[attr-defined]
    gate, began = threading.Event(), threading.Event()
    load = store._load

    def held_back(key: str, *rest: Any) -> Any:  # the load waits until the page said what it reads
        store._stages[key] = ("reading and parsing the JSON (0.3 MB)", time.monotonic())
        began.set()
        gate.wait(30)
        return load(key, *rest)

    store._load = held_back
    dash_duo.start_server(app)
    dash_duo.driver.get(dash_duo.server_url + "/?file=synth_8x8.json")
    try:
        dash_duo.wait_for_contains_text(
            "#loading-note", "Loading synth_8x8.json: reading and parsing the JSON", timeout=30
        )
        # The note keeps counting while the load runs: its poll is not queued behind views waiting for
        # the file (they wait for `shown`; before, six of them took all the browser's connections).
        dash_duo.wait_for_contains_text("#loading-note", "2 s so far", timeout=20)
    except TimeoutException as exc:
        raise AssertionError(
            f"the note says {dash_duo.find_element('#loading-note').text!r}; the load began: "
            f"{began.is_set()}, stages: {dict(store._stages)}"
        ) from exc
    # No empty default axes (-1..6) while it loads: the graphs draw nothing yet.
    assert not dash_duo.find_elements("#timeline .xtick")
    _shot(dash_duo, tmp_path, "loading-note")
    gate.set()
    dash_duo.wait_for_contains_text("#status", "64 cores", timeout=60)
    _wait(lambda: dash_duo.find_element("#loading-note").text == "", 20)
    # A raw file has no WL0: its panel is gone and the L2 map has the row.
    _wait(lambda: not dash_duo.find_element("#wl0-box").is_displayed(), 30)
    # Under the maps: the buffers live at the picked core's L2 peak, largest first.
    dash_duo.wait_for_contains_text("#l2-peak-head", "Live at the L2 peak of core 1 (0,0)", timeout=30)
    assert len(dash_duo.find_elements("#l2-peak tbody tr")) >= 1
    assert dash_duo.get_logs() == []
