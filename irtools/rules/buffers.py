"""GIR3xx: L2 buffer snapshots: bounds, ring regions, lifetime overlaps, continuity and contents."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.dialects.documented import BufferEntry, IfmapTensor
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, WorkloadRef, inverted, single_transfer
from irtools.loading.l2 import place, regions_of
from irtools.model.view import BufferView, PlacedEntry
from irtools.reference import fast_path
from irtools.rules.context import CheckContext, id_list, short
from irtools.rules.registry import rule
from irtools.rules.screens import (
    continuity_rows,
    cur_wl_ifmap_rows,
    flagged_or_none,
    out_of_bounds_rows,
    overlap_rows,
    screened,
    size_mismatch_rows,
    source_union_rows,
)


def _loc(ref: WorkloadRef, entry: BufferView | None = None) -> dict[str, Any]:
    ids = (entry.transfer_id or []) if entry is not None else []
    return {"core_id": ref.core_id, "workload_id": ref.workload_id, "transfer_id": single_transfer(ids)}


def tensor_text(type_: str, tensor_id: int, transfer_ids: Sequence[int], layer_name: str | None) -> str:
    """How GIR3xx messages name an L2 tensor: `ifmap tensor 0 [transfer 10,11] (Conv_1)` (synth too)."""
    ids = id_list(transfer_ids) or "-"
    layer = f" ({short(layer_name)})" if layer_name else ""
    return f"{type_} tensor {tensor_id} [transfer {ids}]{layer}"


def segments_text(segments: Sequence[tuple[int, int]]) -> str:
    """A tensor's L2 byte ranges as `[0x0, 0x4000)`, two joined by ` + ` when it wraps around its region."""
    return " + ".join(f"[{a:#x}, {b:#x})" for a, b in segments)


def overlap_message(
    a: str, a_segments: Sequence[tuple[int, int]], b: str, b_segments: Sequence[tuple[int, int]]
) -> str:
    """GIR302's message: two tensors (as tensor_text names them) and the L2 bytes each occupies."""
    return f"{a} {segments_text(a_segments)} overlaps {b} {segments_text(b_segments)}"


def region_past_end_message(start: int, end: int, buffersize: int) -> str:
    """GIR303's message for a ring region that reaches past the buffer."""
    return f"region [{start:#x}, {end:#x}) ends past buffersize {buffersize:#x}"


def ring_reading_note(start: int, end: int) -> str:
    """GIR303's note (info) on how a ring_buffer_info pair not starting at 0 is read, and the other reading."""
    return (
        f"ring_buffer_info pair [{start:#x}, {end:#x}] read as [start, end) = [{start:#x}, {end:#x}); "
        f"read as [start, size] it would be [{start:#x}, {start + end:#x})"
    )


def source_ids_message(transfer_ids: Sequence[int], source_ids: Sequence[int]) -> str:
    """GIR305's message for an entry whose transfer ids are not its sources' ids."""
    return f"transfer_id [{id_list(transfer_ids, ', ')}] differs from the sources' ids [{id_list(source_ids, ', ')}]"


def source_box_message(
    lower: Sequence[int], upper: Sequence[int], box_lower: Sequence[int], box_upper: Sequence[int]
) -> str:
    """GIR305's message for an entry whose range is not its sources' bounding box."""
    return f"range {list(lower)}..{list(upper)} differs from the sources' bounding box {list(box_lower)}..{list(box_upper)}"


def size_mismatch_message(size: int, lower: list[int], upper: list[int], align: int, bitwidth: int) -> str:
    """GIR307's message: the fmap's size against N x roundup(C, align) x H x W x bitwidth/8, spelled out."""
    n, c, h, w = (hi - lo + 1 for lo, hi in zip(lower, upper, strict=True))
    expected = expected_fmap_size(lower, upper, align, bitwidth)
    return f"size {size} differs from {n} x roundup({c}, {align}) x {h} x {w} x {bitwidth}/8 = {expected}"


NOT_NEW_BUT_ABSENT = "is marked not newly added but was absent before"
"""GIR304's problem with a tensor marked not newly added that the previous snapshot lacks."""


def new_but_present(address: int) -> str:
    """GIR304's problem with a tensor marked newly added that the previous snapshot held at the same address."""
    return f"is marked newly added but was already present at {address:#x}"


def flagged_without_ifmap(ifmap_transfer_ids: Sequence[int]) -> str:
    """GIR306's problem with an entry flagged cur_wl_ifmap that holds none of the workload's ifmap transfers."""
    return (
        f"is flagged cur_wl_ifmap but holds none of the ifmap transfers [{id_list(ifmap_transfer_ids, ', ')}]"
    )


def unflagged_ifmap(held_ids: Sequence[int]) -> str:
    """GIR306's problem with an ifmap entry that holds the workload's ifmap transfers but is not flagged."""
    return f"holds ifmap transfers [{id_list(held_ids, ', ')}] but is not flagged cur_wl_ifmap"


def misaligned_message(address: int, align: int) -> str:
    """GIR308's message for an L2 address off the --addr-align grid."""
    return f"address {address:#x} is not a multiple of {align}"


def _describe(entry: PlacedEntry) -> str:
    return tensor_text(entry.type, entry.tensor_id, entry.transfer_id or [], entry.layer_name)


def _buffer_out_of_bounds_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        regions = regions_of(ref.workload.ring_buffer_info, ir.buffersize)
        for i, entry in enumerate(ir.placed(ref)):
            problem = place(entry.address, entry.size, regions, ir.buffersize).problem
            if problem:
                yield ctx.finding(
                    "GIR301",
                    f"{_describe(entry)}: {problem}",
                    jp.extend(ref.pointer, "buffer", i),
                    **_loc(ref, entry),
                )


@rule(
    "GIR301",
    "buffer-out-of-bounds",
    Severity.ERROR,
    needs={Capability.L2_ADDRESSES, Capability.RING_REGIONS, Capability.L2_SIZE},
)
@fast_path(reference=_buffer_out_of_bounds_reference)
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
    whole and the next workload's held ahead, while the scheduler tiles tensors larger than the L2: the
    sum is what an allocator taking the file as written must place, not proof the schedule overflows);
    on block addresses (alloc), the entry reaching the highest block, with the most blocks held at once
    and how many entries end past it.
    Fix: the allocator must keep tensors inside their ring region (or the schedule needs a larger L2).
    """
    return screened(ir, ctx, out_of_bounds_rows, _buffer_out_of_bounds_reference)


def _buffer_overlap_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
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
                _describe(a), placements[i].segments, _describe(b), placements[j].segments
            )
            pointers = (jp.extend(ref.pointer, "buffer", i), jp.extend(ref.pointer, "buffer", j))
            runs[key] = _OverlapRun(message, *pointers, ref, a, ref.position)
    for run in runs.values():
        yield run.finding(ctx)


@rule("GIR302", "buffer-overlap", Severity.ERROR, needs={Capability.L2_ADDRESSES})
@fast_path(reference=_buffer_overlap_reference)
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
    return screened(ir, ctx, overlap_rows, _buffer_overlap_reference)


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
            "GIR302", self.message + tail, self.pointer, **_loc(self.ref, self.entry), related=(self.other,)
        )


@rule("GIR303", "ring-config", Severity.ERROR, needs={Capability.RING_REGIONS})
def ring_config(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Ring-buffer regions overlap, are empty, or leave [0, buffersize).

    `ring_buffer_info` pairs are read as [start, end). When a file has a region that does not
    start at 0 the [start, size] reading would differ; an info finding says which was used.
    Each distinct misconfiguration is reported once, at the first workload that has it.
    Why: regions partition L2 for the ring allocator; overlapping or out-of-range regions
    let two rings write the same bytes.
    Example: `/0/0/ring_buffer_info/1: GIR303 error region [0x400000, 0x300000) is empty`
    Fix: correct ring_buffer_info in the scheduler configuration.
    """
    seen: set[tuple[tuple[int, int], ...]] = set()
    ambiguous: tuple[str, int, int] | None = None
    for ref in ir.workloads():
        info = ref.workload.ring_buffer_info
        config = tuple((r[0], r[1]) for r in info)
        if config in seen:
            continue
        seen.add(config)
        base = jp.extend(ref.pointer, "ring_buffer_info")
        order = sorted(range(len(config)), key=lambda k: config[k])
        for k, (start, end) in enumerate(config):
            if start != 0 and ambiguous is None:
                ambiguous = (jp.extend(base, k), start, end)
            problem = None
            if end <= start:
                problem = f"region [{start:#x}, {end:#x}) is empty"
            elif ir.buffersize is not None and end > ir.buffersize:
                problem = region_past_end_message(start, end, ir.buffersize)
            if problem:
                yield ctx.finding("GIR303", problem, jp.extend(base, k), **_loc(ref))
        for a, b in itertools.pairwise(order):
            if config[b][0] < config[a][1] and config[a][1] > config[a][0] and config[b][1] > config[b][0]:
                yield ctx.finding(
                    "GIR303",
                    f"region [{config[a][0]:#x}, {config[a][1]:#x}) overlaps region [{config[b][0]:#x}, {config[b][1]:#x})",
                    jp.extend(base, b),
                    **_loc(ref),
                )
    if ambiguous is not None:
        ptr, start, end = ambiguous
        yield ctx.finding(
            "GIR303",
            ring_reading_note(start, end),
            ptr,
            severity=Severity.INFO,
        )


def _snapshot_continuity_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for refs in ir.cores.values():
        previous: dict[int, PlacedEntry] | None = None
        for ref in refs:
            if ref.pointer in ir.incomplete:
                previous = None  # a snapshot with skipped entries cannot be compared either way
                continue
            if not ir.follows(ref):
                previous = None  # the snapshot before it in the file was left out
            current: dict[int, PlacedEntry] = {}
            for i, entry in enumerate(ir.placed(ref)):
                current.setdefault(entry.tensor_id, entry)
                if entry.newly_added is None or previous is None:
                    continue
                before = previous.get(entry.tensor_id)
                problem = None
                if entry.newly_added is False and before is None:
                    problem = NOT_NEW_BUT_ABSENT
                elif entry.newly_added is False and before is not None and before.address != entry.address:
                    problem = f"moved from {before.address:#x} to {entry.address:#x} without being re-added"
                elif entry.newly_added is True and before is not None and before.address == entry.address:
                    problem = new_but_present(entry.address)
                if problem:
                    yield ctx.finding(
                        "GIR304",
                        f"{_describe(entry)} {problem}",
                        jp.extend(ref.pointer, "buffer", i, "newly_added"),
                        **_loc(ref, entry),
                    )
            previous = current


@rule("GIR304", "snapshot-continuity", Severity.WARNING, needs={Capability.NEWLY_ADDED})
@fast_path(reference=_snapshot_continuity_reference)
def snapshot_continuity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Consecutive L2 snapshots of a core disagree about a tensor (identified by tensor_id).

    Flags `newly_added: false` for a tensor absent from the previous snapshot, an address that
    changed without `newly_added: true`, and `newly_added: true` for a tensor that was already
    present at the same address. Entries without `newly_added` (DRAM-only outputs with
    `start_send`) are not compared.
    Why: the assembler loads exactly the newly added tensors; a wrong flag loads data twice or
    never.
    Example: `/0/5/buffer/1/newly_added: GIR304 warning ifmap tensor 3 [transfer 39] is marked not newly added but was absent before`
    On the raw dialect (no tensor ids, no addresses), an input listed ahead for the next
    workload (`workload_id`) must be for the workload that runs next and be in its snapshot. On the
    alloc dialect both forms run: `start_loading` is `newly_added`, for tensors numbered as the SET
    allocator's parser numbers them.
    Fix: recompute newly_added from the previous snapshot.
    """
    return flagged_or_none(ir, ctx, continuity_rows, _snapshot_continuity_reference)


def _source_union_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        for i, entry in enumerate(ref.workload.buffer):
            if not entry.source:
                continue
            ptr = jp.extend(ref.pointer, "buffer", i)
            ids = sorted({s.transfer_id for s in entry.source})
            if entry.transfer_id is not None and sorted(set(entry.transfer_id)) != ids:
                yield ctx.finding(
                    "GIR305",
                    source_ids_message(entry.transfer_id, ids),
                    ptr,
                    **_loc(ref, entry),
                )
            if len(entry.source) == 1:
                lower, upper = entry.source[0].lower, entry.source[0].upper
            else:
                lower = [min(s.lower[d] for s in entry.source) for d in range(4)]
                upper = [max(s.upper[d] for s in entry.source) for d in range(4)]
            if (lower, upper) != (entry.lower, entry.upper):
                yield ctx.finding(
                    "GIR305",
                    source_box_message(entry.lower, entry.upper, lower, upper),
                    ptr,
                    **_loc(ref, entry),
                )


@rule("GIR305", "source-union", Severity.WARNING)
@fast_path(reference=_source_union_reference)
def source_union(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A buffer entry's transfer ids or range differ from the union of its sources.

    The format document defines an entry's `transfer_id` list as the union of its sources'
    ids and its lower/upper as the bounding box of its sources' ranges.
    Why: the assembler finds a tensor's producers through its sources; a mismatch means part
    of the tensor is never fetched or is fetched from the wrong producer.
    Example: `/0/9/buffer/2: GIR305 warning transfer_id [56, 57] differs from the sources' ids [56]`
    On the raw dialect, sources give their range in the producer's frame and their place in the
    consumer's channels as `channel`; the box is compared in the consumer's frame, and an input
    entry with no source at all is reported.
    Fix: rebuild the entry from its sources.
    """
    return screened(ir, ctx, source_union_rows, _source_union_reference)


def _cur_wl_ifmap_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        wl = ir.documented(ref)
        wanted = {t for i in wl.ifmap for t in i.transfer_id}
        flagged: set[int] = set()
        for i, entry in enumerate(wl.buffer):
            ids = set(entry.transfer_id or ())
            ptr = jp.extend(ref.pointer, "buffer", i, "cur_wl_ifmap")
            if entry.cur_wl_ifmap:
                flagged |= ids
                if not ids & wanted:
                    yield ctx.finding(
                        "GIR306",
                        f"{_describe(entry)} {flagged_without_ifmap(sorted(wanted))}",
                        ptr,
                        **_loc(ref, entry),
                    )
            elif entry.type == "ifmap" and ids & wanted:
                yield ctx.finding(
                    "GIR306",
                    f"{_describe(entry)} {unflagged_ifmap(sorted(ids & wanted))}",
                    ptr,
                    **_loc(ref, entry),
                )
                flagged |= ids
        missing = sorted(wanted - flagged)
        if missing and wl.buffer and ref.pointer not in ir.incomplete:
            yield ctx.finding(
                "GIR306",
                f"ifmap transfers [{id_list(missing, ', ')}] are in no buffer entry flagged cur_wl_ifmap",
                jp.extend(ref.pointer, "ifmap"),
                **_loc(ref),
            )


@rule("GIR306", "cur-wl-ifmap", Severity.WARNING, needs={Capability.CUR_WL_FLAGS})
@fast_path(reference=_cur_wl_ifmap_reference)
def cur_wl_ifmap(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """`cur_wl_ifmap` flags disagree with the workload's ifmap transfer ids.

    An entry flagged `cur_wl_ifmap: true` must hold at least one of the workload's ifmap
    transfer ids (it may hold more: one L2 tensor can cover several ifmap pieces); an ifmap
    entry that holds one of them must be flagged; and every ifmap transfer id must sit in a
    flagged entry.
    Why: the assembler locates the current workload's inputs by this flag alone.
    Example: `/0/7/buffer/1/cur_wl_ifmap: GIR306 warning ifmap tensor 5 [transfer 41] is flagged cur_wl_ifmap but holds none of the ifmap transfers [40]`
    Fix: recompute the flags from the workload's ifmap list.
    """
    return screened(ir, ctx, cur_wl_ifmap_rows, _cur_wl_ifmap_reference)


def expected_fmap_size(lower: list[int], upper: list[int], align: int, bitwidth: int) -> int:
    """N x roundup(C, align) x H x W x bitwidth / 8, the size of an fmap tensor in L2."""
    n, c, h, w = (hi - lo + 1 for lo, hi in zip(lower, upper, strict=True))
    return n * (math.ceil(c / align) * align) * h * w * bitwidth // 8


def _size_mismatch_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        wl = ir.documented(ref)
        items: list[tuple[str, int, IfmapTensor | BufferEntry]] = [
            ("ifmap", i, t) for i, t in enumerate(wl.ifmap)
        ]
        items += [("buffer", i, b) for i, b in enumerate(wl.buffer) if b.type == "ifmap"]
        for key, i, t in items:
            if inverted(t.lower, t.upper):
                continue  # GIR504 reports inverted ranges
            if expected_fmap_size(t.lower, t.upper, t.align, t.bitwidth) != t.size:
                yield ctx.finding(
                    "GIR307",
                    size_mismatch_message(t.size, t.lower, t.upper, t.align, t.bitwidth),
                    jp.extend(ref.pointer, key, i, "size"),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=single_transfer(t.transfer_id or []),
                )


@rule("GIR307", "size-mismatch", Severity.WARNING, needs={Capability.ALIGN_BITWIDTH})
@fast_path(reference=_size_mismatch_reference)
def size_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """An fmap tensor's size differs from N x roundup(C, align) x H x W x bitwidth/8.

    Applies to ifmap-type L2 buffer entries and workload ifmap entries (weights carry
    BatchNorm parameters and ofmap entries carry no bitwidth). The formula holds for every
    such entry in the real Gemini files (900 entries).
    Why: a size that disagrees with the shape either truncates the tensor or wastes L2 and
    shifts every later address.
    Example: `/0/2/ifmap/0: GIR307 warning size 802816 differs from 1 x roundup(64, 8) x 112 x 112 x 8/8 = 802816`
    Fix: recompute the size with channel alignment.
    """
    return screened(ir, ctx, size_mismatch_rows, _size_mismatch_reference)


@rule("GIR308", "misaligned-address", Severity.WARNING, needs={Capability.L2_ADDRESSES})
def misaligned_address(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """An L2 tensor address is not a multiple of `--addr-align` bytes (off unless that option is given).

    Why: DMA engines and banked memories (e.g. 64-byte aligned layouts on BM1684x, NVDLA
    CONV_BUF banks) require aligned start addresses; a misaligned tensor is read wrongly.
    Example: `/0/3/buffer/0/address: GIR308 warning address 0x1010 is not a multiple of 64`
    Fix: round addresses up in the allocator.
    """
    align = ctx.options.addr_align
    if not align:
        return
    for ref in ir.workloads():
        for i, entry in enumerate(ir.placed(ref)):
            if entry.address % align:
                yield ctx.finding(
                    "GIR308",
                    misaligned_message(entry.address, align),
                    jp.extend(ref.pointer, "buffer", i, "address"),
                    **_loc(ref, entry),
                )
