"""Placement: how each layer is cut into workloads, which core runs each, and in what order."""

from __future__ import annotations

import random
from dataclasses import dataclass

from irtools.synth.boxes import ALIGN, Box, fmap_size, split, weight_size
from irtools.synth.graph import Layer


@dataclass(frozen=True, slots=True)
class LayerPlan:
    """A layer cut into parts by output rows, output channels or both, each part on one core."""

    layer: Layer
    mode: str
    """rows, channels or grid (both)."""
    parts: tuple[tuple[int, int, int, int], ...]
    """(k0, k1, h0, h1) of each part; every part spans the full width."""
    cores: tuple[int, ...]
    """Core of each part (a core may run several parts)."""

    def box(self, part: int, n: int) -> Box:
        """The ofmap box of a part for batch sample n."""
        k0, k1, h0, h1 = self.parts[part]
        return Box((n, k0, h0, 0), (n, k1, h1, self.layer.width - 1))


@dataclass(slots=True)
class Task:
    """One workload: a part of a layer for one batch sample, placed on a core."""

    plan: LayerPlan
    group: int
    """Batch sample (batch group of one), the N coordinate of every box of this workload."""
    part: int
    core: int
    workload_id: int
    """Rank in the global schedule: ascending on every core, unique across cores."""
    position: int = 0
    """Index in the core's workload list."""

    @property
    def layer(self) -> Layer:
        """The layer this workload computes a part of."""
        return self.plan.layer

    @property
    def box(self) -> Box:
        """This workload's output box: its part of the layer for its batch group."""
        return self.plan.box(self.part, self.group)


@dataclass(frozen=True, slots=True)
class Caps:
    """Largest fmap and weight tile (bytes) a workload may have, so that a snapshot fits its ring region."""

    fmap: int
    weight: int


def snake(xlen: int, ylen: int) -> list[int]:
    """Core ids in boustrophedon order over the mesh, so that neighbours in the list are mesh neighbours."""
    order: list[int] = []
    for y in range(ylen):
        row = [y * xlen + x for x in range(xlen)]
        order.extend(row if y % 2 == 0 else row[::-1])
    return order


def _grid(layer: Layer, kparts: int, hparts: int) -> list[tuple[int, int, int, int]]:
    """Parts of a layer cut into `kparts` channel ranges times `hparts` row ranges."""
    return [
        (k0, k1, h0, h1)
        for k0, k1 in split(0, layer.channels - 1, kparts, ALIGN)
        for h0, h1 in split(0, layer.height - 1, hparts)
    ]


def _fits(layer: Layer, kparts: int, hparts: int, caps: Caps) -> bool:
    """Whether every part of the grid cut has its ofmap, ifmap and weight within `caps`."""
    # Sizes are products of a channel factor and a row factor: checking the largest of each suffices.
    widest = max(k1 - k0 + 1 for k0, k1 in split(0, layer.channels - 1, kparts, ALIGN))
    rows = split(0, layer.height - 1, hparts)
    tallest = max(h1 - h0 + 1 for h0, h1 in rows)
    out = Box((0, 0, 0, 0), (0, widest - 1, tallest - 1, layer.width - 1))
    if fmap_size(out) > caps.fmap:
        return False
    for h0, h1 in rows:
        need = layer.input_box(Box((0, 0, h0, 0), (0, widest - 1, h1, layer.width - 1)))
        if fmap_size(need) > caps.fmap:
            return False
    return layer.op != "conv" or weight_size(layer.weight_box(0, widest - 1)) <= caps.weight


def _cut(layer: Layer, wanted: int, first: str, caps: Caps) -> tuple[str, int, int] | None:
    """(mode, channel parts, row parts): a 1-D cut of about `wanted` parts, else the smallest 2-D cut."""
    kmax, hmax = -(-layer.channels // ALIGN), layer.height
    for mode in (first, "channels" if first == "rows" else "rows"):
        top = hmax if mode == "rows" else kmax
        for count in range(min(wanted, top), top + 1):
            kparts, hparts = (1, count) if mode == "rows" else (count, 1)
            if _fits(layer, kparts, hparts, caps):
                return mode, kparts, hparts
    best: tuple[str, int, int] | None = None
    for kparts in range(2, kmax + 1):
        for hparts in range(2, hmax + 1):
            if best is not None and kparts * hparts >= best[1] * best[2]:
                break
            if _fits(layer, kparts, hparts, caps):
                best = ("grid", kparts, hparts)
                break
    return best


def plan_layers(
    layers: list[Layer], xlen: int, ylen: int, caps: Caps, rng: random.Random
) -> list[LayerPlan] | None:
    """A plan per layer, or None when some layer needs more than max(8, 2 x cores) tiles to fit `caps`."""
    order = snake(xlen, ylen)
    cores = len(order)
    low, high = max(1, cores // 16), max(2, cores // 4)
    limit = max(8, 2 * cores)
    cursor = 0
    plans: list[LayerPlan] = []
    for layer in layers:
        if layer.op != "conv" and layer.inputs and rng.random() < 0.6:
            # Element-wise layers often run where their first input is produced: no NoC traffic,
            # and the consumer reads its ifmap in place from the producer's output in L2.
            src = plans[layer.inputs[0]]
            plans.append(LayerPlan(layer, src.mode, src.parts, src.cores))
            continue
        wanted = rng.randint(low, high)
        first = "rows" if rng.random() < (0.6 if layer.op == "conv" else 0.7) else "channels"
        cut = _cut(layer, wanted, first, caps)
        if cut is None or cut[1] * cut[2] > limit:
            return None  # this network is too large for L2: the caller tries a smaller one
        mode, kparts, hparts = cut
        chosen = _grid(layer, kparts, hparts)
        placed = tuple(order[(cursor + p) % cores] for p in range(len(chosen)))
        plans.append(LayerPlan(layer, mode, tuple(chosen), placed))
        cursor = (cursor + max(1, len(chosen) // 2)) % cores
    return plans


def schedule(plans: list[LayerPlan], batch: int, cores: int) -> tuple[list[Task], list[list[Task]]]:
    """Every workload in global order (batch sample, layer, part), and each core's program.

    Every producer comes before its consumers in this order (layers are topologically numbered
    and a consumer reads only its own batch sample), and each core runs its workloads in it, so
    no core can wait on a workload that waits on it: the schedule cannot deadlock.
    """
    tasks: list[Task] = []
    per_core: list[list[Task]] = [[] for _ in range(cores)]
    for group in range(batch):
        for plan in plans:
            for part, core in enumerate(plan.cores):
                task = Task(plan, group, part, core, len(tasks))
                task.position = len(per_core[core])
                per_core[core].append(task)
                tasks.append(task)
    return tasks, per_core
