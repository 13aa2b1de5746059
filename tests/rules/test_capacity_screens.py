"""The screens of the capacity and alignment rules (GIR301's raw and alloc forms, GIR308, GIR401, GIR402):
on the real files and the samples, at sizes taken from each file's own ends, a screen of workloads flags
exactly the workloads of the reference check's findings, and a screen of cores (GIR301's forms, which
report once per core) flags workloads of exactly the cores the check reports, the reported one among them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from irtools.dialects.base import Capability
from irtools.findings import Finding
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.rules.context import CheckContext
from irtools.rules.l2.buffer_out_of_bounds import (
    addresses_over_capacity,
    blocks_over_capacity,
    blocks_over_rows,
    past_the_end_rows,
)
from irtools.rules.l2.misaligned_address import misaligned_address, misaligned_rows
from irtools.rules.wl0.wl0_capacity import past_wl0_rows, wl0_capacity
from irtools.rules.wl0.wl0_overlap import overlapping_rows, wl0_overlap

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
SAMPLES = [p for p in (ROOT / "sample_ir").glob("*valid/*.json") if not p.name.endswith(".expected.json")]
DOCUMENTED = sorted([*FIXTURES.glob("gemini/*.json"), *SAMPLES])
RAW = sorted(FIXTURES.glob("gemini-raw/*.json"))
ALLOC = sorted(FIXTURES.glob("gemini-alloc/*.json"))
RAW_ALLOC_SAMPLES = sorted(
    p
    for p in (ROOT / "sample_ir" / "invalid" / "raw-alloc").glob("*.json")
    if not p.name.endswith(".expected.json")
)

Check = Callable[[IRIndex, CheckContext], Iterator[Finding]]
Screen = Callable[[IRIndex], "list[int] | None"]


def _index(path: Path, options: RunOptions | None = None) -> IRIndex:
    loaded = load_ir(path)
    if loaded.ir is None:
        pytest.skip("does not load (a sample of a load error)")
    return IRIndex(loaded, options)


def _finding_rows(index: IRIndex, check: Check) -> list[int]:
    row_of = {ref.pointer: row for row, ref in enumerate(index.rows)}
    found = check(index, CheckContext(index.options))
    return sorted({row_of["/".join(f.pointer.split("/")[:3])] for f in found})


def _exact(index: IRIndex, screen: Screen, check: Check) -> list[int]:
    """The screen's rows, asserted equal to the reference's rows; returned so a case can say it flagged some."""
    rows = screen(index)
    assert rows == _finding_rows(index, check)
    return rows


def _same_cores(index: IRIndex, screen: Screen, check: Check) -> list[int]:
    """A screen of cores: its rows lie in exactly the cores the check reports, the reported rows among them."""
    rows = screen(index)
    assert rows is not None
    found = _finding_rows(index, check)
    assert set(found) <= set(rows)
    assert {index.rows[r].core_id for r in rows} == {index.rows[r].core_id for r in found}
    return rows


def _ends(index: IRIndex, entries: Callable[[IRIndex], list[tuple[int, int]]]) -> list[int]:
    """Sizes that put the ends of `entries` (address, size) on either side: the largest end (nothing past
    it), one byte less (the entries ending there), and the median end."""
    ends = sorted({address + size for address, size in entries(index)})
    return sorted({ends[-1], ends[-1] - 1, ends[len(ends) // 2]}) if ends else []


def _wl0(index: IRIndex) -> list[tuple[int, int]]:
    return [(e.address, e.size) for ref in index.workloads() for e in ref.workload.wl0_entries]


def _placed(index: IRIndex) -> list[tuple[int, int]]:
    return [(e.address, e.size) for ref in index.workloads() for e in index.placed(ref)]


@pytest.mark.parametrize("path", DOCUMENTED, ids=lambda p: p.name)
def test_wl0_screens_flag_the_workloads_the_reference_reports(path: Path) -> None:
    index = _index(path)
    if not index.has(Capability.WL0):
        pytest.skip("no WL0 in this dialect")
    _exact(index, overlapping_rows, wl0_overlap)
    for size in _ends(index, _wl0):
        sized = _index(path, RunOptions(wl0_size=size))
        flagged = _exact(sized, past_wl0_rows, wl0_capacity)
        # The largest end fits a WL0 of that size; one byte less and its weights end past it.
        assert bool(flagged) == (size < max(a + s for a, s in _wl0(index)))


def test_the_overlap_screen_flags_the_sample_weight() -> None:
    # The sample's weight [transfer 3] at [0x0, 0x380) overlaps [transfer 2] at [0x200, 0x580).
    index = _index(ROOT / "sample_ir" / "invalid" / "GIR401-wl0-overlap.json")
    assert _exact(index, overlapping_rows, wl0_overlap)


def test_the_overlap_screen_ignores_empty_weights_and_touching_ends() -> None:
    # Weights that touch ([a, b) then [b, c)) or are empty at a busy address do not overlap.
    index = _index(ROOT / "sample_ir" / "invalid" / "GIR401-wl0-overlap.json")
    for ref in index.workloads():
        entries = ref.workload.wl0_entries
        if len(entries) > 1:
            entries[0].address, entries[0].size = 0, 0x200
            entries[1].address, entries[1].size = 0x200, 0x100
            for e in entries[2:]:
                e.address, e.size = 0x100, 0
    assert _exact(index, overlapping_rows, wl0_overlap) == []


ADDRESSED_SAMPLES = [p for p in RAW_ALLOC_SAMPLES if "-alloc-" in p.name]
"""The allocated samples (the raw ones hold no L2 address)."""


@pytest.mark.parametrize("path", [*DOCUMENTED, *ALLOC, *ADDRESSED_SAMPLES], ids=lambda p: p.name)
@pytest.mark.parametrize("align", [64, 1024, 8192])
def test_the_alignment_screen_flags_the_workloads_the_reference_reports(path: Path, align: int) -> None:
    index = _index(path, RunOptions(addr_align=align))
    assert index.has(Capability.L2_ADDRESSES)
    _exact(index, misaligned_rows, misaligned_address)


def test_the_alignment_screen_flags_the_samples_wrapping_ifmap() -> None:
    # Every L2 address of the sample is a multiple of 8 KiB but core 0's wrapping ifmap at 0x7f000.
    path = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
    assert _exact(_index(path, RunOptions(addr_align=8192)), misaligned_rows, misaligned_address) == [0]


@pytest.mark.parametrize("path", [*RAW, *ALLOC], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_l2_capacity_screens_flag_the_cores_the_reference_reports(path: Path) -> None:
    index = _index(path)
    alloc = path.parent.name == "gemini-alloc"
    screen, check = (
        (past_the_end_rows, addresses_over_capacity) if alloc else (blocks_over_rows, blocks_over_capacity)
    )
    if alloc:
        sizes = _ends(index, _placed)
    else:
        held = sorted({sum(e.block for e in index.raw(ref).buffer) * 1024 for ref in index.workloads()})
        sizes = sorted({held[-1], held[-1] - 1, held[len(held) // 2]})
    flagged = [_same_cores(_index(path, RunOptions(l2_size=size)), screen, check) for size in sizes]
    # The largest need fits an L2 of that size; one byte less and its core is reported.
    assert [bool(rows) for rows in flagged] == [size < sizes[-1] for size in sizes]


def test_the_l2_capacity_screens_flag_nothing_without_a_size() -> None:
    for path in [*RAW[:1], *ALLOC[:1]]:
        index = _index(path)
        assert blocks_over_rows(index) == [] and past_the_end_rows(index) == []
