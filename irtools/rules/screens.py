"""Columnar screens: which workloads may hold a finding of a rule, from whole-file numpy columns.

Each screen returns the sorted workload rows (`IRIndex.rows`) that its rule's reference check must
look at, a superset of those with a finding, or None when the columns cannot be built exactly (the
rule then runs its reference check on the whole file). The rules run their object-by-object
reference check on the flagged rows only, so every finding is the reference's own (irtools.reference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain
from operator import attrgetter

import numpy as np

from irtools.findings import Finding
from irtools.loading.boxes import (
    Bools,
    Group,
    Ints,
    flagged_rows,
    grouped_min_max,
    ints,
    only,
    tensor_columns,
)
from irtools.loading.columns import first_rows, take, transfer_columns
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext

Screen = Callable[[IRIndex], list[int] | None]
Check = Callable[[IRIndex, CheckContext], Iterator[Finding]]


def screened(ir: IRIndex, ctx: CheckContext, screen: Screen, reference: Check) -> Iterator[Finding]:
    """The reference check of a rule over the workloads `screen` flags (all, when it cannot tell)."""
    rows = screen(ir)
    return reference(ir if rows is None else only(ir, rows), ctx)


def _inverted(lower: Ints, upper: Ints) -> Bools:
    return np.asarray((lower > upper).any(axis=1))


def _boxes(group: Group, lower: str = "lower", upper: str = "upper") -> tuple[Ints, Ints] | None:
    low, high = group.quad(lower), group.quad(upper)
    return None if low is None or high is None else (low, high)


def inverted_rows(ir: IRIndex) -> list[int] | None:
    """GIR504: workloads with a lower/upper pair inverted in some dimension (`_workload_pairs`)."""
    cols = tensor_columns(ir)
    own = cols.workload_boxes()
    if own is None:
        return None
    flags = [np.flatnonzero(_inverted(*own))]
    tiles, wl0 = cols.tiles, cols.wl0.present("lower", "upper")
    second = tiles.present("ifmap_lower2", "ifmap_upper2")
    checks: list[tuple[Group, str, str, Ints]] = [
        (cols.ifmaps, "lower", "upper", cols.ifmaps.row),
        (cols.ofmaps, "lower", "upper", cols.ofmaps.row),
        (cols.weights, "lower", "upper", cols.weights.row),
        (cols.buffers, "lower", "upper", cols.buffers.row),
        (cols.sources, "lower", "upper", cols.buffers.row[cols.sources.row]),
        (wl0, "lower", "upper", wl0.row),
        (tiles, "ifmap_lower", "ifmap_upper", tiles.row),
        (tiles, "ofmap_lower", "ofmap_upper", tiles.row),
        (second, "ifmap_lower2", "ifmap_upper2", second.row),
    ]
    for group, lower, upper, rows in checks:
        boxes = _boxes(group, lower, upper)
        if boxes is None:
            return None
        flags.append(rows[_inverted(*boxes)])
    return flagged_rows(flags)


def source_union_rows(ir: IRIndex) -> list[int] | None:
    """GIR305: workloads with an entry whose transfer ids or range differ from its sources' union."""
    cols = tensor_columns(ir)
    buffers, sources = cols.buffers, cols.sources
    own, bounds = _boxes(buffers), _boxes(sources)
    sent = sources.ints("transfer_id")
    listed = buffers.lists("transfer_id")
    if own is None or bounds is None or sent is None or listed is None:
        return None
    count = len(buffers)
    has_source = np.bincount(sources.row, minlength=count) > 0
    low, _ = grouped_min_max(bounds[0], sources.row, count)
    _, high = grouped_min_max(bounds[1], sources.row, count)
    boxed = has_source & ((low != own[0]).any(axis=1) | (high != own[1]).any(axis=1))
    # Ids (of entries that list them): the distinct (entry, id) pairs of the lists and of the sources differ.
    compared = has_source & buffers.equals("transfer_id", None, negate=True)
    owner, tid = listed
    keep, kept = compared[owner], compared[sources.row]
    differ = np.zeros(count, dtype=bool)
    span = int(max(tid.max(initial=0), sent.max(initial=0))) + 1
    if count * span >= 2**62:
        return None
    pairs = np.setxor1d(owner[keep] * span + tid[keep], sources.row[kept] * span + sent[kept])
    differ[pairs // span] = True
    return flagged_rows([buffers.row[boxed | differ]])


def causality_rows(ir: IRIndex) -> list[int] | None:
    """GIR204: workloads reading an ifmap transfer whose first producer is on their core, not earlier."""
    cols = transfer_columns(ir)
    if cols is None:
        return None
    producer = take(cols.ofmap_row, first_rows(cols.ofmap_tid, cols.read_tid))
    made = producer >= 0
    reader, producer = cols.read_row[made], producer[made]
    # Rows run in program order within a core: a later position is a larger row.
    late = (cols.core[producer] == cols.core[reader]) & (producer >= reader)
    return flagged_rows([reader[late]])


_EXACT = 2**50
"""Products estimated (in float64) below this are computed exactly in int64; above, the row is flagged."""


def _extents(lower: Ints, upper: Ints) -> Ints:
    """Per box, max(upper - lower + 1, 0) per dimension (the screens keep coordinates below 2**40)."""
    extents: Ints = np.maximum(upper - lower + 1, 0)
    return extents


def _huge(*arrays: Ints) -> bool:
    """Whether a value is too large for the screens' arithmetic (the rule then checks every row)."""
    return any(len(a) and int(a.max()) >= 2**40 for a in arrays)


def workload_range_rows(ir: IRIndex) -> list[int] | None:
    """GIR505: workloads with an ofmap outside their range, or tiles that miss or exceed it."""
    cols = tensor_columns(ir)
    own = cols.workload_boxes()
    ofmaps, tiles = cols.ofmaps, cols.tiles
    out, tile_low, tile_high = _boxes(ofmaps), tiles.quad("ofmap_lower"), tiles.quad("ofmap_upper")
    if own is None or out is None or tile_low is None or tile_high is None:
        return None
    lo, hi = own
    if _huge(lo, hi, *out, tile_low, tile_high):
        return None
    # Each dimension in the absolute frame or relative to the workload's lower corner (`_inside`).
    w_lo, w_hi = lo[ofmaps.row], hi[ofmaps.row]
    o_lo, o_hi = out
    absolute = (w_lo <= o_lo) & (o_hi <= w_hi)
    relative = (o_lo >= 0) & (o_hi <= w_hi - w_lo)
    flags = [ofmaps.row[~(absolute | relative).all(axis=1)]]
    # Tiles: their ofmap boxes must span the workload's box, their volumes add up to at least its own.
    count = len(lo)
    has_tiles = np.bincount(tiles.row, minlength=count) > 0
    t_lo, _ = grouped_min_max(tile_low, tiles.row, count)
    _, t_hi = grouped_min_max(tile_high, tiles.row, count)
    spans = ((t_lo != lo) | (t_hi != hi)).any(axis=1)
    tile_extent, own_extent = _extents(tile_low, tile_high), _extents(lo, hi)
    # In float64, exact while every volume and sum stays below 2**50 (integers below 2**53).
    covered = np.bincount(tiles.row, np.prod(tile_extent.astype(np.float64), axis=1), minlength=count)
    volume = np.prod(own_extent.astype(np.float64), axis=1)
    short = (covered >= _EXACT) | (volume >= _EXACT) | (covered < volume)
    flags.append(np.flatnonzero(has_tiles & (spans | short)))
    return flagged_rows(flags)


def size_mismatch_rows(ir: IRIndex) -> list[int] | None:
    """GIR307: workloads with an ifmap (or ifmap buffer entry) whose size is not its shape's."""
    cols = tensor_columns(ir)
    flags = []
    for group, keep in ((cols.ifmaps, None), (cols.buffers, cols.buffers.equals("type", "ifmap"))):
        boxes = _boxes(group)
        sizes = [group.ints(name) for name in ("size", "align", "bitwidth")]
        if boxes is None or sizes[0] is None or sizes[1] is None or sizes[2] is None:
            return None
        size, align, bitwidth = sizes[0], sizes[1], sizes[2]
        if _huge(*boxes, align, bitwidth):
            return None
        n, c, h, w = _extents(*boxes).T
        rough = n * (c + align).astype(np.float64) * h * w * bitwidth
        rounded = (c + align - 1) // align * align
        expected = np.where(rough < _EXACT, n * rounded * h * w * bitwidth // 8, -1)
        wrong = expected != size
        flags.append(group.row[wrong if keep is None else wrong & keep])
    return flagged_rows(flags)


def cur_wl_ifmap_rows(ir: IRIndex) -> list[int] | None:
    """GIR306: workloads whose `cur_wl_ifmap` flags disagree with their ifmap transfer ids."""
    cols = tensor_columns(ir)
    ifmaps, buffers = cols.ifmaps, cols.buffers
    wanted_ids, held_ids = ifmaps.lists("transfer_id"), buffers.lists("transfer_id")
    if wanted_ids is None or held_ids is None:
        return None
    span = int(max(wanted_ids[1].max(initial=0), held_ids[1].max(initial=0))) + 1
    if len(ir.rows) * span >= 2**62:
        return None
    wanted = np.unique(ifmaps.row[wanted_ids[0]] * span + wanted_ids[1])
    entry = held_ids[0]
    held = buffers.row[entry] * span + held_ids[1]
    hit = np.isin(held, wanted)
    hits = np.bincount(entry[hit], minlength=len(buffers))
    flagged = buffers.equals("cur_wl_ifmap", True)
    ifmap = buffers.equals("type", "ifmap")
    wrong = (flagged & (hits == 0)) | (~flagged & ifmap & (hits > 0))
    covering = flagged | ifmap
    missing = wanted[~np.isin(wanted, held[covering[entry]])]
    return flagged_rows([buffers.row[wrong], missing // span])


_L2_LIMIT = 2**40
"""Addresses and sizes below this (1 TiB) are placed by columns: ends and row offsets stay in int64."""


class _Placements:
    """Every L2 buffer entry placed as `loading.l2.place` places it, for workloads with at most one ring
    region (the real files' case); workloads with several are `several` (their rows are flagged)."""

    def __init__(self, row: Ints, start: Ints, end: Ints, problem: Bools, several: Ints) -> None:
        self.row, self.start, self.end, self.problem, self.several = row, start, end, problem, several


def _placements(ir: IRIndex) -> _Placements | None:
    cols = tensor_columns(ir)
    buffers = cols.buffers
    address, size = buffers.ints("address"), buffers.ints("size")
    infos = cols.field("ring_buffer_info")
    count = np.fromiter(map(len, infos), np.int64, len(infos))
    single = np.flatnonzero(count == 1)
    firsts = [infos[r][0] for r in single.tolist()]
    if not set(map(type, firsts)) <= {list} or not set(map(len, firsts)) <= {2}:
        return None
    pairs = ints(chain.from_iterable(firsts), 2 * len(firsts))
    total = ir.buffersize
    if address is None or size is None or pairs is None or len(infos) >= 2**21:
        return None
    if _huge(address, size, pairs) or (total is not None and total >= _L2_LIMIT):
        return None
    # Each workload's one region: its ring_buffer_info pair, or [0, buffersize) when it lists none.
    has_region = np.where(count == 0, bool(total), count == 1)
    low = np.zeros(len(infos), dtype=np.int64)
    high = np.full(len(infos), total or 0, dtype=np.int64)
    low[single], high[single] = pairs.reshape(-1, 2).T
    row = buffers.row
    lo, hi = low[row], high[row]
    stop = address + size
    past = address >= total if total is not None else np.zeros(len(address), dtype=bool)
    plain = past | ~(has_region[row] & (lo <= address) & (address < hi))
    too_big = ~plain & (size > hi - lo)
    wraps = ~plain & ~too_big & (stop > hi)
    end = np.where(too_big | wraps, hi, stop)
    # The wrapped part: [lo, lo + stop - hi).
    rows = np.concatenate([row, row[wraps]])
    starts = np.concatenate([address, lo[wraps]])
    ends = np.concatenate([end, (lo + stop - hi)[wraps]])
    return _Placements(rows, starts, ends, plain | too_big, np.flatnonzero(count > 1))


def out_of_bounds_rows(ir: IRIndex) -> list[int] | None:
    """GIR301: workloads with an L2 entry outside the buffer or its ring region."""
    placed = _placements(ir)
    if placed is None:
        return None
    entries = len(tensor_columns(ir).buffers)
    return flagged_rows([placed.row[:entries][placed.problem], placed.several])


def overlap_rows(ir: IRIndex) -> list[int] | None:
    """GIR302: workloads in whose snapshot two placed pieces share addresses (sort and sweep)."""
    placed = _placements(ir)
    if placed is None:
        return None
    keep = placed.end > placed.start
    row, start, end = placed.row[keep], placed.start[keep], placed.end[keep]
    # Offset by row so one sort and one running maximum cover every snapshot at once.
    start, end = row * 2 * _L2_LIMIT + start, row * 2 * _L2_LIMIT + end
    order = np.lexsort((end, start))
    start, end, row = start[order], end[order], row[order]
    reach = np.maximum.accumulate(end)
    overlaps = np.flatnonzero(start[1:] < reach[:-1]) + 1
    return flagged_rows([row[overlaps], placed.several])


def flagged_or_none(ir: IRIndex, ctx: CheckContext, screen: Screen, reference: Check) -> Iterator[Finding]:
    """The reference check of a rule that walks whole cores (state from snapshot to snapshot): run
    on the whole file when `screen` flags any workload, else skipped."""
    rows = screen(ir)
    return reference(ir, ctx) if rows is None or rows else iter(())


def continuity_rows(ir: IRIndex) -> list[int] | None:
    """GIR304: workloads with an entry whose `newly_added` disagrees with the snapshot before it on the
    core (the first entry of the same tensor_id there, as the reference's `setdefault`)."""
    transfers = transfer_columns(ir)
    buffers = tensor_columns(ir).buffers
    tensor, address = buffers.ints("tensor_id"), buffers.ints("address")
    if transfers is None or tensor is None or address is None:
        return None
    row, core = buffers.row, transfers.core
    span = int(tensor.max(initial=0)) + 1
    if (len(core) + 1) * span >= 2**62:
        return None
    follows = (row > 0) & (core[row] == core[np.maximum(row - 1, 0)])
    at = first_rows(row * span + tensor, (row - 1) * span + tensor)
    before = follows & (at >= 0)
    moved = before & (address[np.maximum(at, 0)] != address)
    kept, added = buffers.equals("newly_added", False), buffers.equals("newly_added", True)
    wrong = (follows & kept & ~before) | (kept & moved) | (added & before & ~moved)
    return flagged_rows([row[wrong]])


def max_workload_rows(ir: IRIndex) -> list[int] | None:
    """GIR204 on raw files: workloads whose `max_workload_id` may not be the latest producer of their
    inputs (`raw_checks.latest_producers`), or names a workload not earlier on their core."""
    cols = transfer_columns(ir)
    if cols is None:
        return None
    dram = ir.ir.dram
    try:
        written = np.array([(e.transfer_id, e.workload_id) for e in dram.in_], dtype=np.int64).reshape(-1, 2)
        read = np.array([(o.transfer_id, t) for o in dram.out for t in o.related_ifmap], dtype=np.int64)
        read_out = np.array([o.transfer_id for o in dram.out], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return None
    read = read.reshape(-1, 2)
    if len(np.unique(written[:, 0])) < len(written) or len(np.unique(read_out)) < len(read_out):
        return None  # the reference's dicts keep the last of equal ids: let it decide
    # The latest producer of each transfer id: DRAM writers read back, and ofmaps.
    writer = first_rows(written[:, 0], read[:, 1])
    back = writer >= 0
    tids = np.concatenate([read[back, 0], cols.ofmap_tid])
    wids = np.concatenate([written[writer[back], 1], cols.workload_id[cols.ofmap_row]])
    order = np.lexsort((wids, tids))
    tids, wids = tids[order], wids[order]
    last = np.r_[tids[1:] != tids[:-1], True] if len(tids) else np.zeros(0, dtype=bool)
    known, latest = tids[last], wids[last]
    # Each waiting tensor: the ifmap of every workload, and weights that name a workload.
    tensors = tensor_columns(ir)
    waits = Group(list(map(attrgetter("waits"), tensors.workloads)), np.arange(len(ir.rows), dtype=np.int64))
    weights = tensors.weights.present("max_workload_id")
    flags = []
    for group in (waits, weights):
        ids, claimed = group.lists("transfer_id"), group.ints("max_workload_id")
        if ids is None or claimed is None:
            return None
        tensor, tid = ids
        at = np.minimum(np.searchsorted(known, tid), max(len(known) - 1, 0))
        made = (known[at] == tid) if len(known) else np.zeros(len(tid), dtype=bool)
        expected = np.full(len(group), -1, dtype=np.int64)
        np.maximum.at(expected, tensor[made], latest[at[made]])
        produced = expected >= 0
        wrong = claimed != np.where(produced, expected, 0)
        # The workload it names, when on this core: first with that id, as `by_id`; it must come first.
        rows = group.row
        named = produced & (claimed <= int(cols.workload_id.max(initial=-1)))
        owners = cols.workload_keys(cols.core, cols.workload_id)
        targets = cols.workload_keys(cols.core[rows], np.where(named, claimed, 0))
        if owners is None or targets is None:
            return None
        target = first_rows(owners, targets)
        late = named & (target >= rows)
        has_ids = np.bincount(tensor, minlength=len(group)) > 0
        keep = has_ids if group is weights else np.ones(len(group), dtype=bool)
        flags.append(rows[keep & (wrong | late)])
    return flagged_rows(flags)
