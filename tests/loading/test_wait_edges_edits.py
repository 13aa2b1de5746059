"""The wait graph from the columns (loading/waits.py) against the reference walk, on the small raw file
edited at the places the columnar code treats apart: DRAM read-backs (the last writer of a transfer id,
the last `out` entry of one, a writer with the file's top workload id, ids no writer has, no writer at
all) and a cross-core read of the file's first workload (row 0)."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest

from irtools.loading.graph import wait_graph
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.waits import reference_wait_arrays, wait_arrays, wait_edges
from irtools.reference import reference_core
from tests.mutants.edits import Doc, raw_doc

WEIGHT_OUT = 7
"""The DRAM `out` entry of transfer 17, the weight core 1's workloads 10, 12 and 14 read."""


def _read_back(*written: int) -> Callable[[Doc], None]:
    def edit(doc: Doc) -> None:
        doc["-1"]["out"][WEIGHT_OUT]["related_ifmap"] = list(written)

    return edit


def _two_out_entries(doc: Doc) -> None:
    """Transfer 17 listed twice: the reference keeps the last entry's writers (transfer 25's, wl 16)."""
    _read_back(29)(doc)
    doc["-1"]["out"].append(doc["-1"]["out"][WEIGHT_OUT] | {"related_ifmap": [25]})


def _no_writer(doc: Doc) -> None:
    _read_back(29)(doc)
    doc["-1"]["in"] = []


def _row0_read_across(doc: Doc) -> None:
    doc["2"][0]["ifmap"]["transfer_id"] = [3, 2]  # core 2's first workload also reads core 1's row 0


def _no_workloads(doc: Doc) -> None:
    for key in [k for k in doc if k.isdigit()]:
        doc[key] = []  # the DRAM section still sends to cores


EDITS: dict[str, tuple[Callable[[Doc], None], set[tuple[tuple[int, int], tuple[int, int]]]]] = {
    "read back": (_read_back(29), {((1, 20), (1, 10)), ((1, 20), (1, 14))}),
    "writer with the top workload id": (_read_back(30), {((2, 21), (1, 12))}),
    "the last out entry counts": (_two_out_entries, {((1, 16), (1, 10))}),
    "an id above every written one": (_read_back(29, 99), {((1, 20), (1, 12))}),
    "no writer known": (_no_writer, set()),
    "row 0 read on another core": (_row0_read_across, {((1, 0), (2, 1))}),
    "no workloads": (_no_workloads, set()),
}


def _index(edit: Callable[[Doc], None]) -> IRIndex:
    doc = raw_doc()
    edit(doc)
    loaded = load_ir(json.dumps(doc).encode(), "edited.json")
    assert loaded.ir is not None
    return IRIndex(loaded)


def _pairs(src: np.ndarray, dst: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(src.tolist(), dst.tolist(), strict=True))


@pytest.mark.parametrize("name", EDITS)
def test_the_columns_give_the_reference_edges(name: str) -> None:
    edit, expected = EDITS[name]
    index = _index(edit)
    _, lists = wait_graph(index)
    reference = {(a, b) for a, targets in enumerate(lists) for b in targets}
    edges = wait_edges(index)
    assert edges is not None and _pairs(*edges) == reference
    ids = [(ref.core_id, ref.workload_id) for ref in index.rows]
    named = {(ids[a], ids[b]) for a, b in reference}
    assert expected <= named, "the edit's own waits"
    if name == "the last out entry counts":
        assert ((1, 20), (1, 10)) not in named  # the first entry's writer is not waited for
    if name == "no writer known":
        assert not any(a[1] >= 16 and b[1] < 16 for a, b in named)  # no DRAM wait at all


def test_the_reference_core_walks_the_models() -> None:
    index = _index(_read_back(29))
    fast = wait_arrays(index)
    with reference_core():
        slow = wait_arrays(index)
    assert _pairs(*slow) == _pairs(*reference_wait_arrays(index)) == _pairs(*fast)
    assert len(slow[0]) == sum(len(targets) for targets in wait_graph(index)[1])  # every edge, once each
