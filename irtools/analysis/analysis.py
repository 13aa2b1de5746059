"""`Analysis`: every table of one loaded IR, each computed on first use and cached."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any, TypeVar

import pandas as pd

from irtools.analysis.blocks import KIB, add_positions, l2_blocks_table, l2_capacity_kib
from irtools.analysis.buffers import wl0_tables
from irtools.analysis.counters import (
    Link,
    LinkHeat,
    l2_counter,
    link_heat,
    link_rate,
    run_link_step_sums,
    timed_link_steps,
)
from irtools.analysis.energy import EnergyModel, energy_summary
from irtools.analysis.layer_cost import layer_cost_absent, layer_cost_table
from irtools.analysis.layers import layers_table
from irtools.analysis.link_cost import link_costs
from irtools.analysis.link_load import (
    LinkLoads,
    LinkSums,
    link_sums,
    links_frame,
    noc_links_table,
    schedule_span,
    step_spans,
    timed_links,
    window_rows,
)
from irtools.analysis.live_buffers import LivePeak, l2_entries, live_at_peak
from irtools.analysis.noc import (
    KindRuns,
    NocModel,
    layer_bounds,
    noc_links,
    noc_runs,
    noc_schedule,
    noc_times,
    noc_transfers,
    step_costs,
)
from irtools.analysis.noc_columns import transfer_users
from irtools.analysis.once import BuiltOnce
from irtools.analysis.schedule_tables import (
    core_transfers_table,
    cores_table,
    layer_rows,
    timeline_parts,
    timeline_table,
)
from irtools.analysis.snapshots import CoreTables, drop_snapshots, l2_part
from irtools.analysis.tables import LAYER_COST, TABLES
from irtools.analysis.tiles import held_bytes, tile_table
from irtools.analysis.timeline import MODELS, Schedule, schedules
from irtools.analysis.traffic import dram_traffic, dram_transfers
from irtools.dialects.base import Capability
from irtools.errors import AnalysisError
from irtools.loading.graph import find_cycles, wait_graph
from irtools.loading.index import IRIndex, workload_inputs
from irtools.loading.load import CoreHook, LoadedIR, load_ir
from irtools.loading.mesh import MESH, core_label, mesh_problem
from irtools.loading.reader import gc_paused
from irtools.options import RunOptions
from irtools.reference import fast_path

T = TypeVar("T")

TABLE_ATTRIBUTES = {"noc_links": "noc_link_table"}
"""Tables whose Analysis attribute has another name (`Analysis.noc_links` holds the routed rows per step)."""


PART_ROWS = 1 << 14
"""Rows of a table's part (`Analysis.table_parts`): the mesh positions of a part are made, not a table's."""

WINDOWS_KEPT = 12
"""Window tables kept (tiles, links, link costs by model and cycles range): a few zooms' worth."""

AnalysisOptions = RunOptions
"""The options an analysis reads: the run's whole options (irtools.options.RunOptions), under its former name."""


class Analysis:
    """The analysis tables of one IR (see `TABLES` for their columns).

    Works on files with findings: entries that broke the schema are left out and the rows of
    their workloads say `incomplete`; workloads that cannot be scheduled have no start.
    """

    def __init__(self, loaded: LoadedIR, options: RunOptions | None = None) -> None:
        if loaded.ir is None:
            first = loaded.findings[0].message if loaded.findings else "no content"
            raise AnalysisError(f"{loaded.path}: not an IR that can be analyzed: {first}")
        self.loaded = loaded
        self.options = options or RunOptions()
        self.snapshots_dropped = False
        """Whether the snapshots were dropped as the file was read (`analyze(keep_snapshots=False)`): only
        the tables built from them meanwhile (`known_snapshot_tables`) hold them."""
        self.index = IRIndex(loaded, self.options)
        # Before any table: the NoC tables lay out every mesh position, so a header's numbers must not
        # decide the memory an analysis takes (GIR506).
        mesh = mesh_problem(
            list(self.index.cores), self.index.numbering, self.index.ir.xlen, self.index.ir.ylen
        )
        if mesh is not None:
            raise AnalysisError(f"{loaded.path}: cannot be analyzed: GIR506 /{mesh.key}: {mesh.message}")

    @property
    def path(self) -> str:
        """The IR file's path as loaded."""
        return self.loaded.path

    @property
    def buffersize(self) -> int | None:
        """L2 size in bytes (IRIndex.l2_size: the file's buffersize, else --l2-size); None when unknown."""
        return self.index.l2_size

    @property
    def models(self) -> tuple[str, ...]:
        """The timing models of this analysis: sequential, dependency, and noc when a NoC bandwidth is set."""
        return (*MODELS, "noc") if self.noc_model else MODELS

    @cached_property
    def noc_model(self) -> NocModel | None:
        """The NoC of the `noc` model, or None without a NoC bandwidth."""
        bw = self.options.noc_bw
        return None if bw is None else NocModel(bw, self.options.noc_frequency, self.options.dram_bw)

    @cached_property
    def schedules(self) -> dict[str, Schedule]:
        """The sequential and dependency schedules, and the noc schedule with a NoC bandwidth."""
        found = schedules(self.index)
        if self.noc_model is not None:
            found["noc"] = noc_schedule(self.index, self.noc_model, self.noc_steps)
        return found

    @cached_property
    def energy_model(self) -> EnergyModel:
        """Gemini's per-unit energies that the IR and the options determine."""
        mesh = self.index.ir.xlen is not None and self.index.ir.ylen is not None
        return EnergyModel(dram_type=self.options.dram_type, mesh=mesh)

    @cached_property
    def layer_cost(self) -> pd.DataFrame:
        """Gemini's cost per layer (irtools.analysis.layer_cost); empty without a NoC bandwidth or a mesh."""
        if self.noc_model is None or not self.energy_model.mesh:
            return LAYER_COST.empty()
        return layer_cost_table(self.index, self.noc_steps, self.noc_model, self.energy_model)

    def layer_cost_absent(self) -> str | None:
        """Why `layer_cost` is empty for this file (no NoC bandwidth, no mesh), or None when it is not."""
        return layer_cost_absent(self.noc_model is not None, self.energy_model.mesh)

    def energy(self) -> dict[str, Any] | None:
        """The run's energy by term (irtools.analysis.energy.energy_summary); None without a NoC bandwidth."""
        if self.noc_model is None:
            return None
        return energy_summary(self.layer_cost, self.energy_model)

    def energy_at(self, bandwidth: int) -> dict[str, Any]:
        """The run's energy by term with a NoC model of `bandwidth` (the energy does not depend on it: a
        sweep's runs that wrote one IR share it)."""
        model = NocModel(bandwidth, self.options.noc_frequency, self.options.dram_bw)
        steps = noc_times(self.index, model, self.noc_runs)
        return energy_summary(
            layer_cost_table(self.index, steps, model, self.energy_model), self.energy_model
        )

    @cached_property
    def noc_links(self) -> pd.DataFrame:
        """Every (layer step, traffic kind, directed link) with its bytes (irtools.analysis.noc.noc_links)."""
        return noc_links(self.index, self.noc_runs)

    @cached_property
    def noc_runs(self) -> list[KindRuns]:
        """The traffic routed as runs of links per kind (irtools.analysis.noc.noc_runs)."""
        return noc_runs(self.index, self.noc_transfers)

    @cached_property
    def noc_transfers(self) -> dict[str, pd.DataFrame]:
        """The traffic as routing input (irtools.analysis.noc.noc_transfers): who sends what to whom, per step."""
        return noc_transfers(self.index)

    @cached_property
    def noc_steps(self) -> pd.DataFrame:
        """Per layer step: its heaviest link, the link's bytes and the NoC time; needs a NoC bandwidth."""
        if self.noc_model is None:
            raise AnalysisError("the NoC time needs a NoC bandwidth (noc_bw)")
        return noc_times(self.index, self.noc_model, self.noc_runs)

    def makespan(self, model: str) -> int | None:
        """Cycles until the last workload ends under a timing model; None when a wait cycle leaves some
        unscheduled."""
        return self.schedules[model].makespan

    def noc_makespan_at(self, bandwidth: int) -> int | None:
        """The noc model's makespan at another NoC bandwidth, on this index and its routed links (a sweep's
        runs that wrote the same IR differ only in it)."""
        model = NocModel(bandwidth, self.options.noc_frequency, self.options.dram_bw)
        return noc_schedule(self.index, model, noc_times(self.index, model, self.noc_runs)).makespan

    def critical_path(self, model: str) -> list[tuple[int, int]]:
        """(core_id, position) of the workloads on the model's critical path, in time order."""
        schedule = self.schedules[model]
        return [(schedule.nodes[n].core_id, schedule.nodes[n].position) for n in schedule.critical_path]

    @property
    def deadlocked(self) -> bool:
        """Whether some workload waits in a cycle: Kahn's order over the wait graph (the dependency model)
        leaves it unplaced."""
        return any(start is None for start in self.schedules["dependency"].start)

    @cached_property
    def wait_cycles(self) -> list[list[tuple[int, int]]]:
        """(core_id, position) of the workloads of each wait cycle (GIR502), each waiting for the one before
        (found by walking the workloads' tensors)."""
        if not self.deadlocked:
            return []
        nodes, edges = wait_graph(self.index)
        return [
            [(nodes[n].core_id, nodes[n].position) for n in cycle] for cycle in find_cycles(len(nodes), edges)
        ]

    @cached_property
    def timeline(self) -> pd.DataFrame:
        # With the mesh position already: the dashboard's rows name cores by it.
        """The `timeline` table: one row per workload and timing model, with each core's mesh position."""
        return add_positions(timeline_table(self.index, self.schedules), self.index)

    def core_label(self, core_id: int) -> str:
        """`core 5 (0,1)` when the file numbers cores by mesh id, else `core 5` (the id is the position)."""
        if self.index.numbering == MESH:
            return f"core {core_label(core_id, MESH, self.index.ir.xlen)}"
        return f"core {core_id}"

    @cached_property
    def core_transfers(self) -> pd.DataFrame:
        """The `core_transfers` table: one row per cross-core transfer edge (producer -> consumer
        workload)."""
        return core_transfers_table(self.index)

    @cached_property
    def cores(self) -> pd.DataFrame:
        """The `cores` table: busy, idle and utilization per core and timing model."""
        return cores_table(self.index, self.schedules)

    @cached_property
    def _l2(self) -> dict[str, pd.DataFrame]:
        return l2_part(self.index)

    @cached_property
    def l2_blocks(self) -> pd.DataFrame:
        """The `l2_blocks` table: per L2 snapshot, the 1 KiB blocks held by each tensor type."""
        return l2_blocks_table(self.index)

    @property
    def l2_held(self) -> str:
        """The table the summary's L2 peaks and the layers' are read from: l2_occupancy with L2 addresses,
        else l2_blocks (the blocks each snapshot holds)."""
        return "l2_occupancy" if self.index.has(Capability.L2_ADDRESSES) else "l2_blocks"

    @property
    def l2_capacity_kib(self) -> int | None:
        """The L2 size in KiB (IRIndex.l2_size: buffersize, else --l2-size); None when unknown."""
        return l2_capacity_kib(self.index)

    @property
    def tensors(self) -> pd.DataFrame:
        """The `tensors` table: L2 tensor lifetimes (empty without L2 addresses)."""
        return self._member("_l2", "tensors")

    @property
    def l2_occupancy(self) -> pd.DataFrame:
        """The `l2_occupancy` table: bytes used and free per L2 snapshot (empty without L2 addresses)."""
        return self._member("_l2", "l2_occupancy")

    @property
    def l2_regions(self) -> pd.DataFrame:
        """The `l2_regions` table: per L2 snapshot and ring region (empty without L2 addresses)."""
        return self._member("_l2", "l2_regions")

    @cached_property
    def _wl0(self) -> dict[str, pd.DataFrame]:
        return wl0_tables(self.index, self.options.wl0_size)

    @property
    def wl0_tensors(self) -> pd.DataFrame:
        """The `wl0_tensors` table: WL0 weight lifetimes."""
        return self._member("_wl0", "wl0_tensors")

    @property
    def wl0_occupancy(self) -> pd.DataFrame:
        """The `wl0_occupancy` table: bytes per WL0 snapshot (free space with --wl0-size)."""
        return self._member("_wl0", "wl0_occupancy")

    def _member(self, part: str, name: str) -> pd.DataFrame:
        """Table `name` of the tables built together in `part` (`_l2`, `_wl0`); the part built again when
        the table was forgotten."""
        tables: dict[str, pd.DataFrame] = getattr(self, part)
        if name not in tables:
            del self.__dict__[part]
            tables = getattr(self, part)
        return tables[name]

    @cached_property
    def dram_transfers(self) -> pd.DataFrame:
        """The `dram_transfers` table: each DRAM read and write and the workload it is charged to."""
        return dram_transfers(self.index)

    @cached_property
    def dram_traffic(self) -> pd.DataFrame:
        """The `dram_traffic` table: DRAM bytes read and written per workload."""
        return dram_traffic(self.index, self.dram_transfers)

    @cached_property
    def layers(self) -> pd.DataFrame:
        """The `layers` table: per layer its workloads, cores, time, DRAM bytes and peak L2 share."""
        noc = layer_bounds(self.index, self.noc_steps) if self.noc_model else None
        rows = layer_rows(self.index, self.schedules["dependency"])
        if self.l2_held == "l2_occupancy":
            return layers_table(rows, self.dram_traffic, self.l2_occupancy, self.buffersize, noc)
        held = self.l2_blocks.assign(total_bytes=self.l2_blocks["held_kib"] * KIB)
        capacity = self.l2_capacity_kib
        return layers_table(rows, self.dram_traffic, held, capacity * KIB if capacity else None, noc)

    def link_loads(self, model: str = "dependency") -> LinkLoads | None:
        """The routed NoC traffic (noc_links) timed under `model` (None without a mesh); kept per model."""
        loads: LinkLoads | None = self._whole_schedule.get(
            f"link loads {model}", lambda: timed_links(self.index, self.timeline, model, _routed_rows(self))
        )
        return loads

    @property
    def whole_link_sums(self) -> LinkSums | None:
        """The routed traffic summed per link over the whole schedule (link_load.link_sums), kept: every
        timing model's (a model gives only the span of the busy share), so a model switch in the dashboard
        does not sum the 1.7 million routed runs of a 64-core file again (100 MiB of temporaries)."""
        sums: LinkSums | None = self._whole_schedule.get("link sums", lambda: link_sums(self.noc_runs))
        return sums

    @property
    def noc_link_table(self) -> pd.DataFrame:
        """The `noc_links` table: bytes per directed link over the schedule (busy share with noc_bw)."""
        return self.link_table("dependency")

    def link_table(
        self, model: str = "dependency", window: tuple[float, float] | None = None
    ) -> pd.DataFrame:
        """The `noc_links` table under `model` in `window`. The whole schedule's is kept per model: it
        sums millions of routed rows (seconds on a 64-core file), a window's only the steps in it."""
        if window is not None:
            return self._in_window(
                "links",
                model,
                window,
                lambda: self._window_links(model, window),
            )
        links: pd.DataFrame = self._whole_schedule.get(model, lambda: self._whole_links(model))
        return links

    def _window_links(self, model: str, window: tuple[float, float]) -> pd.DataFrame:
        loads = self.link_loads(model)
        if loads is None:
            return noc_links_table(None, self.options.noc_bw, self.options.noc_frequency)
        return noc_links_table(
            loads,
            self.options.noc_bw,
            self.options.noc_frequency,
            window,
            window_rows(self.index, self.noc_runs, loads, window),
        )

    def _whole_links(self, model: str) -> pd.DataFrame:
        return whole_links(self, model)

    def link_costs(
        self, model: str = "noc", window: tuple[float, float] | None = None
    ) -> pd.DataFrame | None:
        """Per link that bounds a layer step: the NoC cycles it adds (irtools.analysis.link_cost) in `window`
        of `model`'s timeline; None without a NoC bandwidth (then only bytes can rank links)."""
        if self.noc_model is None:
            return None
        costs = self._whole_schedule.get(
            "step costs",
            lambda: step_costs(self.index, self.noc_steps),  # every model's: the NoC's own times
        )
        spans = self._whole_schedule.get(
            f"spans {model}", lambda: step_spans(self.index, self.timeline, model)
        )
        if window is None:
            return link_costs(costs, spans, None)
        return self._in_window("link costs", model, window, lambda: link_costs(costs, spans, window))

    def link_heat(self, model: str, bins: int, window: tuple[float, float] | None = None) -> LinkHeat | None:
        """Every link's bytes per cycle per time bin under `model` (irtools.analysis.counters); None without a mesh."""
        loads = self.link_loads(model)
        if loads is None:
            return None
        return link_heat(loads, bins, window, self.link_steps(model))

    def link_steps(self, model: str) -> pd.DataFrame | None:
        """Bytes per (directed link, layer step) under `model` (counters.run_link_steps), kept per model:
        `link_step_sums` timed. None without a mesh."""
        loads = self.link_loads(model)
        if loads is None:
            return None
        steps: pd.DataFrame = self._whole_schedule.get(
            f"link steps {model}", lambda: timed_link_steps(self.link_step_sums, loads)
        )
        return steps

    @property
    def link_step_sums(self) -> pd.DataFrame:
        """Bytes per (directed link, layer step) of every step (counters.run_link_step_sums), kept: every
        timing model's `link_steps` times them, so a model switch in the dashboard does not sum the routed
        runs again."""
        xlen = self.index.ir.xlen
        assert xlen is not None  # link_loads is None without a mesh: no link steps are asked for
        sums: pd.DataFrame = self._whole_schedule.get(
            "link step sums", lambda: run_link_step_sums(self.noc_runs, xlen)
        )
        return sums

    def link_rate(self, model: str, link: Link) -> pd.DataFrame | None:
        """Bytes per cycle on directed `link` over time under `model` (counters.link_rate); None without a mesh."""
        steps = self.link_steps(model)
        return None if steps is None else link_rate(steps, link)

    def l2_counter(self, core_id: int, model: str = "dependency") -> pd.DataFrame:
        """The L2 core `core_id` holds over time under `model` (irtools.analysis.counters)."""
        held = held_bytes(self.l2_blocks, self.l2_occupancy, not self.index.has(Capability.L2_ADDRESSES))
        return l2_counter(self.timeline, held, model, core_id)

    @cached_property
    def _whole_schedule(self) -> BuiltOnce:
        """What the views read over the whole schedule, by model: `link_table`'s (keyed by the model),
        `tiles MODEL`, `link loads MODEL`, `link steps MODEL`, `spans MODEL`, and every model's `link
        sums`, `link step sums` and `step costs`; each built once even when the dashboard's callbacks ask
        for it at the same time."""
        return BuiltOnce()

    def apart(self, work: Callable[[], T]) -> T:
        """`work()`, run while no whole-schedule value is built, and none is until it ends: the dashboard's
        check, whose columns held beside the routed runs' sums made its server's peak."""
        with self._whole_schedule.alone():
            return work()

    def tiles(self, model: str = "dependency", window: tuple[float, float] | None = None) -> pd.DataFrame:
        """One row per core tile: busy/waiting share, peak L2, DRAM and core-to-core bytes in `window`
        (the whole schedule's kept per model, as `link_table`'s)."""
        if window is None:
            tiles: pd.DataFrame = self._whole_schedule.get(f"tiles {model}", lambda: self._tiles(model, None))
            return tiles
        return self._in_window("tiles", model, window, lambda: self._tiles(model, window))

    def _in_window(self, kind: str, model: str, window: tuple[float, float], compute: Any) -> Any:
        """`compute()`, kept for the last few (kind, model, window): a core picked after a zoom redraws
        the mesh for the same window, which cost a third of a second of tables on a 64-core file."""
        return self._windows.get((kind, model, window), compute)

    @cached_property
    def _windows(self) -> BuiltOnce:
        """`_in_window`'s last WINDOWS_KEPT values, built one at a time with the whole-schedule values: two
        callbacks asking for the same window at once (a zoom, then a core picked before the mesh is
        drawn) build it once."""
        return BuiltOnce(keep=WINDOWS_KEPT, alongside=self._whole_schedule)

    def _tiles(self, model: str, window: tuple[float, float] | None) -> pd.DataFrame:
        capacity = self.l2_capacity_kib
        return tile_table(
            self.index,
            self.timeline,
            model,
            held=held_bytes(self.l2_blocks, self.l2_occupancy, not self.index.has(Capability.L2_ADDRESSES)),
            dram=self.dram_transfers,
            loads=self.link_loads(model),
            capacity=capacity * KIB if capacity else None,
            window=window,
        )

    def live_at_peak(
        self, core_id: int, model: str = "dependency", window: tuple[float, float] | None = None
    ) -> LivePeak | None:
        """The buffers live at core `core_id`'s L2 peak among its workloads running in `window` of `model`."""
        positions = None
        if window is not None:
            rows = self.timeline[(self.timeline["model"] == model) & (self.timeline["core_id"] == core_id)]
            running = (rows["start"] < window[1]) & (rows["end"] > window[0])
            positions = set(rows.loc[running.fillna(False), "position"].astype(int))
        held = held_bytes(self.l2_blocks, self.l2_occupancy, not self.index.has(Capability.L2_ADDRESSES))
        return live_at_peak(self.index, self.l2_entries, held, core_id, positions)

    @cached_property
    def l2_entries(self) -> pd.DataFrame:
        """Every L2 snapshot's entries (irtools.analysis.live_buffers.l2_entries), kept: `live_at_peak`
        reads them for any core and range."""
        return l2_entries(self.index)

    def position_of(self, core_id: int, workload_id: int) -> int | None:
        """Position of the workload with this id on the core, if there is one."""
        ref = self.index.by_id.get((core_id, workload_id))
        return ref.position if ref else None

    def transfer_users(self, transfer_id: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(core_id, position) of the workloads producing the transfer (as ofmap) and of those reading it."""
        return _transfer_users(self.index, transfer_id)

    def known_snapshot_tables(self, tables: dict[str, pd.DataFrame]) -> None:
        """Take the tables that read the snapshots (irtools.analysis.snapshots) as built a few cores at a
        time while the file was read, its snapshots dropped since."""
        self.__dict__["_l2"] = {name: tables[name] for name in ("tensors", "l2_occupancy", "l2_regions")}
        self.__dict__["_wl0"] = {name: tables[name] for name in ("wl0_tensors", "wl0_occupancy")}
        self.__dict__["l2_blocks"] = tables["l2_blocks"]
        self.snapshots_dropped = True
        if "l2_entries" in tables:  # what live_at_peak reads, for a reader whose views ask it (the dashboard)
            self.__dict__["l2_entries"] = tables["l2_entries"]

    def forget(self, name: str) -> None:
        """Let go of table `name` as built, for a caller that has written it and reads it no more
        (irtools.analysis.writing); a later read builds it again."""
        _known(name)
        if name == "noc_links":  # the table `noc_link_table` keeps, and its sums; the routed rows go below
            self._whole_schedule.pop("dependency")
            self._whole_schedule.pop("link sums")
        for part in ("_l2", "_wl0"):
            self.__dict__.get(part, {}).pop(name, None)
        if isinstance(getattr(type(self), name, None), cached_property):
            self.__dict__.pop(name, None)

    def table(self, name: str) -> pd.DataFrame:
        """One table by its name in `TABLES`."""
        _known(name)
        # The loaded IR holds millions of objects; collector passes over them would dominate.
        with gc_paused():
            frame: pd.DataFrame = add_positions(self._built(name), self.index)
        return frame

    def _built(self, name: str) -> pd.DataFrame:
        """Table `name` (one of TABLES) as its attribute holds it: without the mesh positions."""
        frame: pd.DataFrame = getattr(self, TABLE_ATTRIBUTES.get(name, name))
        return frame

    def table_parts(self, name: str) -> Iterator[pd.DataFrame]:
        """Table `name` as frames whose rows, one after the other, are the table's: `PART_ROWS` rows at a
        time, each with its mesh positions (never the whole table's), and the timeline a timing model at
        a time unless it was built already (the largest table, never whole in `irtools analyze`). Each
        part is made once the one before it is let go."""
        _known(name)
        if name == "timeline" and "timeline" not in self.__dict__:
            frames = timeline_parts(self.index, self.schedules)
        else:
            frames = iter([self._built(name)])
        for frame in frames:
            for start in range(0, max(len(frame), 1), PART_ROWS):
                part = add_positions(frame.iloc[start : start + PART_ROWS], self.index)
                yield part
                del part
            del frame

    def build_tables(self, links: bool) -> None:
        """Build every table (noc_links with `links`), keeping none of the copies with mesh positions `table`
        hands out: for a reader that shows them later (the dashboard's warm-up), whose copies of every table
        at once, thrown away at once, raised its server's peak."""
        with gc_paused():
            for name in TABLES:
                if links or name != "noc_links":
                    self._built(name)

    def tables(self, links: bool | None = None) -> dict[str, pd.DataFrame]:
        """Every table by name; noc_links only with `links` (default: when the options ask for the routed
        NoC traffic, RunOptions.routes_noc), as routing costs more than the rest of most tables."""
        wanted = self.options.routes_noc if links is None else links
        return {name: self.table(name) for name in TABLES if wanted or name != "noc_links"}


def _known(name: str) -> None:
    """KeyError, naming the tables, for a name not in TABLES."""
    if name not in TABLES:
        raise KeyError(f"unknown table {name!r}; tables: {', '.join(TABLES)}")


def _routed_rows(analysis: Analysis) -> Callable[[], pd.DataFrame]:
    """`analysis.noc_links`, read when called; by a weak reference, as the analysis keeps what holds it."""
    owner = weakref.ref(analysis)

    def rows() -> pd.DataFrame:
        kept = owner()
        if kept is None:
            raise ReferenceError("the Analysis these link loads came from is gone: keep it while using them")
        return kept.noc_links

    return rows


def _whole_links_reference(analysis: Analysis, model: str) -> pd.DataFrame:
    return noc_links_table(
        analysis.link_loads(model), analysis.options.noc_bw, analysis.options.noc_frequency
    )


@fast_path(reference=_whole_links_reference)
def whole_links(analysis: Analysis, model: str) -> pd.DataFrame:
    """The whole schedule's noc_links table under `model`: every routed row counts whole, so only the
    makespan comes from the schedule and the rows need no timing (link_load.link_sums, links_frame)."""
    xlen = analysis.index.ir.xlen
    if xlen is None or analysis.index.ir.ylen is None:
        return noc_links_table(None, analysis.options.noc_bw, analysis.options.noc_frequency)
    span = schedule_span(analysis.timeline, model)
    options = analysis.options
    return links_frame(analysis.whole_link_sums, options.noc_bw, options.noc_frequency, span, xlen)


def analyze(
    source: str | os.PathLike[str] | bytes | LoadedIR,
    options: RunOptions | None = None,
    max_bytes: int | None = None,
    keep_snapshots: bool = True,
    for_views: bool = False,
    name: str | None = None,
    on_core: CoreHook | None = None,
    snapshot_tables: bool = True,
) -> Analysis:
    """Load (unless given a LoadedIR) and wrap one IR; tables are computed when first read. A file over
    `max_bytes` (else `options.max_bytes`) is refused unread.

    Without `keep_snapshots`, a file (its path or its bytes) has its snapshot tables built a few cores at a
    time as it is read (irtools.analysis.snapshots), and each core's snapshots dropped: for what needs
    only the tables (`irtools analyze`). `for_views` keeps what the dashboard's views read besides the
    tables (`CoreTables.for_views`). Without `snapshot_tables` either, each core's snapshots are dropped
    unread, its tensors kept: for what reads no snapshot table (a trace's slices, which list their
    tensors' transfers).
    `name`: the file's name as the analysis gives it (default: the path). `on_core`: another hook handed each
    core as it is read, before the snapshot tables' (the dashboard's per-core checks); not called when the
    file is read whole.

    Raises AnalysisError when the file is not JSON or not an IR at all, OSError when unreadable.
    """
    if max_bytes is None and options is not None:
        max_bytes = options.max_bytes
    if keep_snapshots or isinstance(source, LoadedIR):
        loaded = source if isinstance(source, LoadedIR) else load_ir(source, name, max_bytes=max_bytes)
        return Analysis(loaded, options)
    if not snapshot_tables:
        hook: CoreHook = drop_snapshots if on_core is None else _both(on_core, drop_snapshots)
        analysis = Analysis(load_ir(source, name, max_bytes=max_bytes, on_core=hook), options)
        analysis.snapshots_dropped = analysis.loaded.cores_handed
        return analysis
    cores = CoreTables(options or RunOptions(), for_views=for_views)
    hook = cores if on_core is None else _both(on_core, cores)
    analysis = Analysis(load_ir(source, name, max_bytes=max_bytes, on_core=hook), options)
    tables = cores.joined(analysis.index) if analysis.loaded.cores_handed else None
    if tables is not None:
        analysis.known_snapshot_tables(tables)
    elif cores.dropped:  # a batch failed after others were dropped: read again, whole, as before
        del analysis
        return Analysis(load_ir(source, name, max_bytes=max_bytes), options)
    return analysis


def _transfer_users_reference(
    index: IRIndex, transfer_id: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    producers = [
        (ref.core_id, ref.position)
        for ref in index.workloads()
        if any(o.transfer_id == transfer_id for o in ref.workload.ofmap)
    ]
    readers = [
        (ref.core_id, ref.position)
        for ref in index.workloads()
        if transfer_id in workload_inputs(ref.workload)
    ]
    return producers, readers


@fast_path(reference=_transfer_users_reference)
def _transfer_users(index: IRIndex, transfer_id: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Analysis.transfer_users from the transfer columns (a file read for the dashboard keeps no tensor
    objects); object by object when a value does not fit int64."""
    found = transfer_users(index, transfer_id)
    if found is None:
        return _transfer_users_reference(index, transfer_id)
    rows = index.rows
    return [(rows[r].core_id, rows[r].position) for r in found[0]], [
        (rows[r].core_id, rows[r].position) for r in found[1]
    ]


def _both(first: CoreHook, then: CoreHook) -> CoreHook:
    def hook(core: LoadedIR) -> None:
        first(core)
        then(core)

    return hook
