"""GIR4xx: the WL0 weight buffer snapshots."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, single_transfer
from irtools.rules.context import CheckContext, id_list
from irtools.rules.registry import rule


@rule("GIR401", "wl0-overlap", Severity.ERROR, needs={Capability.WL0})
def wl0_overlap(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Two weights of one WL0 snapshot share addresses.

    Why: WL0 feeds the PE array directly; overlapping weights are silently overwritten.
    Example: `/0/4/wl0_buffer/1: GIR401 error weight [transfer 3] [0x0, 0x380) overlaps weight [transfer 2] [0x200, 0x580)`
    Fix: the WL0 allocator reused live space.
    """
    for ref in ir.workloads():
        entries = ref.workload.wl0_entries
        spans = sorted((e.address, e.address + e.size, i) for i, e in enumerate(entries) if e.size > 0)
        reach_end, reach_idx = -1, -1
        for start, end, i in spans:
            if start < reach_end:
                a, b = entries[i], entries[reach_idx]
                yield ctx.finding(
                    "GIR401",
                    f"weight [transfer {id_list(a.transfer_id)}] [{a.address:#x}, {a.address + a.size:#x}) "
                    f"overlaps weight [transfer {id_list(b.transfer_id)}] "
                    f"[{b.address:#x}, {b.address + b.size:#x})",
                    jp.extend(ref.pointer, ref.workload.wl0_key, i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=single_transfer(a.transfer_id),
                    related=(jp.extend(ref.pointer, ref.workload.wl0_key, reach_idx),),
                )
            if end > reach_end:
                reach_end, reach_idx = end, i


@rule("GIR402", "wl0-capacity", Severity.ERROR, needs={Capability.WL0})
def wl0_capacity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A WL0 weight ends past `--wl0-size` bytes (off unless that option is given).

    The IR does not record the WL0 size (real files use up to about 19 KB), so give it.
    Why: a weight past the end of WL0 wraps or faults on hardware.
    Example: `/0/9/wl0_buffer/0: GIR402 error weight [transfer 12] ends at 0x4a00, past WL0 size 0x4000`
    Fix: split the weight or raise the WL0 size in the scheduler configuration.
    """
    size = ctx.options.wl0_size
    if not size:
        return
    for ref in ir.workloads():
        for i, e in enumerate(ref.workload.wl0_entries):
            if e.address + e.size > size:
                yield ctx.finding(
                    "GIR402",
                    f"weight [transfer {id_list(e.transfer_id)}] ends at {e.address + e.size:#x}, "
                    f"past WL0 size {size:#x}",
                    jp.extend(ref.pointer, ref.workload.wl0_key, i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                )
