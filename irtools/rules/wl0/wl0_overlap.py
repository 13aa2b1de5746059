"""GIR401 wl0-overlap: two weights of one WL0 snapshot share addresses."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, max_before
from irtools.loading.index import IRIndex, single_transfer
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule
from irtools.rules.wl0.common import weight_columns, weight_text


def wl0_overlap_message(
    a_ids: Sequence[int], a_address: int, a_size: int, b_ids: Sequence[int], b_address: int, b_size: int
) -> str:
    """GIR401's message: two WL0 weights and their byte ranges (synth predicts it with this too)."""
    return (
        f"{weight_text(a_ids)} [{a_address:#x}, {a_address + a_size:#x}) "
        f"overlaps {weight_text(b_ids)} [{b_address:#x}, {b_address + b_size:#x})"
    )


def overlapping_rows(ir: IRIndex) -> list[int] | None:
    """GIR401's screen: workloads with a weight (of size > 0) that starts before an earlier one of its
    snapshot ends, the weights taken by start and end as the check takes them."""
    weights = weight_columns(ir)
    if weights is None:
        return None
    rows, start, end = (column[weights[2] > weights[1]] for column in weights)
    if len(rows) and (int(end.max()) + 2) * (int(rows[-1]) + 2) >= 2**62:
        return None  # max_before lifts each snapshot's ends by its rank times their span, in int64
    order = np.lexsort((end, start, rows))
    rows, start, end = rows[order], start[order], end[order]
    return flagged_rows([rows[start < max_before(end, rows, -1)]])


@rule("GIR401", "wl0-overlap", Severity.ERROR, needs={Capability.WL0}, screen=overlapping_rows, per_core=True)
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
                    wl0_overlap_message(a.transfer_id, a.address, a.size, b.transfer_id, b.address, b.size),
                    jp.extend(ref.pointer, ref.workload.wl0_key, i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=single_transfer(a.transfer_id),
                    related=(jp.extend(ref.pointer, ref.workload.wl0_key, reach_idx),),
                )
            if end > reach_end:
                reach_end, reach_idx = end, i
