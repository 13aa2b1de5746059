"""Pydantic models of the Gemini Scheduler IR: the source of truth for the JSON Schema."""

from irtools.model.core import (
    BufferEntry,
    CoreSource,
    DramSource,
    IfmapTensor,
    OfmapTensor,
    Tile,
    WeightTensor,
    Wl0Entry,
    Workload,
)
from irtools.model.dram import CoreDestination, DramDestination, DramIn, DramOut, DramSection
from irtools.model.ir import SchedulerIR

__all__ = [
    "BufferEntry",
    "CoreDestination",
    "CoreSource",
    "DramDestination",
    "DramIn",
    "DramOut",
    "DramSection",
    "DramSource",
    "IfmapTensor",
    "OfmapTensor",
    "SchedulerIR",
    "Tile",
    "WeightTensor",
    "Wl0Entry",
    "Workload",
]
