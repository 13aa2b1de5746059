"""Each model's Struct derived afresh (past `struct_for`'s cache) matches its model and reads as it does.

`struct_for` is cached, so the other tests of the decoder's types read Structs derived once, at the
first load of the process. Here every model's own Struct is derived again (`struct_for.__wrapped__`:
the derivation itself runs; the models it nests come from the cache, and are each derived afresh in
their own row): its keys, required keys, types and bounds are the model's, and the small files of each
dialect decode to what the models validate. This is also what lets mutation testing see the derivation
(docs/mutation-testing.md).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec
import pytest
from pydantic import TypeAdapter

from irtools.dialects import DIALECTS
from irtools.dialects.keys import known_keys
from irtools.dialects.raw.models import RawWorkload, WeightRange
from irtools.loading.fast_types import INTERNAL_PREFIX, LOOSE, derive, extension_keys, struct_for
from tests.loading.test_fast_types import MODELS, model_schema, models_reached, shape
from tests.mutants.edits import Doc, alloc_doc, mesh_doc, raw_doc


def _fresh(model: type) -> Any:
    return struct_for.__wrapped__(model)  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_a_fresh_struct_has_the_models_keys_required_keys_and_types(model: type) -> None:
    """Keys, required keys, internal fields and every key's type and bounds, as the model's JSON Schema."""
    _, components = msgspec.json.schema_components([_fresh(model)])
    ours, theirs = components[model.__name__], model_schema(model)
    known, _ = known_keys(model)
    filled = {n for n, i in model.__pydantic_fields__.items() if i.init is False}  # type: ignore[attr-defined]
    internal = {k for k in ours["properties"] if k.startswith(INTERNAL_PREFIX)}
    assert internal == {INTERNAL_PREFIX + n for n in filled}
    assert set(ours["properties"]) - internal == set(known) == set(theirs["properties"])
    assert set(ours.get("required", ())) == set(theirs.get("required", ()))
    assert ours["additionalProperties"] is False
    for key in known:
        name = next(n for n, i in model.__pydantic_fields__.items() if (i.alias or n) == key)  # type: ignore[attr-defined]
        if (model.__name__, name) not in LOOSE:
            assert shape(ours["properties"][key]) == shape(theirs["properties"][key]), key


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_a_fresh_struct_has_the_models_properties(model: type) -> None:
    """The rules and tables read a workload through the model's properties (a raw workload's `ifmap` is
    its one `waits` entry as a list): the Struct the decoder makes instead has every one of them."""
    own = {
        name
        for cls in model.__mro__
        if cls.__module__.startswith("irtools")
        for name, value in vars(cls).items()
        if isinstance(value, (property, functools.cached_property)) and not name.startswith("_")
    }
    fresh = _fresh(model)
    assert {name for name in own if not hasattr(fresh, name)} == set()


def test_a_fresh_raw_workload_reads_its_ifmap_through_the_models_property() -> None:
    workload = raw_doc()["1"][0]
    decoded = msgspec.json.decode(json.dumps(workload), type=_fresh(RawWorkload))
    assert decoded.ifmap == [decoded.waits] and decoded.ofmap_size == workload["ofmap_size"] // 8


DOCS = {"documented": mesh_doc, "raw": raw_doc, "alloc": alloc_doc}


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_fresh_struct_reads_a_file_as_the_models_do(dialect: Any) -> None:
    """A clean small file of the dialect: its workloads and DRAM section decoded with freshly derived
    Structs print as the models validate them (every field, defaults and optional keys included)."""
    doc: Doc = DOCS[dialect.name]()
    workloads = [wl for key, core in doc.items() if key.isdigit() for wl in core]
    parts = dialect.parts
    decoded = msgspec.json.decode(json.dumps(workloads), type=list[_fresh(parts.workload)])  # type: ignore[misc]
    assert repr(decoded) == repr(TypeAdapter(list[parts.workload]).validate_python(workloads))
    dram = msgspec.json.decode(json.dumps(doc["-1"]), type=_fresh(parts.dram_section))
    assert repr(dram) == repr(TypeAdapter(parts.dram_section).validate_python(doc["-1"]))


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_fresh_extension_keys_are_those_of_every_model_a_core_reaches(dialect: Any) -> None:
    """The keys the decoder looks for to note GIR103 infos: every extension key of every model a core's
    list reaches (its nested entries, tiles and WL0 included), each once."""
    found = extension_keys.__wrapped__(list[dialect.parts.workload])  # type: ignore[attr-defined]
    reached = models_reached(dialect.parts.workload, {})
    assert len(found) == len(set(found))
    assert set(found) == {key for model in reached for key in known_keys(model)[1]}


def test_the_documented_dialects_extension_keys_are_found() -> None:
    """Not an empty answer that equals an empty union: the documented workload has four."""
    documented = next(d for d in DIALECTS if d.name == "documented")
    found = extension_keys.__wrapped__(list[documented.parts.workload])  # type: ignore[attr-defined]
    assert set(found) == {"start_send", "ifmap_lower2", "ifmap_upper2", "wl1_buffer"}


def test_a_fresh_raw_workload_without_a_buffer_reads_an_empty_one() -> None:
    """IR_gen leaves `buffer` out when the snapshot is empty: the Struct reads the model's default, []."""
    workload = next(wl for key, core in raw_doc().items() if key.isdigit() for wl in core)
    del workload["buffer"]
    decoded = msgspec.json.decode(json.dumps(workload), type=_fresh(RawWorkload))
    assert decoded.buffer == []
    assert decoded.buffer == RawWorkload.model_validate(workload).buffer


@pytest.mark.parametrize(("length", "accepted"), [(2, False), (3, True), (4, True), (5, False)])
def test_a_fresh_weight_box_holds_3_or_4_numbers(length: int, accepted: bool) -> None:
    """A raw weight bound is a channel or a box of 3 or 4 numbers: the union's two list forms merged
    into one list of 3 to 4, no looser (a box of 5 must reach the models, which report it)."""
    box = derive(WeightRange, "test.box")
    assert msgspec.json.decode(b"7", type=box) == 7
    try:
        msgspec.json.decode(json.dumps([0] * length), type=box)
    except msgspec.ValidationError:
        assert not accepted
    else:
        assert accepted
