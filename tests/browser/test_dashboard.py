"""The dashboard in headless Chromium: figures render with the right cores and tensors, focus, safety.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from dashboards import data, timeline
from dashboards.app import create_app
from tests.browser.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ir"
MESH = "valid/mesh2x2_conv_b1_c4_bw16_stschedule.json"
OVERLAP = "invalid/GIR302-buffer-overlap.json"


def _shot(dash_duo: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    dash_duo.driver.save_screenshot(str(path))
    keep = os.environ.get("IRTOOLS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def _traces(dash_duo: Any, graph: str) -> list[dict[str, Any]]:
    """name, type, point count `n` and y values of each trace the graph in the page holds."""
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "if (!g || !g.data) return '[]';"
        "return JSON.stringify(g.data.map((t, i) => ({name: t.name, type: t.type, "
        "y: t.y ? Array.from(t.y) : [], n: (g.calcdata && g.calcdata[i] ? g.calcdata[i].length : 0)})));"
    )
    return json.loads(dash_duo.driver.execute_script(script))


def _ready(dash_duo: Any, graph: str) -> bool:
    """Whether the graph is drawn and listens to the user.

    Plotly puts the traces in `g.data` at once, but Dash's graph binds its zoom and click handlers
    only when Plotly's drawing promise resolves, when it also drops the `dash-graph--pending`
    class: a relayout sent in between is drawn by Plotly and never reaches the server.
    """
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "return !!(g && g.data && g.data.length && g._fullLayout"
        " && !g.classList.contains('dash-graph--pending'));"
    )
    return bool(dash_duo.driver.execute_script(script))


def _settled(dash_duo: Any, graph: str) -> bool:
    """No callback request is pending (dash.testing's own check) and the graph is drawn."""
    return bool(dash_duo._wait_for_callbacks()) and _ready(dash_duo, graph)


def _relayout(dash_duo: Any, graph: str, update: dict[str, Any]) -> None:
    """Zoom, pan or reset `graph` as the user's drag or double click does, once it listens."""
    _wait(lambda: _ready(dash_duo, graph), timeout=15)
    dash_duo.driver.execute_script(
        f"Plotly.relayout(document.querySelector('#{graph} .js-plotly-plot'), arguments[0]);", update
    )


def _x_range(dash_duo: Any, graph: str, axis: str = "xaxis") -> list[float]:
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        f"return g && g._fullLayout && g._fullLayout.{axis} ? g._fullLayout.{axis}.range : [];"
    )
    return [round(float(v)) for v in dash_duo.driver.execute_script(script)]


def _workload_bars(dash_duo: Any) -> int:
    """Workload bars the timeline holds (layer-type traces; not the focus outline or stuck ones)."""
    bars = [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"]
    return sum(t["n"] for t in bars if t["name"] != "focus" and "GIR502" not in (t["name"] or ""))


def _pick(dash_duo: Any, dropdown: str, text: str) -> None:
    """Choose the option containing `text` in a dcc.Dropdown, typing it into the search box."""
    dash_duo.find_element(dropdown).click()
    dash_duo.find_element(f"{dropdown} .dash-dropdown-search, .dash-dropdown-search").send_keys(text)
    _wait(lambda: [o for o in dash_duo.find_elements(".dash-dropdown-option") if text in o.text])[0].click()


def _wait(predicate: Any, timeout: float = 10.0) -> Any:
    return wait_until(predicate, timeout)


def _open(dash_duo: Any, root: Path, selected: str) -> None:
    dash_duo.start_server(create_app(root, open_file=selected))
    dash_duo.wait_for_element("#timeline .main-svg", timeout=15)


def test_sample_renders_cores_tensors_and_findings(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, MESH)
    dash_duo.wait_for_contains_text("#status", "4 cores, 5 workloads", timeout=15)
    bars = _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"])
    assert sorted({y for t in bars for y in t["y"]}) == ["core 0", "core 1", "core 2", "core 3"]
    assert sum(t["n"] for t in bars) == 5  # five workloads
    ticks = [e.text for e in dash_duo.find_elements("#timeline .ytick text")]
    assert sorted(ticks) == ["core 0", "core 1", "core 2", "core 3"]
    # Core 0's L2: ifmap (wrapping: two pieces), weight and ofmap-bound ifmap = 4 rectangles.
    l2 = _wait(lambda: [t for t in _traces(dash_duo, "l2-map") if t.get("type") == "bar"])
    assert sum(t["n"] for t in l2) == 4
    assert dash_duo.get_logs() == []
    _shot(dash_duo, tmp_path, "dashboard-mesh")


def test_clicking_a_finding_focuses_its_core_and_workload(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, OVERLAP)
    dash_duo.wait_for_contains_text("#findings", "GIR302", timeout=15)
    assert "core 0" in dash_duo.find_element("#core").text
    row = next(r for r in dash_duo.find_elements("#findings tr.finding-row") if "GIR302" in r.text)
    row.click()
    dash_duo.wait_for_contains_text("#focus-note", "GIR302 on core 2", timeout=10)
    dash_duo.wait_for_contains_text("#core", "core 2", timeout=10)
    # The timeline outlines the workload; the L2 map shows core 2 with the conflict outlined.
    _wait(lambda: any(t.get("name") == "focus" for t in _traces(dash_duo, "timeline")))
    _wait(lambda: any("overlap" in (t.get("name") or "") for t in _traces(dash_duo, "l2-map")))
    title = dash_duo.find_element("#l2-map .gtitle").text
    assert "core 2" in title
    _shot(dash_duo, tmp_path, "dashboard-finding-focus")


def test_transfer_search_names_producer_and_readers(dash_duo: Any) -> None:
    _open(dash_duo, SAMPLES, MESH)
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    box = dash_duo.find_element("#transfer")
    box.send_keys("12\n")
    dash_duo.wait_for_contains_text(
        "#focus-note", "transfer 12: produced by core 2 #0; read by core 2 #1", timeout=10
    )
    focus = _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("name") == "focus"])
    assert focus[0]["n"] == 2


def test_switching_files(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, MESH)
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    # Type into the dropdown's search box: with 25 files the option may be scrolled out of view.
    dash_duo.find_element("#file-select").click()
    dash_duo.find_element(".dash-dropdown-search").send_keys("GIR502")
    _wait(lambda: [o for o in dash_duo.find_elements(".dash-dropdown-option") if "GIR502" in o.text])[
        0
    ].click()
    dash_duo.wait_for_contains_text("#status", "unschedulable", timeout=15)
    title = _wait(lambda: dash_duo.find_element("#timeline .gtitle").text)
    _wait(lambda: "cannot be scheduled" in dash_duo.find_element("#timeline .gtitle").text)
    assert title
    _shot(dash_duo, tmp_path, "dashboard-deadlock")


def test_layer_names_cannot_inject_html(dash_duo: Any, tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / MESH).read_text())
    payload = '<img src=x onerror="window.__xss=1">'
    for workloads in (doc[k] for k in ("0", "1", "2", "3")):
        for w in workloads:
            w["layer_name"] = payload
            w["layer_type"] = '<b onmouseover="window.__xss=2">pe</b>'
            for b in w["buffer"]:
                b["layer_name"] = payload
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    _open(dash_duo, tmp_path, "evil.json")
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    bar = _wait(lambda: dash_duo.find_elements("#timeline .bars path"))[0]
    from selenium.webdriver import ActionChains

    ActionChains(dash_duo.driver).move_to_element(bar).perform()
    _wait(lambda: dash_duo.find_elements("#timeline .hovertext"))
    hover = dash_duo.find_element("#timeline .hovertext").text
    assert "<img" in hover  # shown as text
    assert dash_duo.driver.execute_script("return window.__xss === undefined")
    assert not dash_duo.driver.find_elements(By.CSS_SELECTOR, "img[src='x']")
    _shot(dash_duo, tmp_path, "dashboard-escaped")


def test_outside_paths_are_refused_in_the_page(dash_duo: Any, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(SAMPLES / MESH, served / "ok.json")
    (served / "escape.json").symlink_to(SAMPLES / OVERLAP)
    _open(dash_duo, served, "ok.json")
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    dash_duo.find_element("#file-select").click()
    options = [o.text for o in dash_duo.find_elements(".dash-dropdown-option")]
    assert options == ["ok.json"]  # the symlink leading outside is not listed


def test_download_gives_the_same_csv_as_analyze(dash_duo: Any, tmp_path: Path) -> None:
    from irtools.analysis import analyze, read_table

    _open(dash_duo, SAMPLES, MESH)
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    dash_duo.find_element("#download-button").click()
    target = Path(dash_duo.download_path) / "timeline.csv"
    _wait(lambda: target.is_file() and target.stat().st_size > 0)
    expected = analyze(SAMPLES / MESH).timeline
    import pandas as pd

    pd.testing.assert_frame_equal(read_table(target), expected)


def test_upload_shows_the_file_and_refuses_one_over_the_limit(dash_duo: Any, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    small = tmp_path / "small.json"
    small.write_text(json.dumps(json.loads((SAMPLES / MESH).read_text())))  # compact: under the limit below
    big = tmp_path / "big.json"
    big.write_text((SAMPLES / MESH).read_text() + " " * 200_000)
    dash_duo.start_server(create_app(served, max_upload_bytes=100_000))
    dash_duo.wait_for_contains_text("#status", "Pick an IR file", timeout=15)
    upload = dash_duo.find_element("#upload input[type=file]")
    upload.send_keys(str(big))
    dash_duo.wait_for_contains_text("#message", "the upload limit is 0 MB", timeout=15)
    upload.send_keys(str(small))
    dash_duo.wait_for_contains_text("#status", "small.json: 4 cores, 5 workloads", timeout=15)
    _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"])
    assert dash_duo.find_element("#message").text == ""  # the refusal is gone with the new file


def test_aggregated_timeline_shows_bars_again_when_zoomed(
    dash_duo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 3)  # the sample's 5 workloads count as "many"
    _open(dash_duo, SAMPLES, MESH)
    _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "heatmap"], timeout=15)
    assert not [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"]
    _shot(dash_duo, tmp_path, "timeline-aggregated")
    # Zoom as a drag does: Relu_2 (core 2, 94000-102192) is the only workload in this window.
    # (Once the graph listens: a zoom sent before was drawn but never sent, the flaky timeout.)
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 95000, "xaxis.range[1]": 101000})
    bars = _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"], timeout=15)
    assert [y for t in bars for y in t["y"]] == ["core 2"]
    assert not [t for t in _traces(dash_duo, "timeline") if t.get("type") == "heatmap"]
    assert dash_duo.get_logs() == []
    _shot(dash_duo, tmp_path, "timeline-zoomed")


def test_a_slow_first_load_still_draws_its_timeline(
    dash_duo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: Plotly's relayout after drawing the "no IR shown yet" placeholder re-ran the timeline
    # callback, and Dash dropped the slow first build of a large file: the timeline stayed empty.
    monkeypatch.setattr(timeline, "MAX_BARS", 3)
    load = data.load_entry

    def slow_load(*args: Any, **kwargs: Any) -> Any:
        time.sleep(3)
        return load(*args, **kwargs)

    monkeypatch.setattr(data, "load_entry", slow_load)
    dash_duo.start_server(create_app(SAMPLES, open_file=MESH))
    _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "heatmap"], timeout=30)
    assert dash_duo.get_logs() == []


# Issue 14: the view range, the findings table, links, and defects you can see.


def _opacity_dimmed(dash_duo: Any) -> bool:
    # _fullData: what Plotly drew, numeric arrays decoded (g.data keeps Plotly's base64 form).
    script = (
        "const g = document.querySelector('#timeline .js-plotly-plot');"
        "return !!(g && g._fullData && g._fullData.some(t => t.type === 'bar' && t.marker && "
        "t.marker.opacity && t.marker.opacity.length && Array.from(t.marker.opacity).includes(0.2)));"
    )
    return bool(dash_duo.driver.execute_script(script))


def test_zoom_then_layer_filter_then_reset_shows_every_bar(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, MESH)
    _wait(lambda: _workload_bars(dash_duo) == 5, timeout=15)
    # Relu_2 (core 2, 94000-102192) is the only workload in this window.
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 95000, "xaxis.range[1]": 101000})
    _wait(lambda: _x_range(dash_duo, "timeline") == [95000, 101000])
    _pick(dash_duo, "#layers", "Conv_1")
    _wait(lambda: _opacity_dimmed(dash_duo), timeout=15)
    assert _x_range(dash_duo, "timeline") == [95000, 101000]  # the filter keeps the zoom
    _wait(lambda: _ready(dash_duo, "timeline"))
    dash_duo.driver.execute_script(
        "document.querySelector('#timeline .modebar-btn[data-title=\"Reset axes\"]').click();"
    )
    _wait(lambda: _x_range(dash_duo, "timeline")[1] >= 102192, timeout=15)
    _wait(lambda: _settled(dash_duo, "timeline"))  # a wrong redraw, if one comes, has landed
    assert _workload_bars(dash_duo) == 5  # was 1: the filtered figure held only the zoomed bars
    assert _x_range(dash_duo, "timeline")[0] <= 0
    _shot(dash_duo, tmp_path, "timeline-zoom-filter-reset")


def test_zoom_then_arrows_toggle_then_reset_shows_every_bar(dash_duo: Any) -> None:
    _open(dash_duo, SAMPLES, MESH)
    _wait(lambda: any(t["name"] == "transfers" for t in _traces(dash_duo, "timeline")), timeout=15)
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 95000, "xaxis.range[1]": 101000})
    _wait(lambda: _x_range(dash_duo, "timeline") == [95000, 101000])
    dash_duo.find_element("#arrows input[value=selection]").click()  # none selected: no arrow
    _wait(lambda: not any(t["name"] == "transfers" for t in _traces(dash_duo, "timeline")), timeout=15)
    assert _x_range(dash_duo, "timeline") == [95000, 101000]
    _relayout(dash_duo, "timeline", {"xaxis.autorange": True})
    _wait(lambda: _x_range(dash_duo, "timeline")[1] >= 102192, timeout=15)
    _wait(lambda: _settled(dash_duo, "timeline"))
    assert _workload_bars(dash_duo) == 5


def test_ten_thousand_findings_are_paged(dash_duo: Any, tmp_path: Path) -> None:
    from benchmarks.many_findings import write_many_findings

    write_many_findings(tmp_path / "many.json")
    _open(dash_duo, tmp_path, "many.json")
    dash_duo.wait_for_contains_text("#findings-page-note", "rows 1-50 of 10,983 (page 1 of 220)", timeout=60)
    dash_duo.wait_for_contains_text("#findings-summary", "9,887 errors, 1,096 warnings, 0 info", timeout=10)
    assert len(dash_duo.find_elements("#findings tr.finding-row")) == 50  # the page, not 10,983 rows
    dash_duo.find_element("#findings-next").click()
    dash_duo.wait_for_contains_text(
        "#findings-page-note", "rows 51-100 of 10,983 (page 2 of 220)", timeout=10
    )
    _pick(dash_duo, "#filter-severity", "warning")
    dash_duo.wait_for_contains_text("#findings-page-note", "rows 1-50 of 1,096 (page 1 of 22)", timeout=10)
    assert {r.text.split()[0] for r in dash_duo.find_elements("#findings tr.finding-row")} == {"warning"}
    assert dash_duo.get_logs() == []


def test_a_link_restores_file_core_model_and_range(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, MESH)
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=15)
    dash_duo.driver.get(dash_duo.server_url + f"/?file={OVERLAP}&core=3&model=sequential&x0=1000&x1=50000")
    dash_duo.wait_for_contains_text("#status", "GIR302-buffer-overlap.json", timeout=15)
    dash_duo.wait_for_contains_text("#core", "core 3", timeout=10)
    _wait(lambda: "core 3" in dash_duo.find_element("#l2-map .gtitle").text, timeout=10)
    _wait(lambda: "(sequential)" in dash_duo.find_element("#timeline .gtitle").text, timeout=10)
    _wait(lambda: _x_range(dash_duo, "timeline") == [1000, 50000], timeout=10)
    assert dash_duo.find_element("#model input[value=sequential]").is_selected()
    # The page writes what it shows back into the URL: a new core is a new link.
    _pick(dash_duo, "#core", "core 1")
    _wait(lambda: "core=1" in dash_duo.driver.current_url, timeout=10)
    url = dash_duo.driver.current_url
    assert "model=sequential" in url and "x0=1000" in url and "GIR302-buffer-overlap" in url
    _shot(dash_duo, tmp_path, "dashboard-link")


def test_an_upload_is_named_in_the_picker_and_can_be_uploaded_again(dash_duo: Any, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(SAMPLES / OVERLAP, served / "a.json")
    small = tmp_path / "small.json"
    small.write_text(json.dumps(json.loads((SAMPLES / MESH).read_text())))
    dash_duo.start_server(create_app(served))
    dash_duo.wait_for_contains_text("#status", "a.json", timeout=15)
    upload = dash_duo.find_element("#upload input[type=file]")
    upload.send_keys(str(small))
    dash_duo.wait_for_contains_text("#status", "small.json: 4 cores", timeout=15)
    dash_duo.wait_for_contains_text("#file-select", "small.json (uploaded)", timeout=10)
    _pick(dash_duo, "#file-select", "a.json")
    dash_duo.wait_for_contains_text("#status", "a.json: 4 cores", timeout=15)
    upload.send_keys(str(small))  # the very same file again
    dash_duo.wait_for_contains_text("#status", "small.json: 4 cores", timeout=15)
    # Plurals: this file has one error.
    dash_duo.wait_for_contains_text("#findings-summary", "0 errors, 0 warnings", timeout=10)
    _pick(dash_duo, "#file-select", "a.json")
    dash_duo.wait_for_contains_text("#findings-summary", "1 error, 0 warnings, 2 info", timeout=15)


def test_defects_are_drawn_where_they_are(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, "invalid/GIR301-buffer-out-of-bounds.json")
    dash_duo.wait_for_contains_text("#findings", "GIR301", timeout=15)
    row = next(r for r in dash_duo.find_elements("#findings tr.finding-row") if "GIR301" in r.text)
    row.click()
    # The clicked row stays marked; the map of core 3 reaches past the 1 MiB buffer to show the
    # weight at 0x100000-0x101200, outlined, with the buffer end marked.
    _wait(lambda: dash_duo.find_elements("#findings tr.finding-row.selected"), timeout=10)
    assert "GIR301" in dash_duo.find_element("#findings tr.finding-row.selected").text
    _wait(lambda: "core 3" in dash_duo.find_element("#l2-map .gtitle").text, timeout=10)
    _wait(lambda: any(t["name"] == "out of bounds (GIR301)" for t in _traces(dash_duo, "l2-map")))
    top = dash_duo.driver.execute_script(
        "return document.querySelector('#l2-map .js-plotly-plot')._fullLayout.yaxis.range[1];"
    )
    assert top >= 0x101200
    assert "L2 end (1 MiB)" in dash_duo.find_element("#l2-map").text
    _shot(dash_duo, tmp_path, "defect-out-of-bounds")

    _pick(dash_duo, "#file-select", "GIR302-buffer-overlap")
    dash_duo.wait_for_contains_text("#findings", "GIR302", timeout=15)
    next(r for r in dash_duo.find_elements("#findings tr.finding-row") if "GIR302" in r.text).click()
    _wait(lambda: "core 2" in dash_duo.find_element("#l2-map .gtitle").text, timeout=10)
    # Both overlapping tensors hatched, leaning opposite ways, so both boxes show.
    script = (
        "const g = document.querySelector('#l2-map .js-plotly-plot');"
        "return g.data.filter(t => t.marker && t.marker.pattern && Array.isArray(t.marker.pattern.shape))"
        ".flatMap(t => t.marker.pattern.shape).filter(s => s);"
    )
    shapes = _wait(lambda: dash_duo.driver.execute_script(script))
    assert sorted(shapes) == ["/", "\\"]
    assert any(t["name"] == "overlap (GIR302/401)" for t in _traces(dash_duo, "l2-map"))
    _shot(dash_duo, tmp_path, "defect-overlap")

    _pick(dash_duo, "#file-select", "GIR502")
    # The deadlock: stuck workloads hatched on their cores, the cycle's two cross-core waits drawn.
    cycle = _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t["name"] == "wait cycle (GIR502)"])
    assert [y for y in cycle[0]["y"] if y] == ["core 0", "core 2", "core 2", "core 0"]
    stuck = [t for t in _traces(dash_duo, "timeline") if t["name"] == "cannot start (GIR502)"]
    assert stuck[0]["n"] == 5
    # Clicking the finding outlines its workload (core 0's workload 0 starts the cycle) in black.
    dash_duo.wait_for_contains_text("#findings", "GIR502", timeout=15)
    next(r for r in dash_duo.find_elements("#findings tr.finding-row") if "GIR502" in r.text).click()
    widths = (
        "const g = document.querySelector('#timeline .js-plotly-plot');"
        "const t = g._fullData.find(t => t.name === 'cannot start (GIR502)');"
        "return t ? Array.from(t.marker.line.width) : [];"
    )
    _wait(lambda: dash_duo.driver.execute_script(widths) == [3, 1.5, 1.5, 1.5, 1.5], timeout=10)
    _shot(dash_duo, tmp_path, "defect-deadlock")


def test_maps_share_the_timeline_cycles_both_ways(dash_duo: Any, tmp_path: Path) -> None:
    _open(dash_duo, SAMPLES, MESH)
    _wait(lambda: _ready(dash_duo, "l2-map"), timeout=15)
    title = dash_duo.driver.execute_script(
        "return document.querySelector('#l2-map .js-plotly-plot')._fullLayout.xaxis2.title.text;"
    )
    assert title == "cycles"
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 20000, "xaxis.range[1]": 60000})
    _wait(lambda: _x_range(dash_duo, "l2-map") == [20000, 60000], timeout=10)
    _wait(lambda: _x_range(dash_duo, "wl0-map") == [20000, 60000], timeout=10)
    _relayout(dash_duo, "l2-map", {"xaxis2.range[0]": 10000, "xaxis2.range[1]": 30000})
    _wait(lambda: _x_range(dash_duo, "timeline") == [10000, 30000], timeout=10)
    _relayout(dash_duo, "timeline", {"xaxis.autorange": True})
    _wait(lambda: _x_range(dash_duo, "l2-map")[1] >= 41000, timeout=10)  # core 0's Conv_0 ends at 41000

    # Clicking Relu_2's bar (core 2, 94000-102192) selects that workload in the maps.
    _wait(lambda: _ready(dash_duo, "timeline"))
    where = dash_duo.driver.execute_script(
        "const g = document.querySelector('#timeline .js-plotly-plot');"
        "const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;"
        "return [xa._offset + xa.l2p(98000), ya._offset + ya.l2p(ya.d2l('core 2'))];"
    )
    from selenium.webdriver import ActionChains

    plot = dash_duo.find_element("#timeline .js-plotly-plot")
    # The mesh sits above the timeline: bring the timeline on screen before clicking into it.
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", plot)
    dx, dy = where[0] - plot.size["width"] / 2, where[1] - plot.size["height"] / 2  # from its center
    ActionChains(dash_duo.driver).move_to_element(plot).move_by_offset(dx, dy).click().perform()
    dash_duo.wait_for_contains_text("#focus-note", "selected core 2, workload 1 (position 1)", timeout=10)
    dash_duo.wait_for_contains_text("#core", "core 2", timeout=10)
    _wait(lambda: "core 2" in dash_duo.find_element("#l2-map .gtitle").text, timeout=10)
    # The maps mark the workload: a band over its cycles (Relu_2 runs 94000-102192), named by its id.
    _wait(lambda: "workload 1" in dash_duo.find_element("#l2-map").text, timeout=10)
    band = dash_duo.driver.execute_script(
        "const s = document.querySelector('#l2-map .js-plotly-plot')._fullLayout.shapes;"
        "return s.filter(x => x.type === 'rect').map(x => [x.x0, x.x1]);"
    )
    assert band == [[94000, 102192]] * 2  # in the address panel and in the bytes-held panel
    _shot(dash_duo, tmp_path, "maps-cycles")
