"""tensors, l2_occupancy and l2_regions from columns, for files with one L2 region at most.

The allocated dialect places each tensor where it is, never wrapped (`loading.l2.linear`); the
documented files hold one ring region, the whole buffer, and wrap a tensor running past its end to
the start (`loading.l2.place`). Either way the tables follow from the entries' addresses and sizes
by sorts and grouped running maxima, where `buffers.l2_tables` walks every entry of every snapshot
in Python (3 s on a 73 MB allocated file, the largest cost of its `analyze`). Each step below says
which line of the walk it reproduces; the walk stays the reference (tests/equivalence and
tests/analysis/test_buffer_columns.py compare the tables of both cores).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.tables import L2_OCCUPANCY, L2_REGIONS, TENSORS
from irtools.loading.boxes import Group, max_before, tensor_columns
from irtools.loading.index import IRIndex

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

_TYPES = ("ifmap", "ofmap", "weight")
INT64_ROOM = 2**62
"""What the columns' products and lifts stay under (int64 with room); past it the walk builds the tables."""


def columnar_tables(
    index: IRIndex, ring: bool, describe: Callable[[list[Any]], dict[str, list[Any]]]
) -> dict[str, pd.DataFrame] | None:
    """The three tables, or None when a value leaves the columns' range (the walk then builds them).

    Without `ring`, tensors are placed linearly; with it, in the one ring region [0, L2 size) every
    workload has (the caller checks). `describe(entries)` gives the tensors' columns read from the
    entries themselves (names, ids, sources), for each tensor's first entry, as the walk takes them."""
    buffers = tensor_columns(index).buffers
    columns = _entry_columns(buffers)
    if columns is None:
        return None
    row, address, size, tensor, kind = columns
    identity = workload_identity(index)
    end = address + size
    extent = int(end.max(initial=0))
    l2_size = index.l2_size
    buffersize = l2_size or extent
    if (len(index.rows) + 2) * (buffersize + 2) >= INT64_ROOM or extent >= INT64_ROOM:
        return None
    try:
        positions, cores, workload_ids = (
            np.asarray(identity[name], dtype=np.int64) for name in ("position", "core_id", "workload_id")
        )
    except OverflowError:
        return None
    placed = _ring(address, size, l2_size) if ring and l2_size else _linear(address, end, l2_size)
    owner, seg_a, seg_b = placed.segments()
    seg_row = row[owner]
    flagged, used, largest = segment_cover(seg_row, seg_a, seg_b, np.full(len(index.rows), buffersize))
    first, life = lifetimes(cores[row], positions[row], [tensor, kind, address, size])
    overlapping = np.zeros(len(row), dtype=bool)
    np.logical_or.at(overlapping, owner, flagged)  # an entry overlaps where one of its segments does
    tensors = {
        "core_id": cores[row[first]],
        "tensor_id": tensor[first],
        "type": np.array(_TYPES, dtype=object)[kind[first]],
        "address": address[first],
        "size": size[first],
        **placed.columns(first),
        **describe([buffers.objects[i] for i in first.tolist()]),
        **lifetime_columns(row, first, life, overlapping, positions, workload_ids),
    }
    occupancy = _occupancy(index, identity, row, size, kind, used, largest, buffersize)
    regions = _regions(identity, used, largest, buffersize) if l2_size else L2_REGIONS.empty()
    return {
        "tensors": TENSORS.frame(tensors),
        "l2_occupancy": L2_OCCUPANCY.frame(occupancy),
        "l2_regions": regions,
    }


class _Placed:
    """Every entry's placement: where its first segment is cut (its end unless it wraps or does not
    fit), whether its tail wraps to 0 as a second segment, whether it is in the region, its problem."""

    def __init__(
        self, address: Ints, end: Ints, cut: Ints, wraps: Bools, in_region: Bools, l2_size: int | None
    ) -> None:
        self.address, self.end, self.cut, self.wraps, self.in_region = address, end, cut, wraps, in_region
        self.l2_size = l2_size
        self.problems: dict[int, str] = {}

    def segments(self) -> tuple[Ints, Ints, Ints]:
        """(entry, start, end) of every segment, in the walk's order: each entry's first, then its tail."""
        count = len(self.address)
        tails = np.flatnonzero(self.wraps)
        owner = np.concatenate([np.arange(count, dtype=np.int64), tails])
        start = np.concatenate([self.address, np.zeros(len(tails), dtype=np.int64)])
        stop = np.concatenate([self.cut, self.end[tails] - self.cut[tails]])
        order = np.argsort(owner, kind="stable")
        return owner[order], start[order], stop[order]

    def columns(self, rows: Ints) -> dict[str, Any]:
        """The tensors table's placement columns of entries `rows`."""
        wraps = self.wraps[rows]
        heads = zip(self.address[rows].tolist(), self.cut[rows].tolist(), strict=True)
        tails = (self.end[rows] - self.cut[rows]).tolist()
        segments = [
            f"{a}-{c};0-{t}" if w else f"{a}-{c}"
            for (a, c), t, w in zip(heads, tails, wraps.tolist(), strict=True)
        ]
        inside = self.in_region[rows].tolist()
        return {
            "segments": segments,
            "wraps": wraps,
            "region_start": [0 if r else None for r in inside],
            "region_end": [self.l2_size if r else None for r in inside],
            "problem": [self.problems.get(i) for i in rows.tolist()],
        }


def _linear(address: Ints, end: Ints, l2_size: int | None) -> _Placed:
    """`loading.l2.linear`: one segment where the tensor is; past the L2 size, a problem."""
    count = len(address)
    placed = _Placed(
        address, end, end, np.zeros(count, dtype=bool), np.full(count, l2_size is not None), l2_size
    )
    if l2_size is not None:
        for i in np.flatnonzero(end > l2_size).tolist():
            placed.problems[i] = f"ends at {int(end[i]):#x}, past the L2 size {l2_size:#x}"
    return placed


def _ring(address: Ints, size: Ints, l2_size: int) -> _Placed:
    """`loading.l2.place` in the one region [0, l2_size): a tensor running past its end wraps to 0."""
    end = address + size
    past = address >= l2_size
    too_big = ~past & (size > l2_size)
    wraps = ~past & ~too_big & (end > l2_size)
    cut = np.where(too_big | wraps, l2_size, end)
    placed = _Placed(address, end, cut, wraps, ~past, l2_size)
    for i in np.flatnonzero(past).tolist():
        placed.problems[i] = f"starts at {int(address[i]):#x}, past buffersize {l2_size:#x}"
    for i in np.flatnonzero(too_big).tolist():
        placed.problems[i] = f"{int(size[i])} bytes do not fit in ring region [0x0, {l2_size:#x})"
    return placed


def _entry_columns(buffers: Group) -> tuple[Ints, Ints, Ints, Ints, Ints] | None:
    """Per entry: its workload row, address, size, tensor number and type (an index into _TYPES)."""
    address, size, tensor = buffers.ints("address"), buffers.ints("size"), buffers.ints("tensor_id")
    if address is None or size is None or tensor is None:
        return None
    kind = np.full(len(buffers), -1, dtype=np.int64)
    for k, name in enumerate(_TYPES):
        kind[buffers.equals("type", name)] = k
    if (kind < 0).any() or (address < 0).any() or (size < 0).any():
        return None
    return buffers.row, address, size, tensor, kind


def segment_cover(group: Ints, a: Ints, b: Ints, hi: Ints) -> tuple[Bools, Ints, Ints]:
    """`buffers.covered` for every snapshot at once: per segment [a, b) of snapshot `group` (in the
    walk's order), whether it overlaps another; per snapshot, the bytes of [0, hi) covered and the
    largest free gap."""
    order = np.lexsort((b, a, group))  # the walk's sort of each snapshot's segments
    flagged = np.zeros(len(group), dtype=bool)
    flagged[order] = _overlaps(group[order], a[order], b[order], hi[group[order]])
    used, largest = _coverage(group[order], a[order], b[order], hi)
    return flagged, used, largest


def _overlaps(group: Ints, a: Ints, b: Ints, hi: Ints) -> Bools:
    """Per segment (sorted by group, a, b): whether `covered` reports it among the overlapping.

    The walk keeps `reach`, the largest end clipped to `hi` so far (-1 first), and its owner, the first
    segment reaching it; a segment starting before `reach` (and not empty) overlaps, and so does that
    owner."""
    clipped = np.minimum(b, hi)
    reach = max_before(clipped, group, -1)
    flagged = (a < reach) & (a < b)
    raises = clipped > reach  # the walk's `if b > reach`: a new owner
    index = np.arange(len(group), dtype=np.int64)
    owner = max_before(np.where(raises, index, -1), group, -1)
    out: Bools = flagged.copy()
    out[owner[flagged & (owner >= 0)]] = True
    return out


def _coverage(group: Ints, a: Ints, b: Ints, hi: Ints) -> tuple[Ints, Ints]:
    """Per snapshot: bytes of [0, hi) covered, and the largest free gap (`covered`'s cursor walk)."""
    groups = len(hi)
    end = hi[group]
    lo_a, hi_b = np.maximum(a, 0), np.minimum(b, end)
    valid = (lo_a < end) & (hi_b > lo_a)
    ends = np.where(valid, hi_b, 0)  # a skipped segment moves no cursor; the cursor starts at 0
    cursor = max_before(ends, group, 0)
    gap = np.where(valid & (lo_a > cursor), lo_a - cursor, 0)
    covered = np.where(valid & (hi_b > cursor), hi_b - np.maximum(lo_a, cursor), 0)
    used = np.zeros(groups, dtype=np.int64)
    np.add.at(used, group, covered)
    largest = np.zeros(groups, dtype=np.int64)
    np.maximum.at(largest, group, gap)
    reached = np.zeros(groups, dtype=np.int64)
    np.maximum.at(reached, group, ends)
    return used, _with_tail_gap(largest, reached, hi)


def _with_tail_gap(largest: Ints, reached: Ints, hi: Ints | int) -> Ints:
    """The largest free gap once the gap after the entries (from where they reach to `hi`) counts."""
    with_tail: Ints = np.where(reached < hi, np.maximum(largest, hi - reached), largest)
    return with_tail


def lifetimes(core: Ints, position: Ints, key: list[Ints]) -> tuple[Ints, Ints]:
    """Each entry's lifetime, and each lifetime's first entry, numbered in the walk's order.

    The walk (`buffers._Lifetimes.see`) extends the lifetime its key (for L2 tensor, type, address,
    size) last opened on this core when that was seen at the previous position; else it starts one."""
    walk = np.arange(len(core), dtype=np.int64)
    order = np.lexsort((walk, *reversed(key), core))
    keys = np.stack([core, *key])[:, order]
    steps = position[order]
    continues = np.zeros(len(core), dtype=bool)  # the same key as the previous, one position on
    continues[1:] = (keys[:, 1:] == keys[:, :-1]).all(axis=0) & (steps[1:] == steps[:-1] + 1)
    starts = ~continues
    # Lifetimes numbered by their first entry's place in the walk, as the walk appends them.
    first = np.sort(order[starts])
    number = np.empty(len(core), dtype=np.int64)
    number[first] = np.arange(len(first), dtype=np.int64)
    life = np.empty(len(core), dtype=np.int64)
    life[order] = number[order[starts]][np.cumsum(starts) - 1]
    return first, life


def lifetime_columns(
    row: Ints, first: Ints, life: Ints, overlapping: Bools, positions: Ints, workload_ids: Ints
) -> dict[str, Any]:
    """Per lifetime (`lifetimes`' numbering): where it starts and ends (position, workload id), its
    snapshots, and whether one of its entries overlaps another in its snapshot."""
    overlaps = np.zeros(len(first), dtype=bool)
    np.logical_or.at(overlaps, life, overlapping)
    last = np.zeros(len(first), dtype=np.int64)
    np.maximum.at(last, life, np.arange(len(row), dtype=np.int64))  # entries in the walk's order
    first_row, last_row = row[first], row[last]
    return {
        "first_position": positions[first_row],
        "first_workload_id": workload_ids[first_row],
        "last_position": positions[last_row],
        "last_workload_id": workload_ids[last_row],
        "snapshots": positions[last_row] - positions[first_row] + 1,
        "overlaps": overlaps,
    }


def _occupancy(
    index: IRIndex,
    identity: dict[str, Any],
    row: Ints,
    size: Ints,
    kind: Ints,
    used: Ints,
    largest: Ints,
    buffersize: int,
) -> dict[str, Any]:
    rows = len(index.rows)
    by_type = {}
    for k, name in enumerate(_TYPES):
        held = np.zeros(rows, dtype=np.int64)
        np.add.at(held, row[kind == k], size[kind == k])
        by_type[f"{name}_bytes"] = held
    total = by_type["ifmap_bytes"] + by_type["ofmap_bytes"] + by_type["weight_bytes"]
    incomplete = index.incomplete
    return {
        **identity,
        "tensors": np.bincount(row, minlength=rows),
        **by_type,
        "total_bytes": total,
        "used_bytes": used,
        **_free_space(total, used, largest, buffersize),
        "incomplete": [ref.pointer in incomplete for ref in index.rows],
    }


def _free_space(total: Ints, used: Ints, largest: Ints, buffersize: int) -> dict[str, Any]:
    """l2_occupancy's columns that the L2 size decides: free bytes, fraction, largest free block and
    fragmentation."""
    free = buffersize - used
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = total / buffersize if buffersize else np.full(len(total), np.nan)
        fragmentation = np.where(free > 0, 1 - largest / np.where(free > 0, free, 1), 0.0)
    return {
        "free_bytes": free,
        "fraction": fraction,
        "largest_free_block": largest,
        "fragmentation": fragmentation,
    }


def _regions(identity: dict[str, Any], used: Ints, largest: Ints, buffersize: int) -> pd.DataFrame:
    """One region per snapshot, the whole buffer [0, L2 size)."""
    rows = len(used)
    return L2_REGIONS.frame(
        {
            **identity,
            "region_start": np.zeros(rows, dtype=np.int64),
            "region_end": np.full(rows, buffersize, dtype=np.int64),
            "used_bytes": used,
            "free_bytes": buffersize - used,
            "fraction": used / buffersize,
            "largest_free_block": largest,
        }
    )


def snapshot_reach(index: IRIndex) -> tuple[int, Ints] | None:
    """For a file placed linearly and sized by its extent (L2 addresses, no ring regions, no L2 size):
    its extent (the highest end of an entry, the size its tables measure against) and, per snapshot,
    where its entries reach (the highest end of an entry with bytes: `_coverage`'s `reached`). None when
    an address or size is not a non-negative int64 (the tables are then the walk's)."""
    buffers = tensor_columns(index).buffers
    address, size = buffers.ints("address"), buffers.ints("size")
    if address is None or size is None or (address < 0).any() or (size < 0).any():
        return None
    if int(address.max(initial=0)) >= INT64_ROOM or int(size.max(initial=0)) >= INT64_ROOM:
        return None
    end = address + size
    reached = np.zeros(len(index.rows), dtype=np.int64)
    held = size > 0
    np.maximum.at(reached, buffers.row[held], end[held])
    return int(end.max(initial=0)), reached


def occupancy_at_size(occupancy: pd.DataFrame, reached: Ints, size: int) -> pd.DataFrame:
    """l2_occupancy measured against `size`, at least the extent it was built with (a part of a file
    sized by its extent, once the whole file's is known): the free space grows by the difference, and
    so does the gap after the last entry (`_coverage`: the largest gap is the larger of the gaps between
    entries and that one), so the largest free block is the larger of the old one and `size - reached`."""
    used = occupancy["used_bytes"].to_numpy(dtype=np.int64)
    total = occupancy["total_bytes"].to_numpy(dtype=np.int64)
    largest = _with_tail_gap(occupancy["largest_free_block"].to_numpy(dtype=np.int64), reached, size)
    return occupancy.assign(**_free_space(total, used, largest, size)).astype(occupancy.dtypes.to_dict())
