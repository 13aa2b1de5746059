"""GIR2xx: the transfer graph linking producers (DRAM `out`, ofmaps) to consumers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.model.view import DestinationView, is_core
from irtools.reference import fast_path
from irtools.rules.context import CheckContext, id_list, short
from irtools.rules.registry import rule


def dangling_message(transfer_id: int) -> str:
    """GIR201's message for a consumed transfer id nothing produces (synth predicts it with this too)."""
    return f"transfer {transfer_id} is consumed but no DRAM out entry or ofmap produces it"


def missing_destination_message(core_id: int, workload_id: int, transfer_id: int) -> str:
    """GIR203's message for a destination naming a (core_id, workload_id) that no workload has."""
    return f"destination core {core_id} workload {workload_id} of transfer {transfer_id} does not exist"


def also_produced_message(transfer_id: int, first_pointer: str) -> str:
    """GIR202's message at a second producer of a transfer id, naming where the first one is."""
    return f"transfer {transfer_id} is also produced at {first_pointer}"


def related_dangling_message(key: str, transfer_id: int, other: str) -> str:
    """GIR206's message for one related_ofmap/related_ifmap id the other side of DRAM lacks."""
    return f"{key} {transfer_id} is not a {other} transfer"


def layer_problem(ofmap_layer: str, entry_layer: str) -> str:
    """A GIR205 problem: the DRAM in entry names another layer than the ofmap that writes it."""
    return f"layer is {short(ofmap_layer)!r}, not {short(entry_layer)!r}"


def range_problem(
    ofmap_lower: Sequence[int], ofmap_upper: Sequence[int], lower: Sequence[int], upper: Sequence[int]
) -> str:
    """A GIR205 problem: the DRAM in entry's range is not the ofmap's."""
    return f"ofmap range {list(ofmap_lower)}..{list(ofmap_upper)} differs from {list(lower)}..{list(upper)}"


def dram_in_mismatch_message(transfer_id: int, problems: Sequence[str]) -> str:
    """GIR205's message for a DRAM in entry that disagrees with its ofmap, its problems joined by `; `."""
    return f"DRAM in entry for transfer {transfer_id} does not match its ofmap: " + "; ".join(problems)


def causality_message(transfer_id: int, producer_workload_id: int, *, later: bool) -> str:
    """GIR204's message for an ifmap read from the same core's own or a later workload's ofmap."""
    when = "runs later on this core" if later else "is this workload"
    return f"reads transfer {transfer_id} produced by workload {producer_workload_id}, which {when}"


def _consumer_sites(ref: WorkloadRef) -> Iterator[tuple[str, int]]:
    """(pointer, transfer_id) for every transfer id a workload consumes."""
    wl, base = ref.workload, ref.pointer
    for i, t in enumerate(wl.ifmap):
        for tid in t.transfer_id:
            yield jp.extend(base, "ifmap", i), tid
    if wl.weight is not None:
        for tid in wl.weight.transfer_id:
            yield jp.extend(base, "weight"), tid
    for i, b in enumerate(wl.buffer):
        for tid in b.transfer_id or ():
            yield jp.extend(base, "buffer", i), tid
        for j, s in enumerate(b.source or ()):
            yield jp.extend(base, "buffer", i, "source", j), s.transfer_id
    for i, e in enumerate(wl.wl0_entries):
        for tid in e.transfer_id:
            yield jp.extend(base, wl.wl0_key, i), tid


def _dangling(ir: IRIndex, ctx: CheckContext, refs: Iterable[WorkloadRef]) -> Iterator[Finding]:
    """GIR201 on the workloads `refs` (in program order): the reference check, or its flagged part."""
    first: dict[int, tuple[WorkloadRef, str]] = {}
    count: dict[int, int] = {}
    produced = ir.producers
    unchecked = ir.loaded.unchecked_transfer_ids
    for ref in refs:
        if all(tid in produced or tid in unchecked for tid in ir.uses(ref)):
            continue  # the common case: no pointers to build
        for ptr, tid in _consumer_sites(ref):
            if tid in produced or tid in unchecked:
                continue
            count[tid] = count.get(tid, 0) + 1
            first.setdefault(tid, (ref, ptr))
    for tid, (ref, ptr) in first.items():
        more = count[tid] - 1
        tail = f" ({more} more use{'s' if more != 1 else ''})" if more else ""
        yield ctx.finding(
            "GIR201",
            dangling_message(tid) + tail,
            ptr,
            core_id=ref.core_id,
            workload_id=ref.workload_id,
            transfer_id=tid,
        )


def _dangling_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    return _dangling(ir, ctx, ir.workloads())


@rule("GIR201", "dangling-transfer", Severity.ERROR)
@fast_path(reference=_dangling_reference)
def dangling_transfer(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A transfer id is consumed but nothing produces it.

    Consumers are ifmap, weight, L2 buffer entries and their sources, and WL0 entries;
    producers are DRAM `out` entries and workload ofmaps. One finding per transfer id, at its
    first use, with the number of other uses.
    Why: the assembler cannot schedule a load or a core-to-core send for data nobody writes;
    the workload would read garbage.
    Example: `/0/3/ifmap/0: GIR201 error transfer 77 is consumed but no DRAM out entry or ofmap produces it`
    Fix: the producer's ofmap or DRAM `out` entry is missing or carries another id.
    """
    import numpy as np  # here, not at import: numpy costs `irtools validate` a tenth of a second to load

    from irtools.loading.columns import int64, transfer_columns

    cols = transfer_columns(ir)
    if cols is None:
        return _dangling_reference(ir, ctx)
    unchecked = int64(ir.loaded.unchecked_transfer_ids)  # ids of broken entries: any size
    produced = np.concatenate([cols.ofmap_tid, cols.dram_out_tid, unchecked])
    flagged = np.unique(cols.use_row[~np.isin(cols.use_tid, produced)])
    if not len(flagged):
        return iter(())  # nothing to check: no need for the producers' lookup and its pointers
    return _dangling(ir, ctx, [ir.rows[n] for n in flagged.tolist()])


def _duplicate_producer_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for tid, places in ir.producers.items():
        for dup in places[1:]:
            yield ctx.finding(
                "GIR202",
                also_produced_message(tid, ir.loaded.file_pointer(places[0].pointer)),
                dup.pointer,
                core_id=dup.core_id,
                workload_id=dup.workload_id,
                transfer_id=tid,
                related=(places[0].pointer,),
            )


@rule("GIR202", "duplicate-producer", Severity.ERROR)
@fast_path(reference=_duplicate_producer_reference)
def duplicate_producer(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """One transfer id is produced more than once.

    Why: a transfer id must name exactly one piece of data; with two producers a consumer
    cannot tell which one it waits for.
    Example: `/1/4/ofmap/0: GIR202 error transfer 56 is also produced at /0/2/ofmap/0`
    Fix: give each DRAM `out` entry and each ofmap its own transfer id.
    """
    import numpy as np

    from irtools.loading.columns import transfer_columns

    cols = transfer_columns(ir)
    if cols is not None:
        produced = np.concatenate([cols.ofmap_tid, cols.dram_out_tid])
        if len(np.unique(produced)) == len(produced):
            return iter(())  # every transfer id produced once
    return _duplicate_producer_reference(ir, ctx)


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
    for ref in ir.workloads():
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


def _destination_mismatch_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    yield from _destinations_exist(ir, ctx, range(len(ir.ir.dram.out)), ir.workloads())
    yield from _readers_listed(ir, ctx, ir.workloads())


@rule("GIR203", "destination-mismatch", Severity.ERROR)
@fast_path(reference=_destination_mismatch_reference)
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
    import numpy as np

    from irtools.loading.columns import first_rows, pair_keys, transfer_columns

    cols = transfer_columns(ir)
    if cols is None:
        yield from _destination_mismatch_reference(ir, ctx)
        return
    targets = cols.workload_keys(cols.dest_core, cols.dest_workload_id)
    owners = cols.workload_keys(cols.core, cols.workload_id)
    readers = cols.workload_keys(cols.core[cols.read_row], cols.workload_id[cols.read_row])
    if targets is None or owners is None or readers is None:
        yield from _destination_mismatch_reference(ir, ctx)
        return
    # A destination is suspect when its workload is missing or does not name the transfer.
    row = first_rows(owners, targets)
    used = pair_keys(row, cols.dest_tid, cols.use_row, cols.use_tid)
    listed = pair_keys(targets, cols.dest_tid, readers, cols.read_tid)
    if used is None or listed is None:
        yield from _destination_mismatch_reference(ir, ctx)
        return
    suspect = (row < 0) | ~np.isin(used[0], used[1])
    dram = cols.dest_producer[suspect & (cols.dest_row < 0)]
    rows = cols.dest_row[suspect & (cols.dest_row >= 0)]
    yield from _destinations_exist(
        ir, ctx, np.unique(dram).tolist(), [ir.rows[n] for n in np.unique(rows).tolist()]
    )
    # An ifmap read of an ofmap's transfer is suspect when no ofmap lists its workload.
    from_ofmap = np.isin(cols.read_tid, cols.ofmap_tid)
    by_ofmap = cols.dest_row >= 0
    suspect = from_ofmap & ~np.isin(listed[1], listed[0][by_ofmap])
    yield from _readers_listed(ir, ctx, [ir.rows[n] for n in np.unique(cols.read_row[suspect]).tolist()])


def _causality_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        for i, t in enumerate(ref.workload.ifmap):
            for tid in t.transfer_id:
                producer = ir.ofmap_producer.get(tid)
                if producer is None or producer.core_id != ref.core_id or producer.position < ref.position:
                    continue
                yield ctx.finding(
                    "GIR204",
                    causality_message(tid, producer.workload_id, later=producer is not ref),
                    jp.extend(ref.pointer, "ifmap", i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=tid,
                    related=(producer.pointer,),
                )


@rule("GIR204", "causality", Severity.ERROR)
@fast_path(reference=_causality_reference)
def causality(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """On one core, a workload reads an ofmap that the same core produces later (or itself).

    A workload's inputs are its ifmap transfer ids and its core destinations; a core runs its
    workloads in ascending workload_id, so the producer must come first.
    Why: the consumer would start before its input exists; on hardware it reads stale data or
    stalls forever.
    Example: `/0/3/ifmap/0: GIR204 error reads transfer 40 produced by workload 5, which runs later on this core`
    On the raw dialect, each ifmap (and weight taken from an ofmap) also names the latest
    workload it waits for, `max_workload_id`: it must be the latest producer of its transfer ids
    (through DRAM: the writer of the DRAM `in` entry read back; 0 for the network input), and
    when that producer runs on the same core it must come first.
    Fix: reorder the workloads or fix the transfer id.
    """
    from irtools.rules.screens import causality_rows, screened

    return screened(ir, ctx, causality_rows, _causality_reference)


def _frame_free(lower: list[int], upper: list[int]) -> tuple[int, ...]:
    # DRAM `in` ranges use absolute batch indices while ofmaps are relative to their batch group:
    # compare the N extent and the C/K, H, W coordinates only.
    return (upper[0] - lower[0], *lower[1:], *upper[1:])


@rule("GIR205", "dram-in-mismatch", Severity.WARNING)
def dram_in_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """DRAM `in` entries and ofmaps with a DRAM destination do not match one to one.

    Each DRAM `in` entry must match an ofmap with a DRAM destination on the same core_id,
    workload_id, transfer_id and layer_name, with the same range (the batch index compared by
    extent, since ofmaps count batches within their batch group); and each such ofmap must
    have its DRAM `in` entry.
    Why: the DRAM `in` list is what the runtime copies back from DRAM; a missing or mismatched
    entry loses a network output or writes it to the wrong place.
    Example: `/-1/in/0: GIR205 warning no ofmap of core 0 workload 34 sends transfer 72 to DRAM`
    Fix: regenerate the DRAM section from the ofmaps.
    """
    to_dram: dict[int, tuple[WorkloadRef, int]] = {}
    for ref in ir.workloads():
        for i, o in enumerate(ref.workload.ofmap):
            if any(d.type == "DRAM" for d in o.destination):
                to_dram.setdefault(o.transfer_id, (ref, i))
    matched: set[int] = set()
    for k, entry in enumerate(ir.ir.dram.in_):
        ptr = jp.join("-1", "in", k)
        loc: dict[str, Any] = {
            "core_id": entry.core_id,
            "workload_id": entry.workload_id,
            "transfer_id": entry.transfer_id,
        }
        hit = to_dram.get(entry.transfer_id)
        if hit is None:
            yield ctx.finding("GIR205", f"no ofmap sends transfer {entry.transfer_id} to DRAM", ptr, **loc)
            continue
        ref, i = hit
        matched.add(entry.transfer_id)
        o = ref.workload.ofmap[i]
        problems = []
        if (ref.core_id, ref.workload_id) != (entry.core_id, entry.workload_id):
            problems.append(f"it is produced by core {ref.core_id} workload {ref.workload_id}")
        if ref.workload.layer_name != entry.layer_name:
            problems.append(layer_problem(ref.workload.layer_name, entry.layer_name))
        if _frame_free(o.lower, o.upper) != _frame_free(entry.lower, entry.upper):
            problems.append(range_problem(o.lower, o.upper, entry.lower, entry.upper))
        if problems:
            yield ctx.finding(
                "GIR205",
                dram_in_mismatch_message(entry.transfer_id, problems),
                ptr,
                **loc,
                related=(jp.extend(ref.pointer, "ofmap", i),),
            )
    for tid, (ref, i) in to_dram.items():
        if tid not in matched:
            yield ctx.finding(
                "GIR205",
                f"ofmap sends transfer {tid} to DRAM but the DRAM in list has no entry for it",
                jp.extend(ref.pointer, "ofmap", i),
                core_id=ref.core_id,
                workload_id=ref.workload_id,
                transfer_id=tid,
            )


@rule("GIR206", "related-dangling", Severity.WARNING)
def related_dangling(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A `related_ofmap` or `related_ifmap` id has no entry on the other side of the DRAM section.

    `related_ofmap` of a DRAM `in` entry names DRAM `out` transfers; `related_ifmap` of a
    DRAM `out` entry names DRAM `in` transfers.
    Why: these links tell the runtime which spilled data is read back; a dangling link hides a
    read-after-write dependency through DRAM.
    Example: `/-1/in/0/related_ofmap/0: GIR206 warning related_ofmap 73 is not a DRAM out transfer`
    Fix: regenerate the DRAM section.
    """
    out_ids = {e.transfer_id for e in ir.ir.dram.out}
    in_ids = {e.transfer_id for e in ir.ir.dram.in_}
    sides = [
        ("in", k, "related_ofmap", e.related_ofmap, out_ids, "DRAM out", e.transfer_id)
        for k, e in enumerate(ir.ir.dram.in_)
    ] + [
        ("out", k, "related_ifmap", e.related_ifmap, in_ids, "DRAM in", e.transfer_id)
        for k, e in enumerate(ir.ir.dram.out)
    ]
    for side, k, key, related, known, other, own in sides:
        # One finding per entry: an entry can list thousands of ids.
        missing = [(j, tid) for j, tid in enumerate(related) if tid not in known]
        if not missing:
            continue
        j, tid = missing[0]
        if len(missing) == 1:
            message = related_dangling_message(key, tid, other)
        else:
            ids = id_list([t for _, t in missing])
            message = f"{key} names {len(missing)} ids that are not {other} transfers: {ids}"
        yield ctx.finding("GIR206", message, jp.join("-1", side, k, key, j), transfer_id=own)
