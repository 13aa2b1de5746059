"""`irtools analyze IR --trace TRACE`: the measured tables, summary and findings."""

from __future__ import annotations

import json
from pathlib import Path

from irtools.analysis import TABLES, read_table
from irtools.analysis.measured_tables import MEASURED_TABLES
from tests.conftest import RunCli

STEM = "int8_resnet50.sim_quantized_b1_c1_bw16"


def _pair(fixtures_dir: Path) -> tuple[Path, Path]:
    return fixtures_dir / "gemini" / f"{STEM}_stschedule.json", fixtures_dir / "zebu" / f"{STEM}_sim.txt"


def test_analyze_with_trace_writes_measured_tables(
    run_cli: RunCli, fixtures_dir: Path, tmp_path: Path
) -> None:
    ir, trace = _pair(fixtures_dir)
    code, out, err = run_cli("analyze", ir, "--trace", trace, "--out", tmp_path)
    assert code == 0, err
    assert "measured 2,545,655 (1.37x)" in out
    assert "wait 1: 125,824 before workload 63 (Conv_105)" in out
    assert "177 of 177" in out  # compute tiles reproducing the estimate by construction
    # The IR's tables and the measured ones.
    # The IR's tables but noc_links (routed only with --noc-links or --noc-bw), and the measured ones.
    assert f"wrote {len(TABLES) - 1 + len(MEASURED_TABLES)} tables" in out
    assert all((tmp_path / f"{name}.csv").exists() for name in MEASURED_TABLES)
    workloads = read_table(tmp_path / "measured_workloads.csv")
    assert len(workloads) == 88 and workloads["gap"].max() == 125_824
    assert len(read_table(tmp_path / "measured_instructions.csv")) == 742


def test_analyze_json_has_the_measured_summary(run_cli: RunCli, fixtures_dir: Path, tmp_path: Path) -> None:
    ir, trace = _pair(fixtures_dir)
    code, out, _ = run_cli("analyze", ir, "--trace", trace, "--out", tmp_path, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["measured"]["measured_makespan"] == 2_545_655
    assert data["measured"]["top_waits"][0]["workload_id"] == 63
    assert data["trace_findings"] == []


def test_trace_findings_are_printed_with_their_line(
    run_cli: RunCli, fixtures_dir: Path, tmp_path: Path
) -> None:
    ir, trace = _pair(fixtures_dir)
    lines = trace.read_text().split("\n")
    lines[34] = lines[34].replace("'time': [176668, 184209]", "'time': [176600, 184141]")
    damaged = tmp_path / "damaged_sim.txt"
    damaged.write_text("\n".join(lines))
    code, out, _ = run_cli("analyze", ir, "--trace", damaged, "--out", tmp_path / "out")
    assert code == 0
    assert f"{damaged}:35: GIR604 error pe_conv starts at 176600 before its LW producer" in out


def test_a_file_that_is_not_a_trace(run_cli: RunCli, fixtures_dir: Path, tmp_path: Path) -> None:
    ir, _ = _pair(fixtures_dir)
    garbage = tmp_path / "x_sim.txt"
    garbage.write_bytes(b"\x00\x01 not a trace")
    code, _, err = run_cli("analyze", ir, "--trace", garbage, "--out", tmp_path / "out")
    assert code == 1
    assert err.startswith("irtools analyze: error:") and "not a ZeBu trace" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # the trace is read before any table is written
    code, _, err = run_cli("analyze", ir, "--trace", tmp_path / "missing.txt", "--out", tmp_path / "out")
    assert code == 2 and "missing.txt" in err
