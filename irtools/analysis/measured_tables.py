"""The measured tables (`irtools analyze IR --trace TRACE`): columns, dtypes and units.

Declared here, beside the IR's own tables, so that `read_table` and the catalogue know every table irtools
writes without importing `irtools.trace`, which fills these tables and builds on this package.
"""

from __future__ import annotations

from irtools.analysis.tables import Column, TableSpec


def _c(name: str, dtype: str, unit: str, doc: str) -> Column:
    return Column(name, dtype, unit, doc)


_UNITS = "cycles"  # the trace's time unit is the IR's `time` unit, which the other tables call cycles
_LAYER = _c("layer_name", "str", "", "Layer the workload computes.")
_TYPE = _c("layer_type", "str", "", "The IR's layer_type (pe, vp, dt).")
_ROLLUP = (
    _c("workloads", "int64", "", "Measured workloads."),
    _c("time", "int64", _UNITS, "Sum of the estimated `time`."),
    _c("busy", "int64", _UNITS, "Sum of measured compute busy time."),
    _c("gap", "int64", _UNITS, "Sum of the gaps before the workloads (compute waiting)."),
    _c("slot", "int64", _UNITS, "gap + busy."),
    _c("slot_ratio", "float64", "ratio", "slot / time: how much longer the hardware took than estimated."),
    _c("gap_share", "float64", "fraction", "Share of all the run's gaps spent before these workloads."),
    _c("dma_bytes", "int64", "bytes", "Bytes moved by LD, LW and ST during those gaps."),
)

MEASURED_WORKLOADS = TableSpec(
    "measured_workloads",
    "One row per workload of core 0, in program order, joined to its compute instructions (PE, VP, DT; "
    "loads, stores and configuration are left out because delayed stores and prefetches carry another "
    "workload's wkl). The gap is the compute queues' idle time before the workload: what the estimate "
    "leaves out. Compute durations reproduce the estimate by construction (round(time / tiles) + 20 per tile).",
    (
        _c("position", "int64", "", "Index of the workload in core 0's list."),
        _c("workload_id", "int64", "", "The workload's workload_id (the trace's wkl)."),
        _LAYER,
        _TYPE,
        _c("tiles", "int64", "", "Tiles in the IR's tile_info."),
        _c("measured_tiles", "int64", "", "Compute instructions with a tile number in the trace."),
        _c("time", "int64", _UNITS, "Estimated running time from the IR."),
        _c("estimated_start", "Int64", _UNITS, "Start under the IR's dependency timing model."),
        _c(
            "start",
            "Int64",
            _UNITS,
            "Measured start of its first compute instruction; empty when unmeasured.",
        ),
        _c("end", "Int64", _UNITS, "Measured end of its last compute instruction."),
        _c("busy", "Int64", _UNITS, "Time some compute instruction of the workload was running."),
        _c("gap", "Int64", _UNITS, "start - end of the previous measured workload (from 0 for the first)."),
        _c("slot", "Int64", _UNITS, "gap + busy: what the workload cost on the hardware."),
        _c("slot_ratio", "float64", "ratio", "slot / time."),
        _c("dma_queues", "str", "", "DMA queues (LD, LW, ST) active during the gap, joined with ';'."),
        _c("ld_active", "Int64", _UNITS, "Part of the gap during which LD was moving data."),
        _c("lw_active", "Int64", _UNITS, "Part of the gap during which LW was moving data."),
        _c("st_active", "Int64", _UNITS, "Part of the gap during which ST was moving data."),
        _c(
            "dma_bytes", "Int64", "bytes", "Bytes LD, LW and ST moved during the gap (pro rata of each move)."
        ),
        _c(
            "critical_wait",
            "str",
            "",
            "What held the workload back: along the chain of instructions whose end set the next one's "
            "start, back from its first compute instruction, the one covering most of the gap (then up to "
            "two more covering a tenth of it or more).",
        ),
        _c("critical_wait_line", "Int64", "", "Its line in the trace."),
        _c("first_line", "Int64", "", "Line of the workload's first compute instruction."),
    ),
)

MEASURED_LAYERS = TableSpec(
    "measured_layers",
    "One row per layer of core 0, in order of first measured start: measured_workloads summed.",
    (_LAYER, _TYPE, *_ROLLUP),
)

MEASURED_LAYER_TYPES = TableSpec(
    "measured_layer_types", "One row per layer_type: measured_workloads summed.", (_TYPE, *_ROLLUP)
)

MEASURED_QUEUES = TableSpec(
    "measured_queues",
    "One row per hardware queue: how busy it was, and how much of the compute queues' idle time it covered. "
    "Configuration instructions (*_cfg) set registers and are not counted as busy.",
    (
        _c("queue", "str", "", "CT, LD, LW, PE, VP, DT or ST."),
        _c("instructions", "int64", "", "Instructions in the queue."),
        _c("busy", "int64", _UNITS, "Time some instruction of the queue (not *_cfg) was running."),
        _c("busy_share", "float64", "fraction", "busy / measured makespan."),
        _c("idle_active", "int64", _UNITS, "Time the queue was running while no compute queue was."),
        _c("idle_share", "float64", "fraction", "idle_active / compute idle time."),
        _c("bytes", "int64", "bytes", "Bytes the queue's data moves carried (DMA queues only)."),
    ),
)

MEASURED_INSTRUCTIONS = TableSpec(
    "measured_instructions",
    "One row per instruction of the trace, in file order.",
    (
        _c("line", "int64", "", "Line in the trace file."),
        _c("inst_idx", "int64", "", "The trace's inst_idx."),
        _c("name", "str", "", "Instruction name (lda_mov, pe_conv, ...)."),
        _c("queue", "str", "", "Hardware queue."),
        _c("wkl", "int64", "", "Workload id the instruction is tagged with."),
        _c("tile", "int64", "", "Tile number (k of tile_num_k); -1 on the LD, LW, ST, DT and CT queues."),
        _c("start", "int64", _UNITS, "Measured start."),
        _c("end", "int64", _UNITS, "Measured end."),
        _c("bytes", "Int64", "bytes", "Bytes a data move carried; empty for others."),
        _c("waited_on_line", "Int64", "", "Line of the instruction whose end set this start."),
    ),
)

MEASURED_TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        MEASURED_WORKLOADS,
        MEASURED_LAYERS,
        MEASURED_LAYER_TYPES,
        MEASURED_QUEUES,
        MEASURED_INSTRUCTIONS,
    )
}
"""The tables `analyze --trace` adds, by name."""
