"""The wait graph of `loading.graph.wait_graph` as two edge columns, built from the transfer columns.

A workload waits for its predecessor on its core, for the first workload producing an ifmap or
weight it reads on another core, for every workload on another core that names it as a
destination, and (raw dialect) for the workloads whose DRAM `in` writes it reads back through a
DRAM `out` entry. The edges are the reference graph's, as a multiset that may repeat an edge: the
timing models and Kahn's order read them without a Python object per workload.
"""

from __future__ import annotations

import itertools
import weakref
from typing import TYPE_CHECKING, cast

import numpy as np

from irtools.dialects.base import Capability
from irtools.loading.columns import (
    Ints,
    TransferColumns,
    _kahn,
    first_rows,
    join,
    narrowed,
    take,
    transfer_columns,
)
from irtools.loading.graph import wait_graph
from irtools.reference import fast_path

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

_BUILT: weakref.WeakKeyDictionary[IRIndex, tuple[Ints, Ints] | None] = weakref.WeakKeyDictionary()


def wait_edges(index: IRIndex) -> tuple[Ints, Ints] | None:
    """(waited-for row, waiting row) per edge, rows in `IRIndex.rows` order; None when the columns
    cannot stand for the reference (a value beyond int64, a negative id): then use `wait_graph`."""
    if index not in _BUILT:
        cols = transfer_columns(index)
        _BUILT[index] = None if cols is None else _edges(index, cols)
    return _BUILT[index]


def reference_wait_arrays(index: IRIndex) -> tuple[Ints, Ints]:
    """`wait_arrays` from the reference graph (`loading.graph.wait_graph`, a Python walk)."""
    _, lists = wait_graph(index)
    src = np.repeat(np.arange(len(lists), dtype=np.int64), [len(targets) for targets in lists])
    return src, np.fromiter(itertools.chain.from_iterable(lists), np.int64, len(src))


@fast_path(reference_wait_arrays)
def wait_arrays(index: IRIndex) -> tuple[Ints, Ints]:
    """The wait graph's edges as (waited-for, waiting) node columns, whatever values the file holds."""
    edges = wait_edges(index)
    return reference_wait_arrays(index) if edges is None else edges


def waits_acyclic(index: IRIndex) -> bool:
    """Whether the wait graph has no cycle (Kahn's order over its edges). Only a False needs the
    reference graph, which names the cycles."""
    edges = wait_edges(index)
    if edges is None:
        return False
    return _kahn(len(index.rows), *edges)


def _edges(index: IRIndex, cols: TransferColumns) -> tuple[Ints, Ints] | None:
    ids = (cols.core, cols.workload_id, cols.dest_core, cols.dest_workload_id)
    if min(int(c.min(initial=0)) for c in ids) < 0:
        return None  # a negative id would meet another's composite key
    if len(cols.core) == 0:
        return cols.core, cols.core  # no workloads (DRAM entries may still name cores): no waits
    # Each kind of edge found by a function of its own, whose arrays go when it returns: on 64-core
    # files they hold hundreds of thousands of rows, and validate's peak memory was here.
    # Kept by the index as long as it lives (the timing models and GIR502 read them): as rows, they fit
    # 32 bits but for files of two billion workloads; each kind narrowed before the next is found.
    same_core = np.flatnonzero(cols.core[1:] == cols.core[:-1])
    parts = [
        _narrowed((same_core, same_core + 1)),
        _narrowed(_cross_core_reads(cols)),
        _narrowed(_listed_destinations(cols)),
    ]
    if index.has(Capability.DRAM_WAITS):
        parts.append(_narrowed(_dram_waits(index, cols)))
    if any(part is None for part in parts):
        return None
    sources, targets = zip(*cast("list[tuple[Ints, Ints]]", parts), strict=True)
    del parts
    src = narrowed(np.concatenate(sources))
    del sources  # before the second column is joined
    return src, narrowed(np.concatenate(targets))


def _narrowed(edges: tuple[Ints, Ints] | None) -> tuple[Ints, Ints] | None:
    return None if edges is None else (narrowed(edges[0]), narrowed(edges[1]))


def _readers(cols: TransferColumns) -> tuple[Ints, Ints]:
    """Every workload row reading a transfer id (ifmaps, then weights), and that id."""
    return np.concatenate([cols.read_row, cols.weight_row]), np.concatenate([cols.read_tid, cols.weight_tid])


def _cross_core_reads(cols: TransferColumns) -> tuple[Ints, Ints]:
    """Cross-core reads of an ofmap: from the first workload producing the transfer."""
    readers, tids = _readers(cols)
    producer = take(cols.ofmap_row, first_rows(cols.ofmap_tid, tids))
    cross = (producer >= 0) & (cols.core[np.maximum(producer, 0)] != cols.core[readers])
    return producer[cross], readers[cross]


def _listed_destinations(cols: TransferColumns) -> tuple[Ints, Ints] | None:
    """Listed destinations on other cores, to the first workload with that (core, workload_id)."""
    owners = cols.workload_keys(cols.core, cols.workload_id)
    targets = cols.workload_keys(cols.dest_core, cols.dest_workload_id)
    if owners is None or targets is None:
        return None
    target = first_rows(owners, targets)
    sent = (cols.dest_row >= 0) & (target >= 0) & (cols.dest_core != cols.core[np.maximum(cols.dest_row, 0)])
    return cols.dest_row[sent], target[sent]


def _dram_waits(index: IRIndex, cols: TransferColumns) -> tuple[Ints, Ints] | None:
    """Edges writer -> reader through DRAM, as `loading.graph.dram_waits`: a transfer id's writer is
    the last DRAM `in` entry naming it whose workload exists, and an `out` transfer id reads back
    the writers of the last `out` entry with that id that names any. None when ids do not fit."""
    dram = index.ir.dram
    try:
        written = np.array([(e.transfer_id, e.core_id, e.workload_id) for e in dram.in_], dtype=np.int64)
        read = np.array(
            [(k, o.transfer_id, t) for k, o in enumerate(dram.out) for t in o.related_ifmap], dtype=np.int64
        )
    except (TypeError, ValueError, OverflowError):
        return None
    written, read = written.reshape(-1, 3), read.reshape(-1, 3)
    # Writer rows: the first workload with the DRAM `in` entry's (core, workload_id), as `by_id`.
    top_core, top_id = int(cols.core.max(initial=-1)), int(cols.workload_id.max(initial=-1))
    known = (written[:, 1] <= top_core) & (written[:, 2] <= top_id) & (written[:, 1:] >= 0).all(axis=1)
    written = written[known]
    owners = cols.workload_keys(cols.core, cols.workload_id)
    keys = cols.workload_keys(written[:, 1], written[:, 2])
    if owners is None or keys is None:
        return None
    writer = first_rows(owners, keys)
    written_tid, writer = written[writer >= 0, 0], writer[writer >= 0]
    # The last writer of each transfer id (a dict assignment per entry).
    last = len(written_tid) - 1 - np.unique(written_tid[::-1], return_index=True)[1]
    written_tid, writer = written_tid[last], writer[last]
    # `out` entries reading some writer; per `out` transfer id only the last such entry counts.
    at = first_rows(written_tid, read[:, 2])
    found = at >= 0
    entry, out_tid, out_writer = read[found, 0], read[found, 1], writer[at[found]]
    unique_tid, group = np.unique(out_tid, return_inverse=True)
    last_entry = np.full(len(unique_tid), -1, dtype=np.int64)
    np.maximum.at(last_entry, group, entry)
    keep = entry == last_entry[group]
    out_tid, out_writer = out_tid[keep], out_writer[keep]
    readers, tids = _readers(cols)
    at_reader, of = join(tids, out_tid)
    src, dst = out_writer[of], readers[at_reader]
    apart = src != dst
    return src[apart], dst[apart]
