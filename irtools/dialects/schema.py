"""A dialect's JSON Schema, generated from its top model: one builder for every dialect."""

from __future__ import annotations

import json
from typing import Any

from irtools.dialects.base import Dialect
from irtools.model.base import CORE_KEY, CORES_FIELD


def build_schema(dialect: Dialect) -> dict[str, Any]:
    """The Draft 2020-12 JSON Schema of one file of `dialect`, from its top model."""
    if dialect.schema is None:
        raise ValueError(f"the {dialect.name} dialect declares no schema")
    schema = dialect.parts.top.model_json_schema(mode="validation", by_alias=True)  # type: ignore[attr-defined]
    # The models gather core keys into one field; in the file they are top-level keys.
    cores = schema["properties"].pop(CORES_FIELD)
    schema["patternProperties"] = {CORE_KEY.pattern: {**cores["additionalProperties"], "title": "Core"}}
    schema["properties"]["-1"]["description"] = 'All DRAM data: key "-1" is DRAM, not a core.'
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": dialect.schema.schema_id,
        **schema,
        "title": dialect.schema.title,
        "description": dialect.schema.description,
    }


def schema_text(dialect: Dialect) -> str:
    """The schema as committed under schemas/: stable key order, two-space indent, trailing newline."""
    return json.dumps(build_schema(dialect), indent=2) + "\n"
