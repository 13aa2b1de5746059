"""The raw IR after the SET allocator (SET-Scheduling-Project/SET-ISCA2023, `ir_tools/`) gave it L2 addresses.

Its `parser` numbers each L2 tensor (an entry that stays identical across consecutive snapshots is
one tensor), its `allocator` places every tensor of a core in 1 KiB blocks and its `refill` writes the
result back into the raw file: every buffer entry gains `address` (the first block the tensor
occupies) and every ifmap/weight entry `start_loading` (true in the snapshot where the tensor was
not in the previous one, i.e. where loading starts). Nothing else changes: no buffersize, ring
regions or WL0. The L2 size is not recorded; a user gives it (--l2-size).
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from irtools.dialects.raw.models import RawBufferEntry, RawIR, RawWorkload
from irtools.model.base import CORES_FIELD, NOT_DERIVED, NonNegInt, StrictBool, record

BLOCK = 1024
"""Bytes per L2 block: `address` and `block` count 1 KiB blocks."""


@record
class AllocBufferEntry(RawBufferEntry):
    """One tensor held in L2 before the workload starts, with the block the allocator placed it at."""

    address_block: Annotated[NonNegInt, Field(alias="address")]
    """First 1 KiB block the tensor occupies: it spans blocks [address, address + block), bytes x 1024."""
    start_loading: StrictBool | None = None
    """ifmap/weight entries: true in the snapshot where the tensor starts being loaded (absent before)."""
    tensor_id: SkipJsonSchema[int] = dataclasses.field(init=False, default=NOT_DERIVED)
    """The tensor's number as the allocator's parser gives it: not in the file, so the loader numbers each
    core once it is loaded (irtools.dialects.alloc.dialect.number_tensors); until then any use raises
    (irtools.model.base.NotDerived)."""

    @property
    def address(self) -> int:
        """Start address in L2, in bytes."""
        return self.address_block * BLOCK

    @property
    def size(self) -> int:  # the extent in bytes is always known here
        """Extent in L2, in bytes: the blocks it holds."""
        return self.block * BLOCK

    @property
    def newly_added(self) -> bool | None:
        """Whether loading starts in this snapshot (`start_loading`)."""
        return self.start_loading


class AllocWorkload(RawWorkload):
    """A raw workload whose L2 snapshot carries addresses."""

    buffer: list[AllocBufferEntry]  # type: ignore[assignment]  # the raw entries plus address
    """L2 snapshot before the workload starts, each entry placed by the allocator."""


class AllocIR(RawIR):
    """A Gemini scheduler IR after the SET allocator's L2 address allocation."""

    cores: dict[str, list[AllocWorkload]] = Field(default_factory=dict, alias=CORES_FIELD)  # type: ignore[assignment]
    """Workloads per core, from the top-level keys (mesh ids)."""
