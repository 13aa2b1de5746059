"""Tensor lifetimes and L2/WL0 occupancy, with numbers worked out by hand."""

from __future__ import annotations

from typing import Any

from irtools.analysis import Analysis
from tests.analysis.builders import analysis_of, buffer_entry, chain_ir

KB = 1024


def test_a_tensor_live_in_snapshots_3_to_7(minimal_ir: dict[str, Any]) -> None:
    kept = buffer_entry(5, 0, 800)
    snapshots = [[buffer_entry(1, 4096, 64)] for _ in range(10)]
    for i in range(3, 8):
        snapshots[i].append(dict(kept))
    a = analysis_of(chain_ir(minimal_ir, snapshots))
    life = a.tensors[a.tensors.tensor_id == 5]
    assert len(life) == 1
    row = life.iloc[0]
    assert (row.first_position, row.last_position, row.snapshots) == (3, 7, 5)
    assert (row.first_workload_id, row.last_workload_id) == (3, 7)
    # Tensor 1 sits in every snapshot: one lifetime from 0 to 9.
    assert a.tensors[a.tensors.tensor_id == 1][["first_position", "last_position"]].values.tolist() == [
        [0, 9]
    ]


def test_a_tensor_that_leaves_and_returns_has_two_lifetimes(minimal_ir: dict[str, Any]) -> None:
    t = buffer_entry(5, 0, 800)
    a = analysis_of(chain_ir(minimal_ir, [[t], [], [t], [t]]))
    assert a.tensors[["first_position", "last_position"]].values.tolist() == [[0, 0], [2, 3]]


def test_a_moved_tensor_is_a_new_lifetime(minimal_ir: dict[str, Any]) -> None:
    a = analysis_of(chain_ir(minimal_ir, [[buffer_entry(5, 0, 800)], [buffer_entry(5, 1024, 800)]]))
    assert a.tensors.address.tolist() == [0, 1024]


def test_every_snapshot_entry_belongs_to_exactly_one_lifetime(mesh: Analysis) -> None:
    assert mesh.tensors.snapshots.sum() == mesh.l2_occupancy.tensors.sum() == 14


def test_wrapped_tensor_has_two_segments(mesh: Analysis) -> None:
    # Core 0's ifmap starts 4 KiB before the end of ring region 0 and is 4352 bytes long.
    row = mesh.tensors[(mesh.tensors.core_id == 0) & (mesh.tensors.tensor_id == 0)].iloc[0]
    assert row.wraps
    assert row.segments == f"{512 * KB - 4 * KB}-{512 * KB};0-256"
    assert (row.region_start, row.region_end) == (0, 512 * KB)
    assert row.source == "DRAM"


def test_l2_occupancy_by_hand(mesh: Analysis) -> None:
    occ = mesh.l2_occupancy.set_index(["core_id", "position"])
    core2 = occ.loc[(2, 0)]
    # Ifmap 16 KiB at 0 (from cores 0 and 1), weight 4608 B at 32 KiB, ifmap 16 KiB at 512 KiB.
    assert (core2.ifmap_bytes, core2.weight_bytes, core2.ofmap_bytes) == (32 * KB, 4608, 0)
    assert core2.total_bytes == core2.used_bytes == 32 * KB + 4608
    assert core2.free_bytes == 1024 * KB - core2.used_bytes
    # Largest gap inside one region: region 1 holds 16 KiB at its start, so 512 - 16 KiB remain.
    assert core2.largest_free_block == 512 * KB - 16 * KB
    regions = mesh.l2_regions.set_index(["core_id", "position", "region_start"])
    assert regions.loc[(2, 0, 0)].largest_free_block == 512 * KB - (32 * KB + 4608)
    assert regions.loc[(2, 0, 0)].used_bytes == 16 * KB + 4608


def test_overlapping_and_out_of_bounds_tensors_are_marked(minimal_ir: dict[str, Any]) -> None:
    snapshot = [
        buffer_entry(1, 0, 1000),
        buffer_entry(2, 900, 200),  # shares [900, 1000) with tensor 1
        buffer_entry(3, 2000, 100),  # touches nothing
        buffer_entry(4, 1048576, 64),  # starts at buffersize
    ]
    a = analysis_of(chain_ir(minimal_ir, [snapshot]))
    tensors = a.tensors.set_index("tensor_id")
    assert tensors.overlaps.to_dict() == {1: True, 2: True, 3: False, 4: False}
    assert "past buffersize" in tensors.loc[4, "problem"]
    assert tensors.problem.isna().tolist() == [True, True, True, False]
    occ = a.l2_occupancy.iloc[0]
    assert occ.total_bytes == 1000 + 200 + 100 + 64  # sizes, overlap counted twice
    assert occ.used_bytes == 1100 + 100  # bytes inside the buffer, overlap once


def test_fragmentation(minimal_ir: dict[str, Any]) -> None:
    size = 1048576
    # Tensors at [0, 1 KiB) and [512 KiB, 513 KiB): free gaps of 511 KiB and 511 KiB.
    a = analysis_of(chain_ir(minimal_ir, [[buffer_entry(1, 0, KB), buffer_entry(2, 512 * KB, KB)]]))
    occ = a.l2_occupancy.iloc[0]
    assert occ.free_bytes == size - 2 * KB
    assert occ.largest_free_block == 511 * KB
    assert occ.fragmentation == 1 - (511 * KB) / (size - 2 * KB)


def test_wl0_occupancy_and_lifetimes(minimal_ir: dict[str, Any]) -> None:
    w = minimal_ir["0"][0]["wl0_buffer"][0]  # 1152 bytes at 0
    doc = chain_ir(minimal_ir, [[], [], []])
    doc["0"][2]["wl0_buffer"] = [w, {**w, "address": 2048, "size": 100, "transfer_id": [9]}]
    a = analysis_of(doc, wl0_size=4096)
    occ = a.wl0_occupancy
    assert occ.total_bytes.tolist() == [1152, 1152, 1252]
    assert occ.extent.tolist() == [1152, 1152, 2148]
    assert occ.free_bytes.tolist() == [4096 - 1152, 4096 - 1152, 4096 - 1252]
    assert occ.largest_free_block.tolist() == [4096 - 1152, 4096 - 1152, 4096 - 2148]
    assert a.wl0_tensors[["first_position", "last_position", "size"]].values.tolist() == [
        [0, 2, 1152],
        [2, 2, 100],
    ]


def test_wl0_free_space_is_unknown_without_a_size(mesh: Analysis) -> None:
    assert mesh.wl0_occupancy.free_bytes.isna().all()
    assert mesh.wl0_occupancy.total_bytes.tolist() == [448, 448, 2304, 0, 2304]
