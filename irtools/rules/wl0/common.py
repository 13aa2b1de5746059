"""What both WL0 rules share: how a finding names a WL0 weight, and the weights' columns their screens read."""

from __future__ import annotations

from collections.abc import Sequence

from irtools.loading.boxes import Ints, tensor_columns
from irtools.loading.index import IRIndex
from irtools.rules.context import id_list

_END_LIMIT = 2**62
"""Addresses and sizes below this add up in int64 without overflow."""


def weight_text(transfer_ids: Sequence[int]) -> str:
    """How GIR4xx messages name a WL0 weight: `weight [transfer 12]`."""
    return f"weight [transfer {id_list(transfer_ids)}]"


def weight_columns(ir: IRIndex) -> tuple[Ints, Ints, Ints] | None:
    """Every WL0 weight's workload row, start address and end address (start + size, in bytes), in the
    snapshots' order; None when an address or size does not fit (the check then reads them all)."""
    wl0 = tensor_columns(ir).wl0
    start, size = wl0.ints("address"), wl0.ints("size")
    if start is None or size is None:
        return None
    if len(start) and max(int(start.max()), int(size.max())) >= _END_LIMIT:
        return None
    return wl0.row, start, start + size
