"""The JSON Schema of the Scheduler IR, generated from the Pydantic models."""

from __future__ import annotations

import json
from typing import Any

from irtools.model.ir import CORE_KEY, CORES_FIELD, SchedulerIR

SCHEMA_ID = "https://github.com/irtools/irtools/schemas/gemini-scheduler-ir.schema.json"
SCHEMA_PATH = "schemas/gemini-scheduler-ir.schema.json"


def build_schema() -> dict[str, Any]:
    """Return the Draft 2020-12 JSON Schema for one Scheduler IR file."""
    return file_schema(
        SchedulerIR.model_json_schema(mode="validation", by_alias=True),
        SCHEMA_ID,
        "Gemini Scheduler IR",
        "Output of the Gemini multi-core DNN accelerator scheduler after address allocation: "
        'DRAM traffic under key "-1" and, per core "0".."N-1", an ordered list of workloads '
        "with their tensors and L2/WL0 buffer snapshots.",
    )


def file_schema(schema: dict[str, Any], schema_id: str, title: str, description: str) -> dict[str, Any]:
    """A model's JSON Schema as the schema of a whole file (both dialects share this shape)."""
    # The models gather core keys into one field; in the file they are top-level keys.
    cores = schema["properties"].pop(CORES_FIELD)
    schema["patternProperties"] = {CORE_KEY.pattern: {**cores["additionalProperties"], "title": "Core"}}
    schema["properties"]["-1"]["description"] = 'All DRAM data: key "-1" is DRAM, not a core.'
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        **schema,
        "title": title,
        "description": description,
    }


def schema_text() -> str:
    """The schema as written to schemas/: stable key order, two-space indent, trailing newline."""
    return json.dumps(build_schema(), indent=2) + "\n"
