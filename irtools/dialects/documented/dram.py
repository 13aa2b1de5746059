"""The DRAM section, top-level key "-1": tensors written to DRAM (`in`) and read from it (`out`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from irtools.model.base import Coord4, IRModel, NonNegInt, StrictStr, TransferIds, record


@record
class CoreDestination:
    """A workload on a core that receives this tensor."""

    type: Literal["core"]
    """Destination kind: a workload on a core."""
    core_id: NonNegInt
    """Core that runs the receiving workload."""
    workload_id: NonNegInt
    """The receiving workload on that core."""
    layer_name: StrictStr | None = None
    """Layer of the receiving workload (present in DRAM `out` destinations)."""


@record
class DramDestination:
    """DRAM as the destination of an ofmap; its `in` entry carries the same transfer id."""

    type: Literal["DRAM"]
    """Destination kind: DRAM."""
    core_id: Literal[-1]
    """Always -1: DRAM is not a core."""


Destination = Annotated[CoreDestination | DramDestination, Field(discriminator="type")]


@record
class DramIn:
    """A tensor written to DRAM: the ofmap of a workload (`IR["-1"]["in"]`)."""

    core_id: NonNegInt
    """Core of the workload that produces this tensor."""
    workload_id: NonNegInt
    """Workload that produces this tensor."""
    layer_name: StrictStr
    """Layer whose ofmap this tensor is."""
    lower: Coord4
    """Absolute lower coordinate of this tensor within the whole layer's ofmap."""
    upper: Coord4
    """Absolute upper coordinate (inclusive) of this tensor within the whole layer's ofmap."""
    transfer_id: NonNegInt
    """Transfer id shared with the producing workload's ofmap."""
    related_ofmap: TransferIds = Field(default_factory=list)
    """Transfer ids of DRAM `out` tensors that read (part of) this tensor back."""


@record
class DramOut:
    """A tensor read from DRAM: weights, network inputs, or fmaps spilled earlier (`IR["-1"]["out"]`)."""

    type: Literal["weight", "fmap"]
    """Input type: weight or fmap."""
    transfer_id: NonNegInt
    """Transfer id; consumers name it in their ifmap, weight or buffer entries."""
    size: NonNegInt
    """Size in bytes (aligned; weights include BatchNorm parameters)."""
    lower: Coord4
    """Absolute lower coordinate in the layer's ifmap (or weight)."""
    upper: Coord4
    """Absolute upper coordinate (inclusive)."""
    destination: list[Destination]
    """Workloads that use this tensor; a weight names only its first user."""
    related_ifmap: TransferIds = Field(default_factory=list)
    """Transfer ids of DRAM `in` tensors this tensor overlaps."""


class DramSection(IRModel):
    """All DRAM traffic: `in` (written to DRAM) and `out` (read from DRAM)."""

    in_: list[DramIn] = Field(alias="in")
    """Tensors written to DRAM, generally ofmaps."""
    out: list[DramOut]
    """Tensors read from DRAM: weights, ifmaps, constants."""
