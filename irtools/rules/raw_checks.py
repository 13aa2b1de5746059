"""The forms of GIR204, GIR304 and GIR305 for files that hold what the scheduler's own IR holds.

`max_workload_id` (DRAM_WAITS), inputs held ahead for the next workload (HELD_AHEAD) and sources in
the producer's frame with `channel` (SOURCE_CHANNELS): the raw and allocated dialects.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.dialects.raw.models import RawBufferEntry, RawSource, RawWorkload, flat_ids
from irtools.findings import Finding
from irtools.loading.boxes import only
from irtools.loading.index import IRIndex
from irtools.reference import fast_path
from irtools.rules.buffers import snapshot_continuity
from irtools.rules.context import CheckContext, id_list
from irtools.rules.registry import variant
from irtools.rules.screens import max_workload_rows
from irtools.rules.transfers import causality


def max_workload_message(key: str, claimed: int, transfer_ids: Sequence[int], latest: int | None) -> str:
    """GIR204's message (raw) for a max_workload_id that is not the latest producer of the tensor's transfers
    (`latest` None: no workload produces them, so it should be 0); synth predicts it with this too."""
    source = (
        f"the latest producer of transfers [{id_list(transfer_ids, ', ')}] is workload {latest}"
        if latest is not None
        else f"no workload produces transfers [{id_list(transfer_ids, ', ')}] (then it is 0)"
    )
    return f"{key} max_workload_id {claimed} but {source}"


def raw_workloads(ir: IRIndex) -> Iterator[tuple[int, int, str, RawWorkload]]:
    """(core_id, position, pointer, raw workload) for every workload the index holds."""
    for ref in ir.workloads():
        yield ref.core_id, ref.position, ref.pointer, ir.raw(ref)


def latest_producers(ir: IRIndex) -> dict[int, int]:
    """transfer_id -> the latest workload whose output it carries: the ofmap's own workload, or,
    for a DRAM `out` entry, the workloads that wrote the DRAM `in` entries it reads back (related_ifmap).
    """
    written = {e.transfer_id: e.workload_id for e in ir.ir.dram.in_}
    latest: dict[int, int] = {}
    for entry in ir.ir.dram.out:
        wids = [written[t] for t in entry.related_ifmap if t in written]
        if wids:
            latest[entry.transfer_id] = max(wids)
    for ref in ir.workloads():
        for o in ref.workload.ofmap:
            latest[o.transfer_id] = max(latest.get(o.transfer_id, -1), ref.workload_id)
    return latest


def _max_workload_causality(
    ir: IRIndex, ctx: CheckContext, latest: dict[int, int] | None = None
) -> Iterator[Finding]:
    """GIR204 on the raw dialect: `max_workload_id` against the producers of the transfers it waits for.

    The scheduler sets it to the latest workload producing one of the tensor's transfers (through
    DRAM: the writers of the DRAM `in` entries it reads back), and 0 when none does (the network
    input). It must be that workload, and when that workload runs on the same core it must come first.
    """
    latest = latest_producers(ir) if latest is None else latest
    for core_id, position, pointer, wl in raw_workloads(ir):
        tensors = [("ifmap", wl.waits.transfer_id, wl.waits.max_workload_id)]
        if wl.weight is not None and wl.weight.max_workload_id is not None and wl.weight.transfer_id:
            tensors.append(("weight", wl.weight.transfer_id, wl.weight.max_workload_id))
        for key, ids, claimed in tensors:
            ptr = jp.extend(pointer, key, "max_workload_id")
            loc: dict[str, Any] = {
                "core_id": core_id,
                "workload_id": wl.workload_id,
                "transfer_id": ids[0] if len(ids) == 1 else None,
            }
            producers = [latest[t] for t in ids if t in latest]
            expected = max(producers) if producers else 0
            if claimed != expected:
                message = max_workload_message(key, claimed, ids, expected if producers else None)
                yield ctx.finding("GIR204", message, ptr, **loc)
                continue
            target = ir.by_id.get((core_id, claimed)) if producers else None
            if target is not None and target.position >= position:
                when = "is this workload" if target.position == position else "runs later on this core"
                yield ctx.finding(
                    "GIR204",
                    f"{key} waits for workload {claimed} (max_workload_id), which {when}",
                    ptr,
                    **loc,
                    related=(target.pointer,),
                )


def _consumer_box(source: RawSource) -> tuple[list[int], list[int]] | None:
    """A source's box in the consumer's frame: its `channel` range replaces C (concatenations)."""
    lower, upper = source.lower_as_written, source.upper_as_written
    if not isinstance(lower, list) or not isinstance(upper, list):
        return None
    if source.channel is None:
        return lower, upper
    return [lower[0], source.channel[0], *lower[2:]], [upper[0], source.channel[1], *upper[2:]]


def _bounding_box(entry: RawBufferEntry) -> tuple[list[int], list[int]] | None:
    """The sources' bounding box in the consumer's frame; None for channel bounds and 3-D boxes."""
    assert entry.source
    lower, upper = entry.lower_as_written, entry.upper_as_written
    if not (isinstance(lower, list) and len(lower) == 4 and isinstance(upper, list)):
        return None
    if len(entry.source) == 1:
        return _consumer_box(entry.source[0])
    boxes = []
    for s in entry.source:
        box = _consumer_box(s)
        if box is None:
            return None
        boxes.append(box)
    lower = [min(b[0][d] for b in boxes) for d in range(4)]
    upper = [max(b[1][d] for b in boxes) for d in range(4)]
    return lower, upper


@variant("GIR305", needs={Capability.SOURCE_CHANNELS})
def raw_source_union(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR305 on the raw dialect: ids and range of each ifmap/weight entry against its sources.

    Sources give their range in the producer's frame and, with `channel`, where their channels
    land in the consumer's ifmap: the bounding box is taken in the consumer's frame. An input
    entry with no source at all is reported: nothing brings its data.
    """
    for core_id, _, pointer, wl in raw_workloads(ir):
        for i, entry in enumerate(wl.buffer):
            if entry.type == "ofmap":
                continue
            problems = []
            lower, upper = entry.lower_as_written, entry.upper_as_written
            if not entry.source:
                own = sorted(set(entry.transfer_id or ()))
                # Say what the entry does carry: an entry with ids but no source names transfers nothing sends.
                carries = (
                    f"transfer_id [{id_list(own, ', ')}] but no source"
                    if own
                    else "no source and no transfer id"
                )
                problems.append(
                    f"{entry.type} entry of layer {entry.layer!r} has {carries}: nothing brings {lower}..{upper}"
                )
            else:
                ids = sorted({s.transfer_id for s in entry.source})
                own = sorted(set(entry.transfer_id or ()))
                if own != ids:
                    problems.append(
                        f"transfer_id [{id_list(own, ', ')}] differs from the sources' ids [{id_list(ids, ', ')}]"
                    )
                box = _bounding_box(entry)
                if box is not None and box != (lower, upper):
                    problems.append(
                        f"range {lower}..{upper} differs from the sources' bounding box "
                        f"{box[0]}..{box[1]} (channels placed by `channel`)"
                    )
            for message in problems:  # the pointer is built only for a finding: most entries have none
                ptr = jp.extend(pointer, "buffer", i)
                yield ctx.finding("GIR305", message, ptr, core_id=core_id, workload_id=wl.workload_id)


@variant("GIR304", needs={Capability.HELD_AHEAD})
def raw_snapshot_continuity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR304 on the raw dialect: an input held ahead for a later workload must reach that workload.

    The scheduler lists an ifmap (or a weight from an ofmap) of workload w also in the snapshot of
    the workload before w on the same core, when it is already loaded then (`workload_id` = w). That
    entry must be for the next workload on the core, and w's own snapshot must hold it (same layer,
    same transfer ids).
    """
    for core_id, refs in ir.cores.items():
        for ref in refs:
            wl = ir.raw(ref)
            if ref.position + 1 < len(refs) and not ir.follows(refs[ref.position + 1]):
                continue  # the workload after it in the file was left out: its next one is unknown
            nxt = ir.raw(refs[ref.position + 1]) if ref.position + 1 < len(refs) else None
            for i, entry in enumerate(wl.buffer):
                if entry.workload_id is None or entry.workload_id == wl.workload_id:
                    continue
                ptr = jp.extend(ref.pointer, "buffer", i, "workload_id")
                loc: dict[str, Any] = {"core_id": core_id, "workload_id": wl.workload_id}
                if nxt is None or nxt.workload_id != entry.workload_id:
                    after = "no workload" if nxt is None else f"workload {nxt.workload_id}"
                    yield ctx.finding(
                        "GIR304",
                        f"{entry.type} of layer {entry.layer!r} is held for workload {entry.workload_id}, "
                        f"but {after} runs next on this core",
                        ptr,
                        **loc,
                    )
                    continue
                key = (entry.layer, flat_ids(entry.transfer_id_as_written))
                if not any(
                    e.workload_id == entry.workload_id
                    and (e.layer, flat_ids(e.transfer_id_as_written)) == key
                    for e in nxt.buffer
                ):
                    yield ctx.finding(
                        "GIR304",
                        f"{entry.type} of layer {entry.layer!r} is held for workload {entry.workload_id}, "
                        "whose own snapshot does not hold it",
                        ptr,
                        **loc,
                    )


@fast_path(reference=_max_workload_causality)
def _max_workload_screened(
    ir: IRIndex, ctx: CheckContext, latest: dict[int, int] | None = None
) -> Iterator[Finding]:
    rows = max_workload_rows(ir)
    if rows is None:
        return _max_workload_causality(ir, ctx, latest)
    if not rows:
        return iter(())
    # The flagged workloads only, against the producers of the whole file.
    return _max_workload_causality(only(ir, rows), ctx, latest or latest_producers(ir))


@variant("GIR204", needs={Capability.DRAM_WAITS})
def causality_with_waits(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR204 where each input names the latest workload it waits for: that, then the transfer order."""
    yield from _max_workload_screened(ir, ctx)
    yield from causality(ir, ctx)


@variant("GIR304", needs={Capability.HELD_AHEAD, Capability.NEWLY_ADDED})
def continuity_with_load_flags(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR304 where inputs are held ahead and each tensor's load is flagged (allocated files): both forms."""
    yield from raw_snapshot_continuity(ir, ctx)
    yield from snapshot_continuity(ir, ctx)
