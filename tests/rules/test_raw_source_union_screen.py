"""GIR305's raw screen on a real concatenation: GoogLeNet's inception_3b reads the four branches of 3a, each
a box in its producer's frame placed in the consumer's channels by `channel` (goog_2x2_b1_ir.json, core 1,
workload 12, buffer entry 2: channels 0-63, 64-191, 192-223, 224-255 of a 256-channel ifmap).

The screen must flag a workload exactly where the check can find something: a channel placement that no
longer covers the entry is a finding the fast core must keep; a source box that differs only in the
producer's frame (which `channel` replaces) is none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.rules.l2.source_union import raw_source_union_rows
from irtools.validate import check_loaded

GOOG = Path("../shared/fixtures/gemini-raw/goog_2x2_b1_ir.json")
ENTRY = "/1/12/buffer/2"


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(GOOG.read_bytes())
    return document


def _screened_and_found(document: dict[str, Any]) -> tuple[bool, list[str]]:
    """Whether the screen flags the concatenating workload, and the GIR305 messages at its entry."""
    loaded = load_ir(json.dumps(document).encode(), "goog.json")
    index = IRIndex(loaded, RunOptions())
    row = next(n for n, ref in enumerate(index.rows) if ref.core_id == 1 and ref.position == 12)
    flagged = raw_source_union_rows(index)
    assert flagged is not None
    found = [
        f.message for f in check_loaded(loaded, RunOptions()) if f.code == "GIR305" and f.pointer == ENTRY
    ]
    return row in flagged, found


def test_the_real_concatenation_is_neither_flagged_nor_found() -> None:
    """The branches' channels tile 0-255 exactly: no finding, and the screen leaves the workload alone."""
    assert _screened_and_found(_document()) == (False, [])


def test_a_channel_range_short_of_the_entry_is_flagged_and_found() -> None:
    """The last branch placed at 224-250 leaves channels 251-255 unbrought: the box differs, on the fast core."""
    document = _document()
    document["1"][12]["buffer"][2]["source"][3]["channel"] = [224, 250]
    flagged, found = _screened_and_found(document)
    assert flagged
    box = "[0, 0, 0, 0]..[0, 250, 27, 13]"
    assert found == [
        f"range [0, 0, 0, 0]..[0, 255, 27, 13] differs from the sources' bounding box {box} (channels placed by `channel`)"
    ]


def test_a_producer_frame_channel_change_is_no_finding() -> None:
    """A branch's own C range (producer frame) is replaced by its `channel`: changing it changes nothing."""
    document = _document()
    document["1"][12]["buffer"][2]["source"][1]["upper"][1] = 100
    assert _screened_and_found(document) == (False, [])
