"""GIR202 duplicate-producer: one transfer id is produced more than once."""

from __future__ import annotations

from collections.abc import Iterator

from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule


def also_produced_message(transfer_id: int, first_pointer: str) -> str:
    """GIR202's message at a second producer of a transfer id, naming where the first one is."""
    return f"transfer {transfer_id} is also produced at {first_pointer}"


def repeated_producers(ir: IRIndex) -> list[int] | None:
    """GIR202's screen: nothing when every ofmap and DRAM `out` entry has its own transfer id, else
    None (a second producer may be a DRAM entry, which is no workload: the check reads the file)."""
    import numpy as np

    from irtools.loading.columns import transfer_columns
    from irtools.loading.sets import has_repeats

    cols = transfer_columns(ir)
    if cols is None:
        return None
    produced = np.concatenate([cols.ofmap_tid, cols.dram_out_tid])
    return None if has_repeats(produced) else []


@rule("GIR202", "duplicate-producer", Severity.ERROR, screen=repeated_producers, whole_file=True)
def duplicate_producer(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """One transfer id is produced more than once.

    Why: a transfer id must name exactly one piece of data; with two producers a consumer
    cannot tell which one it waits for.
    Example: `/1/4/ofmap/0: GIR202 error transfer 56 is also produced at /0/2/ofmap/0`
    Fix: give each DRAM `out` entry and each ofmap its own transfer id.
    """
    for tid, places in ir.producers.items():
        for dup in places[1:]:
            yield ctx.finding(
                "GIR202",
                also_produced_message(tid, ir.loaded.file_pointer(places[0].pointer)),
                dup.pointer,
                core_id=dup.core_id,
                workload_id=dup.workload_id,
                transfer_id=tid,
                related=(places[0].pointer,),
            )
