"""The transfer graph as columns: numpy arrays built once per IR, in one pass over the models.

Rows are workloads in `IRIndex.workloads()` order (core by core, program order). The columnar
rules screen a whole file with array operations (set membership by sorted search, joins by
composite keys) and hand only the workloads they flag to the object-by-object reference check,
so a finding is the reference's own: same text, pointer and order (irtools.reference).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from irtools.loading.boxes import Group, ints, tensor_columns

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

Ints = npt.NDArray[np.int64]
T = TypeVar("T")
C = TypeVar("C")

_KEY_LIMIT = 2**62
"""Composite keys (a * span + b) stay below this, far inside int64."""


def _checked(column: T | None) -> T:
    """A column of `loading.boxes`, which is None when a value is not an int64."""
    if column is None:
        raise OverflowError("a value does not fit int64")
    return column


def _ints(values: list[int]) -> Ints:
    return np.array(values, dtype=np.int64) if values else np.zeros(0, dtype=np.int64)


_DESTINATION = ("row", "producer", "tid", "core", "workload_id")
"""The destination columns, named without `dest_`, in the order of the DRAM section's."""


@dataclass(frozen=True, slots=True)
class WorkloadTransfers:
    """Who produces, uses and is sent each transfer id in some workloads, one row per occurrence; rows
    counted from their first workload (TransferColumns: those of a whole file, with its DRAM section)."""

    core: Ints
    """Per workload row: its core id."""
    workload_id: Ints
    """Per workload row: its workload id."""
    read_row: Ints
    read_tid: Ints
    """Every ifmap transfer id, per reading workload."""
    weight_row: Ints
    weight_tid: Ints
    """Every weight transfer id, per reading workload."""
    ofmap_row: Ints
    ofmap_tid: Ints
    """Every ofmap, per producing workload."""
    dest_row: Ints
    """Per core destination: the producing workload's row, -1 for a DRAM `out` entry."""
    dest_producer: Ints
    """Per core destination: the producer's position (DRAM `out` index, or ofmap index in its workload)."""
    dest_tid: Ints
    dest_core: Ints
    dest_workload_id: Ints

    @classmethod
    def build(cls, index: IRIndex) -> WorkloadTransfers:
        """The parts of `index`'s workloads. Raises OverflowError when a value is not an int64."""
        tensors = tensor_columns(index)
        core = _ints([ref.core_id for ref in index.rows])
        wid = _checked(ints(tensors.field("workload_id"), len(tensors.workloads)))
        ifmaps, weights = tensors.ifmaps, tensors.weights
        read_at, read_tid = _checked(ifmaps.lists("transfer_id"))
        weight_at, weight_tid = _checked(weights.lists("transfer_id"))
        read_row, weight_row = ifmaps.row[read_at], weights.row[weight_at]
        ofmaps = tensors.ofmaps
        ofmap_tid = _checked(ofmaps.ints("transfer_id"))
        ofmap_at, ofmap_core, ofmap_wid = _sent_to_cores(ofmaps)
        # The ofmap's index in its workload: its place in the group less its workload's first.
        position = np.arange(len(ofmaps), dtype=np.int64) - np.searchsorted(ofmaps.row, ofmaps.row)
        return cls(
            core,
            wid,
            read_row,
            read_tid,
            weight_row,
            weight_tid,
            ofmaps.row,
            ofmap_tid,
            ofmaps.row[ofmap_at],
            position[ofmap_at],
            ofmap_tid[ofmap_at],
            ofmap_core,
            ofmap_wid,
        )

    def split(self, counts: list[int]) -> list[WorkloadTransfers]:
        """These columns cut into consecutive parts of `counts` workloads each (their rows counted from
        each part's start): what `TransferColumns.joined` puts together again."""
        starts = np.cumsum([0, *counts])
        parts = []
        for first, last in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
            cut: dict[str, Ints] = {
                "core": self.core[first:last],
                "workload_id": self.workload_id[first:last],
            }
            for rows, others in _ROWS_AND_THEIRS:
                at = slice(*np.searchsorted(getattr(self, rows), [first, last]).tolist())
                cut[rows] = getattr(self, rows)[at] - first
                cut.update((name, getattr(self, name)[at]) for name in others)
            parts.append(WorkloadTransfers(**cut))
        return parts

    def narrowed(self) -> WorkloadTransfers:
        """The same columns, each in int32 where its values fit (while the parts of a file's cores wait
        to be joined: `TransferColumns.joined` widens them back, as every column starts in int64)."""
        return dataclasses.replace(
            self, **{name: int32_where_fits(getattr(self, name)) for name in _WORKLOAD_COLUMNS}
        )


@dataclass(frozen=True, slots=True)
class TransferColumns(WorkloadTransfers):
    """Who produces, uses and is sent each transfer id in a whole file: its workloads' columns (the DRAM
    `out` entries' destinations first among the destinations), and its DRAM section's ids."""

    dram_out_tid: Ints
    """Every DRAM `out` entry's transfer id."""

    @classmethod
    def build(cls, index: IRIndex) -> TransferColumns:
        """From the tensor groups of `loading.boxes` (C-level gathering, shared with the box screens).
        Raises OverflowError when a value is not an int64."""
        return cls.joined(index, [WorkloadTransfers.build(index)])

    @classmethod
    def joined(cls, index: IRIndex, parts: list[WorkloadTransfers], narrow: bool = False) -> TransferColumns:
        """The columns of `index`'s IR from its workloads' parts, in row order (each part's rows counted
        from its start: a core's, built while the core was read, irtools.streaming), and its DRAM
        section. With `narrow`, each column in int32 where it fits (`irtools analyze`, whose readers of
        them widen their composite keys: `workload_keys`, `pair_keys`). Raises OverflowError when a value
        is not an int64."""
        outs = Group(list(index.ir.dram.out), np.arange(len(index.ir.dram.out), dtype=np.int64))
        out_tid = _checked(outs.ints("transfer_id"))
        out_at, out_core, out_wid = _sent_to_cores(outs)
        dram = [np.full(len(out_at), -1, dtype=np.int64), out_at, out_tid[out_at], out_core, out_wid]
        counts = [len(p.core) for p in parts]

        firsts = {f"dest_{name}": first for name, first in zip(_DESTINATION, dram, strict=True)}

        def column(name: str) -> Ints:
            columns, first = [getattr(p, name) for p in parts], firsts.get(name)
            if name in _ROW_COLUMNS:
                return joined_rows(columns, counts, first, narrow)
            return joined(columns, first, narrow)

        workloads = {name: column(name) for name in _WORKLOAD_COLUMNS}
        return cls(**workloads, dram_out_tid=out_tid)

    def workload_keys(self, core: Ints, workload_id: Ints) -> Ints | None:
        """(core, workload_id) pairs, taken from these columns, as one int64 each: one scale for the
        whole file, so keys from any two columns compare. None when the ids are too large to combine."""
        span = int(max(self.workload_id.max(initial=0), self.dest_workload_id.max(initial=0))) + 1
        top = int(max(self.core.max(initial=0), self.dest_core.max(initial=0))) + 1
        if top * span >= _KEY_LIMIT:
            return None
        return core.astype(np.int64, copy=False) * span + workload_id  # int64 keys of int32 columns too


@dataclass(frozen=True, slots=True)
class WaitClaims:
    """The latest producer each waiting tensor of the scheduler's IR names (`max_workload_id`): every
    workload's ifmap, and each weight that names one (GIR204's screen on raw files compares them with
    the transfer columns)."""

    row: Ints
    """Per waiting tensor: its workload's row."""
    claimed: Ints
    """Per waiting tensor: its max_workload_id."""
    weight: npt.NDArray[np.bool_]
    """Per waiting tensor: whether it is a weight (else the ifmap)."""
    tensor: Ints
    tid: Ints
    """Every transfer id of a waiting tensor, with the tensor's index."""

    @classmethod
    def build(cls, index: IRIndex) -> WaitClaims:
        """The claims of `index`'s workloads. Raises OverflowError when a value is not an int64."""
        tensors = tensor_columns(index)
        waits = Group(
            list(map(attrgetter("waits"), tensors.workloads)), np.arange(len(index.rows), dtype=np.int64)
        )
        weights = tensors.weights.present("max_workload_id")
        (wait_tensor, wait_tid), (weight_tensor, weight_tid) = (
            _checked(group.lists("transfer_id")) for group in (waits, weights)
        )
        return cls(
            np.concatenate([waits.row, weights.row]),
            np.concatenate([_checked(group.ints("max_workload_id")) for group in (waits, weights)]),
            np.repeat(np.array([False, True]), [len(waits), len(weights)]),
            np.concatenate([wait_tensor, weight_tensor + len(waits)]),
            np.concatenate([wait_tid, weight_tid]),
        )

    @classmethod
    def joined(cls, parts: list[WaitClaims], rows: list[int]) -> WaitClaims:
        """The claims of a file from its cores' (`rows`: each core's count of workloads), in core order."""
        return cls(
            joined_rows([p.row for p in parts], rows),
            joined([p.claimed for p in parts]),
            np.concatenate([np.zeros(0, dtype=bool), *(p.weight for p in parts)]),
            joined_rows([p.tensor for p in parts], [len(p.row) for p in parts]),
            joined([p.tid for p in parts]),
        )

    def narrowed(self) -> WaitClaims:
        """The same claims, each column in int32 where its values fit (see WorkloadTransfers.narrowed)."""
        return WaitClaims(
            int32_where_fits(self.row),
            int32_where_fits(self.claimed),
            self.weight,
            int32_where_fits(self.tensor),
            int32_where_fits(self.tid),
        )


@dataclass(frozen=True, slots=True)
class DramWriters:
    """Every ofmap that writes to DRAM (has a DRAM destination), in row order, then ofmap order: what
    GIR205's screen pairs with the DRAM `in` entries."""

    row: Ints
    """Its workload's row."""
    tid: Ints
    """Its transfer id."""
    frame: Ints
    """Its range as GIR205 compares it, (n, 7): the N extent, then lower and upper C/K, H, W (a DRAM `in`
    entry counts batches from the start, an ofmap within its batch group)."""

    @classmethod
    def build(cls, index: IRIndex) -> DramWriters:
        """The writers among `index`'s ofmaps. Raises OverflowError when a value is not an int64."""
        ofmaps = tensor_columns(index).ofmaps
        sent = ofmaps.children("destination")
        at = np.unique(sent.row[sent.equals("type", "DRAM")])  # each writing ofmap once, in order
        lower, upper = ofmaps.quad("lower"), ofmaps.quad("upper")
        if lower is None or upper is None:
            raise OverflowError("an ofmap's range is not four int64s")
        return cls(ofmaps.row[at], _checked(ofmaps.ints("transfer_id"))[at], frame_free(lower[at], upper[at]))

    @classmethod
    def joined(cls, parts: list[DramWriters], rows: list[int]) -> DramWriters:
        """The writers of a file from its cores' (`rows`: each core's count of workloads), in core order."""
        return cls(
            joined_rows([p.row for p in parts], rows),
            joined([p.tid for p in parts]),
            np.concatenate([np.zeros((0, 7), dtype=np.int64), *(p.frame.astype(np.int64) for p in parts)]),
        )

    def narrowed(self) -> DramWriters:
        """The same writers, each column in int32 where its values fit (see WorkloadTransfers.narrowed)."""
        return DramWriters(
            int32_where_fits(self.row), int32_where_fits(self.tid), int32_where_fits(self.frame)
        )


def frame_free(lower: npt.NDArray[np.integer], upper: npt.NDArray[np.integer]) -> Ints:
    """(n, 4) lower and upper coordinates as GIR205 compares a range, (n, 7) int64: the N extent, then the
    lower and upper C/K, H, W."""
    lower, upper = lower.astype(np.int64), upper.astype(np.int64)
    return np.column_stack([upper[:, 0] - lower[:, 0], lower[:, 1:], upper[:, 1:]])


def joined(columns: list[Ints], first: Ints | None = None, narrow: bool = False) -> Ints:
    """The parts of a column (each core's, perhaps narrowed) as one int64 column, after `first` when
    given: made in one copy, widened as it is made (a file's columns are tens of MiB). With `narrow`, an
    int32 column where every part fits one."""
    parts = [_ints([]) if first is None else first, *columns]
    wide = not narrow or not all(map(_fits_int32, parts))
    return np.concatenate(parts, dtype=np.int64 if wide else np.int32)


def _fits_int32(column: Ints) -> bool:
    if column.dtype == np.int32 or not len(column):
        return True
    return int(column.min()) >= -(2**31) and int(column.max()) < 2**31


def joined_rows(
    columns: list[Ints], counts: list[int], first: Ints | None = None, narrow: bool = False
) -> Ints:
    """The parts of a column of rows (or other positions) each counted within its part, as one int64
    column counted from the whole's start (`first`, when given, taken as it is): part i's values plus the
    sum of `counts` before it (each part's count of rows). With `narrow`, as `joined`."""
    whole = joined(columns, first, narrow and sum(counts) < 2**31)
    at = 0 if first is None else len(first)
    for column, start in zip(columns, np.cumsum([0, *counts]).tolist(), strict=False):
        whole[at : at + len(column)] += start
        at += len(column)
    return whole


_WORKLOAD_COLUMNS = tuple(f.name for f in dataclasses.fields(WorkloadTransfers))
_ROW_COLUMNS = ("read_row", "weight_row", "ofmap_row", "dest_row")
_ROWS_AND_THEIRS = (
    ("read_row", ("read_tid",)),
    ("weight_row", ("weight_tid",)),
    ("ofmap_row", ("ofmap_tid",)),
    ("dest_row", ("dest_producer", "dest_tid", "dest_core", "dest_workload_id")),
)
"""Each column of rows (ascending: the groups list their objects in row order) and the columns it
indexes alike."""


def int32_where_fits(column: Ints) -> Ints:
    """`column` as int32 when every value fits, else itself (typed as Ints: its values are the same; what
    is kept a while so, to be joined or widened, is half the size). Always a copy when it fits: a slice
    kept so does not hold its whole base."""
    if not _fits_int32(column):
        return column
    narrow: Ints = column.astype(np.int32)
    return narrow


def narrowed(column: Ints) -> Ints:
    """`int32_where_fits`, but `column` itself when it is int32 already (a column of its own, not a
    slice kept for long)."""
    return column if column.dtype == np.int32 else int32_where_fits(column)


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


def known_transfers(index: IRIndex, parts: list[WorkloadTransfers] | None, narrow: bool = False) -> None:
    """Give `index` its `transfer_columns` from its workloads' parts (None: a value beyond int64), made
    before their snapshots were dropped (irtools.streaming): the same columns, in the same order (with
    `narrow`, in int32 where they fit: TransferColumns.joined)."""
    try:
        _BUILT[index] = None if parts is None else TransferColumns.joined(index, parts, narrow)
    except OverflowError:
        _BUILT[index] = None


class PerIndex(Generic[C]):
    """Columns of an index built on first use and kept as long as the index lives; None when a value does
    not fit int64 (the rules then run their reference checks). `known` gives an index columns made
    elsewhere: irtools.streaming joins its cores', built before their snapshots and tensors were dropped."""

    def __init__(self, build: Callable[[IRIndex], C]) -> None:
        self._build = build
        self._made: weakref.WeakKeyDictionary[IRIndex, C | None] = weakref.WeakKeyDictionary()

    def __call__(self, index: IRIndex) -> C | None:
        """The columns of `index`, built on first use."""
        if index not in self._made:
            try:
                self._made[index] = self._build(index)
            except OverflowError:
                self._made[index] = None
        return self._made[index]

    def known(self, index: IRIndex, columns: C | None) -> None:
        """Give `index` these columns, as if built from it."""
        self._made[index] = columns


def _uses(index: IRIndex) -> tuple[Ints, Ints]:
    tensors = tensor_columns(index)
    ifmaps, weights, buffers, sources, wl0 = (
        tensors.ifmaps,
        tensors.weights,
        tensors.buffers,
        tensors.sources,
        tensors.wl0,
    )
    read_at, read_tid = _checked(ifmaps.lists("transfer_id"))
    weight_at, weight_tid = _checked(weights.lists("transfer_id"))
    held_at, held_tid = _checked(buffers.lists("transfer_id"))
    wl0_at, wl0_tid = _checked(wl0.lists("transfer_id"))
    source_tid = _checked(sources.ints("transfer_id"))
    rows = [
        ifmaps.row[read_at],
        weights.row[weight_at],
        buffers.row[held_at],
        buffers.row[sources.row],
        wl0.row[wl0_at],
    ]
    return np.concatenate(rows), np.concatenate([read_tid, weight_tid, held_tid, source_tid, wl0_tid])


transfer_uses: PerIndex[tuple[Ints, Ints]] = PerIndex(_uses)
"""(workload row, transfer id) for every transfer id a workload names (ifmap, weight, L2 entries and their
sources, WL0): `IRIndex.uses` as columns, in no particular order (the rules use them as sets; those
streaming joins hold each pair once). Apart from `transfer_columns`: the L2 and WL0 snapshots are most of
a file, and the timing models need none of them."""

wait_claims: PerIndex[WaitClaims] = PerIndex(WaitClaims.build)
"""The wait claims of a raw or allocated file (its workloads hold `waits`)."""

dram_writers: PerIndex[DramWriters] = PerIndex(DramWriters.build)
"""The ofmaps that write to DRAM."""


def _ofmap_sizes(index: IRIndex) -> Ints:
    return _checked(tensor_columns(index).ofmaps.ints("size"))


ofmap_sizes: PerIndex[Ints] = PerIndex(_ofmap_sizes)
"""Every ofmap's size in bytes, in the order of `transfer_columns`' ofmap_row and ofmap_tid."""


def int64(values: Iterable[int]) -> Ints:
    """`values` as int64, leaving out those beyond its range (they equal no value of the columns)."""
    return _ints([v for v in values if -(2**63) <= v < 2**63])


def _sent_to_cores(senders: Group) -> tuple[Ints, Ints, Ints]:
    """Every destination on a core of `senders`' objects, in order: the sender's index in the group, and
    the receiving core and workload id. Raises OverflowError when an id is not an int64."""
    sent = senders.children("destination")
    to_core = sent.equals("type", "core")  # is_core, without a Python call per destination
    at = sent.row[to_core]
    targets = Group(list(compress(sent.objects, to_core)), at)
    return at, _checked(targets.ints("core_id")), _checked(targets.ints("workload_id"))


def pair_keys(a: Ints, b: Ints, a_other: Ints, b_other: Ints) -> tuple[Ints, Ints] | None:
    """Two columns of pairs (a, b) and (a_other, b_other) as comparable int64 keys, or None when the
    values are too large to combine exactly (the caller then uses the reference check)."""
    span = int(max(b.max(initial=0), b_other.max(initial=0))) + 1
    top = int(max(a.max(initial=0), a_other.max(initial=0))) + 1
    if top * span >= _KEY_LIMIT:
        return None
    # In int64 whatever the columns' width: an int32 column times `span` would wrap.
    return a.astype(np.int64, copy=False) * span + b, a_other.astype(np.int64, copy=False) * span + b_other


def first_rows(keys: Ints, wanted: Ints) -> Ints:
    """For each of `wanted`: the first row whose key equals it, or -1 (a dict.setdefault lookup)."""
    unique, first = np.unique(keys, return_index=True)
    if not len(unique):
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.searchsorted(unique, wanted)
    np.minimum(at, len(unique) - 1, out=at)
    rows: Ints = first[at].astype(np.int64, copy=False)
    rows[unique[at] != wanted] = -1
    return rows


def join(left: Ints, right: Ints) -> tuple[Ints, Ints]:
    """Every pair (i, j) with left[i] == right[j], as two index columns (i ascending)."""
    order = np.argsort(right, kind="stable")
    ranked = right[order]
    start = np.searchsorted(ranked, left, side="left")
    counts = np.searchsorted(ranked, left, side="right") - start
    matched = np.flatnonzero(counts)  # few of a long `left` (every read of the file) match
    start, counts = start[matched], counts[matched]
    i = np.repeat(matched, counts)
    offsets = np.arange(len(i), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return i.astype(np.int64, copy=False), order[np.repeat(start, counts) + offsets].astype(np.int64)


def take(column: Ints, at: Ints) -> Ints:
    """column[at] where at >= 0, else -1."""
    if len(column) == 0:
        return np.full(len(at), -1, dtype=np.int64)
    taken = column[np.maximum(at, 0)]
    taken[at < 0] = -1
    return taken


_LEVELS = 4096
"""Levels of Kahn's order taken a whole frontier at a time (numpy); longer chains go node by node."""

_WIDE = 128
"""Nodes ready at once for a level to be taken whole: a narrower frontier costs numpy's call overhead
per level, more than walking its edges node by node. A Gemini file's wait graph is a chain per core
joined by transfers, its frontier at most a few nodes per core: walked node by node from the start, 0.036
against 0.065 s by 3,640 levels on a 64-core 73 MB file."""


def _kahn(count: int, src: Ints, dst: Ints) -> bool:
    """Whether the graph (edges src -> dst over `count` nodes) has a topological order."""
    order = np.argsort(src, kind="stable")
    starts = np.searchsorted(src[order], np.arange(count + 1))
    targets = dst[order]
    waiting = np.bincount(dst, minlength=count)
    frontier = np.flatnonzero(waiting == 0)
    done = 0
    for _ in range(_LEVELS):
        if len(frontier) < _WIDE:
            break
        done += len(frontier)
        first = starts[frontier]
        fanout = starts[frontier + 1] - first
        hit = targets[np.repeat(first - (np.cumsum(fanout) - fanout), fanout) + np.arange(int(fanout.sum()))]
        nodes, times = np.unique(hit, return_counts=True)
        waiting[nodes] -= times
        frontier = nodes[waiting[nodes] == 0]
    # Read through memoryviews, not lists: a list of the 2.5 million edges of a 512 MB file was a Python
    # int each, 166 MiB at validate's peak.
    views = [np.ascontiguousarray(a, dtype=np.int64).data for a in (starts, targets, waiting)]
    return _kahn_walk(views[0], views[1], views[2], frontier.tolist(), done, count)


def _kahn_walk(
    starts: memoryview,
    targets: memoryview,
    waiting: memoryview,
    ready: list[int],
    done: int,
    count: int,
) -> bool:
    """The rest of Kahn's order node by node (a narrow frontier, or a graph deeper than _LEVELS)."""
    for node in ready:  # grows while it is walked
        for k in range(starts[node], starts[node + 1]):
            nxt = targets[k]
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    return done + len(ready) == count
