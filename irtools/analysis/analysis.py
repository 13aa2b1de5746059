"""`Analysis`: every table of one loaded IR, each computed on first use and cached."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from irtools.analysis.buffers import l2_tables, wl0_tables
from irtools.analysis.tables import CORE_TRANSFERS, CORES, LAYERS, TABLES, TIMELINE
from irtools.analysis.timeline import MODELS, Schedule, schedules
from irtools.analysis.traffic import dram_traffic, dram_transfers
from irtools.loading.index import IRIndex, workload_inputs
from irtools.loading.load import LoadedIR, load_ir
from irtools.loading.reader import gc_paused


class AnalysisError(ValueError):
    """The file could not be read as an IR at all, so there is nothing to analyze."""


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    wl0_size: int | None = None
    """WL0 capacity in bytes; enables free space in wl0_occupancy."""


class Analysis:
    """The analysis tables of one IR (see `TABLES` for their columns).

    Works on files with findings: entries that broke the schema are left out and the rows of
    their workloads say `incomplete`; workloads that cannot be scheduled have no start.
    """

    def __init__(self, loaded: LoadedIR, options: AnalysisOptions | None = None) -> None:
        if loaded.ir is None:
            first = loaded.findings[0].message if loaded.findings else "no content"
            raise AnalysisError(f"{loaded.path}: not an IR that can be analyzed: {first}")
        self.loaded = loaded
        self.index = IRIndex(loaded)
        self.options = options or AnalysisOptions()

    @property
    def path(self) -> str:
        return self.loaded.path

    @property
    def buffersize(self) -> int | None:
        """L2 size in bytes; None when the file's buffersize broke the schema."""
        return self.index.ir.buffersize

    @cached_property
    def schedules(self) -> dict[str, Schedule]:
        """The sequential and dependency schedules."""
        return schedules(self.index)

    def makespan(self, model: str) -> int | None:
        return self.schedules[model].makespan

    def critical_path(self, model: str) -> list[tuple[int, int]]:
        """(core_id, position) of the workloads on the model's critical path, in time order."""
        schedule = self.schedules[model]
        return [(schedule.nodes[n].core_id, schedule.nodes[n].position) for n in schedule.critical_path]

    @cached_property
    def timeline(self) -> pd.DataFrame:
        columns: dict[str, list[Any]] = {c.name: [] for c in TIMELINE.columns}
        incomplete = self.index.incomplete
        for model in MODELS:
            schedule = self.schedules[model]
            critical = set(schedule.critical_path)
            for n, ref in enumerate(schedule.nodes):
                w = ref.workload
                columns["model"].append(model)
                columns["core_id"].append(ref.core_id)
                columns["position"].append(ref.position)
                columns["workload_id"].append(w.workload_id)
                columns["layer_name"].append(w.layer_name)
                columns["layer_type"].append(w.layer_type)
                columns["time"].append(w.time)
                columns["start"].append(schedule.start[n])
                columns["end"].append(schedule.end[n])
                columns["wait"].append(schedule.wait[n])
                columns["critical"].append(n in critical)
                columns["ifmap_transfers"].append(_joined(workload_inputs(w)))
                columns["ofmap_transfers"].append(_joined(o.transfer_id for o in w.ofmap))
                columns["incomplete"].append(ref.pointer in incomplete)
        return TIMELINE.frame(columns)

    @cached_property
    def core_transfers(self) -> pd.DataFrame:
        columns: dict[str, list[int]] = {c.name: [] for c in CORE_TRANSFERS.columns}
        producers = self.index.ofmap_producer
        for ref in self.index.workloads():
            for tid in sorted(workload_inputs(ref.workload)):
                producer = producers.get(tid)
                if producer is None or producer.core_id == ref.core_id:
                    continue
                columns["transfer_id"].append(tid)
                columns["src_core"].append(producer.core_id)
                columns["src_position"].append(producer.position)
                columns["dst_core"].append(ref.core_id)
                columns["dst_position"].append(ref.position)
        return CORE_TRANSFERS.frame(columns)

    @cached_property
    def cores(self) -> pd.DataFrame:
        columns: dict[str, list[Any]] = {c.name: [] for c in CORES.columns}
        for model in MODELS:
            schedule = self.schedules[model]
            makespan = schedule.makespan
            n = 0
            for core_id, refs in self.index.cores.items():
                ends = schedule.end[n : n + len(refs)]
                n += len(refs)
                busy = sum(ref.workload.time for ref in refs)
                last_end = (
                    None
                    if any(e is None for e in ends)
                    else max((e for e in ends if e is not None), default=0)
                )
                columns["model"].append(model)
                columns["core_id"].append(core_id)
                columns["workloads"].append(len(refs))
                columns["busy"].append(busy)
                columns["idle"].append(makespan - busy if makespan is not None else None)
                columns["last_end"].append(last_end)
                columns["utilization"].append(busy / makespan if makespan else float("nan"))
        return CORES.frame(columns)

    @cached_property
    def _l2(self) -> dict[str, pd.DataFrame]:
        return l2_tables(self.index)

    @property
    def tensors(self) -> pd.DataFrame:
        return self._l2["tensors"]

    @property
    def l2_occupancy(self) -> pd.DataFrame:
        return self._l2["l2_occupancy"]

    @property
    def l2_regions(self) -> pd.DataFrame:
        return self._l2["l2_regions"]

    @cached_property
    def _wl0(self) -> dict[str, pd.DataFrame]:
        return wl0_tables(self.index, self.options.wl0_size)

    @property
    def wl0_tensors(self) -> pd.DataFrame:
        return self._wl0["wl0_tensors"]

    @property
    def wl0_occupancy(self) -> pd.DataFrame:
        return self._wl0["wl0_occupancy"]

    @cached_property
    def dram_transfers(self) -> pd.DataFrame:
        return dram_transfers(self.index)

    @cached_property
    def dram_traffic(self) -> pd.DataFrame:
        return dram_traffic(self.index, self.dram_transfers)

    @cached_property
    def layers(self) -> pd.DataFrame:
        dep = self.timeline[self.timeline["model"] == "dependency"]
        keys = ["core_id", "position"]
        merged = dep.merge(
            self.dram_traffic.drop(columns=["workload_id", "layer_name"]), on=keys, how="left"
        ).merge(
            self.l2_occupancy[[*keys, "total_bytes"]].rename(columns={"total_bytes": "l2_bytes"}), on=keys
        )
        if merged.empty:
            return LAYERS.empty()
        grouped = merged.groupby("layer_name", sort=False)
        table = pd.DataFrame(
            {
                "layer_type": grouped["layer_type"].first(),
                "workloads": grouped.size(),
                "cores": grouped["core_id"].nunique(),
                "core_ids": grouped["core_id"].agg(lambda s: ";".join(map(str, sorted(set(s))))),
                "total_time": grouped["time"].sum(),
                "start": grouped["start"].min(),
                "end": grouped["end"].max(),
                "read_weight_bytes": grouped["read_weight_bytes"].sum(),
                "read_fmap_bytes": grouped["read_fmap_bytes"].sum(),
                "write_bytes": grouped["write_bytes"].sum(),
                "peak_l2_bytes": grouped["l2_bytes"].max(),
            }
        ).reset_index()
        table["peak_l2_fraction"] = (
            table["peak_l2_bytes"] / self.buffersize if self.buffersize else float("nan")
        )
        # Layers that cannot be scheduled go last, in file order (the sort is stable).
        table = table.sort_values("start", kind="stable", na_position="last").reset_index(drop=True)
        return LAYERS.frame({c.name: table[c.name] for c in LAYERS.columns})

    def position_of(self, core_id: int, workload_id: int) -> int | None:
        """Position of the workload with this id on the core, if there is one."""
        ref = self.index.by_id.get((core_id, workload_id))
        return ref.position if ref else None

    def transfer_users(self, transfer_id: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(core_id, position) of the workloads producing the transfer (as ofmap) and of those reading it."""
        producers = [
            (ref.core_id, ref.position)
            for ref in self.index.workloads()
            if any(o.transfer_id == transfer_id for o in ref.workload.ofmap)
        ]
        readers = [
            (ref.core_id, ref.position)
            for ref in self.index.workloads()
            if transfer_id in workload_inputs(ref.workload)
        ]
        return producers, readers

    def table(self, name: str) -> pd.DataFrame:
        """One table by its name in `TABLES`."""
        if name not in TABLES:
            raise KeyError(f"unknown table {name!r}; tables: {', '.join(TABLES)}")
        # The loaded IR holds millions of objects; collector passes over them would dominate.
        with gc_paused():
            frame: pd.DataFrame = getattr(self, name)
        return frame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: self.table(name) for name in TABLES}


def _joined(ids: Iterable[int]) -> str | None:
    return ";".join(map(str, sorted(set(ids)))) or None


def analyze(
    source: str | os.PathLike[str] | bytes | LoadedIR,
    options: AnalysisOptions | None = None,
    max_bytes: int | None = None,
) -> Analysis:
    """Load (unless given a LoadedIR) and wrap one IR; tables are computed when first read.

    Raises AnalysisError when the file is not JSON or not an IR at all, OSError when unreadable.
    """
    loaded = source if isinstance(source, LoadedIR) else load_ir(source, max_bytes=max_bytes)
    return Analysis(loaded, options)
