"""What every dialect's loaded IR offers the index, the rules and the tables: one vocabulary, typed.

Each dialect validates its file straight into its own models (irtools/dialects/<name>/); none is
copied into another's. They share the names below, in the same units (sizes in bytes, coordinates
as four numbers, transfer ids flat, core ids as the file numbers its cores): the documented models
hold them as fields, the raw and allocated ones partly as properties over what their files say.
A fact only some dialects hold is not here (or, for lists, is here empty: the raw dialects have no
ring regions, WL0 entries or tiles): `PlacedEntry` is what the L2_ADDRESSES capability guarantees
(irtools.loading.index.IRIndex.placed), and code that needs a documented-only fact (align, bitwidth,
cur_wl_ifmap, a WL0 entry's fields) reads the documented models (IRIndex.documented), which only the
capabilities of that dialect let it reach.

The members are read-only properties, so each dialect's narrower types satisfy them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard


class RangeView(Protocol):
    """Something with a box: lower and upper coordinates (inclusive), four numbers each."""

    @property
    def lower(self) -> list[int]: ...
    @property
    def upper(self) -> list[int]: ...


class DestinationView(Protocol):
    """Where an ofmap or a DRAM out entry sends its data: a workload on a core, or DRAM."""

    @property
    def type(self) -> str: ...  # "core" or "DRAM"
    @property
    def core_id(self) -> int: ...  # -1 for DRAM


class CoreDestinationView(DestinationView, Protocol):
    """A destination on a core: the consuming workload, by its workload_id."""

    @property
    def workload_id(self) -> int: ...
    @property
    def layer_name(self) -> str | None: ...


def is_core(destination: DestinationView) -> TypeGuard[CoreDestinationView]:
    """Whether a destination is a workload on a core (not DRAM), in any dialect."""
    return destination.type == "core"


class SourceView(RangeView, Protocol):
    """Where an L2 entry's data came from: a core's transfer or DRAM, with its box and size."""

    @property
    def type(self) -> str: ...  # "core" or "DRAM"
    @property
    def core_id(self) -> int: ...  # -1 for DRAM
    @property
    def transfer_id(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def layer_name(self) -> str | None: ...


class BufferView(RangeView, Protocol):
    """An L2 snapshot entry."""

    @property
    def type(self) -> str: ...  # "ifmap", "ofmap" or "weight"
    @property
    def size(self) -> int | None: ...  # bytes; None where the file gives none (raw ifmap entries)
    @property
    def layer_name(self) -> str | None: ...
    @property
    def source(self) -> Sequence[SourceView] | None: ...
    @property
    def transfer_id(self) -> list[int] | None: ...


class PlacedEntry(BufferView, Protocol):
    """An L2 snapshot entry with its place: what the L2_ADDRESSES capability guarantees."""

    @property
    def size(self) -> int: ...
    @property
    def address(self) -> int: ...  # bytes
    @property
    def tensor_id(self) -> int: ...
    @property
    def newly_added(self) -> bool | None: ...


class IfmapView(RangeView, Protocol):
    """A workload's input feature map: its box and the transfer ids that bring it."""

    @property
    def transfer_id(self) -> list[int]: ...


class WeightView(RangeView, Protocol):
    """A workload's weight tile: its box, its size and the transfer ids that bring it."""

    @property
    def size(self) -> int | None: ...
    @property
    def transfer_id(self) -> list[int]: ...


class OfmapView(RangeView, Protocol):
    """A workload's output feature map: its box, its size, its transfer id and where it goes."""

    @property
    def size(self) -> int: ...
    @property
    def transfer_id(self) -> int: ...
    @property
    def destination(self) -> Sequence[DestinationView]: ...


class WorkloadView(Protocol):
    """One workload of a core: its layer, its compute time, its tensors and its L2 and WL0 snapshots."""

    @property
    def workload_id(self) -> int: ...
    @property
    def layer_name(self) -> str: ...
    @property
    def layer_type(self) -> str | None: ...
    @property
    def time(self) -> int: ...
    @property
    def workload(self) -> Sequence[list[int]]: ...
    @property
    def ofmap_size(self) -> int: ...
    @property
    def ifmap(self) -> Sequence[IfmapView]: ...
    @property
    def ofmap(self) -> Sequence[OfmapView]: ...
    @property
    def buffer(self) -> Sequence[BufferView]: ...
    @property
    def weight(self) -> WeightView | None: ...
    @property
    def ring_buffer_info(self) -> Sequence[list[int]]: ...
    @property
    def wl0_entries(self) -> Sequence[Any]: ...
    @property
    def wl0_key(self) -> str: ...
    @property
    def tile_info(self) -> Mapping[str, Any] | None: ...


class DramInView(RangeView, Protocol):
    """A DRAM `in` entry: an ofmap written back to DRAM by the workload that produced it."""

    @property
    def core_id(self) -> int: ...
    @property
    def workload_id(self) -> int: ...
    @property
    def layer_name(self) -> str: ...
    @property
    def transfer_id(self) -> int: ...
    @property
    def related_ofmap(self) -> list[int]: ...


class DramOutView(RangeView, Protocol):
    """A DRAM `out` entry: a weight or fmap read from DRAM and sent to its destinations."""

    @property
    def type(self) -> str: ...  # "weight" or "fmap"
    @property
    def transfer_id(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def destination(self) -> Sequence[DestinationView]: ...
    @property
    def related_ifmap(self) -> list[int]: ...


class DramView(Protocol):
    """The DRAM section (key "-1"): what DRAM receives (`in`) and sends (`out`)."""

    @property
    def in_(self) -> Sequence[DramInView]: ...
    @property
    def out(self) -> Sequence[DramOutView]: ...


class IRView(Protocol):
    """A loaded file: the DRAM section, the top-level numbers and the cores' workloads."""

    @property
    def dram(self) -> DramView: ...
    @property
    def buffersize(self) -> int | None: ...  # None: the file records no L2 size
    @property
    def top_batch_cut(self) -> int | None: ...  # None where the file's value broke the schema
    @property
    def xlen(self) -> int | None: ...
    @property
    def ylen(self) -> int | None: ...
    @property
    def cores(self) -> Mapping[str, Sequence[WorkloadView]]: ...

    def core_ids(self) -> list[int]: ...


@dataclass(slots=True)
class PartialIR:
    """What is left of a file whose top level breaks the schema: its valid parts, each number the
    schema rejects as None (the dialect's top model is never built with values it forbids)."""

    dram: Any
    """The dialect's DRAM section model (empty when the section itself is unusable)."""
    cores: dict[str, list[Any]] = field(default_factory=dict)
    """The dialect's workload models per core key."""
    buffersize: int | None = None
    top_batch_cut: int | None = None
    xlen: int | None = None
    ylen: int | None = None

    def core_ids(self) -> list[int]:
        """Core ids in ascending order."""
        return sorted(int(k) for k in self.cores)
