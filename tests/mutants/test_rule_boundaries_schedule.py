"""GIR5xx (ordering and topology) at the boundaries the mutation run of issue 33 found untested, one table.

Each row edits the clean 2x2 sample at a boundary a surviving mutant moved: a mesh whose id list is
exactly the 16 a message spells out or more, the last core of the last row and the port just past it.
It asserts the exact findings of one code on both cores (tests/mutants/edits.py `check`), the info
notes included where the row says so (they tell the user which numbering was read).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.mutants.edits import Doc, Row, check, edited, mesh_doc, rows


class Case(NamedTuple):
    """One boundary: the file, the code whose findings are compared, and those findings."""

    id: str
    doc: Callable[[], Doc]
    code: str
    expected: list[Row]
    info: bool = False


def _mesh(xlen: int, ylen: int, *keys: str) -> Callable[[], Doc]:
    """The sample's four cores renamed to `keys`, in an xlen x ylen mesh."""

    def doc() -> Doc:
        d = mesh_doc() | {"xlen": xlen, "ylen": ylen}
        cores = [d.pop(k) for k in ("0", "1", "2", "3")]
        return d | dict(zip(keys, cores, strict=True))

    return doc


_IDS_4X4 = "1, 2, 3, 4, 7, 8, 9, 10, 13, 14, 15, 16, 19, 20, 21, 22"
"""A 4x4 mesh's ids, y*(xlen+2)+x+1: exactly the 16 a message spells out."""
_IDS_5X4 = "1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 22, ... (4 more)"
"""A 5x4 mesh has 20 ids: the first 16, then how many more."""
_MESH_NOTE = "cores are numbered by mesh position y*(xlen+2)+x+1 (Gemini's mesh ids: {})"


def _without(key: str) -> Callable[[], Doc]:
    def doc() -> Doc:
        d = mesh_doc()
        del d[key]
        return d

    return doc


def _tiles(*boxes: tuple[list[int], list[int]]) -> Callable[[], Doc]:
    """The sample with core 0's workload (ofmap [0, 0, 0, 0]..[0, 15, 15, 31]) cut into these tiles."""

    def doc() -> Doc:
        d = mesh_doc()
        base = d["0"][0]["tile_info"]["tile_num_0"]
        d["0"][0]["tile_info"] = {
            f"tile_num_{i}": base | {"ofmap_lower": lo, "ofmap_upper": hi} for i, (lo, hi) in enumerate(boxes)
        }
        return d

    return doc


# Three tiles covering all of core 0's workload but its last element [0, 15, 15, 31], and that element.
_ALL_BUT_LAST = (
    ([0, 0, 0, 0], [0, 15, 15, 30]),
    ([0, 0, 0, 31], [0, 15, 14, 31]),
    ([0, 0, 15, 31], [0, 14, 15, 31]),
)
_LAST = ([0, 15, 15, 31], [0, 15, 15, 31])
_EMPTY = ([0, 5, 5, 5], [0, 5, 5, 4])
"""A tile whose W range is empty (lower = upper + 1): it covers nothing."""
_ONE_SHORT = (
    "GIR505",
    "/0/0/tile_info",
    (
        "tiles cover [0, 0, 0, 0]..[0, 15, 15, 31] with gaps (8191 of 8192 elements) "
        "but the workload is [0, 0, 0, 0]..[0, 15, 15, 31]"
    ),
)

SCHEDULE = [
    # Tiles against their workload: exactly covered, one element short, short with an empty tile.
    Case("GIR505-tiles-cover-to-the-last-element", _tiles(*_ALL_BUT_LAST, _LAST), "GIR505", []),
    Case("GIR505-tiles-one-element-short", _tiles(*_ALL_BUT_LAST), "GIR505", [_ONE_SHORT]),
    Case("GIR505-an-empty-tile-covers-nothing", _tiles(*_ALL_BUT_LAST, _EMPTY), "GIR505", [_ONE_SHORT]),
    # The empty tile is an inverted range of the tile's `ofmap_lower` key, named in the message.
    Case(
        "GIR504-empty-tile-names-its-key",
        _tiles(*_ALL_BUT_LAST, _EMPTY),
        "GIR504",
        [
            (
                "GIR504",
                "/0/0/tile_info/tile_num_3/ofmap_lower",
                "ofmap_lower: lower [0, 5, 5, 5] > upper [0, 5, 5, 4] in dimension 3",
            )
        ],
    ),
    # Half a mesh header (the loader reports the missing key): no mesh to place cores on, no finding.
    Case("GIR503-no-ylen", _without("ylen"), "GIR503", [], info=True),
    Case("GIR503-no-xlen", _without("xlen"), "GIR503", [], info=True),
    # The workload's own range ([lower, upper] as `workload`): located at the key, named by no sub-key.
    Case(
        "GIR504-workload-range-one-past",
        lambda: edited(mesh_doc(), (("0", 0, "workload", 0), [0, 0, 0, 32])),
        "GIR504",
        [("GIR504", "/0/0/workload", "lower [0, 0, 0, 32] > upper [0, 15, 15, 31] in dimension 3")],
    ),
    Case(
        "GIR504-workload-range-three-dimensions",
        lambda: edited(mesh_doc(), (("0", 0, "workload", 0), [0, 16, 16, 32])),
        "GIR504",
        [("GIR504", "/0/0/workload", "lower [0, 16, 16, 32] > upper [0, 15, 15, 31] in dimensions 1, 2, 3")],
    ),
    Case(
        "GIR503-mesh-ids-16-last-core",
        _mesh(4, 4, "1", "7", "19", "22"),
        "GIR503",
        [("GIR503", "", _MESH_NOTE.format(_IDS_4X4))],
        info=True,
    ),
    Case(
        "GIR503-mesh-ids-16-east-port-of-last-row",
        _mesh(4, 4, "1", "7", "19", "23"),
        "GIR503",
        [
            ("GIR503", "", _MESH_NOTE.format(_IDS_4X4)),
            ("GIR503", "/23", f"core 23 is outside the 4x4 mesh (mesh ids {_IDS_4X4})"),
        ],
        info=True,
    ),
    Case(
        "GIR503-mesh-ids-20-listed-16",
        _mesh(5, 4, "1", "8", "22", "27"),
        "GIR503",
        [
            ("GIR503", "", _MESH_NOTE.format(_IDS_5X4)),
            ("GIR503", "/27", f"core 27 is outside the 5x4 mesh (mesh ids {_IDS_5X4})"),
        ],
        info=True,
    ),
]


@pytest.mark.parametrize("case", SCHEDULE, ids=[c.id for c in SCHEDULE])
def test_schedule_rules_at_the_boundaries_mutants_moved(case: Case, tmp_path: Path) -> None:
    assert rows(check(tmp_path, case.doc()), case.code, info=case.info) == case.expected


def test_gir502_a_cycle_is_located_at_its_first_workload_and_names_the_others(tmp_path: Path) -> None:
    """Core 0's workload 0 feeds core 2's workload 1, which feeds it back: the finding is at /0/0 with
    workload 0 (not the next step's workload 1), the rest of the cycle related."""
    doc = edited(
        mesh_doc(),
        (("0", 0, "ofmap", 0, "destination", 0, "workload_id"), 1),
        (("2", 1, "ofmap", 0, "destination"), [{"core_id": 0, "type": "core", "workload_id": 0}]),
    )
    found = [f for f in check(tmp_path, doc) if f.code == "GIR502"]
    assert [(f.pointer, f.message, f.core_id, f.workload_id, f.related) for f in found] == [
        ("/0/0", "deadlock: core 0/wl 0 -> core 2/wl 1 -> core 0/wl 0", 0, 0, ("/2/1",))
    ]


def test_gir505_finding_carries_its_core_workload_and_transfer(tmp_path: Path) -> None:
    """A report's reader groups findings by core and workload (JSON report, SARIF): GIR505 says which."""
    doc = edited(mesh_doc(), (("0", 0, "ofmap", 0, "upper"), [0, 15, 15, 32]))
    found = [f for f in check(tmp_path, doc) if f.code == "GIR505"]
    assert [(f.pointer, f.core_id, f.workload_id, f.transfer_id) for f in found] == [
        ("/0/0/ofmap/0", 0, 0, 10)
    ]
