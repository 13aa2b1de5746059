"""A core's workloads (top-level keys "0".."N-1"): COMP tiles with their tensors and buffer snapshots."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from irtools.dialects.documented.dram import Destination
from irtools.model.base import (
    Coord4,
    IRModel,
    NonNegInt,
    Padding4,
    PositiveInt,
    StrictBool,
    StrictFloat,
    StrictStr,
    TransferIds,
    extension,
    record,
)


@record
class IfmapTensor:
    """One ifmap tensor of a workload, held in L2."""

    align: PositiveInt
    """Number of channels this tensor is aligned to."""
    bitwidth: PositiveInt
    """Bits per element: 8 for int8, 16 for fp16/int16."""
    lower: Coord4
    """Lower coordinate [N, C, H, W] in this workload's ifmap."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    size: NonNegInt
    """Size in bytes."""
    transfer_id: TransferIds
    """Transfers that bring this tensor: a DRAM `out` entry or other workloads' ofmaps."""


@record
class OfmapTensor:
    """One ofmap tensor of a workload and where it is sent."""

    lower: Coord4
    """Lower coordinate [N, K, H, W]."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    size: NonNegInt
    """Size in bytes."""
    transfer_id: NonNegInt
    """Transfer id that consumers name."""
    destination: list[Destination]
    """Receiving workloads (type core) and/or DRAM."""


@record
class WeightTensor:
    """The weight of a workload ([K, C, R, S])."""

    lower: Coord4
    """Lower coordinate [K, C, R, S]."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    size: NonNegInt
    """Size in bytes, BatchNorm parameters included."""
    transfer_id: TransferIds
    """Transfers that bring this weight (DRAM `out` entries)."""


@record
class DramSource:
    """The DRAM source of a buffer entry: the whole tensor comes from one DRAM `out` transfer."""

    type: Literal["DRAM"]
    """Source kind: DRAM."""
    core_id: Literal[-1]
    """Always -1 for DRAM."""
    transfer_id: NonNegInt
    """The DRAM `out` transfer."""
    size: NonNegInt
    """Size in bytes."""
    lower: Coord4
    """Lower coordinate; equals the entry's own."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    layer_name: StrictStr | None = None
    """Layer that reads this tensor."""


@record
class CoreSource:
    """A core source of a buffer entry: its intersection with one producer's ofmap."""

    type: Literal["core"]
    """Source kind: a workload on a core."""
    core_id: NonNegInt
    """Core of the producing workload."""
    transfer_id: NonNegInt
    """The producer's ofmap transfer."""
    size: NonNegInt
    """Size in bytes."""
    lower: Coord4
    """Lower coordinate of the intersection."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    layer_name: StrictStr | None = None
    """The producing layer."""


BufferSource = Annotated[DramSource | CoreSource, Field(discriminator="type")]


@record
class BufferEntry:
    """One tensor in the L2 buffer snapshot taken before the workload starts."""

    tensor_id: NonNegInt
    """Id of this tensor."""
    type: Literal["ifmap", "ofmap", "weight"]
    """Kind of data."""
    address: NonNegInt
    """Start address in L2, in bytes."""
    size: NonNegInt
    """Size in bytes."""
    align: PositiveInt
    """Channel alignment."""
    bitwidth: PositiveInt
    """Bits per element."""
    lower: Coord4
    """Lower coordinate; the bounding box of its sources."""
    upper: Coord4
    """Upper coordinate (inclusive)."""
    tensor_order: NonNegInt | None = None
    """Absolute order of the tensor in the DRAM access queue."""
    layer_name: StrictStr | None = None
    """Layer of the workload this tensor belongs to."""
    newly_added: StrictBool | None = None
    """Whether this tensor was added at the beginning of this workload."""
    cur_wl_ifmap: StrictBool | None = None
    """Whether this is an ifmap of the current workload."""
    source: list[BufferSource] | None = None
    """Where the data comes from: one DRAM element, or one element per producing core transfer."""
    transfer_id: TransferIds | None = None
    """Union of the sources' transfer ids."""
    start_send: StrictBool | None = extension(
        "ofmap entries that go only to DRAM carry start_send instead of source/transfer_id/newly_added"
    )
    """Output that is sent to DRAM (real files; not in the format document)."""


@record
class Wl0Entry:
    """One weight in the WL0 buffer snapshot (WL0 holds only weights)."""

    address: NonNegInt
    """Start address in WL0, in bytes."""
    size: NonNegInt
    """Size in bytes."""
    align: PositiveInt
    """Channel alignment."""
    bitwidth: PositiveInt
    """Bits per element."""
    layer_name: StrictStr
    """Layer that uses this weight."""
    source: Literal["CORE", "DDR"]
    """Where WL0 reads it from: the L2 buffer (CORE) or DRAM (DDR, in real files)."""
    transfer_id: TransferIds
    """Transfers of this weight."""
    tensor_order: NonNegInt | None = None
    """Absolute order in the DRAM access queue, null when read from L2."""
    lower: Coord4 | None = None
    """Lower coordinate [K, C, R, S]."""
    upper: Coord4 | None = None
    """Upper coordinate (inclusive)."""


@record
class Tile:
    """One intra-core tile chosen by the Intra-Core Compiler."""

    ifmap_lower: Coord4
    """Lower coordinate of the tile's ifmap."""
    ifmap_upper: Coord4
    """Upper coordinate of the tile's ifmap (inclusive)."""
    ofmap_lower: Coord4
    """Lower coordinate of the tile's ofmap."""
    ofmap_upper: Coord4
    """Upper coordinate of the tile's ofmap (inclusive)."""
    single_tile_time_pred: Annotated[StrictFloat, Field(ge=0, allow_inf_nan=False)]
    """Predicted running time of this tile, in cycles."""
    tile_padding_tblr: Padding4 | None = None
    """Padding [top, bottom, left, right] of this tile's ofmap."""
    layer_name: StrictStr | None = None
    """Layer of this tile."""
    loop_order: StrictStr | None = None
    """Loop order, e.g. KNHW."""
    cut_mode: StrictStr | None = None
    """Cut mode, e.g. KH."""
    ci_cut_num: NonNegInt | None = None
    """Number of input-channel cuts."""
    act_mini_tile: Coord4 | None = None
    """Activation mini-tile shape."""
    out_mini_tile: Coord4 | None = None
    """Output mini-tile shape."""
    mtc0_mtk0: Annotated[list[NonNegInt], Field(min_length=2, max_length=2)] | None = None
    """Mini-tile C0 and K0."""
    ifmap_lower2: Coord4 | None = extension("second ifmap (e.g. of an Add) of a tile, in real files")
    """Lower coordinate of the tile's second ifmap."""
    ifmap_upper2: Coord4 | None = extension("second ifmap (e.g. of an Add) of a tile, in real files")
    """Upper coordinate of the tile's second ifmap (inclusive)."""


RingRegion = Annotated[list[NonNegInt], Field(min_length=2, max_length=2)]


class Workload(IRModel):
    """A COMP tile and its configuration; a core runs its workloads in ascending workload_id."""

    workload_id: NonNegInt
    """Position in the core's program order (ascending)."""
    layer_name: StrictStr
    """Layer this workload computes."""
    layer_type: StrictStr
    """Hardware module: pe (processing element), vp (vector processor) or dt (data transfer)."""
    time: NonNegInt
    """Estimated running time, in cycles."""
    workload: Annotated[list[Coord4], Field(min_length=2, max_length=2)]
    """Lower and upper coordinates of this workload's ofmap."""
    ofmap_size: NonNegInt
    """Size of this workload's ofmap, in bytes."""
    ifmap: list[IfmapTensor]
    """Ifmap tensors in L2."""
    ofmap: list[OfmapTensor]
    """Ofmap tensors and their destinations."""
    buffer: list[BufferEntry]
    """L2 snapshot before this workload starts."""
    ring_buffer_info: list[RingRegion]
    """Ring-buffer regions of L2; an address past a region's end wraps to its start."""
    weight: WeightTensor | None = None
    """Weight of this workload (absent for vp layers)."""
    tile_info: dict[str, Tile] | None = None
    """Intra-core tiles, keyed tile_num_0, tile_num_1, ..."""
    tile_padding_tblr: Padding4 | None = None
    """Padding [top, bottom, left, right] of this workload's ofmap."""
    wl0_buffer: list[Wl0Entry] | None = None
    """WL0 snapshot before this workload starts (weights only); null when empty."""
    wl1_buffer: list[Wl0Entry] | None = extension("older Gemini files name the WL0 snapshot wl1_buffer")
    """The WL0 snapshot under its older name."""

    @property
    def wl0_entries(self) -> list[Wl0Entry]:
        """The WL0 snapshot, whichever key the file used."""
        return self.wl0_buffer or self.wl1_buffer or []

    @property
    def wl0_key(self) -> str:
        """The key the file used for the WL0 snapshot."""
        return "wl1_buffer" if self.wl0_buffer is None and self.wl1_buffer is not None else "wl0_buffer"
