"""GIR206 related-dangling: a `related_ofmap` or `related_ifmap` id has no entry on the other side of DRAM."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext, id_list
from irtools.rules.registry import rule


def related_dangling_message(key: str, transfer_id: int, other: str) -> str:
    """GIR206's message for one related_ofmap/related_ifmap id the other side of DRAM lacks."""
    return f"{key} {transfer_id} is not a {other} transfer"


@rule("GIR206", "related-dangling", Severity.WARNING)
def related_dangling(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A `related_ofmap` or `related_ifmap` id has no entry on the other side of the DRAM section.

    `related_ofmap` of a DRAM `in` entry names DRAM `out` transfers; `related_ifmap` of a
    DRAM `out` entry names DRAM `in` transfers.
    Why: these links tell the runtime which spilled data is read back; a dangling link hides a
    read-after-write dependency through DRAM.
    Example: `/-1/in/0/related_ofmap/0: GIR206 warning related_ofmap 73 is not a DRAM out transfer`
    Fix: regenerate the DRAM section.
    """
    out_ids = {e.transfer_id for e in ir.ir.dram.out}
    in_ids = {e.transfer_id for e in ir.ir.dram.in_}
    sides = [
        ("in", k, "related_ofmap", e.related_ofmap, out_ids, "DRAM out", e.transfer_id)
        for k, e in enumerate(ir.ir.dram.in_)
    ] + [
        ("out", k, "related_ifmap", e.related_ifmap, in_ids, "DRAM in", e.transfer_id)
        for k, e in enumerate(ir.ir.dram.out)
    ]
    for side, k, key, related, known, other, own in sides:
        # One finding per entry: an entry can list thousands of ids.
        missing = [(j, tid) for j, tid in enumerate(related) if tid not in known]
        if not missing:
            continue
        j, tid = missing[0]
        if len(missing) == 1:
            message = related_dangling_message(key, tid, other)
        else:
            ids = id_list([t for _, t in missing])
            message = f"{key} names {len(missing)} ids that are not {other} transfers: {ids}"
        yield ctx.finding("GIR206", message, jp.join("-1", side, k, key, j), transfer_id=own)
