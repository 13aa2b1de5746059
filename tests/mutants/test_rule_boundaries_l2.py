"""GIR3xx (L2 buffers) at the boundaries the mutation run of issue 33 found untested, one table.

Each row edits a clean file (the 2x2 sample, or a synth file of the raw or alloc dialect) or picks an
option at a boundary a surviving mutant moved: one against several (a plural, a sum over snapshots),
the first or last entry of a snapshot. It asserts the exact findings of one code on both cores
(tests/mutants/edits.py `check`); notes at info are compared where the row says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.rules.context import CheckOptions
from irtools.rules.l2.snapshot_continuity import continuity_rows
from irtools.rules.l2.source_union import source_union_rows
from tests.mutants.edits import Doc, Row, alloc_doc, check, mesh_doc, raw_doc, rows


def _raw_entry(core: str, position: int, index: int, *drop: str, **values: object) -> Callable[[], Doc]:
    """The raw file with one buffer entry's keys `drop` removed and `values` set."""

    def doc() -> Doc:
        d = raw_doc()
        entry = d[core][position]["buffer"][index]
        for key in drop:
            del entry[key]
        entry.update(values)
        return d

    return doc


def _raw_source_upper(value: object) -> Callable[[], Doc]:
    """The raw file with the one source of core 1's ifmap entry /1/1/buffer/1 given `upper` = value."""

    def doc() -> Doc:
        d = raw_doc()
        d["1"][1]["buffer"][1]["source"][0]["upper"] = value
        return d

    return doc


class Case(NamedTuple):
    """One boundary: the file, the code whose findings are compared, and those findings."""

    id: str
    doc: Callable[[], Doc]
    code: str
    expected: list[Row]
    options: CheckOptions | None = None
    info: bool = False


def _kib(blocks: int) -> CheckOptions:
    return CheckOptions(l2_size=blocks * 1024)


_RAW_TAIL = (
    ": an allocator taking the file as written (whole tensors, inputs held ahead) overflows this core; "
    "the scheduler tiles tensors larger than the L2, which the IR does not record"
)


def _second_ifmap_entry() -> Doc:
    """The sample with core 0's ifmap entry (transfer 0, flagged cur_wl_ifmap) copied, unflagged, elsewhere."""
    d = mesh_doc()
    buffer = d["0"][0]["buffer"]
    buffer.append(json.loads(json.dumps(buffer[0])) | {"address": 0x20000, "cur_wl_ifmap": False})
    return d


def _weight_on_ifmap(layer_name: str) -> Callable[[], Doc]:
    """The sample with core 0's weight (of layer `layer_name`) moved onto its ifmap tensor 2."""

    def doc() -> Doc:
        d = mesh_doc()
        d["0"][0]["buffer"][1] |= {"address": 0x10000, "layer_name": layer_name}
        return d

    return doc


L2 = [
    # Raw block counts: the peak snapshot, and how many of the core's snapshots exceed (plural from two).
    Case(
        "GIR301-raw-snapshots-exceed-on-both-cores",
        raw_doc,
        "GIR301",
        [
            (
                "GIR301",
                "/1/4/buffer",
                "snapshot lists 90 blocks (92,160 B), more than the L2 size of 79 blocks (80,896 B); "
                "6 of the core's 12 snapshots exceed it" + _RAW_TAIL,
            ),
            (
                "GIR301",
                "/2/6/buffer",
                "snapshot lists 80 blocks (81,920 B), more than the L2 size of 79 blocks (80,896 B); "
                "1 of the core's 10 snapshots exceeds it" + _RAW_TAIL,
            ),
        ],
        _kib(79),
    ),
    # Alloc block addresses: entries past the end are summed over every snapshot of the core.
    Case(
        "GIR301-alloc-entries-past-in-several-snapshots",
        alloc_doc,
        "GIR301",
        [
            (
                "GIR301",
                "/1/5/buffer/6",
                (
                    "addresses reach 148 blocks (151,552 B) here, past the L2 size of 100 blocks (102,400 B) "
                    "(at most 140 blocks (143,360 B) held at once); 22 entries in 9 of the core's 16 snapshots "
                    "end past it"
                ),
            )
        ],
        _kib(100),
    ),
    # Raw sources: an ofmap entry as the scheduler writes it (no source, no ids; synth writes it so)
    # brings nothing in and is no defect; an input entry with no source says what it carries, ids
    # listed as the format does.
    Case("GIR305-raw-ofmap-entry-without-source", _raw_entry("1", 9, 3), "GIR305", []),
    Case(
        "GIR305-raw-input-without-source-with-ids",
        _raw_entry("1", 1, 1, "source", transfer_id=[2, 7]),
        "GIR305",
        [
            (
                "GIR305",
                "/1/1/buffer/1",
                (
                    "ifmap entry of layer 'Conv_0' has transfer_id [2, 7] but no source: "
                    "nothing brings [0, 0, 21, 0]..[0, 2, 33, 55]"
                ),
            )
        ],
    ),
    Case(
        "GIR305-raw-input-without-source-or-ids",
        _raw_entry("1", 1, 1, "source", "transfer_id"),
        "GIR305",
        [
            (
                "GIR305",
                "/1/1/buffer/1",
                (
                    "ifmap entry of layer 'Conv_0' has no source and no transfer id: "
                    "nothing brings [0, 0, 21, 0]..[0, 2, 33, 55]"
                ),
            )
        ],
    ),
    # An unflagged copy of the ifmap entry, next to the flagged one that already covers the transfer.
    Case(
        "GIR306-unflagged-ifmap-beside-a-flagged-one",
        _second_ifmap_entry,
        "GIR306",
        [
            (
                "GIR306",
                "/0/0/buffer/3/cur_wl_ifmap",
                "ifmap tensor 0 [transfer 0] holds ifmap transfers [0] but is not flagged cur_wl_ifmap",
            )
        ],
    ),
    # Layer names are spelled out up to 80 characters (MESSAGE_TEXT), then cut to 77 and "...".
    *(
        Case(
            f"GIR302-layer-name-of-{n}-characters",
            _weight_on_ifmap("L" * n),
            "GIR302",
            [
                (
                    "GIR302",
                    "/0/0/buffer/1",
                    (
                        f"weight tensor 1 [transfer 2] ({shown}) [0x10000, 0x10400) overlaps "
                        "ifmap tensor 2 [transfer 10] [0x10000, 0x12000)"
                    ),
                )
            ],
        )
        for n, shown in ((80, "L" * 80), (81, "L" * 77 + "..."))
    ),
    # A source box that is not two lists (a 4-D lower, a bare upper) has no box to compare: no finding.
    Case("GIR305-raw-source-upper-not-a-list", _raw_source_upper(55), "GIR305", []),
]


@pytest.mark.parametrize("case", L2, ids=[c.id for c in L2])
def test_l2_rules_at_the_boundaries_mutants_moved(case: Case, tmp_path: Path) -> None:
    assert rows(check(tmp_path, case.doc(), case.options), case.code, info=case.info) == case.expected


def test_gir305_screen_leaves_an_entry_without_sources_to_nobody(tmp_path: Path) -> None:
    """An entry with transfer ids but no sources has no union to differ from (the reference skips it):
    the screen flags no row, so a clean file costs no reference walk."""
    doc = mesh_doc()
    del doc["0"][0]["buffer"][2]["source"]
    assert rows(check(tmp_path, doc), "GIR305") == []
    path = tmp_path / "screened.json"
    path.write_text(json.dumps(doc))
    assert source_union_rows(IRIndex(load_ir(str(path)))) == []


def _core0_twice() -> Doc:
    """The sample with core 0's one snapshot followed by a second (workload 1) keeping every tensor in place."""
    d = mesh_doc()
    kept = json.loads(json.dumps(d["0"][0])) | {"workload_id": 1}
    for entry in kept["buffer"]:
        entry["newly_added"] = False
    d["0"].append(kept)
    return d


def test_gir304_screen_sees_the_files_first_entry_carried_over(tmp_path: Path) -> None:
    """The first entry of the whole file (row 0, entry 0) kept in the next snapshot is no defect, and the
    screen matches it to its predecessor like any other entry: no row flagged, no finding."""
    doc = _core0_twice()
    assert rows(check(tmp_path, doc), "GIR304") == []
    path = tmp_path / "screened.json"
    path.write_text(json.dumps(doc))
    assert continuity_rows(IRIndex(load_ir(str(path)))) == []
