"""The JSON Schema of the raw dialect (Gemini's IR before address allocation), generated from its models."""

from __future__ import annotations

import json
from typing import Any

from irtools.model.raw import CORE_KEY, CORES_FIELD, RawIR

RAW_SCHEMA_ID = "https://github.com/irtools/irtools/schemas/gemini-scheduler-ir-raw.schema.json"
RAW_SCHEMA_PATH = "schemas/gemini-scheduler-ir-raw.schema.json"


def build_raw_schema() -> dict[str, Any]:
    """Return the Draft 2020-12 JSON Schema for one raw-dialect file."""
    schema = RawIR.model_json_schema(mode="validation", by_alias=True)
    cores = schema["properties"].pop(CORES_FIELD)
    schema["patternProperties"] = {CORE_KEY.pattern: {**cores["additionalProperties"], "title": "Core"}}
    schema["properties"]["-1"]["description"] = 'All DRAM data: key "-1" is DRAM, not a core.'
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": RAW_SCHEMA_ID,
        **schema,
        "title": "Gemini Scheduler IR, raw dialect (before address allocation)",
        "description": (
            "What the Gemini scheduler's SchNode::IR_gen() writes before L2 address allocation: DRAM "
            'traffic under key "-1" and, per core (Gemini mesh ids y*(xlen+2)+x+1), an ordered list of '
            "workloads whose L2 snapshots hold 1 KiB block counts instead of addresses."
        ),
    }


def raw_schema_text() -> str:
    """The schema as written to schemas/: stable key order, two-space indent, trailing newline."""
    return json.dumps(build_raw_schema(), indent=2) + "\n"
