"""GIR306 cur-wl-ifmap: `cur_wl_ifmap` flags disagree with the workload's ifmap transfer ids."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, tensor_columns
from irtools.loading.index import IRIndex
from irtools.loading.sets import distinct, member
from irtools.rules.context import CheckContext, id_list
from irtools.rules.l2.common import describe, loc
from irtools.rules.registry import rule


def flagged_without_ifmap(ifmap_transfer_ids: Sequence[int]) -> str:
    """GIR306's problem with an entry flagged cur_wl_ifmap that holds none of the workload's ifmap transfers."""
    return (
        f"is flagged cur_wl_ifmap but holds none of the ifmap transfers [{id_list(ifmap_transfer_ids, ', ')}]"
    )


def unflagged_ifmap(held_ids: Sequence[int]) -> str:
    """GIR306's problem with an ifmap entry that holds the workload's ifmap transfers but is not flagged."""
    return f"holds ifmap transfers [{id_list(held_ids, ', ')}] but is not flagged cur_wl_ifmap"


def cur_wl_ifmap_rows(ir: IRIndex) -> list[int] | None:
    """GIR306's screen: workloads whose `cur_wl_ifmap` flags disagree with their ifmap transfer ids."""
    cols = tensor_columns(ir)
    ifmaps, buffers = cols.ifmaps, cols.buffers
    wanted_ids, held_ids = ifmaps.lists("transfer_id"), buffers.lists("transfer_id")
    if wanted_ids is None or held_ids is None:
        return None
    span = int(max(wanted_ids[1].max(initial=0), held_ids[1].max(initial=0))) + 1
    if len(ir.rows) * span >= 2**62:
        return None
    wanted = distinct(ifmaps.row[wanted_ids[0]] * span + wanted_ids[1])
    entry = held_ids[0]
    held = buffers.row[entry] * span + held_ids[1]
    hit = member(held, wanted)
    hits = np.bincount(entry[hit], minlength=len(buffers))
    flagged = buffers.equals("cur_wl_ifmap", True)
    ifmap = buffers.equals("type", "ifmap")
    wrong = (flagged & (hits == 0)) | (~flagged & ifmap & (hits > 0))
    covering = flagged | ifmap
    missing = wanted[~member(wanted, held[covering[entry]])]
    return flagged_rows([buffers.row[wrong], missing // span])


@rule(
    "GIR306",
    "cur-wl-ifmap",
    Severity.WARNING,
    needs={Capability.CUR_WL_FLAGS},
    screen=cur_wl_ifmap_rows,
    per_core=True,
)
def cur_wl_ifmap(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """`cur_wl_ifmap` flags disagree with the workload's ifmap transfer ids.

    An entry flagged `cur_wl_ifmap: true` must hold at least one of the workload's ifmap
    transfer ids (it may hold more: one L2 tensor can cover several ifmap pieces); an ifmap
    entry that holds one of them must be flagged; and every ifmap transfer id must sit in a
    flagged entry.
    Why: the assembler locates the current workload's inputs by this flag alone.
    Example: `/0/7/buffer/1/cur_wl_ifmap: GIR306 warning ifmap tensor 5 [transfer 41] is flagged cur_wl_ifmap but holds none of the ifmap transfers [40]`
    Fix: recompute the flags from the workload's ifmap list.
    """
    for ref in ir.workloads():
        wl = ir.documented(ref)
        wanted = {t for i in wl.ifmap for t in i.transfer_id}
        flagged: set[int] = set()
        for i, entry in enumerate(wl.buffer):
            ids = set(entry.transfer_id or ())
            ptr = jp.extend(ref.pointer, "buffer", i, "cur_wl_ifmap")
            if entry.cur_wl_ifmap:
                flagged |= ids
                if not ids & wanted:
                    yield ctx.finding(
                        "GIR306",
                        f"{describe(entry)} {flagged_without_ifmap(sorted(wanted))}",
                        ptr,
                        **loc(ref, entry),
                    )
            elif entry.type == "ifmap" and ids & wanted:
                yield ctx.finding(
                    "GIR306",
                    f"{describe(entry)} {unflagged_ifmap(sorted(ids & wanted))}",
                    ptr,
                    **loc(ref, entry),
                )
                flagged |= ids
        missing = sorted(wanted - flagged)
        if missing and wl.buffer and ref.pointer not in ir.incomplete:
            yield ctx.finding(
                "GIR306",
                f"ifmap transfers [{id_list(missing, ', ')}] are in no buffer entry flagged cur_wl_ifmap",
                jp.extend(ref.pointer, "ifmap"),
                **loc(ref),
            )
