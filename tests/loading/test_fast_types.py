"""The typed decoder's Structs agree with the Pydantic models they are derived from: same keys, aliases,
required keys and JSON types with their bounds, compared through both libraries' JSON Schemas; and they
read as the models do (properties, defaults of keys a file leaves out, repr)."""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pydantic import TypeAdapter

from irtools.dialects import DIALECTS
from irtools.dialects.documented import BufferEntry, Workload
from irtools.dialects.keys import known_keys
from irtools.dialects.raw.models import RawBufferEntry, RawWorkload
from irtools.loading.fast_types import INTERNAL_PREFIX, LOOSE, DerivationError, derive, is_model, struct_for

ROOT = Path(__file__).resolve().parents[2]


def models_reached(annotation: Any, found: dict[type, None]) -> dict[type, None]:
    """Every model (BaseModel or Pydantic dataclass) `annotation` reaches, in a stable order."""
    if isinstance(annotation, type) and hasattr(annotation, "__pydantic_fields__"):
        if annotation not in found:
            found[annotation] = None
            for info in annotation.__pydantic_fields__.values():
                if not (info.alias or "").startswith("$"):
                    models_reached(info.annotation, found)
        return found
    for arg in typing.get_args(annotation):
        models_reached(arg, found)
    return found


MODELS = list(
    models_reached(
        tuple[tuple(m for d in DIALECTS for m in (d.parts.workload, d.parts.dram_section))],  # type: ignore[misc]
        {},
    )
)


def shape(schema: dict[str, Any]) -> Any:
    """A JSON Schema fragment as a comparable value: types, bounds, enums, items, references by name."""
    if "$ref" in schema:
        return ("model", schema["$ref"].rsplit("/", 1)[-1])
    if "anyOf" in schema or "oneOf" in schema:
        members = [shape(s) for s in schema.get("anyOf", schema.get("oneOf"))]
        arrays: dict[Any, list[tuple[int, int | None]]] = {}
        rest = set()
        for m in members:
            if m[0] == "array":
                arrays.setdefault(m[3], []).append((m[1], m[2]))
            else:
                rest.add(m)
        for items, spans in arrays.items():  # [4 numbers] | [3 numbers] is one list of 3 to 4
            spans.sort()
            merged = [list(spans[0])]
            for low, high in spans[1:]:
                if merged[-1][1] is not None and low <= merged[-1][1] + 1:
                    merged[-1][1] = None if high is None else max(high, merged[-1][1])
                else:
                    merged.append([low, high])
            rest.update(("array", low, high, items) for low, high in merged)
        return frozenset(rest) if len(rest) > 1 else next(iter(rest))
    if "const" in schema:
        return ("enum", frozenset([schema["const"]]))
    if "enum" in schema:
        return ("enum", frozenset(schema["enum"]))
    kind = schema.get("type")
    if kind == "array":
        return ("array", schema.get("minItems", 0), schema.get("maxItems"), shape(schema["items"]))
    if kind == "object":
        return ("dict", shape(schema["additionalProperties"]))
    if kind in ("integer", "number"):
        maximum = schema.get("maximum")
        minimum = schema.get("minimum")
        if kind == "number":  # msgspec says "no infinity" as a bound at the largest float
            maximum = None if maximum == sys.float_info.max else maximum
            minimum = None if minimum == -sys.float_info.max else minimum
        return (kind, minimum, maximum, schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum"))
    assert kind in ("string", "boolean", "null"), schema
    return (kind,)


def model_schema(model: type) -> dict[str, Any]:
    schema = TypeAdapter(model).json_schema(by_alias=True)
    return schema["$defs"][model.__name__] if "$defs" in schema and "properties" not in schema else schema


def struct_schema(model: type) -> dict[str, Any]:
    _, components = msgspec.json.schema_components([struct_for(model)])
    return components[model.__name__]


def test_every_model_of_every_dialect_is_reached() -> None:
    names = {m.__name__ for m in MODELS}
    assert {"Workload", "RawWorkload", "AllocWorkload", "DramSection", "RawDramSection"} <= names
    assert {"BufferEntry", "RawBufferEntry", "AllocBufferEntry", "Tile", "Wl0Entry", "RawSource"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_struct_has_the_models_keys_required_keys_and_types(model: type) -> None:
    ours, theirs = struct_schema(model), model_schema(model)
    known, _ = known_keys(model)  # the keys the GIR103 scan knows for this model
    filled = {n for n, i in model.__pydantic_fields__.items() if i.init is False}  # type: ignore[attr-defined]
    internal = {k for k in ours["properties"] if k.startswith(INTERNAL_PREFIX)}
    assert internal == {INTERNAL_PREFIX + n for n in filled}  # filled by irtools, under a name no file uses
    assert set(ours["properties"]) - internal == set(known) == set(theirs["properties"])
    assert set(ours.get("required", ())) == set(theirs.get("required", ()))
    assert ours["additionalProperties"] is False  # an unknown key sends the member to the models
    for key in known:
        name = next(n for n, i in model.__pydantic_fields__.items() if (i.alias or n) == key)  # type: ignore[attr-defined]
        if (model.__name__, name) in LOOSE:
            continue  # checked below
        assert shape(ours["properties"][key]) == shape(theirs["properties"][key]), key


def test_the_loose_union_is_the_only_one_and_is_a_superset() -> None:
    # `[t]` or `[[t]]` decodes as a list of `t | [t]`; the decoder checks each list is of one form.
    for model in MODELS:
        struct_for(model)  # derived on first use: the test must not depend on which ran before it
    assert {name for _, name in LOOSE} == {"transfer_id_as_written"}
    ours = shape(struct_schema(RawBufferEntry)["properties"]["transfer_id"])
    theirs = shape(model_schema(RawBufferEntry)["properties"]["transfer_id"])
    their_items = {s[3] for s in theirs if s[0] == "array"}  # `t` and `[t]`, one list each
    assert len(their_items) == 2
    assert ours == frozenset({("null",), ("array", 0, None, frozenset(their_items))})


def test_a_validator_the_derivation_does_not_know_stops_it() -> None:
    from pydantic import AfterValidator

    odd = typing.Annotated[int, AfterValidator(lambda v: v + 1)]
    with pytest.raises(DerivationError, match="no msgspec equivalent"):
        derive(odd, "M.f")


def test_structs_read_as_the_models_do() -> None:
    entry = {"type": "weight", "layer": "conv1", "block": 3, "lower": 2, "upper": [1, 2, 3], "size": 9}
    model = TypeAdapter(RawBufferEntry).validate_python(entry)
    struct = msgspec.json.decode(json.dumps(entry), type=struct_for(RawBufferEntry))
    for name in ("lower", "upper", "size", "size_bits", "layer_name", "transfer_id", "source", "workload_id"):
        assert getattr(struct, name) == getattr(model, name), name
    assert repr(struct) == repr(model)
    assert is_model(struct, RawBufferEntry) and not is_model(struct, BufferEntry)


def test_a_left_out_key_reads_as_the_models_default() -> None:
    path = next(p for p in sorted((ROOT / "sample_ir" / "valid").glob("*.json")) if "expected" not in p.name)
    doc = json.loads(path.read_text())
    core = next(k for k in doc if k.isdigit())
    workloads = doc[core]
    for wl in workloads:
        wl.pop("weight", None)
        wl.pop("wl0_buffer", None)
    structs = msgspec.json.decode(json.dumps(workloads), type=list[struct_for(Workload)])  # type: ignore[misc]
    models = TypeAdapter(list[Workload]).validate_python(workloads)
    assert repr(structs) == repr(models)
    assert structs[0].weight is None and structs[0].wl0_entries == models[0].wl0_entries
    assert is_model(structs[0], Workload) and not is_model(structs[0], RawWorkload)
