"""GIR203 destination-mismatch: a destination names a workload that does not exist or does not use the
transfer, or a reader is missing from its producer's destinations."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.model.view import DestinationView, is_core
from irtools.rules.context import CheckContext
from irtools.rules.registry import also, rule

if TYPE_CHECKING:
    from irtools.loading.boxes import Bools
    from irtools.loading.columns import Ints, TransferColumns


def missing_destination_message(core_id: int, workload_id: int, transfer_id: int) -> str:
    """GIR203's message for a destination naming a (core_id, workload_id) that no workload has."""
    return f"destination core {core_id} workload {workload_id} of transfer {transfer_id} does not exist"


Suspects = tuple["TransferColumns", "Bools", "Bools"] | None

_FOUND: weakref.WeakKeyDictionary[IRIndex, Suspects] = weakref.WeakKeyDictionary()
"""Each index's suspects, found once for both screens (workloads, DRAM entries)."""


def _suspects(ir: IRIndex) -> Suspects:
    """The transfer columns, and which destinations (missing workload, or one not naming the transfer)
    and which ifmap reads of an ofmap's transfer (no ofmap lists the reader) may be findings."""
    if ir not in _FOUND:
        _FOUND[ir] = _find_suspects(ir)
    return _FOUND[ir]


def _find_suspects(ir: IRIndex) -> Suspects:
    from irtools.loading.columns import transfer_columns, transfer_uses

    cols, uses = transfer_columns(ir), transfer_uses(ir)
    if cols is None or uses is None:
        return None
    # One question at a time, each letting its arrays go: on 64-core files they hold hundreds of
    # thousands of keys, and validate's peak memory was here.
    destination = _suspect_destinations(cols, uses)
    read = None if destination is None else _unlisted_reads(cols)
    return None if destination is None or read is None else (cols, destination, read)


def _suspect_destinations(cols: TransferColumns, uses: tuple[Ints, Ints]) -> Bools | None:
    """Per destination: whether it names no workload, or one that does not use its transfer."""
    from irtools.loading.columns import first_rows, pair_keys
    from irtools.loading.sets import member

    targets = cols.workload_keys(cols.dest_core, cols.dest_workload_id)
    owners = cols.workload_keys(cols.core, cols.workload_id)
    if targets is None or owners is None:
        return None
    row = first_rows(owners, targets)
    del targets, owners
    used = pair_keys(row, cols.dest_tid, *uses)
    if used is None:
        return None
    return (row < 0) | ~member(*used)


def _unlisted_reads(cols: TransferColumns) -> Bools | None:
    """Per ifmap transfer id: whether an ofmap produces it that does not list the reading workload."""
    from irtools.loading.columns import pair_keys
    from irtools.loading.sets import member

    targets = cols.workload_keys(cols.dest_core, cols.dest_workload_id)
    readers = cols.workload_keys(cols.core[cols.read_row], cols.workload_id[cols.read_row])
    if targets is None or readers is None:
        return None
    listed = pair_keys(targets, cols.dest_tid, readers, cols.read_tid)
    if listed is None:
        return None
    del targets, readers
    return member(cols.read_tid, cols.ofmap_tid) & ~member(listed[1], listed[0][cols.dest_row >= 0])


def suspect_rows(ir: IRIndex) -> list[int] | None:
    """GIR203's screen of workloads: ofmaps with a suspect destination, and readers no ofmap lists."""
    from irtools.loading.boxes import flagged_rows

    found = _suspects(ir)
    if found is None:
        return None
    cols, destination, read = found
    return flagged_rows([cols.dest_row[destination & (cols.dest_row >= 0)], cols.read_row[read]])


def suspect_dram(ir: IRIndex) -> list[int] | None:
    """GIR203's screen of DRAM `out` entries: nothing when none has a suspect destination, else None."""
    found = _suspects(ir)
    if found is None:
        return None
    cols, destination, _ = found
    return [] if not (destination & (cols.dest_row < 0)).any() else None


def _destinations_exist(
    ir: IRIndex, ctx: CheckContext, dram: Iterable[int], refs: Iterable[WorkloadRef]
) -> Iterator[Finding]:
    """GIR203's destinations of the DRAM `out` entries `dram` and the ofmaps of `refs`, in file order."""
    sources: list[tuple[WorkloadRef | None, int, int, Sequence[DestinationView]]] = [
        (None, i, ir.ir.dram.out[i].transfer_id, ir.ir.dram.out[i].destination) for i in dram
    ]
    for ref in refs:
        sources.extend((ref, i, o.transfer_id, o.destination) for i, o in enumerate(ref.workload.ofmap))
    for producer, i, tid, destinations in sources:
        for j, dest in enumerate(destinations):
            if not is_core(dest):
                continue
            target = ir.by_id.get((dest.core_id, dest.workload_id))
            if target is None and (dest.core_id, dest.workload_id) in ir.loaded.unchecked_workloads:
                continue
            where = f"core {dest.core_id} workload {dest.workload_id}"
            if target is None:
                message = missing_destination_message(dest.core_id, dest.workload_id, tid)
            elif tid not in ir.uses(target) and target.pointer not in ir.incomplete:
                message = f"destination {where} does not use transfer {tid} (not in its ifmap, weight, buffer or WL0)"
            else:
                continue
            loc: dict[str, Any] = {}
            if producer is None:
                ptr = jp.join("-1", "out", i, "destination", j)
            else:
                ptr = jp.extend(producer.pointer, "ofmap", i, "destination", j)
                loc = {"core_id": producer.core_id, "workload_id": producer.workload_id}
            yield ctx.finding("GIR203", message, ptr, **loc, transfer_id=tid)


def _readers_listed(ir: IRIndex, ctx: CheckContext, readers: Iterable[WorkloadRef]) -> Iterator[Finding]:
    """GIR203's converse: ifmaps of `readers` whose producing ofmap does not list them."""
    readers = list(readers)
    if not readers:
        return
    destinations_of: dict[int, set[tuple[int, int]]] = {}
    for ref in ir.rows:  # every ofmap of the file, whichever readers are checked
        for o in ref.workload.ofmap:
            dests = destinations_of.setdefault(o.transfer_id, set())
            dests.update((d.core_id, d.workload_id) for d in o.destination if is_core(d))
    for ref in readers:
        for i, t in enumerate(ref.workload.ifmap):
            for tid in t.transfer_id:
                producer = ir.ofmap_producer.get(tid)
                if producer is None or (ref.core_id, ref.workload_id) in destinations_of[tid]:
                    continue
                yield ctx.finding(
                    "GIR203",
                    f"ifmap reads transfer {tid} from core {producer.core_id} workload {producer.workload_id}, "
                    "whose ofmap does not list this workload as a destination",
                    jp.extend(ref.pointer, "ifmap", i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=tid,
                    related=(producer.pointer,),
                )


@rule("GIR203", "destination-mismatch", Severity.ERROR, screen=suspect_rows)
def destination_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A destination names a workload that does not exist or does not use the transfer, or the converse.

    Checks every core destination of ofmaps and DRAM `out` entries: the (core_id, workload_id)
    must exist and name the transfer in its ifmap, weight, L2 snapshot or WL0 snapshot. And
    the converse: a workload whose ifmap reads an ofmap of another workload must be listed
    among that ofmap's destinations. A DRAM weight naming only its first user is normal: later
    users reuse it from WL0 or L2 and are not required to be listed.
    Why: the producer pushes data to its destinations; a wrong destination sends data nowhere
    and leaves the real consumer waiting forever.
    Example: `/0/2/ofmap/0/destination/0: GIR203 error destination core 1 workload 9 does not exist`
    Fix: correct the destination list of the producer.
    """
    yield from _destinations_exist(ir, ctx, (), ir.workloads())
    yield from _readers_listed(ir, ctx, ir.workloads())


@also("GIR203", screen=suspect_dram, whole_file=True)
def dram_destination_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR203 at the destinations of DRAM `out` entries (no workload rows: a screen of their own)."""
    return _destinations_exist(ir, ctx, range(len(ir.ir.dram.out)), ())
