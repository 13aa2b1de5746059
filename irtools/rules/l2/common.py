"""What several L2 rules share: how a finding names and locates an L2 tensor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irtools.loading.index import WorkloadRef, single_transfer
from irtools.model.view import BufferView, PlacedEntry
from irtools.rules.context import id_list, short


def loc(ref: WorkloadRef, entry: BufferView | None = None) -> dict[str, Any]:
    """A finding's core, workload and (when the entry holds exactly one) transfer."""
    ids = (entry.transfer_id or []) if entry is not None else []
    return {"core_id": ref.core_id, "workload_id": ref.workload_id, "transfer_id": single_transfer(ids)}


def tensor_text(type_: str, tensor_id: int, transfer_ids: Sequence[int], layer_name: str | None) -> str:
    """How GIR3xx messages name an L2 tensor: `ifmap tensor 0 [transfer 10,11] (Conv_1)` (synth too)."""
    ids = id_list(transfer_ids) or "-"
    layer = f" ({short(layer_name)})" if layer_name else ""
    return f"{type_} tensor {tensor_id} [transfer {ids}]{layer}"


def segments_text(segments: Sequence[tuple[int, int]]) -> str:
    """A tensor's L2 byte ranges as `[0x0, 0x4000)`, two joined by ` + ` when it wraps around its region."""
    return " + ".join(f"[{a:#x}, {b:#x})" for a, b in segments)


def describe(entry: PlacedEntry) -> str:
    """`tensor_text` of a placed L2 entry."""
    return tensor_text(entry.type, entry.tensor_id, entry.transfer_id or [], entry.layer_name)
