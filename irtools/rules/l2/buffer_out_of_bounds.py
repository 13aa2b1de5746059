"""GIR301 buffer-out-of-bounds: an L2 tensor outside the buffer or its ring region; on files that record
no L2 size (raw, alloc), each core's L2 need against the size the user gives.

The raw and alloc forms report one finding per core that exceeds it, at the snapshot where its need
peaks: a per-tensor finding would repeat the same fact for every tensor placed above the end.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, tensor_columns
from irtools.loading.index import IRIndex, single_transfer
from irtools.loading.l2 import place, regions_of
from irtools.rules.context import CheckContext
from irtools.rules.l2.common import describe, loc
from irtools.rules.l2.placements import placements
from irtools.rules.registry import rule, variant

KIB = 1024


def out_of_bounds_rows(ir: IRIndex) -> list[int] | None:
    """GIR301's screen: workloads with an L2 entry outside the buffer or its ring region."""
    placed = placements(ir)
    if placed is None:
        return None
    entries = len(tensor_columns(ir).buffers)
    return flagged_rows([placed.row[:entries][placed.problem], placed.several])


@rule(
    "GIR301",
    "buffer-out-of-bounds",
    Severity.ERROR,
    needs={Capability.L2_ADDRESSES, Capability.RING_REGIONS, Capability.L2_SIZE},
    screen=out_of_bounds_rows,
    per_core=True,
)
def buffer_out_of_bounds(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """An L2 tensor lies outside [0, buffersize) or outside a single ring region.

    A tensor must start inside one ring region; if it runs past the region's end it wraps to
    the region's start (ring_buffer_info pairs read as [start, end)), so it may not be larger
    than its region.
    Why: an address past the buffer or across regions corrupts another region's data or
    faults on hardware.
    Example: `/0/4/buffer/2: GIR301 error ifmap tensor 7 [transfer 40]: starts at 0x800000, past buffersize 0x800000`
    On files that record no L2 size (raw, alloc) it runs with `--l2-size`, once per core that exceeds
    it: on block counts (raw), a warning at the snapshot listing the most blocks (IR_gen lists inputs
    whole and held ahead for later workloads, while the scheduler tiles tensors larger than the L2: the
    sum is what an allocator taking the file as written must place, not proof the schedule overflows);
    on block addresses (alloc), the entry reaching the highest block, with the most blocks held at once
    and how many entries end past it.
    Fix: the allocator must keep tensors inside their ring region (or the schedule needs a larger L2).
    """
    for ref in ir.workloads():
        regions = regions_of(ref.workload.ring_buffer_info, ir.buffersize)
        for i, entry in enumerate(ir.placed(ref)):
            problem = place(entry.address, entry.size, regions, ir.buffersize).problem
            if problem:
                yield ctx.finding(
                    "GIR301",
                    f"{describe(entry)}: {problem}",
                    jp.extend(ref.pointer, "buffer", i),
                    **loc(ref, entry),
                )


def blocks_over_rows(ir: IRIndex) -> list[int] | None:
    """The raw form's screen: workloads whose snapshot lists more blocks than the L2 size (none without
    one); the check then looks at their cores whole."""
    size = ir.l2_size
    if size is None:
        return []
    buffers = tensor_columns(ir).buffers
    blocks = buffers.ints("block")
    if blocks is None or (len(blocks) and int(blocks.min()) < 0):
        return None
    if int(blocks.sum(dtype=np.float64)) >= 2**52:
        return None  # a snapshot's sum might not be exact in int64 arithmetic below
    held = np.zeros(len(ir.rows), dtype=np.int64)
    np.add.at(held, buffers.row, blocks)
    return np.flatnonzero(held * KIB > size).tolist()


def _blocks(n_bytes: int) -> str:
    return f"{n_bytes // KIB:,} blocks ({n_bytes:,} B)" if n_bytes % KIB == 0 else f"{n_bytes:,} B"


@variant(
    "GIR301",
    needs={Capability.BLOCK_COUNTS, Capability.L2_SIZE},
    screen=blocks_over_rows,
    whole_file=True,
    per_core=True,
)
def blocks_over_capacity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR301 on block counts without addresses: a snapshot lists more 1 KiB blocks than the L2 size.

    A warning, not an error: SchNode::IR_gen lists each input whole (`block` = ceil(bytes / 1024)),
    every ofmap as its 10-block staging buffer, and inputs held ahead (one from a core from its
    producer's workload on, one from DRAM in the snapshot before its reader's), while the scheduler
    itself tiles a layer whose input or weight exceeds the L2 (`fetch`, which the IR does not record).
    So the sum is what an allocator must place to take the file as written (the SET allocator's lower
    bound, and the overflow it then writes), not proof that the schedule does not fit.
    """
    size = ir.l2_size
    if size is None:
        return
    for core_id, refs in ir.cores.items():
        held = [sum(b.block for b in ir.raw(ref).buffer) * KIB for ref in refs]
        over = sum(1 for h in held if h > size)
        if not over:
            continue
        peak = max(held)
        ref = refs[held.index(peak)]
        yield ctx.finding(
            "GIR301",
            f"snapshot lists {_blocks(peak)}, more than the L2 size of {_blocks(size)}; "
            f"{over} of the core's {len(refs)} snapshots exceed{'s' if over == 1 else ''} it: an allocator "
            "taking the file as written (whole tensors, inputs held ahead) overflows this core; the "
            "scheduler tiles tensors larger than the L2, which the IR does not record",
            jp.extend(ref.pointer, "buffer"),
            core_id=core_id,
            workload_id=ref.workload_id,
            severity=Severity.WARNING,
        )


def past_the_end_rows(ir: IRIndex) -> list[int] | None:
    """The alloc form's screen: workloads with an entry ending past the L2 size (none without one); the
    check then looks at their cores whole."""
    size = ir.l2_size
    if size is None:
        return []
    buffers = tensor_columns(ir).buffers
    start, extent = buffers.ints("address"), buffers.ints("size")
    if start is None or extent is None:
        return None
    if len(start) and max(abs(int(start.min())), int(start.max()), int(extent.max())) >= 2**62:
        return None  # their sum might overflow int64
    return flagged_rows([buffers.row[start + extent > size]])


@variant(
    "GIR301",
    needs={Capability.L2_ADDRESSES, Capability.BLOCK_COUNTS, Capability.L2_SIZE},
    screen=past_the_end_rows,
    whole_file=True,
    per_core=True,
)
def addresses_over_capacity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR301 on allocated block addresses: a core's tensors reach past the L2 size."""
    size = ir.l2_size
    if size is None:
        return
    for refs in ir.cores.values():
        top, top_at = 0, None
        held_peak = 0
        past_entries, past_snapshots = 0, 0
        for ref in refs:
            entries = ir.placed(ref)
            held_peak = max(held_peak, sum(e.size for e in entries))
            past = 0
            for i, e in enumerate(entries):
                end = e.address + e.size
                past += end > size
                if end > top:
                    top, top_at = end, (ref, i)
            past_entries += past
            past_snapshots += past > 0
        if top <= size or top_at is None:
            continue
        ref, i = top_at
        yield ctx.finding(
            "GIR301",
            past_the_end_message(top, size, held_peak, past_entries, past_snapshots, len(refs)),
            jp.extend(ref.pointer, "buffer", i),
            core_id=ref.core_id,
            workload_id=ref.workload_id,
            transfer_id=single_transfer(ref.workload.buffer[i].transfer_id or []),
        )


def past_the_end_message(top: int, size: int, held: int, entries: int, snapshots: int, of: int) -> str:
    """GIR301's message (alloc): the highest L2 byte a core's addresses reach against the L2 size, the most
    bytes held at once, and how many entries in how many of its `of` snapshots end past it."""
    return (
        f"addresses reach {_blocks(top)} here, past the L2 size of {_blocks(size)} "
        f"(at most {_blocks(held)} held at once); {_count(entries, 'entry', 'entries')} in "
        f"{snapshots} of the core's {of} snapshots end past it"
    )


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
