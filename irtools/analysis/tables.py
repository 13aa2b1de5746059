"""The analysis tables: their columns, dtypes and units in one place, and typed DataFrame construction.

Every table the analysis produces is declared here, so the CSV writer, the reader, the docs
(docs/tables.md) and the tests agree on names, dtypes and units.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irtools.errors import AnalysisError


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a table: name, pandas dtype, unit (bytes, cycles, ...) and meaning."""

    name: str
    dtype: str
    """pandas dtype: int64, Int64 (nullable), float64, bool or str (missing values are NaN)."""
    unit: str
    doc: str


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table's declaration: its contract name, what a row is, its columns in order."""

    name: str
    doc: str
    columns: tuple[Column, ...]

    @property
    def dtypes(self) -> dict[str, str]:
        """Column name -> pandas dtype, for reading the table back with its declared types."""
        return {c.name: c.dtype for c in self.columns}

    def frame(self, data: Mapping[str, Sequence[Any] | np.ndarray]) -> pd.DataFrame:
        """A DataFrame with exactly this table's columns, in order, with their declared dtypes."""
        missing = [c.name for c in self.columns if c.name not in data]
        if missing:
            raise KeyError(f"table {self.name}: no data for columns {missing}")
        try:
            return pd.DataFrame(
                {c.name: pd.Series(data[c.name], dtype=c.dtype) for c in self.columns}, copy=False
            )
        except OverflowError:  # sizes near 2**63 (a header or entry set huge): their sums leave int64
            raise AnalysisError(
                f"cannot be analyzed: table {self.name}: its numbers do not fit 64 bits "
                "(sizes or addresses near 2**63 bytes)"
            ) from None

    def empty(self) -> pd.DataFrame:
        """The table with its columns and dtypes and no rows (a copy of one made once: building it column by
        column took 1.2 ms, and `irtools analyze` asks a raw file's batches for three each)."""
        return _empty(self).copy()


@functools.cache
def _empty(spec: TableSpec) -> pd.DataFrame:
    return spec.frame({c.name: [] for c in spec.columns})


def _c(name: str, dtype: str, unit: str, doc: str) -> Column:
    return Column(name, dtype, unit, doc)


_CORE = _c("core_id", "int64", "", "Core that runs the workload (top-level key of the IR).")
_POSITION = _c("position", "int64", "", "Index of the workload in its core's list (program order, from 0).")
_WORKLOAD = _c("workload_id", "int64", "", "The workload's workload_id.")
_LAYER = _c("layer_name", "str", "", "Layer the workload computes.")

TIMELINE = TableSpec(
    "timeline",
    "One row per workload and timing model. `sequential`: each core runs its workloads back to back "
    "from cycle 0. `dependency`: a workload starts when its core is free and every workload it waits "
    "for (producers of its ifmap and weight transfers, and senders naming it as a destination) has "
    "ended; workloads caught in or behind a wait cycle (GIR502) have no start.",
    (
        _c("model", "str", "", "Timing model: sequential, dependency, or noc (with a NoC bandwidth)."),
        _CORE,
        _POSITION,
        _WORKLOAD,
        _LAYER,
        _c("layer_type", "str", "", "Hardware module: pe, vp or dt (free text in real files)."),
        _c("time", "int64", "cycles", "Estimated running time from the IR."),
        _c("start", "Int64", "cycles", "Start time; empty when the workload cannot be scheduled."),
        _c("end", "Int64", "cycles", "End time: start + time (noc: start + max(time, noc_time))."),
        _c(
            "wait",
            "Int64",
            "cycles",
            "Idle time on the core just before this workload (start - previous end).",
        ),
        _c("critical", "bool", "", "On the critical path: the chain of workloads that sets the makespan."),
        _c(
            "ifmap_transfers",
            "str",
            "",
            "Transfer ids the workload reads (ifmap and weight), joined with ';'.",
        ),
        _c("ofmap_transfers", "str", "", "Transfer ids of its ofmaps, joined with ';'."),
        _c("incomplete", "bool", "", "Entries of this workload broke the schema and were left out."),
        _c(
            "noc_time",
            "Int64",
            "cycles",
            "noc rows: NoC time of the workload's layer step (heaviest link's bytes / NoC bandwidth, "
            "over Gemini's frequency); empty under the other models.",
        ),
        _c("bound", "str", "", "noc rows: `NoC` when noc_time exceeds time, else `compute`."),
        _c("noc_link", "str", "", "noc rows: the step's heaviest directed link, e.g. `DRAM W0->(0,0)`."),
    ),
)

CORES = TableSpec(
    "cores",
    "One row per core and timing model: how busy the core is over the whole schedule.",
    (
        _c("model", "str", "", "Timing model: sequential, dependency, or noc (with a NoC bandwidth)."),
        _CORE,
        _c("workloads", "int64", "", "Number of workloads on the core."),
        _c("busy", "int64", "cycles", "Sum of the workloads' durations (time; noc: max(time, noc_time))."),
        _c("idle", "Int64", "cycles", "makespan - busy; empty when the schedule has no makespan."),
        _c("last_end", "Int64", "cycles", "End of the core's last workload."),
        _c("utilization", "float64", "fraction", "busy / makespan (of the whole schedule)."),
    ),
)

CORE_TRANSFERS = TableSpec(
    "core_transfers",
    "One row per cross-core transfer edge: a workload reading (ifmap or weight) a transfer id "
    "that a workload on another core produces as its ofmap.",
    (
        _c("transfer_id", "int64", "", "The transfer id."),
        _c("src_core", "int64", "", "Core of the producing workload."),
        _c("src_position", "int64", "", "Position of the producing workload."),
        _c("dst_core", "int64", "", "Core of the consuming workload."),
        _c("dst_position", "int64", "", "Position of the consuming workload."),
    ),
)

TENSORS = TableSpec(
    "tensors",
    "One row per L2 tensor lifetime on a core: a run of consecutive snapshots holding the same "
    "tensor (same tensor_id, type, address and size). A snapshot is taken before its workload starts.",
    (
        _c("core_id", "int64", "", "Core whose L2 holds the tensor."),
        _c("tensor_id", "int64", "", "The entry's tensor_id."),
        _c("type", "str", "", "ifmap, ofmap or weight."),
        _c("layer_name", "str", "", "The entry's layer_name, when given."),
        _c("transfer_ids", "str", "", "The entry's transfer ids, joined with ';'."),
        _c("address", "int64", "bytes", "Start address in L2."),
        _c("size", "int64", "bytes", "Size in L2."),
        _c(
            "segments", "str", "bytes", "Occupied [start, end) byte ranges after ring wrap-around, 'a-b;c-d'."
        ),
        _c("wraps", "bool", "", "Runs past its ring region's end and wraps to the region's start."),
        _c("region_start", "Int64", "bytes", "Start of the ring region holding the address."),
        _c("region_end", "Int64", "bytes", "End (exclusive) of that ring region."),
        _c("first_position", "int64", "", "Position of the first snapshot holding the tensor."),
        _c("last_position", "int64", "", "Position of the last snapshot holding the tensor."),
        _c("first_workload_id", "int64", "", "workload_id of the first snapshot."),
        _c("last_workload_id", "int64", "", "workload_id of the last snapshot."),
        _c("snapshots", "int64", "", "Number of snapshots holding the tensor."),
        _c("source", "str", "", "Where the data comes from: DRAM, core, mixed; empty when not given."),
        _c("to_dram", "bool", "", "An output being sent to DRAM (start_send in real files)."),
        _c("overlaps", "bool", "", "Shares bytes with another tensor in some snapshot (see GIR302)."),
        _c("problem", "str", "", "Why the tensor does not fit its buffer or ring region (see GIR301)."),
    ),
)

_OCCUPANCY_KEY = (
    _CORE,
    _POSITION,
    _WORKLOAD,
    _LAYER,
)

L2_OCCUPANCY = TableSpec(
    "l2_occupancy",
    "One row per L2 snapshot (core, workload): bytes held before the workload starts.",
    (
        *_OCCUPANCY_KEY,
        _c("tensors", "int64", "", "Number of tensors in the snapshot."),
        _c("ifmap_bytes", "int64", "bytes", "Sum of ifmap tensor sizes."),
        _c("ofmap_bytes", "int64", "bytes", "Sum of ofmap tensor sizes."),
        _c("weight_bytes", "int64", "bytes", "Sum of weight tensor sizes."),
        _c("total_bytes", "int64", "bytes", "Sum of all tensor sizes (= ifmap + ofmap + weight)."),
        _c(
            "used_bytes",
            "int64",
            "bytes",
            "Bytes of [0, buffersize) covered by some tensor (overlaps counted once).",
        ),
        _c("free_bytes", "int64", "bytes", "buffersize - used_bytes."),
        _c("fraction", "float64", "fraction", "total_bytes / buffersize."),
        _c(
            "largest_free_block",
            "int64",
            "bytes",
            "Largest contiguous free range inside one ring region (the largest tensor that still fits).",
        ),
        _c(
            "fragmentation",
            "float64",
            "fraction",
            "1 - largest_free_block / free_bytes (0 when nothing is free).",
        ),
        _c("incomplete", "bool", "", "Snapshot entries broke the schema and were left out."),
    ),
)

L2_REGIONS = TableSpec(
    "l2_regions",
    "One row per L2 snapshot and ring region: the same accounting inside each region.",
    (
        *_OCCUPANCY_KEY,
        _c("region_start", "int64", "bytes", "Start of the ring region."),
        _c("region_end", "int64", "bytes", "End (exclusive) of the ring region."),
        _c("used_bytes", "int64", "bytes", "Bytes of the region covered by some tensor."),
        _c("free_bytes", "int64", "bytes", "Region size - used_bytes."),
        _c("fraction", "float64", "fraction", "used_bytes / region size."),
        _c("largest_free_block", "int64", "bytes", "Largest contiguous free range in the region."),
    ),
)

WL0_TENSORS = TableSpec(
    "wl0_tensors",
    "One row per WL0 weight lifetime on a core: consecutive snapshots holding the same weight "
    "(address, size, transfer ids).",
    (
        _c("core_id", "int64", "", "Core whose WL0 holds the weight."),
        _c("layer_name", "str", "", "Layer that uses the weight."),
        _c("transfer_ids", "str", "", "The entry's transfer ids, joined with ';'."),
        _c("address", "int64", "bytes", "Start address in WL0."),
        _c("size", "int64", "bytes", "Size in WL0."),
        _c("source", "str", "", "CORE (read from L2) or DDR (from DRAM)."),
        _c("first_position", "int64", "", "Position of the first snapshot holding the weight."),
        _c("last_position", "int64", "", "Position of the last snapshot holding the weight."),
        _c("first_workload_id", "int64", "", "workload_id of the first snapshot."),
        _c("last_workload_id", "int64", "", "workload_id of the last snapshot."),
        _c("snapshots", "int64", "", "Number of snapshots holding the weight."),
        _c("overlaps", "bool", "", "Shares bytes with another weight in some snapshot (see GIR401)."),
    ),
)

WL0_OCCUPANCY = TableSpec(
    "wl0_occupancy",
    "One row per WL0 snapshot (core, workload). Free space needs the WL0 size (--wl0-size).",
    (
        *_OCCUPANCY_KEY,
        _c("weights", "int64", "", "Number of weights in the snapshot."),
        _c("total_bytes", "int64", "bytes", "Sum of weight sizes."),
        _c("extent", "int64", "bytes", "Highest end address (address + size) in the snapshot."),
        _c("free_bytes", "Int64", "bytes", "WL0 size - bytes covered; empty when the size is unknown."),
        _c(
            "largest_free_block",
            "Int64",
            "bytes",
            "Largest contiguous free range; empty when the size is unknown.",
        ),
    ),
)

DRAM_TRANSFERS = TableSpec(
    "dram_transfers",
    "One row per DRAM transfer and core. A DRAM `out` entry is read once into each core that "
    "names it as a destination, charged to that core's earliest destination workload; a DRAM "
    "`in` entry is written once by its producing workload, with the size of that workload's ofmap.",
    (
        _c("direction", "str", "", "read (DRAM out -> core) or write (core -> DRAM in)."),
        _c("kind", "str", "", "weight or fmap."),
        _c("transfer_id", "int64", "", "Transfer id of the DRAM entry."),
        _c("bytes", "Int64", "bytes", "Bytes moved; empty when the producing ofmap is missing."),
        _c("core_id", "Int64", "", "Core of the workload charged; empty when unresolved."),
        _c("position", "Int64", "", "Position of that workload; empty when unresolved."),
        _c("workload_id", "Int64", "", "workload_id of that workload; empty when unresolved."),
        _c("layer_name", "str", "", "Layer of that workload."),
    ),
)

DRAM_TRAFFIC = TableSpec(
    "dram_traffic",
    "One row per workload: DRAM bytes charged to it (see dram_transfers for the rule).",
    (
        *_OCCUPANCY_KEY,
        _c("read_weight_bytes", "int64", "bytes", "Weights read from DRAM."),
        _c("read_fmap_bytes", "int64", "bytes", "Feature maps read from DRAM."),
        _c("write_bytes", "int64", "bytes", "Feature maps written to DRAM."),
        _c("total_bytes", "int64", "bytes", "read_weight_bytes + read_fmap_bytes + write_bytes."),
    ),
)

LAYERS = TableSpec(
    "layers",
    "One row per layer, in order of first start under the dependency model.",
    (
        _LAYER,
        _c("layer_type", "str", "", "layer_type of the layer's first workload."),
        _c("workloads", "int64", "", "Number of workloads computing the layer."),
        _c("cores", "int64", "", "Number of distinct cores running them."),
        _c("core_ids", "str", "", "Those cores, joined with ';'."),
        _c("total_time", "int64", "cycles", "Sum of the workloads' time."),
        _c("start", "Int64", "cycles", "First start under the dependency model."),
        _c("end", "Int64", "cycles", "Last end under the dependency model."),
        _c("read_weight_bytes", "int64", "bytes", "Weights read from DRAM for the layer."),
        _c("read_fmap_bytes", "int64", "bytes", "Feature maps read from DRAM for the layer."),
        _c("write_bytes", "int64", "bytes", "Feature maps the layer writes to DRAM."),
        _c("peak_l2_bytes", "int64", "bytes", "Largest L2 snapshot total while one of its workloads runs."),
        _c("peak_l2_fraction", "float64", "fraction", "peak_l2_bytes / buffersize."),
        _c(
            "noc_added",
            "Int64",
            "cycles",
            "With a NoC bandwidth: cycles the NoC adds to the layer, summed over its steps "
            "(NoC time - the step's longest workload time, where positive); else empty.",
        ),
        _c("bound", "str", "", "With a NoC bandwidth: `NoC` when noc_added > 0, else `compute`; else empty."),
        _c(
            "noc_link",
            "str",
            "",
            "With a NoC bandwidth: the heaviest directed link of the layer's slowest step.",
        ),
    ),
)

L2_BLOCKS = TableSpec(
    "l2_blocks",
    "One row per L2 snapshot (core, workload): 1 KiB blocks held before the workload starts, by "
    "tensor type, against the core's L2 size when known. The measure the scheduler allocates with "
    "before addresses exist: the raw dialect's `block` counts; in documented files each entry's "
    "size rounded up to whole KiB. An input held ahead for a later workload counts in every snapshot "
    "that lists it.",
    (
        *_OCCUPANCY_KEY,
        _c("tensors", "int64", "", "Number of buffer entries in the snapshot."),
        _c("ifmap_kib", "int64", "KiB", "Blocks held by ifmap entries."),
        _c("weight_kib", "int64", "KiB", "Blocks held by weight entries."),
        _c("ofmap_kib", "int64", "KiB", "Blocks held by ofmap entries."),
        _c(
            "held_kib",
            "int64",
            "KiB",
            "All blocks the snapshot lists (= ifmap + weight + ofmap); raw files list inputs whole and "
            "held ahead, so this can exceed what the scheduler, which tiles, holds at once.",
        ),
        _c(
            "l2_kib",
            "Int64",
            "KiB",
            "The core's L2 size: buffersize, or --l2-size for the raw dialect; empty when unknown.",
        ),
        _c("fraction", "float64", "fraction", "held_kib / l2_kib; empty when the L2 size is unknown."),
    ),
)

LAYER_COST = TableSpec(
    "layer_cost",
    "One row per layer: Gemini's cost of the layer as its scheduler prints it (irtools.analysis.layer_cost, "
    "docs/noc.md), over all its batch groups (its steps). Needs --noc-bw and a mesh (xlen, ylen; empty without). Where the "
    "layers run one after another (every shared Gemini run) `time` sums to the noc makespan; the energy "
    "columns sum to the energy's terms (NaN: not determined by the IR, docs/noc.md).",
    (
        _c("layer_name", "str", "", "The layer, by the IR's layer_name."),
        _c("groups", "int64", "", "Batch groups: the layer's steps (its k-th workload on each core)."),
        _c("compute_time", "int64", "cycles", "Sum over the groups of the longest workload's time."),
        _c(
            "noc_time",
            "float64",
            "cycles",
            "Gemini's NoCtime of the layer's segment: ceil(heaviest link's bytes over all groups / NoC "
            "bandwidth), or the DRAM time when longer (with --dram-bw), over the frequency (not truncated).",
        ),
        _c(
            "dram_time", "Int64", "cycles", "DRAM time of all groups (with --dram-bw), truncated; else empty."
        ),
        _c(
            "time",
            "int64",
            "cycles",
            "The layer's time in the noc model: sum of max(compute, NoC) per group.",
        ),
        _c("bound", "str", "", "`compute`, `NoC` or `DRAM`: what sets the layer's time."),
        _c("link", "str", "", "The heaviest directed link over all groups, e.g. `DRAM W0->(0,0)`."),
        _c("link_bytes", "int64", "bytes", "Bytes on that link over all groups."),
        _c("hops", "int64", "bytes x hops", "Bytes times hops on the NoC (Gemini's NoC_tot_hops)."),
        _c("dram_bytes", "int64", "bytes", "Bytes read from and written to DRAM (Gemini's DRAM acc)."),
        _c("noc_energy", "float64", "pJ", "hops x Gemini's energy per byte and hop (2.24 pJ, 7 nm)."),
        _c("nop_energy", "float64", "pJ", "Die-to-die hops' energy: NaN (the IR records no chiplet cut)."),
        _c("dram_energy", "float64", "pJ", "dram_bytes x Gemini's per-byte DRAM energy (with --dram-type)."),
        _c("mac_energy", "float64", "pJ", "MAC energy: NaN (from the intra-core mapping, not in the IR)."),
        _c(
            "buffers_energy", "float64", "pJ", "Ubuf/Buf/Bus energy: NaN (intra-core mapping, not in the IR)."
        ),
    ),
)

NOC_LINKS = TableSpec(
    "noc_links",
    "One row per directed NoC link that carries bytes, heaviest first: core-to-core and DRAM transfers "
    "routed as Gemini's NoC does (X first along the source row, then Y; multicast trees; DRAM reads and "
    "writes interleaved over the ports on the edge columns x = -1 and x = xlen). Empty without a mesh. "
    "`irtools analyze` writes it only with --noc-links or --noc-bw (routing a 64-core file costs about as "
    "much as parsing it).",
    (
        _c("link", "str", "", "The link, e.g. `(0,1)->(1,1)` or `DRAM W0->(0,0)` (port west of row 0)."),
        _c("x", "int64", "", "Mesh column of the link's start (-1 / xlen: a DRAM port)."),
        _c("y", "int64", "", "Mesh row of the link's start."),
        _c("direction", "str", "", "+x (east), -x (west), +y (down a row) or -y (up a row)."),
        _c("to_x", "int64", "", "Mesh column of the link's end."),
        _c("to_y", "int64", "", "Mesh row of the link's end."),
        _c(
            "bytes",
            "int64",
            "bytes",
            "Bytes crossing the link (core_bytes + dram_read_bytes + dram_write_bytes).",
        ),
        _c("core_bytes", "int64", "bytes", "Of them, core-to-core transfers (an ofmap to its consumers)."),
        _c("dram_read_bytes", "int64", "bytes", "Of them, DRAM reads (weights, input and spilled fmaps)."),
        _c("dram_write_bytes", "int64", "bytes", "Of them, ofmaps written to DRAM."),
        _c("transfers", "int64", "", "Distinct transfers (by kind and transfer id) crossing the link."),
        _c(
            "busy_cycles",
            "float64",
            "cycles",
            "bytes / --noc-bw (bytes per NoC cycle per link): NoC cycles, before Gemini's frequency; empty without it.",
        ),
        _c(
            "busy_share",
            "float64",
            "fraction",
            "busy_cycles / --noc-frequency / the makespan of the dependency model: the share of the schedule "
            "the link is busy, in the IR's time unit (a link moves bandwidth x frequency bytes per IR cycle, as "
            "in the noc model).",
        ),
    ),
)

POSITION_COLUMNS = {
    "core_id": ("core_x", "core_y"),
    "src_core": ("src_x", "src_y"),
    "dst_core": ("dst_x", "dst_y"),
}
"""Columns naming a core, and the mesh-position columns shown beside each."""


def with_positions(spec: TableSpec) -> TableSpec:
    """`spec` with the core's mesh position (x, y) after every column naming a core."""
    columns: list[Column] = []
    for column in spec.columns:
        columns.append(column)
        for axis, name in zip("xy", POSITION_COLUMNS.get(column.name, ()), strict=False):
            what = "column" if axis == "x" else "row"
            columns.append(
                _c(
                    name,
                    "Int64",
                    "",
                    f"Mesh {what} ({axis}) of {column.name}, under the file's numbering: "
                    "0..xlen*ylen-1 row by row, or Gemini's mesh ids y*(xlen+2)+x+1; empty when unknown.",
                )
            )
    return TableSpec(spec.name, spec.doc, tuple(columns))


TABLES: dict[str, TableSpec] = {
    t.name: with_positions(t)
    for t in (
        TIMELINE,
        CORES,
        CORE_TRANSFERS,
        TENSORS,
        L2_OCCUPANCY,
        L2_REGIONS,
        L2_BLOCKS,
        WL0_TENSORS,
        WL0_OCCUPANCY,
        DRAM_TRANSFERS,
        DRAM_TRAFFIC,
        LAYERS,
        LAYER_COST,
        NOC_LINKS,
    )
}
"""Every analysis table by name, in the order `irtools analyze` writes them."""
