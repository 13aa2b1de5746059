"""The documented dialect: the Scheduler IR as its format document describes it (after address allocation)."""

from __future__ import annotations

from typing import Any

from irtools.dialects.base import Capability, Dialect, PartModels, buffer_shows
from irtools.dialects.keys import KeyScan
from irtools.model import (
    BufferEntry,
    DramIn,
    DramOut,
    DramSection,
    IfmapTensor,
    OfmapTensor,
    SchedulerIR,
    Wl0Entry,
    Workload,
)
from irtools.model.schema import build_schema


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
        key_scan=KeyScan,
    ),
    shows=shows_documented,
    schema=build_schema,
)
