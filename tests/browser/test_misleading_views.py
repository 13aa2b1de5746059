"""Views that misled users of the real files, each pinned in headless Chromium (issue 21).

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from dashboards.app import create_app
from tests.browser.test_dashboard import SAMPLES, _ready, _relayout, _shot, _wait

R50 = "gemini/int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"


def _layout(dash_duo: Any, graph: str) -> dict[str, Any]:
    script = (
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "if (!g || !g._fullLayout) return '{}';"
        "const l = g._fullLayout;"
        "return JSON.stringify({xtitle: l.xaxis.title.text, xrange: l.xaxis.range, n: g.data.length});"
    )
    return json.loads(dash_duo.driver.execute_script(script))


def test_raw_block_map_follows_the_cycles_axis(dash_duo: Any, tmp_path: Path, fixtures_dir: Path) -> None:
    # The switch says "cycles (as the timeline)": the raw map was drawn over workload position anyway.
    dash_duo.start_server(create_app(fixtures_dir / "gemini-raw", open_file="resnet_2x2_b1_ir.json"))
    dash_duo.wait_for_contains_text("#status", "4 cores", timeout=30)
    _wait(
        lambda: _ready(dash_duo, "l2-map") and "cycles" in (_layout(dash_duo, "l2-map").get("xtitle") or ""),
        30,
    )
    lo, hi = _layout(dash_duo, "l2-map")["xrange"]
    assert lo == 0 and hi > 1_000_000  # the dependency makespan, not ~70 workload positions
    _wait(lambda: _ready(dash_duo, "timeline"), 30)
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 200000, "xaxis.range[1]": 400000})
    _wait(lambda: _layout(dash_duo, "l2-map")["xrange"] == [200000, 400000], 20)
    assert dash_duo.get_logs() == []
    _shot(dash_duo, tmp_path, "raw-map-cycles")


def test_measured_lanes_follow_the_shared_cycles_range(dash_duo: Any, fixtures_dir: Path) -> None:
    dash_duo.start_server(create_app(fixtures_dir, open_file=R50))
    dash_duo.wait_for_contains_text("#measured-summary", "measured 2,545,655", timeout=40)
    _wait(lambda: _ready(dash_duo, "measured-timeline") and _ready(dash_duo, "timeline"), 30)
    _relayout(dash_duo, "timeline", {"xaxis.range[0]": 100000, "xaxis.range[1]": 300000})
    _wait(lambda: _layout(dash_duo, "measured-timeline")["xrange"] == [100000, 300000], 20)
    # And the other way: zooming the lanes moves the timeline.
    _relayout(dash_duo, "measured-timeline", {"xaxis.range[0]": 500000, "xaxis.range[1]": 700000})
    _wait(lambda: _layout(dash_duo, "timeline")["xrange"] == [500000, 700000], 20)
    assert dash_duo.get_logs() == []


def test_a_deadlocked_file_shows_busy_cycles_not_na(dash_duo: Any) -> None:
    dash_duo.start_server(create_app(SAMPLES, open_file="invalid/GIR502-deadlock.json"))
    dash_duo.wait_for_contains_text("#status", "makespan (dependency): none", timeout=20)
    status = dash_duo.find_element("#status").text
    assert "n/a" not in status
    assert "cycles (no makespan)" in status


def test_a_trace_of_another_ir_is_one_finding(dash_duo: Any, tmp_path: Path, fixtures_dir: Path) -> None:
    # The raw 2x2 ResNet-50 (cores 1, 2, 5, 6) beside the single-core ResNet-50 trace: 88 GIR611 lines before.
    shutil.copy(fixtures_dir / "gemini-raw" / "resnet_2x2_b1_ir.json", tmp_path / "resnet_2x2_b1_ir.json")
    trace = fixtures_dir / "zebu" / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"
    shutil.copy(trace, tmp_path / "resnet_2x2_b1_ir_sim.txt")
    dash_duo.start_server(create_app(tmp_path, open_file="resnet_2x2_b1_ir.json"))
    dash_duo.wait_for_contains_text("#measured-summary", "trace findings: 1 errors", timeout=40)
    text = dash_duo.find_element("#measured-summary").text
    assert "the trace does not belong to this IR: 88 of the 88 wkl ids" in text
    assert text.count("GIR611") == 1


def test_measured_legend_stays_off_the_lanes_at_1400_px(
    dash_duo: Any, tmp_path: Path, fixtures_dir: Path
) -> None:
    # A 1400 px desktop window whose scrollbar takes 15 px: the legend's row lay over the estimate lane.
    # (Headless Chromium draws no scrollbar: the window is narrowed by its width instead.)
    dash_duo.driver.set_window_size(1385, 1000)
    dash_duo.start_server(create_app(fixtures_dir, open_file=R50))
    dash_duo.wait_for_contains_text("#measured-summary", "measured 2,545,655", timeout=40)
    _wait(
        lambda: _ready(dash_duo, "measured-timeline") and _layout(dash_duo, "measured-timeline")["n"] > 3, 30
    )
    settled = (  # Plotly has sized the figure to its container (it may draw at 700 px first)
        "const g = document.querySelector('#measured-timeline .js-plotly-plot');"
        "return Math.abs(g._fullLayout.width - g.getBoundingClientRect().width) < 2;"
    )
    _wait(lambda: dash_duo.driver.execute_script(settled), 20)
    time.sleep(0.5)
    script = (
        "const r = s => document.querySelector('#measured-timeline ' + s).getBoundingClientRect();"
        "const a = r('.legend'), b = r('.nsewdrag');"
        "return JSON.stringify([a.left, a.top, a.right, a.bottom, b.left, b.top, b.right, b.bottom]);"
    )
    left, top, right, bottom, p_left, p_top, p_right, p_bottom = json.loads(
        dash_duo.driver.execute_script(script)
    )
    overlap = left < p_right and p_left < right and top < p_bottom and p_top < bottom
    assert not overlap, (
        f"legend {left, top, right, bottom} meets the plot area {p_left, p_top, p_right, p_bottom}"
    )
    dash_duo.driver.execute_script("document.getElementById('measured-section').scrollIntoView()")
    _shot(dash_duo, tmp_path, "measured-legend-1400")
