"""Loading at the boundaries a mutation run found unguarded: each test names what it pins.

The wait-graph screen of the raw dialect (a cycle through DRAM whose writer is the file's first
workload), a file that is JSON but no Scheduler IR, the labels of cores on and off the mesh, the
linear L2 placement of the raw and alloc dialects, and the discovery of files in a directory.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from irtools.errors import UsageError
from irtools.findings import Severity
from irtools.loading.discover import discover
from irtools.loading.index import IRIndex
from irtools.loading.l2 import Placement, linear
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MESH, core_label
from irtools.loading.waits import waits_acyclic
from tests.mutants.edits import check, mesh_doc, raw_doc, rows


def test_a_dram_wait_cycle_through_the_first_workload_is_a_deadlock(tmp_path: Path) -> None:
    """Core 1's first workload (row 0 of the wait graph) writes 900 to DRAM, read back as 901 by core 2's
    first workload, whose ofmap 5 core 1's first workload reads: a deadlock on both cores, so the
    columnar screen must keep the DRAM edge of row 0."""
    doc = raw_doc()
    dram = doc["-1"]
    dram["in"].append(dram["in"][0] | {"core_id": 1, "workload_id": 0, "transfer_id": 900})
    dram["out"].append(copy.deepcopy(dram["out"][2]) | {"transfer_id": 901, "related_ifmap": [900]})
    doc["2"][0]["ifmap"]["transfer_id"] = [3, 901]
    doc["1"][0]["ifmap"]["transfer_id"] = [0, 5]
    assert rows(check(tmp_path, doc), "GIR502") == [
        ("GIR502", "/1/0", "deadlock: core 1/wl 0 -> core 2/wl 1 -> core 1/wl 0")
    ]


def test_the_wait_screen_clears_a_clean_raw_file_from_the_columns() -> None:
    """A raw file without a cycle is cleared by the columns alone, its DRAM waits included (the reference
    graph, which names cycles, is built only when the screen cannot clear the file)."""
    loaded = load_ir(json.dumps(raw_doc()).encode())
    assert waits_acyclic(IRIndex(loaded)) is True


LEFT_OUT = ("GIR101", "/0/0", "1 entries with schema errors were left out of the semantic checks")


@pytest.mark.parametrize(
    ("value", "shown"),
    [("fast", "string 'fast'"), (None, "null"), (1.5, "number 1.5"), (True, "boolean true")],
)
def test_a_left_out_workloads_ofmaps_still_count_as_produced(
    tmp_path: Path, value: object, shown: str
) -> None:
    """Conv_0 on core 0 has a bad `time`: it is left out of the semantic checks, but its ofmap 10 is
    still known, so Conv_1's reads of 10 are not dangling (no GIR201). The error shows the value as JSON."""
    doc = mesh_doc()
    doc["0"][0]["time"] = value
    found = check(tmp_path, doc)
    assert rows(found, "GIR101", info=True) == [
        LEFT_OUT,
        ("GIR101", "/0/0/time", f"expected an integer, got {shown}"),
    ]
    assert rows(found, "GIR201") == []


def test_a_left_out_workload_without_ofmaps_produces_nothing(tmp_path: Path) -> None:
    """Without its `ofmap` key the workload is left out and produces nothing: the reads are dangling."""
    doc = mesh_doc()
    del doc["0"][0]["ofmap"]
    found = check(tmp_path, doc)
    assert rows(found, "GIR101", info=True) == [LEFT_OUT, ("GIR101", "/0/0", "missing required key 'ofmap'")]
    assert rows(found, "GIR201") == [
        (
            "GIR201",
            "/2/0/ifmap/0",
            "transfer 10 is consumed but no DRAM out entry or ofmap produces it (5 more uses)",
        )
    ]


NOT_AN_IR = 'not a Scheduler IR: no DRAM section "-1" and no core key ("0", "1", ...); '


@pytest.mark.parametrize(
    ("top", "tail"),
    [
        ({}, "the object is empty"),
        ({"traceEvents": [], "x": 1}, 'top-level keys: "traceEvents", "x"'),
        ({f"k{i}": i for i in range(5)}, 'top-level keys: "k0", "k1", "k2", "k3", "k4"'),
        ({f"k{i}": i for i in range(6)}, 'top-level keys: "k0", "k1", "k2", "k3", "k4", ...'),
    ],
    ids=["empty", "two-keys", "five-keys", "six-keys"],
)
def test_json_that_is_no_scheduler_ir_is_one_gir101(top: dict[str, object], tail: str) -> None:
    """One error naming at most five of the object's keys (`...` only when there are more)."""
    loaded = load_ir(json.dumps(top).encode())
    assert loaded.ir is None
    assert [(f.code, f.severity, f.pointer, f.message) for f in loaded.findings] == [
        ("GIR101", Severity.ERROR, "", NOT_AN_IR + tail)
    ]


@pytest.mark.parametrize(
    ("core_id", "scheme", "xlen", "label"),
    [
        (5, MESH, 2, "5 (0,1)"),
        (3, MESH, 2, "3"),  # row 0's east DRAM port: no core, no position
        (0, MESH, 2, "0"),  # the west port of row 0
        (3, LINEAR, 2, "3 (1,1)"),
        (3, LINEAR, None, "3"),  # no xlen: no position
    ],
)
def test_core_labels_show_a_position_only_for_a_core_on_the_mesh(
    core_id: int, scheme: str, xlen: int | None, label: str
) -> None:
    assert core_label(core_id, scheme, xlen) == label


@pytest.mark.parametrize(
    ("address", "size", "end", "placement"),
    [
        (0x100, 0x20, 0x400, Placement(((0x100, 0x120),), (0, 0x400))),
        (0x3E0, 0x20, 0x400, Placement(((0x3E0, 0x400),), (0, 0x400))),  # ends on the last byte
        (
            0x3E0,
            0x21,
            0x400,
            Placement(((0x3E0, 0x401),), (0, 0x400), "ends at 0x401, past the L2 size 0x400"),
        ),
        (0x3E0, 0x21, None, Placement(((0x3E0, 0x401),), None)),  # no L2 size: no region, no problem
    ],
)
def test_linear_placement_is_never_wrapped_and_knows_its_region(
    address: int, size: int, end: int | None, placement: Placement
) -> None:
    """Raw and alloc L2: the tensor where it is, in the region [0, L2 size) when that is known."""
    assert linear(address, size, end) == placement


def test_a_directory_without_ir_files_is_a_usage_error(tmp_path: Path) -> None:
    """In CI an empty directory is most often a mistyped path: an error unless allowed."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.expected.json").write_text("{}")  # a sidecar is no IR file
    with pytest.raises(UsageError, match="no \\*.json file in this directory"):
        discover([str(tmp_path / "runs")])
    assert discover([str(tmp_path / "runs")], allow_empty=True) == []
    (tmp_path / "runs" / "sub").mkdir()
    (tmp_path / "runs" / "sub" / "b.json").write_text("{}")
    assert discover([str(tmp_path / "runs")]) == [str(tmp_path / "runs" / "sub" / "b.json")]


def test_an_index_of_a_file_that_did_not_load_is_refused_by_name() -> None:
    loaded = load_ir(b"[1, 2]", "odd.json")  # no IR: a GIR101 and nothing to index
    with pytest.raises(ValueError, match=r"^cannot index a file that did not load$"):
        IRIndex(loaded)
