"""GIR204 causality: on one core, a workload reads what the core produces later (or itself); on the raw
and alloc dialects, also the `max_workload_id` each input waits for."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext, id_list
from irtools.rules.raw import raw_workloads
from irtools.rules.registry import rule, variant


def causality_message(transfer_id: int, producer_workload_id: int, *, later: bool) -> str:
    """GIR204's message for an ifmap read from the same core's own or a later workload's ofmap."""
    when = "runs later on this core" if later else "is this workload"
    return f"reads transfer {transfer_id} produced by workload {producer_workload_id}, which {when}"


def max_workload_message(key: str, claimed: int, transfer_ids: Sequence[int], latest: int | None) -> str:
    """GIR204's message (raw) for a max_workload_id that is not the latest producer of the tensor's transfers
    (`latest` None: no workload produces them, so it should be 0); synth predicts it with this too."""
    source = (
        f"the latest producer of transfers [{id_list(transfer_ids, ', ')}] is workload {latest}"
        if latest is not None
        else f"no workload produces transfers [{id_list(transfer_ids, ', ')}] (then it is 0)"
    )
    return f"{key} max_workload_id {claimed} but {source}"


def causality_rows(ir: IRIndex) -> list[int] | None:
    """GIR204's screen: workloads reading an ifmap transfer whose first producer is on their core, not earlier."""
    from irtools.loading.boxes import flagged_rows
    from irtools.loading.columns import first_rows, take, transfer_columns

    cols = transfer_columns(ir)
    if cols is None:
        return None
    producer = take(cols.ofmap_row, first_rows(cols.ofmap_tid, cols.read_tid))
    made = producer >= 0
    reader, producer = cols.read_row[made], producer[made]
    # Rows run in program order within a core: a later position is a larger row.
    late = (cols.core[producer] == cols.core[reader]) & (producer >= reader)
    return flagged_rows([reader[late]])


@rule("GIR204", "causality", Severity.ERROR, screen=causality_rows)
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


def latest_producers(ir: IRIndex) -> dict[int, int]:
    """transfer_id -> the latest workload whose output it carries: the ofmap's own workload, or,
    for a DRAM `out` entry, the workloads that wrote the DRAM `in` entries it reads back (related_ifmap).
    Always of the whole file (`ir.rows`), however few workloads a screen lets the check walk.
    """
    written = {e.transfer_id: e.workload_id for e in ir.ir.dram.in_}
    latest: dict[int, int] = {}
    for entry in ir.ir.dram.out:
        wids = [written[t] for t in entry.related_ifmap if t in written]
        if wids:
            latest[entry.transfer_id] = max(wids)
    for ref in ir.rows:
        for o in ref.workload.ofmap:
            latest[o.transfer_id] = max(latest.get(o.transfer_id, -1), ref.workload_id)
    return latest


def max_workload_rows(ir: IRIndex) -> list[int] | None:
    """GIR204's screen on raw files: workloads whose `max_workload_id` may not be the latest producer of
    their inputs (`latest_producers`), or names a workload not earlier on their core."""
    import numpy as np

    from irtools.loading.boxes import flagged_rows
    from irtools.loading.columns import first_rows, transfer_columns, wait_claims
    from irtools.loading.sets import has_repeats

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
    if has_repeats(written[:, 0]) or has_repeats(read_out):
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
    claims = wait_claims(ir)
    if claims is None:
        return None
    at = np.minimum(np.searchsorted(known, claims.tid), max(len(known) - 1, 0))
    made = (known[at] == claims.tid) if len(known) else np.zeros(len(claims.tid), dtype=bool)
    expected = np.full(len(claims.row), -1, dtype=np.int64)
    np.maximum.at(expected, claims.tensor[made], latest[at[made]])
    produced = expected >= 0
    wrong = claims.claimed != np.where(produced, expected, 0)
    # The workload it names, when on this core: first with that id, as `by_id`; it must come first.
    rows = claims.row
    named = produced & (claims.claimed <= int(cols.workload_id.max(initial=-1)))
    owners = cols.workload_keys(cols.core, cols.workload_id)
    targets = cols.workload_keys(cols.core[rows], np.where(named, claims.claimed, 0))
    if owners is None or targets is None:
        return None
    target = first_rows(owners, targets)
    late = named & (target >= rows)
    has_ids = np.bincount(claims.tensor, minlength=len(rows)) > 0
    return flagged_rows([rows[(has_ids | ~claims.weight) & (wrong | late)]])


@variant("GIR204", needs={Capability.DRAM_WAITS}, screen=max_workload_rows, plus_main=True)
def max_workload_causality(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR204 on the raw dialect: `max_workload_id` against the producers of the transfers it waits for.

    The scheduler sets it to the latest workload producing one of the tensor's transfers (through
    DRAM: the writers of the DRAM `in` entries it reads back), and 0 when none does (the network
    input). It must be that workload, and when that workload runs on the same core it must come first.
    Then the main form: the transfer order.
    """
    latest: dict[int, int] | None = None  # of the whole file, built at the first workload checked
    for core_id, position, pointer, wl in raw_workloads(ir):
        latest = latest_producers(ir) if latest is None else latest
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
