"""GIR301's and GIR302's screens share this: every L2 entry placed in its ring region, from columns."""

from __future__ import annotations

from itertools import chain

import numpy as np

from irtools.loading.boxes import Bools, Ints, ints, tensor_columns
from irtools.loading.index import IRIndex
from irtools.rules.screens import huge

L2_LIMIT = 2**40
"""Addresses and sizes below this (1 TiB) are placed by columns: ends and row offsets stay in int64."""


class Placements:
    """Every L2 buffer entry placed as `loading.l2.place` places it, for workloads with at most one ring
    region (the real files' case); workloads with several are `several` (their rows are flagged)."""

    def __init__(self, row: Ints, start: Ints, end: Ints, problem: Bools, several: Ints) -> None:
        self.row, self.start, self.end, self.problem, self.several = row, start, end, problem, several


def placements(ir: IRIndex) -> Placements | None:
    """Every L2 entry's place, as the reference places it, from columns; None when they cannot tell."""
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
    if huge(address, size, pairs) or (total is not None and total >= L2_LIMIT):
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
    return Placements(rows, starts, ends, plain | too_big, np.flatnonzero(count > 1))
