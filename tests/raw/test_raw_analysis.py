"""Analysis of the real raw-dialect files: the 4x4 schedule recomputed by hand, the block table, positions."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from irtools.analysis import TABLES, analyze
from irtools.analysis.analysis import AnalysisOptions
from irtools.analysis.summary import summarize

RAW_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw"
pytestmark = pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
R4X4 = RAW_DIR / "resnet_4x4_b4_ff1_ss2_rr50_ir.json"


@pytest.fixture(scope="module")
def doc4x4() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(R4X4.read_bytes())
    return doc


def _workloads(doc: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    return [(int(k), i, w) for k, ws in doc.items() if k.isdigit() for i, w in enumerate(ws)]


def test_4x4_dependency_makespan_by_hand(doc4x4: dict[str, Any]) -> None:
    """Recomputed from the JSON alone: workload ids are global and every producer has a smaller id, so one
    pass in id order places each workload after its core's previous one, the ofmaps it reads, and the
    DRAM `in` writes its DRAM reads depend on (related_ifmap), which is what max_workload_id records."""
    everything = _workloads(doc4x4)
    producer = {o["transfer_id"]: w["workload_id"] for _, _, w in everything for o in w["ofmap"]}
    writer = {e["transfer_id"]: e["workload_id"] for e in doc4x4["-1"]["in"]}
    read_back = {e["transfer_id"]: [writer[t] for t in e["related_ifmap"]] for e in doc4x4["-1"]["out"]}
    end: dict[int, int] = {}
    core_free: dict[int, int] = {}
    for core, _, wl in sorted(everything, key=lambda item: item[2]["workload_id"]):
        reads = wl["ifmap"]["transfer_id"] + (wl.get("weight") or {}).get("transfer_id", [])
        waits = [producer[t] for t in reads if t in producer] + [
            p for t in reads for p in read_back.get(t, [])
        ]
        assert all(p < wl["workload_id"] for p in waits)
        start = max([core_free.get(core, 0), *(end[p] for p in waits)])
        end[wl["workload_id"]] = core_free[core] = start + wl["time"]
    assert max(end.values()) == 1_567_527
    # Without waits the busiest core (mesh ids 2, 7, 9, 15, 19, 21, 22) needs 1,557,533 cycles: the
    # cross-core and DRAM waits cost 9,994 cycles.
    busiest = max(sum(w["time"] for w in ws) for k, ws in doc4x4.items() if k.isdigit())
    assert busiest == 1_557_533
    a = analyze(R4X4)
    assert (a.makespan("dependency"), a.makespan("sequential")) == (1_567_527, 1_557_533)


def test_4x4_core_transfers_are_the_156_core_destinations(doc4x4: dict[str, Any]) -> None:
    position = {(c, w["workload_id"]): i for c, i, w in _workloads(doc4x4)}
    expected = {
        (o["transfer_id"], c, i, d["id"], position[(d["id"], d["workload_id"])])
        for c, i, w in _workloads(doc4x4)
        for o in w["ofmap"]
        for d in o["destination"]
        if d["type"] == "core"
    }
    table = analyze(R4X4).table("core_transfers")
    rows = set(
        map(
            tuple,
            table[["transfer_id", "src_core", "src_position", "dst_core", "dst_position"]].values.tolist(),
        )
    )
    assert len(expected) == 156 and rows == expected
    # First row by hand: transfer 4501 from core 7 = mesh (0,1) to core 1 = mesh (0,0), both at position 115.
    first = table.iloc[0]
    assert (
        first.transfer_id,
        first.src_core,
        first.src_x,
        first.src_y,
        first.dst_core,
        first.dst_x,
        first.dst_y,
    ) == (4501, 7, 0, 1, 1, 0, 0)


def test_l2_blocks_sum_the_block_counts(doc4x4: dict[str, Any]) -> None:
    a = analyze(R4X4, AnalysisOptions(l2_size=2048 * 1024))  # L2 2048 KB per the scheduler's input line
    blocks = a.table("l2_blocks")
    assert len(blocks) == 1920 and list(blocks.columns) == [c.name for c in TABLES["l2_blocks"].columns]
    first = blocks.iloc[0]  # core 1, workload 0 (conv1): weight 10 + ofmap 10 + ifmap 39 blocks
    assert (first.core_id, first.workload_id, first.weight_kib, first.ofmap_kib, first.ifmap_kib) == (
        1,
        0,
        10,
        10,
        39,
    )
    assert first.held_kib == 59 and first.l2_kib == 2048 and math.isclose(first.fraction, 59 / 2048)
    total = sum(b["block"] for _, _, w in _workloads(doc4x4) for b in w["buffer"])
    assert blocks["held_kib"].sum() == total
    # The busiest snapshot: core 15 before workload 1610, 612 KiB of 2048.
    peak = blocks.loc[blocks["held_kib"].idxmax()]
    assert (peak.core_id, peak.workload_id, peak.held_kib) == (15, 1610, 612)


def test_raw_sizes_are_bits_and_tables_hold_bytes(doc4x4: dict[str, Any]) -> None:
    """conv1's weight is 64x3x7x7 = 9,408 int8 values; the file says size 75,264 (bits)."""
    conv1 = doc4x4["-1"]["out"][0]
    assert (conv1["layer_name"], conv1["type"], conv1["size"]) == ("conv1", "weight", 75_264)
    reads = analyze(R4X4).table("dram_transfers")
    row = reads[(reads["transfer_id"] == 0) & (reads["direction"] == "read")]
    assert set(row["bytes"]) == {9_408} and len(row) == 16  # read once into each of the 16 cores


def test_a_table_handed_out_and_the_kept_one_never_see_each_others_changes() -> None:
    """`Analysis.table` adds the mesh positions to a copy that shares the kept table's columns (pandas'
    copy-on-write): a user's edit of one must not reach the other, nor a later `table` call."""
    a = analyze(R4X4)
    handed = a.table("l2_blocks")
    kept = a.l2_blocks
    before = int(kept["held_kib"].iloc[0])
    handed.loc[0, "held_kib"] = before + 1
    kept_copy = a.l2_blocks
    assert (
        int(kept_copy["held_kib"].iloc[0]) == before
        and int(a.table("l2_blocks")["held_kib"].iloc[0]) == before
    )
    assert "core_x" in handed.columns and "core_x" not in kept.columns


def test_every_raw_file_analyzes_with_positions() -> None:
    for path in sorted(RAW_DIR.glob("*.json")):
        a = analyze(path)
        tables = a.tables()
        for name, frame in tables.items():
            assert list(frame.columns) == [c.name for c in TABLES[name].columns], name
        assert tables["tensors"].empty and tables["l2_occupancy"].empty  # no addresses
        assert not tables["l2_blocks"].empty and not tables["layers"].empty
        timeline = tables["timeline"]
        assert timeline["core_x"].notna().all() and timeline["core_y"].notna().all()
        assert set(zip(timeline.core_id, timeline.core_x, timeline.core_y, strict=True)) <= {
            (y * (a.index.ir.xlen + 2) + x + 1, x, y)
            for x in range(a.index.ir.xlen)
            for y in range(a.index.ir.ylen)
        }
        summary = summarize(a)
        assert summary.makespan["dependency"] is not None


def test_trace_tracks_name_the_mesh_position() -> None:
    from irtools.analysis.trace import chrome_trace

    events = chrome_trace(analyze(R4X4))["traceEvents"]
    names = [e["args"]["name"] for e in events if e["name"] == "thread_name"]
    assert len(names) == 16 and names[:2] == ["core 1 (0,0)", "core 2 (1,0)"] and names[-1] == "core 22 (3,3)"
