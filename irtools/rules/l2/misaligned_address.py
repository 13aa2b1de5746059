"""GIR308 misaligned-address: an L2 tensor address is not a multiple of `--addr-align` bytes."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, tensor_columns
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.l2.common import loc
from irtools.rules.registry import rule


def misaligned_message(address: int, align: int) -> str:
    """GIR308's message for an L2 address off the --addr-align grid."""
    return f"address {address:#x} is not a multiple of {align}"


def misaligned_rows(ir: IRIndex) -> list[int] | None:
    """GIR308's screen: workloads with an L2 address off the --addr-align grid (none without it)."""
    align = ir.options.addr_align
    if not align:
        return []
    buffers = tensor_columns(ir).buffers
    address = buffers.ints("address")
    if address is None:
        return None
    return flagged_rows([buffers.row[address % align != 0]])


@rule(
    "GIR308",
    "misaligned-address",
    Severity.WARNING,
    needs={Capability.L2_ADDRESSES},
    screen=misaligned_rows,
    per_core=True,
)
def misaligned_address(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """An L2 tensor address is not a multiple of `--addr-align` bytes (off unless that option is given).

    Why: DMA engines and banked memories (e.g. 64-byte aligned layouts on BM1684x, NVDLA
    CONV_BUF banks) require aligned start addresses; a misaligned tensor is read wrongly.
    Example: `/0/3/buffer/0/address: GIR308 warning address 0x1010 is not a multiple of 64`
    Fix: round addresses up in the allocator.
    """
    align = ctx.options.addr_align
    if not align:
        return
    for ref in ir.workloads():
        for i, entry in enumerate(ir.placed(ref)):
            if entry.address % align:
                yield ctx.finding(
                    "GIR308",
                    misaligned_message(entry.address, align),
                    jp.extend(ref.pointer, "buffer", i, "address"),
                    **loc(ref, entry),
                )
