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
from tests.mutants.edits import Doc, check, edited, raw_doc, rows


class Screened(NamedTuple):
    """One raw file, the rows GIR204's raw screen flags and the GIR204 pointers found there."""

    id: str
    doc: Callable[[], Doc]
    flagged: list[int]
    pointers: list[str]


def _edit(*edits: tuple[tuple[str | int, ...], object]) -> Callable[[], Doc]:
    return lambda: edited(raw_doc(), *edits)


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
]


@pytest.mark.parametrize("case", RAW_SCREEN, ids=[c.id for c in RAW_SCREEN])
def test_gir204_raw_screen_flags_exactly_the_rows_of_the_findings(case: Screened, tmp_path: Path) -> None:
    doc = case.doc()
    assert [ptr for _, ptr, _ in rows(check(tmp_path, doc), "GIR204")] == case.pointers
    path = tmp_path / "screened.json"
    path.write_text(json.dumps(doc))
    assert max_workload_rows(IRIndex(load_ir(str(path)))) == case.flagged
