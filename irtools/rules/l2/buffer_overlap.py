"""GIR302 buffer-overlap: two tensors of one L2 snapshot share addresses while both are live."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.loading.l2 import place, regions_of
from irtools.model.view import PlacedEntry
from irtools.rules.context import CheckContext
from irtools.rules.l2.common import describe, loc, segments_text
from irtools.rules.l2.placements import L2_LIMIT, placements
from irtools.rules.registry import rule


def overlap_message(
    a: str, a_segments: Sequence[tuple[int, int]], b: str, b_segments: Sequence[tuple[int, int]]
) -> str:
    """GIR302's message: two tensors (as tensor_text names them) and the L2 bytes each occupies."""
    return f"{a} {segments_text(a_segments)} overlaps {b} {segments_text(b_segments)}"


def overlap_rows(ir: IRIndex) -> list[int] | None:
    """GIR302's screen: workloads in whose snapshot two placed pieces share addresses (sort and sweep)."""
    placed = placements(ir)
    if placed is None:
        return None
    keep = placed.end > placed.start
    row, start, end = placed.row[keep], placed.start[keep], placed.end[keep]
    # Offset by row so one sort and one running maximum cover every snapshot at once.
    start, end = row * 2 * L2_LIMIT + start, row * 2 * L2_LIMIT + end
    order = np.lexsort((end, start))
    start, end, row = start[order], end[order], row[order]
    reach = np.maximum.accumulate(end)
    overlaps = np.flatnonzero(start[1:] < reach[:-1]) + 1
    return flagged_rows([row[overlaps], placed.several])


@rule(
    "GIR302",
    "buffer-overlap",
    Severity.ERROR,
    needs={Capability.L2_ADDRESSES},
    screen=overlap_rows,
    per_core=True,
)
def buffer_overlap(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Two tensors of one L2 snapshot share addresses while both are live.

    Address ranges are wrap-aware: a tensor that wraps around its ring region occupies two
    pieces. Ranges that touch ([a, b) and [b, c)) do not overlap. A pair that overlaps in
    several consecutive snapshots is reported once, at its first snapshot, with the count.
    Why: the allocator must keep live tensors disjoint; an overlap means one tensor silently
    corrupts the other on hardware (a lifetime conflict that compilers' own checks can miss).
    Example: `/0/12/buffer/3: GIR302 error ifmap tensor 9 [transfer 56] [0x1000, 0x1400) overlaps weight tensor 4 [transfer 3] [0x1200, 0x1600)`
    Fix: the address allocator reused space that was still live.
    """
    runs: dict[tuple[int, int, int], _OverlapRun] = {}
    for ref in ir.workloads():
        regions = regions_of(ref.workload.ring_buffer_info, ir.buffersize)
        pieces: list[tuple[int, int, int]] = []
        placements = []
        entries = ir.placed(ref)
        for i, entry in enumerate(entries):
            placement = place(entry.address, entry.size, regions, ir.buffersize)
            placements.append(placement)
            pieces.extend((a, b, i) for a, b in placement.segments if b > a)
        pieces.sort()
        reach_end, reach_idx = -1, -1
        pairs: set[tuple[int, int]] = set()
        for start, end, i in pieces:
            if start < reach_end and reach_idx != i:
                pairs.add((min(i, reach_idx), max(i, reach_idx)))
            if end > reach_end:
                reach_end, reach_idx = end, i
        for i, j in sorted(pairs):
            a, b = entries[i], entries[j]
            key = (ref.core_id, a.tensor_id, b.tensor_id)
            run = runs.get(key)
            if run is not None and run.last_position == ref.position - 1:
                run.last_position, run.count = ref.position, run.count + 1
                continue
            if run is not None:
                yield run.finding(ctx)
            message = overlap_message(
                describe(a), placements[i].segments, describe(b), placements[j].segments
            )
            pointers = (jp.extend(ref.pointer, "buffer", i), jp.extend(ref.pointer, "buffer", j))
            runs[key] = _OverlapRun(message, *pointers, ref, a, ref.position)
    for run in runs.values():
        yield run.finding(ctx)


@dataclass(slots=True)
class _OverlapRun:
    """One overlapping pair over consecutive snapshots of a core, reported once."""

    message: str
    pointer: str
    other: str
    ref: WorkloadRef
    entry: PlacedEntry
    last_position: int
    count: int = 1

    def finding(self, ctx: CheckContext) -> Finding:
        tail = f" (in {self.count} consecutive snapshots)" if self.count > 1 else ""
        return ctx.finding(
            "GIR302", self.message + tail, self.pointer, **loc(self.ref, self.entry), related=(self.other,)
        )
