"""DRAM traffic: which workload each DRAM read and write is charged to, and per-workload sums."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.tables import DRAM_TRAFFIC, DRAM_TRANSFERS
from irtools.analysis.timeline import core_ranges
from irtools.loading.columns import first_rows, ofmap_sizes, pair_keys, transfer_columns
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.model.view import is_core
from irtools.reference import fast_path


def dram_transfers(index: IRIndex) -> pd.DataFrame:
    """Reads: one row per (DRAM out entry, destination core), charged to the core's earliest destination.

    Writes: one row per DRAM in entry, charged to its producing workload with that ofmap's size.
    """
    columns: dict[str, list[Any]] = {c.name: [] for c in DRAM_TRANSFERS.columns}

    def add(direction: str, kind: str, tid: int, size: int | None, ref: WorkloadRef | None) -> None:
        columns["direction"].append(direction)
        columns["kind"].append(kind)
        columns["transfer_id"].append(tid)
        columns["bytes"].append(size)
        columns["core_id"].append(ref.core_id if ref else None)
        columns["position"].append(ref.position if ref else None)
        columns["workload_id"].append(ref.workload_id if ref else None)
        columns["layer_name"].append(ref.workload.layer_name if ref else None)

    by_id = index.by_id_once()
    for out in index.ir.dram.out:
        first: dict[int, WorkloadRef | None] = {}
        for d in out.destination:
            if not is_core(d):
                continue
            ref = by_id.get((d.core_id, d.workload_id))
            current = first.get(d.core_id)
            if current is None or (ref is not None and ref.position < current.position):
                first[d.core_id] = ref
        for ref in first.values():
            add("read", out.type, out.transfer_id, out.size, ref)
        if not first:
            add("read", out.type, out.transfer_id, out.size, None)
    writes = index.ir.dram.in_
    producers = [by_id.get((entry.core_id, entry.workload_id)) for entry in writes]
    del by_id
    tids = [entry.transfer_id for entry in writes]
    for tid, size, producer in zip(tids, write_sizes(index, producers, tids), producers, strict=True):
        add("write", "fmap", tid, size, producer)
    return DRAM_TRANSFERS.frame(columns)


def _write_sizes_reference(
    index: IRIndex, producers: list[WorkloadRef | None], tids: list[int]
) -> list[int | None]:
    return [
        None if ref is None else next((o.size for o in ref.workload.ofmap if o.transfer_id == tid), None)
        for ref, tid in zip(producers, tids, strict=True)
    ]


@fast_path(reference=_write_sizes_reference)
def write_sizes(index: IRIndex, producers: list[WorkloadRef | None], tids: list[int]) -> list[int | None]:
    """Per DRAM write: the size of its producer's first ofmap with its transfer id (None without one), from
    the transfer columns and `ofmap_sizes`: what `irtools analyze` keeps of the ofmaps it drops."""
    cols, sizes = transfer_columns(index), ofmap_sizes(index)
    if cols is None or sizes is None or any(t < 0 or t >= 2**62 for t in tids):
        return _write_sizes_reference(index, producers, tids)
    first = {core_id: rows.start for core_id, rows in zip(index.cores, core_ranges(index), strict=True)}
    row = np.array([-1 if ref is None else first[ref.core_id] + ref.position for ref in producers], np.int64)
    keys = pair_keys(cols.ofmap_row, cols.ofmap_tid, np.maximum(row, 0), np.array(tids, np.int64))
    if keys is None or int(cols.ofmap_tid.min(initial=0)) < 0:
        return _write_sizes_reference(index, producers, tids)
    at = first_rows(*keys)
    return [None if r < 0 or a < 0 else int(sizes[a]) for r, a in zip(row.tolist(), at.tolist(), strict=True)]


def _dram_traffic_reference(index: IRIndex, transfers: pd.DataFrame) -> pd.DataFrame:
    """`dram_traffic` row by row, through a dict per workload."""
    sums: dict[tuple[int, int], dict[str, int]] = {}
    charged = transfers.dropna(subset=["position", "bytes"])
    for direction, kind, size, core, position in zip(
        charged["direction"], charged["kind"], charged["bytes"], charged["core_id"], charged["position"]
    ):
        column = "write_bytes" if direction == "write" else f"read_{kind}_bytes"
        per = sums.setdefault((int(core), int(position)), dict.fromkeys(_SUMS, 0))
        per[column] += int(size)
    columns: dict[str, list[Any]] = {c.name: [] for c in DRAM_TRAFFIC.columns}
    for ref in index.workloads():
        values = sums.get((ref.core_id, ref.position)) or dict.fromkeys(_SUMS, 0)
        columns["core_id"].append(ref.core_id)
        columns["position"].append(ref.position)
        columns["workload_id"].append(ref.workload_id)
        columns["layer_name"].append(ref.workload.layer_name)
        for name in _SUMS:
            columns[name].append(values[name])
        columns["total_bytes"].append(sum(values.values()))
    return DRAM_TRAFFIC.frame(columns)


@fast_path(reference=_dram_traffic_reference)
def dram_traffic(index: IRIndex, transfers: pd.DataFrame) -> pd.DataFrame:
    """Per workload: DRAM bytes read (weight, fmap) and written, zero where nothing is charged."""
    charged = transfers.dropna(subset=["position", "bytes"])
    size = charged["bytes"].to_numpy(np.int64)
    reads = charged["direction"].to_numpy(object) != "write"
    kind = charged["kind"].to_numpy(object)
    if not set(kind[reads]) <= {"weight", "fmap"} or int(size.max(initial=0)) * max(len(size), 1) >= 2**63:
        return _dram_traffic_reference(index, transfers)  # no column for the kind, or a sum beyond int64
    identity = workload_identity(index)
    rows = len(index.rows)
    try:
        core_of_row = np.array(identity["core_id"], dtype=np.int64)
    except OverflowError:
        return _dram_traffic_reference(index, transfers)
    # A core's workloads are consecutive rows: (core, position) is its first row plus the position.
    row = first_rows(core_of_row, charged["core_id"].to_numpy(np.int64)) + charged["position"].to_numpy(
        np.int64
    )
    sums = {}
    for name, picked in (
        ("read_weight_bytes", reads & (kind == "weight")),
        ("read_fmap_bytes", reads & (kind == "fmap")),
        ("write_bytes", ~reads),
    ):
        sums[name] = np.zeros(rows, dtype=np.int64)
        np.add.at(sums[name], row[picked], size[picked])
    return DRAM_TRAFFIC.frame(
        {
            **identity,
            **sums,
            "total_bytes": sums["read_weight_bytes"] + sums["read_fmap_bytes"] + sums["write_bytes"],
        }
    )


_SUMS = ("read_weight_bytes", "read_fmap_bytes", "write_bytes")
