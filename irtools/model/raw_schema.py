"""The JSON Schema of the raw dialect (Gemini's IR before address allocation), generated from its models."""

from __future__ import annotations

import json
from typing import Any

from irtools.model.raw import RawIR
from irtools.model.schema import file_schema

RAW_SCHEMA_ID = "https://github.com/irtools/irtools/schemas/gemini-scheduler-ir-raw.schema.json"
RAW_SCHEMA_PATH = "schemas/gemini-scheduler-ir-raw.schema.json"


def build_raw_schema() -> dict[str, Any]:
    """Return the Draft 2020-12 JSON Schema for one raw-dialect file."""
    return file_schema(
        RawIR.model_json_schema(mode="validation", by_alias=True),
        RAW_SCHEMA_ID,
        "Gemini Scheduler IR, raw dialect (before address allocation)",
        "What the Gemini scheduler's SchNode::IR_gen() writes before L2 address allocation: DRAM "
        'traffic under key "-1" and, per core (Gemini mesh ids y*(xlen+2)+x+1), an ordered list of '
        "workloads whose L2 snapshots hold 1 KiB block counts instead of addresses.",
    )


def raw_schema_text() -> str:
    """The schema as written to schemas/: stable key order, two-space indent, trailing newline."""
    return json.dumps(build_raw_schema(), indent=2) + "\n"
