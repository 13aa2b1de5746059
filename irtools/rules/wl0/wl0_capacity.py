"""GIR402 wl0-capacity: a WL0 weight ends past `--wl0-size` bytes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule
from irtools.rules.wl0.common import weight_columns, weight_text


def wl0_capacity_message(transfer_ids: Sequence[int], end: int, wl0_size: int) -> str:
    """GIR402's message for a WL0 weight ending past --wl0-size."""
    return f"{weight_text(transfer_ids)} ends at {end:#x}, past WL0 size {wl0_size:#x}"


def past_wl0_rows(ir: IRIndex) -> list[int] | None:
    """GIR402's screen: workloads with a WL0 weight ending past the WL0 size (none without one)."""
    size = ir.options.wl0_size
    if not size:
        return []
    weights = weight_columns(ir)
    if weights is None:
        return None
    rows, _, end = weights
    return flagged_rows([rows[end > size]])


@rule("GIR402", "wl0-capacity", Severity.ERROR, needs={Capability.WL0}, screen=past_wl0_rows, per_core=True)
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
                    wl0_capacity_message(e.transfer_id, e.address + e.size, size),
                    jp.extend(ref.pointer, ref.workload.wl0_key, i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                )
