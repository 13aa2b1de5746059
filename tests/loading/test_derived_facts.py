"""Facts the loader derives after construction (an alloc entry's tensor_id, a raw DRAM writer's layer_name):
set on every object once loaded, by either read (the decoder's Structs or the models), and impossible to
use by mistake before (no -1 or "" that passes for a real value)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from pydantic import TypeAdapter

from irtools.dialects.alloc.dialect import _written
from irtools.dialects.alloc.models import AllocBufferEntry
from irtools.dialects.raw.models import RawDramIn
from irtools.loading import decoder
from irtools.loading.fast_types import struct_for
from irtools.loading.load import load_ir
from irtools.model.base import NotDerivedError

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
ALLOC_FILE = FIXTURES / "gemini-alloc" / "bert_2x2_b1_alloc.json"
RAW_FILE = FIXTURES / "gemini-raw" / "bert_2x2_b1_ir.json"

pytestmark = pytest.mark.skipif(not ALLOC_FILE.exists(), reason="../shared/fixtures/gemini-alloc not present")

ENTRY = {
    "type": "ofmap",
    "layer": "fc",
    "block": 2,
    "lower": [0, 0, 0, 0],
    "upper": [0, 1, 0, 0],
    "address": 7,
}
DRAM_IN = {"core_id": 1, "workload_id": 0, "lower": [0, 0, 0, 0], "upper": [0, 1, 0, 0], "transfer_id": 3}


def _both_reads(model: type, data: dict[str, Any]) -> list[Any]:
    """`data` as the decoder's Struct and as the model, before any loader pass."""
    struct = msgspec.json.decode(json.dumps(data), type=struct_for(model))
    return [struct, TypeAdapter(model).validate_python(data)]


@pytest.mark.parametrize("read", ["msgspec", "models"])
def test_every_loaded_object_holds_its_derived_fact(read: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(decoder.SWITCH, read)
    alloc, raw = load_ir(ALLOC_FILE).ir, load_ir(RAW_FILE).ir
    assert alloc is not None and raw is not None
    ids = [e.tensor_id for ws in alloc.cores.values() for w in ws for e in w.buffer]
    assert ids and all(type(i) is int and i >= 0 for i in ids)
    # BERT's DRAM writers are all workloads of the file: each `in` entry is named after its writer's layer.
    layers = {(int(k), w.workload_id): w.layer_name for k, ws in raw.cores.items() for w in ws}
    assert raw.dram.in_ and all(e.layer_name == layers[(e.core_id, e.workload_id)] for e in raw.dram.in_)


@pytest.mark.parametrize(
    ("model", "data", "name"), [(AllocBufferEntry, ENTRY, "tensor_id"), (RawDramIn, DRAM_IN, "layer_name")]
)
def test_a_fact_not_derived_yet_cannot_be_used(model: type, data: dict[str, Any], name: str) -> None:
    for obj in _both_reads(model, data):
        fact = getattr(obj, name)
        assert "not derived yet" in repr(obj)  # a debugger shows it as unset, not as -1 or ""
        uses: list[Callable[[Any], object]] = [
            lambda f: f == 0,
            lambda f: f == "",
            hash,
            bool,
            lambda f: f"{f}",
        ]
        for use in uses:
            with pytest.raises(NotDerivedError):
                use(fact)
        with pytest.raises(NotDerivedError):  # a column of it is not quietly given up on (not a TypeError)
            np.fromiter([fact], np.int64, 1)


def test_the_tensor_identity_does_not_read_the_derived_number() -> None:
    # The allocator's parser tells one tensor across snapshots by the entry as the scheduler wrote it:
    # an entry before numbering has its identity, and numbering does not change it.
    for entry in _both_reads(AllocBufferEntry, ENTRY):
        before = _written(entry)
        entry.tensor_id = 5
        assert _written(entry) == before
