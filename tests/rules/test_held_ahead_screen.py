"""GIR304's raw screen (`held_ahead_rows`): the workloads it flags are exactly those of the reference check's
findings on Gemini's own files, clean and edited where an input held ahead meets the next snapshot."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.rules.context import CheckContext
from irtools.rules.l2.snapshot_continuity import held_ahead_rows, raw_snapshot_continuity

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
REAL = sorted([*FIXTURES.glob("gemini-raw/*.json"), *FIXTURES.glob("gemini-alloc/*.json")])
SAMPLES = sorted((ROOT / "sample_ir" / "invalid" / "raw-alloc").glob("GIR304-*[!d].json"))
RESNET = FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json"


def _rows(source: str | Path | bytes) -> tuple[list[int], list[int]]:
    """The screen's rows, and the rows of the reference check's findings, on the whole file."""
    index = IRIndex(load_ir(source, "<edited>" if isinstance(source, bytes) else None), RunOptions())
    row_of = {ref.pointer: row for row, ref in enumerate(index.rows)}
    found = raw_snapshot_continuity(index, CheckContext(RunOptions()))
    rows = held_ahead_rows(index)
    assert rows is not None
    return rows, sorted({row_of["/".join(f.pointer.split("/")[:3])] for f in found})


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_the_screen_flags_nothing_on_gemini_files_whose_inputs_reach_their_readers(path: Path) -> None:
    # Every input held ahead in these files is in each snapshot until its reader's: the check is skipped.
    assert _rows(path) == ([], [])


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_screen_flags_the_samples_workloads_the_reference_reports(path: Path) -> None:
    screened, found = _rows(path)
    assert screened == found
    assert bool(found) == ("held" in path.name)  # the other sample's finding is start_loading's (main form)


def _held_entries(doc: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(core, position, entry) of every input held for a workload other than its own, not at a core's end."""
    return [
        (core, position, i)
        for core, workloads in doc.items()
        if core != "-1" and core.isdigit()
        for position, workload in enumerate(workloads[:-1])
        for i, entry in enumerate(workload["buffer"])
        if entry.get("workload_id") not in (None, workload["workload_id"])
    ]


def _its_next(doc: dict[str, Any], core: str, position: int, i: int) -> dict[str, Any]:
    """The next snapshot's entry that holds this one's tensor (same layer, workload, ids)."""
    entry = doc[core][position]["buffer"][i]
    return next(
        e
        for e in doc[core][position + 1]["buffer"]
        if (e.get("workload_id"), e["layer"], e.get("transfer_id"))
        == (entry["workload_id"], entry["layer"], entry.get("transfer_id"))
    )


EDITS = {
    "ids-nested": lambda e: e.update(transfer_id=[[t] for t in e.get("transfer_id") or []]),  # same ids: held
    "one-id-more": lambda e: e.update(transfer_id=[*(e.get("transfer_id") or []), 99999]),
    "another-id-first": lambda e: e.update(transfer_id=[99999, *(e.get("transfer_id") or [])]),
    "last-id-other": lambda e: e.update(transfer_id=[*(e.get("transfer_id") or [0])[:-1], 99999]),
    "other-layer": lambda e: e.update(layer=e["layer"] + "_x"),
    "other-workload": lambda e: e.update(workload_id=e["workload_id"] + 1),
    "no-workload": lambda e: e.update(workload_id=None),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_next_snapshot_is_flagged_as_the_reference_finds_it(edit: str) -> None:
    doc = json.loads(RESNET.read_text())
    held = _held_entries(doc)
    assert len(held) > 100
    for core, position, i in held[::20]:
        edited = copy.deepcopy(doc)
        EDITS[edit](_its_next(edited, core, position, i))
        screened, found = _rows(json.dumps(edited).encode())
        assert screened == found, (core, position, i)
        row = sum(len(edited[c]) for c in edited if c.isdigit() and int(c) < int(core)) + position
        assert (row in found) == (edit != "ids-nested"), (core, position, i)


def test_an_input_held_for_a_workload_not_on_its_core_is_flagged_though_the_next_snapshot_holds_it() -> None:
    doc = json.loads(RESNET.read_text())
    for core, position, i in _held_entries(doc)[::20]:
        edited = copy.deepcopy(doc)
        _its_next(edited, core, position, i)["workload_id"] = 99999
        edited[core][position]["buffer"][i]["workload_id"] = 99999
        screened, found = _rows(json.dumps(edited).encode())
        assert screened == found
        row = sum(len(edited[c]) for c in edited if c.isdigit() and int(c) < int(core)) + position
        assert row in found, (core, position, i)


def test_an_entry_held_for_no_workload_lists_nothing_held_for_workload_0() -> None:
    # A null `workload_id` is no id: the next snapshot's null-tagged copy does not list an input held for 0.
    doc = json.loads(RESNET.read_text())
    core, position, i = _held_entries(doc)[0]
    _its_next(doc, core, position, i)["workload_id"] = None
    doc[core][position]["buffer"][i]["workload_id"] = 0
    doc[core][position + 1]["workload_id"] = 0  # workload 0 runs next: the input is held for it
    screened, found = _rows(json.dumps(doc).encode())
    assert screened == found
    assert len(found) == 1
