"""Every finding on the four real raw-dialect files, checked by hand against the JSON and pinned.

Conventions of the scheduler that are not findings (../shared/fixtures/README.md): a DRAM weight
names only the first batch group's workloads; Transpose workloads have no layer_type; a workload
whose output nobody reads may have no ofmap; an ifmap read only from the network input has
max_workload_id 0; sources give their range in the producer's frame, placed in the consumer's
channels by `channel`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from irtools.cli.main import main
from irtools.loading.load import load_ir
from irtools.rules.context import CheckOptions
from irtools.validate import check_loaded, validate_file

RAW_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw"
pytestmark = pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
FILES = [
    "bert_2x2_b1_ir.json",
    "goog_2x2_b1_ir.json",
    "resnet_2x2_b1_ir.json",
    "resnet_4x4_b4_ff1_ss2_rr50_ir.json",
]

MESH_2X2 = "cores are numbered by mesh position y*(xlen+2)+x+1 (Gemini's mesh ids: 1, 2, 5, 6)"

PINNED: dict[str, list[tuple[str, str, str]]] = {
    # BERT core 2 and core 6 (mesh (1,0) and (1,1)), workload 143 (block1_QK): the weight is taken from
    # an ofmap (from_ofmap) for K range [0,4096,0]..[0,8191,63], but the scheduler wrote "source": null
    # and no transfer_id, in the snapshot of workload 143 and ahead in that of workload 139: nothing
    # delivers that half of K^T. (Cores 1 and 5 got all 16 Kt sources for [0,0,0]..[0,4095,63].)
    "bert_2x2_b1_ir.json": [
        ("GIR305", "warning", "/2/34/buffer/4"),
        ("GIR305", "warning", "/2/35/buffer/2"),
        ("GIR305", "warning", "/6/34/buffer/4"),
        ("GIR305", "warning", "/6/35/buffer/2"),
    ],
    "goog_2x2_b1_ir.json": [],
    "resnet_2x2_b1_ir.json": [],
    "resnet_4x4_b4_ff1_ss2_rr50_ir.json": [],
}


@pytest.mark.parametrize("name", FILES)
def test_pinned_findings(name: str) -> None:
    report = validate_file(str(RAW_DIR / name))
    notes = [(f.code, f.pointer) for f in report.findings if f.severity.value == "info"]
    # Said once per file: the dialect, the rules it skips, and the mesh numbering.
    assert notes == [("GIR103", ""), ("GIR103", ""), ("GIR503", "")]
    if name.startswith(("bert", "goog", "resnet_2x2")):
        assert [f.message for f in report.findings if f.code == "GIR503"] == [MESH_2X2]
    problems = [(f.code, f.severity.value, f.pointer) for f in report.findings if f.severity.value != "info"]
    assert problems == PINNED[name]
    assert report.errors == 0


def test_bert_missing_weight_source_message() -> None:
    report = validate_file(str(RAW_DIR / "bert_2x2_b1_ir.json"))
    first = next(f for f in report.findings if f.code == "GIR305")
    assert (first.core_id, first.workload_id) == (2, 139)  # held ahead in workload 139's snapshot
    assert first.message == (
        "weight entry of layer 'block1_QK' has no source and no transfer id: nothing brings [0, 4096, 0]..[0, 8191, 63]"
    )


def test_missing_source_with_transfer_ids_says_so(resnet4x4: dict[str, Any]) -> None:
    """An input entry that keeps its transfer ids but lost its sources: the message names the ids it has."""
    doc = copy.deepcopy(resnet4x4)
    key, i, wl = _core_consumer(doc)
    j, entry = next((j, b) for j, b in enumerate(wl["buffer"]) if b.get("source") and b.get("transfer_id"))
    entry["source"] = None
    findings = check_loaded(load_ir(json.dumps(doc).encode(), "x.json"))
    messages = [f.message for f in findings if f.code == "GIR305" and f.pointer == f"/{key}/{i}/buffer/{j}"]
    ids = ", ".join(str(t) for t in sorted(set(entry["transfer_id"])))
    assert len(messages) == 1
    assert f"has transfer_id [{ids}] but no source: nothing brings" in messages[0]


def test_validate_the_folder_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(RAW_DIR)]) == 0
    out = capsys.readouterr().out
    assert out.count("before address allocation") == 4
    assert out.rstrip().endswith("4 files checked: 0 errors, 4 warnings, 12 info")


# --- defects put into the real 4x4 file are found ------------------------------------------------------


@pytest.fixture(scope="module")
def resnet4x4() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((RAW_DIR / FILES[3]).read_bytes())
    return doc


def _problems(doc: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    findings = check_loaded(load_ir(json.dumps(doc).encode(), "x.json"))
    return [(f.code, f.pointer, f.workload_id) for f in findings if f.severity.value != "info"]


def _core_consumer(doc: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """A workload whose ifmap comes from another core's ofmap (one of the 156 core-to-core transfers)."""
    for key, workloads in doc.items():
        if key.isdigit():
            for i, wl in enumerate(workloads):
                if any(s["type"] == "core" for b in wl["buffer"] for s in b.get("source") or ()):
                    return key, i, wl
    raise AssertionError("no core-to-core transfer")


def test_wrong_max_workload_id_is_gir204(resnet4x4: dict[str, Any]) -> None:
    doc = copy.deepcopy(resnet4x4)
    key, i, wl = _core_consumer(doc)
    wl["ifmap"]["max_workload_id"] += 1
    assert _problems(doc) == [("GIR204", f"/{key}/{i}/ifmap/max_workload_id", wl["workload_id"])]


def test_wrong_destination_id_is_gir203(resnet4x4: dict[str, Any]) -> None:
    doc = copy.deepcopy(resnet4x4)
    for key, workloads in doc.items():
        if key.isdigit():
            for i, wl in enumerate(workloads):
                for j, o in enumerate(wl["ofmap"]):
                    dests = [d for d in o["destination"] if d["type"] == "core"]
                    if dests:
                        dests[0]["id"] = 99
                        found = {c for c, _, _ in _problems(doc)}
                        assert "GIR203" in found
                        return
    raise AssertionError("no core destination")


def test_dangling_transfer_is_gir201(resnet4x4: dict[str, Any]) -> None:
    doc = copy.deepcopy(resnet4x4)
    doc["7"][5]["ifmap"]["transfer_id"] = [999999]
    problems = _problems(doc)
    assert ("GIR201", "/7/5/ifmap", doc["7"][5]["workload_id"]) in problems


def test_l2_size_on_raw_blocks_is_a_warning_naming_what_the_ir_lists() -> None:
    """At the runs' 512 KB every core of the 2x2 ResNet-50 lists 716 blocks at its peak (the SET
    allocator's lower bound), but that snapshot holds a 512-block weight whole: Gemini tiles it (fetch),
    the IR does not say so. A warning about the file as written, not an error about the schedule."""
    path = RAW_DIR / "resnet_2x2_b1_ir.json"
    report = validate_file(str(path), CheckOptions(l2_size=512 * 1024))
    found = [f for f in report.findings if f.code == "GIR301"]
    assert [(f.core_id, f.severity.value, f.pointer) for f in found] == [
        (1, "warning", "/1/60/buffer"),
        (2, "warning", "/2/60/buffer"),
        (5, "warning", "/5/60/buffer"),
        (6, "warning", "/6/60/buffer"),
    ]
    assert found[1].message.startswith(
        "snapshot lists 716 blocks (733,184 B), more than the L2 size of 512 blocks"
    )
    assert "8 of the core's 72 snapshots exceed it" in found[1].message
    assert "the scheduler tiles tensors larger than the L2" in found[1].message
    doc = json.loads(path.read_bytes())
    peak = doc["2"][60]["buffer"]
    assert sum(b["block"] for b in peak) == 716
    assert max(b["block"] for b in peak if b["type"] != "ofmap") >= 512 - 10  # one input alone fills the L2
