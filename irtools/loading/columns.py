"""The transfer graph as columns: numpy arrays built once per IR, in one pass over the models.

Rows are workloads in `IRIndex.workloads()` order (core by core, program order). The columnar
rules screen a whole file with array operations (set membership by sorted search, joins by
composite keys) and hand only the workloads they flag to the object-by-object reference check,
so a finding is the reference's own: same text, pointer and order (irtools.reference).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from irtools.dialects.base import Capability
from irtools.model.view import DestinationView, is_core

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

Ints = npt.NDArray[np.int64]

_KEY_LIMIT = 2**62
"""Composite keys (a * span + b) stay below this, far inside int64."""


def _ints(values: list[int]) -> Ints:
    return np.array(values, dtype=np.int64) if values else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class TransferColumns:
    """Who produces, uses and is sent each transfer id, one row per occurrence."""

    core: Ints
    """Per workload row: its core id."""
    workload_id: Ints
    """Per workload row: its workload id."""
    use_row: Ints
    use_tid: Ints
    """Every transfer id a workload names (ifmap, weight, L2 entries and sources, WL0): `IRIndex.uses`."""
    read_row: Ints
    read_tid: Ints
    """Every ifmap transfer id, per reading workload."""
    weight_row: Ints
    weight_tid: Ints
    """Every weight transfer id, per reading workload."""
    ofmap_row: Ints
    ofmap_tid: Ints
    """Every ofmap, per producing workload."""
    dram_out_tid: Ints
    """Every DRAM `out` entry's transfer id."""
    dest_row: Ints
    """Per core destination: the producing workload's row, -1 for a DRAM `out` entry."""
    dest_producer: Ints
    """Per core destination: the producer's position (DRAM `out` index, or ofmap index in its workload)."""
    dest_tid: Ints
    dest_core: Ints
    dest_workload_id: Ints

    @classmethod
    def build(cls, index: IRIndex) -> TransferColumns:
        core: list[int] = []
        wid: list[int] = []
        use_row: list[int] = []
        use_tid: list[int] = []
        read_row: list[int] = []
        read_tid: list[int] = []
        weight_row: list[int] = []
        weight_tid: list[int] = []
        ofmap_row: list[int] = []
        ofmap_tid: list[int] = []
        dest: tuple[list[int], list[int], list[int], list[int], list[int]] = ([], [], [], [], [])
        for k, entry in enumerate(index.ir.dram.out):
            _destinations(dest, -1, k, entry.transfer_id, entry.destination)
        for row, ref in enumerate(index.workloads()):
            wl = ref.workload
            core.append(ref.core_id)
            wid.append(wl.workload_id)
            start = len(use_tid)
            for t in wl.ifmap:
                use_tid.extend(t.transfer_id)
            read_tid.extend(use_tid[start:])
            read_row.extend([row] * (len(use_tid) - start))
            if wl.weight is not None:
                weight_tid.extend(wl.weight.transfer_id)
                weight_row.extend([row] * len(wl.weight.transfer_id))
                use_tid.extend(wl.weight.transfer_id)
            for b in wl.buffer:
                use_tid.extend(b.transfer_id or ())
                use_tid.extend([s.transfer_id for s in b.source or ()])
            for e in wl.wl0_entries:
                use_tid.extend(e.transfer_id)
            use_row.extend([row] * (len(use_tid) - start))
            for i, o in enumerate(wl.ofmap):
                ofmap_row.append(row)
                ofmap_tid.append(o.transfer_id)
                _destinations(dest, row, i, o.transfer_id, o.destination)
        return cls(
            _ints(core),
            _ints(wid),
            _ints(use_row),
            _ints(use_tid),
            _ints(read_row),
            _ints(read_tid),
            _ints(weight_row),
            _ints(weight_tid),
            _ints(ofmap_row),
            _ints(ofmap_tid),
            _ints([e.transfer_id for e in index.ir.dram.out]),
            *(_ints(column) for column in dest),
        )

    def workload_keys(self, core: Ints, workload_id: Ints) -> Ints | None:
        """(core, workload_id) pairs, taken from these columns, as one int64 each: one scale for the
        whole file, so keys from any two columns compare. None when the ids are too large to combine."""
        span = int(max(self.workload_id.max(initial=0), self.dest_workload_id.max(initial=0))) + 1
        top = int(max(self.core.max(initial=0), self.dest_core.max(initial=0))) + 1
        if top * span >= _KEY_LIMIT:
            return None
        return core * span + workload_id


_BUILT: weakref.WeakKeyDictionary[IRIndex, TransferColumns | None] = weakref.WeakKeyDictionary()


def transfer_columns(index: IRIndex) -> TransferColumns | None:
    """The columns of `index`'s IR, built on first use and kept as long as the index lives; None when
    a value does not fit int64 (the rules then run their reference checks)."""
    if index not in _BUILT:
        try:
            _BUILT[index] = TransferColumns.build(index)
        except OverflowError:
            _BUILT[index] = None
    return _BUILT[index]


def int64(values: Iterable[int]) -> Ints:
    """`values` as int64, leaving out those beyond its range (they equal no value of the columns)."""
    return _ints([v for v in values if -(2**63) <= v < 2**63])


def _destinations(
    dest: tuple[list[int], list[int], list[int], list[int], list[int]],
    row: int,
    producer: int,
    tid: int,
    destinations: Sequence[DestinationView],
) -> None:
    for d in destinations:
        if is_core(d):
            dest[0].append(row)
            dest[1].append(producer)
            dest[2].append(tid)
            dest[3].append(d.core_id)
            dest[4].append(d.workload_id)


def pair_keys(a: Ints, b: Ints, a_other: Ints, b_other: Ints) -> tuple[Ints, Ints] | None:
    """Two columns of pairs (a, b) and (a_other, b_other) as comparable int64 keys, or None when the
    values are too large to combine exactly (the caller then uses the reference check)."""
    span = int(max(b.max(initial=0), b_other.max(initial=0))) + 1
    top = int(max(a.max(initial=0), a_other.max(initial=0))) + 1
    if top * span >= _KEY_LIMIT:
        return None
    return a * span + b, a_other * span + b_other


def first_rows(keys: Ints, wanted: Ints) -> Ints:
    """For each of `wanted`: the first row whose key equals it, or -1 (a dict.setdefault lookup)."""
    unique, first = np.unique(keys, return_index=True)
    at = np.searchsorted(unique, wanted)
    at = np.minimum(at, max(len(unique) - 1, 0))
    hit = (unique[at] == wanted) if len(unique) else np.zeros(len(wanted), dtype=bool)
    return np.where(hit, first[at] if len(unique) else -1, -1).astype(np.int64)


def waits_acyclic(index: IRIndex) -> bool:
    """Whether the wait graph of `loading.graph.wait_graph` has no cycle (Kahn's order over its edges).

    The same edges, built from the columns: program order on each core, cross-core producer ->
    reader (ifmap and weight) and producer -> listed destination, and the raw dialect's waits
    through DRAM. Only a False needs the reference graph (which names the cycles).
    """
    from irtools.loading.graph import dram_waits

    cols = transfer_columns(index)
    if cols is None:
        return False
    count = len(cols.core)
    if count == 0:
        return True
    same_core = np.flatnonzero(cols.core[1:] == cols.core[:-1])
    src = [same_core]
    dst = [same_core + 1]
    # Cross-core reads of an ofmap: from the first workload producing the transfer.
    readers = np.concatenate([cols.read_row, cols.weight_row])
    tids = np.concatenate([cols.read_tid, cols.weight_tid])
    at = first_rows(cols.ofmap_tid, tids)
    producer = _take(cols.ofmap_row, at)
    cross = (producer >= 0) & (cols.core[np.maximum(producer, 0)] != cols.core[readers])
    src.append(producer[cross])
    dst.append(readers[cross])
    # Listed destinations on other cores, to the first workload with that (core, workload_id).
    owners = cols.workload_keys(cols.core, cols.workload_id)
    targets = cols.workload_keys(cols.dest_core, cols.dest_workload_id)
    if owners is None or targets is None:
        return False
    by_ofmap = cols.dest_row >= 0
    target = first_rows(owners, targets)
    sent = by_ofmap & (target >= 0) & (cols.dest_core != cols.core[np.maximum(cols.dest_row, 0)])
    src.append(cols.dest_row[sent])
    dst.append(target[sent])
    if index.has(Capability.DRAM_WAITS):
        number = {id(ref): n for n, ref in enumerate(index.rows)}
        pairs = [
            (number[id(p)], number[consumer])
            for consumer, producers in dram_waits(index).items()
            for p in producers
            if number[id(p)] != number[consumer]
        ]
        src.append(_ints([a for a, _ in pairs]))
        dst.append(_ints([b for _, b in pairs]))
    return _kahn(count, np.concatenate(src), np.concatenate(dst))


def _take(column: Ints, at: Ints) -> Ints:
    """column[at] where at >= 0, else -1."""
    if len(column) == 0:
        return np.full(len(at), -1, dtype=np.int64)
    return np.where(at >= 0, column[np.maximum(at, 0)], -1)


def _kahn(count: int, src: Ints, dst: Ints) -> bool:
    """Whether the graph (edges src -> dst over `count` nodes) has a topological order."""
    order = np.argsort(src, kind="stable")
    starts = np.searchsorted(src[order], np.arange(count + 1)).tolist()
    targets = dst[order].tolist()
    waiting = np.bincount(dst, minlength=count).tolist()
    ready = [n for n in range(count) if waiting[n] == 0]
    for node in ready:  # grows while it is walked
        for k in range(starts[node], starts[node + 1]):
            nxt = targets[k]
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    return len(ready) == count
