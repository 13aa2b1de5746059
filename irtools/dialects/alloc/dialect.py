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
from collections.abc import Callable
from typing import Any

import msgspec

from irtools.dialects.alloc.models import AllocBufferEntry, AllocIR, AllocWorkload
from irtools.dialects.base import Capability, Dialect, SchemaInfo, buffer_shows
from irtools.dialects.raw.dialect import RAW_CAPABILITIES, RAW_PARTS, name_dram_writers
from irtools.dialects.raw.dialect import file_pointer as raw_file_pointer
from irtools.dialects.raw.keys import RawKeyScan
from irtools.dialects.raw.models import RawSource
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
    """Each L2 entry's tensor number, as the allocator's parser numbers them, core by core: an entry
    identical to one of the previous snapshot is the same tensor."""
    name_dram_writers(ir)
    for workloads in ir.cores.values():
        last: dict[Identity, int] = {}
        count = 0
        identify = _identity_of_core(workloads)
        for wl in workloads:
            now: dict[Identity, int] = {}
            for entry in wl.buffer:
                identity = identify(entry)
                number = last.get(identity, now.get(identity))
                if number is None:
                    number, count = count, count + 1
                now[identity] = number
                entry.tensor_id = number
            last = now
    return ir


Identity = tuple[Any, ...] | bytes
"""An entry as the scheduler wrote it, hashable: lists as tuples (values are strict ints and strings,
so two keys are equal exactly when the written values are), or for decoded Structs those values
encoded as JSON."""


def _identity_of_core(workloads: list[AllocWorkload]) -> Callable[[AllocBufferEntry], Identity]:
    # A core is decoded whole (irtools.loading.decoder) or read whole by the models: its entries are all
    # Structs or all models, so one kind of key numbers the whole core.
    first = next((wl.buffer[0] for wl in workloads if wl.buffer), None)
    return _encoded_identity if isinstance(first, msgspec.Struct) else _identity


def _written(entry: AllocBufferEntry) -> tuple[Any, ...]:
    # What the SET parser compares to tell one tensor across snapshots: the whole entry as the
    # scheduler wrote it, i.e. without the two keys the allocator added.
    return (
        entry.type,
        entry.layer,
        entry.block,
        entry.lower_as_written,
        entry.upper_as_written,
        entry.size_bits,
        entry.workload_id,
        entry.transfer_id_as_written,
        entry.source,
    )


def _encoded_identity(entry: AllocBufferEntry) -> bytes:
    # `_written` encoded in C: equal bytes exactly when the values are equal (strict ints, strings,
    # lists of them and None; a source's optional fields default to None, which the encoder leaves out
    # whether the file wrote null or nothing, as `_source_identity` takes both as None). The tuples of
    # `_identity` cost about 0.6x the parse of an allocated file, this a third.
    return _encode(_written(entry))


def _identity(entry: AllocBufferEntry) -> Identity:
    # `_written` hashable, for entries read by the models. Tuples, not a repr: building the text of
    # every entry's sources cost about 0.6x the parse of an allocated file.
    kind, layer, block, lower, upper, size_bits, workload_id, ids, sources = _written(entry)
    return (
        kind,
        layer,
        block,
        _frozen(lower),
        _frozen(upper),
        size_bits,
        workload_id,
        None if ids is None else tuple([tuple(i) if type(i) is list else i for i in ids]),
        None if sources is None else tuple([_source_identity(s) for s in sources]),
    )


def _source_identity(source: RawSource) -> Identity:
    # Every field of the source (its repr's): a source that differs anywhere is another tensor.
    return (
        source.type,
        source.id,
        source.transfer_id,
        source.size_bits,
        _frozen(source.lower_as_written),
        _frozen(source.upper_as_written),
        source.layer_name,
        _frozen(source.channel),
    )


def _frozen(value: Any) -> Any:
    # A bound is an int or a flat list of ints: the list as a tuple, which no written value is.
    return tuple(value) if type(value) is list else value


_encode = msgspec.json.Encoder().encode

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
    finish=number_tensors,
    file_pointer=file_pointer,
    schema=SchemaInfo(
        "schemas/gemini-scheduler-ir-alloc.schema.json",
        "Gemini Scheduler IR, allocated dialect (raw IR after the SET allocator)",
        "The Gemini scheduler's raw IR after SET-ISCA2023's ir_tools (parser, allocator, refill): every "
        "L2 buffer entry holds `address`, its first 1 KiB block, next to `block`; ifmap and weight "
        "entries hold `start_loading`.",
    ),
)
