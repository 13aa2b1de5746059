"""DRAM traffic attribution and the per-layer rollup, by hand on the 2x2 sample."""

from __future__ import annotations

import json

from irtools.analysis import Analysis
from tests.analysis.builders import MESH, analysis_of


def test_dram_reads_and_writes_by_hand(mesh: Analysis) -> None:
    t = mesh.dram_transfers
    reads = t[t.direction == "read"].set_index("transfer_id")
    # Ifmap halves (4352 B each) and Conv_0 weights (1024 B) to cores 0/1; Conv_1 weights (4608 B) to 2/3.
    assert reads.bytes.to_dict() == {0: 4352, 1: 4352, 2: 1024, 3: 1024, 4: 4608, 5: 4608}
    assert reads.core_id.to_dict() == {0: 0, 1: 1, 2: 0, 3: 1, 4: 2, 5: 3}
    writes = t[t.direction == "write"].set_index("transfer_id")
    # Transfer 14 is Relu_2's ofmap (core 2, second workload); 13 is Conv_1's on core 3: 16 KiB each.
    assert writes.bytes.to_dict() == {14: 16384, 13: 16384}
    assert writes.position.to_dict() == {14: 1, 13: 0}


def test_per_workload_traffic_sums_the_transfers(mesh: Analysis) -> None:
    traffic = mesh.dram_traffic.set_index(["core_id", "position"])
    assert traffic.loc[(0, 0)][["read_weight_bytes", "read_fmap_bytes", "write_bytes"]].tolist() == [
        1024,
        4352,
        0,
    ]
    assert traffic.loc[(3, 0)].total_bytes == 4608 + 16384
    assert traffic.total_bytes.sum() == mesh.dram_transfers.bytes.sum()


def test_a_dram_read_for_two_cores_is_charged_once_per_core() -> None:
    doc = json.loads(MESH.read_text())
    out = doc["-1"]["out"][4]  # Conv_1's weight for core 2
    out["destination"].append({"core_id": 3, "layer_name": "Conv_1", "type": "core", "workload_id": 0})
    out["destination"].append({"core_id": 2, "layer_name": "Relu_2", "type": "core", "workload_id": 1})
    a = analysis_of(doc)
    rows = a.dram_transfers[a.dram_transfers.transfer_id == 4]
    assert sorted(zip(rows.core_id, rows.position)) == [(2, 0), (3, 0)]


def test_a_write_whose_producer_is_missing_has_no_size() -> None:
    doc = json.loads(MESH.read_text())
    doc["-1"]["in"][0]["workload_id"] = 7  # core 2 has no workload 7
    a = analysis_of(doc)
    row = a.dram_transfers[a.dram_transfers.transfer_id == 14].iloc[0]
    assert row.bytes is None or str(row.bytes) == "<NA>"
    assert str(row.core_id) == "<NA>"


def test_layers_by_hand(mesh: Analysis) -> None:
    layers = mesh.layers.set_index("layer_name")
    assert layers.index.tolist() == ["Conv_0", "Conv_1", "Relu_2"]  # by dependency start
    conv1 = layers.loc["Conv_1"]
    assert (conv1.workloads, conv1.cores, conv1.core_ids) == (2, 2, "2;3")
    assert (conv1.total_time, conv1.start, conv1.end) == (104000, 42000, 94000)
    assert (conv1.read_weight_bytes, conv1.write_bytes) == (2 * 4608, 16384)
    assert conv1.peak_l2_bytes == 16384 + 4608 + 16384
    assert conv1.peak_l2_fraction == conv1.peak_l2_bytes / (1024 * 1024)
    assert layers.loc["Relu_2"].layer_type == "vp"


def test_core_transfers_are_the_cross_core_reads(mesh: Analysis) -> None:
    edges = mesh.core_transfers
    # Conv_1 on cores 2 and 3 reads 10 (Conv_0, core 0) and 11 (core 1); Relu_2 reads 12 on its own core.
    assert sorted(map(tuple, edges.values.tolist())) == [
        (10, 0, 0, 2, 0),
        (10, 0, 0, 3, 0),
        (11, 1, 0, 2, 0),
        (11, 1, 0, 3, 0),
    ]
    conv1 = mesh.timeline[(mesh.timeline.core_id == 2) & (mesh.timeline.position == 0)].iloc[0]
    assert (conv1.ifmap_transfers, conv1.ofmap_transfers) == ("4;10;11", "12")
