"""GIR502 deadlock: cores wait on each other in a cycle."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule


def deadlock_message(cycle: Sequence[tuple[int, int]]) -> str:
    """GIR502's message: the wait cycle's (core_id, workload_id) steps, back to the first."""
    return "deadlock: " + " -> ".join(f"core {c}/wl {w}" for c, w in [*cycle, cycle[0]])


def any_cycle(ir: IRIndex) -> list[int] | None:
    """GIR502's screen: nothing when the wait graph has no cycle (from columns), else None: only a cycle
    needs the reference's graph, which names it."""
    from irtools.loading.waits import waits_acyclic

    return [] if waits_acyclic(ir) else None


@rule("GIR502", "deadlock", Severity.ERROR, screen=any_cycle, whole_file=True)
def deadlock(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Cores wait on each other in a cycle.

    The wait graph has program order on each core (each workload waits for its predecessor)
    plus one edge per cross-core transfer, from the producing workload to each consumer (a
    workload whose ifmap or weight reads the producer's ofmap, or that the ofmap names as a
    destination). A cycle in it is a deadlock; the message lists the cycle as core/workload
    steps. Same-core order violations are GIR204.
    Why: every core in the cycle waits for data that another core in the cycle can only send
    after it is unblocked; the hardware hangs.
    Example: `/0/1: GIR502 error deadlock: core 0/wl 1 -> core 1/wl 0 -> core 1/wl 1 -> core 0/wl 0 -> core 0/wl 1`
    Fix: reorder the workloads so cross-core consumers run after their producers.
    """
    from irtools.loading.graph import find_cycles, wait_graph

    nodes, edges = wait_graph(ir)
    for cycle in find_cycles(len(nodes), edges):
        refs = [nodes[n] for n in cycle]
        yield ctx.finding(
            "GIR502",
            deadlock_message([(r.core_id, r.workload_id) for r in refs]),
            refs[0].pointer,
            core_id=refs[0].core_id,
            workload_id=refs[0].workload_id,
            related=tuple(r.pointer for r in refs[1:]),
        )
