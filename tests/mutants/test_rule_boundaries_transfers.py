"""GIR2xx (the transfer graph) at the boundaries the mutation run of issue 33 found untested, one table.

GIR204's raw screen (`max_workload_rows`) hands the reference check only the workloads whose
`max_workload_id` may be wrong. A screen that gives up (None: check every workload) or flags every row
gives the same findings, only slower, so its rows are pinned on the raw boundary files of
tests/mutants/test_boundaries.py: exactly the rows of the findings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.rules.transfers.causality import max_workload_rows
from irtools.rules.transfers.destination_mismatch import suspect_dram, suspect_rows
from irtools.rules.transfers.dram_in_mismatch import dram_in_unmatched
from tests.mutants.edits import Doc, Row, check, edited, mesh_doc, raw_doc, rows


class Case(NamedTuple):
    """One boundary: the file, the code whose findings are compared, and those findings."""

    id: str
    doc: Callable[[], Doc]
    code: str
    expected: list[Row]


def _mesh(*edits: tuple[tuple[str | int, ...], object]) -> Callable[[], Doc]:
    return lambda: edited(mesh_doc(), *edits)


TRANSFERS = [
    # A late id after an early one in the same ifmap list is still found.
    Case(
        "GIR204-late-id-after-another-cores",
        _mesh((("2", 0, "ifmap", 0, "transfer_id"), [10, 14])),
        "GIR204",
        [
            (
                "GIR204",
                "/2/0/ifmap/0",
                "reads transfer 14 produced by workload 1, which runs later on this core",
            )
        ],
    ),
    # The file's first workload (row 0) reading its own output.
    Case(
        "GIR204-first-workload-reads-itself",
        _mesh((("0", 0, "ifmap", 0, "transfer_id"), [10])),
        "GIR204",
        [("GIR204", "/0/0/ifmap/0", "reads transfer 10 produced by workload 0, which is this workload")],
    ),
]


@pytest.mark.parametrize("case", TRANSFERS, ids=[c.id for c in TRANSFERS])
def test_transfer_rules_at_the_boundaries_mutants_moved(case: Case, tmp_path: Path) -> None:
    assert rows(check(tmp_path, case.doc()), case.code) == case.expected


def test_gir203_dram_screen_skips_a_file_whose_dram_destinations_all_exist(tmp_path: Path) -> None:
    """The DRAM part of GIR203 reads the whole file; on a clean file its screen says so: nothing to check."""
    path = tmp_path / "clean.json"
    path.write_text(json.dumps(mesh_doc()))
    assert suspect_dram(IRIndex(load_ir(str(path)))) == []


@pytest.mark.parametrize(
    ("doc", "flagged"),
    [
        (mesh_doc, []),
        # Core 0's ofmap (row 0) names core 2's workload 1, which does not read it; core 2's workload 0
        # (row 2: rows are core 0's, core 1's, then core 2's two) reads it and is not listed.
        (_mesh((("0", 0, "ofmap", 0, "destination", 0, "workload_id"), 1)), [0, 2]),
    ],
    ids=["clean", "destination-names-the-other-workload"],
)
def test_gir203_row_screen_flags_the_producer_and_the_unlisted_reader(
    doc: Callable[[], Doc], flagged: list[int], tmp_path: Path
) -> None:
    path = tmp_path / "screened.json"
    path.write_text(json.dumps(doc()))
    assert suspect_rows(IRIndex(load_ir(str(path)))) == flagged


class Screened(NamedTuple):
    """One raw file, the rows GIR204's raw screen flags and the GIR204 pointers found there."""

    id: str
    doc: Callable[[], Doc]
    flagged: list[int]
    pointers: list[str]


def _edit(*edits: tuple[tuple[str | int, ...], object]) -> Callable[[], Doc]:
    return lambda: edited(raw_doc(), *edits)


def _first_layer(*edits: tuple[tuple[str | int, ...], object]) -> Callable[[], Doc]:
    """The raw file cut to each core's first workload, with no ofmaps and no DRAM `in` entries: nothing
    in it produces a transfer (a slice of a network's first layer), so every input waits for workload 0."""

    def doc() -> Doc:
        d = raw_doc()
        for core in ("1", "2"):
            d[core] = [{k: v for k, v in d[core][0].items() if k != "ofmap"}]
        d["-1"]["in"] = []
        return edited(d, *edits)

    return doc


# Rows are in file order: core 1's twelve workloads are rows 0..11.
RAW_SCREEN = [
    Screened("latest-producer", raw_doc, [], []),
    Screened(
        "ifmap-waits-for-a-later-producer",
        _edit((("1", 4, "ifmap", "max_workload_id"), 3)),
        [4],
        ["/1/4/ifmap/max_workload_id"],
    ),
    Screened(
        "weight-from-dram-waits-for-a-workload",
        _edit((("1", 0, "weight", "max_workload_id"), 1)),
        [0],
        ["/1/0/weight/max_workload_id"],
    ),
    Screened(
        "waits-for-itself",
        _edit((("1", 1, "ifmap", "transfer_id"), [7]), (("1", 1, "ifmap", "max_workload_id"), 2)),
        [1],
        ["/1/1/ifmap", "/1/1/ifmap/max_workload_id"],
    ),
    # Nothing produced anywhere (no ofmap, no DRAM read-back): the screen still answers, row by row.
    Screened("nothing-produced-waits-for-0", _first_layer(), [], []),
    Screened(
        "nothing-produced-waits-for-1",
        _first_layer((("2", 0, "ifmap", "max_workload_id"), 1)),
        [1],
        ["/2/0/ifmap/max_workload_id"],
    ),
]


@pytest.mark.parametrize("case", RAW_SCREEN, ids=[c.id for c in RAW_SCREEN])
def test_gir204_raw_screen_flags_exactly_the_rows_of_the_findings(case: Screened, tmp_path: Path) -> None:
    doc = case.doc()
    assert [ptr for _, ptr, _ in rows(check(tmp_path, doc), "GIR204")] == case.pointers
    path = tmp_path / "screened.json"
    path.write_text(json.dumps(doc))
    assert max_workload_rows(IRIndex(load_ir(str(path)))) == case.flagged


def test_gir205_relates_a_mismatched_dram_entry_to_its_ofmap(tmp_path: Path) -> None:
    """The related location (SARIF's relatedLocations) is the ofmap the DRAM `in` entry should match."""
    doc = edited(mesh_doc(), (("-1", "in", 0, "layer_name"), "Conv_1"))
    found = [f for f in check(tmp_path, doc) if f.code == "GIR205"]
    assert [(f.pointer, f.related) for f in found] == [("/-1/in/0", ("/2/1/ofmap/0",))]


@pytest.mark.parametrize(
    ("doc", "proved"),
    [
        (mesh_doc, True),
        (raw_doc, True),
        # Each of what GIR205 compares, changed on one DRAM `in` entry: the screen cannot prove a match.
        (_mesh((("-1", "in", 0, "layer_name"), "Conv_1")), False),
        (_mesh((("-1", "in", 0, "workload_id"), 0)), False),
        (_mesh((("-1", "in", 0, "core_id"), 0)), False),
        (_mesh((("-1", "in", 0, "upper", 2), 0)), False),
        (_mesh((("-1", "in", 0, "transfer_id"), 999)), False),
    ],
    ids=["clean", "clean-raw", "layer", "workload", "core", "range", "transfer"],
)
def test_gir205_screen_proves_a_clean_file_and_no_mismatched_one(
    doc: Callable[[], Doc], proved: bool, tmp_path: Path
) -> None:
    """GIR205's screen says "nothing to check" ([]) only when every DRAM `in` entry matches its ofmap: a
    screen that gave up on clean files too (None) would find the same, but have validate read every real
    file twice (tests/rules/test_streaming.py) and run the check in Python on each."""
    path = tmp_path / "dram.json"
    path.write_text(json.dumps(doc()))
    rows = dram_in_unmatched(IRIndex(load_ir(str(path))))
    assert (rows == []) if proved else (rows is None)


def test_gir205_names_the_core_and_workload_of_an_ofmap_without_its_dram_entry(tmp_path: Path) -> None:
    """The finding's fields (JSON, SARIF and the sweep's counts read them) name the producing workload."""
    found = [f for f in check(tmp_path, edited(mesh_doc(), (("-1", "in"), []))) if f.code == "GIR205"]
    assert [(f.pointer, f.core_id, f.workload_id, f.transfer_id) for f in found] == [
        ("/2/1/ofmap/0", 2, 1, 14),
        ("/3/0/ofmap/0", 3, 0, 13),
    ]
