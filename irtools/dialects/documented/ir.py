"""The whole Scheduler IR document."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from irtools.dialects.documented.dram import DramSection
from irtools.dialects.documented.models import Workload
from irtools.model.base import CORE_KEY, CORES_FIELD, IRModel, PositiveInt


class SchedulerIR(IRModel):
    """A Gemini Scheduler IR after address allocation."""

    dram: DramSection = Field(alias="-1")
    """All DRAM data (key "-1")."""
    buffersize: PositiveInt
    """Size of the L2 buffer, in bytes."""
    top_batch_cut: PositiveInt
    """Number of batch groups at the root node."""
    xlen: PositiveInt
    """Mesh width in cores."""
    ylen: PositiveInt
    """Mesh height in cores."""
    cores: dict[str, list[Workload]] = Field(default_factory=dict, alias=CORES_FIELD)
    """Workloads per core, from the top-level keys "0".."N-1"."""

    @model_validator(mode="before")
    @classmethod
    def _gather_cores(cls, data: Any) -> Any:
        # Core ids are top-level keys; gather them into one field so the rest stays a plain model.
        if isinstance(data, dict):
            if CORES_FIELD in data:
                raise ValueError(
                    f"top-level key {CORES_FIELD!r} is reserved by irtools and cannot be checked"
                )
            cores = {k: v for k, v in data.items() if CORE_KEY.match(k)}
            data = {k: v for k, v in data.items() if k not in cores}
            data[CORES_FIELD] = cores
        return data

    def core_ids(self) -> list[int]:
        """Core ids in ascending order."""
        return sorted(int(k) for k in self.cores)
