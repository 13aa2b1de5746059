"""Which core numbering a file uses when its core keys fit linear and mesh ids equally well: linear.

Before this test only one generated fuzz example caught a tie resolved to mesh ids (issue 33's
mutation `fit_mesh >= fit_linear`), so whether the suite caught it depended on the seed.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MESH, is_mesh_id, mesh_ids, numbering
from irtools.rules.context import CheckOptions
from irtools.validate import check_loaded
from tests.budget import memory_bound


@pytest.mark.parametrize(
    ("cores", "xlen", "ylen"),
    [
        ([0, 5], 2, 2),  # 0 is linear only, 5 a mesh id only: one each
        ([1, 2, 4], 2, 2),  # 1 and 2 fit both, 4 fits neither: two each
        ([0, 3, 5, 6], 2, 2),  # 0 and 3 linear only, 5 and 6 mesh ids only
        ([0, 7], 3, 2),  # 3x2 (linear 0..5, mesh ids 1-3 and 6-8): 0 linear only, 7 a mesh id only
    ],
)
def test_a_tie_between_linear_and_mesh_ids_is_linear(cores: list[int], xlen: int, ylen: int) -> None:
    assert numbering(cores, xlen, ylen) == LINEAR


def test_one_more_mesh_id_than_linear_core_is_mesh() -> None:
    # The other side of the boundary: 1, 5 and 6 are mesh ids of a 2x2 mesh, only 1 is below 4.
    assert numbering([1, 5, 6], 2, 2) == MESH


def _two_cores(first: int, second: int, minimal_ir: dict[str, Any]) -> bytes:
    """The minimal IR's core copied to the keys `first` and `second` of a 2x2 mesh."""
    doc = {k: v for k, v in minimal_ir.items() if k != "0"}
    doc[str(first)] = minimal_ir["0"]
    doc[str(second)] = copy.deepcopy(minimal_ir["0"])
    doc["xlen"] = doc["ylen"] = 2
    return json.dumps(doc).encode()


def test_a_file_with_a_tie_is_read_and_checked_with_linear_numbering(minimal_ir: dict[str, Any]) -> None:
    # Cores 0 and 5 on a 2x2 mesh: linear places core 0 at (0,0) and finds core 5 outside the mesh;
    # read as mesh ids, core 0 would be the one outside and 5 would sit at (0,1).
    loaded = load_ir(_two_cores(0, 5, minimal_ir), "tie.json")
    index = IRIndex(loaded)
    assert index.numbering == LINEAR
    assert index.core_position(0) == (0, 0)
    outside = [
        (f.severity.value, f.pointer, f.message)
        for f in check_loaded(loaded, CheckOptions())
        if f.code == "GIR503"
    ]
    assert outside == [("warning", "/5", "core 5 is outside the 2x2 mesh (cores 0..3)")]


@pytest.mark.parametrize(("xlen", "ylen"), [(1, 1), (2, 2), (3, 2), (4, 4), (1, 5)])
def test_mesh_ids_are_recognized_without_listing_them(xlen: int, ylen: int) -> None:
    listed = set(mesh_ids(xlen, ylen))
    for core_id in range(-2, (xlen + 2) * (ylen + 1) + 3):
        assert is_mesh_id(core_id, xlen, ylen) == (core_id in listed), core_id
    assert mesh_ids(xlen, ylen, 5) == mesh_ids(xlen, ylen)[:5]


def test_a_huge_mesh_costs_per_core_not_per_position(minimal_ir: dict[str, Any]) -> None:
    # Found by the fuzz suite under its memory bound: ylen 12,234,068 with a core 999999999 made
    # numbering() and GIR503 list and hash all 24 million mesh ids (GIR001: MemoryError). Core
    # 48000001 is a mesh id only (row 12000000, column 0), 999999999 neither.
    doc = json.loads(_two_cores(48_000_001, 999_999_999, minimal_ir))
    doc["ylen"] = 12_234_068
    loaded = load_ir(json.dumps(doc).encode(), "huge.json")
    with memory_bound(0.25):
        assert IRIndex(loaded).numbering == MESH
        found = [
            (f.pointer, f.message) for f in check_loaded(loaded, CheckOptions()) if f.code.startswith("GIR50")
        ]
    ids = "1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22, 25, 26, 29, 30, ... (24468120 more)"
    assert ("", f"cores are numbered by mesh position y*(xlen+2)+x+1 (Gemini's mesh ids: {ids})") in found
    assert ("/999999999", f"core 999999999 is outside the 2x12234068 mesh (mesh ids {ids})") in found
