"""GIR201 dangling-transfer: a transfer id is consumed but nothing produces it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule


def dangling_message(transfer_id: int) -> str:
    """GIR201's message for a consumed transfer id nothing produces (synth predicts it with this too)."""
    return f"transfer {transfer_id} is consumed but no DRAM out entry or ofmap produces it"


def unproduced_rows(ir: IRIndex) -> list[int] | None:
    """GIR201's screen: workloads using a transfer id that no ofmap, DRAM `out` or broken entry produces."""
    import numpy as np  # here, not at import: numpy costs `irtools validate` a tenth of a second to load

    from irtools.loading.columns import int64, transfer_columns, transfer_uses
    from irtools.loading.sets import distinct, member

    cols, uses = transfer_columns(ir), transfer_uses(ir)
    if cols is None or uses is None:
        return None
    use_row, use_tid = uses
    unchecked = int64(ir.loaded.unchecked_transfer_ids)  # ids of broken entries: any size
    produced = np.concatenate([cols.ofmap_tid, cols.dram_out_tid, unchecked])
    flagged: list[int] = distinct(use_row[~member(use_tid, produced)]).tolist()
    return flagged


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
    """GIR201 on the workloads `refs`, in program order."""
    first: dict[int, tuple[WorkloadRef, str]] = {}
    count: dict[int, int] = {}
    refs = list(refs)
    if not refs:
        return  # nothing screened in: no need for the producers' lookup and its pointers
    produced, unchecked = ir.producers, ir.loaded.unchecked_transfer_ids
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


@rule("GIR201", "dangling-transfer", Severity.ERROR, screen=unproduced_rows)
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
    return _dangling(ir, ctx, ir.workloads())
