"""The raw dialect: Gemini's IR before address allocation (what `SchNode::IR_gen()` writes), declared.

Its own models (irtools.dialects.raw.models) are what the index, the rules and the tables read, through the
vocabulary every dialect shares (irtools.model.view): sizes, which this dialect gives in bits (8 per
int8 element), in bytes; ranges as four coordinates; sources and destinations by `core_id`. What the
dialect lacks (addresses, tensor ids, align, bitwidth, ring regions, WL0) is not there at all, and the
capabilities say so; what only it has (`max_workload_id`, `block`, inputs held ahead) is read by the
rules that need those capabilities.
"""

from __future__ import annotations

import re
from typing import Any

from irtools.dialects.base import Capability, Dialect, PartModels, SchemaInfo, buffer_shows
from irtools.dialects.raw.keys import OMITTED, RawKeyScan
from irtools.dialects.raw.models import (
    RawBufferEntry,
    RawDramIn,
    RawDramOut,
    RawDramSection,
    RawIR,
    RawOfmap,
    RawWorkload,
)
from irtools.model.view import PartialIR

# --- what loading completes ---------------------------------------------------------------------------


def name_dram_writers(ir: RawIR | PartialIR) -> RawIR | PartialIR:
    """Each DRAM `in` entry's layer: the file names only the writing workload; its layer is looked up."""
    layer_of = {(int(key), w.workload_id): w.layer_name for key, ws in ir.cores.items() for w in ws}
    for entry in ir.dram.in_:
        entry.layer_name = layer_of.get((entry.core_id, entry.workload_id), "")
    return ir


_IFMAP_ITEM = re.compile(r"^(/[^/]+/[0-9]+/ifmap)/0(?=/|$)")


def file_pointer(pointer: str) -> str:
    """A pointer the rules build as a pointer into the raw file: its one ifmap is an object, not a list of one."""
    return _IFMAP_ITEM.sub(r"\1", pointer)


# --- the declaration -------------------------------------------------------------------------------------


def shows_raw(workload: dict[str, Any]) -> bool:
    """An `ifmap` object, or buffer entries with `block` and no `address`."""
    if isinstance(workload.get("ifmap"), dict):
        return True
    return buffer_shows(workload, ("block",), ("address",))


RAW_CAPABILITIES = frozenset(
    {
        Capability.BLOCK_COUNTS,
        Capability.DRAM_WAITS,
        Capability.HELD_AHEAD,
        Capability.SOURCE_CHANNELS,
    }
)

RAW_PARTS = PartModels(
    top=RawIR,
    workload=RawWorkload,
    dram_section=RawDramSection,
    dram_entries={"in": RawDramIn, "out": RawDramOut},
    workload_lists={"ofmap": RawOfmap, "buffer": RawBufferEntry},
    scalars=("top_batch_cut", "xlen", "ylen"),
    key_scan=RawKeyScan,
    omitted=OMITTED,
    written_with_default=frozenset(
        {("RawDramIn", "related_ofmap"), ("RawDramOut", "related_ifmap"), ("RawBufferEntry", "source")}
    ),
)

RAW = Dialect(
    name="raw",
    title="Gemini's IR before address allocation (SchNode::IR_gen output): 1 KiB block counts, no addresses",
    note=(
        "Gemini scheduler IR before address allocation (raw dialect: SchNode::IR_gen output, "
        "buffer entries hold 1 KiB block counts instead of addresses); checked against its own schema "
        "(irtools schema --dialect raw)"
    ),
    capabilities=RAW_CAPABILITIES,
    parts=RAW_PARTS,
    shows=shows_raw,
    shows_destination=lambda dest: "id" in dest and "core_id" not in dest,
    finish=name_dram_writers,
    file_pointer=file_pointer,
    schema=SchemaInfo(
        "schemas/gemini-scheduler-ir-raw.schema.json",
        "Gemini Scheduler IR, raw dialect (before address allocation)",
        "What the Gemini scheduler's SchNode::IR_gen() writes before L2 address allocation: DRAM "
        'traffic under key "-1" and, per core (Gemini mesh ids y*(xlen+2)+x+1), an ordered list of '
        "workloads whose L2 snapshots hold 1 KiB block counts instead of addresses.",
    ),
)
