"""The JSON Schema of the allocated dialect (the raw IR with the SET allocator's L2 addresses)."""

from __future__ import annotations

from typing import Any

from irtools.model.alloc import AllocIR
from irtools.model.schema import file_schema

ALLOC_SCHEMA_ID = "https://github.com/irtools/irtools/schemas/gemini-scheduler-ir-alloc.schema.json"
ALLOC_SCHEMA_PATH = "schemas/gemini-scheduler-ir-alloc.schema.json"


def build_alloc_schema() -> dict[str, Any]:
    """Return the Draft 2020-12 JSON Schema for one allocated-dialect file."""
    return file_schema(
        AllocIR.model_json_schema(mode="validation", by_alias=True),
        ALLOC_SCHEMA_ID,
        "Gemini Scheduler IR, allocated dialect (raw IR after the SET allocator)",
        "The Gemini scheduler's raw IR after SET-ISCA2023's ir_tools (parser, allocator, refill): every "
        "L2 buffer entry holds `address`, its first 1 KiB block, next to `block`; ifmap and weight "
        "entries hold `start_loading`.",
    )
