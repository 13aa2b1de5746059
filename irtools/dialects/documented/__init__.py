"""The documented dialect: the Scheduler IR as its format document describes it (after address allocation).

`models`, `dram` and `ir` are its Pydantic models (the source of its JSON Schema and of the decoder's
Structs); `dialect` declares it (`DOCUMENTED`). Its models are re-exported here.
"""

from irtools.dialects.documented.dram import CoreDestination, DramDestination, DramIn, DramOut, DramSection
from irtools.dialects.documented.ir import SchedulerIR
from irtools.dialects.documented.models import (
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
