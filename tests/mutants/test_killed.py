"""The 13 mutations of issue 33 that once survived their area's tests, each killed by a boundary test.

Each test names the mutation it kills (the break a future change could bring in) and sits at the boundary
that mutation moves: an empty region, a running maximum against a predecessor, the batch extent, a
tensor that moved and was re-added, a byte count one over a multiple of the bandwidth, the last column
of a mesh row. The 13th, core numbering resolving a tie to mesh ids, is pinned in
tests/unit/test_core_numbering.py (issue 34). Survivors of later draws follow, each naming its draw.
"""

from __future__ import annotations

import json
from pathlib import Path

from irtools.analysis import AnalysisOptions, analyze
from irtools.analysis.noc import NocModel
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MESH, mesh_ids, numbering, position
from irtools.rules.context import CheckOptions
from irtools.rules.l2.buffer_overlap import overlap_rows
from tests.mutants.edits import MESH as MESH_SAMPLE
from tests.mutants.edits import alloc_doc, check, edited, mesh_doc, rows


def test_gir303_empty_region_start_equals_end(tmp_path: Path) -> None:
    """Kills GIR303 `end <= start` -> `end < start`: [a, a) is empty and reported, at that pair."""
    doc = mesh_doc()
    doc["0"][0]["ring_buffer_info"] = [[0, 0x80000], [0x80000, 0x80000], [0x80000, 0x100000]]
    assert rows(check(tmp_path, doc), "GIR303") == [
        ("GIR303", "/0/0/ring_buffer_info/1", "region [0x80000, 0x80000) is empty")
    ]


def test_gir501_compares_with_the_running_maximum(tmp_path: Path) -> None:
    """Kills GIR501 comparing with the previous id: in 0, 5, 3, 4 both 3 and 4 come after 5."""
    doc = mesh_doc()
    first, second = doc["2"]
    doc["2"] = [
        first,
        edited(second, (("workload_id",), 5)),
        edited(second, (("workload_id",), 3)),
        edited(second, (("workload_id",), 4)),
    ]
    assert rows(check(tmp_path, doc), "GIR501") == [
        ("GIR501", "/2/2/workload_id", "workload_id 3 follows workload_id 5 (ids must ascend)"),
        ("GIR501", "/2/3/workload_id", "workload_id 4 follows workload_id 5 (ids must ascend)"),
    ]


def test_gir205_compares_the_batch_extent(tmp_path: Path) -> None:
    """Kills GIR205 dropping the N extent: 2 batches in DRAM for an ofmap of 1 is a mismatch."""
    doc = edited(mesh_doc(), (("-1", "in", 0, "upper", 0), 1))
    assert rows(check(tmp_path, doc), "GIR205") == [
        (
            "GIR205",
            "/-1/in/0",
            (
                "DRAM in entry for transfer 14 does not match its ofmap: "
                "ofmap range [0, 0, 0, 0]..[0, 15, 31, 31] differs from [0, 0, 0, 0]..[1, 15, 31, 31]"
            ),
        )
    ]


def test_gir205_batch_index_is_compared_by_extent_only(tmp_path: Path) -> None:
    """The near miss of the test above: batch 1..1 in DRAM is the ofmap's 0..0 of its batch group."""
    doc = edited(mesh_doc(), (("-1", "in", 0, "lower", 0), 1), (("-1", "in", 0, "upper", 0), 1))
    assert rows(check(tmp_path, doc), "GIR205") == []


def _nested_overlap_doc() -> dict[str, object]:
    # Core 0's snapshot: tensor 0 spans [0x70000, 0x80000); tensor 1 sits inside it early on,
    # tensor 2 later, past tensor 1's end. Tensor 2 overlaps tensor 0, not its predecessor tensor 1.
    doc = mesh_doc()
    buffer = doc["0"][0]["buffer"]
    buffer[0]["address"], buffer[0]["size"] = 0x70000, 0x10000
    buffer[1]["address"], buffer[1]["size"] = 0x71000, 0x400
    buffer[2]["address"], buffer[2]["size"] = 0x78000, 0x400
    return doc


def test_gir302_pairs_are_found_against_the_running_maximum_end(tmp_path: Path) -> None:
    """Kills GIR302's sweep comparing each piece with its predecessor's end: tensor 2 lies past
    tensor 1 but inside tensor 0, and that pair is reported too."""
    tensor0 = "ifmap tensor 0 [transfer 0] [0x70000, 0x80000) overlaps "
    assert rows(check(tmp_path, _nested_overlap_doc()), "GIR302") == [
        ("GIR302", "/0/0/buffer/0", tensor0 + "ifmap tensor 2 [transfer 10] [0x78000, 0x78400)"),
        ("GIR302", "/0/0/buffer/0", tensor0 + "weight tensor 1 [transfer 2] (Conv_0) [0x71000, 0x71400)"),
    ]


def test_gir302_screen_flags_the_snapshot_with_the_nested_overlap(tmp_path: Path) -> None:
    """GIR302's screen flags exactly the workload whose snapshot overlaps (row 0 of the file).

    The screen's own sweep compared with the predecessor's end instead of the running maximum is an
    equivalent mutant for the rows it flags (a piece overlapping an earlier one also overlaps the
    piece right after that one; see docs/mutation-testing.md), so this pins the rows, not the sweep.
    """
    # One ring region per workload: with several, the screen hands every such workload to the reference.
    one_region = [[0, 0x100000]]
    nested, clean = _nested_overlap_doc(), mesh_doc()
    for doc in (nested, clean):
        for key in ("0", "1", "2", "3"):
            for wl in doc[key]:
                wl["ring_buffer_info"] = one_region
    for doc, flagged in ((nested, [0]), (clean, [])):
        path = tmp_path / f"ir-{len(flagged)}.json"
        path.write_text(json.dumps(doc))
        assert overlap_rows(IRIndex(load_ir(str(path)))) == flagged


def test_gir304_alloc_checks_start_loading(tmp_path: Path) -> None:
    """Kills the alloc variant skipping its `start_loading` form: a tensor kept from the snapshot
    before (same entry, same address) flagged as newly loading is reported at its start_loading."""
    doc = alloc_doc()
    weight = doc["1"][1]["buffer"][0]
    assert weight["type"] == "weight" and weight["start_loading"] is False
    weight["start_loading"] = True
    found = rows(check(tmp_path, doc, CheckOptions(l2_size=256 * 1024)), "GIR304")
    assert found == [
        (
            "GIR304",
            "/1/1/buffer/0/start_loading",
            "weight tensor 1 [transfer 1] (Conv_0) is marked newly added but was already present at 0x1800",
        )
    ]


def test_gir304_a_moved_tensor_may_be_re_added(tmp_path: Path) -> None:
    """Kills GIR304's reference flagging `newly_added: true` on a tensor that moved: tensor 2 of core 2
    moves and is re-added (fine); tensor 3 next to it claims to be kept but is new (the one finding,
    which also makes the screen hand the file to the reference)."""
    doc = mesh_doc()
    moved, new = doc["2"][1]["buffer"]
    moved["address"], moved["newly_added"] = 0x84000, True
    new["newly_added"] = False
    assert rows(check(tmp_path, doc), "GIR304") == [
        (
            "GIR304",
            "/2/1/buffer/1/newly_added",
            "ofmap tensor 3 [transfer -] (Relu_2) is marked not newly added but was absent before",
        )
    ]


def test_noc_time_rounds_link_bytes_up_to_whole_cycles() -> None:
    """Kills the `noc` model flooring link bytes over the bandwidth: 17 bytes at 16 B/cycle take 2 cycles."""
    assert NocModel(16, frequency=1.0).cycles(17) == 2
    assert NocModel(16, frequency=1.0).cycles(16) == 1
    assert NocModel(16).cycles(17) == 1  # ceil(17 / 16) / 1.3, truncated as Gemini does
    assert NocModel(16).cycles(33) == 2  # 3 / 1.3 (a floor would give 2 / 1.3 = 1)


def test_noc_table_time_is_the_ceiling_on_the_sample() -> None:
    """The same boundary in a table: the sample's heaviest link loads are no multiple of 7 bytes."""
    steps = analyze(MESH_SAMPLE, AnalysisOptions(noc_bw=7, noc_frequency=1.0)).noc_steps
    # 2688 / 7 = 384 exactly; 18688 / 7 = 2669.7 and 8192 / 7 = 1170.3 round up.
    assert list(zip(steps["link_bytes"], steps["noc_time"], strict=True)) == [
        (2688, 384),
        (18688, 2670),
        (8192, 1171),
    ]


def test_mesh_ids_leave_out_both_dram_port_columns() -> None:
    """Kills mesh ids taking the east DRAM-port column (x = xlen) for a core: on a 2x2 mesh, ids 3
    (row 0's east port) and 4 (row 1's west port) are no cores."""
    assert mesh_ids(2, 2) == [1, 2, 5, 6]
    assert [position(i, MESH, 2) for i in range(8)] == [
        None,
        (0, 0),
        (1, 0),
        None,
        None,
        (0, 1),
        (1, 1),
        None,
    ]
    assert (
        position(13, MESH, 3) == (2, 2) and position(14, MESH, 3) is None
    )  # last core of a 3x3 mesh, its east port


def test_a_core_on_the_east_port_column_is_outside_the_mesh(tmp_path: Path) -> None:
    """The same boundary in a finding: a 2x2 file numbered by mesh ids with a core at id 3."""
    # Cores 0..3 of the sample become 1, 3, 5, 6: three fit the mesh ids, two the linear numbering.
    doc = mesh_doc()
    cores = [doc.pop(k) for k in ("0", "1", "2", "3")]
    renumbered = doc | dict(zip(("1", "3", "5", "6"), cores, strict=True))
    found = check(tmp_path, renumbered)
    assert numbering([1, 3, 5, 6], 2, 2) == MESH
    assert rows(found, "GIR503") == [
        ("GIR503", "/3", "core 3 is outside the 2x2 mesh (mesh ids 1, 2, 5, 6)"),
    ]
    assert numbering([0, 1, 2, 3], 2, 2) == LINEAR


def test_l2_size_option_does_not_override_the_files_buffersize() -> None:
    """Kills the index letting `--l2-size` override the file's own `buffersize`."""
    index = IRIndex(load_ir(str(MESH_SAMPLE)), AnalysisOptions(l2_size=4096))
    assert index.l2_size == 0x100000
    a = analyze(MESH_SAMPLE, AnalysisOptions(l2_size=4096))
    assert a.l2_capacity_kib == 1024
    assert set(a.l2_blocks["l2_kib"]) == {1024}


def test_gir506_names_the_far_core(tmp_path: Path) -> None:
    """Kills GIR506 without its core_id (session 50's draw): a core far off the mesh is the finding's
    core, at its key."""
    doc = mesh_doc()
    doc["2000"] = doc.pop("3")
    found = [(f.pointer, f.core_id) for f in check(tmp_path, doc) if f.code == "GIR506"]
    assert found == [("/2000", 2000)]
