"""The multi-core wait graph (program order plus cross-core transfers) and cycle finding."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from irtools.dialects.base import Capability
from irtools.loading.index import workload_inputs
from irtools.model.view import is_core

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex, WorkloadRef


def wait_graph(ir: IRIndex) -> tuple[list[WorkloadRef], list[list[int]]]:
    """Nodes (workloads) and adjacency lists: predecessor on the core, and cross-core producer -> consumer."""
    nodes = list(ir.workloads())
    number = {id(ref): n for n, ref in enumerate(nodes)}
    edges: list[list[int]] = [[] for _ in nodes]
    read_back = dram_waits(ir) if ir.has(Capability.DRAM_WAITS) else {}
    for refs in ir.cores.values():
        for a, b in itertools.pairwise(refs):
            edges[number[id(a)]].append(number[id(b)])
    for ref in nodes:
        for tid in workload_inputs(ref.workload):
            producer = ir.ofmap_producer.get(tid)
            if producer is not None and producer.core_id != ref.core_id:
                edges[number[id(producer)]].append(number[id(ref)])
        for producer in read_back.get(id(ref), ()):
            if producer is not ref:
                edges[number[id(producer)]].append(number[id(ref)])
        for o in ref.workload.ofmap:
            for d in o.destination:
                if is_core(d) and d.core_id != ref.core_id:
                    target = ir.by_id.get((d.core_id, d.workload_id))
                    if target is not None:
                        edges[number[id(ref)]].append(number[id(target)])
    return nodes, edges


def dram_waits(ir: IRIndex) -> dict[int, list[WorkloadRef]]:
    """id(consumer) -> the workloads whose DRAM `in` writes it reads back through a DRAM `out` entry.

    Used for the raw dialect, whose `max_workload_id` says that a workload waits for those writers
    (the latest of them); the documented format's waits stay core-to-core only.
    """
    writers: dict[int, WorkloadRef] = {}
    for entry in ir.ir.dram.in_:
        ref = ir.by_id.get((entry.core_id, entry.workload_id))
        if ref is not None:
            writers[entry.transfer_id] = ref
    read_from: dict[int, list[WorkloadRef]] = {}
    for out in ir.ir.dram.out:
        found = [writers[t] for t in out.related_ifmap if t in writers]
        if found:
            read_from[out.transfer_id] = found
    waits: dict[int, list[WorkloadRef]] = {}
    if not read_from:
        return waits
    for ref in ir.workloads():
        producers = {id(p): p for t in workload_inputs(ref.workload) for p in read_from.get(t, ())}
        if producers:
            waits[id(ref)] = list(producers.values())
    return waits


def find_cycles(count: int, edges: list[list[int]]) -> list[list[int]]:
    """One cycle per strongly connected component with a cycle (iterative Tarjan, then BFS)."""
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if index[nxt] == -1:
                    work.append((nxt, 0))
                elif on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [_cycle_in(component, edges) for component in components]


def _cycle_in(component: list[int], edges: list[list[int]]) -> list[int]:
    """A shortest cycle through the component's smallest node, by BFS inside the component."""
    members = set(component)
    start = min(component)
    parent = {start: -1}
    queue = [start]
    for node in queue:
        for nxt in edges[node]:
            if nxt == start:
                path = [node]
                while parent[path[-1]] != -1:
                    path.append(parent[path[-1]])
                return path[::-1]
            if nxt in members and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return [start]
