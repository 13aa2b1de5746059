"""The timeline, cores and core_transfers tables, from the schedules of every timing model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from irtools.analysis.tables import CORE_TRANSFERS, CORES, TIMELINE
from irtools.analysis.timeline import Schedule, core_ranges
from irtools.loading.index import IRIndex, workload_inputs


def _joined(ids: Iterable[int]) -> str | None:
    return ";".join(map(str, sorted(set(ids)))) or None


def timeline_table(index: IRIndex, schedules: dict[str, Schedule]) -> pd.DataFrame:
    """The `timeline` table from the schedules of each timing model."""
    columns: dict[str, list[Any]] = {c.name: [] for c in TIMELINE.columns}
    incomplete = index.incomplete
    for model, schedule in schedules.items():
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
            noc = None if schedule.noc_time is None else schedule.noc_time[n]
            columns["noc_time"].append(noc)
            columns["bound"].append(None if noc is None else "NoC" if noc > w.time else "compute")
            columns["noc_link"].append(None if schedule.noc_link is None else schedule.noc_link[n])
    return TIMELINE.frame(columns)


def core_transfers_table(index: IRIndex) -> pd.DataFrame:
    """The `core_transfers` table: each transfer a workload reads from another core's ofmap."""
    columns: dict[str, list[int]] = {c.name: [] for c in CORE_TRANSFERS.columns}
    producers = index.ofmap_producer
    for ref in index.workloads():
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


def cores_table(index: IRIndex, schedules: dict[str, Schedule]) -> pd.DataFrame:
    """The `cores` table: each core's busy and idle cycles and utilization under each timing model."""
    columns: dict[str, list[Any]] = {c.name: [] for c in CORES.columns}
    for model, schedule in schedules.items():
        makespan = schedule.makespan
        for (core_id, refs), nodes in zip(index.cores.items(), core_ranges(index)):
            ends = [schedule.end[n] for n in nodes]
            busy = sum(schedule.duration(n) for n in nodes)
            placed = [e for e in ends if e is not None]
            columns["model"].append(model)
            columns["core_id"].append(core_id)
            columns["workloads"].append(len(refs))
            columns["busy"].append(busy)
            columns["idle"].append(makespan - busy if makespan is not None else None)
            columns["last_end"].append(max(placed, default=0) if len(placed) == len(ends) else None)
            columns["utilization"].append(busy / makespan if makespan else float("nan"))
    return CORES.frame(columns)
