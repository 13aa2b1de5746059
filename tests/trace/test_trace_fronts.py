"""The fronts over the join: Perfetto lanes, summarize columns, the report and the figures."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from dashboards.measured import measured_timeline_figure, slot_figure
from irtools.analysis import analyze
from irtools.sweep.engine import sweep_table
from irtools.trace import measure, parse_trace, read_trace
from tests.conftest import RunCli

STEM = "int8_resnet50.sim_quantized_b1_c1_bw16"


def _pair(fixtures_dir: Path) -> tuple[Path, Path]:
    return fixtures_dir / "gemini" / f"{STEM}_stschedule.json", fixtures_dir / "zebu" / f"{STEM}_sim.txt"


def test_export_trace_adds_measured_lanes(run_cli: RunCli, fixtures_dir: Path, tmp_path: Path) -> None:
    ir, trace = _pair(fixtures_dir)
    out = tmp_path / "t.json"
    code, stdout, err = run_cli("export-trace", ir, "--trace", trace, "-o", out, "--clock-mhz", "1000")
    assert code == 0, err
    assert "measured lanes of 742 instructions" in stdout
    events = json.loads(out.read_text())["traceEvents"]
    threads = {
        e["tid"]: e["args"]["name"]
        for e in events
        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 1
    }
    assert list(threads.values()) == ["CT", "LD", "LW", "PE", "VP", "DT", "ST", "compute waits"]
    slices = [e for e in events if e["ph"] == "X" and e["pid"] == 1 and e["cat"] != "wait"]
    assert len(slices) == 742
    # Line 536, the pe_conv after the longest wait, at 1,837,602 cycles = 1,837.602 us at 1 GHz.
    conv = next(e for e in slices if e["args"]["line"] == 536)
    assert conv["ts"] == pytest.approx(1837.602) and threads[conv["tid"]] == "PE"
    waits = [e for e in events if e.get("cat") == "wait"]
    assert max(e["args"]["gap_cycles"] for e in waits) == 125_824
    # Without --trace the export is unchanged: one process, the IR's.
    code, _, _ = run_cli("export-trace", ir, "-o", tmp_path / "plain.json")
    assert {e["pid"] for e in json.loads((tmp_path / "plain.json").read_text())["traceEvents"]} == {0}


def test_summarize_fills_measured_columns_when_a_trace_is_found(fixtures_dir: Path, tmp_path: Path) -> None:
    ir, trace = _pair(fixtures_dir)
    shutil.copy(ir, tmp_path / ir.name)
    shutil.copy(trace, tmp_path / trace.name)
    shutil.copy(fixtures_dir / "gemini" / "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json", tmp_path)
    table = sweep_table([str(tmp_path)]).set_index("path")
    joined = table.loc[str(tmp_path / ir.name)]
    assert joined.measured_makespan == 2_545_655 and joined.trace_errors == 0
    assert joined.measured_ratio == pytest.approx(2_545_655 / 1_863_694)
    alone = table.loc[str(tmp_path / "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json")]
    assert alone.isna()[["trace", "measured_makespan", "trace_errors"]].all()


def test_report_has_the_measured_section(run_cli: RunCli, fixtures_dir: Path, tmp_path: Path) -> None:
    ir, _ = _pair(fixtures_dir)
    code, out, err = run_cli("report", ir, "-o", tmp_path / "r.html")  # the trace is found in ../zebu/
    assert code == 0, err
    assert f"measured trace {STEM}_sim.txt" in out
    page = (tmp_path / "r.html").read_text()
    assert "Estimated vs measured" in page and "reproduce the IR&#x27;s estimate by construction" in page
    assert "LD ldw_mov of wkl 61 (138,328 cycles, line 500)" in page
    code, _, err = run_cli("report", ir, "-o", tmp_path / "x.html", "--trace", tmp_path / "none.txt")
    assert code == 2 and "--trace" in err


def test_figures_aggregate_past_the_bar_limit(fixtures_dir: Path) -> None:
    ir, trace_path = _pair(fixtures_dir)
    analysis = analyze(ir)
    measured = measure(analysis, read_trace(trace_path))
    small = measured_timeline_figure(measured)
    assert not any(t.type == "heatmap" for t in small.data)
    measured_bars = [t for t in small.data if t.type == "bar" and "(measured)" in t.name]
    assert sum(len(t.x) for t in measured_bars) == 178  # the PE, VP and DT work
    # Twelve copies of the trace one after another: 4,392 instructions to draw (no *_cfg), past 4,000.
    lines = trace_path.read_text().splitlines()
    text = "\n".join(
        re.sub(
            r"'time': \[(\d+), (\d+)\]",
            lambda m, k=k: f"'time': [{int(m[1]) + k * 3_000_000}, {int(m[2]) + k * 3_000_000}]",
            line,
        )
        for k in range(12)
        for line in lines
    )
    big = measure(analysis, parse_trace(text.encode()))
    figure = measured_timeline_figure(big)
    assert any(t.type == "heatmap" for t in figure.data)
    assert figure.layout.xaxis.tickformat == "~s"  # 36M as the timeline writes it, not Plotly's default
    zoomed = measured_timeline_figure(big, window=(0, 2_600_000))
    assert not any(t.type == "heatmap" for t in zoomed.data)
    assert len(slot_figure(measured).data[0].x) == 88


def test_layer_names_are_escaped_in_figures(fixtures_dir: Path, tmp_path: Path) -> None:
    ir, trace_path = _pair(fixtures_dir)
    text = ir.read_text().replace('"Conv_105"', '"<img src=x onerror=alert(1)>"')
    evil = tmp_path / ir.name
    evil.write_text(text)
    measured = measure(analyze(evil), read_trace(trace_path))
    payload = measured_timeline_figure(measured).to_json() + slot_figure(measured).to_json()
    assert "<img" not in payload and "&lt;img" in payload
