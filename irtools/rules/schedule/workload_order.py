"""GIR501 workload-order: workload ids within a core are duplicated or not ascending."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.boxes import ints, max_before, tensor_columns
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule
from irtools.rules.screens import core_ranks


def order_message(workload_id: int, previous: int) -> str:
    """GIR501's message for a workload_id below the one before it (synth predicts it with this too)."""
    return f"workload_id {workload_id} follows workload_id {previous} (ids must ascend)"


def unordered_rows(ir: IRIndex) -> list[int] | None:
    """GIR501's screen: the workloads whose id is not above every earlier id on their core (a repeat or a
    step down); None when the ids do not fit the columns. Nothing flagged: the check has nothing to find."""
    wid = ints(tensor_columns(ir).field("workload_id"), len(ir.rows))
    if wid is None or not len(wid):
        return None if wid is None else []
    core = core_ranks(ir)
    if (int(wid.max()) + 2) * len(ir.cores) >= 2**62:  # max_before lifts each core above the ones before
        return None
    return np.flatnonzero(wid <= max_before(wid, core, -1)).tolist()


@rule("GIR501", "workload-order", Severity.ERROR, screen=unordered_rows, whole_file=True, per_core=True)
def workload_order(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Workload ids within a core are duplicated or not ascending.

    Why: a core runs its workloads in ascending workload_id and destinations name workloads by
    id; a duplicate id makes a destination ambiguous, a descending one breaks program order.
    Example: `/0/5/workload_id: GIR501 error workload_id 4 follows workload_id 7 (ids must ascend)`
    Fix: renumber the core's workloads in program order.
    """
    for refs in ir.cores.values():
        first_at: dict[int, str] = {}
        previous: int | None = None
        for ref in refs:
            wid = ref.workload_id
            ptr = jp.extend(ref.pointer, "workload_id")
            if wid in first_at:
                yield ctx.finding(
                    "GIR501",
                    f"workload_id {wid} is used twice on this core",
                    ptr,
                    core_id=ref.core_id,
                    workload_id=wid,
                    related=(first_at[wid],),
                )
            elif previous is not None and wid < previous:
                yield ctx.finding(
                    "GIR501",
                    order_message(wid, previous),
                    ptr,
                    core_id=ref.core_id,
                    workload_id=wid,
                )
            first_at.setdefault(wid, ptr)
            previous = wid if previous is None else max(previous, wid)
