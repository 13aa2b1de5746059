"""The allocated dialect: the raw IR after the SET allocator wrote L2 addresses into it, declared.

Everything of the raw dialect holds (irtools.dialects.raw), and each buffer entry also says where it
sits: byte address = `address` x 1024, extent = `block` x 1024 (the entry's `size` in the shared
vocabulary). Loading numbers each tensor as the allocator's parser does (an entry identical, but for
`address` and `start_loading`, to one of the previous snapshot is the same tensor): its `tensor_id`;
`start_loading` is its `newly_added`. So the address rules (GIR302 overlap, GIR304
continuity, GIR308 alignment) run as on documented files, and GIR301 compares each core's highest
address with the L2 size the user gives (the file records none).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from irtools.dialects.alloc.models import AllocBufferEntry, AllocIR, AllocWorkload
from irtools.dialects.base import Capability, Dialect, SchemaInfo, buffer_shows
from irtools.dialects.raw.dialect import RAW_CAPABILITIES, RAW_PARTS, name_dram_writers
from irtools.dialects.raw.dialect import file_pointer as raw_file_pointer
from irtools.dialects.raw.keys import RawKeyScan
from irtools.model.view import PartialIR


class AllocKeyScan(RawKeyScan):
    """Keys the allocated models do not know (GIR103 warnings)."""

    TOP = AllocIR
    WORKLOAD = AllocWorkload
    BUFFER = AllocBufferEntry


def shows_alloc(workload: dict[str, Any]) -> bool:
    """Buffer entries with `address` next to `block`."""
    return buffer_shows(workload, ("block", "address"))


def number_tensors(ir: AllocIR | PartialIR) -> AllocIR | PartialIR:
    """Each L2 entry's tensor number, as the allocator's parser numbers them, core by core (`number_core`),
    and each DRAM `in` entry's layer (`name_dram_writers`): what loading completes on a whole file."""
    for workloads in ir.cores.values():
        number_core(workloads)
    name_dram_writers(ir)
    return ir


def number_core(workloads: list[AllocWorkload]) -> None:
    """Each L2 entry's tensor number on one core, as the allocator's parser numbers them: an entry
    identical to one of the previous snapshot is the same tensor."""
    last: dict[Key, list[tuple[Written, int]]] = {}
    count = 0
    for wl in workloads:
        now: dict[Key, list[tuple[Written, int]]] = {}
        for entry in wl.buffer:
            written = _written(entry)
            key = written[:_KEY]
            number = _number_in(last.get(key), written)
            if number is None:
                number = _number_in(now.get(key), written)
            if number is None:
                number, count = count, count + 1
            now.setdefault(key, []).append((written, number))
            entry.tensor_id = number
        last = now


Written = tuple[Any, ...]
"""An entry as the scheduler wrote it (`_written`): its scalars first, then its lists."""
Key = tuple[Any, ...]
"""The scalars of `Written`, hashable: the entries sharing them are compared whole."""
_KEY = 5


def _written(entry: AllocBufferEntry) -> Written:
    # What the SET parser compares to tell one tensor across snapshots: the whole entry as the
    # scheduler wrote it, i.e. without the two keys the allocator added. Values are strict ints,
    # strings, None and lists of them, and sources (Structs or models, compared field by field),
    # so `==` holds exactly when the written values are equal: no bool passes for an int, and
    # a source key written null or left out both read as None.
    return (
        entry.type,
        entry.layer,
        entry.block,
        entry.size_bits,
        entry.workload_id,
        entry.lower_as_written,
        entry.upper_as_written,
        entry.transfer_id_as_written,
        entry.source,
    )


def _number_in(candidates: list[tuple[Written, int]] | None, written: Written) -> int | None:
    # Comparing whole entries, not hashing an encoding of each: equal coordinates and names are
    # mostly one object (irtools.loading.sharing), which `==` meets first. The numbering of a 79 MB
    # allocated file took 0.32 s with the JSON encoding as key, 0.18 s so.
    for other, number in candidates or ():
        if other == written:
            return number
    return None


_LOAD_FLAG = re.compile(r"(/buffer/[0-9]+)/newly_added$")


def file_pointer(pointer: str) -> str:
    """The raw mapping, and the view's `newly_added` is the file's `start_loading`."""
    return _LOAD_FLAG.sub(r"\1/start_loading", raw_file_pointer(pointer))


ALLOC = Dialect(
    name="alloc",
    title="the raw IR after the SET allocator (SET-ISCA2023 ir_tools): L2 addresses in 1 KiB blocks",
    note=(
        "Gemini scheduler IR after the SET allocator's L2 address allocation (alloc dialect: raw "
        "buffer entries plus address, in 1 KiB blocks, and start_loading); checked against its own "
        "schema (irtools schema --dialect alloc); the file records no L2 size (GIR301 takes it from "
        "--l2-size)"
    ),
    capabilities=RAW_CAPABILITIES | {Capability.L2_ADDRESSES, Capability.NEWLY_ADDED},
    # The raw parts with placed buffer entries: the DRAM section, scalars and omissions are raw's own.
    parts=dataclasses.replace(
        RAW_PARTS,
        top=AllocIR,
        workload=AllocWorkload,
        workload_lists={**RAW_PARTS.workload_lists, "buffer": AllocBufferEntry},
        key_scan=AllocKeyScan,
    ),
    shows=shows_alloc,
    finish=name_dram_writers,
    finish_core=number_core,
    file_pointer=file_pointer,
    schema=SchemaInfo(
        "schemas/gemini-scheduler-ir-alloc.schema.json",
        "Gemini Scheduler IR, allocated dialect (raw IR after the SET allocator)",
        "The Gemini scheduler's raw IR after SET-ISCA2023's ir_tools (parser, allocator, refill): every "
        "L2 buffer entry holds `address`, its first 1 KiB block, next to `block`; ifmap and weight "
        "entries hold `start_loading`.",
    ),
)
