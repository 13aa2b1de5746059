"""The documented dialect: the Scheduler IR as its format document describes it (after address allocation)."""

from __future__ import annotations

from typing import Any

from irtools.dialects.base import Capability, Dialect, PartModels, SchemaInfo, buffer_shows
from irtools.dialects.documented.dram import DramIn, DramOut, DramSection
from irtools.dialects.documented.ir import SchedulerIR
from irtools.dialects.documented.keys import DocumentedKeyScan
from irtools.dialects.documented.models import (
    BufferEntry,
    IfmapTensor,
    OfmapTensor,
    Wl0Entry,
    Workload,
)


def shows_documented(workload: dict[str, Any]) -> bool:
    """An `ifmap` list, or buffer entries with `address` and no `block`."""
    if isinstance(workload.get("ifmap"), list):
        return True
    return buffer_shows(workload, ("address",), ("block",))


DOCUMENTED = Dialect(
    name="documented",
    title="the format document's Scheduler IR (after address allocation): byte addresses, ring regions, WL0",
    note=None,
    capabilities=frozenset(
        {
            Capability.L2_ADDRESSES,
            Capability.RING_REGIONS,
            Capability.CUR_WL_FLAGS,
            Capability.ALIGN_BITWIDTH,
            Capability.WL0,
            Capability.NEWLY_ADDED,
            Capability.L2_SIZE,
        }
    ),
    parts=PartModels(
        top=SchedulerIR,
        workload=Workload,
        dram_section=DramSection,
        dram_entries={"in": DramIn, "out": DramOut},
        workload_lists={
            "ifmap": IfmapTensor,
            "ofmap": OfmapTensor,
            "buffer": BufferEntry,
            "wl0_buffer": Wl0Entry,
            "wl1_buffer": Wl0Entry,
        },
        scalars=("buffersize", "top_batch_cut", "xlen", "ylen"),
        key_scan=DocumentedKeyScan,
        written_with_default=frozenset(
            {
                ("DramIn", "related_ofmap"),
                ("DramOut", "related_ifmap"),
                ("Workload", "wl0_buffer"),
                ("Wl0Entry", "tensor_order"),
            }
        ),
    ),
    shows=shows_documented,
    marks=frozenset({"buffersize"}),
    shows_destination=lambda dest: "core_id" in dest and "id" not in dest,
    schema=SchemaInfo(
        "schemas/gemini-scheduler-ir.schema.json",
        "Gemini Scheduler IR",
        "Output of the Gemini multi-core DNN accelerator scheduler after address allocation: "
        'DRAM traffic under key "-1" and, per core "0".."N-1", an ordered list of workloads '
        "with their tensors and L2/WL0 buffer snapshots.",
    ),
)
