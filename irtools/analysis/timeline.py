"""Timing models over the workloads: sequential per core, and dependency-driven across cores."""

from __future__ import annotations

import array
from collections import deque
from dataclasses import dataclass

import numpy as np

from irtools.loading.columns import int32_where_fits, narrowed
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.loading.waits import wait_arrays

MODELS = ("sequential", "dependency")
"""The models every analysis has; `noc` joins them when a NoC bandwidth is given (irtools.analysis.noc)."""


@dataclass(slots=True)
class Schedule:
    """Start and end of every workload under one timing model; None for workloads it cannot place."""

    model: str
    nodes: list[WorkloadRef]
    start: list[int | None]
    end: list[int | None]
    wait: list[int | None]
    critical_path: list[int]
    """Node numbers, in time order, of the chain that ends last."""
    noc_time: list[int] | None = None
    """`noc` model: each node's NoC time (its layer step's); None for the other models."""
    noc_link: list[str | None] | None = None
    """`noc` model: each node's step's heaviest directed link."""

    def duration(self, n: int) -> int:
        """How long node n runs under this model: its time, stretched to its NoC time under `noc`."""
        own = self.nodes[n].workload.time
        return own if self.noc_time is None else max(own, self.noc_time[n])

    @property
    def makespan(self) -> int | None:
        """End of the last workload; None when some workload cannot be placed (or there are none)."""
        if not self.end or any(e is None for e in self.end):
            return None
        return max(e for e in self.end if e is not None)


def sequential(index: IRIndex) -> Schedule:
    """Each core runs its workloads back to back from cycle 0."""
    nodes = list(index.workloads())
    start: list[int | None] = []
    end: list[int | None] = []
    busiest: list[int] = []
    busiest_end = -1
    for refs in index.cores.values():
        first = len(start)
        clock = 0
        for ref in refs:
            start.append(clock)
            clock += ref.workload.time
            end.append(clock)
        if refs and clock > busiest_end:
            busiest_end, busiest = clock, list(range(first, len(start)))
    wait: list[int | None] = [0] * len(nodes)
    return Schedule("sequential", nodes, start, end, wait, busiest)


def dependency(index: IRIndex, durations: list[int] | None = None, model: str = "dependency") -> Schedule:
    """A workload starts when its core is free and everything it waits for has ended (Kahn's order).

    The waits are those of the checker's wait graph (GIR502): program order on a core, producers
    of the workload's inputs, and workloads naming it as a destination. Workloads in or behind a
    wait cycle keep None. `durations` (per node, in `index.workloads()` order) replaces the
    workloads' own `time`: the `noc` model passes max(time, NoC time).
    """
    nodes = list(index.rows)
    count = len(nodes)
    src, dst = wait_arrays(index)
    # Each node's predecessors in ascending order: its binding one is the first that ends last.
    # Each order in int32 where it fits and let go once its columns are taken: the walk below holds only
    # those (on a 64-core file the orders were 5.6 MiB at once, at analyze's peak).
    by_dst = int32_where_fits(np.lexsort((src, dst)))
    preds = _walkable(src[by_dst])
    pred_at = _walkable(np.searchsorted(dst[by_dst], np.arange(count + 1)))
    del by_dst
    by_src = int32_where_fits(np.argsort(src, kind="stable"))
    succs = _walkable(dst[by_src])
    succ_at = _walkable(np.searchsorted(src[by_src], np.arange(count + 1)))
    del by_src
    pending = _walkable(np.bincount(dst, minlength=count))
    times = [ref.workload.time for ref in nodes] if durations is None else durations
    start: list[int | None] = [None] * count
    end: list[int | None] = [None] * count
    binding: list[int] = [-1] * count
    ready = deque(n for n in range(count) if pending[n] == 0)
    while ready:
        n = ready.popleft()
        t, bind = 0, -1
        for p in preds[pred_at[n] : pred_at[n + 1]]:
            e = end[p]
            assert e is not None
            if e > t:
                t, bind = e, p
        start[n], binding[n] = t, bind
        end[n] = t + times[n]
        for m in succs[succ_at[n] : succ_at[n + 1]]:
            pending[m] -= 1
            if pending[m] == 0:
                ready.append(m)
    wait: list[int | None] = [None] * count
    for members in core_ranges(index):
        previous_end = 0
        for n in members:
            s = start[n]
            if s is None:
                break
            wait[n] = s - previous_end
            previous_end = end[n] or 0
    return Schedule(model, nodes, start, end, wait, _chain(end, binding))


def _walkable(column: np.ndarray) -> array.array[int]:
    """An int column for a Python loop: as fast to index and slice as a list, and 4 bytes a value (8 where
    one needs it) where a list holds an int object each (the wait graph of a 64-core file has hundreds
    of thousands of edges: as lists, 40 MiB for a moment). Copied once, straight from the column."""
    narrow = narrowed(column)
    walkable = array.array("i" if narrow.dtype == np.int32 else "q")
    values = np.ascontiguousarray(narrow, dtype=np.intc if walkable.typecode == "i" else np.int64)
    walkable.frombytes(values.data.cast("B"))
    return walkable


def core_ranges(index: IRIndex) -> list[range]:
    """Node numbers of each core's workloads in a schedule (cores in order, program order within)."""
    ranges, first = [], 0
    for refs in index.cores.values():
        ranges.append(range(first, first + len(refs)))
        first += len(refs)
    return ranges


def _chain(end: list[int | None], binding: list[int]) -> list[int]:
    """Follow the binding predecessor back from the workload that ends last."""
    placed = [n for n, e in enumerate(end) if e is not None]
    if not placed:
        return []
    n = max(placed, key=lambda k: (end[k], -k))
    chain = []
    while n != -1:
        chain.append(n)
        n = binding[n]
    return chain[::-1]


def schedules(index: IRIndex) -> dict[str, Schedule]:
    """Both timing models, by name."""
    return {"sequential": sequential(index), "dependency": dependency(index)}
