"""The Gemini scheduler's own IR ("raw" dialect): `SchNode::IR_gen()` output before L2 address allocation.

It is what the open-source scheduler (SET-Scheduling-Project/GEMINI-HPCA2024) writes and what
npu-simulator reads. Against the documented format it lacks every address: buffer entries hold a
count of 1 KiB `block`s instead of `address`/`tensor_id`, there is no `buffersize`, no
`ring_buffer_info`, no WL0 snapshot, no `tile_info`, no `align`/`bitwidth`. `ifmap` is one object
with `max_workload_id` (the latest workload whose data it waits for), destinations and sources name
the core by `id`, weights give their output-channel range as two integers, and sizes are in
bits (8 per int8 element), not bytes. Core keys are
Gemini's mesh ids `y*(xlen+2)+x+1`.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from irtools.model.base import (
    CORE_KEY,
    CORES_FIELD,
    NOT_DERIVED,
    Coord4,
    IRModel,
    NonNegInt,
    PositiveInt,
    StrictBool,
    StrictStr,
    TransferIds,
    record,
)

Channels = NonNegInt
"""A weight's output-channel bound K (weights in this dialect give `lower`/`upper` as integers)."""

Coord3 = Annotated[list[NonNegInt], Field(min_length=3, max_length=3)]
"""A 3-D coordinate: a weight taken from another layer's ofmap (BERT's attention matrices) drops W."""

Range = Coord4 | Channels
"""A 4-D coordinate, or the output-channel bound of a weight."""

WeightRange = Coord4 | Coord3 | Channels
"""A weight's bound: an output channel, or a box (3-D when taken from an ofmap)."""

NestedTransferIds = list[Annotated[list[NonNegInt], Field(min_length=1, max_length=1)]]
"""`[[t]]`: the unpatched scheduler appends each weight source's one-element id list."""


class WrittenBox:
    """`lower`/`upper` as four coordinates over the bounds as the file wrote them (`*_as_written`): a
    weight's output channel K as [K, 0, 0, 0], a 3-D box padded with 0."""

    __slots__ = ()
    lower_as_written: int | list[int]
    upper_as_written: int | list[int]
    COORDS_WRITTEN_AS: ClassVar[dict[str, str]] = {"lower": "lower_as_written", "upper": "upper_as_written"}
    """Which attribute each coordinate property pads (`coord`): the columns read those directly."""

    @property
    def lower(self) -> list[int]:
        """Lower coordinate, four numbers."""
        return coord(self.lower_as_written)

    @property
    def upper(self) -> list[int]:
        """Upper coordinate (inclusive), four numbers."""
        return coord(self.upper_as_written)


@record
class RawCoreDestination:
    """A workload on a core that receives this tensor."""

    type: Literal["core"]
    """Destination kind: a workload on a core."""
    id: NonNegInt
    """Mesh id of the receiving core (the same number as its top-level key)."""
    workload_id: NonNegInt
    """The receiving workload on that core."""
    layer_name: StrictStr | None = None
    """Layer of the receiving workload."""
    RENAMES: ClassVar[dict[str, str]] = {"core_id": "id"}
    """Properties that only rename a field: the columns read the field (no property call per object)."""

    @property
    def core_id(self) -> int:
        """The receiving core (the normalized name of `id`)."""
        return self.id


@record
class RawDramDestination:
    """DRAM as the destination of an ofmap; its DRAM `in` entry carries the same transfer id."""

    type: Literal["DRAM"]
    """Destination kind: DRAM."""
    id: NonNegInt
    """DRAM port the tensor is written through."""
    layer_name: StrictStr | None = None
    """Layer that reads this tensor back later."""

    @property
    def core_id(self) -> int:
        """-1: DRAM is not a core (`id` is its port)."""
        return -1


RawDestination = Annotated[RawCoreDestination | RawDramDestination, Field(discriminator="type")]


@record
class RawDramIn:
    """A tensor written to DRAM by a workload's ofmap (`IR["-1"]["in"]`)."""

    core_id: NonNegInt
    """Mesh id of the producing core."""
    workload_id: NonNegInt
    """Producing workload."""
    lower: Coord4
    """Absolute lower coordinate within the layer's ofmap."""
    upper: Coord4
    """Absolute upper coordinate (inclusive)."""
    transfer_id: NonNegInt
    """Transfer id shared with the producing ofmap."""
    related_ofmap: TransferIds = Field(default_factory=list)
    """DRAM `out` transfers that read (part of) this tensor back."""
    layer_name: SkipJsonSchema[str] = dataclasses.field(init=False, default=NOT_DERIVED)
    """Layer of the producing workload: not in the file, so the loader looks it up once the cores are loaded
    (irtools.dialects.raw.dialect.name_dram_writers; "" when the file has no such workload); until then any
    use raises (irtools.model.base.NotDerived)."""


@record
class RawDramOut(WrittenBox):
    """A tensor read from DRAM: a weight, a network input, or an fmap written earlier (`IR["-1"]["out"]`)."""

    type: Literal["weight", "fmap"]
    """Input type."""
    transfer_id: NonNegInt
    """Transfer id consumers name."""
    layer_name: StrictStr
    """Layer that reads this tensor."""
    size_bits: Annotated[NonNegInt, Field(alias="size")]
    """Size in bits (8 per int8 element: an fmap's size is 8 x its volume)."""
    lower_as_written: Annotated[Range, Field(alias="lower")]
    """Lower coordinate, or a weight's first output channel."""
    upper_as_written: Annotated[Range, Field(alias="upper")]
    """Upper coordinate (inclusive), or a weight's last output channel."""
    destination: list[RawCoreDestination]
    """Workloads that read this tensor; a weight names only the first batch group's workloads."""
    related_ifmap: TransferIds = Field(default_factory=list)
    """DRAM `in` transfers this tensor overlaps."""

    @property
    def size(self) -> int:
        """Size in bytes."""
        return byte_size(self.size_bits)


class RawDramSection(IRModel):
    """All DRAM traffic: `in` (written to DRAM) and `out` (read from DRAM)."""

    in_: list[RawDramIn] = Field(alias="in")
    """Tensors written to DRAM."""
    out: list[RawDramOut]
    """Tensors read from DRAM."""


@record
class RawSource(WrittenBox):
    """Where part of a buffer entry comes from: DRAM (through a port) or a producing core."""

    type: Literal["DRAM", "core"]
    """Source kind."""
    id: NonNegInt
    """DRAM port, or mesh id of the producing core."""
    transfer_id: NonNegInt
    """The transfer that brings this part."""
    size_bits: Annotated[NonNegInt, Field(alias="size")]
    """Size in bits (8 per int8 element: an fmap's size is 8 x its volume)."""
    lower_as_written: Annotated[Range, Field(alias="lower")]
    """Lower coordinate, or a weight's first output channel."""
    upper_as_written: Annotated[Range, Field(alias="upper")]
    """Upper coordinate (inclusive), or a weight's last output channel."""
    layer_name: StrictStr | None = None
    """Layer that produced the data (`input` for the network input)."""
    channel: Annotated[list[NonNegInt], Field(min_length=2, max_length=2)] | None = None
    """Channel range [first, last] of the source tensor this part is cut from."""

    @property
    def core_id(self) -> int:
        """The producing core; -1 for DRAM (whose `id` is a port)."""
        return -1 if self.type == "DRAM" else self.id

    @property
    def size(self) -> int:
        """Size in bytes."""
        return byte_size(self.size_bits)


@record
class RawBufferEntry(WrittenBox):
    """One tensor held in L2 before the workload starts: how many 1 KiB blocks, not where."""

    type: Literal["ifmap", "ofmap", "weight"]
    """Kind of data."""
    layer: StrictStr
    """Layer of the workload this tensor belongs to."""
    block: NonNegInt
    """L2 space held, in 1 KiB blocks (rounded up)."""
    lower_as_written: Annotated[WeightRange, Field(alias="lower")]
    """Lower coordinate, or a weight's first output channel."""
    upper_as_written: Annotated[WeightRange, Field(alias="upper")]
    """Upper coordinate (inclusive), or a weight's last output channel."""
    size_bits: Annotated[NonNegInt | None, Field(alias="size")] = None
    """Size in bits (ofmap entries)."""
    workload_id: NonNegInt | None = None
    """Workload that reads this ifmap (or weight from an ofmap); listed also in the snapshot before it."""
    source: list[RawSource] | None = None
    """Where the data comes from; absent for ofmaps."""
    transfer_id_as_written: Annotated[TransferIds | NestedTransferIds | None, Field(alias="transfer_id")] = (
        None
    )
    """Ids of the sources; weight entries of the unpatched scheduler nest each one: `[[t]]`."""
    FLAT_AS_WRITTEN: ClassVar[dict[str, str]] = {"transfer_id": "transfer_id_as_written"}
    """List properties that give the field as written when it holds ints only: the columns read the field."""

    @property
    def layer_name(self) -> str:
        """The normalized name of `layer`."""
        return self.layer

    @property
    def size(self) -> int | None:
        """Size in bytes (ofmap entries; None where the file gives none)."""
        return None if self.size_bits is None else byte_size(self.size_bits)

    @property
    def transfer_id(self) -> list[int] | None:
        """The ids flat, whether the file wrote `[t]` or `[[t]]`."""
        ids = self.transfer_id_as_written
        if not ids or type(ids[0]) is int:
            return ids  # type: ignore[return-value]  # flat already: no copy
        return flat_ids(ids)


@record
class RawIfmap:
    """The ifmap of a workload: its range, its transfers and the latest workload it waits for."""

    lower: Coord4
    """Lower coordinate [N, C, H, W]."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    max_workload_id: NonNegInt
    """The latest workload producing one of its transfers (0 when all come from DRAM)."""
    transfer_id: TransferIds = Field(default_factory=list)
    """Transfers that bring it: DRAM `out` entries or other workloads' ofmaps. IR_gen leaves it out
    when no producer's range meets this ifmap (GIR104 says so)."""


@record
class RawWeight(WrittenBox):
    """The weight of a workload: an output-channel range from DRAM, or (from_ofmap) another layer's ofmap."""

    lower_as_written: Annotated[WeightRange, Field(alias="lower")]
    """First output channel, or a 4-D lower coordinate when the weight is an ofmap."""
    upper_as_written: Annotated[WeightRange, Field(alias="upper")]
    """Last output channel (inclusive), or a 4-D upper coordinate."""
    transfer_id: TransferIds = Field(default_factory=list)
    """Transfers that bring the weight; absent when the scheduler found no producer for a from_ofmap weight."""
    from_ofmap: StrictBool | None = None
    """The weight is another layer's ofmap (e.g. attention matrices)."""
    max_workload_id: NonNegInt | None = None
    """With from_ofmap: the latest workload producing it."""
    size_bits: Annotated[NonNegInt | None, Field(alias="size")] = None
    """With from_ofmap: size in bits."""

    @property
    def size(self) -> int | None:
        """Size in bytes (weights from an ofmap; None where the file gives none)."""
        return None if self.size_bits is None else byte_size(self.size_bits)


@record
class RawOfmap:
    """One ofmap tensor of a workload and where it is sent."""

    lower: Coord4
    """Lower coordinate [N, K, H, W]."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    size_bits: Annotated[NonNegInt, Field(alias="size")]
    """Size in bits (8 per int8 element: an fmap's size is 8 x its volume)."""
    transfer_id: NonNegInt
    """Transfer id consumers name."""
    destination: list[RawDestination]
    """Receiving workloads and/or DRAM."""

    @property
    def size(self) -> int:
        """Size in bytes."""
        return byte_size(self.size_bits)


class RawWorkload(IRModel):
    """A workload: a layer's tile on one core, run in ascending workload_id."""

    workload_id: NonNegInt
    """Position in program order; unique across the whole file in this dialect."""
    layer_name: StrictStr
    """Layer this workload computes."""
    time: NonNegInt
    """Estimated running time, in cycles."""
    workload: Annotated[list[Coord4], Field(min_length=2, max_length=2)]
    """Lower and upper coordinates of this workload's ofmap."""
    ofmap_size_bits: Annotated[NonNegInt, Field(alias="ofmap_size")]
    """Size of this workload's ofmap, in bits (8 x its volume)."""
    waits: Annotated[RawIfmap, Field(alias="ifmap")]
    """The ifmap and the latest workload it waits for."""
    buffer: list[RawBufferEntry] = Field(default_factory=list)
    """L2 snapshot before this workload starts (block counts, no addresses). IR_gen leaves the key out
    when the snapshot is empty (GIR104 says so)."""
    ofmap: list[RawOfmap] = Field(default_factory=list)
    """Ofmap tensors; absent when nobody reads the output."""
    layer_type: StrictStr | None = None
    """Layer kind (conv2d, pool, element_wise, fc, ...); absent for Transpose layers."""
    weight: RawWeight | None = None
    """Weight of this workload (absent for layers without one)."""

    @property
    def ofmap_size(self) -> int:
        """Size of the ofmap in bytes."""
        return byte_size(self.ofmap_size_bits)

    @property
    def ifmap(self) -> list[RawIfmap]:
        """The ifmap as a list of one, as every dialect lists a workload's ifmaps."""
        return [self.waits]

    @property
    def ring_buffer_info(self) -> list[list[int]]:
        """No ring regions in this dialect."""
        return []

    @property
    def wl0_entries(self) -> list[Any]:
        """No WL0 snapshot in this dialect."""
        return []

    wl0_key: ClassVar[str] = "wl0_buffer"
    tile_info: ClassVar[None] = None
    """No intra-core tiles in this dialect."""
    tile_padding_tblr: ClassVar[None] = None


class RawIR(IRModel):
    """A Gemini scheduler IR before address allocation (`SchNode::IR_gen()` output)."""

    dram: RawDramSection = Field(alias="-1")
    """All DRAM data (key "-1")."""
    top_batch_cut: PositiveInt
    """Number of batch groups at the root node."""
    xlen: PositiveInt
    """Mesh width in cores."""
    ylen: PositiveInt
    """Mesh height in cores."""
    cores: dict[str, list[RawWorkload]] = Field(default_factory=dict, alias=CORES_FIELD)
    """Workloads per core, from the top-level keys (mesh ids)."""

    buffersize: ClassVar[None] = None
    """No L2 size in this dialect (the user gives it: --l2-size)."""

    @model_validator(mode="before")
    @classmethod
    def _gather_cores(cls, data: Any) -> Any:
        if isinstance(data, dict):
            cores = {k: v for k, v in data.items() if CORE_KEY.match(k)}
            data = {k: v for k, v in data.items() if k not in cores}
            data[CORES_FIELD] = cores
        return data

    def core_ids(self) -> list[int]:
        """Core ids in ascending order."""
        return sorted(int(k) for k in self.cores)


def flat_ids(ids: list[int] | list[list[int]] | None) -> list[int]:
    """Transfer ids in their flat form, whether the file wrote `[t]` or `[[t]]`."""
    if not ids:
        return []
    return [t for item in ids for t in (item if isinstance(item, list) else (item,))]


def coord(value: int | list[int]) -> list[int]:
    """A raw range bound as 4 coordinates: a weight's output channel K as [K, 0, 0, 0], a 3-D box padded with 0."""
    if isinstance(value, int):
        return [value, 0, 0, 0]
    return value if len(value) == 4 else [*value, *([0] * (4 - len(value)))]


def byte_size(bits: int) -> int:
    """A raw size (bits: 8 per int8 element) in bytes, rounded up."""
    return -(-bits // 8)
