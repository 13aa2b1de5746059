"""Every rule at the boundaries its docstring implies, one parametrized table per family.

A row edits a clean file (the 2x2 sample, or a synth file of the raw or alloc dialect) right at a
boundary, on one side or the other: touching intervals, empty regions, equal ids, the last position of
a mesh or a core, one byte or one block past a limit. It asserts the exact findings of one code (notes
at info left out), on both cores. A row whose expected list is empty is the near miss of its neighbour.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.rules.context import CheckOptions
from irtools.rules.l2.buffer_overlap import overlap_rows
from irtools.rules.l2.cur_wl_ifmap import cur_wl_ifmap_rows
from irtools.rules.l2.size_mismatch import size_mismatch_rows
from irtools.rules.l2.snapshot_continuity import continuity_rows
from irtools.rules.l2.source_union import source_union_rows
from irtools.rules.schedule.bad_range import inverted_rows
from irtools.rules.schedule.workload_range import workload_range_rows
from irtools.rules.transfers.causality import causality_rows
from tests.mutants.edits import Doc, Row, alloc_doc, check, edited, mesh_doc, raw_doc, rows


class Case(NamedTuple):
    """One boundary: the file, the code whose findings are compared, and those findings."""

    id: str
    doc: Callable[[], Doc]
    code: str
    expected: list[Row]
    options: CheckOptions | None = None


def _edit(*edits: tuple[tuple[str | int, ...], Any], base: Callable[[], Doc] = mesh_doc) -> Callable[[], Doc]:
    return lambda: edited(base(), *edits)


def _cores_as(*keys: str) -> Callable[[], Doc]:
    """The sample with its cores 0..3 renamed to `keys`."""

    def doc() -> Doc:
        d = mesh_doc()
        cores = [d.pop(k) for k in ("0", "1", "2", "3")]
        return d | dict(zip(keys, cores, strict=True))

    return doc


def _run(case: Case, tmp_path: Path) -> None:
    assert rows(check(tmp_path, case.doc(), case.options), case.code) == case.expected


def _params(cases: list[Case]) -> Any:
    return pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])


# GIR2xx: the transfer graph. Producers are DRAM `out` entries and ofmaps; a DRAM `in` entry matches
# its ofmap by core, workload, layer and range (batch compared by extent).
TRANSFERS = [
    Case("GIR201-clean", mesh_doc, "GIR201", []),
    Case(
        "GIR201-unproduced-id",
        _edit((("0", 0, "ifmap", 0, "transfer_id"), [99])),
        "GIR201",
        [("GIR201", "/0/0/ifmap/0", "transfer 99 is consumed but no DRAM out entry or ofmap produces it")],
    ),
    Case("GIR202-clean", mesh_doc, "GIR202", []),
    Case(
        "GIR202-equal-ids",
        _edit((("1", 0, "ofmap", 0, "transfer_id"), 10)),
        "GIR202",
        [("GIR202", "/1/0/ofmap/0", "transfer 10 is also produced at /0/0/ofmap/0")],
    ),
    Case("GIR203-clean", mesh_doc, "GIR203", []),
    Case(
        "GIR203-existing-workload-not-using-it",
        _edit((("0", 0, "ofmap", 0, "destination", 0, "workload_id"), 1)),
        "GIR203",
        [
            (
                "GIR203",
                "/0/0/ofmap/0/destination/0",
                "destination core 2 workload 1 does not use transfer 10 (not in its ifmap, weight, buffer or WL0)",
            ),
            (
                "GIR203",
                "/2/0/ifmap/0",
                (
                    "ifmap reads transfer 10 from core 0 workload 0, whose ofmap does not list this workload as a "
                    "destination"
                ),
            ),
        ],
    ),
    Case(
        "GIR203-missing-workload",
        _edit((("0", 0, "ofmap", 0, "destination", 0, "workload_id"), 9)),
        "GIR203",
        [
            (
                "GIR203",
                "/0/0/ofmap/0/destination/0",
                "destination core 2 workload 9 of transfer 10 does not exist",
            ),
            (
                "GIR203",
                "/2/0/ifmap/0",
                (
                    "ifmap reads transfer 10 from core 0 workload 0, whose ofmap does not list this workload as a "
                    "destination"
                ),
            ),
        ],
    ),
    Case("GIR204-clean", mesh_doc, "GIR204", []),
    Case(
        "GIR204-reads-its-own-output",
        _edit((("2", 0, "ifmap", 0, "transfer_id"), [12])),
        "GIR204",
        [("GIR204", "/2/0/ifmap/0", "reads transfer 12 produced by workload 0, which is this workload")],
    ),
    Case(
        "GIR204-reads-the-next-output",
        _edit((("2", 0, "ifmap", 0, "transfer_id"), [14])),
        "GIR204",
        [
            (
                "GIR204",
                "/2/0/ifmap/0",
                "reads transfer 14 produced by workload 1, which runs later on this core",
            )
        ],
    ),
    Case("GIR205-clean", mesh_doc, "GIR205", []),
    Case(
        "GIR205-no-ofmap-and-no-entry",
        _edit((("-1", "in", 0, "transfer_id"), 99)),
        "GIR205",
        [
            ("GIR205", "/-1/in/0", "no ofmap sends transfer 99 to DRAM"),
            (
                "GIR205",
                "/2/1/ofmap/0",
                "ofmap sends transfer 14 to DRAM but the DRAM in list has no entry for it",
            ),
        ],
    ),
    Case(
        # Every entry matches its ofmap, but one ofmap sent to DRAM has no entry: the screen must see it too.
        "GIR205-ofmap-without-entry",
        _edit(
            (
                ("-1", "in"),
                [
                    {
                        "core_id": 2,
                        "layer_name": "Relu_2",
                        "lower": [0, 0, 0, 0],
                        "related_ofmap": [],
                        "transfer_id": 14,
                        "upper": [0, 15, 31, 31],
                        "workload_id": 1,
                    }
                ],
            )
        ),
        "GIR205",
        [
            (
                "GIR205",
                "/3/0/ofmap/0",
                "ofmap sends transfer 13 to DRAM but the DRAM in list has no entry for it",
            )
        ],
    ),
    Case(
        "GIR205-other-layer",
        _edit((("-1", "in", 0, "layer_name"), "Conv_1")),
        "GIR205",
        [
            (
                "GIR205",
                "/-1/in/0",
                "DRAM in entry for transfer 14 does not match its ofmap: layer is 'Relu_2', not 'Conv_1'",
            )
        ],
    ),
    Case(
        "GIR205-other-core",
        _edit((("-1", "in", 0, "core_id"), 3)),
        "GIR205",
        [
            (
                "GIR205",
                "/-1/in/0",
                "DRAM in entry for transfer 14 does not match its ofmap: it is produced by core 2 workload 1",
            )
        ],
    ),
    Case("GIR206-present", _edit((("-1", "in", 0, "related_ofmap"), [0])), "GIR206", []),
    Case(
        "GIR206-two-absent-one-finding",
        _edit((("-1", "in", 0, "related_ofmap"), [0, 98, 99])),
        "GIR206",
        [
            (
                "GIR206",
                "/-1/in/0/related_ofmap/1",
                "related_ofmap names 2 ids that are not DRAM out transfers: 98,99",
            )
        ],
    ),
    Case(
        "GIR206-out-side-absent",
        _edit((("-1", "out", 0, "related_ifmap"), [99])),
        "GIR206",
        [("GIR206", "/-1/out/0/related_ifmap/0", "related_ifmap 99 is not a DRAM in transfer")],
    ),
    # raw dialect: max_workload_id must be the latest producer, neither earlier nor later.
    Case("GIR204-raw-latest-producer", raw_doc, "GIR204", []),
    *(
        Case(
            f"GIR204-raw-max-workload-{wid}",
            _edit((("1", 4, "ifmap", "max_workload_id"), wid), base=raw_doc),
            "GIR204",
            [
                (
                    "GIR204",
                    "/1/4/ifmap/max_workload_id",
                    f"ifmap max_workload_id {wid} but the latest producer of transfers [7] is workload 2",
                )
            ],
        )
        for wid in (1, 3)
    ),
    Case(
        "GIR204-raw-network-input-is-0",
        _edit((("1", 0, "ifmap", "max_workload_id"), 1), base=raw_doc),
        "GIR204",
        [
            (
                "GIR204",
                "/1/0/ifmap/max_workload_id",
                "ifmap max_workload_id 1 but no workload produces transfers [0] (then it is 0)",
            )
        ],
    ),
    Case(
        "GIR204-raw-weight-from-dram-is-0",
        _edit((("1", 0, "weight", "max_workload_id"), 1), base=raw_doc),
        "GIR204",
        [
            (
                "GIR204",
                "/1/0/weight/max_workload_id",
                "weight max_workload_id 1 but no workload produces transfers [1] (then it is 0)",
            )
        ],
    ),
    Case(
        "GIR204-raw-waits-for-itself",
        _edit(
            (("1", 1, "ifmap", "transfer_id"), [7]), (("1", 1, "ifmap", "max_workload_id"), 2), base=raw_doc
        ),
        "GIR204",
        [
            ("GIR204", "/1/1/ifmap", "reads transfer 7 produced by workload 2, which is this workload"),
            (
                "GIR204",
                "/1/1/ifmap/max_workload_id",
                "ifmap waits for workload 2 (max_workload_id), which is this workload",
            ),
        ],
    ),
    Case(
        "GIR204-raw-waits-for-the-next",
        _edit(
            (("1", 1, "ifmap", "transfer_id"), [11]), (("1", 1, "ifmap", "max_workload_id"), 4), base=raw_doc
        ),
        "GIR204",
        [
            (
                "GIR204",
                "/1/1/ifmap",
                "reads transfer 11 produced by workload 4, which runs later on this core",
            ),
            (
                "GIR204",
                "/1/1/ifmap/max_workload_id",
                "ifmap waits for workload 4 (max_workload_id), which runs later on this core",
            ),
        ],
    ),
]


@_params(TRANSFERS)
def test_transfer_rules_at_their_boundaries(case: Case, tmp_path: Path) -> None:
    _run(case, tmp_path)


def _consecutive_overlap() -> Doc:
    # Tensor 3 of core 2 sits on tensor 2 in both of the core's snapshots.
    d = mesh_doc()
    second = d["2"][1]["buffer"][1]
    second["address"] = 0x80000
    d["2"][0]["buffer"].append(copy.deepcopy(second))
    return d


def _held(
    source: tuple[int, int], into: int, workload_id: int, base: Callable[[], Doc] = raw_doc
) -> Callable[[], Doc]:
    """The raw (or alloc) file with a copy of core 1's entry `source` (position, index) held at position
    `into` for `workload_id`."""

    def doc() -> Doc:
        d = base()
        entry = copy.deepcopy(d["1"][source[0]]["buffer"][source[1]])
        entry["workload_id"] = workload_id
        d["1"][into]["buffer"].append(entry)
        return d

    return doc


_L2 = CheckOptions(l2_size=256 * 1024)
_RAW_PEAK = 90
"""The most blocks a snapshot of the raw file lists (core 1, two snapshots; core 2's peak is 80)."""
_ALLOC_TOP = 148
"""The highest block the alloc file's entries reach (address + block)."""

# GIR3xx: L2 buffers. Regions are [start, end); a tensor may wrap in its region but not exceed it;
# touching ranges do not overlap; newly_added follows the snapshot before on the core.
BUFFERS = [
    Case(
        "GIR301-ends-at-region-end", _edit((("0", 0, "buffer", 0, "address"), 0x80000 - 4352)), "GIR301", []
    ),
    Case("GIR301-wraps-by-one", _edit((("0", 0, "buffer", 0, "address"), 0x80000 - 4351)), "GIR301", []),
    Case(
        "GIR301-size-of-region",
        _edit((("0", 0, "buffer", 0, "address"), 0), (("0", 0, "buffer", 0, "size"), 0x80000)),
        "GIR301",
        [],
    ),
    Case(
        "GIR301-one-past-region-size",
        _edit((("0", 0, "buffer", 0, "address"), 0), (("0", 0, "buffer", 0, "size"), 0x80001)),
        "GIR301",
        [
            (
                "GIR301",
                "/0/0/buffer/0",
                "ifmap tensor 0 [transfer 0]: 524289 bytes do not fit in ring region [0x0, 0x80000)",
            )
        ],
    ),
    Case(
        "GIR301-last-byte",
        _edit((("1", 0, "buffer", 0, "address"), 0xFFFFF), (("1", 0, "buffer", 0, "size"), 1)),
        "GIR301",
        [],
    ),
    Case(
        "GIR301-at-buffersize",
        _edit((("1", 0, "buffer", 0, "address"), 0x100000)),
        "GIR301",
        [
            (
                "GIR301",
                "/1/0/buffer/0",
                "ifmap tensor 0 [transfer 1]: starts at 0x100000, past buffersize 0x100000",
            )
        ],
    ),
    Case("GIR301-alloc-top-is-the-l2-size", alloc_doc, "GIR301", [], CheckOptions(l2_size=_ALLOC_TOP * 1024)),
    Case(
        "GIR301-alloc-one-block-short",
        alloc_doc,
        "GIR301",
        [
            (
                "GIR301",
                "/1/5/buffer/6",
                (
                    "addresses reach 148 blocks (151,552 B) here, past the L2 size of 147 blocks (150,528 B) "
                    "(at most 140 blocks (143,360 B) held at once); 7 entries in 7 of the core's 16 snapshots "
                    "end past it"
                ),
            )
        ],
        CheckOptions(l2_size=(_ALLOC_TOP - 1) * 1024),
    ),
    Case("GIR301-raw-blocks-at-the-l2-size", raw_doc, "GIR301", [], CheckOptions(l2_size=_RAW_PEAK * 1024)),
    Case(
        "GIR301-raw-one-block-short",
        raw_doc,
        "GIR301",
        [
            (
                "GIR301",
                "/1/4/buffer",
                (
                    "snapshot lists 90 blocks (92,160 B), more than the L2 size of 89 blocks (91,136 B); "
                    "2 of the core's 12 snapshots exceed it: an allocator taking the file as written (whole "
                    "tensors, inputs held ahead) overflows this core; the scheduler tiles tensors larger than "
                    "the L2, which the IR does not record"
                ),
            )
        ],
        CheckOptions(l2_size=(_RAW_PEAK - 1) * 1024),
    ),
    Case("GIR302-touching", _edit((("0", 0, "buffer", 1, "address"), 0x10000 - 1024)), "GIR302", []),
    Case(
        "GIR302-one-byte",
        _edit((("0", 0, "buffer", 1, "address"), 0x10000 - 1023)),
        "GIR302",
        [
            (
                "GIR302",
                "/0/0/buffer/1",
                (
                    "weight tensor 1 [transfer 2] (Conv_0) [0xfc01, 0x10001) overlaps "
                    "ifmap tensor 2 [transfer 10] [0x10000, 0x12000)"
                ),
            )
        ],
    ),
    Case(
        "GIR302-same-start",
        _edit((("0", 0, "buffer", 1, "address"), 0x10000)),
        "GIR302",
        [
            (
                "GIR302",
                "/0/0/buffer/1",
                (
                    "weight tensor 1 [transfer 2] (Conv_0) [0x10000, 0x10400) overlaps "
                    "ifmap tensor 2 [transfer 10] [0x10000, 0x12000)"
                ),
            )
        ],
    ),
    Case(
        "GIR302-wrapped-piece",
        _edit(
            (("0", 0, "buffer", 0, "address"), 0x7F000),
            (("0", 0, "buffer", 0, "size"), 0x2000),
            (("0", 0, "buffer", 1, "address"), 0x800),
        ),
        "GIR302",
        [
            (
                "GIR302",
                "/0/0/buffer/0",
                (
                    "ifmap tensor 0 [transfer 0] [0x7f000, 0x80000) + [0x0, 0x1000) overlaps "
                    "weight tensor 1 [transfer 2] (Conv_0) [0x800, 0xc00)"
                ),
            )
        ],
    ),
    Case(
        "GIR302-empty-tensor-inside",
        _edit((("0", 0, "buffer", 1, "address"), 0x10000), (("0", 0, "buffer", 1, "size"), 0)),
        "GIR302",
        [],
    ),
    Case(
        "GIR302-two-consecutive-snapshots-once",
        _consecutive_overlap,
        "GIR302",
        [
            (
                "GIR302",
                "/2/0/buffer/2",
                (
                    "ifmap tensor 2 [transfer 12] [0x80000, 0x84000) overlaps ofmap tensor 3 [transfer -] (Relu_2) "
                    "[0x80000, 0x84000) (in 2 consecutive snapshots)"
                ),
            )
        ],
    ),
    Case("GIR302-alloc-touching-blocks", alloc_doc, "GIR302", [], _L2),
    Case(
        "GIR302-alloc-one-block",
        _edit((("1", 1, "buffer", 3, "address"), 28), base=alloc_doc),
        "GIR302",
        [
            (
                "GIR302",
                "/1/1/buffer/2",
                (
                    "ifmap tensor 2 [transfer 2] (Relu_1) [0x2400, 0x7400) overlaps "
                    "ifmap tensor 4 [transfer 4] (Relu_1) [0x7000, 0xc000)"
                ),
            )
        ],
        _L2,
    ),
    Case(
        "GIR303-ends-at-buffersize",
        _edit((("0", 0, "ring_buffer_info"), [[0, 0x80000], [0x80000, 0x100000]])),
        "GIR303",
        [],
    ),
    Case(
        "GIR303-one-past-buffersize",
        _edit((("0", 0, "ring_buffer_info"), [[0, 0x80000], [0x80000, 0x100001]])),
        "GIR303",
        [("GIR303", "/0/0/ring_buffer_info/1", "region [0x80000, 0x100001) ends past buffersize 0x100000")],
    ),
    Case(
        "GIR303-empty",
        _edit((("0", 0, "ring_buffer_info"), [[0, 0x80000], [0x80000, 0x80000], [0x80000, 0x100000]])),
        "GIR303",
        [("GIR303", "/0/0/ring_buffer_info/1", "region [0x80000, 0x80000) is empty")],
    ),
    Case(
        "GIR303-gap-between",
        _edit((("0", 0, "ring_buffer_info"), [[0, 0x7FFFF], [0x80000, 0x100000]])),
        "GIR303",
        [],
    ),
    Case(
        "GIR303-overlap-by-one",
        _edit((("0", 0, "ring_buffer_info"), [[0, 0x80001], [0x80000, 0x100000]])),
        "GIR303",
        [("GIR303", "/0/0/ring_buffer_info/1", "region [0x0, 0x80001) overlaps region [0x80000, 0x100000)")],
    ),
    Case("GIR304-kept-in-place", mesh_doc, "GIR304", []),
    Case(
        "GIR304-moved-not-re-added",
        _edit((("2", 1, "buffer", 0, "address"), 0x84000)),
        "GIR304",
        [
            (
                "GIR304",
                "/2/1/buffer/0/newly_added",
                "ifmap tensor 2 [transfer 12] moved from 0x80000 to 0x84000 without being re-added",
            )
        ],
    ),
    Case(
        "GIR304-re-added-in-place",
        _edit((("2", 1, "buffer", 0, "newly_added"), True)),
        "GIR304",
        [
            (
                "GIR304",
                "/2/1/buffer/0/newly_added",
                "ifmap tensor 2 [transfer 12] is marked newly added but was already present at 0x80000",
            )
        ],
    ),
    Case(
        "GIR304-alloc-moved-and-back",
        _edit((("1", 1, "buffer", 0, "address"), 100), base=alloc_doc),
        "GIR304",
        [
            (
                "GIR304",
                "/1/1/buffer/0/start_loading",
                "weight tensor 1 [transfer 1] (Conv_0) moved from 0x1800 to 0x19000 without being re-added",
            ),
            (
                "GIR304",
                "/1/2/buffer/0/start_loading",
                "weight tensor 1 [transfer 1] (Conv_0) moved from 0x19000 to 0x1800 without being re-added",
            ),
        ],
        _L2,
    ),
    # Core 1 runs workloads 0, 2, 4 (Conv_0), then 5, 7, 9 (Relu_1); workload 2's own input is entry 1
    # of its snapshot, workload 4's is entry 2 there.
    Case("GIR304-raw-held-for-the-next-workload", _held((1, 1), 0, 2), "GIR304", []),
    Case(
        "GIR304-raw-held-for-the-one-after",
        _held((1, 1), 0, 4),
        "GIR304",
        [
            (
                "GIR304",
                "/1/0/buffer/3/workload_id",
                (
                    "ifmap of layer 'Conv_0' is held for workload 4, but the next snapshot on this core "
                    "(workload 2) does not hold it"
                ),
            )
        ],
    ),
    # As the scheduler holds an input from a core: from its producer's workload to its reader's, in
    # every snapshot between (workload 4's input, transfer 10, also held at workloads 0 and 2).
    Case(
        "GIR304-raw-held-two-ahead-through-every-snapshot",
        _held((1, 2), 0, 4),
        "GIR304",
        [],
    ),
    Case(
        "GIR304-raw-held-for-an-earlier-workload",
        _held((0, 0), 1, 0),
        "GIR304",
        [
            (
                "GIR304",
                "/1/1/buffer/5/workload_id",
                "ifmap of layer 'Conv_0' is held for workload 0, which does not run later on this core",
            )
        ],
    ),
    # Held for an earlier workload in two snapshots in a row: the next one holds it, yet it runs no more.
    Case(
        "GIR304-raw-held-for-an-earlier-workload-twice",
        lambda: _held((1, 1), 2, 0, base=_held((1, 1), 1, 0))(),
        "GIR304",
        [
            (
                "GIR304",
                "/1/1/buffer/5/workload_id",
                "ifmap of layer 'Conv_0' is held for workload 0, which does not run later on this core",
            ),
            (
                "GIR304",
                "/1/2/buffer/5/workload_id",
                "ifmap of layer 'Conv_0' is held for workload 0, which does not run later on this core",
            ),
        ],
    ),
    Case(
        "GIR304-raw-held-at-the-last-position",
        _held((11, 0), 11, 22),
        "GIR304",
        [
            (
                "GIR304",
                "/1/11/buffer/2/workload_id",
                "ifmap of layer 'Relu_3' is held for workload 22, but no workload runs next on this core",
            )
        ],
    ),
    Case(
        "GIR304-raw-held-but-not-in-its-snapshot",
        lambda: edited(_held((1, 1), 0, 2)(), (("1", 1, "buffer", 1, "layer"), "Conv_9")),
        "GIR304",
        [
            (
                "GIR304",
                "/1/0/buffer/3/workload_id",
                "ifmap of layer 'Conv_0' is held for workload 2, whose own snapshot does not hold it",
            )
        ],
    ),
    Case(
        "GIR304-alloc-held-for-the-one-after",
        _held((1, 2), 0, 4, base=alloc_doc),
        "GIR304",
        [
            (
                "GIR304",
                "/1/0/buffer/3/workload_id",
                (
                    "ifmap of layer 'Relu_1' is held for workload 4, but the next snapshot on this core "
                    "(workload 1) does not hold it"
                ),
            )
        ],
        _L2,
    ),
    Case("GIR305-clean", mesh_doc, "GIR305", []),
    Case("GIR305-raw-clean", raw_doc, "GIR305", []),
    Case(
        "GIR305-raw-one-id-more",
        _edit((("1", 0, "buffer", 0, "transfer_id"), [0, 99]), base=raw_doc),
        "GIR305",
        [("GIR305", "/1/0/buffer/0", "transfer_id [0, 99] differs from the sources' ids [0]")],
    ),
    Case(
        "GIR305-box-one-short",
        _edit((("0", 0, "buffer", 0, "upper"), [0, 2, 16, 30])),
        "GIR305",
        [
            (
                "GIR305",
                "/0/0/buffer/0",
                (
                    "range [0, 0, 0, 0]..[0, 2, 16, 30] differs from the sources' bounding box "
                    "[0, 0, 0, 0]..[0, 2, 16, 31]"
                ),
            )
        ],
    ),
    Case("GIR306-clean", mesh_doc, "GIR306", []),
    Case(
        "GIR306-ifmap-not-flagged",
        _edit((("0", 0, "buffer", 0, "cur_wl_ifmap"), False)),
        "GIR306",
        [
            (
                "GIR306",
                "/0/0/buffer/0/cur_wl_ifmap",
                "ifmap tensor 0 [transfer 0] holds ifmap transfers [0] but is not flagged cur_wl_ifmap",
            )
        ],
    ),
    Case(
        "GIR306-flagged-holding-none",
        _edit((("0", 0, "buffer", 2, "cur_wl_ifmap"), True)),
        "GIR306",
        [
            (
                "GIR306",
                "/0/0/buffer/2/cur_wl_ifmap",
                "ifmap tensor 2 [transfer 10] is flagged cur_wl_ifmap but holds none of the ifmap transfers [0]",
            )
        ],
    ),
    Case("GIR307-exact", mesh_doc, "GIR307", []),
    Case(
        "GIR307-one-byte-more",
        _edit((("0", 0, "ifmap", 0, "size"), 4353)),
        "GIR307",
        [("GIR307", "/0/0/ifmap/0/size", "size 4353 differs from 1 x roundup(3, 8) x 17 x 32 x 8/8 = 4352")],
    ),
    Case(
        "GIR307-channels-round-up-to-align",
        _edit((("0", 0, "ifmap", 0, "align"), 16)),
        "GIR307",
        [("GIR307", "/0/0/ifmap/0/size", "size 4352 differs from 1 x roundup(3, 16) x 17 x 32 x 8/8 = 8704")],
    ),
    Case("GIR308-multiples", mesh_doc, "GIR308", [], CheckOptions(addr_align=4096)),
    Case(
        "GIR308-one-past-a-multiple",
        _edit((("0", 0, "buffer", 1, "address"), 0x8001)),
        "GIR308",
        [("GIR308", "/0/0/buffer/1/address", "address 0x8001 is not a multiple of 4096")],
        CheckOptions(addr_align=4096),
    ),
    Case("GIR308-off-without-the-option", _edit((("0", 0, "buffer", 1, "address"), 0x8001)), "GIR308", []),
]


@_params(BUFFERS)
def test_buffer_rules_at_their_boundaries(case: Case, tmp_path: Path) -> None:
    _run(case, tmp_path)


def _second_weight(address: int, size: int = 448) -> Callable[[], Doc]:
    """Core 0's WL0 snapshot with a second copy of its weight (448 bytes at 0) at `address`."""

    def doc() -> Doc:
        d = mesh_doc()
        wl0 = d["0"][0]["wl0_buffer"]
        wl0.append(copy.deepcopy(wl0[0]) | {"address": address, "size": size})
        return d

    return doc


_WL0_WEIGHT_END = 448
"""The first core's WL0 weight occupies [0, 448); cores 2 and 3 hold weights up to 0x900."""

# GIR4xx: WL0. Touching weights do not overlap; a weight may end exactly at --wl0-size.
WL0 = [
    Case("GIR401-touching", _second_weight(_WL0_WEIGHT_END), "GIR401", []),
    Case(
        "GIR401-one-byte",
        _second_weight(_WL0_WEIGHT_END - 1),
        "GIR401",
        [
            (
                "GIR401",
                "/0/0/wl0_buffer/1",
                "weight [transfer 2] [0x1bf, 0x37f) overlaps weight [transfer 2] [0x0, 0x1c0)",
            )
        ],
    ),
    Case("GIR401-empty-weight-inside", _second_weight(0x10, size=0), "GIR401", []),
    Case("GIR402-off-without-the-option", mesh_doc, "GIR402", []),
    Case("GIR402-ends-at-the-size", mesh_doc, "GIR402", [], CheckOptions(wl0_size=0x900)),
    Case(
        "GIR402-one-byte-short",
        mesh_doc,
        "GIR402",
        [
            ("GIR402", "/2/0/wl0_buffer/0", "weight [transfer 4] ends at 0x900, past WL0 size 0x8ff"),
            ("GIR402", "/3/0/wl0_buffer/0", "weight [transfer 5] ends at 0x900, past WL0 size 0x8ff"),
        ],
        CheckOptions(wl0_size=0x8FF),
    ),
]


@_params(WL0)
def test_wl0_rules_at_their_boundaries(case: Case, tmp_path: Path) -> None:
    _run(case, tmp_path)


# GIR5xx: ordering and topology. Ids ascend strictly; the mesh has cores 0..xlen*ylen-1 or Gemini's
# mesh ids; lower == upper is a one-element range; ofmaps lie inside the workload in either frame.
ORDERING = [
    Case("GIR501-ascending", mesh_doc, "GIR501", []),
    Case(
        "GIR501-equal-ids",
        _edit((("2", 1, "workload_id"), 0)),
        "GIR501",
        [("GIR501", "/2/1/workload_id", "workload_id 0 is used twice on this core")],
    ),
    Case("GIR502-cross-core-wait", mesh_doc, "GIR502", []),
    Case(
        "GIR502-two-core-cycle",
        _edit((("2", 0, "ofmap", 0, "destination"), [{"core_id": 0, "type": "core", "workload_id": 0}])),
        "GIR502",
        [("GIR502", "/0/0", "deadlock: core 0/wl 0 -> core 2/wl 0 -> core 0/wl 0")],
    ),
    Case("GIR503-linear-last-core", mesh_doc, "GIR503", []),
    Case(
        "GIR503-linear-one-past",
        _cores_as("0", "1", "2", "4"),
        "GIR503",
        [("GIR503", "/4", "core 4 is outside the 2x2 mesh (cores 0..3)")],
    ),
    Case("GIR503-mesh-ids-last-core", _cores_as("1", "2", "5", "6"), "GIR503", []),
    Case(
        "GIR503-mesh-ids-east-port",
        _cores_as("1", "2", "5", "7"),
        "GIR503",
        [("GIR503", "/7", "core 7 is outside the 2x2 mesh (mesh ids 1, 2, 5, 6)")],
    ),
    Case("GIR504-lower-equals-upper", _edit((("0", 0, "ifmap", 0, "lower"), [0, 2, 16, 31])), "GIR504", []),
    Case(
        "GIR504-lower-one-past-upper",
        _edit((("0", 0, "ifmap", 0, "lower"), [0, 3, 16, 31])),
        "GIR504",
        [("GIR504", "/0/0/ifmap/0", "lower [0, 3, 16, 31] > upper [0, 2, 16, 31] in dimension 1")],
    ),
    Case("GIR505-at-the-workload-corner", mesh_doc, "GIR505", []),
    Case(
        "GIR505-relative-frame",
        _edit(
            (("1", 0, "ofmap", 0, "lower"), [0, 0, 0, 0]), (("1", 0, "ofmap", 0, "upper"), [0, 15, 15, 31])
        ),
        "GIR505",
        [],
    ),
    Case(
        "GIR505-one-past-the-workload",
        _edit((("0", 0, "ofmap", 0, "upper"), [0, 15, 15, 32])),
        "GIR505",
        [
            (
                "GIR505",
                "/0/0/ofmap/0",
                (
                    "ofmap range [0, 0, 0, 0]..[0, 15, 15, 32] lies outside the workload range "
                    "[0, 0, 0, 0]..[0, 15, 15, 31]"
                ),
            )
        ],
    ),
]


@_params(ORDERING)
def test_ordering_rules_at_their_boundaries(case: Case, tmp_path: Path) -> None:
    _run(case, tmp_path)


# The columnar screens hand the reference only the workloads (rows, in file order) that may hold a
# finding. On these boundary files each flags exactly the rows of the findings: a screen flagging
# more only costs time and would pass every finding test, so its rows are pinned here.
SCREENS = {
    "GIR204": causality_rows,
    "GIR302": overlap_rows,
    "GIR304": continuity_rows,
    "GIR305": source_union_rows,
    "GIR306": cur_wl_ifmap_rows,
    "GIR307": size_mismatch_rows,
    "GIR504": inverted_rows,
    "GIR505": workload_range_rows,
}
SCREEN_ROWS = {
    "GIR204-clean": [],
    "GIR204-reads-its-own-output": [2],
    "GIR204-reads-the-next-output": [2],
    "GIR204-raw-latest-producer": [],
    "GIR204-raw-waits-for-itself": [1],
    "GIR204-raw-waits-for-the-next": [1],
    "GIR302-alloc-touching-blocks": [],
    "GIR302-alloc-one-block": [1],
    "GIR304-kept-in-place": [],
    "GIR304-moved-not-re-added": [3],
    "GIR304-re-added-in-place": [3],
    "GIR304-alloc-moved-and-back": [1, 2],
    "GIR305-clean": [],
    "GIR305-raw-clean": [],
    "GIR305-raw-one-id-more": [0],
    "GIR305-box-one-short": [0],
    "GIR306-clean": [],
    "GIR306-ifmap-not-flagged": [0],
    "GIR306-flagged-holding-none": [0],
    "GIR307-exact": [],
    "GIR307-one-byte-more": [0],
    "GIR307-channels-round-up-to-align": [0],
    "GIR504-lower-equals-upper": [],
    "GIR504-lower-one-past-upper": [0],
    "GIR505-at-the-workload-corner": [],
    "GIR505-relative-frame": [],
    "GIR505-one-past-the-workload": [0],
}
_BY_ID = {c.id: c for c in TRANSFERS + BUFFERS + ORDERING}


@pytest.mark.parametrize(("case_id", "flagged"), SCREEN_ROWS.items(), ids=list(SCREEN_ROWS))
def test_screens_flag_exactly_the_rows_of_the_findings(
    case_id: str, flagged: list[int], tmp_path: Path
) -> None:
    case = _BY_ID[case_id]
    path = tmp_path / "ir.json"
    path.write_text(json.dumps(case.doc()))
    index = IRIndex(load_ir(str(path)), case.options)
    assert SCREENS[case.code](index) == flagged
