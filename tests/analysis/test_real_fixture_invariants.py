"""Invariants of the analysis on the real Gemini files (clean) and the broken npu-simulator slice."""

from __future__ import annotations

from pathlib import Path

import pytest

from irtools.analysis import TABLES, Analysis, analyze
from irtools.loading.index import IRIndex

GEMINI = [
    "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json",
    "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json",
    "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json",
]


@pytest.fixture(scope="module", params=GEMINI)
def gemini(request: pytest.FixtureRequest) -> Analysis:
    path = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "gemini" / request.param
    if not path.is_file():
        pytest.skip("../shared/fixtures not present")
    return analyze(path)


def test_occupancy_never_exceeds_the_buffer(gemini: Analysis) -> None:
    # These files have no GIR301/GIR302 findings (pinned in tests/rules), so every snapshot fits.
    occ = gemini.l2_occupancy
    assert (occ.total_bytes <= gemini.buffersize).all()
    assert (occ.total_bytes == occ.used_bytes).all()  # no overlaps: bytes held = bytes covered
    assert not gemini.tensors.overlaps.any()
    assert gemini.tensors.problem.isna().all()


def test_per_type_bytes_sum_to_the_total(gemini: Analysis) -> None:
    occ = gemini.l2_occupancy
    assert (occ.ifmap_bytes + occ.ofmap_bytes + occ.weight_bytes == occ.total_bytes).all()
    assert (occ.free_bytes + occ.used_bytes == gemini.buffersize).all()
    assert (occ.largest_free_block <= occ.free_bytes).all()


def test_sequential_makespan_is_the_largest_core_sum(gemini: Analysis) -> None:
    seq = gemini.timeline[gemini.timeline.model == "sequential"]
    assert gemini.makespan("sequential") == seq.groupby("core_id")["time"].sum().max()
    # One core, so no cross-core waits: the dependency model gives the same schedule.
    dep = gemini.timeline[gemini.timeline.model == "dependency"]
    assert dep.start.tolist() == seq.start.tolist()
    assert gemini.critical_path("dependency") == [(0, p) for p in range(len(seq))]


def test_every_buffer_entry_is_in_one_lifetime(gemini: Analysis) -> None:
    assert gemini.tensors.snapshots.sum() == sum(len(r.workload.buffer) for r in gemini.index.workloads())
    assert (gemini.tensors.last_position >= gemini.tensors.first_position).all()


def test_dram_reads_cover_every_out_entry_once(gemini: Analysis) -> None:
    # Single core: each DRAM out entry is read once, charged to a workload.
    out = gemini.index.ir.dram.out
    reads = gemini.dram_transfers[gemini.dram_transfers.direction == "read"]
    assert len(reads) == len(out)
    assert reads.core_id.notna().all()
    assert gemini.dram_traffic.read_weight_bytes.sum() == sum(o.size for o in out if o.type == "weight")
    assert gemini.dram_traffic.read_fmap_bytes.sum() == sum(o.size for o in out if o.type == "fmap")
    writes = gemini.dram_transfers[gemini.dram_transfers.direction == "write"]
    assert len(writes) == len(gemini.index.ir.dram.in_) and writes.bytes.notna().all()


def test_layers_partition_the_workloads(gemini: Analysis) -> None:
    assert gemini.layers.workloads.sum() == len(gemini.timeline) // 2
    assert gemini.layers.total_time.sum() == gemini.makespan("sequential")
    assert gemini.layers.layer_name.is_unique


def test_broken_file_still_analyzes_and_marks_the_broken_parts(fixtures_dir: Path) -> None:
    a = analyze(fixtures_dir / "npu-simulator" / "ir_ramulator2_dram_test_slice.json")
    # Every workload lost buffer entries to boolean addresses (GIR101), so all 12 are incomplete.
    assert a.timeline.incomplete.all() and len(a.timeline) == 2 * 12
    assert a.l2_occupancy.incomplete.all()
    assert a.makespan("sequential") == a.timeline.groupby(["model", "core_id"])["time"].sum().max()
    assert len(IRIndex(a.loaded).incomplete) == 12
    for name, frame in a.tables().items():
        assert list(frame.columns) == [c.name for c in TABLES[name].columns]
