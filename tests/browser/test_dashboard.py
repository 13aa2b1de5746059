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


def _wait(predicate: Any, timeout: float = 10.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for the page")


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
    dash_duo.wait_for_contains_text("#status", "the upload limit is 0 MB", timeout=15)
    upload.send_keys(str(small))
    dash_duo.wait_for_contains_text("#status", "small.json: 4 cores, 5 workloads", timeout=15)
    _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"])


def test_aggregated_timeline_shows_bars_again_when_zoomed(
    dash_duo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 3)  # the sample's 5 workloads count as "many"
    _open(dash_duo, SAMPLES, MESH)
    _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "heatmap"], timeout=15)
    assert not [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"]
    _shot(dash_duo, tmp_path, "timeline-aggregated")
    # Zoom as a drag does: Relu_2 (core 2, 94000-102192) is the only workload in this window.
    dash_duo.driver.execute_script(
        "Plotly.relayout(document.querySelector('#timeline .js-plotly-plot'), "
        "{'xaxis.range[0]': 95000, 'xaxis.range[1]': 101000});"
    )
    bars = _wait(lambda: [t for t in _traces(dash_duo, "timeline") if t.get("type") == "bar"], timeout=15)
    assert [y for t in bars for y in t["y"]] == ["core 2"]
    assert not [t for t in _traces(dash_duo, "timeline") if t.get("type") == "heatmap"]
    assert dash_duo.get_logs() == []
    _shot(dash_duo, tmp_path, "timeline-zoomed")


def test_a_slow_first_load_still_draws_its_timeline(
    dash_duo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: Plotly's relayout after drawing the "no IR loaded" placeholder re-ran the timeline
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
