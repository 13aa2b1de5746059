"""Shared model configuration and value types for the Scheduler IR."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

INT64_MAX = 2**63 - 1
"""Largest integer the IR may hold: the assembler reads every number as a signed 64-bit integer."""

NonNegInt = Annotated[int, Field(ge=0, le=INT64_MAX)]
"""Sizes, addresses, ids and coordinates: never negative, never beyond int64."""

PositiveInt = Annotated[int, Field(ge=1, le=INT64_MAX)]

Coord4 = Annotated[list[NonNegInt], Field(min_length=4, max_length=4)]
"""A 4-D coordinate [N, C, H, W] (ifmap), [N, K, H, W] (ofmap) or [K, C, R, S] (weight)."""

Padding4 = Annotated[list[NonNegInt], Field(min_length=4, max_length=4)]
"""Padding [top, bottom, left, right]."""

TransferIds = list[NonNegInt]

DIALECT = "x-gemini-dialect"
"""Schema annotation on keys that real Gemini files use but the format document does not describe."""


def dialect(note: str, **kwargs: Any) -> Any:
    """A field for a key real files use but the format document does not mention."""
    return Field(default=None, json_schema_extra={DIALECT: note}, **kwargs)


class IRModel(BaseModel):
    """Base of every IR model: strict types, unknown keys kept (and reported as GIR103)."""

    model_config = ConfigDict(
        strict=True,
        extra="allow",
        use_attribute_docstrings=True,
        validate_by_alias=True,
        validate_by_name=False,
    )
