"""The estimated-vs-measured section in headless Chromium, with a real trace found beside its IR.

Set IRTOOLS_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dashboards.app import create_app
from tests.browser.test_dashboard import SAMPLES, _shot, _traces, _wait

R50 = "gemini/int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"


def test_a_trace_beside_the_ir_shows_measured_lanes(
    dash_duo: Any, tmp_path: Path, fixtures_dir: Path
) -> None:
    # Served from fixtures/: gemini/X_stschedule.json finds zebu/X_sim.txt, inside the served folder.
    dash_duo.start_server(create_app(fixtures_dir, open_file=R50))
    dash_duo.wait_for_contains_text("#measured-summary", "measured 2,545,655 (1.37x)", timeout=30)

    def lane_ticks() -> list[str]:  # the lanes' ticks, once drawn (not those of the empty figure before)
        ticks = [e.text for e in dash_duo.find_elements("#measured-timeline .ytick text")]
        return ticks if "estimate (IR)" in ticks else []

    ticks = _wait(lane_ticks, 30)
    assert ticks == ["ST", "DT", "VP", "PE", "LW", "LD", "estimate (IR)"]
    lanes = _traces(dash_duo, "measured-timeline")
    names = {t["name"] for t in lanes}
    assert {"compute idle", "LD data moves", "pe (measured)", "pe (estimate)"} <= names
    labels = next(t for t in lanes if t["name"].startswith("longest waits"))
    assert labels["n"] == 5
    slots = _wait(
        lambda: [t for t in _traces(dash_duo, "measured-slots") if t.get("type") == "bar" and t["n"]], 30
    )
    assert [t["n"] for t in slots] == [88, 88]  # busy and waiting, one bar per workload
    assert dash_duo.get_logs() == []
    dash_duo.driver.execute_script("document.getElementById('measured-section').scrollIntoView()")
    _shot(dash_duo, tmp_path, "dashboard-measured")


def test_no_trace_no_section(dash_duo: Any) -> None:
    dash_duo.start_server(create_app(SAMPLES, open_file="valid/mesh2x2_conv_b1_c4_bw16_stschedule.json"))
    dash_duo.wait_for_contains_text("#status", "4 cores, 5 workloads", timeout=15)
    section = dash_duo.find_element("#measured-section")
    assert not section.is_displayed()
