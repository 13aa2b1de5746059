"""The join of the three shared traces to their IRs, checked against the files by hand."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from irtools.analysis import analyze
from irtools.trace import Measured, discover_trace, measure, parse_trace, read_trace


class Expected(NamedTuple):
    estimated: int  # sum of `time` over core 0's workloads (the IR's own makespan)
    makespan: int  # end of the last line (ct_ed)
    idle: int  # time no compute instruction (PE, VP, DT) runs
    waits: list[tuple[int, int, int]]  # (workload_id, gap, line of the critical wait), longest first


# Each gap checked with grep: the workload's first compute line minus the previous workload's last.
EXPECTED = {
    # 1,269,205 (line 404, wkl 57) - 1,172,296 (line 396, wkl 56) = 96,909; the ldw_mov of line 392
    # (138,328 cycles, 512x512x3x3 weights) ends at the start of wkl 57's pe_conv.
    "int8_resnet34.sim_quantized_b1_c1_bw16": Expected(
        1_530_664, 1_922_067, 388_609, [(57, 96_909, 392), (60, 64_511, 428), (61, 61_529, 454)]
    ),
    # The first workload waits 93,662 for the batch-4 FP16 input: lda_mov, line 7, [165, 93662].
    # 3,873,047 (line 471, wkl 61) - 3,860,303 (line 465, wkl 60) = 12,744.
    "int8_resnet34.sim_quantized_b4_c1_bw16": Expected(
        4_127_203, 4_280_215, 148_781, [(0, 93_662, 7), (61, 12_744, 449), (63, 11_076, 468)]
    ),
    # The numbers: 2,545,655 measured vs 1,863,694 estimated. 1,837,602 (line 536, wkl 63)
    # - 1,711,778 (line 525, wkl 62) = 125,824, covered by two weight loads (lines 500 and 527);
    # 2,478,364 (line 733) - 2,363,437 (line 722) = 114,927, the Gemm's weights (line 715).
    "int8_resnet50.sim_quantized_b1_c1_bw16": Expected(
        1_863_694, 2_545_655, 678_410, [(63, 125_824, 500), (87, 114_927, 715), (59, 88_407, 435)]
    ),
}


def _measured(fixtures_dir: Path, stem: str) -> Measured:
    analysis = analyze(fixtures_dir / "gemini" / f"{stem}_stschedule.json")
    return measure(analysis, read_trace(fixtures_dir / "zebu" / f"{stem}_sim.txt"))


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_makespan_idle_and_top_waits(fixtures_dir: Path, stem: str) -> None:
    expected = EXPECTED[stem]
    measured = _measured(fixtures_dir, stem)
    summary = measured.summary()
    assert measured.findings == []  # every wkl is a core-0 workload, every tile joins
    assert summary.measured_workloads == summary.workloads
    assert summary.estimated_makespan == expected.estimated
    assert summary.measured_makespan == expected.makespan
    assert summary.idle == expected.idle
    assert summary.idle_share == pytest.approx(expected.idle / expected.makespan)
    table = measured.workloads.set_index("workload_id")
    assert [(w.workload_id, w.gap) for w in summary.top_waits] == [(w, g) for w, g, _ in expected.waits]
    assert [int(table.at[w, "critical_wait_line"]) for w, _, _ in expected.waits] == [
        line for _, _, line in expected.waits
    ]
    # The claim: nearly all compute idle time has a DMA transfer running.
    assert summary.idle_with_dma_share > 0.99
    # Compute durations reproduce the estimate by construction: the tool counts them, not assumes it.
    assert summary.tiles_by_construction == summary.tiles > 0


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_idle_and_makespan_agree_with_a_plain_reading_of_the_file(fixtures_dir: Path, stem: str) -> None:
    # An independent count with regular expressions, to keep the reader honest.
    text = (fixtures_dir / "zebu" / f"{stem}_sim.txt").read_text()
    times = [
        (m[1], int(m[2]), int(m[3]))
        for m in re.finditer(r"^\[(\w+),.*?'time': \[(\d+), (\d+)\]", text, re.MULTILINE)
    ]
    compute = sorted(
        (s, e) for name, s, e in times if name.startswith(("pe_", "vp_", "dt_")) and "_cfg" not in name
    )
    idle, reach = 0, 0
    for start, end in compute:
        idle += max(0, start - reach)
        reach = max(reach, end)
    makespan = max(e for _, _, e in times)
    assert makespan == EXPECTED[stem].makespan
    assert idle + makespan - reach == EXPECTED[stem].idle


def test_workload_row_and_rollups(fixtures_dir: Path) -> None:
    measured = _measured(fixtures_dir, "int8_resnet50.sim_quantized_b1_c1_bw16")
    row = measured.workloads.set_index("workload_id").loc[63]
    assert (row.layer_name, row.time, row.tiles, row.measured_tiles) == ("Conv_105", 36_831, 4, 4)
    assert (row.start, row.gap) == (1_837_602, 125_824)
    assert row.busy == 4 * (round(36_831 / 4) + 20)  # four tiles of round(time / 4) + 20
    assert row.slot == row.gap + row.busy
    # LD moves data all through the gap but for the 21 cycles of the ldw_cfg between its two loads.
    assert row.dma_queues == "LD" and row.ld_active == 125_824 - 21
    # Pro rata: 63,783 of line 500's 138,328 cycles (2,359,296 bytes) and all of line 527 (1,048,576 bytes).
    assert row.dma_bytes == round(2_359_296 * 63_783 / 138_328 + 512 * 2048)
    assert row.critical_wait.startswith("LD ldw_mov of wkl 61 (138,328 cycles, line 500)")
    types = measured.layer_types.set_index("layer_type")
    assert types["workloads"].sum() == 88
    assert types["gap"].sum() == measured.workloads["gap"].sum()
    assert types.loc["pe", "gap_share"] > 0.9  # the convolutions wait, on their weights
    layers = measured.layers
    assert len(layers) == measured.workloads["layer_name"].nunique()
    queues = measured.queues.set_index("queue")
    assert queues.loc["LD", "bytes"] > queues.loc["ST", "bytes"] > 0
    assert queues["idle_active"]["LD"] > queues["idle_active"]["LW"]


def test_joins_that_fail_are_findings(fixtures_dir: Path) -> None:
    stem = "int8_resnet50.sim_quantized_b1_c1_bw16"
    analysis = analyze(fixtures_dir / "gemini" / f"{stem}_stschedule.json")
    lines = (fixtures_dir / "zebu" / f"{stem}_sim.txt").read_text().split("\n")
    # Line 16: vp_self of wkl 0 retagged to a workload core 0 does not have, so wkl 0 loses its only tile.
    lines[15] = lines[15].replace("'wkl': 0, 'tile': 0", "'wkl': 500, 'tile': 0")
    # Line 35: the only tile of workload 3 renamed tile 7.
    lines[34] = lines[34].replace("'wkl': 3, 'tile': 0", "'wkl': 3, 'tile': 7")
    measured = measure(analysis, parse_trace("\n".join(lines).encode()))
    found = [(f.code, f.workload_id, f.line) for f in measured.findings]
    assert found == [("GIR611", 500, 16), ("GIR612", 0, None), ("GIR613", 3, 35)]
    assert "missing [0]; extra or repeated [7]" in measured.findings[2].message
    assert measured.summary().measured_workloads == 87


def test_discovery_by_stem(fixtures_dir: Path, tmp_path: Path) -> None:
    ir = fixtures_dir / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"
    # The shared layout: gemini/X_stschedule.json and zebu/X_sim.txt side by side folders.
    found = discover_trace(ir)
    assert found is not None
    assert (
        found.resolve()
        == (fixtures_dir / "zebu" / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt").resolve()
    )
    assert discover_trace(ir, root=fixtures_dir / "gemini") is None  # outside the served folder
    (tmp_path / "net_stschedule.json").write_text("{}")
    assert discover_trace(tmp_path / "net_stschedule.json") is None
    (tmp_path / "net_sim.txt").write_text("")
    assert discover_trace(tmp_path / "net_stschedule.json") == tmp_path / "net_sim.txt"
