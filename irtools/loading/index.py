"""IRIndex: lookups over one loaded IR that every rule and analysis shares, each entry with its pointer."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, cast

from irtools import pointer as jp
from irtools.dialects.base import DOCUMENTED_FACTS, SCHEDULER_FACTS, Capability
from irtools.loading.mesh import numbering, position
from irtools.loading.reader import gc_paused
from irtools.model.view import DramInView, DramOutView, IRView, PlacedEntry, WorkloadView
from irtools.options import RunOptions

if TYPE_CHECKING:
    from irtools.dialects.documented import Workload
    from irtools.dialects.raw.models import RawWorkload
    from irtools.loading.load import LoadedIR


@dataclass(frozen=True, slots=True)
class WorkloadRef:
    """A workload and where it sits: its core, its position in the core's list, its pointer.

    Position and pointer are in `ir`, which lacks the entries skipped for schema errors;
    `LoadedIR.file_pointer` maps a pointer to the file as written.
    """

    core_id: int
    position: int
    core_pointer: str
    """The pointer of the workload's core (its list), one string for the core's workloads."""
    workload: WorkloadView

    @property
    def pointer(self) -> str:
        """The workload's pointer, `/<core key>/<position>` (made when asked: a string per workload of a
        64-core file is 2 MiB held to the end of `irtools analyze`)."""
        return f"{self.core_pointer}/{self.position}"

    @property
    def workload_id(self) -> int:
        """The workload's workload_id (not its position in the core's list)."""
        return self.workload.workload_id


@dataclass(frozen=True, slots=True)
class Range:
    """A lower/upper coordinate pair somewhere in the file."""

    pointer: str
    """Pointer of the object holding the pair."""
    lower_key: str
    lower: list[int]
    upper: list[int]
    core_id: int | None = None
    workload_id: int | None = None
    transfer_id: int | None = None


class IRIndex:
    """Indexes over one IR; built lazily so a rule pays only for the lookups it uses."""

    def __init__(
        self,
        loaded: LoadedIR,
        options: RunOptions | None = None,
        refs: Mapping[int, list[WorkloadRef]] | None = None,
    ) -> None:
        """`options`: the run's; the index reads the L2 size the user gives files that record none.
        `refs`: each core's refs as an index of that core alone made them (irtools.streaming), to keep."""
        if loaded.ir is None:
            raise ValueError("cannot index a file that did not load")
        self.loaded = loaded
        self.ir: IRView = loaded.ir
        self.options: RunOptions = options or RunOptions()
        """The run's options, as the checks' context holds them: what the screens of opt-in rules read."""
        self.l2_size: int | None = self.options.l2_size_for(self.ir.buffersize)
        """The file's L2 size in bytes (RunOptions.l2_size_for): what every rule, table and map uses."""
        given = {Capability.L2_SIZE} if self.l2_size else set()
        self.capabilities: frozenset[Capability] = loaded.dialect.capabilities | given
        """What this file holds (its dialect's capabilities, and an L2 size when one is known)."""
        # A ref per workload, with the collector paused: its passes over the loaded file's millions of
        # lists made this 0.42-0.62 s on 67-98 MB 64-core files, not 0.04-0.08 s (analyze freezes it later).
        with gc_paused():
            made = refs or {}
            self.cores: dict[int, list[WorkloadRef]] = {
                int(key): made.get(int(key)) or _refs(int(key), jp.join(key), workloads)
                for key, workloads in sorted(self.ir.cores.items(), key=lambda kv: int(kv[0]))
            }
        self._uses: dict[int, set[int]] = {}

    def has(self, capability: Capability) -> bool:
        """Whether the file holds this kind of fact (ask this, never the dialect's name)."""
        return capability in self.capabilities

    @cached_property
    def numbering(self) -> str:
        """How the file numbers its cores: mesh.LINEAR (0..N-1) or mesh.MESH (Gemini's y*(xlen+2)+x+1)."""
        return numbering(self.cores, self.ir.xlen, self.ir.ylen)

    def core_position(self, core_id: int) -> tuple[int, int] | None:
        """(x, y) of a core on the mesh, under the file's numbering."""
        return position(core_id, self.numbering, self.ir.xlen)

    @property
    def buffersize(self) -> int | None:
        """The file's L2 buffersize in bytes; None when the file has none (raw, alloc) or it broke the
        schema."""
        return self.ir.buffersize

    def follows(self, ref: WorkloadRef) -> bool:
        """Whether the workload before `ref` in `ir` is also the one before it in the file.

        Not so when a workload between them broke the schema and was left out: comparing the two as
        neighbours would report what only the gap causes.
        """
        if not self.loaded.kept:  # nothing left out: a pointer per workload would cost more than the check
            return True
        positions = self.loaded.kept.get(jp.join(str(ref.core_id)))
        return positions is None or (
            ref.position > 0 and positions[ref.position] == positions[ref.position - 1] + 1
        )

    def placed(self, ref: WorkloadRef) -> Sequence[PlacedEntry]:
        """`ref`'s L2 snapshot with each entry's place (address, extent, tensor number).

        Only files with L2 addresses have them: rules that need Capability.L2_ADDRESSES read them here.
        """
        if not self.has(Capability.L2_ADDRESSES):
            raise TypeError(f"{self.loaded.dialect.name} files hold no L2 addresses")
        return cast("Sequence[PlacedEntry]", ref.workload.buffer)

    def documented(self, ref: WorkloadRef) -> Workload:
        """`ref`'s workload with the facts only the documented models hold (align, cur_wl_ifmap, WL0, tiles).

        Only files with one of those capabilities have them: a dialect declaring one gives workloads of the
        documented models' shape.
        """
        if not self.capabilities & DOCUMENTED_FACTS:
            raise TypeError(f"{self.loaded.dialect.name} files hold no documented workloads")
        return cast("Workload", ref.workload)  # the model, a subclass, or the decoder's Struct of it

    def raw(self, ref: WorkloadRef) -> RawWorkload:
        """`ref`'s workload with what only the scheduler's own IR holds (block counts, max_workload_id,
        inputs held ahead): rules that need those capabilities read it here, and a dialect declaring one
        gives workloads of the raw models' shape."""
        if not self.capabilities & SCHEDULER_FACTS:
            raise TypeError(f"{self.loaded.dialect.name} files hold no raw workloads")
        return cast("RawWorkload", ref.workload)  # the model, a subclass, or the decoder's Struct of it

    def workloads(self) -> Iterator[WorkloadRef]:
        """Every workload, core by core in program order."""
        for refs in self.cores.values():
            yield from refs

    @cached_property
    def rows(self) -> list[WorkloadRef]:
        """Every workload in `workloads()` order (row n of `loading.columns` is `rows[n]`)."""
        return list(self.workloads())

    @cached_property
    def by_id(self) -> dict[tuple[int, int], WorkloadRef]:
        """(core_id, workload_id) -> the first workload with that id."""
        return self._first_by_id()

    def by_id_once(self) -> dict[tuple[int, int], WorkloadRef]:
        """`by_id`, made for the caller alone when it is not kept already: a dict of every workload is
        4-5 MiB on a 64-core file, and `irtools analyze` reads it once (the DRAM transfers)."""
        kept: dict[tuple[int, int], WorkloadRef] | None = self.__dict__.get("by_id")
        return self._first_by_id() if kept is None else kept

    def _first_by_id(self) -> dict[tuple[int, int], WorkloadRef]:
        index: dict[tuple[int, int], WorkloadRef] = {}
        for ref in self.workloads():
            index.setdefault((ref.core_id, ref.workload_id), ref)
        return index

    @cached_property
    def producers(self) -> dict[int, list[Producer]]:
        """transfer_id -> every place that produces it (DRAM `out` entries, then ofmaps)."""
        index: dict[int, list[Producer]] = {}
        for i, entry in enumerate(self.ir.dram.out):
            index.setdefault(entry.transfer_id, []).append(Producer(jp.join("-1", "out", i), None, None))
        for ref in self.workloads():
            for i, o in enumerate(ref.workload.ofmap):
                ptr = jp.extend(ref.pointer, "ofmap", i)
                index.setdefault(o.transfer_id, []).append(Producer(ptr, ref.core_id, ref.workload_id))
        return index

    @cached_property
    def ofmap_producer(self) -> dict[int, WorkloadRef]:
        """transfer_id -> the first workload whose ofmap produces it."""
        index: dict[int, WorkloadRef] = {}
        for ref in self.workloads():
            for o in ref.workload.ofmap:
                index.setdefault(o.transfer_id, ref)
        return index

    @cached_property
    def incomplete(self) -> frozenset[str]:
        """Pointers of workloads that lost list entries to schema errors."""
        skipped = self.loaded.skipped
        if not skipped:
            return frozenset()
        return frozenset(ref.pointer for ref in self.workloads() if self.loaded.incomplete(ref.pointer))

    def uses(self, ref: WorkloadRef) -> set[int]:
        """Transfer ids `ref` names anywhere (cached per workload)."""
        cached = self._uses.get(id(ref))
        if cached is None:
            cached = self._uses[id(ref)] = workload_uses(ref.workload)
        return cached

    def inverted_dram_ranges(self) -> Iterator[Range]:
        """Every lower/upper pair of the DRAM entries with lower > upper in some dimension."""
        dram: list[tuple[str, int, DramInView | DramOutView]] = [
            *(("in", i, e) for i, e in enumerate(self.ir.dram.in_)),
            *(("out", i, e) for i, e in enumerate(self.ir.dram.out)),
        ]
        for side, i, entry in dram:
            if inverted(entry.lower, entry.upper):
                yield Range(
                    jp.join("-1", side, i), "lower", entry.lower, entry.upper, transfer_id=entry.transfer_id
                )

    def inverted_ranges(self, refs: Iterable[WorkloadRef] | None = None) -> Iterator[Range]:
        """Every lower/upper pair of the workloads with lower > upper in some dimension (of the workloads
        only in `refs`, when given: the ones a screen flagged)."""
        for ref in self.workloads() if refs is None else refs:
            for tokens, key, lower, upper, tid in _workload_pairs(ref.workload):
                if inverted(lower, upper):
                    loc = {"core_id": ref.core_id, "workload_id": ref.workload_id, "transfer_id": tid}
                    yield Range(jp.extend(ref.pointer, *tokens), key, lower, upper, **loc)


def _refs(core_id: int, core_pointer: str, workloads: Sequence[WorkloadView]) -> list[WorkloadRef]:
    # A position needs no escaping: the pointer is the core's and the position, joined when asked.
    return [WorkloadRef(core_id, i, core_pointer, wl) for i, wl in enumerate(workloads)]


def inverted(lower: list[int], upper: list[int]) -> bool:
    """Whether lower > upper in some dimension."""
    return lower[0] > upper[0] or lower[1] > upper[1] or lower[2] > upper[2] or lower[3] > upper[3]


_Pair = tuple[tuple[str | int, ...], str, list[int], list[int], int | None]


def _workload_pairs(wl: WorkloadView) -> Iterator[_Pair]:
    yield ("workload",), "0", wl.workload[0], wl.workload[1], None
    for i, t in enumerate(wl.ifmap):
        yield ("ifmap", i), "lower", t.lower, t.upper, single_transfer(t.transfer_id)
    for i, o in enumerate(wl.ofmap):
        yield ("ofmap", i), "lower", o.lower, o.upper, o.transfer_id
    if wl.weight is not None:
        yield ("weight",), "lower", wl.weight.lower, wl.weight.upper, single_transfer(wl.weight.transfer_id)
    for i, b in enumerate(wl.buffer):
        yield ("buffer", i), "lower", b.lower, b.upper, single_transfer(b.transfer_id or [])
        for j, s in enumerate(b.source or ()):
            yield ("buffer", i, "source", j), "lower", s.lower, s.upper, s.transfer_id
    for i, e in enumerate(wl.wl0_entries):
        if e.lower is not None and e.upper is not None:
            yield (wl.wl0_key, i), "lower", e.lower, e.upper, single_transfer(e.transfer_id)
    for name, tile in (wl.tile_info or {}).items():
        yield ("tile_info", name), "ifmap_lower", tile.ifmap_lower, tile.ifmap_upper, None
        yield ("tile_info", name), "ofmap_lower", tile.ofmap_lower, tile.ofmap_upper, None
        if tile.ifmap_lower2 is not None and tile.ifmap_upper2 is not None:
            yield ("tile_info", name), "ifmap_lower2", tile.ifmap_lower2, tile.ifmap_upper2, None


def single_transfer(ids: list[int]) -> int | None:
    """The transfer id of a tensor that has exactly one, else None (a finding's transfer_id field)."""
    return ids[0] if len(ids) == 1 else None


@dataclass(frozen=True, slots=True)
class Producer:
    """Where a transfer id is produced: a DRAM `out` entry or a workload's ofmap."""

    pointer: str
    core_id: int | None
    """None for DRAM."""
    workload_id: int | None


def workload_uses(wl: WorkloadView) -> set[int]:
    """Transfer ids a workload names anywhere: ifmap, weight, L2 snapshot (entries and sources), WL0."""
    ids: set[int] = set()
    for t in wl.ifmap:
        ids.update(t.transfer_id)
    if wl.weight is not None:
        ids.update(wl.weight.transfer_id)
    for b in wl.buffer:
        ids.update(b.transfer_id or ())
        ids.update(s.transfer_id for s in b.source or ())
    for e in wl.wl0_entries:
        ids.update(e.transfer_id)
    return ids


def workload_inputs(wl: WorkloadView) -> set[int]:
    """Transfer ids a workload reads to compute: its ifmap and weight."""
    ids = {t for i in wl.ifmap for t in i.transfer_id}
    if wl.weight is not None:
        ids.update(wl.weight.transfer_id)
    return ids
