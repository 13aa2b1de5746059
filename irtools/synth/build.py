"""Build a valid Scheduler IR: transfers between the placed workloads, L2 and WL0 snapshots, tiles.

The steps: graph (layer DAG) -> placement (parts, cores, program order) -> this module
(transfers, tensors and their lifetimes) -> allocator (L2 addresses) -> this module again,
rendering the IR's JSON objects, with tiles (tile_info) for each workload. Every random choice comes from one `random.Random(seed)`, so a seed
always gives the same file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from irtools.rules.registry import UsageError
from irtools.synth.allocator import AllocationError, RingAllocator
from irtools.synth.boxes import ALIGN, BITWIDTH, Box, fmap_size, weight_size
from irtools.synth.graph import SCALES, Layer, build_graph, consumers
from irtools.synth.placement import Caps, Task, plan_layers, schedule
from irtools.synth.tiles import tile_info

KIB = 1024
MIB = 1024 * KIB

WL0_SIZE = 16 * KIB
"""WL0 capacity the generator assumes: every WL0 weight ends inside it (`--wl0-size 16384` stays clean)."""

WL0_SLOT = WL0_SIZE // 2
"""WL0 holds two weights: the current layer's in one half, the previous one's in the other."""

WL0_CHUNK = 4 * KIB
"""Largest piece of a weight held in WL0 at once."""

MAX_CORES = 4096
MAX_LAYERS = 100_000
MAX_BATCH = 1024
MIN_BUFFERSIZE = 64 * KIB


@dataclass(frozen=True, slots=True)
class SynthOptions:
    """What to generate; `check()` raises UsageError for values the generator cannot honour."""

    xlen: int = 2
    ylen: int = 2
    layers: int = 20
    batch: int = 1
    buffersize: int = 8 * MIB
    ring_regions: int = 1
    seed: int = 0

    def check(self) -> None:
        """Raise UsageError naming the option when a value is out of range."""
        if not (1 <= self.xlen and 1 <= self.ylen and self.xlen * self.ylen <= MAX_CORES):
            raise UsageError(f"--mesh: {self.xlen}x{self.ylen} has to have 1 to {MAX_CORES} cores")
        if not 1 <= self.layers <= MAX_LAYERS:
            raise UsageError(f"--layers: expected 1 to {MAX_LAYERS}, got {self.layers}")
        if not 1 <= self.batch <= MAX_BATCH:
            raise UsageError(f"--batch: expected 1 to {MAX_BATCH}, got {self.batch}")
        if not 1 <= self.ring_regions <= 16:
            raise UsageError(f"--ring-regions: expected 1 to 16, got {self.ring_regions}")
        if self.buffersize < MIN_BUFFERSIZE or self.buffersize % 64:
            raise UsageError(
                f"--buffersize: expected a multiple of 64 of at least {MIN_BUFFERSIZE}, got {self.buffersize}"
            )
        if self.buffersize // self.ring_regions < MIN_BUFFERSIZE:
            raise UsageError(
                f"--ring-regions: {self.ring_regions} regions of a {self.buffersize}-byte buffer are smaller "
                f"than {MIN_BUFFERSIZE} bytes each"
            )


@dataclass(slots=True)
class Stats:
    """What went into a generated IR (printed by `irtools synth`)."""

    cores: int = 0
    layers: int = 0
    workloads: int = 0
    core_transfers: int = 0
    """Ofmap destinations of type core (same-core and cross-core)."""
    cross_core_transfers: int = 0
    dram_in: int = 0
    dram_out: int = 0
    l2_tensors: int = 0
    wrapped_tensors: int = 0
    """L2 tensors that run past the end of their ring region and wrap to its start."""
    reused_tensors: int = 0
    """Ifmaps read in place from an earlier workload's output on the same core (newly_added false)."""
    wl0_entries: int = 0
    scale: str = ""


@dataclass(slots=True)
class Synthesis:
    """A generated IR (JSON-ready objects) and what it contains."""

    document: dict[str, Any]
    stats: Stats


@dataclass(slots=True)
class _Tensor:
    tensor_id: int
    kind: str
    size: int
    box: Box
    sources: list[dict[str, Any]]
    transfer_ids: list[int]
    layer_name: str
    first: int
    last: int
    region: int
    order: int
    address: int = 0


@dataclass(slots=True)
class _Work:
    """A workload being built: its task plus the pieces that become its JSON object."""

    task: Task
    ifmap: list[dict[str, Any]] = field(default_factory=list)
    wanted: set[int] = field(default_factory=set)
    weight: dict[str, Any] | None = None
    weight_tensor: _Tensor | None = None
    ofmap: dict[str, Any] = field(default_factory=dict)
    output: _Tensor | None = None
    dram_in: dict[str, Any] | None = None


def regions(buffersize: int, count: int) -> list[list[int]]:
    """`count` ring regions [start, end) splitting the buffer, each a multiple of 64 bytes."""
    size = buffersize // count // 64 * 64
    bounds = [i * size for i in range(count)] + [buffersize]
    return [[bounds[i], bounds[i + 1]] for i in range(count)]


def synthesize(options: SynthOptions) -> Synthesis:
    """A valid IR for `options`; the largest network scale whose tensors fit L2 is used."""
    options.check()
    ring = regions(options.buffersize, options.ring_regions)
    fmap_region = min(b - a for a, b in ring[1:]) if len(ring) > 1 else options.buffersize
    weight_region = ring[0][1] - ring[0][0]
    caps = Caps(fmap_region // 12, weight_region // 6)
    for scale in SCALES:
        rng = random.Random(options.seed)
        layers = build_graph(options.layers, scale)
        plans = plan_layers(layers, options.xlen, options.ylen, caps, rng)
        if plans is None:
            continue
        cores = options.xlen * options.ylen
        tasks, programs = schedule(plans, options.batch, cores)
        try:
            result = _Builder(options, ring, layers, rng).build(tasks, programs)
        except AllocationError:
            continue
        result.stats.scale = f"{scale.height}x{scale.height} input, {scale.channels} channels"
        return result
    raise UsageError(
        f"--buffersize: {options.buffersize} bytes in {options.ring_regions} ring regions cannot hold the "
        "tiles of even the smallest network; give a larger buffer or fewer regions"
    )


class _Builder:
    def __init__(self, options: SynthOptions, ring: list[list[int]], layers: list[Layer], rng: random.Random):
        self.options = options
        self.ring = ring
        self.rng = rng
        self.next_transfer = 0
        self.next_order = 0
        self.dram_out: list[dict[str, Any]] = []
        self.dram_in: list[dict[str, Any]] = []
        self.stats = Stats(cores=options.xlen * options.ylen, layers=len(layers))
        cores = self.stats.cores
        self.tensors: list[list[_Tensor]] = [[] for _ in range(cores)]
        self.fmap_count = [0] * cores
        self.weights: dict[tuple[int, int, int, int, int], _Tensor] = {}
        users = consumers(layers)
        self.mode: dict[tuple[int, int, int], str] = {}
        self.to_dram: list[bool] = []
        for layer in layers:
            spill = False
            for v, slot in users[layer.index]:
                dram = rng.random() < (0.25 if slot == 1 else 0.04)
                self.mode[(layer.index, v, slot)] = "dram" if dram else "core"
                spill |= dram
            self.to_dram.append(spill or not users[layer.index] or rng.random() < 0.05)

    # --- ids ---------------------------------------------------------------------------------------------

    def _transfer(self) -> int:
        self.next_transfer += 1
        return self.next_transfer - 1

    def _tensor(
        self,
        core: int,
        kind: str,
        size: int,
        box: Box,
        sources: list[dict[str, Any]],
        layer: str,
        first: int,
        last: int,
    ) -> _Tensor:
        if kind == "weight" or len(self.ring) == 1:
            region = 0
        else:
            region = 1 + self.fmap_count[core] % (len(self.ring) - 1)
            self.fmap_count[core] += 1
        ids = sorted({s["transfer_id"] for s in sources})
        tensor = _Tensor(
            len(self.tensors[core]),
            kind,
            size,
            box,
            sources,
            ids,
            layer,
            first,
            last,
            region,
            self.next_order,
        )
        self.next_order += 1
        self.tensors[core].append(tensor)
        return tensor

    def _prefetch(self, position: int) -> int:
        """First snapshot of a tensor read from DRAM: sometimes one workload early."""
        return position - 1 if position > 0 and self.rng.random() < 0.3 else position

    # --- building ----------------------------------------------------------------------------------------

    def build(self, tasks: list[Task], programs: list[list[Task]]) -> Synthesis:
        works: dict[tuple[int, int, int], _Work] = {}
        for task in tasks:
            work = _Work(task)
            self._inputs(work, works)
            if task.layer.op == "conv":
                self._weight(work)
            self._output(work)
            works[(task.group, task.layer.index, task.part)] = work
        by_core = [[works[(t.group, t.layer.index, t.part)] for t in program] for program in programs]
        for core, tensors in enumerate(self.tensors):
            self._allocate(core, tensors)
        document: dict[str, Any] = {
            "-1": {"in": self.dram_in, "out": sorted(self.dram_out, key=lambda e: e["transfer_id"])},
        }
        for core, program in enumerate(by_core):
            document[str(core)] = self._render_core(core, program)
        document.update(
            buffersize=self.options.buffersize,
            top_batch_cut=self.options.batch,
            xlen=self.options.xlen,
            ylen=self.options.ylen,
        )
        self.stats.workloads = len(tasks)
        self.stats.dram_in = len(self.dram_in)
        self.stats.dram_out = len(self.dram_out)
        return Synthesis(document, self.stats)

    def _inputs(self, work: _Work, works: dict[tuple[int, int, int], _Work]) -> None:
        task = work.task
        layer = task.layer
        need = layer.input_box(task.box)
        slots = layer.inputs or (None,)
        for slot, src in enumerate(slots):
            size = fmap_size(need)
            if src is None:
                tensor = self._from_dram(work, need, [])
            else:
                plan_parts = works_of(works, task.group, src)
                producers = [(w, box) for w in plan_parts if (box := w.task.box.intersect(need)) is not None]
                if self.mode[(src, layer.index, slot)] == "dram":
                    tensor = self._from_dram(work, need, producers)
                else:
                    tensor = self._from_cores(work, need, producers)
            work.ifmap.append(
                {
                    "align": ALIGN,
                    "bitwidth": BITWIDTH,
                    "lower": list(need.lower),
                    "size": size,
                    "transfer_id": list(tensor.transfer_ids),
                    "upper": list(need.upper),
                }
            )
            work.wanted.update(tensor.transfer_ids)

    def _from_dram(self, work: _Work, need: Box, producers: list[tuple[_Work, Box]]) -> _Tensor:
        """An ifmap read from DRAM: the network input, or ofmaps spilled to DRAM by `producers`."""
        task = work.task
        tid = self._transfer()
        size = fmap_size(need)
        related = sorted(p.ofmap["transfer_id"] for p, _ in producers)
        for p, _ in producers:
            assert p.dram_in is not None, "a spilling layer sends every part to DRAM"
            p.dram_in["related_ofmap"].append(tid)
        self.dram_out.append(
            {
                "destination": [
                    {
                        "core_id": task.core,
                        "layer_name": task.layer.name,
                        "type": "core",
                        "workload_id": task.workload_id,
                    }
                ],
                "lower": list(need.lower),
                "related_ifmap": related,
                "size": size,
                "transfer_id": tid,
                "type": "fmap",
                "upper": list(need.upper),
            }
        )
        source = {
            "core_id": -1,
            "layer_name": task.layer.name,
            "lower": list(need.lower),
            "size": size,
            "transfer_id": tid,
            "type": "DRAM",
            "upper": list(need.upper),
        }
        first = self._prefetch(task.position)
        return self._tensor(task.core, "ifmap", size, need, [source], task.layer.name, first, task.position)

    def _from_cores(self, work: _Work, need: Box, producers: list[tuple[_Work, Box]]) -> _Tensor:
        """An ifmap sent by the workloads that produce it, or read in place from this core's own output."""
        task = work.task
        destination = {"core_id": task.core, "type": "core", "workload_id": task.workload_id}
        for p, _ in producers:
            p.ofmap["destination"].append(dict(destination))
            assert p.output is not None
            p.output.kind = "ifmap"
            self.stats.core_transfers += 1
            self.stats.cross_core_transfers += p.task.core != task.core
        if len(producers) == 1:
            p, box = producers[0]
            if p.task.core == task.core and box == need and p.output is not None and p.output.box == need:
                p.output.last = task.position
                self.stats.reused_tensors += 1
                return p.output
        sources = [
            {
                "core_id": p.task.core,
                "layer_name": p.task.layer.name,
                "lower": list(box.lower),
                "size": fmap_size(box),
                "transfer_id": p.ofmap["transfer_id"],
                "type": "core",
                "upper": list(box.upper),
            }
            for p, box in sorted(producers, key=lambda pb: pb[0].ofmap["transfer_id"])
        ]
        return self._tensor(
            task.core, "ifmap", fmap_size(need), need, sources, task.layer.name, task.position, task.position
        )

    def _weight(self, work: _Work) -> None:
        """The weight slice: loaded from DRAM by the core's first workload of the layer that needs it."""
        task = work.task
        layer = task.layer
        k0, k1 = task.box.lower[1], task.box.upper[1]
        box = layer.weight_box(k0, k1)
        key = (task.group, layer.index, task.core, k0, k1)
        tensor = self.weights.get(key)
        if tensor is None:
            tid = self._transfer()
            size = weight_size(box)
            self.dram_out.append(
                {
                    "destination": [
                        {
                            "core_id": task.core,
                            "layer_name": layer.name,
                            "type": "core",
                            "workload_id": task.workload_id,
                        }
                    ],
                    "lower": list(box.lower),
                    "related_ifmap": [],
                    "size": size,
                    "transfer_id": tid,
                    "type": "weight",
                    "upper": list(box.upper),
                }
            )
            source = {
                "core_id": -1,
                "layer_name": layer.name,
                "lower": list(box.lower),
                "size": size,
                "transfer_id": tid,
                "type": "DRAM",
                "upper": list(box.upper),
            }
            first = self._prefetch(task.position)
            tensor = self._tensor(task.core, "weight", size, box, [source], layer.name, first, task.position)
            self.weights[key] = tensor
        tensor.last = task.position
        work.weight_tensor = tensor
        work.weight = {
            "lower": list(box.lower),
            "size": tensor.size,
            "transfer_id": list(tensor.transfer_ids),
            "upper": list(box.upper),
        }

    def _output(self, work: _Work) -> None:
        task = work.task
        box = task.box
        tid = self._transfer()
        size = fmap_size(box)
        destination: list[dict[str, Any]] = []
        work.ofmap = {
            "destination": destination,
            "lower": list(box.lower),
            "size": size,
            "transfer_id": tid,
            "upper": list(box.upper),
        }
        source = {
            "core_id": task.core,
            "layer_name": task.layer.name,
            "lower": list(box.lower),
            "size": size,
            "transfer_id": tid,
            "type": "core",
            "upper": list(box.upper),
        }
        # "ofmap" while only DRAM reads it; the first core consumer turns it into an ifmap tensor.
        work.output = self._tensor(
            task.core, "ofmap", size, box, [source], task.layer.name, task.position, task.position
        )
        if self.to_dram[task.layer.index]:
            work.dram_in = {
                "core_id": task.core,
                "layer_name": task.layer.name,
                "lower": list(box.lower),
                "related_ofmap": [],
                "transfer_id": tid,
                "upper": list(box.upper),
                "workload_id": task.workload_id,
            }
            self.dram_in.append(work.dram_in)

    def _allocate(self, core: int, tensors: list[_Tensor]) -> None:
        allocators = []
        for start, end in self.ring:
            head = end - 64 * self.rng.randint(1, 16)
            allocators.append(RingAllocator(start, end, max(start, head)))
        for tensor in sorted(tensors, key=lambda t: (t.first, t.tensor_id)):
            allocator = allocators[tensor.region]
            tensor.address = allocator.allocate(tensor.first, tensor.last, tensor.size)
            self.stats.wrapped_tensors += tensor.address + tensor.size > allocator.end
        self.stats.l2_tensors += len(tensors)

    # --- rendering ---------------------------------------------------------------------------------------

    def _render_core(self, core: int, program: list[_Work]) -> list[dict[str, Any]]:
        starting: dict[int, list[_Tensor]] = {}
        for tensor in self.tensors[core]:
            starting.setdefault(tensor.first, []).append(tensor)
        live: list[_Tensor] = []
        wl0: list[tuple[int, _Tensor]] = []
        out = []
        for position, work in enumerate(program):
            live = [t for t in live if t.last >= position] + starting.get(position, [])
            live.sort(key=lambda t: t.tensor_id)
            buffer = [self._entry(t, position, work.wanted) for t in live]
            if work.weight_tensor is not None and all(t is not work.weight_tensor for _, t in wl0):
                used = {address for address, _ in wl0[-1:]}
                slot = WL0_SLOT if 0 in used else 0
                wl0 = [(a, t) for a, t in wl0 if a != slot] + [(slot, work.weight_tensor)]
            wl0_entries = [self._wl0_entry(a, t) for a, t in sorted(wl0, key=lambda at: at[0])]
            self.stats.wl0_entries += len(wl0_entries)
            out.append(self._workload(work, buffer, wl0_entries or None))
        return out

    def _entry(self, t: _Tensor, position: int, wanted: set[int]) -> dict[str, Any]:
        return {
            "address": t.address,
            "align": ALIGN,
            "bitwidth": BITWIDTH,
            "cur_wl_ifmap": not wanted.isdisjoint(t.transfer_ids),
            "layer_name": t.layer_name,
            "lower": list(t.box.lower),
            "newly_added": position == t.first,
            "size": t.size,
            "source": t.sources,
            "tensor_id": t.tensor_id,
            "tensor_order": t.order,
            "transfer_id": t.transfer_ids,
            "type": t.kind,
            "upper": list(t.box.upper),
        }

    def _wl0_entry(self, address: int, t: _Tensor) -> dict[str, Any]:
        return {
            "address": address,
            "align": ALIGN,
            "bitwidth": BITWIDTH,
            "layer_name": t.layer_name,
            "lower": list(t.box.lower),
            "size": max(64, min(t.size, WL0_CHUNK) // 64 * 64),
            "source": "CORE",
            "tensor_order": None,
            "transfer_id": t.transfer_ids,
            "upper": list(t.box.upper),
        }

    def _workload(
        self, work: _Work, buffer: list[dict[str, Any]], wl0: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        task = work.task
        layer = task.layer
        box = task.box
        tiles = tile_info(layer, box, self.rng.choice((1, 2, 2, 3, 4)))
        destinations = work.ofmap["destination"]
        destinations.sort(key=lambda d: (d["core_id"], d["workload_id"]))
        if work.dram_in is not None:
            destinations.append({"core_id": -1, "type": "DRAM"})
        wl: dict[str, Any] = {
            "buffer": buffer,
            "ifmap": work.ifmap,
            "layer_name": layer.name,
            "layer_type": layer.layer_type,
            "ofmap": [work.ofmap],
            "ofmap_size": work.ofmap["size"],
            "ring_buffer_info": [list(r) for r in self.ring],
            "tile_info": {f"tile_num_{i}": tile for i, tile in enumerate(tiles)},
            "tile_padding_tblr": layer.padding(box),
            "time": round(sum(t["single_tile_time_pred"] for t in tiles)),
        }
        if work.weight is not None:
            wl["weight"] = work.weight
        wl.update(wl0_buffer=wl0, workload=[list(box.lower), list(box.upper)], workload_id=task.workload_id)
        return wl


def works_of(works: dict[tuple[int, int, int], _Work], group: int, layer: int) -> list[_Work]:
    """The workloads of one layer for one batch sample, by part."""
    result = []
    part = 0
    while (work := works.get((group, layer, part))) is not None:
        result.append(work)
        part += 1
    return result
